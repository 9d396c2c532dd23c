#include "planner/fit_simulation.h"

#include "launch/llama_defaults.h"
#include "planner.h"
#include "planner/planner_internal.h"

#include <algorithm>
#include <limits>

namespace headroom {

namespace {

// Host memory as fit sees it: unlimited (common/fit.h). Large, yet far from overflow when summed.
constexpr SignedBytes kUnlimited = std::numeric_limits<SignedBytes>::max() / 4;

Bytes deviceSum(const Rung& r) {
    Bytes s = 0;
    for (const auto& d : r.devices)
        s += d.bytes;
    return s;
}

} // namespace

Result<FitSimulation> simulateFit(const ModelShape& model, const HardwareSnapshot& hw,
                                  const PlanOptions& options, const FitSettings& settings,
                                  const Plan* plan) {
    if (auto ok = validateOptions(model, options); !ok) return ok.error();
    const LlamaProfile& profile = llamaProfile(options.llama_version);
    FitSimulation s;
    s.version = options.llama_version;

    // Fit's budget: free memory (total where no live figure is known) less the -fitt margin on
    // every device, and host RAM unlimited.
    MemoryBudget budget = capacityBudget(hw, 0);
    const size_t nd = budget.uma ? 0 : budget.devices.size();
    if (budget.uma) budget.devices.clear();
    // In llama.cpp's device order (RPC devices first), as capacityBudget lists them.
    const std::vector<ClusterDevice> cluster = clusterDevices(hw);
    for (size_t i = 0; i < budget.devices.size(); ++i) {
        const std::uint64_t mib = settings.target_mib.empty()      ? profile.fit_target_mib
                                  : i < settings.target_mib.size() ? settings.target_mib[i]
                                                                   : settings.target_mib.back();
        const GpuDevice& gpu = *cluster[i].gpu;
        const Bytes freeBytes = gpu.free_bytes.value_or(gpu.total_bytes);
        budget.devices[i].margin = mib * MiB;
        budget.devices[i].usable = toSigned(freeBytes) - toSigned(mib * MiB);
        s.device_targets.push_back(budget.devices[i].usable);
    }
    const SignedBytes realRam = budget.ram_usable;
    budget.ram_usable = kUnlimited;
    budget.kind = BudgetKind::Live;
    budget.unknown = false;

    const ResolvedOptions opt = detail::resolve(model, options, hw, Posture::Plain);
    ResolvedOptions full = opt;
    full.pinned = {};
    full.pinned.gpu_layers = GpuLayers::all();
    full.pinned_moves.clear();
    auto priceFull = [&](std::uint64_t ctx) {
        return detail::planRung(model, full, budget, hw, ctx, false);
    };

    const std::uint32_t nSeq = std::max<std::uint32_t>(1, options.n_parallel);
    const std::uint32_t nStreams = options.kv_unified ? 1 : nSeq;
    const std::uint32_t nctxMin = settings.min_ctx.value_or(profile.fit_min_ctx);
    s.ctx_unset = !options.context || *options.context == 0;
    const std::uint32_t nctxMax = fitUnsetContext(
        profile, static_cast<std::uint32_t>(std::min<std::uint64_t>(model.n_ctx_train, UINT32_MAX)),
        nSeq, options.kv_unified);
    const std::uint32_t nctxMinTotal = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(std::uint64_t(nctxMin) * nStreams, UINT32_MAX));
    s.ctx_start = s.ctx_unset ? nctxMax : *options.context;
    s.context = s.ctx_start;

