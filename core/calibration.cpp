#include "calibration.h"

#include <cstdio>

namespace headroom {

std::string calibrationNote(const Calibration& c) {
    char factors[160];
    std::snprintf(factors, sizeof factors,
                  "compute x%.3f on GPUs and x%.3f in host memory (applied: never below x1), "
                  "runtime overhead %.0f MiB per GPU",
                  c.device_compute_factor, c.host_compute_factor,
                  static_cast<double>(c.device_overhead_bytes) / static_cast<double>(MiB));
    return "verified on this machine, llama.cpp build " +
           (c.llama_build.empty() ? std::string("unknown") : c.llama_build) + " (" + c.backend +
           " backend, " + c.model + " at -c " + std::to_string(c.context) + "): " + factors +
           "; used by " + c.backend + " plans only";
}

} // namespace headroom
