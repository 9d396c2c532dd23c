// The speed adapter: a rung's placement turned into the speed policy's inputs (bytes each memory
// pool reads per decoded token, prefill throughput). Kept apart so the speed model can change
// without touching placement.
#pragma once

#include "hardware.h"
#include "model_shape.h"
#include "plan.h"
#include "planner/planner_internal.h"

#include <cstdint>

namespace headroom::detail {

Speed estimateSpeed(const ModelShape& model, const Assignment& a, const HardwareSnapshot& hw,
                    const MemoryBudget& budget, std::uint32_t ubatch);

} // namespace headroom::detail
