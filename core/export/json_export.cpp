#include "export/json_export.h"

#include "plan_json.h"

namespace headroom {

std::string planJsonText(const Plan& plan) {
    // error_handler::replace: a model name with invalid UTF-8 (from a GGUF header) becomes U+FFFD
    // instead of throwing across the core boundary.
    return planToJson(plan).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace headroom
