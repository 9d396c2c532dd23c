// The planner's speed adapter: turns one rung's placement (what sits on each GPU and in host
// RAM) into the speed model's work (policy/speed.h) and prices it.
#pragma once

#include "hardware.h"
#include "model_shape.h"
#include "options.h"
#include "plan.h"
#include "planner_internal.h"

#include <cstdint>

namespace headroom::detail {

// Decode and prefill of `a` with their ranges and basis, at context `depth` (the rung's context:
// decode reads the whole KV cache of a full context) with the resolved backend.
Speed estimateSpeed(const ModelShape& model, const Assignment& a, const HardwareSnapshot& hw,
                    const MemoryBudget& budget, std::uint32_t ubatch, std::uint32_t depth = 0,
                    Backend backend = Backend::Auto);

// Across RPC hosts: adds each token's network time (transfers between the main host and its
// rpc-servers, network_speed.cpp) to `s` and records its share. Nothing without RPC hosts.
void addNetworkTime(Speed& s, const ModelShape& model, const Placement& placement,
                    const MemoryBudget& budget, const HardwareSnapshot& hw, std::uint32_t ubatch);

// Speculative decoding (policy/speculation.h): with a draft model (`draft`, priced beside the
// target) or the model's MTP head (opt.mtp), the decode `s` becomes with speculation, as a range,
// in s.speculative. Nothing when the rung drafts nothing or a figure it needs is unknown.
void addSpeculation(Speed& s, const ModelShape& model, const ResolvedOptions& opt,
                    const DraftUse* draft, const HardwareSnapshot& hw, const MemoryBudget& budget,
                    std::uint32_t ubatch, std::uint32_t depth);

// Bytes a decode step reads from one pool: its weights (routed experts scaled to the share a
// token uses), the KV cache at a full context and the recurrent state.
Bytes decodeBytes(const Terms& t, const ModelShape& model);

} // namespace headroom::detail
