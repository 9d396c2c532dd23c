#include "probe.h"

#include "backend/backend.h"
#include "fs_util.h"
#include "gpu_tables.h"
#include "hardware_json.h"
#include "hardware_presets.h"
#include "host_memory.h"
#include "isolated.h"
#include "nvml.h"
#include "pci_sysfs.h"
#include "vulkan_probe.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace headroom::probe {

using namespace detail;

namespace {

constexpr std::uint32_t kVendorNvidia = 0x10de;
constexpr std::uint32_t kVendorAmd = 0x1002;
constexpr std::uint32_t kVendorIntel = 0x8086;

// Provenance strings (shown next to each figure; the live refresh keys on them too).
constexpr const char* kProvBudget = "VK_EXT_memory_budget";
constexpr const char* kProvNvml = "NVML";
constexpr const char* kProvAmdVram = "sysfs amdgpu mem_info_vram";
constexpr const char* kProvAmdUma = "sysfs amdgpu mem_info_vram + mem_info_gtt";
constexpr const char* kProvSystemRam = "system RAM (integrated GPU shares it)";

// Host memory bandwidth when nothing better is known: two channels of DDR4-3200, 2 x 8 B x
// 3200 MT/s = 51.2 GB/s, the most common desktop configuration of recent years. The kernel does
// not expose the DRAM type without root (SMBIOS type 17), so this is an estimate and is labelled
// as one; presets and profiles carry real figures. Not a knob.
constexpr double kDefaultHostBandwidthGbs = 51.2;

struct Candidate {
    GpuDevice dev;
    const VulkanDeviceInfo* vk = nullptr;
    const SysfsGpu* sys = nullptr;
    const NvmlGpu* nv = nullptr;
    std::vector<std::string> notes;
    bool cpu_type = false;
};

std::string hex4(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%04x", v);
    return buf;
}

std::string vendorName(std::uint32_t v) {
    switch (v) {
    case kVendorNvidia:
        return "NVIDIA";
    case kVendorAmd:
        return "AMD";
    case kVendorIntel:
        return "Intel";
    default:
        return "GPU";
    }
}

std::string joinNotes(const std::vector<std::string>& notes) {
    std::string s;
    for (const auto& n : notes)
        s += (s.empty() ? "" : "; ") + n;
    return s;
}

void applyMemory(Candidate& c, const HostMemory& host) {
    GpuDevice& g = c.dev;
    // 1. NVML: NVIDIA's own accounting, live.
    if (c.nv && c.nv->total) {
        g.total_bytes = *c.nv->total;
        g.free_bytes = c.nv->free;
        g.memory_provenance = kProvNvml;
        return;
    }
    if (c.nv && !c.nv->total) {
        // NVML has no framebuffer figure on unified-memory parts (GB10, Tegra): the GPU uses
        // system RAM (nvtop's set_unified_system_memory_info reads /proc/meminfo for the same).
        g.integrated = true;
        if (g.device_type.empty() || g.device_type == "discrete") g.device_type = "integrated";
    }
    // 2. amdgpu sysfs: the kernel's own counters.
    if (c.sys && c.sys->vendor_id == kVendorAmd && c.sys->vram_total) {
        if (c.sys->integrated || g.integrated) {
            g.integrated = true;
            const Bytes pool = satAdd(*c.sys->vram_total, c.sys->gtt_total.value_or(0));
            const Bytes used = satAdd(c.sys->vram_used.value_or(0), c.sys->gtt_used.value_or(0));
            g.total_bytes = pool;
            g.free_bytes = satSub(pool, used);
            g.memory_provenance = kProvAmdUma;
            if (c.vk) {
                const VulkanMemory vm = summarizeVulkanMemory(*c.vk);
                g.heaps = vm.heaps;
                if (vm.total + GiB < pool)
                    c.notes.push_back("Vulkan heaps show " + formatBytes(vm.total) + ", amdgpu " +
                                      formatBytes(pool) + " (VRAM carve-out + GTT); using amdgpu");
            }
        } else {
            g.total_bytes = *c.sys->vram_total;
            g.free_bytes = satSub(*c.sys->vram_total, c.sys->vram_used.value_or(0));
            g.memory_provenance = kProvAmdVram;
            if (c.vk) g.heaps = summarizeVulkanMemory(*c.vk).heaps;
        }
    } else if (c.vk) {
        // 3. Vulkan heaps (+ budget when the driver has the extension).
        const VulkanMemory vm = summarizeVulkanMemory(*c.vk);
        g.total_bytes = vm.total;
        g.free_bytes = vm.free;
        g.memory_provenance = vm.provenance;
        g.heaps = vm.heaps;
        for (const auto& n : vm.corrections)
            c.notes.push_back(n);
        if (!vm.free)
            c.notes.push_back("free memory unknown: the driver has no VK_EXT_memory_budget");
    } else if (c.sys && c.sys->vram_total) {
        g.total_bytes = *c.sys->vram_total; // Intel dGPU VRAM from xe/i915 sysfs
        g.memory_provenance = "sysfs";
    }
    if (g.integrated &&
        (g.total_bytes == 0 || g.memory_provenance.empty() || (c.nv && !c.nv->total) ||
         (c.sys && c.sys->vendor_id == kVendorIntel && !c.vk))) {
        g.total_bytes = host.mem_total;
        g.free_bytes = host.available;
        g.memory_provenance = kProvSystemRam;
    }
    if (g.integrated && g.total_bytes > host.mem_total) {
        // A shared pool cannot exceed the RAM it lives in (GTT limits and some drivers' heaps
        // are set above physical memory).
        c.notes.push_back("GPU pool " + formatBytes(g.total_bytes) + " capped at system RAM " +
                          formatBytes(host.mem_total));
        g.total_bytes = host.mem_total;
    }
    if (g.free_bytes && *g.free_bytes > g.total_bytes) g.free_bytes = g.total_bytes;
}

void applyBandwidth(Candidate& c, const HardwareSnapshot& hw) {
    GpuDevice& g = c.dev;
    if (auto e = lookupGpu(g.vendor_id, g.device_id, g.name)) {
        g.bandwidth_gbs = e->bandwidth_gbs;
        g.bandwidth_provenance = std::string("table by PCI id (") + e->source + ")";
        if (e->fp16_tflops > 0) {
            g.fp16_tflops = e->fp16_tflops;
            g.fp16_provenance = std::string("table by PCI id (") + e->model + ")";
        }
        return;
    }
    if (c.nv && c.nv->bus_width_bits > 0 && c.nv->max_mem_clock_mhz > 0) {
        g.bandwidth_gbs = bandwidthFromClock(c.nv->max_mem_clock_mhz, c.nv->bus_width_bits);
        g.bandwidth_provenance = "NVML max memory clock x bus width";
        return;
    }
    if (g.integrated && hw.host_bandwidth_gbs > 0) {
        g.bandwidth_gbs = hw.host_bandwidth_gbs;
        g.bandwidth_provenance = "system RAM bandwidth (" + hw.host_bandwidth_provenance + ")";
    }
}

void applyPcie(Candidate& c) {
    GpuDevice& g = c.dev;
    if (g.integrated) return;
    if (c.sys && c.sys->pcie) {
        g.pcie_gen = c.sys->pcie->gen;
        g.pcie_width = c.sys->pcie->width;
        g.pcie_provenance = c.sys->pcie->provenance;
        if (c.sys->pcie->current_gen && c.sys->pcie->current_gen < g.pcie_gen)
            c.notes.push_back("PCIe link idles at gen " + std::to_string(c.sys->pcie->current_gen) +
                              " now (power saving); planning with gen " +
                              std::to_string(g.pcie_gen));
        return;
    }
    if (c.nv && c.nv->pcie_max_gen > 0) {
        g.pcie_gen = c.nv->pcie_max_gen;
        g.pcie_width = c.nv->pcie_max_width;
        g.pcie_provenance = "NVML max link (the GPU's end only)";
    }
}

std::string makeLabel(const HardwareSnapshot& hw) {
    std::string label;
    for (const auto& g : hw.gpus)
        label += (label.empty() ? "" : " + ") + g.name + " " + formatBytes(g.total_bytes);
    if (label.empty()) label = "CPU only";
    if (hw.uma) label += " unified";
    return label + " | RAM " + formatBytes(hw.ram_total);
}

void fillHost(HardwareSnapshot& hw, const HostMemory& host) {
    hw.ram_total = host.total;
    hw.ram_available = host.available;
    hw.ram_provenance = host.total_provenance;
    hw.ram_available_provenance = host.available_provenance;
    hw.swap_total = host.swap_total;
    hw.swap_free = host.swap_free;
    hw.cgroup_version = host.cgroup_version;
    hw.cgroup_limit = host.cgroup_limit;
    hw.cgroup_usage = host.cgroup_usage;
}

// Drops a figure the profile reader would refuse, saying so. `what` names it for the note.
void dropBytes(std::optional<Bytes>& v, const std::string& what, std::vector<std::string>& notes) {
    if (v && *v > kMaxPlausibleBytes) {
        notes.push_back(what + " read as " + std::to_string(*v) +
                        " bytes (beyond 1 PiB): not plausible, dropped");
        v.reset();
    }
}

void dropRate(double& v, double max, const std::string& what, std::string& provenance,
              std::vector<std::string>& notes) {
    if (!std::isfinite(v) || v < 0 || v > max) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", v);
        notes.push_back(what + " read as " + buf + ": not plausible, dropped");
        v = 0;
        provenance.clear();
    }
}

