// Human-readable rendering of a plan for the terminal.
#pragma once

#include "plan.h"

#include <string>

namespace headroom::cli {

std::string formatPlanTable(const Plan& plan);

} // namespace headroom::cli
