#include "arch/shape_from_gguf.h"

#include "arch/layer_rules.h"
#include "launch/llama_version.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>
#include <string_view>

namespace headroom {

namespace {

// llama.cpp refuses more blocks than this (src/llama-hparams.h LLAMA_MAX_LAYERS, asserted in
// llama_model_base::load_hparams). Not a knob: a file claiming more is not loadable.
inline constexpr std::uint32_t kMaxLayers = 512;

// ---------------------------------------------------------------------------------------------
// Metadata access with llama.cpp's semantics (src/llama-model-loader.cpp get_key,
// get_key_or_arr, get_arr_n). The first problem sticks in `err`; readers return false after it.
class Meta {
public:
    Meta(const ShapeInput& in, std::string arch) : in_(in), arch_(std::move(arch)) {}

    std::string key(std::string_view suffix) const { return arch_ + "." + std::string(suffix); }
    const std::string& arch() const { return arch_; }
    const GgufValue* find(const std::string& full) const {
        auto it = in_.meta.find(full);
        return it == in_.meta.end() ? nullptr : &it->second;
    }
    bool has(std::string_view suffix) const { return find(key(suffix)) != nullptr; }

    // get_key<uint32_t>: a scalar integer. Missing: false (an error when required).
    bool u32(std::string_view suffix, std::uint32_t& out, bool required = false) {
        return u32Full(key(suffix), out, required);
    }
    bool u32Full(const std::string& k, std::uint32_t& out, bool required) {
        if (err) return false;
        const GgufValue* v = find(k);
        if (!v) {
            if (required) fail(k, "required key is missing (llama.cpp refuses to load the file)");
            return false;
        }
        const auto n = v->asUInt();
        if (!n || *n > UINT32_MAX) {
            fail(k, std::string("has type ") + std::string(ggufValueTypeName(v->type())) +
                        ", expected an unsigned 32-bit integer");
            return false;
        }
        out = static_cast<std::uint32_t>(*n);
        return true;
    }

    bool boolean(std::string_view suffix, bool& out) {
        if (err) return false;
        const GgufValue* v = find(key(suffix));
        if (!v) return false;
        const auto b = v->asBool();
        if (!b) {
            fail(key(suffix), "has the wrong type, expected a bool");
            return false;
        }
        out = *b;
        return true;
    }

    // get_key_or_arr(kid, uint32_t&): a scalar; an array is silently ignored (returns false),
    // which is why gemma3's period keeps its default when the file carries a per-layer array.
    bool scalarOrIgnoreArray(std::string_view suffix, std::uint32_t& out) {
        const GgufValue* v = find(key(suffix));
        if (v && v->type() == GgufValueType::Array) return false;
        return u32(suffix, out);
    }

    // get_key_or_arr(kid, std::array&, n): an array of exactly n integers/bools, or a scalar
    // repeated n times. Entries past n are left as they were.
    bool perLayer(std::string_view suffix, std::vector<std::uint32_t>& out, std::uint32_t n,
                  bool required = false) {
        if (err) return false;
        const std::string k = key(suffix);
        const GgufValue* v = find(k);
        if (!v) {
            if (required) fail(k, "required key is missing (llama.cpp refuses to load the file)");
            return false;
        }
        if (out.size() < n) out.resize(n, 0);
        if (const GgufArray* a = v->asArray()) {
            if (a->size() != n) {
                fail(k, "has " + std::to_string(a->size()) + " entries, expected one per layer (" +
                            std::to_string(n) + ")");
                return false;
            }
            const GgufValueType et = a->elementType();
            const bool ok = et == GgufValueType::Bool || et == GgufValueType::UInt32 ||
                            et == GgufValueType::Int32;
            if (!ok) {
                fail(k, std::string("is an array of ") + std::string(ggufValueTypeName(et)) +
                            ", expected u32, i32 or bool elements");
                return false;
            }
            for (std::uint32_t i = 0; i < n; ++i) {
                if (et == GgufValueType::Bool) {
                    out[i] = a->boolAt(i).value_or(false) ? 1 : 0;
                } else {
                    const std::int64_t x = a->intAt(i).value_or(0);
                    // An i32 array is read into uint32_t storage by llama.cpp: negatives wrap.
                    out[i] = static_cast<std::uint32_t>(x);
                }
            }
            return true;
        }
        std::uint32_t scalar = 0;
        if (!u32Full(k, scalar, required)) return false;
        std::fill(out.begin(), out.begin() + n, scalar);
        return true;
    }

    // get_arr_n: the length of an array key (tokenizer.ggml.tokens).
    bool arrayLength(const std::string& full, std::uint64_t& out) const {
        const GgufValue* v = find(full);
        if (!v || !v->asArray()) return false;
        out = v->asArray()->size();
        return true;
    }

    void fail(const std::string& k, const std::string& what) {
        if (!err)
            err = makeError(ErrorCode::ParseError, in_.id + ": metadata key '" + k + "' " + what);
    }

    std::optional<Error> err;

private:
    const ShapeInput& in_;
    std::string arch_;
};

// ---------------------------------------------------------------------------------------------
// The subset of llama_hparams (src/llama-hparams.h) that decides what is cached per layer.
enum class SwaType { None, Standard, Chunked };

struct Hparams {
    std::uint32_t n_ctx_train = 0;
    std::uint32_t n_embd = 0;
    std::uint32_t n_layer_all = 0;
    std::uint32_t n_layer_nextn = 0;
    std::uint32_t n_expert = 0;
    std::uint32_t n_expert_shared = 0;
    std::vector<std::uint32_t> n_head, n_head_kv, n_ff, n_ff_exp, n_expert_used, is_swa, is_recr;
    std::uint32_t head_k_full = 0, head_v_full = 0, head_k_swa = 0, head_v_swa = 0;
    std::uint32_t mla_k = 0, mla_v = 0;        // n_embd_head_{k,v}_mla_impl
    std::uint32_t n_lora_q = 0, n_lora_kv = 0; // DeepSeek-2 (the graph skeletons)
    std::int32_t n_layer_kv_from_start = -1;
    SwaType swa_type = SwaType::None;
    std::uint32_t n_swa = 0;
    std::uint32_t ssm_d_conv = 0, ssm_d_inner = 0, ssm_d_state = 0, ssm_n_group = 0;
    std::uint32_t ssm_dt_rank = 0; // ssm.time_step_rank (SSM heads; the graph skeletons)
    std::uint32_t shortconv_l_cache = 0;
    std::uint32_t wkv_head_size = 0, token_shift_count = 2;
    std::uint32_t n_embd_head_kda = 0; // Kimi delta attention head size (kda.head_dim)
    std::uint32_t n_embd_head_la = 0;  // MiniMax-01 lightning attention head size
    // DSA lightning indexer: key head size and the layers whose indexer keys are cached
    // (create_memory's filter_lid).
    std::uint32_t indexer_head_size = 0;
    std::uint32_t indexer_n_head = 0, indexer_top_k = 0; // attention.indexer.head_count / top_k
    std::uint32_t indexer_head_v = 0; // V width of the indexer cache (MSA: not MLA), 0 = none
    std::vector<std::uint32_t> has_indexer;
    // DeepSeek-V4 attention.compress_ratios: per layer 0 (raw only), 4 (CSA) or 128 (HCA).
    std::vector<std::uint32_t> compress_ratio;
    // Qwen4-Exp's PLE n-gram history: the layer it lives on and its f32 row per sequence
    // (llama_hparams::ple_conv_state()); 0 = none.
    std::uint32_t ple_layer = UINT32_MAX;
    std::uint64_t ple_conv_state = 0;

    std::uint32_t nLayer() const { return n_layer_all - n_layer_nextn; } // n_layer()
    std::uint32_t nHead0() const { return n_head.empty() ? 0 : n_head[0]; }

