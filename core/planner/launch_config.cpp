// The launch of a priced rung as a typed LaunchConfig: the one place a plan becomes llama-server
// flags. Exporters and the plan JSON format this value; nothing parses argv back.
#include "planner.h"
#include "planner/planner_internal.h"

#include <algorithm>

namespace headroom {

namespace detail {

std::uint32_t postureBatch(const PlanOptions& o, Posture posture) {
    if (posture == Posture::Stacked && !o.ubatch_set && !o.batch_set)
        return std::max(o.n_batch, kStackedBatch);
    return o.n_batch;
}

LaunchConfig launchConfig(const PlanOptions& o, const MemoryBudget& budget, Backend backend,
                          bool flash_attn, const Rung& r) {
    const PinnedPlacement& pin = o.pinned;
    LaunchConfig c;
    // -c is what the user asks for; llama.cpp pads it to the rung's context itself.
    c.ctx_size = r.requested_context;
    // RPC devices are devices whatever the main host's backend: llama-server with --rpc offloads
    // to them even in a CPU-only build (ggml-rpc is a backend of its own).
    for (const auto& d : budget.devices)
        if (!d.rpc_endpoint.empty() && std::find(c.rpc_servers.begin(), c.rpc_servers.end(),
                                                 d.rpc_endpoint) == c.rpc_servers.end())
            c.rpc_servers.push_back(d.rpc_endpoint);
    const bool gpus =
        (backend != Backend::Cpu || !c.rpc_servers.empty()) && !budget.devices.empty();
    if (!gpus)
        c.gpu_layers = GpuLayers::of(0);
    else if (pin.gpu_layers && pin.gpu_layers->kind != GpuLayers::Kind::Auto)
        c.gpu_layers = pin.gpu_layers; // the user's own spelling (a count or "all")
    else
        c.gpu_layers = GpuLayers::of(r.placement.gpu_layers);
    if (gpus) {
        c.cpu_moe = pin.cpu_moe;
        c.n_cpu_moe = pin.cpu_moe ? 0 : r.placement.n_cpu_moe;
        c.tensor_overrides = pin.tensor_overrides;
        // The planner's own hybrid FFN pattern ("…=CPU", policy::hybridFfnOverride).
        const std::string& ot = r.placement.override_tensor;
        if (const size_t eq = ot.rfind('='); !ot.empty() && eq != std::string::npos)
            c.tensor_overrides.push_back({ot.substr(0, eq), ot.substr(eq + 1)});
        // Several GPUs: pin the split that was priced (the user's -ts, or Headroom's), since
        // llama.cpp's default follows each device's free memory at start-up.
        c.tensor_split = pin.tensor_split.empty() ? r.placement.tensor_split : pin.tensor_split;
        c.split_mode = pin.split_mode;
        // The placement above is the plan: llama.cpp's fit would give up once -ngl is set anyway
        // (common/fit.cpp, "already set by user"), and it assumes unlimited host RAM.
        c.fit = false;
    }
    c.flash_attn = flash_attn ? FlashAttn::On : FlashAttn::Off;
    if (o.cache_type_k != llama::kDefaultCacheType) c.cache_type_k = o.cache_type_k;
    if (o.cache_type_v != llama::kDefaultCacheType) c.cache_type_v = o.cache_type_v;
    const std::uint32_t batch = postureBatch(o, r.posture);
    if (o.batch_set || batch != llama::kDefaultBatch) c.n_batch = batch;
    // A -ub the user typed is written even when it equals llama.cpp's default.
    if (o.ubatch_set || r.n_ubatch != llama::kDefaultUbatch) c.n_ubatch = r.n_ubatch;
    // Always pinned: llama-server without -np runs 4 slots on one unified cache.
    c.n_parallel = o.n_parallel;
    c.kv_unified = o.kv_unified;
    c.swa_full = o.swa_full;
    c.kv_offload = r.placement.kv_offload;
    c.rope_scaling = o.rope_scaling;
    c.rope_scale = o.rope_scale;
    c.yarn_orig_ctx = o.yarn_orig_ctx;
    c.load_mode = o.load_mode;
    c.backend_sampling = o.backend_sampling;
    c.op_offload = o.op_offload;
    if (r.posture != Posture::Plain) {
        c.spec_draft_mtp = true;
        c.spec_draft_n_max = kMtpDraftTokens;
    }
    if (o.draft && r.draft) {
        const DraftModel& d = *o.draft;
        c.draft_model = d.ref.empty() ? r.draft->model_id + ".gguf" : d.ref;
        // The layers priced, always written (llama.cpp's default offloads them all, and the
        // plan may have priced fewer); a CPU-only launch keeps the target's -ngl 0 for it too.
        c.draft_gpu_layers = d.gpu_layers && d.gpu_layers->kind == GpuLayers::Kind::All
                                 ? *d.gpu_layers
                                 : GpuLayers::of(gpus ? r.draft->gpu_layers : 0);
        if (d.cache_type_k != llama::kDefaultCacheType) c.draft_cache_type_k = d.cache_type_k;
        if (d.cache_type_v != llama::kDefaultCacheType) c.draft_cache_type_v = d.cache_type_v;
        // Written even at llama.cpp's default of 3: the target's output rows were priced for it.
        c.spec_draft_n_max = d.n_max;
    }
    return c;
}

} // namespace detail

Result<LaunchConfig> launchFor(const Plan& plan, const Rung& rung) {
    if (rung.verdict == Verdict::Refused)
        return makeError(ErrorCode::InvalidArgument,
                         "nothing to launch: the " + formatTokens(rung.context) + " rung of " +
                             (plan.model.name.empty() ? plan.model.id : plan.model.name) +
                             " is refused",
                         rung.refusal ? rung.refusal->message : std::string());
    LaunchConfig c =
        detail::launchConfig(plan.options, plan.budget, plan.backend, plan.flash_attn, rung);
    // A hand-built plan may say MTP without a posture on its rungs.
    if (plan.mtp && !c.spec_draft_mtp) {
        c.spec_draft_mtp = true;
        c.spec_draft_n_max = detail::kMtpDraftTokens;
    }
    return c;
}

Result<LaunchConfig> launchFor(const Plan& plan, int rung_index) {
    if (rung_index < 0 || static_cast<size_t>(rung_index) >= plan.rungs.size())
        return makeError(ErrorCode::InvalidArgument,
                         "nothing to launch: rung " + std::to_string(rung_index) + " of " +
                             std::to_string(plan.rungs.size()) + " does not exist");
    return launchFor(plan, plan.rungs[static_cast<size_t>(rung_index)]);
}

} // namespace headroom
