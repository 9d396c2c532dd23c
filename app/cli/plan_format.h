// Human-readable rendering of a plan for the terminal.
#pragma once

#include "model_set.h"
#include "plan.h"

#include <string>

namespace headroom::cli {

std::string formatPlanTable(const Plan& plan);
// Several models priced together: each member's context, verdict and memory, the set's totals
// per device, and each member's launch.
std::string formatModelSet(const ModelSet& set);

} // namespace headroom::cli