    // Step 1: full offload at the starting context.
    const Rung atStart = priceFull(s.ctx_start);
    bool needChanges = nd == 0 ? toSigned(atStart.host_bytes) > realRam : false;
    SignedBytes surplus = 0;
    for (size_t i = 0; i < nd; ++i) {
        surplus += s.device_targets[i] - toSigned(atStart.devices[i].bytes);
        if (toSigned(atStart.devices[i].bytes) > s.device_targets[i]) needChanges = true;
    }
    const std::uint64_t counted = model.n_ctx_train ? nctxMax / model.n_ctx_train : 1;
    s.steps.push_back("full offload at " + std::to_string(s.ctx_start) + " tokens" +
                      (s.ctx_unset
                           ? " (-c unset: the trained context x " + std::to_string(counted) +
                                 (counted == 1 ? " sequence)" : " sequences)")
                           : std::string()));
    auto finish = [&](const Rung& r) {
        s.gpu_layers = r.placement.gpu_layers;
        s.n_cpu_moe = r.placement.n_cpu_moe;
        s.device_bytes.clear();
        for (const auto& d : r.devices)
            s.device_bytes.push_back(d.bytes);
        s.devices_fit = true;
        for (size_t i = 0; i < nd && i < s.device_bytes.size(); ++i)
            if (toSigned(s.device_bytes[i]) > s.device_targets[i]) s.devices_fit = false;
        s.host_bytes = r.host_bytes;
        s.ram_usable = realRam;
        s.host_over_ram = toSigned(r.host_bytes) - realRam;
    };

    const bool userPlacement = options.pinned.pinsPlacement();
    if (!needChanges && !userPlacement) {
        s.steps.push_back("every device keeps its -fitt margin: no changes");
        finish(atStart);
    } else {
        // Step 2: an unset context shrinks by linear interpolation (fit never touches -c N).
        if (needChanges && nd > 0 && surplus < 0) {
            if (!s.ctx_unset) {
                s.steps.push_back("context size set by user to " + std::to_string(s.context) +
                                  " -> no change");
            } else if (nctxMax > nctxMinTotal) {
                SignedBytes target = 0;
                for (auto t : s.device_targets)
                    target += t;
                if (nd > 1) {
                    // Whole layers (dense) or tensors (~1/3 layer, MoE) per device: waste.
                    const std::uint32_t n = std::max<std::uint32_t>(1, model.nLayer());
                    const SignedBytes perLayer = toSigned(atStart.totals.weights) / n;
                    target -= SignedBytes(nd + 1) * perLayer / (model.moe.n_expert ? 6 : 2);
                }
                const Rung atMin = priceFull(nctxMinTotal);
                const SignedBytes usedMin = toSigned(deviceSum(atMin));
                const SignedBytes usedMax = toSigned(deviceSum(atStart));
                s.context = nctxMinTotal;
                if (target > usedMin && usedMax > usedMin) {
                    const std::uint64_t add = std::uint64_t(nctxMax - nctxMinTotal) *
                                              std::uint64_t(target - usedMin) /
                                              std::uint64_t(usedMax - usedMin);
                    std::uint32_t c = static_cast<std::uint32_t>(nctxMinTotal + add);
                    const std::uint32_t align = 256 * nStreams;
                    s.context = std::max(c - c % align, nctxMinTotal);
                }
                s.steps.push_back("context reduced from " + std::to_string(nctxMax) + " to " +
                                  std::to_string(s.context) +
                                  " (linear interpolation down to "
                                  "-fitc " +
                                  std::to_string(nctxMin) + ")");
            }
        }
        const Rung atCtx = priceFull(s.context);
        bool devicesOk = true;
        for (size_t i = 0; i < nd; ++i)
            if (toSigned(atCtx.devices[i].bytes) > s.device_targets[i]) devicesOk = false;
        if (userPlacement) {
            // common_params_fit_impl checks these after step 2, in this order.
            const auto& p = options.pinned;
            s.gave_up = true;
            if (p.gpu_layers && p.gpu_layers->kind != GpuLayers::Kind::Auto)
                s.give_up_reason = "n_gpu_layers already set by user";
            else if (nd > 1 && !p.tensor_split.empty())
                s.give_up_reason = "model_params::tensor_split already set by user";
            else if (nd > 1 && p.split_mode == SplitMode::Row)
                s.give_up_reason = "changing weight allocation for LLAMA_SPLIT_MODE_ROW not "
                                   "implemented";
            else if (!p.tensor_overrides.empty() || p.n_cpu_moe || p.cpu_moe)
                s.give_up_reason = "model_params::tensor_buft_overrides already set by user";
            else
                s.gave_up = false;
        }
        if (s.gave_up) {
            s.steps.push_back("abort: " + s.give_up_reason +
                              "; the launch runs your placement at " + std::to_string(s.context) +
                              " tokens");
            finish(detail::planRung(model, opt, budget, hw, s.context, false));
        } else if (devicesOk || nd == 0) {
            finish(atCtx);
        } else {
            // Steps 3-4: layers (dense) or expert banks (MoE) move to the CPU until every device
            // keeps its margin; Headroom's own search over the same axis, with RAM unlimited.
            ResolvedOptions searched = opt;
            searched.pinned = {};
            searched.pinned_moves.clear();
            const Rung placed = detail::planRung(model, searched, budget, hw, s.context, false);
            s.changed_placement = true;
            s.steps.push_back(model.moe.n_expert ? "experts of the first blocks moved to the CPU"
                                                 : "layers moved to the CPU, back to front");
            finish(placed);
        }
    }

