// Fitted constants of the speed model (policy/speed.h). FITTED, not chosen: produced by
// tests/core/test_speed_accuracy.cpp (run it with HEADROOM_SPEED_FIT=1 to print a fresh fit) on the
// fit part of tests/speed/llama_bench_published.csv (rows whose id hashes to the fit side), then
// pasted here. The same test scores these on the held-out rows and fails when they no longer meet
// the accuracy goal, or when a refit on today's data would score markedly better.
#pragma once

#include "policy/speed.h"

namespace headroom::policy {

// clang-format off
inline const SpeedModelConstants kFittedSpeedConstants = {
    {
        // key         bw_frac us/layer flops_frac dec_lo dec_hi pp_lo pp_hi dec_rows pp_rows
        {"cuda",      0.8195,  62.433, 0.3174, 0.707, 1.403, 0.546, 1.672, 43, 33},
        {"cuda-uma",  0.6707,   5.481, 0.2783, 0.746, 1.442, 0.735, 1.465, 17, 17},
        {"metal",     0.6152,   7.260, 0.5707, 0.567, 1.623, 0.714, 1.323, 10, 9},
        {"rocm",      0.5297,   5.028, 0.4028, 0.800, 1.250, 0.600, 1.700, 2, 2},
        {"vulkan",    0.2796,   5.000, 0.2702, 0.578, 1.809, 0.515, 2.100, 3, 4},
        {"sycl",      0.7000,   5.000, 0.2967, 0.800, 1.250, 0.600, 1.700, 0, 2},
        {"cpu",       0.5608,   4.968, 0.4367, 0.719, 1.346, 0.600, 1.700, 5, 1},
    },
    // f16 moe_pp moe_us/layer host_bw_frac pcie_frac cpu_flops_frac
    {0.7502, 1.1875, 4.821, 0.41, 0.60, 0.30},
};
// clang-format on

} // namespace headroom::policy