    // llama_hparams::set_swa_pattern (src/llama-hparams.cpp). Layers past n_layer() (nextn) are
    // never SWA.
    void setSwaPattern(std::uint32_t n_pattern, bool dense_first = false) {
        for (std::uint32_t il = 0; il < n_layer_all; ++il)
            is_swa[il] = periodicPatternLayer(il, n_pattern, dense_first, nLayer());
    }
    // llama_hparams::is_mla(): both MLA head sizes present.
    bool isMla() const { return mla_k != 0 && mla_v != 0; }
    // llama_hparams::n_embd_r() / n_embd_s() (src/llama-hparams.cpp), for the branches reachable
    // from the architectures in the table (RWKV, LFM2 short conv, Kimi KDA, MiniMax-01 lightning
    // attention, Mamba/Mamba-2/GDN), tested in llama.cpp's order.
    std::uint64_t nEmbdR() const {
        if (wkv_head_size != 0) return std::uint64_t{token_shift_count} * n_embd;
        if (shortconv_l_cache != 0) return std::uint64_t{n_embd} * (shortconv_l_cache - 1);
        if (n_embd_head_kda != 0) {
            // Conv state of Q, K and V: 3 x (d_conv - 1, or 3 without a kernel size) x n_head()
            // x head_dim.
            const std::uint64_t kda_conv = ssm_d_conv > 0 ? ssm_d_conv - 1 : 3;
            return 3ull * kda_conv * nHead0() * n_embd_head_kda;
        }
        const std::uint64_t conv = ssm_d_conv > 0 ? ssm_d_conv - 1 : 0;
        return conv * (std::uint64_t{ssm_d_inner} + 2ull * ssm_n_group * ssm_d_state);
    }
    std::uint64_t nEmbdS() const {
        if (wkv_head_size != 0) return std::uint64_t{n_embd} * wkv_head_size;
        // One head_dim x head_dim matrix per head (n_head() = layer 0's count).
        if (n_embd_head_kda != 0)
            return std::uint64_t{n_embd_head_kda} * n_embd_head_kda * nHead0();
        if (n_embd_head_la != 0) return std::uint64_t{n_embd_head_la} * n_embd_head_la * nHead0();
        return std::uint64_t{ssm_d_state} * ssm_d_inner;
    }
};

// How llama_model::create_memory (src/llama-model.cpp) builds the cache for an architecture.
enum class Memory {
    Kv, // llama_kv_cache / llama_kv_cache_iswa over every layer with has_kv(il)
    // The same, with v0.5.0's default-path filter: when n_layer_nextn > 0 the main cache keeps
    // il < n_layer() and the MTP draft context il >= n_layer() (create_memory, default branch;
    // llama_kv_cache_dsa's filter_mla does the same for DeepSeek-V3.2 / GLM-5).
    KvTrunkOnly,
    Recurrent,       // llm_arch_is_recurrent: llama_memory_recurrent over every layer
    Hybrid,          // llama_memory_hybrid default filters: attention = !is_recr, state = is_recr
    HybridAll,       // Falcon-H1: every layer has both a KV row and a recurrent state
    HybridNemotron,  // Nemotron-H: attention = !is_recr && n_ff == 0, state = is_recr && n_ff == 0
    HybridTrunkOnly, // Qwen3-Next / Qwen3.5: both filters also require il < n_layer()
    Dsv4,            // DeepSeek-V4: llama_kv_cache_dsv4 (src/llama-kv-cache-dsv4.cpp)
};

using ArchHook = void (*)(Meta&, Hparams&, std::vector<std::string>& notes);

struct ArchRule {
    const char* name; // GGUF general.architecture (src/llama-arch.cpp LLM_ARCH_NAMES)
    Memory memory;
    ArchHook hook; // the parts of load_arch_hparams that change the cache; nullptr: none do
    // The MTP draft context of this architecture caches the nextn blocks in a plain KV cache
    // (create_memory: mtp_on_hybrid_qwen / mtp_on_hybrid_nemotron).
    bool mtp_context_plain_cache = false;
    // create_memory builds this architecture's cache in a case of its own (deepseek32, glm-dsa,
    // dots3note, minimax-m3, hy_v4), not in the default branch whose nextn filter changed
    // between builds (LlamaProfile::filtersNextn).
    bool own_memory_branch = false;
};

// --- per-architecture hooks: each cites the function whose cache-relevant lines it mirrors ----

// src/models/gemma2.cpp llama_model_gemma2::load_arch_hparams: always SWA, window 4096 unless
// the file says otherwise, every 2nd layer full.
void hookGemma2(Meta& m, Hparams& hp, std::vector<std::string>&) {
    hp.swa_type = SwaType::Standard;
    hp.n_swa = 4096;
    std::uint32_t period = 2;
    m.scalarOrIgnoreArray("attention.sliding_window_pattern", period);
    hp.setSwaPattern(period);
    m.u32("attention.sliding_window", hp.n_swa);
}

// SWA only when the file carries a non-zero sliding_window; then set_swa_pattern(period) with
// the period from sliding_window_pattern (a scalar; an array is ignored) or the default:
//   src/models/gemma3.cpp llama_model_gemma3 (6), olmo2.cpp llama_model_olmo2 (4, OLMo 3),
//   afmoe.cpp llama_model_afmoe (4).
template <std::uint32_t DefaultPeriod>
void hookOptionalSwa(Meta& m, Hparams& hp, std::vector<std::string>&) {
    const bool found = m.u32("attention.sliding_window", hp.n_swa);
    if (found && hp.n_swa > 0) {
        hp.swa_type = SwaType::Standard;
        std::uint32_t period = DefaultPeriod;
        m.scalarOrIgnoreArray("attention.sliding_window_pattern", period);
        hp.setSwaPattern(period);
    } else {
        hp.swa_type = SwaType::None;
        hp.n_swa = 0;
    }
}

// src/models/smallthinker.cpp llama_model_smallthinker::load_arch_hparams: a non-zero window
// turns on SWA with a fixed 4096 window, dense-first period 4 (full at il % 4 == 0).
void hookSmallThinker(Meta& m, Hparams& hp, std::vector<std::string>&) {
    const bool found = m.u32("attention.sliding_window", hp.n_swa);
    if (found && hp.n_swa > 0) {
        hp.swa_type = SwaType::Standard;
        hp.n_swa = 4096;
        std::uint32_t period = 4;
        m.scalarOrIgnoreArray("attention.sliding_window_pattern", period);
        hp.setSwaPattern(period, true);
    } else {
        hp.swa_type = SwaType::None;
        hp.n_swa = 0;
    }
}

// src/models/exaone4.cpp llama_model_exaone4::load_arch_hparams: SWA (window 4096 unless the
// file says, period 4) only for the 64-layer 32B; other sizes are all full.
void hookExaone4(Meta& m, Hparams& hp, std::vector<std::string>&) {
    if (hp.nLayer() == 64) {
        hp.swa_type = SwaType::Standard;
        hp.n_swa = 4096;
        std::uint32_t period = 4;
        m.scalarOrIgnoreArray("attention.sliding_window_pattern", period);
        hp.setSwaPattern(period);
    }
    m.u32("attention.sliding_window", hp.n_swa);
}

// src/models/exaone-moe.cpp llama_model_exaone_moe::load_arch_hparams: always SWA, period 4,
// window required.
void hookExaoneMoe(Meta& m, Hparams& hp, std::vector<std::string>&) {
    hp.swa_type = SwaType::Standard;
    std::uint32_t period = 4;
    m.scalarOrIgnoreArray("attention.sliding_window_pattern", period);
    hp.setSwaPattern(period);
    m.u32("attention.sliding_window", hp.n_swa, true);
}

// src/models/granite-swa.cpp llama_model_granite_swa::load_arch_hparams: per-layer SWA flags
// from the sliding_window_pattern array (get_arr: a scalar is ignored), window required.
void hookGraniteSwa(Meta& m, Hparams& hp, std::vector<std::string>&) {
    const GgufValue* v = m.find(m.key("attention.sliding_window_pattern"));
    if (v && v->asArray())
        m.perLayer("attention.sliding_window_pattern", hp.is_swa,
                   static_cast<std::uint32_t>(v->asArray()->size()));
    if (hp.is_swa.size() > hp.n_layer_all) hp.is_swa.resize(hp.n_layer_all);
    m.u32("attention.sliding_window", hp.n_swa, true);
    hp.swa_type = SwaType::Standard;
}

// src/models/gemma3n.cpp llama_model_gemma3n::load_arch_hparams: period 5, window required,
// and n_layer_kv_from_start = 20: layers 20+ reuse the KV of layer 18 (SWA) or 19 (full)
// (create_memory's `reuse` callback) and allocate nothing.
void hookGemma3n(Meta& m, Hparams& hp, std::vector<std::string>& notes) {
    std::uint32_t period = 5;
    m.scalarOrIgnoreArray("attention.sliding_window_pattern", period);
    hp.swa_type = SwaType::Standard;
    hp.setSwaPattern(period);
    hp.n_layer_kv_from_start = 20;
    m.u32("attention.sliding_window", hp.n_swa, true);
    notes.push_back(
        "Gemma 3n: layers from 20 on reuse the KV cache of layers 18/19 and allocate none");
}

// src/models/gemma4.cpp llama_model_gemma4::load_arch_hparams: per-layer SWA flags (array or a
// scalar for all), separate SWA head sizes (required), and shared-KV tail layers.
void hookGemma4(Meta& m, Hparams& hp, std::vector<std::string>& notes) {
    hp.swa_type = SwaType::Standard;
    m.perLayer("attention.sliding_window_pattern", hp.is_swa, hp.nLayer());
    std::uint32_t shared = 0;
    m.u32("attention.shared_kv_layers", shared);
    hp.n_layer_kv_from_start =
        static_cast<std::int32_t>(hp.n_layer_all) - static_cast<std::int32_t>(shared);
    m.u32("attention.sliding_window", hp.n_swa, true);
    m.u32("attention.key_length_swa", hp.head_k_swa, true);
    m.u32("attention.value_length_swa", hp.head_v_swa, true);
    if (shared > 0)
        notes.push_back("Gemma 4: the last " + std::to_string(shared) +
                        " layers reuse earlier layers' KV cache and allocate none");
}

// src/models/openai-moe.cpp llama_model_openai_moe::load_arch_hparams (gpt-oss): window
// required, every 2nd layer full.
void hookGptOss(Meta& m, Hparams& hp, std::vector<std::string>&) {
    m.u32("attention.sliding_window", hp.n_swa, true);
    hp.swa_type = SwaType::Standard;
    std::uint32_t period = 2;
    m.scalarOrIgnoreArray("attention.sliding_window_pattern", period);
    hp.setSwaPattern(period);
}

// src/models/cohere2.cpp llama_model_cohere2::load_arch_hparams: window required, every 4th
// layer full.
void hookCohere2(Meta& m, Hparams& hp, std::vector<std::string>&) {
    hp.swa_type = SwaType::Standard;
    std::uint32_t period = 4;
    m.scalarOrIgnoreArray("attention.sliding_window_pattern", period);
    hp.setSwaPattern(period);
    m.u32("attention.sliding_window", hp.n_swa, true);
}

// src/models/llama4.cpp llama_model_llama4::load_arch_hparams: chunked attention with a fixed
// 8192 chunk (the file's window value is not used) on 3 of every 4 layers, unless the file
// sets sliding_window = 0 (then no SWA at all).
void hookLlama4(Meta& m, Hparams& hp, std::vector<std::string>& notes) {
    std::uint32_t window = 0;
    const bool found = m.u32("attention.sliding_window", window);
    if (found && window == 0) {
        hp.swa_type = SwaType::None;
        hp.n_swa = 0;
        return;
    }
    hp.swa_type = SwaType::Chunked;
    hp.n_swa = 8192;
    std::uint32_t period = 4;
    m.scalarOrIgnoreArray("attention.sliding_window_pattern", period);
    hp.setSwaPattern(period);
    notes.push_back("Llama 4: chunked attention (8192-token chunks); llama.cpp sizes those layers' "
                    "cache like a sliding window of 8192");
}

// src/models/phi3.cpp llama_model_phi3::load_arch_hparams: a sliding_window key is read but SWA
// is disabled (set_swa_pattern(1), swa_type NONE): every layer is full.
void hookPhi3(Meta& m, Hparams& hp, std::vector<std::string>& notes) {
    std::uint32_t window = 0;
    if (m.u32("attention.sliding_window", window) && window > 0)
        notes.push_back("Phi-3: the file asks for a sliding window but llama.cpp disables Phi SWA; "
                        "every layer caches the full context");
    hp.swa_type = SwaType::None;
    hp.n_swa = 0;
}

// src/models/deepseek2.cpp llama_model_deepseek2::load_arch_hparams: MLA when both
// key_length_mla and value_length_mla are present (is_mla()); the cache then holds one K-only
// latent row of key_length (kv_lora_rank + rope dims) x head_count_kv (1) and no V
// (llama_kv_cache constructor: has_v = !is_mla).
void hookDeepseek2(Meta& m, Hparams& hp, std::vector<std::string>& notes) {
    m.u32("attention.kv_lora_rank", hp.n_lora_kv, true);
    m.u32("attention.q_lora_rank", hp.n_lora_q);
    m.u32("attention.key_length_mla", hp.mla_k);
    m.u32("attention.value_length_mla", hp.mla_v);
    if (!hp.isMla())
        notes.push_back("DeepSeek-2 family without key_length_mla/value_length_mla (an older "
                        "conversion): llama.cpp caches full per-head K and V, not the MLA latent");
}

// SSM keys shared by the Mamba-2 style hybrids (mamba2, granitehybrid, falcon-h1, nemotron_h,
// qwen3next, qwen35): conv kernel, inner size, state size, group count (all required there).
void readSsm(Meta& m, Hparams& hp, bool with_groups) {
    m.u32("ssm.conv_kernel", hp.ssm_d_conv, true);
    m.u32("ssm.inner_size", hp.ssm_d_inner, true);
    m.u32("ssm.state_size", hp.ssm_d_state, true);
    if (with_groups) m.u32("ssm.group_count", hp.ssm_n_group, true);
    m.u32("ssm.time_step_rank", hp.ssm_dt_rank);
}

// src/models/mamba.cpp / mamba2.cpp load_arch_hparams: SSM only (mamba has no groups).
void hookMamba(Meta& m, Hparams& hp, std::vector<std::string>&) {
    readSsm(m, hp, false);
}
void hookMamba2(Meta& m, Hparams& hp, std::vector<std::string>&) {
    readSsm(m, hp, true);
}

// A layer is recurrent iff its head_count_kv is 0: src/models/jamba.cpp (no SSM groups),
// granite-hybrid.cpp load_arch_hparams.
void markRecurrentByZeroKvHeads(Hparams& hp) {
    for (std::uint32_t il = 0; il < hp.nLayer(); ++il)
        hp.is_recr[il] = hp.n_head_kv[il] == 0;
}
void hookJamba(Meta& m, Hparams& hp, std::vector<std::string>&) {
    readSsm(m, hp, false);
    markRecurrentByZeroKvHeads(hp);
}
void hookGraniteHybrid(Meta& m, Hparams& hp, std::vector<std::string>&) {
    readSsm(m, hp, true);
    markRecurrentByZeroKvHeads(hp);
}

// src/models/falcon-h1.cpp load_arch_hparams: every layer recurrent; create_memory gives every
// layer a KV row as well (filter_attn and filter_recr both accept all).
void hookFalconH1(Meta& m, Hparams& hp, std::vector<std::string>& notes) {
    readSsm(m, hp, true);
    std::fill(hp.is_recr.begin(), hp.is_recr.end(), 1u);
    notes.push_back("Falcon-H1: every layer runs attention and Mamba-2 in parallel, so each "
                    "caches a KV row and a recurrent state");
}

// src/models/nemotron-h.cpp llama_model_nemotron_h::load_arch_hparams: recurrent iff
// head_count_kv == 0 and feed_forward_length == 0, trunk layers only (MTP blocks are dense).
void hookNemotronH(Meta& m, Hparams& hp, std::vector<std::string>&) {
    readSsm(m, hp, true);
    for (std::uint32_t il = 0; il < hp.n_layer_all; ++il)
        hp.is_recr[il] = il < hp.nLayer() && hp.n_head_kv[il] == 0 && hp.n_ff[il] == 0;
    m.u32("expert_shared_count", hp.n_expert_shared);
}

// src/models/lfm2.cpp / lfm2moe.cpp load_arch_hparams: short-conv layers (head_count_kv 0)
// keep n_embd x (l_cache - 1) of state; lfm2 with a non-zero sliding_window makes every
// attention layer SWA.
void hookLfm2(Meta& m, Hparams& hp, std::vector<std::string>&) {
    m.u32("shortconv.l_cache", hp.shortconv_l_cache, true);
    markRecurrentByZeroKvHeads(hp);
    if (m.arch() == "lfm2" && m.u32("attention.sliding_window", hp.n_swa) && hp.n_swa > 0) {
        hp.swa_type = SwaType::Standard;
        for (std::uint32_t il = 0; il < hp.nLayer(); ++il)
            hp.is_swa[il] = !hp.is_recr[il];
    }
}

// Without attention.recurrent_layers, every layer but each full_attention_interval-th (the
// architecture's default when the key is absent) is recurrent; nextn blocks never are.
void recurrentBetweenFullAttention(Meta& m, Hparams& hp, std::uint32_t interval) {
    m.u32("full_attention_interval", interval);
    if (interval == 0) {
        m.fail(m.key("full_attention_interval"), "is 0 (llama.cpp would divide by zero)");
        return;
    }
    for (std::uint32_t il = 0; il < hp.n_layer_all; ++il)
        hp.is_recr[il] = periodicPatternLayer(il, interval, false, hp.nLayer());
}

// src/models/qwen3next.cpp / qwen35.cpp / qwen35moe.cpp load_arch_hparams: gated-delta-net
// layers from attention.recurrent_layers, else every layer but each full_attention_interval-th
// (default 4) is recurrent; nextn blocks are never recurrent.
void hookQwenNext(Meta& m, Hparams& hp, std::vector<std::string>&) {
    readSsm(m, hp, true);
    if (!m.perLayer("attention.recurrent_layers", hp.is_recr, hp.n_layer_all))
        recurrentBetweenFullAttention(m, hp, 4);
}

// src/models/rwkv6-base.cpp / rwkv7-base.cpp: WKV state and token shift (recurrent archs).
void hookRwkv(Meta& m, Hparams& hp, std::vector<std::string>&) {
    m.u32("wkv.head_size", hp.wkv_head_size, true);
    m.u32("token_shift_count", hp.token_shift_count);
}

// --- architectures added with llama.cpp v0.5.0 (de3ff815); each hook cites its
// load_arch_hparams, and the table entry the create_memory branch it follows ---------------------

// get_arr(key, std::array&) (src/llama-model-loader.cpp): per-layer flags, bool/u32/i32
// entries, up to LLAMA_MAX_LAYERS of them, copied over the first entries of `out` (the first
// `limit` kept); a scalar is not an array.
bool flagsArray(Meta& m, std::string_view suffix, std::vector<std::uint32_t>& out,
                std::uint32_t limit, bool required) {
    const std::string k = m.key(suffix);
    const GgufValue* v = m.find(k);
    if (!v || !v->asArray()) {
        if (required) m.fail(k, "must be an array of per-layer flags (llama.cpp refuses the file)");
        return false;
    }
    const auto n =
        static_cast<std::uint32_t>(std::min<std::size_t>(v->asArray()->size(), UINT32_MAX));
    if (n > kMaxLayers) {
        m.fail(k, "has more entries than llama.cpp's LLAMA_MAX_LAYERS");
        return false;
    }
    std::vector<std::uint32_t> flags;
    if (!m.perLayer(suffix, flags, n)) return false;
    for (std::uint32_t il = 0; il < std::min<std::uint32_t>(n, limit); ++il)
        out[il] = flags[il] != 0 ? 1 : 0;
    return true;
}
bool swaFlagsArray(Meta& m, Hparams& hp, bool required) {
    return flagsArray(m, "attention.sliding_window_pattern", hp.is_swa, hp.n_layer_all, required);
}

// llama_model_base::load_swa_pattern (src/llama-model.cpp): an array of per-layer flags wins;
// otherwise the scalar period (or the caller's default) through set_swa_pattern.
void loadSwaPattern(Meta& m, Hparams& hp, std::uint32_t period, bool dense_first) {
    if (swaFlagsArray(m, hp, false) || m.err) return;
    m.u32("attention.sliding_window_pattern", period);
    hp.setSwaPattern(period, dense_first);
}

// SWA only with a non-zero sliding_window, then load_swa_pattern(period, dense_first):
//   src/models/plamo3.cpp llama_model_plamo3 (8), mellum.cpp llama_model_mellum (4),
//   laguna.cpp llama_model_laguna (4, dense first: full at il % 4 == 0).
template <std::uint32_t Period, bool DenseFirst>
void hookOptionalSwaPattern(Meta& m, Hparams& hp, std::vector<std::string>&) {
    const bool found = m.u32("attention.sliding_window", hp.n_swa);
    if (found && hp.n_swa > 0) {
        hp.swa_type = SwaType::Standard;
        loadSwaPattern(m, hp, Period, DenseFirst);
    } else {
        hp.swa_type = SwaType::None;
        hp.n_swa = 0;
    }
}

// src/models/cohere2moe.cpp llama_model_cohere2moe::load_arch_hparams: always SWA, window
// required, load_swa_pattern(4, dense_first = true).
void hookCohere2Moe(Meta& m, Hparams& hp, std::vector<std::string>&) {
    m.u32("attention.sliding_window", hp.n_swa, true);
    hp.swa_type = SwaType::Standard;
    loadSwaPattern(m, hp, 4, true);
}

// Always SWA, window required, per-layer flags from the sliding_window_pattern array (get_arr,
// required): src/models/step35.cpp llama_model_step35, mimo2.cpp llama_model_mimo2,
// maple.cpp llama_model_maple.
void hookSwaFlagsRequired(Meta& m, Hparams& hp, std::vector<std::string>&) {
    hp.swa_type = SwaType::Standard;
    m.u32("attention.sliding_window", hp.n_swa, true);
    swaFlagsArray(m, hp, true);
}

// src/llama-model.cpp llama_model_base::load_hparams: hunyuan-dense / hunyuan_vl with
// expert_count <= 1 are dense (n_expert and every expert_used_count reset to 0); their
// load_arch_hparams (src/models/hunyuan-vl.cpp) reads nothing that changes the cache.
void hookHunyuanDense(Meta&, Hparams& hp, std::vector<std::string>&) {
    if (hp.n_expert <= 1) {
        hp.n_expert = 0;
        std::fill(hp.n_expert_used.begin(), hp.n_expert_used.end(), 0u);
    }
}

// The MLA keys DeepSeek-V3.2 and GLM-5 require (get_key without `false`), and the DSA
// lightning-indexer keys; both refuse a file without the MLA head sizes in load_arch_tensors
// ("... architecture requires MLA").
void readDsa(Meta& m, Hparams& hp) {
    std::uint32_t unused = 0;
    m.u32("attention.q_lora_rank", unused, true);
    m.u32("attention.kv_lora_rank", unused, true);
    m.u32("attention.key_length_mla", hp.mla_k);
    m.u32("attention.value_length_mla", hp.mla_v);
    m.u32("expert_shared_count", hp.n_expert_shared, true);
    m.u32("attention.indexer.head_count", hp.indexer_n_head, true);
    m.u32("attention.indexer.key_length", hp.indexer_head_size, true);
    m.u32("attention.indexer.top_k", hp.indexer_top_k, true);
    if (!m.err && !hp.isMla())
        m.fail(m.key("attention.key_length_mla"),
               "is missing (with value_length_mla): llama.cpp requires MLA for this architecture");
}

// src/models/deepseek32.cpp llama_model_deepseek32::load_arch_hparams + create_memory's
// LLM_ARCH_DEEPSEEK32 branch: llama_kv_cache_dsa, every trunk layer with an indexer key.
void hookDeepseek32(Meta& m, Hparams& hp, std::vector<std::string>& notes) {
    readDsa(m, hp);
    for (std::uint32_t il = 0; il < hp.nLayer(); ++il)
        hp.has_indexer[il] = 1;
    notes.push_back("DSA sparse attention: every layer also caches a " +
                    std::to_string(hp.indexer_head_size) +
                    "-wide indexer key per token (llama_kv_cache_dsa)");
}

// GLM-5.2's default indexer layout when the file has no indexer.types (src/models/glm-dsa.cpp
// GLM_5_2_DEFAULT_INDEXER_TYPES): layers 0 and 1, then every 4th from 2; zero past the table.
bool glm52DefaultIndexer(std::uint32_t il) {
    if (il >= 78) return false;
    return il < 2 || (il - 2) % 4 == 0;
}

// src/models/glm-dsa.cpp llama_model_glm_dsa::load_arch_hparams + create_memory's
// LLM_ARCH_GLM_DSA branch: llama_kv_cache_dsa whose filter_lid keeps trunk layers with
// is_indexer_full(il). GLM-5 / 5.1 (n_ctx_train < 1048576) index every layer; GLM-5.2 only the
// layers of its default table, unless attention.indexer.types (one per trunk layer) says.
void hookGlmDsa(Meta& m, Hparams& hp, std::vector<std::string>& notes) {
    readDsa(m, hp);
    const bool pre_5_2 = hp.n_ctx_train < 1048576;
    for (std::uint32_t il = 0; il < hp.nLayer(); ++il)
        hp.has_indexer[il] = pre_5_2 || glm52DefaultIndexer(il) ? 1 : 0;
    m.perLayer("attention.indexer.types", hp.has_indexer, hp.nLayer());
    std::uint32_t n_idx = 0;
    for (std::uint32_t il = 0; il < hp.nLayer(); ++il)
        n_idx += hp.has_indexer[il] != 0 ? 1 : 0;
    notes.push_back("DSA sparse attention: " + std::to_string(n_idx) + " of " +
                    std::to_string(hp.nLayer()) + " layers also cache a " +
                    std::to_string(hp.indexer_head_size) +
                    "-wide indexer key per token (llama_kv_cache_dsa)");
}

// src/models/hy-v4.cpp llama_model_hy_v4::load_arch_hparams + create_memory's LLM_ARCH_HY_V4
// branch: MLA required; with indexer.top_k > 0 a llama_kv_cache_dsa whose filter_lid keeps the
// layers flagged by indexer.types (default none; layer 0 must be one), else a plain cache.
void hookHyV4(Meta& m, Hparams& hp, std::vector<std::string>& notes) {
    std::uint32_t unused = 0, top_k = 0, n_idx_head = 0;
    m.u32("attention.q_lora_rank", unused, true);
    m.u32("attention.kv_lora_rank", unused, true);
    m.u32("attention.key_length_mla", hp.mla_k, true);
    m.u32("attention.value_length_mla", hp.mla_v, true);
    m.u32("expert_shared_count", hp.n_expert_shared, true);
    m.u32("attention.indexer.head_count", n_idx_head);
    m.u32("attention.indexer.key_length", hp.indexer_head_size);
    m.u32("attention.indexer.top_k", top_k);
    if (m.err || top_k == 0) {
        hp.indexer_head_size = 0;
        return;
    }
    hp.indexer_n_head = n_idx_head;
    hp.indexer_top_k = top_k;
    if (n_idx_head == 0 || hp.indexer_head_size == 0) {
        m.fail(m.key("attention.indexer.key_length"),
               "or the indexer head count is 0 with top_k set (llama.cpp refuses the file)");
        return;
    }
    m.perLayer("attention.indexer.types", hp.has_indexer, hp.nLayer());
    if (!m.err && hp.has_indexer[0] == 0) {
        m.fail(m.key("attention.indexer.types"),
               "leaves layer 0 without an indexer (llama.cpp refuses the file)");
        return;
    }
    std::uint32_t n_idx = 0;
    for (std::uint32_t il = 0; il < hp.nLayer(); ++il)
        n_idx += hp.has_indexer[il] != 0 ? 1 : 0;
    notes.push_back("DSA sparse attention: " + std::to_string(n_idx) + " of " +
                    std::to_string(hp.nLayer()) + " layers also cache a " +
                    std::to_string(hp.indexer_head_size) +
                    "-wide indexer key per token (llama_kv_cache_dsa)");
}

// src/models/nanbeige.cpp llama_model_nanbeige::load_arch_hparams: num_loops (default 1) runs
// the block stack that many times; n_layer_all becomes blocks x loops and each logical layer
// copies its block's head counts, FFN width and SWA/recurrent flags, so every loop keeps its own
// KV (the weights are shared: load_arch_tensors creates the physical blocks only).
void hookNanbeige(Meta& m, Hparams& hp, std::vector<std::string>& notes) {
    std::uint32_t loops = 1;
    m.u32("num_loops", loops);
    if (m.err || loops == 1) return;
    const std::uint32_t phys = hp.nLayer();
    if (loops == 0 || std::uint64_t{phys} * loops > kMaxLayers) {
        m.fail(m.key("num_loops"), "is " + std::to_string(loops) +
                                       ": llama.cpp asserts 1 <= loops and blocks x loops <= " +
                                       std::to_string(kMaxLayers));
        return;
    }
    const std::uint32_t all = phys * loops;
    for (auto* v : {&hp.n_head, &hp.n_head_kv, &hp.n_ff, &hp.n_ff_exp, &hp.n_expert_used,
                    &hp.is_swa, &hp.is_recr, &hp.has_indexer})
        v->resize(std::max<std::size_t>(v->size(), all), 0);
    for (std::uint32_t j = 1; j < loops; ++j)
        for (std::uint32_t i = 0; i < phys; ++i) {
            const std::uint32_t dst = i + j * phys;
            hp.n_head[dst] = hp.n_head[i];
            hp.n_head_kv[dst] = hp.n_head_kv[i];
            hp.n_ff[dst] = hp.n_ff[i];
            hp.is_swa[dst] = hp.is_swa[i];
            hp.is_recr[dst] = hp.is_recr[i];
        }
    hp.n_layer_all = all;
    notes.push_back("Nanbeige: " + std::to_string(loops) + " loops over " + std::to_string(phys) +
                    " blocks; each of the " + std::to_string(all) +
                    " logical layers caches its own KV, the weights are shared");
}

// src/models/dots3note.cpp llama_model_dots3note::load_arch_hparams + create_memory's
// LLM_ARCH_DOTS3NOTE branch: llama_kv_cache_dsa_iswa. MLA on both layer kinds (separate SWA
// latent sizes: key_length_swa), a window-sized cache for the sliding layers (is_swa from the
// required pattern array), a full one for the others, and indexer keys on the trunk layers that
// the required indexer.types array flags (the converter flags the full-attention layers).
void hookDots3Note(Meta& m, Hparams& hp, std::vector<std::string>& notes) {
    std::uint32_t unused = 0;
    m.u32("expert_shared_count", hp.n_expert_shared, true);
    m.u32("leading_dense_block_count", unused, true);
    m.u32("expert_gating_func", unused, true);
    m.u32("attention.q_lora_rank", unused, true);
    m.u32("attention.kv_lora_rank", unused, true);
    m.u32("attention.key_length_mla", hp.mla_k, true);
    m.u32("attention.value_length_mla", hp.mla_v, true);
    m.u32("attention.kv_lora_rank_swa", unused, true);
    m.u32("attention.key_length_mla_swa", unused, true);
    m.u32("attention.value_length_mla_swa", unused, true);
    hp.swa_type = SwaType::Standard;
    m.u32("attention.sliding_window", hp.n_swa, true);
    if (!m.err && !m.has("rope.freq_base_swa"))
        m.fail(m.key("rope.freq_base_swa"),
               "required key is missing (llama.cpp refuses to load the file)");
    swaFlagsArray(m, hp, true);
    m.u32("attention.indexer.head_count", hp.indexer_n_head, true);
    m.u32("attention.indexer.key_length", hp.indexer_head_size, true);
    m.u32("attention.indexer.top_k", hp.indexer_top_k, true);
    flagsArray(m, "attention.indexer.types", hp.has_indexer, hp.nLayer(), true);
    if (m.err) return;
    for (std::uint32_t il = 0; il < hp.nLayer(); ++il)
        if (hp.has_indexer[il] && hp.is_swa[il]) {
            // llama_kv_cache_dsa_iswa gives the indexer cache no window, and hparams_lid keeps
            // the SWA head size for SWA layers: a full-context row of key_length_swa there.
            notes.push_back("dots3note: layer " + std::to_string(il) +
                            " is sliding-window and indexed; its indexer row is priced as the "
                            "layer's window, llama.cpp keeps it for the whole context");
            break;
        }
}

// src/models/minimax-m3.cpp llama_model_minimax_m3::load_arch_hparams + create_memory's
// LLM_ARCH_MINIMAX_M3 branch: llama_kv_cache_msa, a plain cache over every layer (no nextn
// filter) plus an indexer cache over il >= leading_dense_block_count whose hparams copy has one
// head of indexer_head_size for K and, the model not being MLA, one head of the value length
// for V (llama_kv_cache ctor: has_v = !is_mla).
void hookMinimaxM3(Meta& m, Hparams& hp, std::vector<std::string>& notes) {
    std::uint32_t unused = 0, dense_lead = 0, block = 0;
    m.u32("leading_dense_block_count", dense_lead);
    m.u32("expert_shared_count", hp.n_expert_shared, true);
    m.u32("expert_gating_func", unused, true);
    m.u32("attention.indexer.head_count", hp.indexer_n_head, true);
    m.u32("attention.indexer.key_length", hp.indexer_head_size, true);
    m.u32("attention.indexer.top_k", hp.indexer_top_k, true);
    m.u32("attention.indexer.block_size", block, true);
    m.u32("attention.indexer.local_blocks", unused, true);
    if (m.err) return;
    if (block == 0) {
        m.fail(m.key("attention.indexer.block_size"), "is 0 (llama.cpp asserts it is not)");
        return;
    }
    hp.indexer_head_v = hp.head_v_full;
    for (std::uint32_t il = dense_lead; il < hp.n_layer_all; ++il)
        hp.has_indexer[il] = 1;
    notes.push_back("MSA sparse attention: layers from " + std::to_string(dense_lead) +
                    " on also cache a " + std::to_string(hp.indexer_head_size) +
                    "-wide indexer key and a " + std::to_string(hp.indexer_head_v) +
                    "-wide value per token (llama_kv_cache_msa)");
}

// Kimi delta attention hybrids: MLA attention layers and KDA layers (head_count_kv 0, trunk
// only) with the KDA conv/matrix state of llama_hparams::n_embd_r()/n_embd_s().
//   src/models/kimi-linear.cpp llama_model_kimi_linear::load_arch_hparams,
//   kimi-k3.cpp llama_model_kimi_k3::load_arch_hparams,
//   bailingmoe3.cpp llama_model_bailingmoe3::load_arch_hparams.
void hookKda(Meta& m, Hparams& hp, std::vector<std::string>&) {
    std::uint32_t unused = 0;
    m.u32("attention.key_length_mla", hp.mla_k, true);
    m.u32("attention.value_length_mla", hp.mla_v, true);
    m.u32("attention.kv_lora_rank", unused, true);
    m.u32("ssm.conv_kernel", hp.ssm_d_conv, true);
    m.u32("kda.head_dim", hp.n_embd_head_kda, true);
    markRecurrentByZeroKvHeads(hp);
}

// src/models/deepseek4.cpp llama_model_deepseek4::load_arch_hparams: sliding window (required),
// the indexer keys (required), attention.compress_ratios (an array at least block_count long,
// else "compress_ratios is shorter than block_count"), and every layer sliding
// (set_swa_pattern(0), nextn blocks included). The cache is create_memory's LLM_ARCH_DEEPSEEK4
// branch, llama_kv_cache_dsv4 (see buildLayers, Memory::Dsv4).
void hookDeepseek4(Meta& m, Hparams& hp, std::vector<std::string>& notes) {
    m.u32("attention.sliding_window", hp.n_swa, true);
    m.u32("attention.indexer.head_count", hp.indexer_n_head, true);
    m.u32("attention.indexer.key_length", hp.indexer_head_size, true);
    m.u32("attention.indexer.top_k", hp.indexer_top_k, true);
    if (m.err) return;
    const std::string k = m.key("attention.compress_ratios");
    const GgufValue* v = m.find(k);
    const GgufArray* a = v ? v->asArray() : nullptr;
    if (!a) {
        m.fail(k, "is missing or not an array (llama.cpp refuses the file)");
        return;
    }
    if (a->size() < hp.n_layer_all) {
        m.fail(k, "has " + std::to_string(a->size()) + " entries, fewer than block_count (" +
                      std::to_string(hp.n_layer_all) + "): llama.cpp refuses the file");
        return;
    }
    hp.compress_ratio.assign(hp.n_layer_all, 0);
    std::uint32_t n_csa = 0, n_hca = 0;
    for (std::uint32_t il = 0; il < hp.n_layer_all; ++il) {
        const std::uint64_t r = a->uintAt(il).value_or(0);
        hp.compress_ratio[il] = r == 4 || r == 128 ? static_cast<std::uint32_t>(r) : 0;
        n_csa += r == 4 ? 1 : 0;
        n_hca += r == 128 ? 1 : 0;
    }
    hp.swa_type = SwaType::Standard;
    std::fill(hp.is_swa.begin(), hp.is_swa.end(), 1u);
    notes.push_back("DeepSeek-V4 compressed attention (llama_kv_cache_dsv4): a " +
                    std::to_string(hp.n_swa) + "-token raw window on every layer, " +
                    std::to_string(n_csa) + " layers compressed 4:1 with indexer keys, " +
                    std::to_string(n_hca) +
                    " compressed 128:1, one cache stream per sequence even with --kv-unified");
}

// src/models/qwen4exp.cpp llama_model_qwen4exp::load_arch_hparams: gated-delta-net SSM keys
// (each required and non-zero), hyper-connections (count > 1, low_rank non-zero), the indexer
// (head count, key length, top-k required and non-zero), recurrent layers as Qwen3.5's, and the
// optional PLE n-gram module on one linear-attention layer. create_memory: llama_memory_hybrid_idx
// with the Qwen3-Next filters (il < n_layer()) and filter_idx = the trunk's attention layers, an
// indexer-key cache of one head of indexer key_length (K only) over the attention cells. The PLE
// conv history is one more f32 row of the recurrent cache on its layer (llama_memory_recurrent
// ctor: cache_ple_r, llama_hparams::ple_conv_state() = (conv_kernel - 1) x ngram_size x
// hc_count x n_embd).
void hookQwen4Exp(Meta& m, Hparams& hp, std::vector<std::string>& notes) {
    readSsm(m, hp, true);
    std::uint32_t dt_rank = 0, hc = 0, hc_low = 0;
    m.u32("ssm.time_step_rank", dt_rank, true);
    m.u32("hyper_connection.count", hc, true);
    m.u32("hyper_connection.low_rank", hc_low, true);
    m.u32("attention.indexer.head_count", hp.indexer_n_head, true);
    m.u32("attention.indexer.key_length", hp.indexer_head_size, true);
    m.u32("attention.indexer.top_k", hp.indexer_top_k, true);
    if (m.err) return;
    for (const auto& [key, v] : std::vector<std::pair<const char*, std::uint32_t>>{
             {"ssm.conv_kernel", hp.ssm_d_conv},
             {"ssm.inner_size", hp.ssm_d_inner},
             {"ssm.state_size", hp.ssm_d_state},
             {"ssm.time_step_rank", dt_rank},
             {"ssm.group_count", hp.ssm_n_group},
             {"hyper_connection.low_rank", hc_low},
             {"attention.indexer.head_count", hp.indexer_n_head},
             {"attention.indexer.key_length", hp.indexer_head_size},
             {"attention.indexer.top_k", hp.indexer_top_k}})
        if (v == 0) {
            m.fail(m.key(key), "is 0; llama.cpp requires it greater than zero");
            return;
        }
    if (hc <= 1) {
        m.fail(m.key("hyper_connection.count"), "must be greater than one (llama.cpp refuses it)");
        return;
    }
    if (!m.perLayer("attention.recurrent_layers", hp.is_recr, hp.n_layer_all))
        recurrentBetweenFullAttention(m, hp, 4);
    if (m.err) return;
    for (std::uint32_t il = 0; il < hp.nLayer(); ++il)
        hp.has_indexer[il] = hp.is_recr[il] ? 0 : 1;

    const GgufValue* ple = m.find(m.key("ple.layers"));
    const GgufArray* layers = ple ? ple->asArray() : nullptr;
    if (!layers || layers->size() == 0) return;
    if (layers->size() != 1) {
        m.fail(m.key("ple.layers"), "lists " + std::to_string(layers->size()) +
                                        " layers, but llama.cpp supports one PLE layer");
        return;
    }
    const std::uint64_t il = layers->uintAt(0).value_or(UINT64_MAX);
    std::uint32_t ngram = 0, kernel = 0, per_layer = 0, heads = 0;
    m.u32("ple.ngram_size", ngram, true);
    m.u32("ple.heads_per_ngram", heads, true);
    m.u32("ple.conv_kernel", kernel, true);
    m.u32("embedding_length_per_layer_input", per_layer, true);
    if (m.err) return;
    if (il >= hp.n_layer_all || !hp.is_recr[il]) {
        m.fail(m.key("ple.layers"),
               "names layer " + std::to_string(il) + ", not a linear-attention layer of the model");
        return;
    }
    if (kernel == 0 || per_layer == 0) {
        m.fail(m.key("ple.conv_kernel"), "or embedding_length_per_layer_input is 0");
        return;
    }
    hp.ple_layer = static_cast<std::uint32_t>(il);
    // ple_conv_state() is 0 without heads ((ngram - 1) x heads_per_ngram).
    if (ngram >= 2 && heads > 0)
        hp.ple_conv_state = std::uint64_t{kernel - 1} * ngram * hc * hp.n_embd;
    notes.push_back("PLE n-gram embeddings on layer " + std::to_string(il) + ": " +
                    std::to_string(hp.ple_conv_state) +
                    " more f32 state elements per sequence there");
}

// src/models/minimax-01.cpp llama_model_minimax_01::load_arch_hparams: lightning-attention
// layers (state head_dim^2 x n_head with head_dim = the attention key length) from
// attention.recurrent_layers, else all but every full_attention_interval-th (default 8).
void hookMinimax01(Meta& m, Hparams& hp, std::vector<std::string>&) {
    hp.n_embd_head_la = hp.head_k_full;
    if (!m.perLayer("attention.recurrent_layers", hp.is_recr, hp.n_layer_all) && !m.err)
        recurrentBetweenFullAttention(m, hp, 8);
}

// src/models/plamo2.cpp llama_model_plamo2::load_arch_hparams: Mamba-2 keys (groups
// required), recurrent iff head_count_kv == 0.
void hookPlamo2(Meta& m, Hparams& hp, std::vector<std::string>&) {
    readSsm(m, hp, true);
    markRecurrentByZeroKvHeads(hp);
}

// Architectures whose load_arch_hparams reads nothing that changes the cache get no hook: their
// shape is the generic load_hparams result (per-layer head_count_kv, key_length, value_length)
// and create_memory gives them the default llama_kv_cache. That list was checked by reading
// each src/models/<file>.cpp load_arch_hparams and create_memory's special cases.
#define HEADROOM_PLAIN(name)                                                                       \
    ArchRule {                                                                                     \
        name, Memory::Kv, nullptr                                                                  \
    }
const std::array kRules = {
    // Plain transformers (no SWA, no recurrent layers, no MLA, no shared KV).
    HEADROOM_PLAIN("apertus"), HEADROOM_PLAIN("arcee"), HEADROOM_PLAIN("arctic"),
    HEADROOM_PLAIN("baichuan"), HEADROOM_PLAIN("bailingmoe"), HEADROOM_PLAIN("bailingmoe2"),
    HEADROOM_PLAIN("bitnet"), HEADROOM_PLAIN("bloom"), HEADROOM_PLAIN("chameleon"),
    HEADROOM_PLAIN("chatglm"), HEADROOM_PLAIN("codeshell"), HEADROOM_PLAIN("command-r"),
    HEADROOM_PLAIN("dbrx"), HEADROOM_PLAIN("deci"), HEADROOM_PLAIN("deepseek"),
    HEADROOM_PLAIN("dots1"), HEADROOM_PLAIN("ernie4_5"), HEADROOM_PLAIN("ernie4_5-moe"),
    HEADROOM_PLAIN("exaone"), HEADROOM_PLAIN("falcon"), HEADROOM_PLAIN("gemma"),
    HEADROOM_PLAIN("glm4"), HEADROOM_PLAIN("glm4moe"), HEADROOM_PLAIN("gpt2"),
    HEADROOM_PLAIN("gptneox"), HEADROOM_PLAIN("granite"), HEADROOM_PLAIN("granitemoe"),
    HEADROOM_PLAIN("grok"), HEADROOM_PLAIN("grovemoe"), HEADROOM_PLAIN("hunyuan-moe"),
    HEADROOM_PLAIN("internlm2"), HEADROOM_PLAIN("jais"), HEADROOM_PLAIN("jais2"),
    HEADROOM_PLAIN("llama"), HEADROOM_PLAIN("minicpm"), HEADROOM_PLAIN("minicpm3"),
    HEADROOM_PLAIN("minimax-m2"), HEADROOM_PLAIN("mistral3"), HEADROOM_PLAIN("mpt"),
    HEADROOM_PLAIN("nemotron"), HEADROOM_PLAIN("olmo"), HEADROOM_PLAIN("olmoe"),
    HEADROOM_PLAIN("openelm"), HEADROOM_PLAIN("orion"), HEADROOM_PLAIN("phi2"),
    HEADROOM_PLAIN("phimoe"), HEADROOM_PLAIN("plamo"), HEADROOM_PLAIN("plm"),
    HEADROOM_PLAIN("qwen"), HEADROOM_PLAIN("qwen2"), HEADROOM_PLAIN("qwen2moe"),
    HEADROOM_PLAIN("qwen2vl"), HEADROOM_PLAIN("qwen3"), HEADROOM_PLAIN("qwen3moe"),
    HEADROOM_PLAIN("qwen3vl"), HEADROOM_PLAIN("qwen3vlmoe"), HEADROOM_PLAIN("refact"),
    HEADROOM_PLAIN("seed_oss"), HEADROOM_PLAIN("smollm3"), HEADROOM_PLAIN("stablelm"),
    HEADROOM_PLAIN("starcoder"), HEADROOM_PLAIN("starcoder2"), HEADROOM_PLAIN("xverse"),
    // Sliding windows, shared KV, MLA.
    ArchRule{"phi3", Memory::Kv, &hookPhi3},                 // src/models/phi3.cpp
    ArchRule{"gemma2", Memory::Kv, &hookGemma2},             // src/models/gemma2.cpp
    ArchRule{"gemma3", Memory::Kv, &hookOptionalSwa<6>},     // src/models/gemma3.cpp
    ArchRule{"gemma3n", Memory::Kv, &hookGemma3n},           // src/models/gemma3n.cpp
    ArchRule{"gemma4", Memory::Kv, &hookGemma4},             // src/models/gemma4.cpp
    ArchRule{"gpt-oss", Memory::Kv, &hookGptOss},            // src/models/openai-moe.cpp
    ArchRule{"cohere2", Memory::Kv, &hookCohere2},           // src/models/cohere2.cpp
    ArchRule{"llama4", Memory::Kv, &hookLlama4},             // src/models/llama4.cpp
    ArchRule{"olmo2", Memory::Kv, &hookOptionalSwa<4>},      // src/models/olmo2.cpp
    ArchRule{"afmoe", Memory::Kv, &hookOptionalSwa<4>},      // src/models/afmoe.cpp
    ArchRule{"smallthinker", Memory::Kv, &hookSmallThinker}, // src/models/smallthinker.cpp
    ArchRule{"exaone4", Memory::Kv, &hookExaone4},           // src/models/exaone4.cpp
    ArchRule{"exaone-moe", Memory::Kv, &hookExaoneMoe},      // src/models/exaone-moe.cpp
    ArchRule{"granite_swa", Memory::Kv, &hookGraniteSwa},    // src/models/granite-swa.cpp
    ArchRule{"deepseek2", Memory::Kv, &hookDeepseek2},       // src/models/deepseek2.cpp
    // Recurrent only (llm_arch_is_recurrent).
    ArchRule{"mamba", Memory::Recurrent, &hookMamba},     // src/models/mamba.cpp
    ArchRule{"mamba2", Memory::Recurrent, &hookMamba2},   // src/models/mamba2.cpp
    ArchRule{"rwkv6", Memory::Recurrent, &hookRwkv},      // src/models/rwkv6.cpp
    ArchRule{"rwkv6qwen2", Memory::Recurrent, &hookRwkv}, // src/models/rwkv6qwen2.cpp
    ArchRule{"rwkv7", Memory::Recurrent, &hookRwkv},      // src/models/rwkv7.cpp
    ArchRule{"arwkv7", Memory::Recurrent, &hookRwkv},     // src/models/arwkv7.cpp
    // Hybrids (llm_arch_is_hybrid) with their create_memory filters.
    ArchRule{"jamba", Memory::Hybrid, &hookJamba},                  // src/models/jamba.cpp
    ArchRule{"granitehybrid", Memory::Hybrid, &hookGraniteHybrid},  // src/models/granite-hybrid.cpp
    ArchRule{"lfm2", Memory::Hybrid, &hookLfm2},                    // src/models/lfm2.cpp
    ArchRule{"lfm2moe", Memory::Hybrid, &hookLfm2},                 // src/models/lfm2moe.cpp
    ArchRule{"falcon-h1", Memory::HybridAll, &hookFalconH1},        // src/models/falcon-h1.cpp
    ArchRule{"nemotron_h", Memory::HybridNemotron, &hookNemotronH}, // src/models/nemotron-h.cpp
    ArchRule{"nemotron_h_moe", Memory::HybridNemotron, &hookNemotronH, true},
    ArchRule{"qwen3next", Memory::HybridTrunkOnly, &hookQwenNext, true}, // src/models/qwen3next.cpp
    ArchRule{"qwen35", Memory::HybridTrunkOnly, &hookQwenNext, true},    // src/models/qwen35.cpp
    ArchRule{"qwen35moe", Memory::HybridTrunkOnly, &hookQwenNext, true}, // src/models/qwen35moe.cpp

    // llama.cpp v0.5.0. Non-hybrid architectures take create_memory's default branch, whose
    // nextn filter keeps MTP blocks out of the main cache and in the draft context's (KvTrunkOnly
    // with mtp_context_plain_cache); without nextn blocks that is the plain cache.
    ArchRule{"talkie", Memory::KvTrunkOnly, nullptr, true},         // src/models/talkie.cpp
    ArchRule{"nanbeige", Memory::KvTrunkOnly, &hookNanbeige, true}, // src/models/nanbeige.cpp
    ArchRule{"maincoder", Memory::KvTrunkOnly, nullptr, true},      // src/models/maincoder.cpp
    ArchRule{"hy_v3", Memory::KvTrunkOnly, nullptr, true},          // src/models/hy-v3.cpp
    ArchRule{"hunyuan-dense", Memory::KvTrunkOnly, &hookHunyuanDense, true}, // hunyuan-vl.cpp
    ArchRule{"hunyuan_vl", Memory::KvTrunkOnly, &hookHunyuanDense, true},    // hunyuan-vl.cpp
    ArchRule{"mistral4", Memory::KvTrunkOnly, &hookDeepseek2, true}, // deepseek2.cpp (inherited)
    ArchRule{"plamo3", Memory::KvTrunkOnly, &hookOptionalSwaPattern<8, false>, true},
    ArchRule{"mellum", Memory::KvTrunkOnly, &hookOptionalSwaPattern<4, false>, true},
    ArchRule{"laguna", Memory::KvTrunkOnly, &hookOptionalSwaPattern<4, true>, true},
    ArchRule{"cohere2moe", Memory::KvTrunkOnly, &hookCohere2Moe, true},   // cohere2moe.cpp
    ArchRule{"step35", Memory::KvTrunkOnly, &hookSwaFlagsRequired, true}, // step35.cpp
    ArchRule{"mimo2", Memory::KvTrunkOnly, &hookSwaFlagsRequired, true},  // mimo2.cpp
    ArchRule{"maple", Memory::KvTrunkOnly, &hookSwaFlagsRequired, true},  // maple.cpp
    // create_memory's LLM_ARCH_DEEPSEEK32 / LLM_ARCH_GLM_DSA branch: llama_kv_cache_dsa (MLA
    // latent + indexer keys) over the trunk; the MTP context a plain cache of the nextn blocks.
    ArchRule{"deepseek32", Memory::KvTrunkOnly, &hookDeepseek32, true, true}, // deepseek32.cpp
    ArchRule{"glm-dsa", Memory::KvTrunkOnly, &hookGlmDsa, true, true},        // glm-dsa.cpp
    // LLM_ARCH_DOTS3NOTE: llama_kv_cache_dsa_iswa (trunk only; nextn blocks in the MTP context).
    ArchRule{"dots3note", Memory::KvTrunkOnly, &hookDots3Note, true,
             true}, // src/models/dots3note.cpp
    // LLM_ARCH_MINIMAX_M3: llama_kv_cache_msa over every layer, MTP blocks included.
    ArchRule{"minimax-m3", Memory::Kv, &hookMinimaxM3, false, true}, // src/models/minimax-m3.cpp
    // LLM_ARCH_HY_V4: the DSA cache without an MLA filter (no nextn split), or a plain one.
    ArchRule{"hy_v4", Memory::Kv, &hookHyV4, false, true}, // src/models/hy-v4.cpp
    // Hybrids with the default filters (attention = !is_recr, state = is_recr).
    ArchRule{"kimi-linear", Memory::Hybrid, &hookKda}, // src/models/kimi-linear.cpp
    ArchRule{"kimi-k3", Memory::Hybrid, &hookKda},     // src/models/kimi-k3.cpp
    // Ling 3's MTP context is a plain cache of the nextn blocks (create_memory:
    // mtp_on_hybrid_qwen), while its main cache keeps them too (default filter !is_recr).
    ArchRule{"bailingmoe3", Memory::Hybrid, &hookKda, true}, // src/models/bailingmoe3.cpp
    ArchRule{"plamo2", Memory::Hybrid, &hookPlamo2},         // src/models/plamo2.cpp
    // MiniMax-01 shares the Qwen3-Next filters (il < n_layer() on both).
    ArchRule{"minimax-01", Memory::HybridTrunkOnly, &hookMinimax01}, // src/models/minimax-01.cpp
    // LLM_ARCH_DEEPSEEK4: llama_kv_cache_dsv4 (raw window + compressed caches + compressor state);
    // its MTP context is an iswa cache of the nextn blocks only (filter_mtp).
    ArchRule{"deepseek4", Memory::Dsv4, &hookDeepseek4, true, true}, // src/models/deepseek4.cpp
    // LLM_ARCH_QWEN4EXP: llama_memory_hybrid_idx, Qwen3-Next filters plus indexer keys.
    ArchRule{"qwen4exp", Memory::HybridTrunkOnly, &hookQwen4Exp}, // src/models/qwen4exp.cpp
};
#undef HEADROOM_PLAIN

// Architectures llama-server cannot serve as a chat/completion model: create_memory gives them
// no cache (the BERT family, embedding-only and diffusion models, WavTokenizer), T5's
// encoder-decoder, and the TTS stacks. Refused instead of priced as a transformer.
// (A multimodal projector, "clip", is refused earlier with its own advice: shapeFromGguf.)
constexpr std::array<std::string_view, 18> kNotTextGeneration = {"bert",
                                                                 "modern-bert",
                                                                 "nomic-bert",
                                                                 "nomic-bert-moe",
                                                                 "neo-bert",
                                                                 "jina-bert-v2",
                                                                 "jina-bert-v3",
                                                                 "eurobert",
                                                                 "gemma-embedding",
                                                                 "wavtokenizer-dec",
                                                                 "dream",
                                                                 "llada",
                                                                 "llada-moe",
                                                                 "rnd1",
                                                                 "t5",
                                                                 "t5encoder",
                                                                 "qwen3tts",
                                                                 "pockettts"};

// Speculative-decoding drafters: llama-server loads one only beside its target model
// (--spec-draft-model / -md FILE with --spec-type), and its cache is sized by, or shared with, the
// target's context: src/models/eagle3.cpp and dflash.cpp load_arch_hparams require
// `target_layers` (hidden states read from the target); gemma4-assistant's create_memory branch
// (src/llama-model.cpp, LLM_ARCH_GEMMA4_ASSISTANT) shares the target context's KV
// (cparams.ctx_other). Planned alone they are meaningless, so they are refused by name.
struct Drafter {
    std::string_view arch;
    std::string_view spec_type; // llama-server --spec-type that loads it (common/speculative.cpp)
};
constexpr std::array<Drafter, 3> kDrafters = {Drafter{"eagle3", "draft-eagle3"},
                                              Drafter{"dflash", "draft-dflash"},
                                              Drafter{"gemma4-assistant", "draft-mtp"}};

const ArchRule* findRule(const std::string& arch) {
    for (const auto& r : kRules)
        if (arch == r.name) return &r;
    return nullptr;
}

// llama_model_base::load_hparams (src/llama-model.cpp): the generic keys.
void loadBaseHparams(Meta& m, Hparams& hp, bool recurrent_arch) {
    m.u32("context_length", hp.n_ctx_train, true);
    m.u32("embedding_length", hp.n_embd, true);
    m.u32("block_count", hp.n_layer_all, true);
    if (m.err) return;
    if (hp.n_layer_all == 0 || hp.n_layer_all > kMaxLayers) {
        m.fail(m.key("block_count"), "is " + std::to_string(hp.n_layer_all) +
                                         ", llama.cpp accepts 1 to " + std::to_string(kMaxLayers));
        return;
    }
    m.u32("nextn_predict_layers", hp.n_layer_nextn);
    if (hp.n_layer_nextn > hp.n_layer_all) {
        m.fail(m.key("nextn_predict_layers"), "exceeds block_count");
        return;
    }
    const std::uint32_t n = hp.n_layer_all;
    hp.n_head.assign(n, 0);
    hp.n_head_kv.assign(n, 0);
    hp.n_ff.assign(n, 0);
    hp.n_ff_exp.assign(n, 0);
    hp.n_expert_used.assign(n, 0);
    hp.is_swa.assign(n, 0);
    hp.is_recr.assign(n, recurrent_arch ? 1u : 0u);
    hp.has_indexer.assign(n, 0);

    m.u32("expert_count", hp.n_expert);
    m.perLayer("expert_used_count", hp.n_expert_used, n);
    m.perLayer("feed_forward_length", hp.n_ff, n);
    m.perLayer("expert_feed_forward_length", hp.n_ff_exp, n);
    m.perLayer("attention.head_count", hp.n_head, n);
    hp.n_head_kv = hp.n_head; // "n_head_kv is optional, default to n_head"
    m.perLayer("attention.head_count_kv", hp.n_head_kv, n);

    // Head sizes come from layer 0's head count (llama_hparams::n_head() == n_head(0)).
    if (hp.nHead0() > 0) {
        hp.head_k_full = hp.n_embd / hp.nHead0();
        m.u32("attention.key_length", hp.head_k_full);
        hp.head_v_full = hp.n_embd / hp.nHead0();
        m.u32("attention.value_length", hp.head_v_full);
    }
    hp.head_k_swa = hp.head_k_full;
    hp.head_v_swa = hp.head_v_full;
    m.u32("attention.key_length_swa", hp.head_k_swa);
    m.u32("attention.value_length_swa", hp.head_v_swa);
}

// ---------------------------------------------------------------------------------------------
// Tensor names -> groups. Block tensors are "blk.<il>.<rest>"; routed experts are what
// common/common.h LLM_FFN_EXPS_REGEX ("\.ffn_(up|down|gate|gate_up)_(ch|)exps") moves with
// --cpu-moe / --n-cpu-moe, weights and biases alike.
bool isRoutedExpertTensor(std::string_view rest) {
    static constexpr std::array<std::string_view, 8> kPrefixes = {
        "ffn_up_exps",   "ffn_down_exps",   "ffn_gate_exps",   "ffn_gate_up_exps",
        "ffn_up_chexps", "ffn_down_chexps", "ffn_gate_chexps", "ffn_gate_up_chexps"};
    for (auto p : kPrefixes)
        if (rest.substr(0, p.size()) == p) return true;
    return false;
}

// The FFN's projection matrices by their LLM_TENSOR_NAMES names (src/llama-arch.cpp): the dense
// FFN's or the shared expert's.
bool isFfnMatrix(std::string_view rest) {
    static constexpr std::array<std::string_view, 6> kNames = {
        "ffn_up.weight",       "ffn_gate.weight",       "ffn_down.weight",
        "ffn_up_shexp.weight", "ffn_gate_shexp.weight", "ffn_down_shexp.weight"};
    return std::find(kNames.begin(), kNames.end(), rest) != kNames.end();
}

bool isFfnTensor(std::string_view rest) {
    return rest.substr(0, 4) == "ffn_" || rest.substr(0, 13) == "post_ffw_norm";
}

// Parses "blk.<il>.<rest>"; nullopt for tensors outside the repeating blocks.
std::optional<std::pair<std::uint32_t, std::string_view>> blockOf(std::string_view name) {
    if (name.substr(0, 4) != "blk.") return std::nullopt;
    std::size_t i = 4;
    std::uint64_t il = 0;
    const std::size_t start = i;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9' && i - start < 6)
        il = il * 10 + static_cast<std::uint64_t>(name[i++] - '0');
    if (i == start || i >= name.size() || name[i] != '.') return std::nullopt;
    return std::make_pair(static_cast<std::uint32_t>(il), name.substr(i + 1));
}

// What -sm tensor does with a block's matrix (llama.cpp v0.5.0 src/llama-model.cpp
// get_tensor_config, patterns matched against the whole name): Q, K, V and the output projection,
// the dense FFN's up, gate and down and the routed-expert banks are split; anything else (the
// router, shared experts, fused or SSM tensors this table does not split) is mirrored.
LayerShape::Split tensorSplitOf(std::string_view rest) {
    using S = LayerShape::Split;
    for (std::string_view n :
         {"attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight"})
        if (rest == n) return S::Attention;
    for (std::string_view n : {"ffn_up.weight", "ffn_gate.weight", "ffn_down.weight"})
        if (rest == n) return S::Ffn;
    for (std::string_view n :
         {"ffn_up_exps.weight", "ffn_gate_exps.weight", "ffn_down_exps.weight"})
        if (rest == n) return S::Experts;
    return S::Mirrored;
}

std::uint64_t elementCount(const GgufTensorDesc& t) {
    if (t.dims.empty()) return 0;
    std::uint64_t n = 1;
    for (auto d : t.dims)
        n = satMul(n, d);
    return n;
}

void assignTensorBytes(const ShapeInput& in, ModelShape& shape) {
    bool has_output = false;
    Bytes embd = 0;
    std::uint32_t outside = 0;
    for (const auto& t : in.tensors) {
        shape.n_params = satAdd(shape.n_params, elementCount(t));
        if (auto blk = blockOf(t.name)) {
            if (blk->first < shape.nLayer()) {
                LayerShape& l = shape.layers[blk->first];
                if (t.dims.size() >= 2)
                    l.matrices.push_back({t.dims[0], t.dims[1], t.bytes,
                                          isRoutedExpertTensor(blk->second),
                                          tensorSplitOf(blk->second)});
                if (blk->second == "attn_output.weight")
                    l.attn_output_block = ggmlTypeInfo(t.type).block_elems;
                if (blk->second == "ffn_down.weight" || blk->second == "ffn_down_exps.weight")
                    l.ffn_down_block = ggmlTypeInfo(t.type).block_elems;
                if (blk->second == "ssm_a" && t.dims.size() >= 2) {
                    // LLM_TENSOR_SSM_A ("blk.%d.ssm_a", no suffix), ggml_ssm_scan's weight:
                    // Mamba-1's is [d_state, d_inner], Mamba-2's [1, n_head]. The 1-D ssm_a of
                    // the delta-net families (LLM_TENSOR_SSM_A_NOSCAN, [n_head], read by a
                    // GGML_OP_MUL) is not a scan's.
                    l.ssm_a_bytes = satAdd(l.ssm_a_bytes, t.bytes);
                    shape.ssm.mamba1_scan = !t.dims.empty() && t.dims[0] > 1;
                }
                if (isFfnMatrix(blk->second))
                    l.ffn_matrix_bytes = satAdd(l.ffn_matrix_bytes, t.bytes);
                if (isRoutedExpertTensor(blk->second))
                    l.experts_bytes = satAdd(l.experts_bytes, t.bytes);
                else if (isFfnTensor(blk->second))
                    l.ffn_bytes = satAdd(l.ffn_bytes, t.bytes);
                else
                    l.attn_bytes = satAdd(l.attn_bytes, t.bytes);
                continue;
            }
            ++outside;
        }
        if (t.name == "token_embd.weight") {
            embd = t.bytes;
            shape.token_embd_bytes = satAdd(shape.token_embd_bytes, t.bytes);
        } else if (t.name == "per_layer_token_embd.weight") {
            // LLM_TENSOR_LAYER_INPUT (src/llama-arch.cpp): loaded next to token_embd on the CPU.
            shape.per_layer_embd_bytes = satAdd(shape.per_layer_embd_bytes, t.bytes);
        } else if (t.name == "output.weight" || t.name == "output.bias" ||
                   t.name == "output_norm.weight" || t.name == "output_norm.bias") {
            has_output = has_output || t.name == "output.weight";
            shape.output_bytes = satAdd(shape.output_bytes, t.bytes);
        } else {
            shape.other_bytes = satAdd(shape.other_bytes, t.bytes);
            if (t.name == "per_layer_model_proj.weight" || t.name == "per_layer_proj_norm.weight")
                shape.first_block_bytes = satAdd(shape.first_block_bytes, t.bytes);
            if (t.name == "rope_freqs.weight" || t.name == "rope_factors_long.weight" ||
                t.name == "rope_factors_short.weight") {
                shape.rope_factors_bytes = std::max(shape.rope_factors_bytes, t.bytes);
                shape.rope_factors_all_bytes = satAdd(shape.rope_factors_all_bytes, t.bytes);
            }
        }
    }
    // No output.weight: the output layer is token_embd again, created with TENSOR_DUPLICATED
    // (e.g. src/models/gemma3.cpp load_arch_tensors) and loaded as a second copy on the output
    // layer's buffer (src/llama-model-loader.cpp create_tensor adds it to size_data).
    if (!has_output && embd > 0) {
        shape.output_tied_to_embd = true;
        shape.output_bytes = satAdd(shape.output_bytes, embd);
    }
    if (outside > 0)
        shape.notes.push_back(std::to_string(outside) +
                              " block tensor(s) name a layer past block_count; counted as other");
}

// llama.cpp computes every per-token width in uint32_t (llama_hparams::n_embd_k_gqa,
// n_embd_r, n_embd_s); a header whose widths overflow that would wrap to a small number and be
// priced far too low, so it is refused instead.
std::optional<Error> checkWidths(const Hparams& hp, const std::string& id) {
    const std::uint64_t head =
        std::max({hp.head_k_full, hp.head_v_full, hp.head_k_swa, hp.head_v_swa});
    for (std::uint32_t il = 0; il < hp.n_layer_all; ++il) {
        const std::uint64_t heads = std::max(hp.n_head_kv[il], hp.n_head[il]);
        if (head * heads > UINT32_MAX)
            return makeError(ErrorCode::ParseError,
                             id + ": layer " + std::to_string(il) + " claims " +
                                 std::to_string(heads) + " heads of " + std::to_string(head) +
                                 " elements, beyond what llama.cpp can address");
    }
    if (hp.nEmbdR() > UINT32_MAX || hp.nEmbdS() > UINT32_MAX)
        return makeError(ErrorCode::ParseError,
                         id + ": recurrent state sizes (ssm.* keys) overflow 32 bits");
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// llama.cpp v0.5.0 (de3ff815) src/llama-model.cpp llama_model::create_memory, default branch,
// non-hybrid path: `if (hparams.n_layer_nextn > 0 && hparams.n_layer() > 0 &&
// hparams.router_layer < 0)` the main cache keeps il < n_layer() and the MTP context
// il >= n_layer(). v0.4.0 (80fb11ac) had that filter for five architectures only.
bool defaultNextnFilter(const Hparams& hp, const ArchRule* rule) {
    return rule && !rule->own_memory_branch &&
           (rule->memory == Memory::Kv || rule->memory == Memory::KvTrunkOnly) &&
           hp.n_layer_nextn > 0 && hp.nLayer() > 0;
}

// llama.cpp v0.5.0 src/llama-kv-cache-dsv4.cpp, llama_kv_cache_dsv4 ctor, for one layer:
//   * kv_csa / kv_hca: K-only llama_kv_caches (hparams copies with n_layer_nextn = 0, so nextn
//     layers count by their ratio too) over the layers whose compress ratio is 4 / 128, a row of
//     n_head_kv x key_length per compressed cell;
//   * kv_lid: the CSA layers' lightning-indexer keys, n_head_kv 1 x indexer key_length, K only;
//   * llama_dsv4_comp_state csa / hca / lid over il < n_layer() (trunk only): an f32 kv and an
//     f32 score tensor each of n_embd_state x state_size per stream and rollback plane, with
//     (state_size, n_embd_state) = (2 x 4, 2 x key_length) for CSA, (128, key_length) for HCA
//     and (2 x 4, 2 x indexer key_length) for the indexer. Per sequence that is
//     2 x 8 x 2 key_length + 2 x 8 x 2 indexer = 32 (key_length + indexer) on a CSA layer and
//     2 x 128 x key_length = 256 key_length on an HCA layer, priced like a recurrent state
//     (f32, per sequence, x (1 + n_rs_seq)).
// Every cache and state keeps n_seq_max streams (unified_raw / unified_compressed are false).
void setDsv4Layer(const Hparams& hp, std::uint32_t il, LayerShape& l) {
    l.stream_per_sequence = true;
    // The MTP draft context caches the nextn blocks in a llama_kv_cache_iswa over the model's
    // hparams (create_memory, LLM_ARCH_DEEPSEEK4 with LLAMA_CONTEXT_TYPE_MTP, filter_mtp): not
    // MLA there, so with a V row of n_head_kv x value_length (every layer is sliding).
    if (il >= hp.nLayer()) l.n_embd_v_gqa_draft = hp.head_v_swa * hp.n_head_kv[il];
    const std::uint32_t ratio = il < hp.compress_ratio.size() ? hp.compress_ratio[il] : 0;
    if (ratio == 0) return;
    const std::uint32_t head_k = hp.head_k_swa; // every layer is sliding: n_embd_head_k_swa
    l.compress_ratio = ratio;
    l.n_embd_comp_k = head_k * hp.n_head_kv[il];
    if (ratio == 4) l.n_embd_comp_indexer_k = hp.indexer_head_size;
    if (il < hp.nLayer())
        l.recurrent_s = ratio == 4 ? 32ull * (head_k + hp.indexer_head_size) : 256ull * head_k;
}

// Per-layer cache kinds, following llama_model::create_memory's filters.
void buildLayers(const Hparams& hp, const ArchRule* rule, ModelShape& shape) {
    const Memory memory = rule ? rule->memory : Memory::Kv;
    const bool mla = hp.isMla();
    const std::uint32_t n_layer = hp.nLayer();
    shape.layers.assign(hp.n_layer_all, LayerShape{});
    for (std::uint32_t il = 0; il < hp.n_layer_all; ++il) {
        LayerShape& l = shape.layers[il];
        l.n_head = hp.n_head[il];
        l.n_head_kv = hp.n_head_kv[il];
        l.is_mtp = il >= n_layer;

        bool attn = false;
        bool recr = false;
        bool in_main = true;
        switch (memory) {
        case Memory::Kv:
            // llama_hparams::has_kv(il): with n_layer_kv_from_start set, later layers reuse.
            attn = hp.n_layer_kv_from_start < 0 ||
                   il < static_cast<std::uint32_t>(hp.n_layer_kv_from_start);
            // v0.5.0's default branch filters il < n_layer() for the main cache when there are
            // nextn blocks and a trunk (the router_layer case is granite-switch's, not in this
            // table); the nextn blocks' KV moves to the MTP draft context. Other builds:
            // ModelShape::nextn_default_filter.
            if (l.is_mtp && defaultNextnFilter(hp, rule)) in_main = false;
            break;
        case Memory::KvTrunkOnly:
            attn = il < n_layer;
            break;
        case Memory::Recurrent:
            recr = true;
            break;
        case Memory::Hybrid:
            attn = !hp.is_recr[il];
            recr = hp.is_recr[il] != 0;
            break;
        case Memory::HybridAll:
            attn = recr = true;
            break;
        case Memory::HybridNemotron:
            attn = !hp.is_recr[il] && hp.n_ff[il] == 0;
            recr = hp.is_recr[il] && hp.n_ff[il] == 0;
            break;
        case Memory::HybridTrunkOnly:
            attn = il < n_layer && !hp.is_recr[il];
            recr = il < n_layer && hp.is_recr[il];
            break;
        case Memory::Dsv4:
            // llama_kv_cache_dsv4 ctor: the raw iswa cache has no filter in the main context
            // and its hparams copy sets n_layer_nextn = 0, so every layer, nextn included, keeps
            // a K-only window row (dsv4_make_k_only).
            attn = true;
            break;
        }
        // An MTP block the main cache leaves out is cached by the MTP draft context when that
        // context uses a plain KV cache over the nextn layers (create_memory: filter
        // il >= n_layer()).
        if (l.is_mtp && !attn && !recr && rule && rule->mtp_context_plain_cache) {
            attn = true;
            in_main = false;
        }
        l.in_main_cache = in_main;

        LayerMemory mem;
        mem.kv = attn;
        mem.recurrent = recr;
        mem.mla = mla || memory == Memory::Dsv4;
        mem.swa = hp.swa_type != SwaType::None && hp.is_swa[il];
        mem.n_head_kv = hp.n_head_kv[il];
        mem.head_k = mem.swa ? hp.head_k_swa : hp.head_k_full;
        mem.head_v = mem.swa ? hp.head_v_swa : hp.head_v_full;
        if (recr) {
            mem.state_r = hp.nEmbdR();
            if (il == hp.ple_layer) mem.state_r += hp.ple_conv_state; // cache_ple_r
            mem.state_s = hp.nEmbdS();
        }
        setLayerMemory(l, mem);
        if (memory == Memory::Dsv4) setDsv4Layer(hp, il, l);
        // llama_kv_cache_dsa: the indexer-key cache (one key head of indexer_head_size) covers
        // the layers filter_lid accepts, all of them trunk layers of the main cache.
        if (attn && in_main && hp.has_indexer[il]) {
            l.n_embd_indexer_k = hp.indexer_head_size;
            l.n_embd_indexer_v = hp.indexer_head_v;
        }
    }
}

// Unknown architecture: every layer priced as full attention from the generic keys; layers
// without KV heads are priced with their query heads, and without any head keys at all with a
// full n_embd row. Always at least what llama.cpp could allocate for a plain transformer.
void buildConservativeLayers(const Hparams& hp, ModelShape& shape) {
    std::uint32_t max_head = 0;
    for (auto h : hp.n_head)
        max_head = std::max(max_head, h);
    shape.layers.assign(hp.n_layer_all, LayerShape{});
    for (std::uint32_t il = 0; il < hp.n_layer_all; ++il) {
        LayerShape& l = shape.layers[il];
        l.n_head = hp.n_head[il];
        l.n_head_kv = hp.n_head_kv[il];
        l.is_mtp = il >= hp.nLayer();
        l.attention = AttentionKind::Full;
        std::uint32_t heads =
            hp.n_head_kv[il] ? hp.n_head_kv[il] : (hp.n_head[il] ? hp.n_head[il] : max_head);
        if (hp.head_k_full == 0 || heads == 0) {
            l.n_embd_k_gqa = l.n_embd_v_gqa = hp.n_embd;
        } else {
            l.n_embd_k_gqa = hp.head_k_full * heads;
            l.n_embd_v_gqa = hp.head_v_full * heads;
        }
    }
}

const char* swaTypeName(SwaType t) {
    switch (t) {
    case SwaType::None:
        return "none";
    case SwaType::Standard:
        return "standard";
    case SwaType::Chunked:
        return "chunked";
    }
    return "?";
}

std::string guessQuant(const ShapeInput& in) {
    // llama.cpp guesses the file type from the most common tensor type when general.file_type
    // is absent (llama_model_loader constructor, LLAMA_FTYPE_GUESSED); by bytes here.
    std::map<GgmlType, Bytes> by_type;
    for (const auto& t : in.tensors)
        if (t.dims.size() >= 2) by_type[t.type] = satAdd(by_type[t.type], t.bytes);
    if (by_type.empty()) return "";
    auto best = std::max_element(by_type.begin(), by_type.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    std::string name(ggmlTypeName(best->first));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return std::toupper(c); });
    return name + " (guessed)";
}

} // namespace

// ---------------------------------------------------------------------------------------------

Result<ModelShape> shapeFromInput(const ShapeInput& in) {
    const GgufValue* archv = nullptr;
    if (auto it = in.meta.find("general.architecture"); it != in.meta.end()) archv = &it->second;
    if (!archv || !archv->asString() || archv->asString()->empty())
        return makeError(ErrorCode::ParseError,
                         in.id + ": no general.architecture in the GGUF header",
                         "llama.cpp cannot load a file without it");
    const std::string arch = *archv->asString();
    if (std::find(kNotTextGeneration.begin(), kNotTextGeneration.end(), arch) !=
        kNotTextGeneration.end())
        return makeError(ErrorCode::Unsupported,
                         in.id + ": architecture '" + arch +
                             "' is not a text-generation model llama-server can plan",
                         "embedding, encoder, diffusion and speech models get no KV cache in "
                         "llama.cpp (llama_model::create_memory); plan the chat model instead");

    for (const Drafter& d : kDrafters)
        if (arch == d.arch)
            return makeError(ErrorCode::Unsupported,
                             in.id + ": architecture '" + arch +
                                 "' is a speculative-decoding drafter, not a model to serve: "
                                 "llama-server loads it beside its target model (-md " +
                                 in.id + " --spec-type " + std::string(d.spec_type) +
                                 "); plan the target model (Headroom does not price drafter "
                                 "files yet)");

    const ArchRule* rule = findRule(arch);
    Meta m(in, arch);
    Hparams hp;
    std::vector<std::string> notes;
    loadBaseHparams(m, hp, rule && rule->memory == Memory::Recurrent);
    if (!m.err && rule && rule->hook) rule->hook(m, hp, notes);
    if (m.err) return *m.err;
    if (auto e = checkWidths(hp, in.id)) return *e;

    ModelShape shape;
    shape.id = in.id;
    shape.architecture = arch;
    shape.source = ShapeSource::GgufHeader;
    if (auto it = in.meta.find("general.name"); it != in.meta.end() && it->second.asString())
        shape.name = *it->second.asString();
    shape.n_ctx_train = hp.n_ctx_train;
    // llama_model::load_hparams: rope.scaling.type ("none", "linear", "yarn", …), .factor and
    // .original_context_length (n_ctx_orig_yarn, else n_ctx_train). Read for the context limit
    // under --rope-scaling; a file that already scales states its extended context_length.
    if (const GgufValue* v = m.find(m.key("rope.scaling.type")); v && v->asString())
        shape.rope_scaling_type = *v->asString();
    if (const GgufValue* v = m.find(m.key("rope.scaling.factor")); v && v->asFloat())
        shape.rope_scaling_factor = *v->asFloat();
    if (const GgufValue* v = m.find(m.key("rope.scaling.original_context_length"));
        v && v->asUInt())
        shape.rope_orig_ctx = *v->asUInt();
    shape.n_embd = hp.n_embd;
    shape.n_mtp_layers = hp.n_layer_nextn;
    shape.mtp_draft_nextn_only =
        rule && (rule->mtp_context_plain_cache || defaultNextnFilter(hp, rule));
    shape.nextn_default_filter = defaultNextnFilter(hp, rule);
    if (hp.indexer_head_size > 0) {
        shape.indexer_n_head = hp.indexer_n_head;
        shape.indexer_head_size = hp.indexer_head_size;
        shape.indexer_top_k = hp.indexer_top_k;
    }
    shape.file_bytes = in.file_bytes;
    shape.ssm = {hp.ssm_d_conv, hp.ssm_d_inner, hp.ssm_d_state, hp.ssm_n_group, hp.ssm_dt_rank};
    // The converter writes key_length = kv_lora_rank + RoPE dims (the cached latent row) and
    // key_length_mla / value_length_mla = one head's Q/K and V widths.
    if (hp.isMla() && hp.n_lora_kv > 0 && hp.head_k_full > hp.n_lora_kv)
        shape.mla = {hp.n_lora_q, hp.n_lora_kv, hp.mla_k, hp.mla_v, hp.head_k_full - hp.n_lora_kv};

    if (rule) {
        buildLayers(hp, rule, shape);
        shape.n_swa = hp.swa_type != SwaType::None ? hp.n_swa : 0;
        if (hp.swa_type != SwaType::None && !shape.hasSwa())
            notes.push_back(std::string("SWA type ") + swaTypeName(hp.swa_type) +
                            " but no layer is sliding-window");
    } else {
        buildConservativeLayers(hp, shape);
        shape.conservative = true;
        notes.push_back("architecture '" + arch +
                        "' has no exact rules here: every layer is priced as full attention "
                        "(conservative; sliding windows, recurrent state and shared KV ignored)");
    }

    // MoE: llama_model_base::load_hparams expert_count / expert_used_count (per-layer max);
    // shared experts from expert_shared_count, else one when the blocks carry *_shexp tensors
    // (Qwen2-MoE, Qwen3-Next and Llama 4 have exactly one and no count key).
    shape.moe.n_expert = hp.n_expert;
    for (auto u : hp.n_expert_used)
        shape.moe.n_expert_used = std::max(shape.moe.n_expert_used, u);
    std::uint32_t shared = hp.n_expert_shared;
    if (shared == 0) m.u32("expert_shared_count", shared);
    m.err.reset(); // optional keys past this point never sink the whole shape
    if (shared == 0 && hp.n_expert > 0) {
        for (const auto& t : in.tensors)
            if (t.name.find("_shexp.") != std::string::npos) {
                shared = 1;
                break;
            }
    }
    shape.moe.n_expert_shared = hp.n_expert > 0 ? shared : 0;

    for (std::uint32_t il = 0; il < hp.nLayer(); ++il)
        shape.n_ff = std::max(shape.n_ff, hp.n_ff[il]);
    for (std::uint32_t il = 0; il < hp.nLayer(); ++il)
        shape.n_ff_exp = std::max(shape.n_ff_exp, hp.n_ff_exp[il]);
    // The shared experts' width is their up projection's (llm_build_moe_ffn's shexp FFN reads
    // ffn_up_shexp whatever the expert width).
    for (const auto& t : in.tensors)
        if (t.name.find(".ffn_up_shexp.weight") != std::string::npos && t.dims.size() >= 2) {
            shape.n_ff_shexp =
                static_cast<std::uint32_t>(std::min<std::uint64_t>(t.dims[1], UINT32_MAX));
            break;
        }
    if (shape.n_ff_exp == 0 && hp.n_expert > 0) {
        // No expert_feed_forward_length (Mixtral-style llama): the width of ffn_up_exps.
        for (const auto& t : in.tensors)
            if (t.name.find(".ffn_up_exps.weight") != std::string::npos && t.dims.size() >= 2) {
                shape.n_ff_exp =
                    static_cast<std::uint32_t>(std::min<std::uint64_t>(t.dims[1], UINT32_MAX));
                break;
            }
    }

    if (hp.n_expert > 0) {
        // ffn_gate_exps is optional (TENSOR_NOT_REQUIRED in the llama.cpp loaders that accept
        // ungated experts); a merged ffn_gate_up_exps counts as gated.
        bool up = false, gate = false;
        for (const auto& t : in.tensors) {
            up = up || t.name.find(".ffn_up_exps.") != std::string::npos;
            gate = gate || t.name.find(".ffn_gate_exps.") != std::string::npos ||
                   t.name.find(".ffn_gate_up_exps.") != std::string::npos;
        }
        shape.moe.gated_experts = gate || !up;
    }

    // n_vocab as llama_vocab counts it: the token list, else <arch>.vocab_size, else the
    // token_embd rows.
    std::uint64_t n_vocab = 0;
    if (!m.arrayLength("tokenizer.ggml.tokens", n_vocab)) {
        std::uint32_t vs = 0;
        if (m.u32("vocab_size", vs)) n_vocab = vs;
        m.err.reset();
    }
    if (n_vocab == 0)
        for (const auto& t : in.tensors)
            if (t.name == "token_embd.weight" && t.dims.size() >= 2) n_vocab = t.dims[1];
    shape.n_vocab = static_cast<std::uint32_t>(std::min<std::uint64_t>(n_vocab, UINT32_MAX));

    std::uint32_t ftype = 0;
    if (m.u32Full("general.file_type", ftype, false))
        shape.quant = fileTypeName(ftype);
    else
        shape.quant = guessQuant(in);
    m.err.reset();

    assignTensorBytes(in, shape);

    if (hp.n_layer_nextn > 0) {
        bool separate = false;
        for (const auto& l : shape.layers)
            if (l.is_mtp && !l.in_main_cache) separate = true;
        std::string where = separate ? "lives in the MTP draft context only"
                                     : "is allocated in the main cache regardless";
        if (shape.nextn_default_filter) {
            std::string kept;
            for (LlamaVersion v : allLlamaVersions())
                if (!llamaProfile(v).filtersNextn(arch))
                    kept += std::string(kept.empty() ? "" : ", ") + llamaVersionName(v);
            if (!kept.empty())
                where += " (llama.cpp " + kept +
                         ": in the main cache, and the MTP context caches every layer again)";
        }
        std::string no_graph;
        for (LlamaVersion v : allLlamaVersions())
            if (!llamaProfile(v).buildsMtpGraph(arch))
                no_graph += std::string(no_graph.empty() ? "" : ", ") + llamaVersionName(v);
        if (!no_graph.empty())
            where += "; llama.cpp " + no_graph + " builds no MTP draft graph for " + arch +
                     ", so plans do not draft with them";
        notes.push_back(std::to_string(hp.n_layer_nextn) +
                        " MTP (nextn) block(s): weights skipped unless MTP is on; their KV " +
                        where);
    }
    if (shape.output_tied_to_embd)
        notes.push_back("output head tied to token_embd: llama.cpp loads a second copy for the "
                        "output layer when it is offloaded");
    shape.notes.insert(shape.notes.begin(), notes.begin(), notes.end());
    return shape;
}

const std::vector<std::string>& supportedArchitectures() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        v.reserve(std::size(kRules));
        for (const auto& r : kRules)
            v.emplace_back(r.name);
        std::sort(v.begin(), v.end());
        return v;
    }();
    return names;
}

