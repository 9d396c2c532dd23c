#include "export/ollama.h"

#include "export/llama_server.h"
#include "ggml_type.h"
#include "planner.h"

#include <algorithm>

namespace headroom {

namespace {

// A Modelfile argument: bare when it has no whitespace or quote, else in double quotes with
// \ and " escaped (Ollama's parser reads "…" as one argument).
std::string modelfileArg(const std::string& s) {
    const bool plain = !s.empty() && std::none_of(s.begin(), s.end(), [](char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '"' || c == '\\';
    });
    if (plain) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c == '\n' ? ' ' : c;
    }
    return out + "\"";
}

} // namespace

bool ollamaSupportsCacheType(GgmlType type) {
    return type == GgmlType::F16 || type == GgmlType::Q8_0 || type == GgmlType::Q4_0;
}

Result<OllamaModelfile> ollamaModelfile(const Plan& plan, const OllamaExportOptions& options) {
    auto rungOr = chosenRung(plan, options.rung_index);
    if (!rungOr) return rungOr.error();
    const Rung& rung = *rungOr;
    auto cfgOr = launchFor(plan, rung);
    if (!cfgOr) return cfgOr.error();
    const LaunchConfig& cfg = *cfgOr;

    OllamaModelfile mf;
    mf.from = launchModelPath(plan, options.model_path);

    // Ollama allocates num_ctx for each parallel request (OLLAMA_NUM_PARALLEL), so the planned
    // total is split back into a per-sequence figure.
    const std::uint32_t np = std::max<std::uint32_t>(1, cfg.n_parallel);
    mf.parameters.emplace_back("num_ctx", std::to_string(cfg.ctx_size / np));
    const std::uint32_t ngl =
        cfg.gpu_layers ? cfg.gpu_layers->resolve(plan.model.nLayer()) : plan.model.nLayer() + 1;
    mf.parameters.emplace_back("num_gpu", std::to_string(ngl));
    // num_batch is the batch Ollama hands llama.cpp; the compute buffer was priced at the
    // physical batch (-ub), so that is the figure that keeps memory as planned.
    mf.parameters.emplace_back("num_batch", std::to_string(cfg.ubatch()));

    mf.server_env.push_back(std::string("OLLAMA_FLASH_ATTENTION=") +
                            (cfg.flash_attn == FlashAttn::On ? "1" : "0"));
    if (cfg.typeK() == cfg.typeV() && ollamaSupportsCacheType(cfg.typeK())) {
        mf.server_env.push_back("OLLAMA_KV_CACHE_TYPE=" + std::string(ggmlTypeName(cfg.typeK())));
    } else {
        mf.unsupported.push_back(
            "KV cache -ctk " + std::string(ggmlTypeName(cfg.typeK())) + " -ctv " +
            std::string(ggmlTypeName(cfg.typeV())) +
            ": OLLAMA_KV_CACHE_TYPE sets one type for K and V and accepts only f16, q8_0, q4_0");
    }
    mf.server_env.push_back("OLLAMA_NUM_PARALLEL=" + std::to_string(np));
    if (cfg.kv_unified)
        mf.unsupported.push_back("--kv-unified (one KV buffer shared by all sequences)");
    if (cfg.swa_full) mf.unsupported.push_back("--swa-full (full-size sliding-window cache)");
    if (!cfg.op_offload)
        mf.unsupported.push_back("--no-op-offload (host-weight ops kept on the CPU)");
    if (cfg.cpu_moe)
        mf.unsupported.push_back("--cpu-moe (expert weights of every MoE layer on the CPU)");
    if (cfg.n_cpu_moe > 0)
        mf.unsupported.push_back("--n-cpu-moe " + std::to_string(cfg.n_cpu_moe) +
                                 " (expert weights of the first MoE layers on the CPU)");
    for (const auto& o : cfg.tensor_overrides)
        mf.unsupported.push_back("-ot " + o.text() + " (tensor placement)");
    if (!cfg.tensor_split.empty())
        mf.unsupported.push_back("-ts " + tensorSplitText(cfg.tensor_split) +
                                 " (layer split over the GPUs)");
    if (cfg.split_mode)
        mf.unsupported.push_back(std::string("-sm ") + splitModeName(*cfg.split_mode));
    if (!cfg.kv_offload) mf.unsupported.push_back("--no-kv-offload (KV cache in system RAM)");
    if (plan.options.mmproj)
        mf.unsupported.push_back("the multimodal projector the plan priced: add it to the "
                                 "model as Ollama documents, it is not a PARAMETER");
    if (cfg.spec_draft_mtp) mf.unsupported.push_back("MTP speculative decoding");
    if (!cfg.draft_model.empty())
        mf.unsupported.push_back("the draft model " + cfg.draft_model +
                                 " (-md: speculative decoding with a second model)");
    if (cfg.rope_scaling && *cfg.rope_scaling != RopeScaling::None)
        mf.unsupported.push_back(std::string("--rope-scaling ") +
                                 ropeScalingName(*cfg.rope_scaling) +
                                 " (RoPE scaling past the trained context: Ollama keeps the "
                                 "model's own RoPE settings, so the context is its trained one)");

    std::string& t = mf.text;
    const std::string who = plan.model.name.empty() ? plan.model.id : plan.model.name;
    t += "# Ollama Modelfile written by Headroom " HEADROOM_VERSION " for " + who + " at " +
         formatTokens(rung.context) + " (" + verdictName(rung.verdict) + ").\n";
    for (const auto& d : rung.devices)
        t += "#   " + d.name + ": " + formatBytes(d.bytes) + " of " +
             formatSignedBytes(d.budget_bytes) + " planned\n";
    if (rung.host_bytes > 0) t += "#   system RAM: " + formatBytes(rung.host_bytes) + " planned\n";
    t += "# Create it with: ollama create NAME -f Modelfile\n";
    if (plan.model.source != ShapeSource::GgufHeader && options.model_path.empty())
        t += "# Catalog model: replace " + mf.from + " with the path of your GGUF file.\n";
    t += "FROM " + modelfileArg(mf.from) + "\n";
    for (const auto& [k, v] : mf.parameters) {
        if (k == "num_ctx" && np > 1)
            t += "# per request: Ollama gives each of OLLAMA_NUM_PARALLEL=" + std::to_string(np) +
                 " requests num_ctx tokens (" + std::to_string(rung.requested_context) +
                 " in all)\n";
        if (k == "num_gpu") t += "# layers on the GPU (llama.cpp -ngl)\n";
        t.append("PARAMETER ").append(k).append(" ").append(v).append("\n");
    }
    t += "# Ollama sets these for the whole server, not per model: start `ollama serve` with\n";
    for (const auto& e : mf.server_env)
        t += "#   " + e + "\n";
    if (!mf.unsupported.empty()) {
        t += "# Planned but not expressible in Ollama (the memory figures above assume them):\n";
        for (auto u : mf.unsupported) {
            std::replace(u.begin(), u.end(), '\n', ' ');
            t += "#   " + u + "\n";
        }
    }
    return mf;
}

} // namespace headroom