void checkDevice(GpuDevice& g, std::vector<std::string>& notes, bool& implausibleSize) {
    const std::string who = g.name.empty() ? std::string("a GPU") : g.name;
    if (g.total_bytes > kMaxPlausibleBytes) {
        notes.push_back(who + ": memory read as " + std::to_string(g.total_bytes) +
                        " bytes (beyond 1 PiB): not plausible");
        g.total_bytes = 0;
        g.free_bytes.reset();
        implausibleSize = true;
    }
    if (g.free_bytes && *g.free_bytes > g.total_bytes) g.free_bytes = g.total_bytes;
    dropRate(g.bandwidth_gbs, kMaxPlausibleGbs, who + ": bandwidth (GB/s)", g.bandwidth_provenance,
             notes);
    dropRate(g.fp16_tflops, kMaxPlausibleTflops, who + ": FP16 TFLOPS", g.fp16_provenance, notes);
    // PCIe 7 is the newest generation and x32 the widest link (hardware_json.cpp's limits).
    if (g.pcie_gen > 7 || g.pcie_width > 32) {
        notes.push_back(who + ": PCIe link gen " + std::to_string(g.pcie_gen) + " x" +
                        std::to_string(g.pcie_width) + " is not plausible, dropped");
        g.pcie_gen = g.pcie_width = 0;
        g.pcie_provenance.clear();
    }
    for (auto& h : g.heaps) {
        if (h.size > kMaxPlausibleBytes) h.size = 0;
        if (h.budget && *h.budget > kMaxPlausibleBytes) h.budget.reset();
        if (h.usage && *h.usage > kMaxPlausibleBytes) h.usage.reset();
    }
}

