// headroom-cli probe [--json] [--save FILE [--force]]: what this machine has, with provenance.
// The GUI runs `probe --json` as a child process with a timeout, so a hanging or crashing GPU
// driver cannot take the window down; the JSON is core/hardware_json.h's headroom.hardware/1.
#include "commands.h"

#ifdef HEADROOM_HAVE_PROBE
#include "atomic_write.h"
#include "hardware_json.h"
#include "isolated.h"
#include "probe.h"
#include "text_file.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace headroom::cli {
namespace {

std::string gbs(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GB/s", v);
    return buf;
}

std::string optBytes(const std::optional<Bytes>& b) {
    return b ? formatBytes(*b) : std::string("unknown");
}

void printDevice(const GpuDevice& g) {
    std::cout << "  " << g.name << "  [" << (g.device_type.empty() ? "?" : g.device_type) << ", "
              << g.backend << (g.pci_address.empty() ? "" : ", " + g.pci_address) << "]\n";
    std::cout << "    memory: " << formatBytes(g.total_bytes) << " total, "
              << optBytes(g.free_bytes) << " free  (" << g.memory_provenance << ")\n";
    if (g.bandwidth_gbs > 0)
        std::cout << "    bandwidth: " << gbs(g.bandwidth_gbs) << "  (" << g.bandwidth_provenance
                  << ")\n";
    if (g.fp16_tflops > 0)
        std::cout << "    fp16: " << g.fp16_tflops << " TFLOPS  (" << g.fp16_provenance << ")\n";
    if (g.pcie_gen > 0)
        std::cout << "    pcie: gen " << g.pcie_gen << " x" << g.pcie_width << "  ("
                  << g.pcie_provenance << ")\n";
    if (!g.driver.empty()) std::cout << "    driver: " << g.driver << "\n";
    if (!g.note.empty()) std::cout << "    note: " << g.note << "\n";
}

void printHuman(const HardwareSnapshot& hw) {
    std::cout << "Hardware: " << hw.label << "\n";
    std::cout << "GPUs to plan for" << (hw.uma ? " (unified memory)" : "") << ":\n";
    if (hw.gpus.empty()) std::cout << "  none\n";
    for (const auto& g : hw.gpus)
        printDevice(g);
    if (!hw.ignored_devices.empty()) {
        std::cout << "Seen but not planned for:\n";
        for (const auto& g : hw.ignored_devices)
            printDevice(g);
    }
    std::cout << "RAM: " << formatBytes(hw.ram_total) << " total (" << hw.ram_provenance << "), "
              << optBytes(hw.ram_available) << " available (" << hw.ram_available_provenance
              << ")\n";
    std::cout << "Swap: " << formatBytes(hw.swap_total) << " total, " << optBytes(hw.swap_free)
              << " free (never planned into)\n";
    if (!hw.cgroup_version.empty())
        std::cout << "cgroup " << hw.cgroup_version << ": "
                  << (hw.cgroup_limit ? "limit " + formatBytes(*hw.cgroup_limit) : "no limit")
                  << ", usage " << optBytes(hw.cgroup_usage) << "\n";
    std::cout << "Host memory bandwidth: " << gbs(hw.host_bandwidth_gbs) << " ("
              << hw.host_bandwidth_provenance << ")\n";
    std::cout << "CPU: " << (hw.cpu_name.empty() ? "unknown" : hw.cpu_name) << ", "
              << hw.cpu_threads << " threads";
    if (hw.cpu_tflops > 0)
        std::cout << ", " << std::to_string(hw.cpu_tflops).substr(0, 4) << " TFLOPS FP32 ("
                  << hw.cpu_tflops_provenance << ")";
    std::cout << "\n";
    if (!hw.notes.empty()) {
        std::cout << "Notes:\n";
        for (const auto& n : hw.notes)
            std::cout << "  - " << n << "\n";
    }
}

struct ProbeArgs {
    bool json = false;
    std::string save;
    bool force = false;
    probe::ProbeOptions options;
    std::string nvml;
    bool noVulkan = false, noNvml = false;
};

const CommandRegistrar registrar{
    "probe", "What this machine has (GPUs, memory, bandwidth), with where each figure came from",
    [](CLI::App& sub) -> std::function<int()> {
        auto a = std::make_shared<ProbeArgs>();
        sub.footer("Exit codes: 0 probed (even with no GPU), 2 bad arguments (also: --save FILE "
                   "exists without --force, or is a directory, FIFO, device or a link to one, "
                   "never replaced; a symbolic link is replaced itself, never written through), 3 "
                   "--save FILE cannot be written (its directory missing or read-only, disk "
                   "full), 4 probe failed (system RAM unreadable or implausible).\nWith --json a "
                   "failure prints "
                   "{\"error\": {\"code\", \"message\", \"details\"}}.");
        sub.add_flag("--json", a->json, "Print the snapshot as headroom.hardware/1 JSON");
        sub.add_option("--save", a->save,
                       "Also save the snapshot as a hardware profile (for plan --hardware FILE)");
        sub.add_flag("--force", a->force, "Let --save replace an existing file");
        auto* seams = "Test seams";
        sub.add_option("--proc-root", a->options.paths.proc_root, "Read /proc from this directory")
            ->group(seams);
        sub.add_option("--sys-root", a->options.paths.sys_root, "Read /sys from this directory")
            ->group(seams);
        sub.add_option("--vulkan-library", a->options.paths.vulkan_library,
                       "Vulkan loader to dlopen (default libvulkan.so.1)")
            ->group(seams);
        sub.add_option("--nvml-library", a->nvml, "NVML library to dlopen")->group(seams);
        sub.add_flag("--no-vulkan", a->noVulkan, "Skip Vulkan")->group(seams);
        sub.add_flag("--no-nvml", a->noNvml, "Skip NVML")->group(seams);
        return [a]() -> int {
            if (!a->nvml.empty()) a->options.paths.nvml_libraries = {a->nvml};
            a->options.use_vulkan = !a->noVulkan;
            a->options.use_nvml = !a->noNvml;
            // Vulkan and NVML run in child processes with a time limit: a hanging loader or
            // driver (VK_ICD_FILENAMES naming a FIFO, a wedged GPU) costs seconds, not the probe.
            a->options.isolate_timeout_ms = probe::detail::kIsolatedProbeTimeoutMs;
            // Refuse an impossible --save target (a device, FIFO, directory; an existing file
            // without --force) before probing; the write itself checks again, atomically.
            if (!a->save.empty())
                if (auto ok = checkOutputTarget(a->save, a->force); !ok)
                    return fail("probe", ok.error().message,
                                ok.error().code == ErrorCode::InvalidArgument
                                    ? kExitBadArguments
                                    : kExitUnreadableInput);
            auto hw = probe::probeHardware(a->options);
            if (!hw) {
                if (a->json)
                    std::cout << dumpJson(nlohmann::json{{"error",
                                                          {{"code", errorCodeName(hw.error().code)},
                                                           {"message", hw.error().message},
                                                           {"details", hw.error().details}}}})
                              << "\n";
                return fail("probe", hw.error().message, kExitProbeFailed);
            }
            if (a->json)
                std::cout << dumpJson(hardwareToJson(*hw)) << "\n";
            else
                printHuman(*hw);
            if (!a->save.empty()) {
                auto ok = saveHardwareProfile(a->save, *hw, a->force);
                // The wrong target (it exists without --force, is a directory, FIFO or device)
                // is a bad argument (2), as in export; a file that cannot be written is 3.
                if (!ok)
                    return fail(
                        "probe",
                        ok.error().message +
                            (ok.error().details.empty() ? "" : " (" + ok.error().details + ")"),
                        ok.error().code == ErrorCode::InvalidArgument ? kExitBadArguments
                                                                      : kExitUnreadableInput);
                if (!a->json) std::cout << "Saved profile: " << a->save << "\n";
            }
            return kExitOk;
        };
    }};

} // namespace
} // namespace headroom::cli
#endif
