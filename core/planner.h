// The planner: pricing + policies over one model, machine and options. Pure functions, no I/O.
#pragma once

#include "hardware.h"
#include "model_shape.h"
#include "options.h"
#include "plan.h"
#include "result.h"

#include <cstdint>
#include <vector>

namespace headroom {

// Plans every ladder rung (and the exact -c value when it is not a rung), decides the launch
// window and posture, and builds the llama-server arguments. Errors only for input that cannot be
// priced (a shape with no layers, options out of range); a model that does not fit is a Plan
// whose rungs are refused.
Result<Plan> makePlan(const ModelShape& model, const HardwareSnapshot& hw,
                      const PlanOptions& options);

// The llama-server launch of one non-refused rung of a plan (an index into plan.rungs, or any
// rung of the plan, e.g. of other_posture_rungs): cheap, no re-pricing. plan.launch is
// launchFor(plan, plan.decision.rung_index). Errors for a refused rung or a bad index.
Result<LaunchConfig> launchFor(const Plan& plan, int rung_index);
Result<LaunchConfig> launchFor(const Plan& plan, const Rung& rung);

// The largest context the model runs with these options: its trained context (the 64K floor
// when unknown), or scale × original context under --rope-scaling yarn|linear --rope-scale N
// (the original context is --yarn-orig-ctx, else the file's rope.scaling.original_context_length,
// else the trained context: llama_context's yarn_orig_ctx default, n_ctx_orig_yarn).
std::uint64_t contextLimit(const ModelShape& model, const PlanOptions& options);

// Whether llama.cpp build `v` can draft with the model's multi-token-prediction blocks: it has
// nextn blocks and the build's graph builder has an MTP branch for its architecture
// (LlamaProfile::mtp_graph_archs), or an external MTP head is given.
bool mtpDrafts(const ModelShape& model, LlamaVersion v);

// What a plan's budget keeps out besides the margins: --reserve and what the other members of a
// set hold beside it (PlanOptions::beside_device_bytes / beside_host_bytes).
BudgetReserve budgetReserve(const PlanOptions& options);

// Checks options against llama.cpp's own rules (e.g. a quantized V cache needs flash attention,
// MLA needs equal K and V cache types) and ranges; names the option.
Result<bool> validateOptions(const ModelShape& model, const PlanOptions& options);

} // namespace headroom
