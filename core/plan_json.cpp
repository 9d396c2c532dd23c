#include "plan_json.h"

#include "export/rpc_server.h"
#include "hardware_json.h"

namespace headroom {

using nlohmann::json;

json modelToJson(const ModelShape& m) {
    json layers = json::array();
    for (const auto& l : m.layers)
        layers.push_back({{"attention", attentionKindName(l.attention)},
                          {"n_embd_k_gqa", l.n_embd_k_gqa},
                          {"n_embd_v_gqa", l.n_embd_v_gqa},
                          {"recurrent_r", l.recurrent_r},
                          {"recurrent_s", l.recurrent_s},
                          {"weights", l.attn_bytes + l.ffn_bytes + l.experts_bytes},
                          {"experts", l.experts_bytes},
                          {"mtp", l.is_mtp}});
    return {{"id", m.id},
            {"name", m.name},
            {"architecture", m.architecture},
            {"quant", m.quant},
            {"source", shapeSourceName(m.source)},
            {"conservative", m.conservative},
            {"n_ctx_train", m.n_ctx_train},
            {"n_vocab", m.n_vocab},
            {"n_embd", m.n_embd},
            {"n_layer", m.nLayer()},
            {"n_swa", m.n_swa},
            {"n_params", m.n_params},
            {"weights_bytes", m.weightBytes()},
            {"file_bytes", m.file_bytes},
            {"mmproj_bytes", m.mmproj_bytes},
            {"moe",
             {{"n_expert", m.moe.n_expert},
              {"n_expert_used", m.moe.n_expert_used},
              {"n_expert_shared", m.moe.n_expert_shared}}},
            {"n_mtp_layers", m.n_mtp_layers},
            {"layers", layers},
            {"notes", m.notes}};
}

json hardwareSummaryToJson(const HardwareSnapshot& hw, const MemoryBudget& b) {
    json devices = json::array();
    const std::vector<ClusterDevice> cluster = clusterDevices(hw);
    for (size_t i = 0; i < b.devices.size(); ++i) {
        const auto& d = b.devices[i];
        json j = {{"name", d.name},
                  {"rpc_endpoint", d.rpc_endpoint},
                  {"total_bytes", d.total},
                  {"margin_bytes", d.margin},
                  {"usable_bytes", nonNegative(d.usable)},
                  {"provenance", d.provenance}};
        if (i < cluster.size()) {
            const GpuDevice& g = *cluster[i].gpu;
            j["backend"] = g.backend;
            j["bandwidth_gbs"] = g.bandwidth_gbs;
            if (g.free_bytes) j["free_bytes"] = *g.free_bytes;
        }
        devices.push_back(j);
    }
    json ram = {{"total_bytes", hw.ram_total},
                {"usable_bytes", nonNegative(b.ram_usable)},
                {"provenance", hw.ram_provenance}};
    if (hw.ram_available) ram["available_bytes"] = *hw.ram_available;
    return {{"label", hw.label},  {"source", hw.source},
            {"devices", devices}, {"ram", ram},
            {"uma", hw.uma},      {"uma_pool_bytes", b.uma_pool_total},
            {"notes", hw.notes},  {"rpc_hosts", hardwareToJson(hw)["rpc_hosts"]}};
}

json optionsToJson(const PlanOptions& o) {
    json j = {{"cache_type_k", std::string(ggmlTypeName(o.cache_type_k))},
              {"cache_type_v", std::string(ggmlTypeName(o.cache_type_v))},
              {"flash_attn", flashAttnName(o.flash_attn)},
              {"n_batch", o.n_batch},
              {"n_ubatch", o.n_ubatch},
              {"n_parallel", o.n_parallel},
              {"kv_unified", o.kv_unified},
              {"swa_full", o.swa_full},
              {"mtp", o.mtp == MtpMode::On    ? "on"
                      : o.mtp == MtpMode::Off ? "off"
                                              : "auto"},
              {"mmproj", o.mmproj || o.mmproj_bytes.has_value()},
              {"extra_reserve_bytes", o.extra_reserve},
              {"beside_device_bytes", o.beside_device_bytes},
              {"beside_host_bytes", o.beside_host_bytes},
              {"backend", backendName(o.backend)},
              {"latency", o.latency == LatencyProfile::Voice ? "voice" : "text"},
              {"llama_version", llamaVersionName(o.llama_version)},
              {"llama_build", o.llama_build ? json(*o.llama_build) : json(nullptr)},
              {"program", programName(o.program)},
              {"backend_sampling", o.backend_sampling},
              {"kv_offload", o.kv_offload},
              {"op_offload", o.op_offload}};
    j["load_mode"] = o.load_mode ? json(loadModeName(*o.load_mode)) : json(nullptr);
    j["draft"] = nullptr;
    if (o.draft && o.draft->model)
        j["draft"] = {
            {"model", o.draft->model->id},
            {"ref", o.draft->ref},
            {"gpu_layers", o.draft->gpu_layers ? json(o.draft->gpu_layers->text()) : json(nullptr)},
            {"cache_type_k", std::string(ggmlTypeName(o.draft->cache_type_k))},
            {"cache_type_v", std::string(ggmlTypeName(o.draft->cache_type_v))},
            {"n_max", o.draft->n_max}};
    j["context"] = o.context ? json(*o.context) : json(nullptr);
    const PinnedPlacement& p = o.pinned;
    json overrides = json::array();
    for (const auto& t : p.tensor_overrides)
        overrides.push_back({{"pattern", t.pattern}, {"device", t.device}});
    j["pinned"] = {
        {"gpu_layers",
         p.gpu_layers ? (p.gpu_layers->kind == GpuLayers::Kind::Count ? json(p.gpu_layers->count)
                                                                      : json(p.gpu_layers->text()))
                      : json(nullptr)},
        {"n_cpu_moe", p.n_cpu_moe ? json(*p.n_cpu_moe) : json(nullptr)},
        {"cpu_moe", p.cpu_moe},
        {"override_tensor", overrides},
        {"tensor_split", p.tensor_split},
        {"split_mode", p.split_mode ? json(splitModeName(*p.split_mode)) : json(nullptr)}};
    return j;
}

json termsToJson(const Terms& t) {
    return {{"weights", t.weights}, {"experts", t.experts}, {"kv", t.kv()},
            {"kv_k", t.kv_k},       {"kv_v", t.kv_v},       {"recurrent_state", t.recurrent_state},
            {"compute", t.compute}, {"output", t.output},   {"overhead", t.overhead},
            {"mmproj", t.mmproj},   {"draft", t.draft},     {"total", t.total()}};
}

json draftUseToJson(const DraftUse& d) {
    json devices = json::array();
    for (const Terms& t : d.devices)
        devices.push_back(termsToJson(t));
    return {{"model", d.model_id}, {"gpu_layers", d.gpu_layers},  {"context", d.context},
            {"devices", devices},  {"host", termsToJson(d.host)}, {"total", d.total()}};
}

static json remediesToJson(const std::vector<Remedy>& remedies) {
    json arr = json::array();
    for (const auto& m : remedies)
        arr.push_back({{"kind", remedyKindName(m.kind)},
                       {"label", m.label},
                       {"saves_bytes", nonNegative(m.saves_bytes)},
                       {"fixes", m.fixes},
                       {"still_lacks", m.still_lacks},
                       {"model", m.model_ref.empty() ? json(nullptr) : json(m.model_ref)},
                       {"args", m.args}});
    return arr;
}

json launchConfigToJson(const LaunchConfig& c) {
    auto opt = [](const auto& v, auto f) { return v ? json(f(*v)) : json(nullptr); };
    auto typeName = [](GgmlType t) { return std::string(ggmlTypeName(t)); };
    json gpu_layers = nullptr;
    if (c.gpu_layers)
        gpu_layers = c.gpu_layers->kind == GpuLayers::Kind::Count ? json(c.gpu_layers->count)
                                                                  : json(c.gpu_layers->text());
    json overrides = json::array();
    for (const auto& o : c.tensor_overrides)
        overrides.push_back({{"pattern", o.pattern}, {"device", o.device}});
    return {{"ctx_size", c.ctx_size},
            {"cache_type_k", opt(c.cache_type_k, typeName)},
            {"cache_type_v", opt(c.cache_type_v, typeName)},
            {"flash_attn", flashAttnName(c.flash_attn)},
            {"n_batch", opt(c.n_batch, [](std::uint32_t v) { return v; })},
            {"n_ubatch", opt(c.n_ubatch, [](std::uint32_t v) { return v; })},
            {"n_parallel", c.n_parallel},
            {"kv_unified", c.kv_unified},
            {"swa_full", c.swa_full},
            {"kv_offload", c.kv_offload},
            {"gpu_layers", gpu_layers},
            {"cpu_moe", c.cpu_moe},
            {"n_cpu_moe", c.n_cpu_moe},
            {"override_tensor", overrides},
            {"tensor_split", c.tensor_split},
            {"rpc", c.rpc_servers},
            {"split_mode", opt(c.split_mode, [](SplitMode m) { return splitModeName(m); })},
            {"spec_type", c.spec_draft_mtp         ? json("draft-mtp")
                          : !c.draft_model.empty() ? json("draft-simple")
                                                   : json(nullptr)},
            {"spec_draft_n_max", c.spec_draft_n_max},
            {"draft_model", c.draft_model.empty() ? json(nullptr) : json(c.draft_model)},
            {"draft_gpu_layers", opt(c.draft_gpu_layers, [](GpuLayers g) { return g.text(); })},
            {"draft_cache_type_k", opt(c.draft_cache_type_k, typeName)},
            {"draft_cache_type_v", opt(c.draft_cache_type_v, typeName)},
            {"backend_sampling", c.backend_sampling},
            {"op_offload", c.op_offload},
            {"fit", opt(c.fit, [](bool v) { return v; })},
            {"fit_target_mib", c.fit_target_mib}};
}

json refusalToJson(const Refusal& f) {
    json terms = json::array();
    for (const auto& t : f.terms)
        terms.push_back({{"label", t.label}, {"bytes", t.bytes}});
    json j = {{"code", refusalCodeName(f.code)},
              {"budget", budgetName(f.budget)},
              {"needed_bytes", f.needed_bytes},
              {"available_bytes", nonNegative(f.available_bytes)},
              {"needed_tokens", f.needed_tokens},
              {"available_tokens", f.available_tokens},
              {"shortfall_bytes", nonNegative(f.shortfall_bytes)},
              {"terms", terms},
              {"remedies", remediesToJson(f.remedies)},
              {"message", f.message}};
    json reasons = json::array();
    for (const auto& r : f.reasons)
        reasons.push_back({{"code", refusalCodeName(r.code)},
                           {"budget", budgetName(r.budget)},
                           {"message", r.message}});
    j["reasons"] = reasons;
    if (f.device >= 0) j["device"] = f.device;
    return j;
}

// Decode with the rung's drafter, null when it drafts nothing (policy/speculation.h).
json speculativeToJson(const SpeculativeSpeed& s) {
    if (s.drafter.empty()) return nullptr;
    return {{"drafter", s.drafter},
            {"estimate", true},
            {"n_max", s.n_max},
            {"accept_low", s.accept_low},
            {"accept_high", s.accept_high},
            {"draft_tok_s", s.draft_tok_s},
            {"speedup", {{"x", s.speedup}, {"low", s.speedup_low}, {"high", s.speedup_high}}},
            {"decode", {{"tok_s", s.decode_tok_s}, {"low", s.decode_low}, {"high", s.decode_high}}},
            {"basis", s.basis}};
}

json rungToJson(const Rung& r) {
    json devices = json::array();
    for (const auto& d : r.devices)
        devices.push_back({{"name", d.name},
                           {"rpc_endpoint", d.rpc_endpoint},
                           {"bytes", d.bytes},
                           {"budget_bytes", nonNegative(d.budget_bytes)},
                           {"terms", termsToJson(d.terms)}});
    json ffn = json::array();
    for (auto b : r.placement.ffn_blocks_to_host)
        ffn.push_back(b);
    const KvSpillPlan& k = r.kv_spill;
    const ExpertSplit& e = r.expert_split;
    json j = {{"context", r.context},
              {"requested_context", r.requested_context},
              {"on_ladder", r.on_ladder},
              {"posture", postureName(r.posture)},
              {"n_ubatch", r.n_ubatch},
              {"verdict", verdictName(r.verdict)},
              {"bytes", termsToJson(r.totals)},
              {"devices", devices},
              {"host_bytes", r.host_bytes},
              {"host_budget_bytes", nonNegative(r.host_budget_bytes)},
              {"host", termsToJson(r.host)},
              {"placement",
               {{"gpu_layers", r.placement.gpu_layers},
                {"n_cpu_moe", r.placement.n_cpu_moe},
                {"expert_slots_gpu", r.placement.expert_slots_gpu},
                {"expert_slots_host", r.placement.expert_slots_host},
                {"ffn_blocks_to_host", ffn},
                {"override_tensor", r.placement.override_tensor},
                {"spill_bytes", r.placement.spill_bytes},
                {"kv_offload", r.placement.kv_offload},
                {"pinned", r.placement.pinned},
                {"device_layers", r.placement.device_layers},
                {"host_layers", r.placement.host_layers},
                {"tensor_split", r.placement.tensor_split},
                {"split_mode", splitModeName(r.placement.split_mode)}}},
              {"kv_spill",
               {{"mode", kvSpillModeName(k.mode)},
                {"tier", kvSpillTierName(k.tier)},
                {"restore_class", kvRestoreClassName(k.restore_class)},
                {"page_tokens", k.page_tokens},
                {"page_bytes", k.page_bytes},
                {"total_pages", k.total_pages},
                {"resident_pages", k.resident_pages},
                {"spill_pages", k.spill_pages},
                {"total_bytes", k.total_bytes},
                {"resident_bytes", k.resident_bytes},
                {"spill_bytes", k.spill_bytes},
                {"resident_budget_bytes", nonNegative(k.resident_budget_bytes)},
                {"worst_case_restore_ms", k.worst_case_restore_ms},
                {"latency_budget_ms", k.latency_budget_ms},
                {"message", k.message}}},
              {"expert_split",
               {{"applicable", e.applicable},
                {"budget_bytes", nonNegative(e.budget_bytes)},
                {"bytes_per_expert", e.bytes_per_expert},
                {"bytes_per_page", e.bytes_per_page},
                {"expert_slots", e.expert_slots},
                {"kv_starved", e.kv_starved},
                {"message", e.message},
                {"total_experts", e.total_experts},
                {"pages", e.pages},
                {"reserve_pages", e.reserve_pages},
                {"prefill_overlap", e.prefill_overlap},
                {"too_small", e.too_small},
                {"needed_bytes", e.needed_bytes}}},
              {"speed",
               {{"decode_tok_s", r.speed.decode_tok_s},
                {"prefill_tok_s", r.speed.prefill_tok_s},
                {"decode_class", speedClassName(r.speed.decode_class)},
                {"estimate", true},
                {"basis", r.speed.basis},
                {"depth", r.speed.depth},
                {"decode",
                 {{"tok_s", r.speed.decode_tok_s},
                  {"low", r.speed.decode_low},
                  {"high", r.speed.decode_high},
                  {"basis", r.speed.decode_basis}}},
                {"prefill",
                 {{"tok_s", r.speed.prefill_tok_s},
                  {"low", r.speed.prefill_low},
                  {"high", r.speed.prefill_high},
                  {"basis", r.speed.prefill_basis}}},
                {"network",
                 {{"decode_ms_per_token", r.speed.network_decode_ms},
                  {"prefill_ms_per_token", r.speed.network_prefill_ms},
                  {"decode_share", r.speed.network_decode_share},
                  {"prefill_share", r.speed.network_prefill_share},
                  {"transfers_per_pass", r.speed.network_crossings},
                  {"basis", r.speed.network_basis}}},
                {"speculative", speculativeToJson(r.speed.speculative)}}}};
    j["draft"] = r.draft ? draftUseToJson(*r.draft) : json(nullptr);
    j["refusal"] = r.refusal ? refusalToJson(*r.refusal) : json(nullptr);
    j["spill_remedies"] = remediesToJson(r.spill_remedies);
    return j;
}

// What to start on each RPC host before llama-server (export/rpc_server.h).
json rpcServersToJson(const Plan& plan) {
    json out = json::array();
    if (!plan.launch) return out;
    for (const auto& l : rpcServerLaunches(plan.hardware, *plan.launch))
        out.push_back({{"endpoint", l.endpoint}, {"label", l.label}, {"argv", l.argv}});
    return out;
}

// The growth policy's decision for the launch window (Plan::growth), null when it is refused.
json growthToJson(const std::optional<SessionGrowth>& g) {
    if (!g) return nullptr;
    return {{"action", g->action},
            {"window", g->window},
            {"next_window", g->next_window ? json(*g->next_window) : json(nullptr)},
            {"reason", g->reason},
            {"occupancy_tokens", g->occupancy_tokens},
            {"decode_tok_s", g->decode_tok_s},
            {"needed_bytes", g->needed_bytes},
            {"available_bytes", g->available_bytes}};
}

json planToJson(const Plan& plan) {
    json rungs = json::array();
    for (const auto& r : plan.rungs)
        rungs.push_back(rungToJson(r));
    json other = json::array();
    for (const auto& r : plan.other_posture_rungs)
        other.push_back(rungToJson(r));
    const Decision& d = plan.decision;
    return {{"schema", kPlanSchema},
            {"model", modelToJson(plan.model)},
            {"hardware", hardwareSummaryToJson(plan.hardware, plan.budget)},
            {"options", optionsToJson(plan.options)},
            {"resolved",
             {{"backend", backendName(plan.backend)},
              {"flash_attn", plan.flash_attn},
              {"mtp", plan.mtp},
              {"compute", plan.compute_replayed ? "replayed" : "estimate"},
              {"compute_margin_pct", plan.compute_margin_pct}}},
            {"rungs", rungs},
            {"other_posture_rungs", other},
            {"decision",
             {{"context", d.context},
              {"posture", postureName(d.posture)},
              {"spilled", d.spilled},
              {"refused", d.refused},
              {"spill_bytes", d.spill_bytes},
              {"kv_on_gpu", d.kv_on_gpu},
              {"rung_index", d.rung_index},
              {"reasons", d.reasons}}},
            {"launch",
             {{"llama_server",
               plan.launch ? llamaServerArgs(*plan.launch) : std::vector<std::string>{}},
              {"config", plan.launch ? launchConfigToJson(*plan.launch) : json(nullptr)},
              {"rpc_servers", rpcServersToJson(plan)}}},
            {"growth", growthToJson(plan.growth)},
            {"notes", plan.notes}};
}

nlohmann::json modelSetToJson(const ModelSet& set) {
    auto use = [](const SetUse& u) {
        return nlohmann::json{{"name", u.name}, {"bytes", u.bytes}, {"usable_bytes", u.usable}};
    };
    nlohmann::json devices = nlohmann::json::array();
    for (const SetUse& d : set.devices)
        devices.push_back(use(d));
    nlohmann::json plans = nlohmann::json::array();
    for (const Plan& p : set.plans)
        plans.push_back(planToJson(p));
    return {{"schema", kModelSetSchema},
            {"fits", set.fits},
            {"resident", set.resident},
            {"blocked", set.blocked >= 0 ? nlohmann::json(set.blocked) : nlohmann::json(nullptr)},
            {"blocked_why", set.blocked_why},
            {"devices", devices},
            {"host", use(set.host)},
            {"notes", set.notes},
            {"plans", plans}};
}

} // namespace headroom