    // Where Headroom's plan differs.
    if (plan && !plan->decision.refused && plan->decision.rung_index >= 0 &&
        static_cast<size_t>(plan->decision.rung_index) < plan->rungs.size()) {
        const Rung& mine = plan->rungs[static_cast<size_t>(plan->decision.rung_index)];
        if (mine.requested_context != s.context)
            s.differences.push_back("context: Headroom plans " +
                                    std::to_string(mine.requested_context) + ", fit would run " +
                                    std::to_string(s.context));
        if (mine.placement.gpu_layers != s.gpu_layers || mine.placement.n_cpu_moe != s.n_cpu_moe)
            s.differences.push_back(
                "placement: Headroom -ngl " + std::to_string(mine.placement.gpu_layers) +
                (mine.placement.n_cpu_moe
                     ? " --n-cpu-moe " + std::to_string(mine.placement.n_cpu_moe)
                     : std::string()) +
                ", fit -ngl " + std::to_string(s.gpu_layers) +
                (s.n_cpu_moe
                     ? " with experts of " + std::to_string(s.n_cpu_moe) + " blocks on the CPU"
                     : std::string()) +
                " (fit keeps " +
                std::to_string(settings.target_mib.empty() ? profile.fit_target_mib
                                                           : settings.target_mib.front()) +
                " MiB free per device and measures free memory; Headroom keeps its own margin)");
    }
    if (s.host_over_ram > 0)
        s.differences.push_back("fit assumes unlimited RAM: this places " +
                                formatBytes(s.host_bytes) + " in system RAM, " +
                                formatBytes(static_cast<Bytes>(s.host_over_ram)) +
                                " past the RAM a plan may use");
    if (!s.devices_fit)
        s.differences.push_back("fit's result does not keep the -fitt margin on every device; "
                                "llama.cpp may fail to allocate");
    return s;
}

nlohmann::json fitSimulationJson(const FitSimulation& s) {
    std::vector<Bytes> budgets;
    for (SignedBytes t : s.device_targets)
        budgets.push_back(nonNegative(t));
    return {{"llama_version", llamaVersionName(s.version)},
            {"ctx_unset", s.ctx_unset},
            {"ctx_start", s.ctx_start},
            {"context", s.context},
            {"gave_up", s.gave_up},
            {"give_up_reason", s.give_up_reason},
            {"changed_placement", s.changed_placement},
            {"gpu_layers", s.gpu_layers},
            {"n_cpu_moe", s.n_cpu_moe},
            {"device_bytes", s.device_bytes},
            // free - margin, as llama.cpp's fit computes it; a device smaller than the margin has
            // no room (0), never a negative count.
            {"device_budget_bytes", budgets},
            {"devices_fit", s.devices_fit},
            {"host_bytes", s.host_bytes},
            {"host_over_ram_bytes", std::max<SignedBytes>(0, s.host_over_ram)},
            {"steps", s.steps},
            {"differences", s.differences}};
}

} // namespace headroom