// The probe reads kernel files and driver answers that a broken driver, a container's fake /proc
// or an attacker controls. Nothing out of range is printed or saved: RAM is required, so an
// implausible MemTotal fails the probe; any other figure is dropped with a note. The final
// round trip through the profile reader guarantees `probe --save FILE` loads back.
Result<HardwareSnapshot> checkProbedFigures(HardwareSnapshot hw) {
    if (hw.ram_total > kMaxPlausibleBytes)
        return makeError(ErrorCode::ProbeFailed,
                         "system RAM read as " + std::to_string(hw.ram_total) +
                             " bytes (beyond 1 PiB): " + hw.ram_provenance + " is not plausible");
    std::vector<std::string> notes;
    if (hw.ram_available && *hw.ram_available > hw.ram_total) {
        notes.push_back("available RAM read above total RAM: dropped");
        hw.ram_available.reset();
    }
    if (hw.swap_total > kMaxPlausibleBytes) {
        notes.push_back("swap read as " + std::to_string(hw.swap_total) +
                        " bytes (beyond 1 PiB): not plausible, dropped");
        hw.swap_total = 0;
        hw.swap_free.reset();
    }
    dropBytes(hw.swap_free, "free swap", notes);
    dropBytes(hw.cgroup_limit, "cgroup memory limit", notes);
    dropBytes(hw.cgroup_usage, "cgroup memory usage", notes);
    dropRate(hw.host_bandwidth_gbs, kMaxPlausibleGbs, "host memory bandwidth (GB/s)",
             hw.host_bandwidth_provenance, notes);
    dropRate(hw.cpu_tflops, kMaxPlausibleTflops, "CPU TFLOPS", hw.cpu_tflops_provenance, notes);
    // 4096 hardware threads: the profile reader's limit (hardware_json.cpp).
    if (hw.cpu_threads > 4096) {
        notes.push_back("CPU threads read as " + std::to_string(hw.cpu_threads) +
                        ": not plausible, dropped");
        hw.cpu_threads = 0;
    }
    std::vector<GpuDevice> planned;
    for (auto& g : hw.gpus) {
        bool implausible = false;
        checkDevice(g, notes, implausible);
        if (implausible) {
            g.note = "memory size not plausible; plan with --vram SIZE" +
                     (g.note.empty() ? std::string() : "; " + g.note);
            hw.ignored_devices.push_back(std::move(g));
        } else if (planned.size() >= kMaxDevices) {
            g.note = "more than " + std::to_string(kMaxDevices) +
                     " GPUs: llama.cpp uses at most that many (llama_max_devices)" +
                     (g.note.empty() ? std::string() : "; " + g.note);
            hw.ignored_devices.push_back(std::move(g));
        } else {
            planned.push_back(std::move(g));
        }
    }
    hw.gpus = std::move(planned);
    for (auto& g : hw.ignored_devices) {
        bool implausible = false;
        checkDevice(g, notes, implausible);
    }
    if (hw.ignored_devices.size() > kMaxIgnoredDevices) {
        notes.push_back(std::to_string(hw.ignored_devices.size() - kMaxIgnoredDevices) +
                        " more unusable devices not listed");
        hw.ignored_devices.resize(kMaxIgnoredDevices);
    }
    if (hw.uma && hw.gpus.size() != 1) hw.uma = false;
    for (auto& n : notes)
        hw.notes.push_back(std::move(n));
    hw.label = makeLabel(hw);
    if (auto back = hardwareFromJson(hardwareToJson(hw)); !back)
        return makeError(ErrorCode::ProbeFailed,
                         "the probe read a figure out of range: " + back.error().message);
    return hw;
}

} // namespace

