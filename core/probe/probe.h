// headroom_probe: what this machine has, with provenance for every figure.
//
// Sources, each optional and each failure a note rather than an error:
//   Vulkan  dlopen(libvulkan.so.1): every physical device, heaps, VK_EXT_memory_budget,
//           VK_EXT_pci_bus_info, integrated / CPU type
//   NVML    dlopen(libnvidia-ml.so.1): NVIDIA total/free, PCI, bus width x memory clock
//   sysfs   /sys/class/drm/card*/device: amdgpu mem_info_* (VRAM, GTT), Intel VRAM, PCIe links
//   /proc   meminfo, self/cgroup + cgroup v1/v2 limits, cpuinfo
//
// Only a machine where even /proc/meminfo is unreadable makes probeHardware() fail. A driver that
// hangs inside vkCreateInstance cannot be caught in-process: the GUI runs `headroom-cli probe
// --json` as a child process with a timeout for that.
#pragma once

#include "hardware.h"
#include "result.h"

#include <string>
#include <vector>

namespace headroom::probe {

// The root-path seam: every OS path and library name the probe touches. Tests point these at
// fake trees and missing or fake libraries.
struct ProbePaths {
    std::string proc_root = "/proc";
    std::string sys_root = "/sys";
    std::string vulkan_library = "libvulkan.so.1";
    std::vector<std::string> nvml_libraries = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
};

struct ProbeOptions {
    ProbePaths paths;
    bool use_vulkan = true;
    bool use_nvml = true;
    bool use_sysfs = true;
    // > 0: Vulkan and NVML enumerate in child processes that are killed after this many ms
    // (isolated.h), so a hanging loader or driver costs seconds, never the command. The CLI
    // sets it; 0 (in-process) is for tests that drive the readers directly.
    int isolate_timeout_ms = 0;
};

// Full enumeration. Error (ProbeFailed) only when not even system RAM could be read, or it reads
// as implausible (MemTotal beyond 1 PiB). Every other figure is range-checked before it is
// returned: one out of range is dropped with a note, so what is printed or saved always loads
// back as a profile (hardwareFromJson).
Result<HardwareSnapshot> probeHardware(const ProbeOptions& options = {});

// Live update, cheap: re-reads free memory only (NVML free, amdgpu mem_info_*_used, Vulkan
// budgets, MemAvailable and cgroup usage) for the devices already in `hw`, matched by PCI address
// or UUID, without re-enumerating or re-deriving bandwidths. Devices whose figure cannot be
// re-read keep free_bytes = nullopt (unknown), so a live plan refuses rather than guesses.
// Returns the notes of what could not be refreshed (empty when all was).
std::vector<std::string> refreshLiveMemory(HardwareSnapshot& hw, const ProbeOptions& options = {});

// The single entry point for the planner: where the hardware comes from.
// (--vram/--ram are handled by the caller with snapshotFromSizes() in core/hardware.h.)
struct HardwareRequest {
    enum class Kind { Probe, Preset, ProfileFile };
    Kind kind = Kind::Probe;
    std::string id_or_path; // preset id (Kind::Preset) or profile path (Kind::ProfileFile)
    ProbeOptions probe;     // Kind::Probe only
};

//   Probe        probeHardware(); ProbeFailed when RAM is unreadable
//   Preset       presetSnapshot(id); NotFound lists the ids
//   ProfileFile  loadHardwareProfile(path); IoError / ParseError / InvalidArgument naming field
Result<HardwareSnapshot> resolveHardware(const HardwareRequest& request);

} // namespace headroom::probe
