// The context ladder: the windows a plan prices and a launch may choose, from a guaranteed floor
// up to the model's trained (native) context, each rung 1.5 times the one before.
#pragma once

#include <cstdint>
#include <vector>

namespace headroom::policy {

// The smallest window Headroom plans for and guarantees once physics passes: 64K tokens. Below
// it agentic sessions compress almost every turn (Hermes measured 66 % of 161 agentic sessions
// finishing uncompressed in 64K). Not a knob.
inline constexpr std::uint32_t kFloorWindow = 65536;

// 144K: the smallest rung at which compression becomes the exception (91 % of those sessions
// finish uncompressed in 144K, 82 % in 96K). Variant selection prices it as "a large window".
// Not a knob.
inline constexpr std::uint32_t kTargetWindow = 147456;

// Each rung is 1.5 times the previous one: fine enough that a step never more than doubles
// memory for full-attention KV, coarse enough that the ladder from 64K to 1M has 8 rungs.
// Not a knob.
inline constexpr double kLadderStep = 1.5;

// The ladder for a model whose trained context is `native` tokens (0 = unknown: the floor is
// taken as native). Rungs are 65536 × 1.5^k (truncated to whole tokens) while below native, then
// native itself, so the ladder is strictly increasing, ends at native and no step exceeds 2×.
// A native context below the floor gives the one rung [native]. Contexts above what llama.cpp's
// n_ctx (uint32_t) can hold are clamped to UINT32_MAX.
std::vector<std::uint32_t> contextLadder(std::uint64_t native);

// The first rung of contextLadder(native) above `current`; native itself when none is (growth
// steps exactly one rung). Returns native (or the floor when native is 0) when current ≥ native.
std::uint32_t nextLadderRung(std::uint32_t current, std::uint64_t native);

} // namespace headroom::policy
