// The plan as JSON: schema "headroom.plan/1". Scripts depend on it: keys may be
// added, never change meaning. Every byte count is an integer number of bytes.
#pragma once

#include "model_set.h"
#include "plan.h"

#include <nlohmann/json.hpp>

namespace headroom {

inline constexpr const char* kPlanSchema = "headroom.plan/1";
// Several models priced together (planModelSet): the set's totals and each member's plan.
inline constexpr const char* kModelSetSchema = "headroom.model-set/1";

nlohmann::json modelToJson(const ModelShape& model);
nlohmann::json hardwareSummaryToJson(const HardwareSnapshot& hw, const MemoryBudget& budget);
nlohmann::json optionsToJson(const PlanOptions& options);
nlohmann::json termsToJson(const Terms& t);
nlohmann::json draftUseToJson(const DraftUse& d);
nlohmann::json rungToJson(const Rung& r);
nlohmann::json refusalToJson(const Refusal& f);
nlohmann::json launchConfigToJson(const LaunchConfig& config);
nlohmann::json planToJson(const Plan& plan);
nlohmann::json modelSetToJson(const ModelSet& set);

} // namespace headroom
