#include "launch/llama_version.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <string>

namespace headroom {

const char* llamaVersionName(LlamaVersion v) {
    switch (v) {
    case LlamaVersion::V0_4_0:
        return "v0.4.0";
    case LlamaVersion::V0_5_0:
        return "v0.5.0";
    }
    return "v0.5.0";
}

std::vector<LlamaVersion> allLlamaVersions() {
    return {LlamaVersion::V0_4_0, LlamaVersion::V0_5_0};
}

Result<LlamaVersion> parseLlamaVersion(std::string_view text) {
    for (LlamaVersion v : allLlamaVersions()) {
        const std::string_view name = llamaVersionName(v);
        if (text == name || text == name.substr(1)) return v;
    }
    return makeError(ErrorCode::InvalidArgument,
                     "--llama-version '" + std::string(text) +
                         "' is not a llama.cpp build "
                         "Headroom knows",
                     "accepted: v0.5.0 (node-llama-cpp 3.22.1, the default) or v0.4.0 "
                     "(node-llama-cpp 3.21.1)");
}

const char* loadModeName(LoadMode m) {
    switch (m) {
    case LoadMode::Auto:
        return "auto";
    case LoadMode::None:
        return "none";
    case LoadMode::Mmap:
        return "mmap";
    case LoadMode::Mlock:
        return "mlock";
    case LoadMode::MmapMlock:
        return "mmap+mlock";
    case LoadMode::DirectIo:
        return "dio";
    }
    return "auto";
}

Result<LoadMode> parseLoadMode(std::string_view text) {
    for (LoadMode m : {LoadMode::Auto, LoadMode::None, LoadMode::Mmap, LoadMode::Mlock,
                       LoadMode::MmapMlock, LoadMode::DirectIo})
        if (text == loadModeName(m)) return m;
    return makeError(ErrorCode::InvalidArgument,
                     "--load-mode '" + std::string(text) + "' is not valid",
                     "accepted: auto, none, mmap, mlock, mmap+mlock, dio");
}

bool LlamaProfile::accepts(std::string_view flag) const {
    return std::find(removed_flags.begin(), removed_flags.end(), flag) == removed_flags.end();
}

bool LlamaProfile::filtersNextn(std::string_view arch) const {
    return nextn_filtered_everywhere ||
           std::find(nextn_filtered_archs.begin(), nextn_filtered_archs.end(), arch) !=
               nextn_filtered_archs.end();
}

bool LlamaProfile::buildsMtpGraph(std::string_view arch) const {
    return std::find(mtp_graph_archs.begin(), mtp_graph_archs.end(), arch) != mtp_graph_archs.end();
}

bool LlamaProfile::supportsRsRollback(std::string_view arch) const {
    return std::find(rs_rollback_archs.begin(), rs_rollback_archs.end(), arch) !=
           rs_rollback_archs.end();
}

const LlamaProfile& llamaProfile(LlamaVersion v) {
    // GGUF architecture names (src/llama-arch.cpp LLM_ARCH_NAMES) of llm_arch_supports_rs_rollback.
    static const std::vector<std::string> rollback040 = {
        "qwen35",         "qwen35moe", "qwen4exp", "deepseek4",  "nemotron_h",
        "nemotron_h_moe", "lfm2",      "lfm2moe",  "bailingmoe3"};
    // GGUF names of the classes whose build_graph has a DECODER_MTP branch, the same 14 files of
    // src/models/ in 80fb11ac and de3ff815 (grep LLM_GRAPH_TYPE_DECODER_MTP): bailingmoe3,
    // cohere2moe, deepseek2 (llama_model_deepseek2, not deepseek2ocr), deepseek32, deepseek4,
    // glm-dsa, glm4-moe, hy-v3, mimo2, nemotron-h-moe, qwen35, qwen35moe, qwen3next, step35.
    static const std::vector<std::string> mtp_graphs = {
        "bailingmoe3", "cohere2moe", "deepseek2", "deepseek32", "deepseek4",
        "glm-dsa",     "glm4moe",    "hy_v3",     "mimo2",      "nemotron_h_moe",
        "qwen35",      "qwen35moe",  "qwen3next", "step35"};
    static const LlamaProfile v040{LlamaVersion::V0_4_0,
                                   "3.21.1",
                                   "80fb11ac",
                                   {},
                                   false,
                                   4,
                                   true,
                                   1024,
                                   4096,
                                   false,
                                   {"step35", "hy_v3", "glm-dsa", "mimo2", "deepseek32"},
                                   rollback040,
                                   mtp_graphs,
                                   false};
    static const LlamaProfile v050{
        LlamaVersion::V0_5_0,
        "3.22.1",
        "de3ff815",
        {"--mlock", "--mmap", "--no-mmap", "-dio", "--direct-io", "-ndio", "--no-direct-io"},
        true,
        4,
        true,
        1024,
        4096,
        true,
        {},
        [] {
            std::vector<std::string> r = rollback040;
            r.emplace_back("kimi-k3");
            return r;
        }(),
        mtp_graphs,
        true};
    return v == LlamaVersion::V0_4_0 ? v040 : v050;
}

std::uint32_t recurrentSnapshots(const LlamaProfile& p, std::string_view arch, bool mtp,
                                 std::uint32_t draft_n_max) {
    return mtp && p.supportsRsRollback(arch) ? draft_n_max : 0;
}

std::uint32_t fitUnsetContext(const LlamaProfile& p, std::uint32_t n_ctx_train,
                              std::uint32_t n_seq_max, bool kv_unified) {
    const std::uint64_t seqs = std::max<std::uint32_t>(1, n_seq_max);
    const std::uint64_t counted = p.fit_unset_ctx_counts_every_sequence ? seqs
                                  : kv_unified                          ? 1
                                                                        : seqs;
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(
        std::uint64_t(n_ctx_train) * counted, std::numeric_limits<std::uint32_t>::max()));
}

OlderBuildGraph olderBuildGraph(std::uint32_t build) {
    OlderBuildGraph g;
    g.kq_mask_f32_cast = build < kFirstBuildWithF16KqMask;
    g.one_kv_stream = build < kFirstBuildWithKvStreams;
    g.ngl_excludes_output = build <= kLastBuildKnownNglExcludingOutput;
    return g;
}

Result<std::uint32_t> parseLlamaBuild(std::string_view text) {
    std::uint32_t v = 0;
    const char* end = text.data() + text.size();
    // `llama-server --version` prints "version: 6699 (c08002a1)"; release tags are "b6699".
    const char* begin = text.data() + (!text.empty() && text.front() == 'b' ? 1 : 0);
    const auto [ptr, ec] = std::from_chars(begin, end, v);
    if (begin == end || ec != std::errc{} || ptr != end || v == 0 || v > 999999)
        return makeError(ErrorCode::InvalidArgument,
                         "--llama-build: '" + std::string(text) + "' is not a build number",
                         "give the number `llama-server --version` prints (6699) or its release "
                         "tag (b6699)");
    return v;
}

} // namespace headroom
