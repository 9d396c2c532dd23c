// The MoE offload curve (issue 11): for each --n-cpu-moe value, what the GPUs hold and how fast
// the model decodes and prefills at one context, so a user can trade VRAM for speed by number.
#pragma once

#include "hardware.h"
#include "model_shape.h"
#include "options.h"
#include "plan.h"
#include "result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace headroom {

struct MoeCurvePoint {
    std::uint32_t n_cpu_moe = 0; // experts of blocks 0..n_cpu_moe-1 stay in host RAM
    Verdict verdict = Verdict::Refused;
    Bytes gpu_bytes = 0;  // every GPU's total (weights, KV, compute buffers)
    Bytes host_bytes = 0; // what lands in system RAM
    Speed speed;          // decode/prefill with ranges, priced at the curve's context
};

struct MoeCurve {
    std::uint32_t context = 0;   // the context every point is priced at
    bool context_chosen = false; // true: the plan's own choice (no -c given)
    std::uint32_t n_layer = 0;
    std::vector<MoeCurvePoint> points; // n_cpu_moe = 0 … n_layer, ascending
};

// Prices -ngl all --n-cpu-moe N for N = 0 … n_layer at one context: -c when given, else the
// context the plan for `options` chooses (its launch window). Other options (-ctk, -ub, -fa, …)
// apply to every point; placement flags in `options` are replaced by the point's own. Errors
// when the model has no routed experts (InvalidArgument) or a point cannot be priced.
Result<MoeCurve> moeCurve(const ModelShape& model, const HardwareSnapshot& hw,
                          const PlanOptions& options);

// {"schema": "headroom.moe-curve/1", "model", "context", "points": [{n_cpu_moe, verdict,
// gpu_bytes, host_bytes, decode {tok_s, low, high, basis}, prefill {…}}]}
nlohmann::json moeCurveToJson(const ModelShape& model, const MoeCurve& curve);

} // namespace headroom
