// GPUs as the kernel's DRM/PCI sysfs shows them, and PCIe links (internal to headroom_probe).
#pragma once

#include "probe.h"

#include <optional>
#include <string>
#include <vector>

namespace headroom::probe::detail {

struct PcieLink {
    std::uint32_t gen = 0, width = 0;                 // planning figure (see readPcieLink)
    std::uint32_t current_gen = 0, current_width = 0; // narrowest current link right now
    std::string provenance;
};

// Narrowest link from the device at `devicePath` (a /sys/devices/... directory, symlinks
// resolved) up to the root port: every ancestor named like a PCI address that has link files
// counts (an AMD card's internal switch, a riser, a chipset port). Generation comes from
// max_link_speed (the current speed idles down to 2.5 GT/s when the GPU is quiet, which says
// nothing about transfers under load); width from current_link_width (a physically narrower slot
// or riser shows there), falling back to max_link_width.
std::optional<PcieLink> readPcieLink(const std::string& devicePath);
// "16.0 GT/s PCIe" -> 4; "Unknown" -> 0 (nvtop's map: 2.5->1, 5->2, 8->3, 16->4, 32->5, 64->6).
std::uint32_t pcieGenFromSpeed(const std::string& speed);

struct SysfsGpu {
    std::string card;        // "card0"
    std::string device_path; // resolved /sys/devices/... path
    std::string pci_address; // "0000:03:00.0"
    std::uint32_t vendor_id = 0, device_id = 0;
    std::string driver; // "amdgpu", "nvidia", "i915", "xe"
    std::string product_name;
    std::optional<Bytes> vram_total, vram_used, gtt_total, gtt_used;
    bool discrete_marker = false; // amdgpu mem_info_vram_vendor / board_info: only on dGPUs
    bool integrated = false;      // see classify rules in pci_sysfs.cpp
    std::optional<PcieLink> pcie;
};

// Every sys_root/class/drm/cardN (connectors like card0-DP-1 skipped), deduplicated by PCI address.
std::vector<SysfsGpu> readSysfsGpus(const ProbePaths& paths);
// Re-reads only the *_used files (live refresh).
void refreshSysfsUsage(SysfsGpu& gpu);

} // namespace headroom::probe::detail
