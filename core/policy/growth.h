// Growth: at the end of a turn, should a running session's window step up one ladder rung?
// (docs/sources.md, Hermes growth_decision). Only at turn boundaries: recurrent state
// cannot rewind, so a restart mid-turn would lose it.
#pragma once

#include "result.h"
#include "units.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace headroom::policy {

// A session must fill 85 % of its window before it asks for more: growing earlier restarts the
// server for room the session may never use. Not a knob.
inline constexpr double kGrowthOccupancy = 0.85;

enum class GrowthAction { Grow, Hold, CompressDefault };
const char* growthActionName(GrowthAction a); // "grow" | "hold" | "compress-default"

struct GrowthInput {
    std::uint64_t session_tokens = 0;
    std::uint32_t current_window = 0;
    std::uint64_t n_ctx_train = 0;      // 0 = unknown: the current window counts as native
    bool occupancy_confirmed = false;   // the caller's compression gate already decided
    bool idle = false;                  // the server has no request in flight
    std::optional<double> decode_tok_s; // measured decode speed; nullopt = not measured
    // What the next window needs, priced by the caller: Hermes re-fits weights + ctx(window)
    // (no runtime overhead); a caller that includes overhead is stricter. Required.
    std::function<Bytes(std::uint32_t window)> need_at;
    // The capacity (planning) budget: a live reading would count the model being grown as used.
    SignedBytes usable_vram = 0;
    SignedBytes ram_available = 0;
};

struct GrowthDecision {
    GrowthAction action = GrowthAction::Hold;
    std::optional<std::uint32_t> next_window; // set when action is Grow
    std::string reason;
    // Set once the re-fit ran (gate 5): need_at(next) and usable_vram + ram_available.
    Bytes needed_bytes = 0;
    SignedBytes available_bytes = 0;
};

// Gates, in this order:
//  1. session_tokens < current × 0.85 and not confirmed → Hold;
//  2. current ≥ native → CompressDefault;
//  3. not idle → Hold (re-granted when idle);
//  4. measured decode < kFloorTokS → CompressDefault;
//  5. next = the next ladder rung (else native); need_at(next) > usable_vram + ram_available →
//     CompressDefault ("physics");
//  6. Grow to next.
// Error only when need_at is missing.
Result<GrowthDecision> growthDecision(const GrowthInput& in);

} // namespace headroom::policy
