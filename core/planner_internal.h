// Internals of the planner shared with its tests: placement of one priced context on a budget.
#pragma once

#include "hardware.h"
#include "plan.h"
#include "pricing.h"

namespace headroom::detail {

// Runtime memory a GPU backend takes before any buffer: driver context, cuBLAS/Vulkan pipelines.
// ESTIMATE from typical llama.cpp runs (CUDA ~0.3-0.5 GiB per device; Vulkan less; Metal and CPU
// allocate nothing comparable). Not a knob; shown as "overhead (estimate)".
inline constexpr Bytes kCudaRuntimeOverhead = 400 * MiB;
inline constexpr Bytes kVulkanRuntimeOverhead = 256 * MiB;
inline constexpr Bytes kMetalRuntimeOverhead = 0;

// Hermes' bound on the KV a spilled launch may grow into: 15 % of usable VRAM, so that a model
// already paying to stream weights does not also push its context out. Not a knob.
inline constexpr double kSpillKvCapFraction = 0.15;

struct PlacementChoice {
    std::uint32_t ngl = 0;       // llama.cpp -ngl (output layer counts as one)
    std::uint32_t n_cpu_moe = 0; // experts of blocks [0, n) stay in host memory
    std::vector<bool> ffn_host;  // per block: dense FFN kept in host memory (-ot)
};

struct Assignment {
    std::vector<Terms> devices;
    Terms host;
    bool output_on_gpu = false;
    Bytes spill_bytes = 0; // weights in host memory that a full offload would put on a GPU
};

Assignment assign(const ModelShape& model, const ContextPrice& price, const ResolvedOptions& opt,
                  const MemoryBudget& budget, const PlacementChoice& choice);
bool fits(const Assignment& a, const MemoryBudget& budget);

// Prices and places one context: verdict, per-device bytes, placement, refusal (without remedies).
// `detail` = false prices and places only (no speed, KV-spill or expert-split analysis, no
// messages): what re-pricing a remedy needs, several times faster.
Rung planRung(const ModelShape& model, const ResolvedOptions& opt, const MemoryBudget& budget,
              const HardwareSnapshot& hw, std::uint64_t requested_ctx, bool detail = true);

} // namespace headroom::detail
