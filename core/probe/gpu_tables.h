// Figures no OS API reports: GPU memory bandwidth and FP16 throughput by PCI id, and host memory
// bandwidth (internal to headroom_probe). Used by the speed model and the KV-spill restore class.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace headroom::probe::detail {

struct GpuTableEntry {
    std::uint32_t vendor_id, device_id;
    const char* name_hint; // substring of the device name that disambiguates a shared id, or ""
    const char* model;
    double bandwidth_gbs;
    double fp16_tflops; // dense FP16 matrix throughput, 0 when not tabulated
    const char* source;
};

// First entry matching vendor + device id (and name hint when it has one); when the id is unknown
// (0, or not in the table), an entry whose model name appears in `name`.
std::optional<GpuTableEntry> lookupGpu(std::uint32_t vendor, std::uint32_t device,
                                       const std::string& name);

// Peak from NVML's max memory clock and bus width: 2 transfers per clock as NVML reports the
// clock (RTX 4090: 10501 MHz x 2 x 384 bit / 8 = 1008 GB/s, its spec; H100 SXM: 2619 x 2 x
// 5120 / 8 = 3352 GB/s, its 3.35 TB/s spec).
double bandwidthFromClock(unsigned memClockMhz, unsigned busWidthBits);

// Usable PCIe throughput per direction, GB/s, after line coding: gen 1-2 8b/10b, gen 3-5
// 128b/130b, gen 6 FLIT (PCI-SIG figures).
double pcieGbs(std::uint32_t gen, std::uint32_t width);

} // namespace headroom::probe::detail
