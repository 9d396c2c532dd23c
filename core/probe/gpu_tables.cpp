#include "gpu_tables.h"

#include "gpu_specs.h"

#include <algorithm>
#include <cctype>

namespace headroom::probe::detail {

std::optional<GpuTableEntry> lookupGpu(std::uint32_t vendor, std::uint32_t device,
                                       const std::string& name) {
    // One table for the probe, the presets and GPUs typed by name (core/gpu_specs.cpp).
    auto spec = gpuSpecById(vendor, device, name);
    if (!spec) return std::nullopt;
    return GpuTableEntry{spec->vendor_id,     spec->device_id,   spec->name_hint, spec->model,
                         spec->bandwidth_gbs, spec->fp16_tflops, spec->source};
}

double bandwidthFromClock(unsigned memClockMhz, unsigned busWidthBits) {
    return 2.0 * memClockMhz * busWidthBits / 8.0 / 1000.0;
}

double pcieGbs(std::uint32_t gen, std::uint32_t width) {
    // Per lane and direction after encoding overhead.
    static constexpr double kPerLane[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563};
    if (gen == 0 || width == 0) return 0;
    return kPerLane[std::min<std::uint32_t>(gen, 6)] * width;
}

} // namespace headroom::probe::detail
