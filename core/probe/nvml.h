// NVIDIA Management Library, opened at run time (internal to headroom_probe).
#pragma once

#include "probe.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace headroom::probe::detail {

struct NvmlGpu {
    unsigned index = 0;
    std::string name;
    std::string pci_address; // "0000:01:00.0" (NVML writes an 8-digit domain; normalised)
    std::uint32_t vendor_id = 0, device_id = 0;
    std::optional<Bytes> total, free; // nullopt: NOT_SUPPORTED (unified-memory parts: GB10, Tegra)
    unsigned bus_width_bits = 0, max_mem_clock_mhz = 0;
    unsigned pcie_max_gen = 0, pcie_max_width = 0;
};

struct NvmlResult {
    bool loaded = false;
    std::string library; // which name dlopen accepted
    std::string driver_version;
    std::vector<NvmlGpu> gpus;
    std::vector<std::string> notes; // why nothing came back
};

// Tries each library name; a missing library is a note, not an error.
NvmlResult readNvml(const std::vector<std::string>& libraries);
// Re-reads free memory for the given PCI addresses (live refresh); nullopt when unavailable.
std::vector<std::optional<Bytes>> readNvmlFree(const std::vector<std::string>& libraries,
                                               const std::vector<std::string>& pciAddresses);

} // namespace headroom::probe::detail
