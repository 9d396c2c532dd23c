// headroom-cli inspect MODEL.gguf [--json]: what the GGUF header says and how llama.cpp would
// lay the model out — architecture, quant, context, vocabulary, parameters, sizes, per-layer
// cache kinds, tensor groups, split parts and caveats.
#include "commands.h"
#include "text_file.h"

#include "arch/shape_from_gguf.h"
#include "gguf/gguf_reader.h"
#include "launch/llama_version.h"
#include "model_open.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

namespace headroom::cli {
namespace {

std::string formatCount(std::uint64_t n) {
    char buf[32];
    if (n >= 1000000000ull)
        std::snprintf(buf, sizeof buf, "%.2f B", double(n) / 1e9);
    else if (n >= 1000000ull)
        std::snprintf(buf, sizeof buf, "%.2f M", double(n) / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(n));
    return buf;
}

struct Groups {
    Bytes attn = 0, ffn = 0, experts = 0, mtp = 0;
};

Groups blockGroups(const ModelShape& s) {
    Groups g;
    for (const auto& l : s.layers) {
        if (l.is_mtp) {
            g.mtp = satAdd(g.mtp, satAdd(satAdd(l.attn_bytes, l.ffn_bytes), l.experts_bytes));
            continue;
        }
        g.attn = satAdd(g.attn, l.attn_bytes);
        g.ffn = satAdd(g.ffn, l.ffn_bytes);
        g.experts = satAdd(g.experts, l.experts_bytes);
    }
    return g;
}

// "52 swa, 10 full" in the order kinds first appear.
std::string kindCounts(const ModelShape& s) {
    std::vector<std::pair<std::string, int>> counts;
    for (const auto& l : s.layers) {
        std::string k = attentionKindName(l.attention);
        if (l.attention != AttentionKind::Recurrent && layerHasRecurrentState(l)) k += "+recurrent";
        auto it =
            std::find_if(counts.begin(), counts.end(), [&](const auto& p) { return p.first == k; });
        if (it == counts.end())
            counts.emplace_back(k, 1);
        else
            ++it->second;
    }
    std::string out;
    for (const auto& [k, n] : counts)
        out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + k;
    return out;
}

std::vector<std::string> warningsOf(const ModelShape& s, const GgufModel& m) {
    std::vector<std::string> w;
    if (s.conservative)
        w.push_back("architecture '" + s.architecture +
                    "' has no exact rules: the shape is conservative (every layer full attention)");
    if (!m.complete)
        w.push_back("split model incomplete: " + std::to_string(m.missing_parts.size()) +
                    " part(s) missing");
    return w;
}

std::uint32_t indexedLayers(const ModelShape& s) {
    std::uint32_t n = 0;
    for (const auto& l : s.layers)
        n += l.n_embd_indexer_k > 0 || l.n_embd_comp_indexer_k > 0 ? 1 : 0;
    return n;
}

// Whether build v keeps the nextn blocks' KV in the main cache (else only an MTP draft context
// caches it): the shape's own v0.5.0 layout, unless the build does not filter this architecture.
bool nextnInMainCache(const ModelShape& s, LlamaVersion v) {
    if (s.nextn_default_filter && !llamaProfile(v).filtersNextn(s.architecture)) return true;
    for (const auto& l : s.layers)
        if (l.is_mtp && !l.in_main_cache) return false;
    return true;
}

nlohmann::ordered_json toJson(const ModelShape& s, const GgufModel& m) {
    using json = nlohmann::ordered_json;
    const Groups g = blockGroups(s);
    json layers = json::array();
    for (std::uint32_t il = 0; il < s.nLayer(); ++il) {
        const auto& l = s.layers[il];
        layers.push_back({{"index", il},
                          {"kind", attentionKindName(l.attention)},
                          {"n_head", l.n_head},
                          {"n_head_kv", l.n_head_kv},
                          {"n_embd_k_gqa", l.n_embd_k_gqa},
                          {"n_embd_v_gqa", l.n_embd_v_gqa},
                          {"recurrent_r", l.recurrent_r},
                          {"recurrent_s", l.recurrent_s},
                          {"attn_bytes", l.attn_bytes},
                          {"ffn_bytes", l.ffn_bytes},
                          {"experts_bytes", l.experts_bytes},
                          {"n_embd_indexer_k", l.n_embd_indexer_k},
                          {"n_embd_indexer_v", l.n_embd_indexer_v},
                          {"compress_ratio", l.compress_ratio},
                          {"n_embd_comp_k", l.n_embd_comp_k},
                          {"n_embd_comp_indexer_k", l.n_embd_comp_indexer_k},
                          {"is_mtp", l.is_mtp},
                          {"in_main_cache", l.in_main_cache}});
    }
    // Where each llama.cpp build keeps the nextn blocks' KV (LlamaProfile::filtersNextn).
    json mtp_cache = json::object();
    if (s.n_mtp_layers > 0)
        for (LlamaVersion v : allLlamaVersions())
            mtp_cache[llamaVersionName(v)] = nextnInMainCache(s, v) ? "main" : "draft";
    json found = json::array();
    for (const auto& p : m.parts)
        found.push_back(p.path);
    return json{{"schema", "headroom.inspect/1"},
                {"path", m.path},
                {"architecture", s.architecture},
                {"exact_rules", !s.conservative},
                {"conservative", s.conservative},
                {"name", s.name},
                {"quant", s.quant},
                {"n_ctx_train", s.n_ctx_train},
                {"n_vocab", s.n_vocab},
                {"n_embd", s.n_embd},
                {"n_ff", s.n_ff},
                {"n_ff_exp", s.n_ff_exp},
                {"n_params", s.n_params},
                {"n_layer", s.nLayer()},
                {"n_swa", s.n_swa},
                {"n_mtp_layers", s.n_mtp_layers},
                {"mtp_kv_cache", mtp_cache},
                {"indexer",
                 {{"n_head", s.indexer_n_head},
                  {"head_size", s.indexer_head_size},
                  {"top_k", s.indexer_top_k},
                  {"n_indexed_layers", indexedLayers(s)}}},
                {"rope_scaling",
                 {{"type", s.rope_scaling_type},
                  {"factor", s.rope_scaling_factor},
                  {"original_context", s.rope_orig_ctx}}},
                {"moe",
                 {{"n_expert", s.moe.n_expert},
                  {"n_expert_used", s.moe.n_expert_used},
                  {"n_expert_shared", s.moe.n_expert_shared},
                  {"n_moe_layers", s.nMoeLayers()},
                  {"bytes_per_expert", s.bytesPerExpert()}}},
                {"file_bytes", s.file_bytes},
                {"weight_bytes", s.weightBytes()},
                {"groups",
                 {{"token_embd", s.token_embd_bytes},
                  {"per_layer_embd", s.per_layer_embd_bytes},
                  {"output", s.output_bytes},
                  {"output_tied_to_embd", s.output_tied_to_embd},
                  {"attention", g.attn},
                  {"ffn", g.ffn},
                  {"experts", g.experts},
                  {"mtp_blocks", g.mtp},
                  {"other", s.other_bytes}}},
                {"layer_runs", describeLayerRuns(s)},
                {"layers", layers},
                {"parts",
                 {{"count", m.parts.size() + m.missing_parts.size()},
                  {"found", found},
                  {"missing", m.missing_parts},
                  {"complete", m.complete}}},
                {"notes", s.notes},
                {"warnings", warningsOf(s, m)}};
}

void printText(std::ostream& os, const ModelShape& s, const GgufModel& m) {
    auto row = [&](const char* label, const std::string& value) {
        char buf[24];
        std::snprintf(buf, sizeof buf, "  %-14s", label);
        os << buf << value << "\n";
    };
    auto bytes = [](Bytes b) { return formatBytes(b) + " (" + std::to_string(b) + " B)"; };
    const Groups g = blockGroups(s);

    os << m.path << "\n";
    row("architecture",
        s.architecture + (s.conservative ? "  (no exact rules: conservative shape)" : ""));
    if (!s.name.empty()) row("name", s.name);
    row("quant", s.quant.empty() ? "unknown" : s.quant);
    row("trained ctx",
        s.n_ctx_train ? std::to_string(s.n_ctx_train) + " (" + formatTokens(s.n_ctx_train) + ")"
                      : "unknown");
    row("vocab", std::to_string(s.n_vocab));
    row("parameters", formatCount(s.n_params));
    row("file size", bytes(s.file_bytes));
    row("weights", bytes(s.weightBytes()) + " loaded");
    row("layers", std::to_string(s.nLayer()) + ": " + kindCounts(s));
    row("layer kinds", describeLayerRuns(s));
    if (s.n_swa) row("window", std::to_string(s.n_swa) + " tokens");
    if (!s.rope_scaling_type.empty()) {
        std::ostringstream rope;
        rope << s.rope_scaling_type;
        if (s.rope_scaling_factor > 0) rope << " x" << s.rope_scaling_factor;
        if (s.rope_orig_ctx) rope << " of " << s.rope_orig_ctx << " original tokens";
        row("rope scaling", rope.str());
    }
    if (s.indexer_head_size > 0)
        row("indexer", std::to_string(s.indexer_n_head) + " heads x " +
                           std::to_string(s.indexer_head_size) + ", top-k " +
                           std::to_string(s.indexer_top_k) + "; keys cached on " +
                           std::to_string(indexedLayers(s)) + " layers");

    // Distinct K/V and state widths, so the cache price can be checked by hand.
    std::vector<std::pair<std::string, std::string>> widths;
    auto addWidth = [&](std::string label, std::string text) {
        const std::pair<std::string, std::string> w{std::move(label), std::move(text)};
        if (std::find(widths.begin(), widths.end(), w) == widths.end()) widths.push_back(w);
    };
    for (const auto& l : s.layers) {
        if (layerHasKv(l)) {
            const bool mla = l.attention == AttentionKind::Mla;
            addWidth(attentionKindName(l.attention),
                     "K " + std::to_string(l.n_embd_k_gqa) +
                         (mla ? " (latent), no V" : ", V " + std::to_string(l.n_embd_v_gqa)) +
                         " elements per token");
        }
        if (l.compress_ratio > 0)
            addWidth("comp " + std::to_string(l.compress_ratio) + ":1",
                     "K " + std::to_string(l.n_embd_comp_k) +
                         (l.n_embd_comp_indexer_k > 0
                              ? " + indexer K " + std::to_string(l.n_embd_comp_indexer_k)
                              : std::string()) +
                         " elements per compressed row");
        if (l.n_embd_indexer_k > 0)
            addWidth("indexer",
                     "K " + std::to_string(l.n_embd_indexer_k) +
                         (l.n_embd_indexer_v > 0 ? ", V " + std::to_string(l.n_embd_indexer_v)
                                                 : std::string(", no V")) +
                         " elements per token");
        if (layerHasRecurrentState(l))
            addWidth("state", "r " + std::to_string(l.recurrent_r) + ", s " +
                                  std::to_string(l.recurrent_s) + " f32 elements per sequence");
    }
    for (const auto& [k, w] : widths)
        row(("  " + k).c_str(), w);

    if (s.isMoe()) {
        std::string moe = std::to_string(s.moe.n_expert) + " experts, " +
                          std::to_string(s.moe.n_expert_used) + " active";
        if (s.moe.n_expert_shared) moe += ", " + std::to_string(s.moe.n_expert_shared) + " shared";
        moe += "; " + std::to_string(s.nMoeLayers()) + " MoE layers, " +
               formatBytes(s.bytesPerExpert()) + " per expert per layer";
        row("experts", moe);
    }
    if (s.n_mtp_layers) {
        std::string where;
        for (LlamaVersion v : allLlamaVersions())
            where += std::string(where.empty() ? "" : ", ") + llamaVersionName(v) +
                     (nextnInMainCache(s, v) ? " main cache" : " draft context only");
        row("MTP blocks",
            std::to_string(s.n_mtp_layers) + " (" + formatBytes(g.mtp) + "); KV in " + where);
    }

    os << "  tensor groups\n";
    row("  token_embd", bytes(s.token_embd_bytes));
    if (s.per_layer_embd_bytes)
        row("  per-layer emb", bytes(s.per_layer_embd_bytes) + "  (input layer: host memory)");
    row("  output", bytes(s.output_bytes) +
                        (s.output_tied_to_embd ? "  (tied: second copy of token_embd)" : ""));
    row("  attention", bytes(g.attn));
    row("  ffn/shared", bytes(g.ffn));
    if (g.experts) row("  experts", bytes(g.experts));
    if (g.mtp) row("  mtp blocks", bytes(g.mtp) + "  (skipped unless MTP is on)");
    row("  other", bytes(s.other_bytes));

    const std::size_t count = m.parts.size() + m.missing_parts.size();
    if (count > 1) {
        std::string parts =
            std::to_string(m.parts.size()) + " of " + std::to_string(count) + " found";
        for (const auto& p : m.missing_parts)
            parts += "; missing " + p;
        row("split parts", parts);
    }
    for (const auto& w : warningsOf(s, m))
        os << "  warning: " << w << "\n";
    for (const auto& n : s.notes)
        os << "  note: " << n << "\n";
}

struct InspectArgs {
    std::string model;
    bool json = false;
};

const CommandRegistrar registrar{
    "inspect", "Show a GGUF model's header, architecture and per-layer shape", [](CLI::App& sub) {
        auto args = std::make_shared<InspectArgs>();
        sub.add_option("model", args->model,
                       "GGUF model file (the first part of a split model is enough)")
            ->required();
        sub.add_flag("--json", args->json, "Print one JSON object (schema headroom.inspect/1)");
        sub.footer("Exit codes: 0 ok, 2 bad arguments, 3 unreadable or malformed file.");
        return std::function<int()>([args]() {
            auto model = openModelHeader(args->model); // a file, https:// or hf:
            if (!model)
                return fail("inspect", model.error().message,
                            model.error().code == ErrorCode::InvalidArgument
                                ? kExitBadArguments
                                : kExitUnreadableInput);
            auto shape = shapeFromGguf(*model);
            if (!shape) return fail("inspect", shape.error().message, kExitUnreadableInput);
            if (args->json)
                std::cout << dumpJson(toJson(*shape, *model)) << "\n";
            else
                printText(std::cout, *shape, *model);
            return kExitOk;
        });
    }};

} // namespace
} // namespace headroom::cli
