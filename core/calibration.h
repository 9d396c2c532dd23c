// Calibration: what `headroom-cli verify` measured when the user's own llama.cpp loaded a plan on
// this machine, kept in the hardware profile so later plans price with it and say so ("verified
// on this machine, llama.cpp build …"). Only ever raises an estimate: a factor below 1 is stored
// (it is what was measured) but plans use max(1, factor), since one model's measurement must not
// make another model's plan err low.
#pragma once

#include "units.h"

#include <cstdint>
#include <string>

namespace headroom {

struct Calibration {
    std::string llama_build; // "b1 (de3ff81)": the build that was run ("" unknown)
    std::string backend;     // backendName() of the plan verified: "cpu", "cuda", "vulkan", …
    std::string model;       // file name of the GGUF that was loaded
    std::uint32_t context = 0;
    // Measured / planned compute buffer bytes: the largest ratio over the GPUs, and the host's.
    double device_compute_factor = 1.0;
    double host_compute_factor = 1.0;
    // What llama.cpp's memory breakdown left unaccounted on the busiest GPU (driver context,
    // pipelines, and other processes' memory on that device): the runtime overhead. 0: unknown.
    Bytes device_overhead_bytes = 0;

    bool operator==(const Calibration&) const = default;
};

// The factor a plan applies: never below 1 (see above).
inline double appliedFactor(double measured) {
    return measured > 1.0 ? measured : 1.0;
}

// The line a plan shows when its hardware profile carries a calibration.
std::string calibrationNote(const Calibration& c);

} // namespace headroom