Result<HardwareSnapshot> probeHardware(const ProbeOptions& o) {
    HardwareSnapshot hw;
    hw.source = "probe";
    auto hostR = readHostMemory(o.paths);
    if (!hostR) return hostR.error();
    const HostMemory& host = *hostR;
    fillHost(hw, host);
    for (const auto& n : host.notes)
        hw.notes.push_back(n);

    const CpuInfo cpu = readCpuInfo(o.paths);
    if (!cpu.unread.empty()) hw.notes.push_back(cpu.unread + ": the CPU is not known");
    hw.cpu_name = cpu.name;
    hw.cpu_threads = cpu.threads;
    if (cpu.cores > 0 && cpu.max_ghz > 0 && cpu.flops_per_cycle > 0) {
        hw.cpu_tflops = cpu.cores * cpu.max_ghz * cpu.flops_per_cycle / 1000.0;
        char ghz[16];
        std::snprintf(ghz, sizeof ghz, "%.2f", cpu.max_ghz);
        hw.cpu_tflops_provenance = std::string("estimate: ") + std::to_string(cpu.cores) +
                                   " cores x " + std::to_string(cpu.flops_per_cycle) +
                                   " FP32 FLOPs/clock x " + ghz + " GHz (/proc/cpuinfo)";
    }
    hw.host_bandwidth_gbs = kDefaultHostBandwidthGbs;
    hw.host_bandwidth_provenance =
        "default estimate (dual-channel DDR4-3200; DRAM type is not readable without root)";

    std::vector<SysfsGpu> sys;
    if (o.use_sysfs) sys = readSysfsGpus(o.paths);
    NvmlResult nvml;
    VulkanResult vk;
    if (o.isolate_timeout_ms > 0) {
        IsolatedSources src = readSourcesIsolated(o.use_vulkan, o.paths.vulkan_library, o.use_nvml,
                                                  o.paths.nvml_libraries, o.isolate_timeout_ms);
        vk = std::move(src.vulkan);
        nvml = std::move(src.nvml);
        // A Vulkan timeout is vk.failure, which the notes below always carry. NVML's notes are
        // otherwise shown only when an NVIDIA device was seen; a hang is said regardless.
        if (src.nvml_timed_out) {
            for (const auto& n : nvml.notes)
                hw.notes.push_back(n);
            nvml.notes.clear();
        }
    } else {
        if (o.use_nvml) nvml = readNvml(o.paths.nvml_libraries);
        if (o.use_vulkan) vk = readVulkan(o.paths.vulkan_library);
    }
    std::vector<VulkanDeviceInfo> vkDevices;
    if (o.use_vulkan) vkDevices = dedupeVulkanDevices(vk.devices, hw.notes);

    std::vector<Candidate> cands;
    std::vector<bool> sysUsed(sys.size()), nvUsed(nvml.gpus.size());
    auto matchSys = [&](const std::string& pci, std::uint32_t vendor,
                        std::uint32_t device) -> const SysfsGpu* {
        for (size_t i = 0; i < sys.size(); ++i)
            if (!sysUsed[i] && !pci.empty() && sys[i].pci_address == pci) {
                sysUsed[i] = true;
                return &sys[i];
            }
        if (!pci.empty()) return nullptr; // a known address that sysfs lacks: no guessing
        for (size_t i = 0; i < sys.size(); ++i)
            if (!sysUsed[i] && sys[i].vendor_id == vendor && sys[i].device_id == device) {
                sysUsed[i] = true;
                return &sys[i];
            }
        return nullptr;
    };
    auto matchNv = [&](const std::string& pci, std::uint32_t vendor,
                       std::uint32_t device) -> const NvmlGpu* {
        if (vendor != kVendorNvidia) return nullptr;
        for (size_t i = 0; i < nvml.gpus.size(); ++i)
            if (!nvUsed[i] && !pci.empty() && nvml.gpus[i].pci_address == pci) {
                nvUsed[i] = true;
                return &nvml.gpus[i];
            }
        if (!pci.empty()) return nullptr;
        for (size_t i = 0; i < nvml.gpus.size(); ++i)
            if (!nvUsed[i] && nvml.gpus[i].device_id == device) {
                nvUsed[i] = true;
                return &nvml.gpus[i];
            }
        return nullptr;
    };

    for (const auto& d : vkDevices) {
        Candidate c;
        c.vk = &d;
        c.dev.name = d.name;
        c.dev.vendor_id = d.vendor_id;
        c.dev.device_id = d.device_id;
        c.dev.pci_address = d.pci_address;
        c.dev.driver = d.driver_name + (d.driver_info.empty() ? "" : " " + d.driver_info);
        c.dev.device_type = vulkanDeviceTypeName(d.device_type);
        c.dev.uuid = d.uuid;
        c.dev.integrated = d.device_type == kVkIntegrated;
        c.cpu_type = d.device_type == kVkCpu;
        if (!c.cpu_type) {
            c.sys = matchSys(d.pci_address, d.vendor_id, d.device_id);
            c.nv = matchNv(d.pci_address, d.vendor_id, d.device_id);
            if (c.dev.pci_address.empty() && c.sys) c.dev.pci_address = c.sys->pci_address;
        }
        if (d.device_type == kVkVirtual || d.device_type == kVkOther)
            c.notes.push_back("Vulkan device type '" + c.dev.device_type +
                              "': whether it shares system RAM is unknown");
        cands.push_back(std::move(c));
    }
    for (size_t i = 0; i < nvml.gpus.size(); ++i) {
        if (nvUsed[i]) continue;
        const NvmlGpu& n = nvml.gpus[i];
        nvUsed[i] = true;
        Candidate c;
        c.nv = &n;
        c.dev.name = n.name;
        c.dev.vendor_id = kVendorNvidia;
        c.dev.device_id = n.device_id;
        c.dev.pci_address = n.pci_address;
        c.dev.driver = "nvidia " + nvml.driver_version;
        c.dev.device_type = "discrete";
        c.sys = matchSys(n.pci_address, kVendorNvidia, n.device_id);
        cands.push_back(std::move(c));
    }
    for (size_t i = 0; i < sys.size(); ++i) {
        if (sysUsed[i]) continue;
        const SysfsGpu& s = sys[i];
        if (s.vendor_id != kVendorAmd && s.vendor_id != kVendorNvidia &&
            s.vendor_id != kVendorIntel)
            continue; // virtual display adapters (bochs, virtio, ast BMCs) are no compute target
        sysUsed[i] = true;
        Candidate c;
        c.sys = &s;
        c.dev.vendor_id = s.vendor_id;
        c.dev.device_id = s.device_id;
        c.dev.pci_address = s.pci_address;
        c.dev.driver = s.driver;
        c.dev.integrated = s.integrated;
        c.dev.device_type = s.integrated ? "integrated" : "discrete";
        auto entry = lookupGpu(s.vendor_id, s.device_id, s.product_name);
        c.dev.name = !s.product_name.empty()
                         ? s.product_name
                         : vendorName(s.vendor_id) + " " +
                               (entry ? std::string(entry->model) : hex4(s.device_id));
        if (s.vendor_id == kVendorNvidia && !s.vram_total)
            c.notes.push_back("memory size unknown: NVML is not available and the NVIDIA driver "
                              "has no sysfs memory files");
        cands.push_back(std::move(c));
    }

    for (auto& c : cands) {
        applyMemory(c, host);
        applyBandwidth(c, hw);
        applyPcie(c);
        c.dev.backend = std::string(
            traitsOf(c.dev.vendor_id == kVendorNvidia ? Backend::Cuda : Backend::Vulkan).name);
    }
    const bool anyDiscrete = std::any_of(cands.begin(), cands.end(), [](const Candidate& c) {
        return !c.cpu_type && !c.dev.integrated && c.dev.total_bytes > 0;
    });
    bool haveUma = false;
    for (auto& c : cands) {
        std::string why;
        if (c.cpu_type)
            why = "software (CPU) Vulkan driver, not a GPU: llama.cpp's Vulkan backend skips CPU "
                  "devices unless GGML_VK_VISIBLE_DEVICES names them (ggml-vulkan.cpp "
                  "ggml_vk_instance_init); its memory is system RAM";
        else if (c.dev.total_bytes == 0)
            why = "memory size unknown; plan with --vram SIZE";
        else if (c.dev.integrated && anyDiscrete)
            why = "integrated GPU next to a discrete one: its memory is system RAM, so it is not "
                  "counted as a second GPU (llama.cpp's Vulkan backend may still use it unless "
                  "GGML_VK_VISIBLE_DEVICES excludes it)";
        else if (c.dev.integrated && haveUma)
            why = "second integrated GPU on one shared pool";
        if (c.dev.integrated && why.empty()) haveUma = true;
        if (!why.empty()) c.notes.insert(c.notes.begin(), why);
        c.dev.note = joinNotes(c.notes);
        (why.empty() ? hw.gpus : hw.ignored_devices).push_back(c.dev);
    }
    hw.uma = haveUma && hw.gpus.size() == 1;

    if (!vk.failure.empty() && !hw.gpus.empty()) hw.notes.push_back(vk.failure);
    const bool sawNvidia = std::any_of(cands.begin(), cands.end(), [](const Candidate& c) {
        return c.dev.vendor_id == kVendorNvidia;
    });
    if (sawNvidia)
        for (const auto& n : nvml.notes)
            hw.notes.push_back(n);
    if (hw.gpus.empty()) {
        std::vector<std::string> why;
        if (!o.use_vulkan)
            why.push_back("Vulkan probing was turned off");
        else if (!vk.failure.empty())
            why.push_back(vk.failure);
        if (!hw.ignored_devices.empty())
            why.push_back(std::to_string(hw.ignored_devices.size()) +
                          " device(s) seen but not usable as a GPU (see ignored_devices)");
        if (o.use_sysfs && sys.empty())
            why.push_back("no GPU under " + o.paths.sys_root + "/class/drm");
        hw.notes.push_back("no GPU to plan for: " + joinNotes(why) + "; plans use system RAM only");
    }
    hw.label = makeLabel(hw);
    return checkProbedFigures(std::move(hw));
}

