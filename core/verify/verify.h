// The plan against what the user's llama.cpp allocated: each llama.cpp buffer (from the load log,
// server_log.h) matched to the plan's device or host memory, term by term, and the calibration
// that difference gives (calibration.h).
#pragma once

#include "calibration.h"
#include "plan.h"
#include "verify/server_log.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace headroom {

struct TermCheck {
    std::string term; // weights | kv | recurrent_state | output | compute
    Bytes planned = 0, measured = 0;
    // weights, kv, recurrent_state and output are priced exactly: they must agree within the
    // log's rounding. compute is an estimate: reported, and turned into a calibration.
    bool exact_term = true;
    bool agrees = true;
    SignedBytes difference() const { return toSigned(planned) - toSigned(measured); }
};

struct DeviceCheck {
    std::string llama_name; // "CUDA0", "Vulkan1", or "host" (CPU and pinned host buffers)
    std::string plan_name;  // the plan's GPU name, or "host"
    bool host = false;
    std::vector<std::string> buffers; // llama.cpp buffer names counted here
    std::vector<TermCheck> terms;
    std::optional<SignedBytes> unaccounted; // from the memory breakdown, when printed
};

struct VerifyReport {
    std::string llama_build;
    std::uint32_t context = 0;
    std::vector<DeviceCheck> devices; // GPUs in llama.cpp's order, then host
    bool exact_terms_agree = true;
    Calibration calibration;
};

// `rung` is one of plan.rungs (the one the launch was made for); `model_file` names the GGUF.
VerifyReport compareWithPlan(const Plan& plan, const Rung& rung, const ServerLog& log,
                             const std::string& model_file);

nlohmann::json verifyReportToJson(const VerifyReport& r, const std::vector<std::string>& argv);
std::string formatVerifyReport(const VerifyReport& r);

} // namespace headroom