bool isSupportedArchitecture(const std::string& arch) {
    return findRule(arch) != nullptr;
}

std::string fileTypeName(std::uint32_t ftype) {
    // include/llama.h enum llama_ftype; names as src/llama-model-loader.cpp
    // llama_model_ftype_name prints them (without the "MOSTLY_" prefix it drops too).
    switch (ftype) {
    case 0:
        return "F32";
    case 1:
        return "F16";
    case 2:
        return "Q4_0";
    case 3:
        return "Q4_1";
    case 7:
        return "Q8_0";
    case 8:
        return "Q5_0";
    case 9:
        return "Q5_1";
    case 10:
        return "Q2_K";
    case 11:
        return "Q3_K_S";
    case 12:
        return "Q3_K_M";
    case 13:
        return "Q3_K_L";
    case 14:
        return "Q4_K_S";
    case 15:
        return "Q4_K_M";
    case 16:
        return "Q5_K_S";
    case 17:
        return "Q5_K_M";
    case 18:
        return "Q6_K";
    case 19:
        return "IQ2_XXS";
    case 20:
        return "IQ2_XS";
    case 21:
        return "Q2_K_S";
    case 22:
        return "IQ3_XS";
    case 23:
        return "IQ3_XXS";
    case 24:
        return "IQ1_S";
    case 25:
        return "IQ4_NL";
    case 26:
        return "IQ3_S";
    case 27:
        return "IQ3_M";
    case 28:
        return "IQ2_S";
    case 29:
        return "IQ2_M";
    case 30:
        return "IQ4_XS";
    case 31:
        return "IQ1_M";
    case 32:
        return "BF16";
    case 36:
        return "TQ1_0";
    case 37:
        return "TQ2_0";
    case 38:
        return "MXFP4_MOE";
    case 39:
        return "NVFP4";
    case 40:
        return "Q1_0";
    case 41:
        return "Q2_0";
    default:
        return "";
    }
}

bool layerHasKv(const LayerShape& l) {
    return l.attention == AttentionKind::Full || l.attention == AttentionKind::SlidingWindow ||
           l.attention == AttentionKind::Mla;
}

bool layerHasRecurrentState(const LayerShape& l) {
    return l.recurrent_r + l.recurrent_s > 0;
}

std::string describeLayerRuns(const ModelShape& shape) {
    auto label = [](const LayerShape& l) {
        std::string s = attentionKindName(l.attention);
        if (l.attention != AttentionKind::Recurrent && layerHasRecurrentState(l)) s += "+recurrent";
        if (l.is_mtp) s += l.in_main_cache ? " (mtp)" : " (mtp, draft context only)";
        return s;
    };
    std::string out;
    const std::uint32_t n = shape.nLayer();
    for (std::uint32_t i = 0; i < n;) {
        const std::string kind = label(shape.layers[i]);
        std::uint32_t j = i;
        while (j + 1 < n && label(shape.layers[j + 1]) == kind)
            ++j;
        if (!out.empty()) out += ", ";
        out += i == j ? std::to_string(i) : std::to_string(i) + "-" + std::to_string(j);
        out += " " + kind;
        i = j + 1;
    }
    return out;
}

} // namespace headroom