std::vector<std::string> refreshLiveMemory(HardwareSnapshot& hw, const ProbeOptions& o) {
    std::vector<std::string> notes;
    if (auto host = readHostMemory(o.paths)) {
        hw.ram_available = host->available;
        hw.ram_available_provenance = host->available_provenance;
        hw.swap_free = host->swap_free;
        hw.cgroup_usage = host->cgroup_usage;
    } else {
        hw.ram_available.reset();
        notes.push_back(host.error().message);
    }
    std::vector<GpuDevice*> nvidia, amd, vulkan;
    for (auto& g : hw.gpus) {
        if (g.memory_provenance == kProvNvml)
            nvidia.push_back(&g);
        else if (g.memory_provenance == kProvAmdVram || g.memory_provenance == kProvAmdUma)
            amd.push_back(&g);
        else if (g.memory_provenance == kProvBudget)
            vulkan.push_back(&g);
        else if (g.memory_provenance == kProvSystemRam)
            g.free_bytes = hw.ram_available
                               ? std::optional<Bytes>(std::min(*hw.ram_available, g.total_bytes))
                               : std::nullopt;
    }
    if (!nvidia.empty()) {
        std::vector<std::string> pcis;
        pcis.reserve(nvidia.size());
        for (auto* g : nvidia)
            pcis.push_back(g->pci_address);
        const auto frees = o.use_nvml ? readNvmlFree(o.paths.nvml_libraries, pcis)
                                      : std::vector<std::optional<Bytes>>(pcis.size());
        for (size_t i = 0; i < nvidia.size(); ++i) {
            nvidia[i]->free_bytes = frees[i];
            if (!frees[i]) notes.push_back(nvidia[i]->name + ": NVML free memory unavailable");
        }
    }
    for (auto* g : amd) {
        const std::string dev =
            joinPath(joinPath(o.paths.sys_root, "bus/pci/devices"), g->pci_address);
        SysfsGpu s;
        s.device_path = dev;
        refreshSysfsUsage(s);
        const bool uma = g->memory_provenance == kProvAmdUma;
        if (!s.vram_used || (uma && !s.gtt_used)) {
            g->free_bytes.reset();
            notes.push_back(g->name + ": amdgpu usage files unreadable under " + dev);
            continue;
        }
        const Bytes used = satAdd(*s.vram_used, uma ? *s.gtt_used : 0);
        g->free_bytes = satSub(g->total_bytes, used);
    }
    if (!vulkan.empty()) {
        const VulkanResult vk = o.use_vulkan ? readVulkan(o.paths.vulkan_library) : VulkanResult{};
        for (auto* g : vulkan) {
            g->free_bytes.reset();
            for (const auto& d : vk.devices) {
                const bool same =
                    (!g->uuid.empty() && d.uuid == g->uuid) ||
                    (g->uuid.empty() && !g->pci_address.empty() && d.pci_address == g->pci_address);
                if (!same) continue;
                const VulkanMemory vm = summarizeVulkanMemory(d);
                if (vm.free) g->free_bytes = std::min(*vm.free, g->total_bytes);
                g->heaps = vm.heaps;
                break;
            }
            if (!g->free_bytes) notes.push_back(g->name + ": Vulkan budget could not be re-read");
        }
    }
    return notes;
}

Result<HardwareSnapshot> resolveHardware(const HardwareRequest& r) {
    switch (r.kind) {
    case HardwareRequest::Kind::Probe:
        return probeHardware(r.probe);
    case HardwareRequest::Kind::Preset:
        return presetSnapshot(r.id_or_path);
    case HardwareRequest::Kind::ProfileFile:
        return loadHardwareProfile(r.id_or_path);
    }
    return makeError(ErrorCode::InvalidArgument, "unknown hardware request kind");
}

} // namespace headroom::probe
