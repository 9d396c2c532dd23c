#include "planner/moe_curve.h"

#include "planner.h"

#include <nlohmann/json.hpp>

namespace headroom {

namespace {

// The rung of `plan` priced at exactly `context` (the -c rung), else the decided one.
const Rung* rungAt(const Plan& plan, std::uint32_t context) {
    for (const auto& r : plan.rungs)
        if (r.requested_context == context) return &r;
    const int i = plan.decision.rung_index;
    return i >= 0 && i < static_cast<int>(plan.rungs.size()) ? &plan.rungs[i] : nullptr;
}

nlohmann::json figure(double tok_s, double low, double high, const std::string& basis) {
    return {{"tok_s", tok_s}, {"low", low}, {"high", high}, {"basis", basis}};
}

} // namespace

Result<MoeCurve> moeCurve(const ModelShape& model, const HardwareSnapshot& hw,
                          const PlanOptions& options) {
    if (!model.isMoe() || model.nMoeLayers() == 0)
        return makeError(ErrorCode::InvalidArgument,
                         "--moe-curve: model '" + model.id + "' has no routed experts",
                         "the curve varies --n-cpu-moe, which only moves MoE experts");
    MoeCurve curve;
    curve.n_layer = model.nLayer();
    PlanOptions base = options;
    base.pinned = {};
    if (options.context) {
        curve.context = *options.context;
    } else {
        // The context the planner would launch: the curve answers "at my window, what does
        // each --n-cpu-moe cost and give".
        auto plan = makePlan(model, hw, base);
        if (!plan) return plan.error();
        curve.context = plan->decision.context;
        curve.context_chosen = true;
    }
    base.context = curve.context;
    for (std::uint32_t n = 0; n <= curve.n_layer; ++n) {
        PlanOptions o = base;
        o.pinned.gpu_layers = GpuLayers::all();
        o.pinned.n_cpu_moe = n;
        auto plan = makePlan(model, hw, o);
        if (!plan) return plan.error();
        const Rung* r = rungAt(*plan, curve.context);
        if (!r) continue;
        MoeCurvePoint p;
        p.n_cpu_moe = n;
        p.verdict = r->verdict;
        for (const auto& d : r->devices)
            p.gpu_bytes = satAdd(p.gpu_bytes, d.bytes);
        p.host_bytes = r->host_bytes;
        p.speed = r->speed;
        curve.points.push_back(std::move(p));
    }
    return curve;
}

nlohmann::json moeCurveToJson(const ModelShape& model, const MoeCurve& curve) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : curve.points)
        points.push_back({{"n_cpu_moe", p.n_cpu_moe},
                          {"verdict", verdictName(p.verdict)},
                          {"gpu_bytes", p.gpu_bytes},
                          {"host_bytes", p.host_bytes},
                          {"decode", figure(p.speed.decode_tok_s, p.speed.decode_low,
                                            p.speed.decode_high, p.speed.decode_basis)},
                          {"prefill", figure(p.speed.prefill_tok_s, p.speed.prefill_low,
                                             p.speed.prefill_high, p.speed.prefill_basis)}});
    return {{"schema", "headroom.moe-curve/1"},
            {"model", model.id},
            {"context", curve.context},
            {"context_chosen", curve.context_chosen},
            {"n_layer", curve.n_layer},
            {"estimate", true},
            {"points", points}};
}

} // namespace headroom
