// Speed classes and a bandwidth / compute estimate of decode and prefill speed.
#pragma once

#include "plan.h"

namespace headroom::policy {

// Decode at or above 20 tok/s reads as fluent: a recommendation prefers such models over
// higher-quality slower ones (Hermes' "pleasant" gate). Not a knob.
inline constexpr double kPleasantTokS = 20.0;
// Below 6 tok/s an agentic session is unusable: growth stops and compression is preferred
// (Hermes' decode floor). Not a knob.
inline constexpr double kFloorTokS = 6.0;

// ≥ kPleasantTokS Pleasant, ≥ kFloorTokS Usable, else (also NaN) TooSlow.
SpeedClass classifySpeed(double decode_tok_s);

} // namespace headroom::policy
