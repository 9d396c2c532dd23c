// "Best for this machine": how `headroom-cli catalog` orders models once each is planned, and
// how the window's model list sorts by its Fit column (ui/catalogmodel.cpp). One rule in core,
// so the two never rank a machine's models differently, and one sentence (kRankingBasis) that
// states it wherever it is shown.
#pragma once

#include "plan.h"

#include <cstdint>

namespace headroom {

// What a model can do on one machine, read from its plan.
struct ModelStanding {
    Verdict best = Verdict::Refused;    // of the largest rung that runs
    std::uint32_t largest = 0;          // largest context that runs (resident or spilled)
    std::uint32_t largest_resident = 0; // largest context with every weight on the devices
    double decode_tok_s = 0;            // at the launch decision (an estimate); 0 = none
    double bits_per_weight = 0;         // the quant's file bits per parameter; 0 = unknown
};

ModelStanding standingOf(const Plan& plan);

// Resident before spilled before refused; then the longer context at that verdict (the
// resident one when the model has one); then the faster decode; then the higher-quality quant
// (more bits per weight). A strict weak order: equal standings rank neither above the other.
bool ranksAbove(const ModelStanding& a, const ModelStanding& b);

inline constexpr const char* kRankingBasis =
    "runs resident before spilled before refused; then the longest context it holds that way; "
    "then the faster decode (estimate); then the quant with more bits per weight";

} // namespace headroom
