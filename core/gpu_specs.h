// The GPU speed-facts table: memory bandwidth, dense FP16 matrix throughput, typical VRAM and host
// link of the GPUs Headroom knows by name or PCI id. One table serves the probe (fill by device
// id), the hardware presets (fill by name) and the CLI's `--gpu NAME` (typed by name), so the
// same GPU gets the same speed however it was described.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

struct GpuSpec {
    std::uint32_t vendor_id = 0; // 0x10de NVIDIA, 0x1002 AMD, 0x8086 Intel, 0x106b Apple
    std::uint32_t device_id = 0; // 0 when the GPU has no PCI id of its own (Apple, SoCs)
    // Substring of the reported device name that disambiguates a shared id ("XTX"), or "".
    const char* name_hint = "";
    const char* model = "";     // "RTX 4090": what --gpu matches and the probe's name contains
    const char* full_name = ""; // "NVIDIA GeForce RTX 4090": the name a snapshot shows
    const char* arch = "";      // "ada", "rdna3", "apple-m2": the speed model's GPU class
    double bandwidth_gbs = 0;   // peak memory bandwidth, GB/s (vendor figure)
    double fp16_tflops = 0;     // dense FP16 matrix throughput, TFLOPS (0 = not tabulated)
    double vram_gib = 0;        // memory of the common variant (UMA: the typical machine's pool)
    std::uint32_t pcie_gen = 0, pcie_width = 0; // host link (0 = none: unified memory)
    bool uma = false;                           // shares the host's memory
    const char* source = "";                    // where the figures come from
    // Shader (non-matrix) FP32 rate, TFLOPS: what llama.cpp's Vulkan matmuls run at on GPUs whose
    // Vulkan driver exposes no cooperative-matrix path (0 = not tabulated).
    double vector_tflops = 0;
};

// Every row of the table (for listings and tests).
const std::vector<GpuSpec>& gpuSpecs();

// First entry matching vendor + device id (and its name hint); when the id is unknown (0 or not
// tabulated), the entry with the longest model name contained in `name` ("RTX 3060 Ti" over
// "RTX 3060"), still of that vendor when vendor is non-zero.
std::optional<GpuSpec> gpuSpecById(std::uint32_t vendor, std::uint32_t device,
                                   const std::string& name);

// A GPU typed by name ("4090", "RTX 4090", "rx 7900 xtx", "M2 Ultra"): case-insensitive, spaces
// and dashes ignored; an exact model match wins over a contained one, the longest contained model
// over shorter ones. nullopt when nothing matches.
std::optional<GpuSpec> gpuSpecByName(const std::string& name);

struct GpuDevice;

// Sets the device's bandwidth, FP16 throughput and host link from the table entry (provenance
// "GPU table: <source>"), so every way of describing this GPU prices it alike.
void applyGpuSpec(GpuDevice& g, const GpuSpec& spec);

} // namespace headroom
