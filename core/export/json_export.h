// JSON export: the plan in the "headroom.plan/1" schema, the same document
// `headroom-cli plan --json` prints (core/plan_json.h planToJson; one serializer, not two).
#pragma once

#include "plan.h"

#include <string>

namespace headroom {

// planToJson(plan), indented two spaces, ending in a newline. A refused plan is exported too:
// in JSON a refusal is an answer with its numbers, not an error.
std::string planJsonText(const Plan& plan);

} // namespace headroom
