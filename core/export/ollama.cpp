#include "export/ollama.h"

#include "export/llama_server.h"
#include "ggml_type.h"

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
    auto rungOr = chosenRung(plan);
    if (!rungOr) return rungOr.error();
    const Rung& rung = *rungOr;
    const PlanOptions& po = plan.options;
    const Placement& pl = rung.placement;

    OllamaModelfile mf;
    mf.from = launchModelPath(plan, options.model_path);

    // Ollama allocates num_ctx for each parallel request (OLLAMA_NUM_PARALLEL), so the planned
    // total is split back into a per-sequence figure.
    const std::uint32_t np = std::max<std::uint32_t>(1, po.n_parallel);
    mf.parameters.emplace_back("num_ctx", std::to_string(rung.requested_context / np));
    const bool cpuOnly = plan.backend == Backend::Cpu || plan.budget.devices.empty();
    mf.parameters.emplace_back("num_gpu", std::to_string(cpuOnly ? 0u : pl.gpu_layers));
    // num_batch is the batch Ollama hands llama.cpp; the compute buffer was priced at the
    // physical batch (-ub), so that is the figure that keeps memory as planned.
    mf.parameters.emplace_back("num_batch", std::to_string(rung.n_ubatch));

    mf.server_env.push_back(std::string("OLLAMA_FLASH_ATTENTION=") + (plan.flash_attn ? "1" : "0"));
    if (po.cache_type_k == po.cache_type_v && ollamaSupportsCacheType(po.cache_type_k)) {
        mf.server_env.push_back("OLLAMA_KV_CACHE_TYPE=" +
                                std::string(ggmlTypeName(po.cache_type_k)));
    } else {
        mf.unsupported.push_back(
            "KV cache -ctk " + std::string(ggmlTypeName(po.cache_type_k)) + " -ctv " +
            std::string(ggmlTypeName(po.cache_type_v)) +
            ": OLLAMA_KV_CACHE_TYPE sets one type for K and V and accepts only f16, q8_0, q4_0");
    }
    mf.server_env.push_back("OLLAMA_NUM_PARALLEL=" + std::to_string(np));
    if (po.kv_unified)
        mf.unsupported.push_back("--kv-unified (one KV buffer shared by all sequences)");
    if (po.swa_full) mf.unsupported.push_back("--swa-full (full-size sliding-window cache)");
    if (pl.n_cpu_moe > 0)
        mf.unsupported.push_back("--n-cpu-moe " + std::to_string(pl.n_cpu_moe) +
                                 " (expert weights of the first MoE layers on the CPU)");
    if (!pl.override_tensor.empty())
        mf.unsupported.push_back("-ot " + pl.override_tensor + " (tensor placement)");
    if (!pl.kv_offload) mf.unsupported.push_back("--no-kv-offload (KV cache in system RAM)");
    if (po.mmproj)
        mf.unsupported.push_back("the multimodal projector the plan priced: add it to the "
                                 "model as Ollama documents, it is not a PARAMETER");
    if (plan.mtp) mf.unsupported.push_back("MTP speculative decoding");

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
        t += "PARAMETER " + k + " " + v + "\n";
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
