#include "compute_skeleton.h"

#include "compute_graph.h"

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace headroom {

namespace {

using graph::Elem;
using graph::Graph;
using graph::Id;
using graph::kNone;
using graph::Op;

// ggml_backend_cpu_buffer_type_get_alignment (ggml/src/ggml-backend.cpp): TENSOR_ALIGNMENT.
inline constexpr Bytes kCpuAlignment = 32;

// What distinguishes the members of the dense family the way their graph builders differ
// (llama.cpp v0.4.0 src/llama-model.cpp: llm_build_llama, llm_build_qwen2, llm_build_qwen3,
// llm_build_granite, llm_build_mistral3, llm_build_command_r, llm_build_cohere2_iswa,
// llm_build_gemma2_iswa, llm_build_gemma3_iswa), checked node by node against the graphs
// llama.cpp itself reserves (tests/validation/peak.cpp, HEADROOM_GRAPH_DUMP).
struct Family {
    bool qkv_bias = false;      // Q, K and V biases added after their projections (Qwen2)
    bool qk_norm = false;       // RMS norm of each Q and K head before RoPE (Qwen3, Gemma 3)
    bool layer_norm = false;    // ggml_norm instead of ggml_rms_norm (Command-R, Cohere2)
    bool order_qkv = false;     // Q, K, V built in that order (else Q, V, K: build_attn's expands)
    bool rope_swa_only = false; // RoPE only in sliding-window layers (Cohere2)
    bool parallel = false;      // attention and FFN both read the normed input (Command-R)
    bool embd_scale = false;    // ggml_scale of the token embeddings (Gemma, Granite)
    // Granite's scale (f_embedding_scale) is applied in llm_graph_context::build_inp_embd, which
    // expands its result at once ("make sure the produced embeddings are immediately
    // materialized"); Gemma's builders scale the embeddings themselves, expanded by their reader.
    bool embd_scale_in_input = false;
    bool q_scale = false;        // ggml_scale of Q after RoPE (Gemma)
    bool residual_scale = false; // ggml_scale of the attention and FFN outputs (Granite)
    bool softcap = false;        // attention and final logit soft-capping (Gemma 2)
    bool post_norms = false;     // RMS norms after attention and FFN (Gemma 2, Gemma 3)
    bool logit_scale = false;    // ggml_scale of the logits (Granite, Command-R)
    bool fused_qkv = false;      // one QKV projection, Q, K and V strided views of it (Phi-3)
    bool fused_up = false;       // one up projection of 2 n_ff, ggml_swiglu of it (Phi-3)
    bool residual_first = false; // the block output is add(ffn_inp, ffn_out) (Phi-3)
    bool qk_norm_full = false;   // RMS norm of the whole Q and K projections (OLMoE)
    // Routed experts (build_moe_ffn): sigmoid gating instead of softmax, a selection bias added
    // to the probabilities, the selected weights normalised to sum 1.
    bool moe_sigmoid = false;
    bool moe_probs_bias = false;
    bool moe_norm_w = false;
    // gpt-oss (llm_build_openai_moe_iswa): router bias added to the logits (no gating function),
    // softmax over the selected weights, expert biases (ggml_add_id), an attention output bias,
    // and the last block's output is a graph output whose rows are gathered after it.
    bool moe_logit_bias = false;
    bool moe_softmax_weights = false;
    bool moe_expert_bias = false;
    bool attn_out_bias = false;
    // Attention sinks (gpt-oss, llm_build_openai_moe): one f32 per head that the attention's
    // softmax reads (ggml_flash_attn_ext_add_sinks: FLASH_ATTN_EXT's fifth source;
    // ggml_soft_max_add_sinks: SOFT_MAX's third).
    bool sinks = false;
    bool rows_after_last = false;
    // Llama 4 (llm_build_llama_iswa): an L2 norm of Q and K after RoPE, NoPE layers (the
    // full-attention ones) scaling Q by the attn_scale input, experts chosen on the raw logits
    // and applied to the input weighted before them.
    bool l2_norm_qk = false;
    bool nope_attn_scale = false;
    bool moe_sort_logits = false;
    bool moe_weights_before = false;
    bool mamba2 = false; // Mamba-2 blocks among the attention ones (Granite 4.0-H)
    // Nemotron-H (llm_build_nemotron_h): each block is one of Mamba-2, attention or a
    // squared-ReLU FFN, each with its own residual; the final norm is a graph output (h_nextn)
    // and result_norm gathers its rows.
    bool nemotron_h = false;
    // Falcon-H1 (llm_build_falcon_h1): attention and a Mamba-2 block (no group norm) side by
    // side on the normed input, their sum added to the residual.
    bool falcon_h1 = false;
    bool lfm2 = false; // LFM2: short-convolution and attention blocks
    // Jamba: Mamba-1 blocks among attention blocks without RoPE.
    bool jamba = false;
    // Qwen3-Next (llama_model_qwen3next::graph): gated delta-net blocks among attention blocks
    // whose Q projection carries a sigmoid output gate, and a shared expert scaled by a sigmoid
    // gate of its own.
    bool qwen3next = false;
    bool gated_q = false;
    bool shexp_gate = false;
    // Gemma 3n (llama_model_gemma3n::graph): V RMS-normed without a weight, AltUp, LAUREL,
    // per-layer inputs and layers that read an earlier layer's KV cache.
    bool v_norm = false;
    bool gemma3n = false;
};

bool familyOf(const std::string& arch, Family& f) {
    if (arch == "llama" || arch == "mistral3") return true;
    if (arch == "qwen2") {
        f.qkv_bias = true;
        return true;
    }
    if (arch == "qwen3") {
        f.qk_norm = true;
        return true;
    }
    if (arch == "granite") {
        f.embd_scale = f.residual_scale = f.logit_scale = f.embd_scale_in_input = true;
        return true;
    }
    if (arch == "command-r" || arch == "cohere2") {
        f.layer_norm = f.parallel = f.logit_scale = true;
        f.order_qkv = arch == "cohere2";
        f.rope_swa_only = arch == "cohere2";
        return true;
    }
    if (arch == "gemma2" || arch == "gemma3") {
        f.embd_scale = f.q_scale = f.post_norms = f.order_qkv = true;
        f.softcap = arch == "gemma2";
        f.qk_norm = arch == "gemma3";
        return true;
    }
    if (arch == "qwen3moe") {
        f.qk_norm = f.moe_norm_w = true;
        return true;
    }
    if (arch == "olmoe") {
        f.qk_norm_full = true;
        return true;
    }
    if (arch == "glm4moe") {
        f.qkv_bias = f.moe_sigmoid = f.moe_probs_bias = f.moe_norm_w = true;
        return true;
    }
    if (arch == "gpt-oss") {
        f.order_qkv = f.moe_logit_bias = f.moe_softmax_weights = f.moe_expert_bias = true;
        f.attn_out_bias = f.rows_after_last = f.sinks = true;
        return true;
    }
    if (arch == "llama4") {
        f.order_qkv = f.rope_swa_only = f.l2_norm_qk = f.nope_attn_scale = true;
        f.moe_sigmoid = f.moe_sort_logits = f.moe_weights_before = true;
        return true;
    }
    if (arch == "granitehybrid") {
        f.embd_scale = f.residual_scale = f.logit_scale = f.rope_swa_only = true;
        f.embd_scale_in_input = true;
        f.moe_norm_w = f.mamba2 = true;
        return true;
    }
    if (arch == "nemotron_h") {
        f.rope_swa_only = f.mamba2 = f.nemotron_h = true;
        return true;
    }
    if (arch == "falcon-h1") {
        f.mamba2 = f.falcon_h1 = true;
        return true;
    }
    if (arch == "ernie4_5-moe") {
        f.moe_norm_w = true;
        return true;
    }
    if (arch == "deepseek2") return true;
    if (arch == "lfm2") {
        f.qk_norm = f.lfm2 = true;
        return true;
    }
    if (arch == "jamba") {
        f.rope_swa_only = f.jamba = true;
        return true;
    }
    if (arch == "qwen3next") {
        f.qk_norm = f.moe_norm_w = f.qwen3next = f.gated_q = f.shexp_gate = true;
        return true;
    }
    if (arch == "gemma3n") {
        f.qk_norm = f.order_qkv = f.v_norm = f.gemma3n = true;
        return true;
    }
    if (arch == "phi3") {
        f.fused_qkv = f.fused_up = f.residual_first = f.q_scale = true;
        return true;
    }
    return false;
}

class Builder {
public:
    Builder(const ModelShape& m, const ComputeGraphParams& p) : m_(m), p_(p) {
        // Up to about 150 tensors a block (a MoE block with its views and cache writes).
        g.reserve(160 * (m.layers.size() + 2));
        W = g.weight();
        ub_ = std::max<std::uint32_t>(1, p.n_ubatch);
        n_out_ = std::clamp<std::uint32_t>(p.n_outputs, 1, ub_);
    }

    // One attention block's input projections, cache writes and attention up to the heads'
    // output [n_head * hd_v, ub] before the output projection (llm_graph_context::build_attn with
    // llm_graph_input_attn_kv, src/llama-graph.cpp, which expands it into the graph).
    Id attention(const LayerShape& l, Id x, const Family& f) {
        if (l.isMla()) return mla(l, x);
        const std::int64_t n_head = l.n_head;
        const std::int64_t n_head_kv = std::max<std::uint32_t>(1, l.n_head_kv);
        const std::int64_t hd_k = l.n_embd_k_gqa / n_head_kv;
        const std::int64_t hd_v = l.n_embd_v_gqa / n_head_kv;
        const std::int64_t ub = ub_;
        const bool swa = l.isSwa();
        const bool rope = !f.rope_swa_only || swa;

        // llm_build_phi3: Q, K and V are strided views of one wqkv product.
        const std::int64_t n_qkv = (n_head * hd_k + n_head_kv * (hd_k + hd_v));
        const Id qkv = f.fused_qkv ? mm(n_qkv, x) : kNone;
        auto project = [&](std::int64_t heads, std::int64_t hd, bool qk) {
            if (f.fused_qkv)
                return g.view(qkv, {hd, heads, ub, 1},
                              {4, 4 * static_cast<std::uint64_t>(hd),
                               4 * static_cast<std::uint64_t>(n_qkv),
                               4 * static_cast<std::uint64_t>(n_qkv * ub)});
            Id t = mm(heads * hd, x);
            if (f.qkv_bias) t = g.add(t, W);
            if (f.qk_norm_full && qk) t = g.mul(pinned(g.rmsNorm(t)), W);
            if (f.v_norm && !qk) return g.rmsNorm(g.reshape(t, {hd, heads, ub, 1}));
            return g.reshape(t, {hd, heads, ub, 1});
        };
        auto normRope = [&](Id t) {
            if (f.qk_norm) t = g.mul(pinned(g.rmsNorm(t)), W);
            if (!rope) return t;
            t = g.unary(Op::Rope, t, {positions(), ropeFactors()});
            return f.l2_norm_qk ? g.rmsNorm(t) : t;
        };
        Id q = normRope(f.gated_q ? gatedQuery(x, n_head, hd_k) : project(n_head, hd_k, true));
        if (f.q_scale) q = g.scale(q);
        if (f.nope_attn_scale && !rope) q = g.mul(q, attnScale());
        Id k, v;
        if (f.order_qkv) {
            k = normRope(project(n_head_kv, hd_k, true));
            v = project(n_head_kv, hd_v, false);
        } else {
            v = project(n_head_kv, hd_v, false);
            k = normRope(project(n_head_kv, hd_k, true));
        }
        // build_attn: with a quantized cache, Q and K (and V) are rotated before the cache write.
        const int k_rot = kRot(swa);
        const int v_rot = vRot(swa);
        if (k_rot > 0) {
            q = hadamard(q, rotInput(swa, false, k_rot));
            k = hadamard(k, rotInput(swa, false, k_rot));
        }
        if (v_rot > 0) v = hadamard(v, rotInput(swa, true, v_rot));
        // "expand k later to enable rope fusion which directly writes into k-v cache"
        // (the builders of the Q, K, V families expand K before V themselves)
        g.expand(q);
        g.expand(f.order_qkv ? k : v);
        g.expand(f.order_qkv ? v : k);

        // llama_kv_cache::cpy_k / cpy_v: ggml_set_rows of the new rows into the cache (a view of
        // the cache); without flash attention V is stored transposed, one index per element.
        // llama_kv_cache::cpy_k / cpy_v take the rows as ggml_view_2d(cur, n_embd_gqa, n_tokens,
        // cur->nb[2]): a strided V (Phi-3's view of the fused QKV) keeps its stride, which is
        // what a copy of the rows to another backend's buffer spans.
        const std::int64_t n_kv = swa ? p_.n_kv_swa : p_.n_kv;
        const Id k_row = g.view(k, {n_head_kv * hd_k, ub, 1, 1}, {4, g.at(k).nb[2], 0, 0});
        g.expand(g.externalNode(Op::SetRows, {k_row, kIdxs(swa), rowsDst(kCache(l, n_kv))},
                                kCache(l, n_kv)));
        if (p_.flash_attn) {
            const Id v_row = g.view(v, {n_head_kv * hd_v, ub, 1, 1}, {4, g.at(v).nb[2], 0, 0});
            g.expand(g.externalNode(Op::SetRows,
                                    {v_row, vIdxs(swa, n_head_kv * hd_v), rowsDst(vCache(l, n_kv))},
                                    vCache(l, n_kv)));
        } else {
            // llama_kv_cache::cpy_v: a strided V (Phi-3's view) is made contiguous first.
            const Id v2 = g.isContiguous(v) ? g.reshape(v, {n_head_kv * hd_v, ub, 1, 1})
                                            : g.cont(v, {n_head_kv * hd_v, ub, 1, 1});
            const Id v1 = g.reshape(v2, {1, n_head_kv * hd_v * ub, 1, 1});
            // cpy_v: the transposed cache as one element per row (ggml_reshape_2d).
            const Id v_dst = g.reshape(vCache(l, n_kv), {1, 1, 1, 1});
            g.expand(g.externalNode(Op::SetRows, {v1, vIdxs(swa, n_head_kv * hd_v), v_dst},
                                    vCache(l, n_kv)));
        }

        // build_attn_mha: q as [hd, ub, n_head], K and V read from the cache.
        const Tensor& tq = g.at(q);
        const Id qv = g.view(q, tq.ne, tq.nb);
        const Id qp = g.permute(qv, 0, 2, 1, 3);
        const Id mask = kqMask(swa);
        Id cur;
        if (p_.flash_attn) {
            const Id fa = g.op(Op::FlashAttn, Elem::F32, {hd_v, n_head, ub, 1},
                               {qp, kRead(l, n_kv), vRead(l, n_kv), mask, f.sinks ? W : kNone});
            f16Copies(fa, n_head_kv * hd_k * n_kv * n_seqs(), n_head_kv * hd_v * n_kv * n_seqs());
            if (f.sinks) g.setWeightBytes(fa, 4 * static_cast<Bytes>(n_head));
            cur = g.reshape(fa, {hd_v * n_head, ub, 1, 1});
        } else {
            Id kq = g.op(Op::MulMat, Elem::F32, {n_kv, ub, n_head, 1}, {kRead(l, n_kv), qp});
            if (f.softcap) kq = g.scale(g.unary(Op::Unary, g.scale(kq)));
            const Id sm = g.unary(Op::SoftMax, kq, {mask, f.sinks ? W : kNone});
            if (f.sinks) g.setWeightBytes(sm, 4 * static_cast<Bytes>(n_head));
            const Id kqv = g.op(Op::MulMat, Elem::F32, {hd_v, ub, n_head, 1}, {vRead(l, n_kv), sm});
            const Id perm = g.permute(kqv, 0, 2, 1, 3);
            cur = g.cont(perm, {hd_v * n_head, ub, 1, 1});
            g.markKqvOut(cur);
        }
        g.expand(cur); // kqv_out; the rotation back is reached from the output projection
        if (v_rot > 0) cur = hadamard(cur, rotInput(swa, true, v_rot));
        return cur;
    }

    // llm_build_deepseek2's multi-head latent attention (llama.cpp v0.4.0): Q's no-RoPE part
    // absorbed into the latent (wk_b), the compressed KV normed, the latent plus the RoPE part
    // cached as K (no V cache), attention over the latent and the result expanded per head by
    // wv_b; without flash attention the latent V is a contiguous f16 copy of the cache.
    Id mla(const LayerShape& l, Id x) {
        const MlaShape& a = m_.mla;
        const std::int64_t nh = l.n_head, ub = ub_;
        const std::int64_t hk = a.head_k, rope = a.rope, nope = hk - rope, lora = a.kv_lora;
        const std::int64_t hv = a.head_v;
        Id q = a.q_lora > 0 ? mm(nh * hk, g.mul(pinned(g.rmsNorm(mm(a.q_lora, x))), W))
                            : mm(nh * hk, x);
        q = g.reshape(q, {hk, nh, ub, 1});
        const Tensor& tq = g.at(q);
        const auto qnb = tq.nb;
        const Id q_nope = g.permute(g.view(q, {nope, nh, ub, 1}, qnb), 0, 2, 1, 3);
        const Id absorbed = g.op(Op::MulMat, Elem::F32, {lora, ub, nh, 1}, {W, q_nope});
        const Id absorbed_p = g.permute(absorbed, 0, 2, 1, 3);
        const Id q_pe =
            g.unary(Op::Rope, g.view(q, {rope, nh, ub, 1}, qnb), {positions(), ropeFactors()});
        q = g.op(Op::Concat, Elem::F32, {lora + rope, nh, ub, 1}, {absorbed_p, q_pe});
        const Id kv_pe = mm(lora + rope, x);
        const auto kvnb = g.at(kv_pe).nb;
        Id kv = g.view(kv_pe, {lora, ub, 1, 1}, kvnb);
        kv = g.mul(pinned(g.rmsNorm(kv)), W);
        const Id v = g.reshape(kv, {lora, 1, ub, 1});
        const Id k_pe =
            g.unary(Op::Rope, g.view(kv_pe, {rope, 1, ub, 1}, {4, kvnb[1], kvnb[1], kvnb[2]}),
                    {positions(), ropeFactors()});
        const Id k = g.op(Op::Concat, Elem::F32, {lora + rope, 1, ub, 1}, {v, k_pe});
        g.expand(q);
        g.expand(v);
        g.expand(k);
        const Id k_row = g.view(k, {lora + rope, ub, 1, 1}, g.at(k).nb);
        g.expand(g.externalNode(Op::SetRows, {k_row, kIdxs(false), rowsDst(kCache(l, p_.n_kv))},
                                kCache(l, p_.n_kv)));
        // build_attn with llm_graph_input_attn_k: K is get_k's view, V a view of it (the latent's
        // first kv_lora_rank elements); build_attn_mha permutes both.
        const Id kc = kCache(l, p_.n_kv);
        const Bytes kc_bytes = g.at(kc).copy_bytes;
        const Id k_view = g.view(kc, {1, 1, 1, 1}, {1, 1, 1, 1});
        const Id v_view = g.view(k_view, {1, 1, 1, 1}, {1, 1, 1, 1});
        const Id kp = g.permute(k_view, 0, 2, 1, 3);
        const Id vp = g.permute(v_view, 0, 2, 1, 3);
        for (const Id t : {k_view, v_view, kp, vp})
            g.setCopyBytes(t, kc_bytes);
        const auto qn = g.at(q);
        const Id qp = g.permute(g.view(q, qn.ne, qn.nb), 0, 2, 1, 3);
        const Id mask = kqMask(false);
        Id cur;
        if (p_.flash_attn) {
            const Id fa = g.op(Op::FlashAttn, Elem::F32, {lora, nh, ub, 1}, {qp, kp, vp, mask});
            // V is a view of K (V_is_K_view): one copy serves both.
            f16Copies(fa, (lora + rope) * p_.n_kv * n_seqs(), 0);
            const Id fp = g.permute(fa, 0, 2, 1, 3);
            const Id vm = g.op(Op::MulMat, Elem::F32, {hv, ub, nh, 1}, {W, fp});
            const Id vc = g.cont(g.permute(vm, 0, 2, 1, 3), {hv, nh, ub, 1});
            cur = g.reshape(vc, {hv * nh, ub, 1, 1});
        } else {
            const std::int64_t n_kv = p_.n_kv;
            // build_attn_mha: V not transposed in the cache, so ggml_cont(ggml_transpose(v)).
            const Id vt = g.permute(vp, 1, 0, 2, 3);
            g.setCopyBytes(vt, kc_bytes);
            const Id v_cont = g.op(Op::Cont, Elem::F16, {n_kv, lora, 1, 1}, {vt});
            const Id kq = g.op(Op::MulMat, Elem::F32, {n_kv, ub, nh, 1}, {kp, qp});
            const Id sm = g.unary(Op::SoftMax, kq, {mask});
            const Id kqv = g.op(Op::MulMat, Elem::F32, {lora, ub, nh, 1}, {v_cont, sm});
            const Id vm = g.op(Op::MulMat, Elem::F32, {hv, ub, nh, 1}, {W, kqv});
            cur = g.cont(g.permute(vm, 0, 2, 1, 3), {hv * nh, ub, 1, 1});
            g.markKqvOut(cur);
        }
        g.expand(cur);
        return cur;
    }

    // build_ffn with a gated activation (LLM_FFN_PAR): gate and up, ggml_swiglu_split or
    // ggml_geglu_split (neither runs in place), down.
    Id ffn(Id x, std::int64_t n_ff, bool fused_up = false) {
        if (fused_up) {
            const Id up = ffnMm(2 * n_ff, x);
            const Tensor& tu = g.at(up);
            return ffnMm(m_.n_embd, g.op(Op::Glu, Elem::F32, {n_ff, tu.ne[1], 1, 1}, {up}));
        }
        const Id gate = ffnMm(n_ff, x);
        const Id up = ffnMm(n_ff, x);
        return ffnMm(m_.n_embd, g.glu(gate, up));
    }
    // A matmul of the FFN's projections (graph::Tensor::ffn).
    Id ffnMm(std::int64_t rows, Id x) {
        const Id t = mm(rows, x);
        g.markFfn(t);
        return t;
    }

    // llm_graph_context::build_moe_ffn (src/llama-graph.cpp) with gated experts: router logits,
    // probabilities, the top n_expert_used (ggml_argsort + a view), their weights, the experts'
    // gate/up/down through ggml_mul_mat_id, weighted, and summed view by view.
    Id moe(Id x, const Family& f) {
        const std::int64_t n_embd = m_.n_embd;
        const std::int64_t n_expert = m_.moe.n_expert;
        const std::int64_t n_used = std::max<std::uint32_t>(1, m_.moe.n_expert_used);
        const std::int64_t n_ff = m_.n_ff_exp ? m_.n_ff_exp : m_.n_ff;
        const std::int64_t ub = ub_;
        const Id logits = mm(n_expert, x);
        const Id probs = f.moe_logit_bias ? g.add(logits, W)
                         : f.moe_sigmoid  ? g.unary(Op::Unary, logits)
                                          : g.unary(Op::SoftMax, logits);
        const Id probs_r = g.reshape(probs, {1, n_expert, ub, 1});
        const Id sel = f.moe_sort_logits ? logits : f.moe_probs_bias ? g.add(probs, W) : probs;
        const Id sorted = g.op(Op::Argsort, Elem::I32, {n_expert, ub, 1, 1}, {sel});
        const Tensor& ts = g.at(sorted);
        const Id topk = g.view(sorted, {n_used, ub, 1, 1}, ts.nb);
        Id weights = g.getRows(probs_r, topk);
        if (f.moe_norm_w) {
            const Id w2 = g.reshape(weights, {n_used, ub, 1, 1});
            const Id sum = g.op(Op::SumRows, Elem::F32, {1, ub, 1, 1}, {w2});
            const Id clamped = g.unary(Op::Clamp, sum);
            const Id normed = g.unary(Op::Div, w2, {clamped});
            weights = g.reshape(normed, {1, n_used, ub, 1});
        }
        if (f.moe_softmax_weights) {
            const Id w2 = g.reshape(weights, {n_used, ub, 1, 1});
            weights = g.reshape(g.unary(Op::SoftMax, w2), {1, n_used, ub, 1});
        }
        g.expand(weights); // build_moe_ffn expands the weights before the experts
        Id xr = g.reshape(x, {n_embd, 1, ub, 1});
        if (f.moe_weights_before) {
            const Id rep = g.op(Op::Repeat, Elem::F32, {n_embd, n_used, ub, 1}, {xr});
            xr = g.mul(rep, weights);
        }
        // ggml_add_id: every expert's bias row, [n_out, n_expert] f32.
        auto bias = [&](Id t) {
            if (!f.moe_expert_bias) return t;
            const Id b = g.unary(Op::AddId, t, {W, topk});
            g.setWeightBytes(b,
                             4 * static_cast<Bytes>(g.at(t).ne[0]) *
                                 static_cast<Bytes>(std::max<std::uint32_t>(1, m_.moe.n_expert)));
            return b;
        };
        Id act;
        if (m_.moe.gated_experts) {
            const Id gate =
                bias(g.op(Op::MulMatId, Elem::F32, {n_ff, n_used, ub, 1}, {W, xr, topk}));
            const Id up = bias(g.op(Op::MulMatId, Elem::F32, {n_ff, n_used, ub, 1}, {W, xr, topk}));
            act = g.glu(gate, up);
        } else {
            // build_moe_ffn without a gate bank: the activation of the up projection, in place.
            const Id up = bias(g.op(Op::MulMatId, Elem::F32, {n_ff, n_used, ub, 1}, {W, xr, topk}));
            act = g.unary(Op::Unary, up);
        }
        const Id down =
            bias(g.op(Op::MulMatId, Elem::F32, {n_embd, n_used, ub, 1}, {W, act, topk}));
        const Id weighted = f.moe_weights_before ? down : g.mul(down, weights);
        const Tensor& tw = g.at(weighted);
        const std::array<std::uint64_t, 4> nb{4, tw.nb[2], tw.nb[3], tw.nb[3]};
        std::vector<Id> views;
        views.reserve(static_cast<size_t>(n_used));
        for (std::int64_t i = 0; i < n_used; ++i)
            views.push_back(g.view(weighted, {n_embd, ub, 1, 1}, nb));
        Id out = views[0];
        for (size_t i = 1; i < views.size(); ++i)
            out = g.add(out, views[i]);
        if (views.size() == 1) out = g.cont(out, {n_embd, ub, 1, 1});
        g.expand(out); // build_moe_ffn's result is in the graph before the shared expert
        if (m_.moe.n_expert_shared > 0) {
            // The shared experts read the same normed input; their output is added after.
            Id shexp = ffn(x, m_.n_ff_shexp > 0 ? m_.n_ff_shexp : n_ff * m_.moe.n_expert_shared);
            // Qwen3-Next (qwen3next.cpp build_layer_ffn): scaled by sigmoid(ffn_gate_inp_shexp x).
            if (f.shexp_gate) shexp = g.mul(shexp, g.unary(Op::Unary, mm(1, x)));
            out = g.add(out, shexp);
        }
        return out;
    }

    // llm_graph_context::build_rs (src/llama-graph.cpp), in three steps as it builds them: the
    // state cache as rows (ggml_reshape_2d) with one row cleared in place (ggml_scale_inplace of
    // a view), the sequences' states gathered into the buffer (get_state_rows: ggml_get_rows
    // with s_copy_main, or the scan reading the rows itself), and the extra states copied within
    // the cache (a zero-row ggml_get_rows at reserve, every state being in the batch, copied
    // into a view of the cache). The reshape, the views, the clear and the copies are graph
    // nodes outside the buffer: they count in ggml_vk_graph_optimize's windows, and the freed
    // zero-byte rows leave the zero-size free block ggml-alloc then cannot merge across.
    struct StateCache {
        Id cache = kNone; // the layer's r_l or s_l
        Id rows = kNone;  // its reshape to [state_size, n_rs]
        std::int64_t size = 0;
    };
    StateCache stateCache(std::int64_t state_size, bool ssm = false) {
        StateCache rs{states(state_size, ssm), kNone, state_size};
        rs.rows = g.reshape(rs.cache, {state_size, 1, 1, 1});
        g.setCopyBytes(rs.rows, g.at(rs.cache).copy_bytes);
        const Id zero = g.view(rs.rows, {state_size, 1, 1, 1}, {4, 0, 0, 0});
        g.expand(g.externalNode(Op::Scale, {zero}, rs.cache));
        return rs;
    }
    Id stateRows(const StateCache& rs) {
        const Id rows =
            g.op(Op::GetRows, Elem::F32, {rs.size, n_seqs(), 1, 1}, {rs.rows, sCopyMain()});
        g.expand(rows);
        return rows;
    }
    void extraStates(const StateCache& rs) {
        const Id extra = g.op(Op::GetRows, Elem::F32, {rs.size, 0, 1, 1}, {rs.rows, sCopyExtra()});
        const Id dst = g.view(rs.cache, {rs.size, 0, 1, 1}, {4, 0, 0, 0});
        g.expand(g.externalNode(Op::Cpy, {extra, dst}, rs.cache));
    }
    // The block's new state written back: ggml_cpy into a view of the cache (ggml_view_1d).
    void writeState(Id from, const StateCache& rs) {
        const Id dst = g.view(rs.cache, {rs.size, 1, 1, 1}, {4, 0, 0, 0});
        g.expand(g.externalNode(Op::Cpy, {from, dst}, rs.cache));
    }

    // llm_build_mamba::build_mamba2_layer as llama.cpp v0.4.0 builds it (src/llama-model.cpp):
    // the conv state joined to the new xBC, ggml_ssm_conv, ggml_ssm_scan over the SSM state, the
    // gated group norm and the output projection.
    Id mamba2(Id x, bool group_norm = true) {
        const SsmShape& ssm = m_.ssm;
        const std::int64_t d_conv = ssm.d_conv, d_inner = ssm.d_inner, d_state = ssm.d_state;
        const std::int64_t n_group = ssm.n_group, n_head = ssm.dt_rank;
        const std::int64_t head_dim = d_inner / n_head;
        const std::int64_t n_seqs = this->n_seqs();
        const std::int64_t n_tok = ub_ / n_seqs;
        const std::int64_t ch = d_inner + 2 * n_group * d_state;
        const std::int64_t d_in_proj = 2 * d_inner + 2 * n_group * d_state + n_head;

        const StateCache conv_rs = stateCache((d_conv - 1) * ch);
        Id conv = stateRows(conv_rs);
        extraStates(conv_rs);
        conv = g.reshape(conv, {d_conv - 1, ch, n_seqs, 1});
        Id zxbcdt = mm(d_in_proj, x);
        zxbcdt = g.reshape(zxbcdt, {d_in_proj, n_tok, n_seqs, 1});
        const std::uint64_t nb1 = 4 * static_cast<std::uint64_t>(d_in_proj);
        const std::uint64_t nb2 = nb1 * static_cast<std::uint64_t>(n_tok);
        const Id z = g.view(zxbcdt, {head_dim, n_head, n_tok, n_seqs},
                            {4, 4 * static_cast<std::uint64_t>(head_dim), nb1, nb2});
        const Id xbc = g.view(zxbcdt, {ch, n_tok, n_seqs, 1}, {4, nb1, nb2, nb2 * n_seqs});
        const Id dt = g.view(zxbcdt, {n_head, n_tok, n_seqs, 1}, {4, nb1, nb2, nb2 * n_seqs});
        const Id conv_x = g.op(Op::Concat, Elem::F32, {d_conv - 1 + n_tok, ch, n_seqs, 1},
                               {conv, g.permute(xbc, 1, 0, 2, 3)});
        const Tensor& tc = g.at(conv_x);
        const Id last_conv = g.view(conv_x, {d_conv - 1, ch, n_seqs, 1}, tc.nb);
        writeState(last_conv, conv_rs);
        Id xs = g.op(Op::SsmConv, Elem::F32, {ch, n_tok, n_seqs, 1}, {conv_x, W});
        g.setWeightBytes(xs, 4 * static_cast<Bytes>(d_conv * ch)); // ssm_conv1d [d_conv, ch]
        xs = g.add(xs, W);
        xs = g.unary(Op::Unary, xs);
        const Tensor& tx = g.at(xs);
        const std::array<std::uint64_t, 4> xnb{4, 4 * static_cast<std::uint64_t>(head_dim),
                                               tx.nb[1], tx.nb[2]};
        const Id xv = g.view(xs, {head_dim, n_head, n_tok, n_seqs}, xnb);
        const std::array<std::uint64_t, 4> bnb{4, 4 * static_cast<std::uint64_t>(d_state), tx.nb[1],
                                               tx.nb[2]};
        const Id b = g.view(xs, {d_state, n_group, n_tok, n_seqs}, bnb);
        const Id c = g.view(xs, {d_state, n_group, n_tok, n_seqs}, bnb);
        const Id dtb = g.add(g.cont(dt, {n_head, n_tok, n_seqs, 1}), W);
        // build_rs with get_ssm_rows: the scan reads the states (ggml_reshape_4d of the rows)
        // through s_copy_main itself.
        const StateCache ssm_rs = stateCache(d_state * d_inner, true);
        const Id ssm4 = g.reshape(ssm_rs.rows, {d_state, head_dim, n_head, 1});
        const Id y_ssm = g.op(Op::SsmScan, Elem::F32,
                              {d_inner * n_tok * n_seqs + d_state * d_inner * n_seqs, 1, 1, 1},
                              {ssm4, xv, dtb, W, b, c, sCopyMain()});
        g.setWeightBytes(y_ssm, 4 * static_cast<Bytes>(n_head)); // ssm_a [1, n_head]
        g.expand(y_ssm);
        extraStates(ssm_rs);
        const Id y_state = g.view(y_ssm, {d_state * d_inner * n_seqs, 1, 1, 1}, {4, 0, 0, 0});
        writeState(y_state, ssm_rs);
        const std::uint64_t hd4 = 4 * static_cast<std::uint64_t>(head_dim);
        const Id y = g.view(y_ssm, {head_dim, n_head, n_tok, n_seqs},
                            {4, hd4, hd4 * n_head, hd4 * n_head * n_tok});
        const Id d_x = g.mul(xv, W);
        g.setWeightBytes(d_x, 4 * static_cast<Bytes>(n_head)); // ssm_d [1, n_head]
        const Id y_d = g.add(y, d_x);
        const Id zc = g.cont(z, {head_dim, n_head, n_tok, n_seqs});
        Id out = g.glu(zc, y_d);
        if (group_norm) {
            out = g.reshape(out, {d_inner / n_group, n_group, n_tok, n_seqs});
            out = g.mul(pinned(g.rmsNorm(out)), W);
            g.setWeightBytes(
                out, 4 * static_cast<Bytes>(d_inner)); // ssm_norm [d_inner / n_group, n_group]
        }
        out = g.reshape(out, {d_inner, n_tok, n_seqs, 1});
        return mm(m_.n_embd, out);
    }

    // llm_build_mamba_base::build_mamba_layer (llama.cpp v0.4.0 src/models/mamba-base.cpp), the
    // Mamba-1 block: x and z from one projection, the conv state joined to x, ggml_ssm_conv,
    // dt, B and C from x (RMS-normed where the layer has ssm_dt_norm, ssm_b_norm and ssm_c_norm,
    // as Jamba's do), ggml_ssm_scan with one head per inner channel, y + D x gated by z, the
    // output projection.
    Id mamba1(Id x, bool dt_b_c_norm) {
        const SsmShape& ssm = m_.ssm;
        const std::int64_t d_conv = ssm.d_conv, d_inner = ssm.d_inner, d_state = ssm.d_state;
        const std::int64_t dt_rank = ssm.dt_rank;
        const std::int64_t n_seqs = this->n_seqs();
        const std::int64_t n_tok = ub_ / n_seqs;

        const StateCache conv_rs = stateCache((d_conv - 1) * d_inner);
        Id conv = stateRows(conv_rs);
        extraStates(conv_rs);
        conv = g.reshape(conv, {d_conv - 1, d_inner, n_seqs, 1});
        x = g.reshape(x, {m_.n_embd, n_tok, n_seqs, 1});
        const Id xz = mm(2 * d_inner, x);
        const auto xznb = g.at(xz).nb;
        const Id xv = g.view(xz, {d_inner, n_tok, n_seqs, 1}, xznb);
        const Id z = g.view(xz, {d_inner, n_tok, n_seqs, 1}, xznb);
        const Id conv_x = g.op(Op::Concat, Elem::F32, {d_conv - 1 + n_tok, d_inner, n_seqs, 1},
                               {conv, g.permute(xv, 1, 0, 2, 3)});
        const Id last_conv = g.view(conv_x, {d_conv - 1, d_inner, n_seqs, 1}, g.at(conv_x).nb);
        writeState(last_conv, conv_rs);
        Id xs = g.op(Op::SsmConv, Elem::F32, {d_inner, n_tok, n_seqs, 1}, {conv_x, W});
        g.setWeightBytes(xs, 4 * static_cast<Bytes>(d_conv * d_inner)); // [d_conv, d_inner]
        xs = g.unary(Op::Unary, g.add(xs, W));

        const Id x_db = mm(dt_rank + 2 * d_state, xs);
        const auto dbnb = g.at(x_db).nb;
        Id dt = g.view(x_db, {dt_rank, n_tok, n_seqs, 1}, dbnb);
        const std::array<std::uint64_t, 4> bcnb{4, 4 * static_cast<std::uint64_t>(d_state), dbnb[1],
                                                dbnb[2]};
        Id b = g.view(x_db, {d_state, 1, n_tok, n_seqs}, bcnb);
        Id c = g.view(x_db, {d_state, 1, n_tok, n_seqs}, bcnb);
        if (dt_b_c_norm) {
            dt = g.mul(g.rmsNorm(dt), W);
            b = g.mul(g.rmsNorm(b), W);
            c = g.mul(g.rmsNorm(c), W);
        }
        dt = g.add(mm(d_inner, dt), W);
        const Id x4 = g.reshape(xs, {1, d_inner, n_tok, n_seqs});
        // build_rs with get_ssm_rows: the scan reads the states through s_copy_main itself.
        const StateCache ssm_rs = stateCache(d_state * d_inner, true);
        const Id ssm3 = g.reshape(ssm_rs.rows, {d_state, d_inner, 1, 1});
        const Id y_ssm = g.op(Op::SsmScan, Elem::F32,
                              {d_inner * n_tok * n_seqs + d_state * d_inner * n_seqs, 1, 1, 1},
                              {ssm3, x4, dt, W, b, c, sCopyMain()});
        g.setWeightBytes(y_ssm, 4 * static_cast<Bytes>(d_state * d_inner)); // ssm_a
        g.expand(y_ssm);
        extraStates(ssm_rs);
        const Id y_state = g.view(y_ssm, {d_state * d_inner * n_seqs, 1, 1, 1}, {4, 0, 0, 0});
        writeState(y_state, ssm_rs);
        const std::uint64_t row = 4 * static_cast<std::uint64_t>(d_inner);
        const Id y = g.view(y_ssm, {d_inner, n_tok, n_seqs, 1},
                            {4, row, row * static_cast<std::uint64_t>(n_tok),
                             row * static_cast<std::uint64_t>(n_tok * n_seqs)});
        const Id y_d = g.add(y, g.mul(xs, W));
        const Id out = mm(m_.n_embd, g.glu(g.cont(z, {d_inner, n_tok, n_seqs, 1}), y_d));
        return g.reshape(out, {m_.n_embd, n_tok * n_seqs, 1, 1});
    }

    // llama_model_jamba::graph (llama.cpp v0.4.0 src/models/jamba.cpp): Mamba-1 blocks and
    // attention blocks without RoPE, each followed by a dense or routed-expert FFN; the residual
    // is add(inpL, cur), the last block keeps the output rows before it.
    Bytes jamba(const Family& f) {
        Id inpL = embeddings();
        const size_t n_layer = m_.layers.size();
        for (size_t il = 0; il < n_layer; ++il) {
            g.setLayer(static_cast<std::int32_t>(il));
            const LayerShape& l = m_.layers[il];
            const Id normed = norm(inpL, f);
            Id cur =
                l.isRecurrent() ? mamba1(normed, true) : mm(m_.n_embd, attention(l, normed, f));
            if (il + 1 == n_layer) {
                cur = g.getRows(cur, outIds());
                inpL = g.getRows(inpL, outIds());
            }
            const Id ffn_inp = g.add(inpL, cur);
            const Id ffn_in = norm(ffn_inp, f);
            cur = l.experts_bytes > 0 ? moe(ffn_in, f) : ffn(ffn_in, m_.n_ff);
            inpL = g.add(ffn_inp, cur);
        }
        return finish(inpL, f);
    }

    // llama_model_qwen3next::graph::build_layer_attn (llama.cpp v0.4.0 src/models/qwen3next.cpp):
    // one Q projection of twice the heads' width, Q and the output gate strided views of it.
    Id gatedQuery(Id x, std::int64_t n_head, std::int64_t hd) {
        const Id full = g.reshape(mm(2 * n_head * hd, x), {2 * hd, n_head, ub_, 1});
        const auto nb = g.at(full).nb;
        q_gate_ = g.view(full, {hd, n_head, ub_, 1}, nb);
        return g.view(full, {hd, n_head, ub_, 1}, nb);
    }

    // llama_model_qwen3next::graph::build_layer_attn_linear (src/models/qwen3next.cpp) with the
    // fused wqkv / wqkv_gate projections: the conv state joined to QKV (delta-net-base.cpp
    // build_conv_state), ggml_ssm_conv, Q and K L2-normed and repeated to the value heads, beta
    // and the decay gate from ssm_beta_alpha, ggml_gated_delta_net over the gathered state
    // (build_recurrent_attn, build_delta_net_fused), the gated RMS norm by z and the output
    // projection.
    Id gatedDeltaNet(Id x) {
        const SsmShape& ssm = m_.ssm;
        const std::int64_t d_conv = ssm.d_conv, d_inner = ssm.d_inner;
        const std::int64_t hk = ssm.d_state, nk = ssm.n_group, nv = ssm.dt_rank;
        const std::int64_t hv = d_inner / nv;
        const std::int64_t n_seqs = this->n_seqs();
        const std::int64_t n_tok = ub_ / n_seqs;
        const std::int64_t ch = d_inner + 2 * nk * hk;

        const StateCache conv_rs = stateCache((d_conv - 1) * ch);
        Id conv = stateRows(conv_rs);
        extraStates(conv_rs);
        conv = g.reshape(conv, {d_conv - 1, ch, n_seqs, 1});
        const Id qkv = g.reshape(mm(ch, x), {ch, n_tok, n_seqs, 1});
        const Id conv_in = g.op(Op::Concat, Elem::F32, {d_conv - 1 + n_tok, ch, n_seqs, 1},
                                {conv, g.permute(qkv, 1, 0, 2, 3)});
        const Id last = g.view(conv_in, {d_conv - 1, ch, n_seqs, 1}, g.at(conv_in).nb);
        // The delta-net state is the block's s_l, the conv state its r_l (build_rs on each).
        writeState(last, conv_rs);
        const StateCache state_rs = stateCache(hv * hv * nv, true);
        Id state = stateRows(state_rs);
        extraStates(state_rs);
        state = g.reshape(state, {hv, hv, nv, n_seqs});

        const Id conv_out = g.op(Op::SsmConv, Elem::F32, {ch, n_tok, n_seqs, 1}, {conv_in, W});
        g.setWeightBytes(conv_out, 4 * static_cast<Bytes>(d_conv * ch)); // ssm_conv1d
        const Id mix = g.unary(Op::Unary, conv_out);
        const std::uint64_t row = 4 * static_cast<std::uint64_t>(ch);
        const std::array<std::uint64_t, 4> knb{4, 4 * static_cast<std::uint64_t>(hk), row,
                                               row * static_cast<std::uint64_t>(n_tok)};
        const std::array<std::uint64_t, 4> vnb{4, 4 * static_cast<std::uint64_t>(hv), row,
                                               row * static_cast<std::uint64_t>(n_tok)};
        auto qk = [&]() {
            Id t = g.unary(Op::L2Norm, g.view(mix, {hk, nk, n_tok, n_seqs}, knb));
            if (nk == nv) return t;
            const std::int64_t r = nv / nk;
            t = g.reshape(t, {hk, 1, nk, n_tok * n_seqs});
            t = g.op(Op::Repeat, Elem::F32, {hk, r, nk, n_tok * n_seqs}, {t});
            return g.reshape(t, {hk, nk * r, n_tok, n_seqs});
        };
        const Id q = qk();
        const Id k = qk();
        const Id v = g.view(mix, {hv, nv, n_tok, n_seqs}, vnb);

        const Id ba = g.reshape(mm(2 * nv, x), {2 * nv / nk, nk, n_tok, n_seqs});
        const auto banb = g.at(ba).nb;
        const Id b = g.view(ba, {nv / nk, nk, n_tok, n_seqs}, banb);
        const Id a = g.view(ba, {nv / nk, nk, n_tok, n_seqs}, banb);
        const Id beta = g.reshape(g.unary(Op::Unary, g.cont(b, {nv / nk, nk, n_tok, n_seqs})),
                                  {1, nv, n_tok, n_seqs});
        Id gate = g.add(g.cont(a, {nv, n_tok, n_seqs, 1}), W);
        gate = g.reshape(g.mul(g.unary(Op::Unary, gate), W), {1, nv, n_tok, n_seqs});

        const Id gdn =
            g.op(Op::GatedDeltaNet, Elem::F32, {hv * nv, n_tok * n_seqs + hv * n_seqs, 1, 1},
                 {q, k, v, gate, beta, state});
        const std::uint64_t h4 = 4 * static_cast<std::uint64_t>(hv);
        const Id new_state = g.view(
            gdn, {hv, hv, nv, n_seqs},
            {4, h4, h4 * static_cast<std::uint64_t>(hv), h4 * static_cast<std::uint64_t>(hv * nv)});
        writeState(new_state, state_rs);
        const Id out = g.view(gdn, {hv, nv, n_tok, n_seqs},
                              {4, h4, h4 * static_cast<std::uint64_t>(nv),
                               h4 * static_cast<std::uint64_t>(nv * n_tok)});
        const Id normed = g.mul(g.rmsNorm(out), W);
        const Id z = g.reshape(mm(hv * nv, x), {hv, nv, n_tok, n_seqs});
        const Id gated =
            g.reshape(g.mul(normed, g.unary(Op::Unary, z)), {hv * nv, n_tok, n_seqs, 1});
        return g.reshape(mm(m_.n_embd, gated), {m_.n_embd, n_tok * n_seqs, 1, 1});
    }

    // llama_model_qwen3next::graph (src/models/qwen3next.cpp): each block's normed input
    // expanded first, a gated delta-net or gated attention block, the residual, the post-attention
    // norm, the routed experts plus the gated shared expert, the residual. The last block runs on
    // the whole micro-batch; the final norm (h_nextn) is a graph output and result_norm gathers
    // its output rows (embeddings_nextn_masked off).
    Bytes qwen3next(const Family& f) {
        Id inpL = embeddings();
        for (size_t il = 0; il < m_.layers.size(); ++il) {
            const LayerShape& l = m_.layers[il];
            if (l.is_mtp) continue;
            g.setLayer(static_cast<std::int32_t>(il));
            const Id normed = norm(inpL, f);
            g.expand(normed);
            Id cur;
            if (l.isRecurrent()) {
                cur = gatedDeltaNet(normed);
            } else {
                cur = attention(l, normed, f);
                const Id gate = g.cont(q_gate_, {g.at(cur).ne[0], ub_, 1, 1});
                cur = mm(m_.n_embd, g.mul(cur, g.unary(Op::Unary, gate)));
            }
            const Id residual = g.add(cur, inpL);
            const Id ffn_out =
                l.experts_bytes > 0 ? moe(norm(residual, f), f) : ffn(norm(residual, f), m_.n_ff);
            inpL = g.add(ffn_out, residual);
        }
        g.setLayer(static_cast<std::int32_t>(m_.layers.size())); // the output layer
        const Id h = norm(inpL, f);
        g.setOutput(h);
        const Id result_norm = g.getRows(h, outIds());
        const Id out = mm(m_.n_vocab, result_norm);
        g.setOutput(result_norm);
        g.setOutput(out);
        g.expand(out);
        return replay_cpu ? graph::replayPeak(g, kCpuAlignment) : 0;
    }

    // The shared-KV layers of Gemma 3n (llama_model_gemma3n::graph, the branch without
    // has_kv(il)): Q only, attention over the cache of an earlier layer of the same kind
    // (llm_graph_context::build_attn for llm_graph_input_attn_kv_iswa with k_cur = v_cur =
    // nullptr: no cache write, Q still rotated with a quantized cache).
    // `src` is the layer whose cache it reads (llama_model::create_memory's reuse callback for
    // Gemma 3n: n_layer_kv_from_start - 2 for a sliding-window layer, - 1 otherwise): K and V are
    // views of that layer's cache, on that layer's device.
    Id queryOnlyAttention(const LayerShape& l, Id x, bool swa, std::int64_t hd, size_t src) {
        const std::int64_t n_head = l.n_head, ub = ub_;
        // Fresh views per read (llama_kv_cache::get_k / get_v), as the scheduler copies each.
        const std::int32_t here = g.layer();
        g.setLayer(static_cast<std::int32_t>(src));
        const std::int64_t n_kv = swa ? p_.n_kv_swa : p_.n_kv;
        const LayerShape& ls = m_.layers[src];
        const auto cells = static_cast<Bytes>(n_kv) * static_cast<Bytes>(n_seqs());
        const Id kc = g.cacheRead(satMul(ggmlRowBytes(p_.type_k, ls.n_embd_k_gqa), cells));
        const Id vc = g.cacheRead(satMul(ggmlRowBytes(p_.type_v, ls.n_embd_v_gqa), cells));
        g.setLayer(here);
        Id q = g.reshape(mm(n_head * hd, x), {hd, n_head, ub, 1});
        q = g.unary(Op::Rope, g.mul(g.rmsNorm(q), W), {positions(), ropeFactors()});
        const int k_rot = kRot(swa);
        const int v_rot = vRot(swa);
        if (k_rot > 0) q = hadamard(q, rotInput(swa, false, k_rot));
        g.expand(q);
        const Tensor& tq = g.at(q);
        const Id qp = g.permute(g.view(q, tq.ne, tq.nb), 0, 2, 1, 3);
        const Id mask = kqMask(swa);
        Id cur;
        if (p_.flash_attn) {
            const Id fa = g.op(Op::FlashAttn, Elem::F32, {hd, n_head, ub, 1}, {qp, kc, vc, mask});
            f16Copies(fa, static_cast<std::int64_t>(ls.n_embd_k_gqa) * n_kv * n_seqs(),
                      static_cast<std::int64_t>(ls.n_embd_v_gqa) * n_kv * n_seqs());
            cur = g.reshape(fa, {hd * n_head, ub, 1, 1});
        } else {
            const Id kq = g.op(Op::MulMat, Elem::F32, {n_kv, ub, n_head, 1}, {kc, qp});
            const Id sm = g.unary(Op::SoftMax, kq, {mask});
            const Id kqv = g.op(Op::MulMat, Elem::F32, {hd, ub, n_head, 1}, {vc, sm});
            cur = g.cont(g.permute(kqv, 0, 2, 1, 3), {hd * n_head, ub, 1, 1});
            g.markKqvOut(cur);
        }
        g.expand(cur);
        if (v_rot > 0) cur = hadamard(cur, rotInput(swa, true, v_rot));
        return cur;
    }

    // Gemma 3n's fixed sizes (llama.cpp v0.4.0 src/llama-hparams.h: n_altup 4, i_altup_act 0,
    // laurel_rank 64, n_embd_altup 256; src/models/models.h: n_layer_sparsity 10).
    static constexpr std::int64_t kAltup = 4, kAltupAct = 0, kLaurelRank = 64, kEmbdAltup = 256;
    static constexpr size_t kSparsityLayers = 10;

    // ggml_view_2d_slice (src/models/gemma3n.cpp): the idx-th [ne0, ne1] plane of a 3-d tensor.
    Id slice(Id x) {
        const Tensor& t = g.at(x);
        return g.view(x, {t.ne[0], t.ne[1], 1, 1}, {4, t.nb[1], t.nb[2], t.nb[2]});
    }
    // The planes after the first (gemma3n.cpp: "corrected_predictions[1:]", the unembedding).
    Id restSlices(Id x) {
        const Tensor& t = g.at(x);
        return g.view(x, {t.ne[0], t.ne[1], t.ne[2] - 1, 1}, {4, t.nb[1], t.nb[2], t.nb[3]});
    }
    // llama_model_gemma3n::graph::calc_magnitude: sqrt(sum_rows(x^2)).
    Id magnitude(Id x) {
        const auto ne = g.at(x).ne;
        const Id sum =
            g.op(Op::SumRows, Elem::F32, {1, ne[1], ne[2], ne[3]}, {g.unary(Op::Sqr, x)});
        return g.unary(Op::Sqrt, sum);
    }
    // altup_compute_router_modalities: tanh(router(norm(x) / n_embd)), [n_altup, ub].
    // The block's altup_router and altup_router_norm are read twice (altup_predict and
    // altup_correct): one tensor each per block (Graph::ownWeight), so that the scheduler copies
    // them to another backend once and keeps the copy (tensor_id_copy), as llama.cpp does. Their
    // sizes as f32: [n_embd] and [n_embd, n_altup] (a router this small is not quantized).
    Id modalities(Id x) {
        if (router_layer_ != g.layer()) {
            router_layer_ = g.layer();
            router_norm_ = g.ownWeight(4 * static_cast<Bytes>(m_.n_embd));
            router_ = g.ownWeight(4 * static_cast<Bytes>(m_.n_embd) * kAltup);
        }
        const Id normed = g.scale(g.mul(g.rmsNorm(x), router_norm_));
        const Tensor& tn = g.at(normed);
        return g.unary(Op::Unary, g.op(Op::MulMat, Elem::F32,
                                       {kAltup, tn.ne[1], tn.ne[2], tn.ne[3]}, {router_, normed}));
    }
    // gaussian_topk: relu(x - (mean + std * k)) per row.
    Id gaussianTopk(Id x) {
        const std::int64_t ub = g.at(x).ne[1];
        const Id mean = g.op(Op::Mean, Elem::F32, {1, ub, 1, 1}, {x});
        const Id sq = g.unary(Op::Sqr, g.unary(Op::Sub, x, {mean}));
        const Id var = g.scale(g.op(Op::SumRows, Elem::F32, {1, ub, 1, 1}, {sq}));
        const Id cutoff = g.add(mean, g.scale(g.unary(Op::Sqrt, var)));
        return g.unary(Op::Unary, g.unary(Op::Sub, x, {cutoff}));
    }

    // llama_model_gemma3n::graph (llama.cpp v0.4.0 src/models/gemma3n.cpp): per-layer token
    // inputs (build_inp_per_layer, project_per_layer_inputs), the embedding stacked into n_altup
    // streams, and per layer altup_predict, attention (shared-KV layers read an earlier cache),
    // LAUREL, the FFN with activation sparsity in the first layers, altup_correct and the
    // per-layer input gate; the streams merged back (altup_unembd_proj) before the output rows.
    Bytes gemma3n(const Family& f) {
        const std::int64_t E = m_.n_embd, ub = ub_, A = kAltup, P = kEmbdAltup;
        const auto L = static_cast<std::int64_t>(m_.layers.size());
        // Sliding-window layers by hparams.set_swa_pattern (every period-th layer full), the
        // period read from the first full-attention layer; the shared-KV layers follow it.
        std::int64_t period = 0;
        std::int64_t hd_full = 0, hd_swa = 0;
        for (std::int64_t il = 0; il < L; ++il) {
            const LayerShape& l = m_.layers[static_cast<size_t>(il)];
            if (!l.hasKv()) continue;
            const std::int64_t hd = l.n_embd_k_gqa / l.n_head_kv;
            (l.isSwa() ? hd_swa : hd_full) = hd;
            if (period == 0 && !l.isSwa()) period = il + 1;
        }
        // The shared-KV layers read the cache of the last layer of their kind before them.
        size_t kv_from_start = 0;
        while (kv_from_start < m_.layers.size() && m_.layers[kv_from_start].hasKv())
            ++kv_from_start;
        const Id embd = embeddings();
        const Id per_tokens = g.input(Elem::I32, ub);
        Id per_layer_tok = g.op(Op::GetRows, Elem::F32, {P * L, ub, 1, 1}, {W, per_tokens});
        per_layer_tok = g.scale(g.reshape(per_layer_tok, {P, L, ub, 1}));
        g.expand(per_layer_tok);
        Id inpL = g.scale(embd);
        // per_layer_model_proj and per_layer_proj_norm are made with block 0's number
        // (ModelShape::first_block_bytes), altup_proj and altup_unembd_proj are output-layer
        // tensors (src/llama-arch.cpp LLM_TENSOR_LAYER_OUTPUT): their ops are tagged so.
        g.setLayer(0);
        Id proj = g.scale(mm(P * L, inpL));
        proj = g.mul(g.rmsNorm(g.reshape(proj, {P, L, ub, 1})), W);
        proj = g.scale(g.add(proj, per_layer_tok));
        const Id per_layer = g.cont(g.permute(proj, 0, 2, 1, 3), {P, ub, L, 1});
        g.setLayer(static_cast<std::int32_t>(L));
        {
            const Id target = magnitude(inpL);
            const Id rep = g.op(Op::Repeat, Elem::F32, {E, ub, A - 1, 1}, {inpL});
            Id added = g.op(Op::MulMat, Elem::F32, {E, ub, A - 1, 1}, {W, rep});
            const Id new_mag = magnitude(added);
            added = g.unary(Op::Div, g.mul(added, target), {new_mag});
            inpL = g.op(Op::Concat, Elem::F32, {E, ub, A, 1}, {inpL, added});
        }
        for (std::int64_t il = 0; il < L; ++il) {
            const LayerShape& l = m_.layers[static_cast<size_t>(il)];
            g.setLayer(static_cast<std::int32_t>(il));
            // altup_predict
            const Id coefs = g.reshape(mm(A * A, modalities(slice(inpL))), {A, A, ub, 1});
            const Id cur_perm = g.cont(g.permute(inpL, 1, 2, 0, 3), {A, E, ub, 1});
            Id pred = g.op(Op::MulMat, Elem::F32, {E, A, ub, 1}, {cur_perm, coefs});
            pred = g.add(g.cont(g.permute(pred, 0, 2, 1, 3), {E, ub, A, 1}), inpL);
            const Id active = slice(pred);
            const Id normed = g.mul(g.rmsNorm(active), W);
            // laurel
            Id laurel = mm(E, mm(kLaurelRank, normed));
            laurel = g.add(g.mul(g.rmsNorm(laurel), W), normed);
            const bool swa = l.hasKv() ? l.isSwa() : period > 0 && il % period < period - 1;
            const size_t back = swa ? 2 : 1;
            const size_t src = kv_from_start >= back ? kv_from_start - back : 0;
            Id cur = l.hasKv() ? attention(l, normed, f)
                               : queryOnlyAttention(l, normed, swa, swa ? hd_swa : hd_full, src);
            cur = g.mul(g.rmsNorm(mm(E, cur)), W);
            cur = g.add(cur, active);
            const Id attn_laurel = g.scale(g.add(cur, laurel));
            cur = g.mul(g.rmsNorm(attn_laurel), W);
            const Id up = ffnMm(m_.n_ff, cur);
            Id gate = ffnMm(m_.n_ff, cur);
            if (static_cast<size_t>(il) < kSparsityLayers) gate = gaussianTopk(gate);
            cur = ffnMm(E, g.mul(up, g.unary(Op::Unary, gate)));
            cur = g.mul(g.rmsNorm(cur), W);
            const Id activated = g.add(cur, attn_laurel);
            // altup_correct
            const Id mods = modalities(activated);
            const Id innovation = g.unary(Op::Sub, activated, {slice(pred)});
            Id ccoefs = g.scale(mm(A, mods));
            ccoefs = g.cont(g.permute(ccoefs, 1, 0, 2, 3), {1, ub, A, 1});
            const Id rep = g.op(Op::Repeat, Elem::F32, {E, ub, A, 1}, {innovation});
            const Id corrected = g.add(g.mul(rep, ccoefs), pred);
            // the per-layer input gate of the active stream
            Id first = g.unary(Op::Unary, mm(P, g.mul(slice(corrected), W)));
            const Tensor& tp = g.at(per_layer);
            const Id this_layer =
                g.view(per_layer, {P, ub, 1, 1}, {4, tp.nb[1], tp.nb[2], tp.nb[2]});
            first = g.mul(g.rmsNorm(mm(E, g.mul(first, this_layer))), W);
            const Id head = slice(corrected);
            const Id tmp = g.add(restSlices(corrected), first);
            inpL = g.op(Op::Concat, Elem::F32, {E, ub, A, 1}, {head, tmp});
        }
        g.setLayer(static_cast<std::int32_t>(L)); // the output layer
        const Id target = magnitude(slice(inpL));
        Id unembd = g.op(Op::MulMat, Elem::F32, {E, ub, A - 1, 1}, {W, restSlices(inpL)});
        const Id new_mag = magnitude(unembd);
        unembd = g.unary(Op::Div, g.mul(unembd, target), {new_mag});
        Id cur = slice(inpL);
        const Tensor& tu = g.at(unembd);
        for (std::int64_t i = 0; i + 1 < A; ++i)
            cur = g.add(cur, g.view(unembd, {E, ub, 1, 1}, {4, tu.nb[1], tu.nb[2], tu.nb[2]}));
        cur = g.getRows(g.scale(cur), outIds());
        const Id result_norm = g.mul(g.rmsNorm(cur), W);
        const Id out = g.scale(g.unary(Op::Unary, g.scale(mm(m_.n_vocab, result_norm))));
        g.setOutput(result_norm);
        g.setOutput(out);
        g.expand(out);
        return replay_cpu ? graph::replayPeak(g, kCpuAlignment) : 0;
    }

    Bytes mamba2Model() {
        Id inpL = embeddings();
        const size_t n_layer = m_.layers.size();
        const Family f;
        for (size_t il = 0; il < n_layer; ++il) {
            g.setLayer(static_cast<std::int32_t>(il));
            Id cur = mamba2(norm(inpL, f));
            if (il + 1 == n_layer) {
                cur = g.getRows(cur, outIds());
                inpL = g.getRows(inpL, outIds());
            }
            inpL = g.add(cur, inpL);
        }
        return finish(inpL, f);
    }

    Id norm(Id x, const Family& f) {
        return g.mul(pinned(f.layer_norm ? g.norm(x) : g.rmsNorm(x)), W);
    }
    // llm_graph_context::build_norm names a weighted norm "norm" (cb(cur, "norm", il)), and
    // llama_context::graph_get_cb pins it to its block's device under full offload or a
    // micro-batch under 32 (compute_graph.h Tensor::layer_norm_pin).
    Id pinned(Id t) {
        g.pinToLayer(t);
        return t;
    }

    // The residual add and the FFN after a block's attention or SSM output `cur`.
    Id ffnBlock(const LayerShape& l, Id cur, Id inpSA, const Family& f) {
        if (f.post_norms) cur = norm(cur, f);
        if (f.residual_scale) cur = g.scale(cur);
        const Id ffn_inp = g.add(cur, inpSA);
        const Id ffn_in = norm(ffn_inp, f);
        cur = l.experts_bytes > 0 ? moe(ffn_in, f) : ffn(ffn_in, m_.n_ff, f.fused_up);
        if (f.post_norms) cur = norm(cur, f);
        if (f.residual_scale) cur = g.scale(cur);
        return f.residual_first ? g.add(ffn_inp, cur) : g.add(cur, ffn_inp);
    }

    Bytes falconH1(const Family& f) {
        Id inpL = embeddings();
        size_t n_layer = 0;
        for (const LayerShape& l : m_.layers)
            n_layer += l.is_mtp ? 0 : 1;
        for (size_t il = 0; il < n_layer; ++il) {
            g.setLayer(static_cast<std::int32_t>(il));
            // Attention and SSM each norm the block's input with the one attn_norm weight
            // (llm_build_falcon_h1): a tensor of its own, copied to another backend once and kept
            // for both (tensor_id_copy).
            const Id attn_norm = g.ownWeight(4 * static_cast<Bytes>(m_.n_embd));
            auto normed = [&] { return g.mul(pinned(g.rmsNorm(inpL)), attn_norm); };
            const Id attn = attention(m_.layers[il], normed(), f);
            const Id ssm = mamba2(normed(), false);
            const Id layer_out = g.add(mm(m_.n_embd, attn), ssm);
            Id ffn_inp = g.add(layer_out, inpL);
            if (il + 1 == n_layer) ffn_inp = g.getRows(ffn_inp, outIds());
            inpL = g.add(ffn(norm(ffn_inp, f), m_.n_ff), ffn_inp);
        }
        return finish(inpL, f);
    }

    // llm_build_lfm2 (llama.cpp v0.4.0): short-convolution blocks (B, C and x from one
    // projection, the conv state joined to B*x, ggml_ssm_conv, gated by C) and attention blocks,
    // each followed by the FFN; residuals first.
    Bytes lfm2(const Family& f) {
        Id inpL = embeddings();
        size_t n_layer = 0;
        for (const LayerShape& l : m_.layers)
            n_layer += l.is_mtp ? 0 : 1;
        const std::int64_t n_embd = m_.n_embd, ub = ub_, n_seqs = this->n_seqs();
        const std::int64_t n_tok = ub / n_seqs;
        for (size_t il = 0; il < n_layer; ++il) {
            g.setLayer(static_cast<std::int32_t>(il));
            const LayerShape& l = m_.layers[il];
            Id out;
            if (l.isRecurrent()) {
                const std::int64_t lc = static_cast<std::int64_t>(l.recurrent_r) / n_embd;
                const StateCache conv_rs = stateCache(lc * n_embd);
                Id conv = stateRows(conv_rs);
                extraStates(conv_rs);
                conv = g.reshape(conv, {lc, n_embd, n_seqs, 1});
                const Id x = g.reshape(norm(inpL, f), {n_embd, n_tok, n_seqs, 1});
                const Id bcx = mm(3 * n_embd, x);
                const auto nb = g.at(bcx).nb;
                const std::array<std::uint64_t, 4> vnb{4, nb[1], nb[1] * n_tok, nb[1] * ub};
                const Id b = g.view(bcx, {n_embd, n_tok, n_seqs, 1}, vnb);
                const Id xv = g.view(bcx, {n_embd, n_tok, n_seqs, 1}, vnb);
                const Id bx = g.mul(b, xv);
                const Id conv_x = g.op(Op::Concat, Elem::F32, {lc + n_tok, n_embd, n_seqs, 1},
                                       {conv, g.permute(bx, 1, 0, 2, 3)});
                const Id last = g.view(conv_x, {lc, n_embd, n_seqs, 1}, g.at(conv_x).nb);
                writeState(last, conv_rs);
                const Id c = g.view(bcx, {n_embd, n_tok, n_seqs, 1}, vnb);
                const Id y = g.op(Op::SsmConv, Elem::F32, {n_embd, n_tok, n_seqs, 1}, {conv_x, W});
                g.setWeightBytes(y, 4 * static_cast<Bytes>((lc + 1) * n_embd)); // conv [L, n_embd]
                out = g.reshape(mm(n_embd, g.mul(c, y)), {n_embd, ub, 1, 1});
            } else {
                out = mm(n_embd, attention(l, norm(inpL, f), f));
            }
            Id res = inpL;
            if (il + 1 == n_layer) {
                res = g.getRows(res, outIds());
                out = g.getRows(out, outIds());
            }
            const Id ffn_inp = g.add(res, out);
            inpL = g.add(ffn_inp, ffn(norm(ffn_inp, f), m_.n_ff));
        }
        return finish(inpL, f);
    }

    Bytes nemotronH(const Family& f) {
        Id inpL = embeddings();
        for (size_t il = 0; il < m_.layers.size(); ++il) {
            const LayerShape& l = m_.layers[il];
            if (l.is_mtp) continue;
            g.setLayer(static_cast<std::int32_t>(il));
            const Id normed = norm(inpL, f);
            Id cur;
            if (l.isRecurrent())
                cur = mamba2(normed);
            else if (l.hasKv())
                cur = mm(m_.n_embd, attention(l, normed, f));
            else
                cur = mm(m_.n_embd, g.unary(Op::Sqr, g.unary(Op::Unary, mm(m_.n_ff, normed))));
            inpL = g.add(cur, inpL);
        }
        g.setLayer(static_cast<std::int32_t>(m_.layers.size())); // the output layer
        const Id h = norm(inpL, f);
        g.setOutput(h);
        const Id result_norm = g.getRows(h, outIds());
        const Id out = mm(m_.n_vocab, result_norm);
        g.setOutput(result_norm);
        g.setOutput(out);
        g.expand(out);
        return replay_cpu ? graph::replayPeak(g, kCpuAlignment) : 0;
    }

    Bytes dense(const Family& f) {
        Id inpL = embeddings();
        if (f.embd_scale) inpL = g.scale(inpL);
        if (f.embd_scale_in_input) g.expand(inpL);
        // Next-token-prediction blocks are not part of the main graph.
        size_t n_layer = 0;
        for (const LayerShape& l : m_.layers)
            n_layer += l.is_mtp ? 0 : 1;
        for (size_t il = 0; il < n_layer; ++il) {
            g.setLayer(static_cast<std::int32_t>(il));
            const LayerShape& l = m_.layers[il];
            const bool last = il + 1 == n_layer;
            Id inpSA = inpL;
            Id normed = norm(inpL, f);
            if (l.isRecurrent()) {
                // A Mamba-2 block in a hybrid (llm_build_granite_hybrid): the same residual and
                // FFN follow it.
                Id cur = mamba2(normed);
                if (last) {
                    cur = g.getRows(cur, outIds());
                    inpSA = g.getRows(inpSA, outIds());
                }
                inpL = ffnBlock(l, cur, inpSA, f);
                continue;
            }
            Id cur = attention(l, normed, f);
            if (f.parallel) {
                // llm_build_command_r: the FFN reads the normed input too; the block's output
                // adds the FFN, the residual and the attention.
                Id attn_out = mm(m_.n_embd, cur);
                if (last) {
                    normed = g.getRows(normed, outIds());
                    inpSA = g.getRows(inpSA, outIds());
                    attn_out = g.getRows(attn_out, outIds());
                }
                const Id ffn_out = ffn(normed, m_.n_ff);
                inpL = g.add(g.add(ffn_out, inpSA), attn_out);
                continue;
            }
            cur = mm(m_.n_embd, cur);
            if (f.attn_out_bias) cur = g.add(cur, W);
            if (last && !f.rows_after_last) {
                cur = g.getRows(cur, outIds());
                inpSA = g.getRows(inpSA, outIds());
            }
            inpL = ffnBlock(l, cur, inpSA, f);
        }
        if (f.rows_after_last) {
            g.setOutput(inpL);
            inpL = g.getRows(inpL, outIds());
        }
        return finish(inpL, f);
    }

    // The final norm (result_norm) and the output head (result_output), both graph outputs
    // (llm_graph_result::set_outputs -> ggml_set_output).
    Bytes finish(Id inpL, const Family& f) {
        g.setLayer(static_cast<std::int32_t>(m_.layers.size())); // the output layer
        const Id result_norm = norm(inpL, f);
        Id out = mm(m_.n_vocab, result_norm);
        if (f.logit_scale) out = g.scale(out);
        if (f.softcap) out = g.scale(g.unary(Op::Unary, g.scale(out)));
        g.setOutput(result_norm);
        g.setOutput(out);
        g.expand(out);
        return replay_cpu ? graph::replayPeak(g, kCpuAlignment) : 0;
    }
    const Graph& built() const { return g; }

private:
    Id mm(std::int64_t rows, Id x) {
        const Tensor& t = g.at(x);
        return g.op(Op::MulMat, Elem::F32, {rows, t.ne[1], t.ne[2], t.ne[3]}, {W, x});
    }

    // llm_graph_context::build_inp_embd: token ids, their rows of token_embd, and the unread
    // embeddings input (an input leaf ggml-alloc allocates and never frees).
    Id embeddings() {
        tokens_ = g.input(Elem::I32, ub_);
        const Id embd = g.op(Op::GetRows, Elem::F32, {m_.n_embd, ub_, 1, 1}, {W, tokens_});
        g.expand(embd);
        g.expand(g.input(Elem::F32, m_.n_embd, ub_));
        return embd;
    }
    // llm_graph_input_attn_temp: the NoPE layers' per-token attention scale.
    Id attnScale() {
        if (attn_scale_ == kNone) attn_scale_ = g.input(Elem::F32, 1, 1, ub_);
        return attn_scale_;
    }
    // llm_graph_input_rs: s_copy [n_rs] and its two views (the batch's sequences, the rest).
    std::int64_t n_seqs() const { return std::max<std::uint32_t>(1, p_.n_seqs); }
    // ggml-cuda's FLASH_ATTN_EXT holds F16 copies of a K and V cache of any other type
    // (Graph::setFlashAttnF16Copies) when the tile or MMA kernel runs it:
    // ggml_cuda_get_best_fattn_kernel (fattn.cu) picks the vector kernel, which reads the cache
    // as it is, for at most two tokens only. Counted only in a buffer that asks for it.
    void f16Copies(Id fa, std::int64_t k_elems, std::int64_t v_elems) {
        if (p_.n_ubatch <= 2) return;
        g.setFlashAttnF16Copies(fa, p_.type_k != GgmlType::F16 ? k_elems : 0,
                                p_.type_v != GgmlType::F16 ? v_elems : 0);
    }
    Id sCopy() {
        if (s_copy_ == kNone) s_copy_ = g.input(Elem::I32, n_seqs());
        return s_copy_;
    }
    Id sCopyMain() {
        if (s_copy_main_ == kNone)
            s_copy_main_ = g.view(sCopy(), {n_seqs(), 1, 1, 1}, {4, 0, 0, 0});
        return s_copy_main_;
    }
    Id sCopyExtra() {
        if (s_copy_extra_ == kNone) s_copy_extra_ = g.view(sCopy(), {0, 1, 1, 1}, {4, 0, 0, 0});
        return s_copy_extra_;
    }
    // llama_model::get_rope_factors (src/llama-model.cpp): ROPE's third source, the file's one
    // rope factor tensor. Each block creates it with TENSOR_DUPLICATED, so there is one tensor
    // per buffer type holding blocks (llama_model_loader::create_tensor): a device block reads
    // the device's own, and the host blocks' ops offloaded to a device read one copy of the
    // host's, which the scheduler makes once (tensor_id_copy) and frees after the last of them.
    // Without factors llama.cpp passes nullptr: ROPE reads no third source.
    Id ropeFactors() {
        if (m_.rope_factors_bytes == 0) return kNone;
        if (rope_factors_ == kNone) rope_factors_ = g.ownWeight(m_.rope_factors_bytes);
        return rope_factors_;
    }
    Id positions() {
        if (pos_ == kNone) pos_ = g.input(Elem::I32, ub_);
        return pos_;
    }
    Id outIds() {
        if (out_ids_ == kNone) out_ids_ = g.input(Elem::I32, n_out_);
        return out_ids_;
    }
    // llama_kv_cache ctor: a cache rotates K when type_k is quantized and every layer's K head
    // has the same size, a multiple of 64 (attn_rot_k), by the largest power of two dividing
    // it (build_input_k_rot); V likewise by 64 (attn_rot_v, build_input_v_rot). One check per
    // cache: the sliding-window layers' cache decides for itself.
    int headSize(bool swa, bool v) const {
        std::int64_t hd = 0;
        for (const LayerShape& l : m_.layers) {
            if (!l.hasKv() || l.is_mtp || l.isSwa() != swa) continue;
            const std::int64_t h =
                (v ? l.n_embd_v_gqa : l.n_embd_k_gqa) / std::max<std::uint32_t>(1, l.n_head_kv);
            if (hd != 0 && h != hd) return 0;
            hd = h;
        }
        return hd % 64 == 0 ? static_cast<int>(hd) : 0;
    }
    int kRot(bool swa) const {
        const int hd = p_.quantized_k ? headSize(swa, false) : 0;
        if (hd == 0) return 0;
        int n = 64;
        while (hd % (2 * n) == 0)
            n *= 2;
        return n;
    }
    int vRot(bool swa) const { return p_.quantized_v && headSize(swa, true) > 0 ? 64 : 0; }
    Id rotInput(bool swa, bool v, int n) {
        Id& t = v ? (swa ? v_rot_swa_ : v_rot_) : (swa ? k_rot_swa_ : k_rot_);
        if (t == kNone) t = g.input(Elem::F32, n, n);
        return t;
    }
    // llama_mul_mat_hadamard (src/llama-impl.h): rows of n, rotated, reshaped back.
    Id hadamard(Id cur, Id rot_input) {
        const std::int64_t n = g.at(rot_input).ne[0];
        const Tensor& tc = g.at(cur);
        const auto ne = tc.ne;
        const std::int64_t rows = (ne[0] * ne[1] * ne[2] * ne[3]) / n;
        const Id flat =
            g.isContiguous(cur) ? g.reshape(cur, {n, rows, 1, 1}) : g.cont(cur, {n, rows, 1, 1});
        const Id rot = g.op(Op::MulMat, Elem::F32, {n, rows, 1, 1}, {rot_input, flat});
        return g.reshape(rot, ne);
    }

    // The layer's K / V cache as build_attn_mha reads it (llama_kv_cache::get_k / get_v: a view
    // of n_kv cells of every stream), external memory; its bytes are what a copy to another
    // backend takes.
    Id kCache(const LayerShape& l, std::int64_t n_kv) {
        return cacheLeaf(0, satMul(ggmlRowBytes(p_.type_k, l.n_embd_k_gqa),
                                   static_cast<Bytes>(n_kv) * n_seqs()));
    }
    Id vCache(const LayerShape& l, std::int64_t n_kv) {
        return cacheLeaf(1, satMul(ggmlRowBytes(p_.type_v, l.n_embd_v_gqa),
                                   static_cast<Bytes>(n_kv) * n_seqs()));
    }
    // The cache as build_attn_mha reads it: get_k / get_v's view (ggml_view_4d), permuted
    // (ggml_permute 0, 2, 1, 3). Both are graph nodes outside the buffer; they count in the
    // windows ggml_vk_graph_optimize looks through, and a copy of them to another backend takes
    // the view's bytes.
    Id viewed(Id cache) {
        const Bytes bytes = g.at(cache).copy_bytes;
        const Id v = g.view(cache, {1, 1, 1, 1}, {1, 1, 1, 1});
        g.setCopyBytes(v, bytes);
        const Id p = g.permute(v, 0, 2, 1, 3);
        g.setCopyBytes(p, bytes);
        return p;
    }
    Id kRead(const LayerShape& l, std::int64_t n_kv) { return viewed(kCache(l, n_kv)); }
    Id vRead(const LayerShape& l, std::int64_t n_kv) { return viewed(vCache(l, n_kv)); }
    // llama_kv_cache::cpy_k / cpy_v: ggml_set_rows writes into the cache tensor, reshaped to
    // one row space when every sequence has a stream of its own (ggml_reshape_2d).
    Id rowsDst(Id cache) { return n_seqs() > 1 ? g.reshape(cache, {1, 1, 1, 1}) : cache; }
    // A recurrent layer's states (llama_memory_recurrent r_l, or s_l for `ssm`: f32, one row per
    // sequence).
    Id states(std::int64_t state_size, bool ssm = false) {
        return cacheLeaf(ssm ? 3 : 2,
                         4 * static_cast<Bytes>(state_size) * static_cast<Bytes>(n_seqs()));
    }
    // One tensor per cache of the current block (K, V, conv state, SSM state), so its writes
    // (views of it) and reads are seen to touch the same memory.
    Id cacheLeaf(size_t kind, Bytes bytes) {
        if (cache_layer_ != g.layer()) {
            cache_leaf_.fill(kNone);
            cache_layer_ = g.layer();
        }
        Id& leaf = cache_leaf_[kind];
        if (leaf == kNone) leaf = g.cacheRead(bytes);
        return leaf;
    }

    // The cache's row indices (llm_graph_input_attn_kv: self_k_idxs, self_v_idxs), one pair per
    // cache (the sliding-window layers' cache has its own).
    Id kIdxs(bool swa) {
        Id& t = swa ? k_idxs_swa_ : k_idxs_;
        if (t == kNone) t = g.input(Elem::I64, ub_);
        return t;
    }
    Id vIdxs(bool swa, std::int64_t n_embd_v) {
        Id& t = swa ? v_idxs_swa_ : v_idxs_;
        if (t == kNone) t = g.input(Elem::I64, p_.flash_attn ? ub_ : n_embd_v * ub_);
        return t;
    }
    // build_attn_inp_kv: [n_kv, n_ubatch], f16 with flash attention, f32 without. Before llama.cpp
    // PR #23764 flash attention read ggml_cast(F32 mask, F16): a CPY into a new F16 tensor.
    Id kqMask(bool swa) {
        Id& mask = swa ? mask_swa_ : mask_;
        if (mask != kNone) return mask;
        const std::int64_t n_kv = swa ? p_.n_kv_swa : p_.n_kv;
        if (p_.flash_attn && p_.kq_mask_f32_cast)
            mask = g.op(Op::Cont, Elem::F16, {n_kv, ub_, 1, 1}, {g.input(Elem::F32, n_kv, ub_)});
        else
            mask = g.input(p_.flash_attn ? Elem::F16 : Elem::F32, n_kv, ub_);
        return mask;
    }

    using Tensor = graph::Tensor;
    const ModelShape& m_;
    const ComputeGraphParams& p_;
    Graph g;
    Id W = kNone;
    std::uint32_t ub_ = 1;
    std::uint32_t n_out_ = 1;
    Id tokens_ = kNone, pos_ = kNone, out_ids_ = kNone;
    Id k_idxs_ = kNone, v_idxs_ = kNone, k_idxs_swa_ = kNone, v_idxs_swa_ = kNone;
    Id mask_ = kNone, mask_swa_ = kNone, attn_scale_ = kNone;
    Id rope_factors_ = kNone;
    Id s_copy_ = kNone, s_copy_main_ = kNone, s_copy_extra_ = kNone;
    Id k_rot_ = kNone, v_rot_ = kNone, k_rot_swa_ = kNone, v_rot_swa_ = kNone;
    Id q_gate_ = kNone; // the output gate of the last gated-Q attention block (gatedQuery)
    // Gemma 3n's current block's AltUp router weights (modalities).
    Id router_ = kNone, router_norm_ = kNone;
    std::int32_t router_layer_ = -2;
    std::array<Id, 4> cache_leaf_{kNone, kNone, kNone, kNone};

public:
    // Whether building the graph also replays it on the CPU backend (scheduledCompute replays
    // it over the backends instead).
    bool replay_cpu = true;

private:
    std::int32_t cache_layer_ = -2;
};

// The skeletons cover blocks with standard attention and a dense or routed-expert FFN; anything
// else (MLA, recurrent layers, layers without a cache) keeps the closed form.

// A Mamba-2 block needs its SSM sizes from the file (catalog shapes do not carry them).
bool ssmKnown(const ModelShape& m) {
    const SsmShape& s = m.ssm;
    return s.d_conv > 0 && s.d_inner > 0 && s.d_state > 0 && s.n_group > 0 && s.dt_rank > 0 &&
           s.d_inner % s.dt_rank == 0 && s.d_inner % s.n_group == 0;
}

bool mamba2Only(const ModelShape& m) {
    if (m.layers.empty() || m.n_embd == 0 || m.n_vocab == 0 || !ssmKnown(m)) return false;
    return std::all_of(m.layers.begin(), m.layers.end(),
                       [](const LayerShape& l) { return l.isRecurrent(); });
}

// Blocks with standard attention (or, in a Mamba-2 hybrid, a Mamba-2 block) and a dense or
// routed-expert FFN.
bool denseAttentionOnly(const ModelShape& m, const Family& f) {
    if (m.layers.empty() || m.n_embd == 0 || m.n_vocab == 0) return false;
    if (m.isMoe() && (m.moe.n_expert_used == 0 || (m.n_ff_exp == 0 && m.n_ff == 0))) return false;
    if (f.mamba2 && !ssmKnown(m)) return false;
    return std::all_of(m.layers.begin(), m.layers.end(), [&m, &f](const LayerShape& l) {
        if (l.is_mtp) return true; // not in the main graph
        if (l.isRecurrent() && f.lfm2)
            return l.recurrent_s == 0 && l.recurrent_r > 0 && l.recurrent_r % m.n_embd == 0;
        if (l.isRecurrent()) return f.mamba2;
        if (l.isMla())
            return m.mla.kv_lora > 0 && m.mla.head_k > m.mla.rope && m.mla.head_v > 0 &&
                   l.n_head > 0;
        if (l.attention == AttentionKind::None) return f.nemotron_h && m.n_ff > 0;
        return (l.attention == AttentionKind::Full ||
                l.attention == AttentionKind::SlidingWindow) &&
               l.n_head > 0 && l.n_head_kv > 0 && l.n_embd_k_gqa % l.n_head_kv == 0 &&
               l.n_embd_v_gqa % l.n_head_kv == 0 && (l.experts_bytes > 0 || m.n_ff > 0);
    });
}

// Jamba (models/jamba.cpp): Mamba-1 blocks (no SSM groups, one head per inner channel) and
// full-attention blocks, each with a dense or routed-expert FFN of n_ff.
bool jambaShape(const ModelShape& m) {
    const SsmShape& s = m.ssm;
    if (m.layers.empty() || m.n_embd == 0 || m.n_vocab == 0 || m.n_ff == 0) return false;
    if (s.d_conv == 0 || s.d_inner == 0 || s.d_state == 0 || s.dt_rank == 0) return false;
    if (m.isMoe() && m.moe.n_expert_used == 0) return false;
    return std::all_of(m.layers.begin(), m.layers.end(), [](const LayerShape& l) {
        return l.isRecurrent() ||
               (l.attention == AttentionKind::Full && l.n_head > 0 && l.n_head_kv > 0 &&
                l.n_embd_k_gqa % l.n_head_kv == 0 && l.n_embd_v_gqa % l.n_head_kv == 0);
    });
}

// Qwen3-Next (models/qwen3next.cpp): gated delta-net blocks (value heads a multiple of the key
// heads, one state of head_v x head_v per value head) and full-attention blocks with routed
// experts; the Q projection must hold Q and its gate (hence n_embd_k_gqa / n_head_kv per head).
bool qwen3nextShape(const ModelShape& m) {
    const SsmShape& s = m.ssm;
    if (m.layers.empty() || m.n_embd == 0 || m.n_vocab == 0) return false;
    if (s.d_conv == 0 || s.d_inner == 0 || s.d_state == 0 || s.n_group == 0 || s.dt_rank == 0 ||
        s.dt_rank % s.n_group != 0 || s.d_inner % s.dt_rank != 0)
        return false;
    if (m.isMoe() && (m.moe.n_expert_used == 0 || (m.n_ff_exp == 0 && m.n_ff == 0))) return false;
    return std::all_of(m.layers.begin(), m.layers.end(), [&m](const LayerShape& l) {
        if (l.is_mtp || l.isRecurrent()) return true;
        return l.attention == AttentionKind::Full && l.n_head > 0 && l.n_head_kv > 0 &&
               l.n_embd_k_gqa % l.n_head_kv == 0 && l.n_embd_v_gqa % l.n_head_kv == 0 &&
               (l.experts_bytes > 0 || m.n_ff > 0);
    });
}

// Gemma 3n (models/gemma3n.cpp): sliding-window and full-attention layers with a cache, then
// layers that read an earlier layer's (attention None); a dense FFN everywhere, n_embd a
// multiple of nothing in particular.
bool gemma3nShape(const ModelShape& m) {
    if (m.layers.empty() || m.n_embd == 0 || m.n_vocab == 0 || m.n_ff == 0) return false;
    bool swa = false, full = false;
    for (const LayerShape& l : m.layers) {
        if (l.is_mtp || l.n_head == 0) return false;
        if (l.attention == AttentionKind::None) continue;
        if (!(l.attention == AttentionKind::Full || l.attention == AttentionKind::SlidingWindow) ||
            l.n_head_kv == 0 || l.n_embd_k_gqa % l.n_head_kv != 0 ||
            l.n_embd_k_gqa != l.n_embd_v_gqa)
            return false;
        (l.isSwa() ? swa : full) = true;
    }
    return swa && full;
}

enum class Kind { None, Dense, Mamba2, Jamba, Qwen3Next, Gemma3n };

Kind kindOf(const ModelShape& m, Family& f) {
    if (m.architecture == "mamba2") return mamba2Only(m) ? Kind::Mamba2 : Kind::None;
    if (m.architecture == "jamba")
        return familyOf(m.architecture, f) && jambaShape(m) ? Kind::Jamba : Kind::None;
    if (m.architecture == "gemma3n")
        return familyOf(m.architecture, f) && gemma3nShape(m) ? Kind::Gemma3n : Kind::None;
    if (m.architecture == "qwen3next")
        return familyOf(m.architecture, f) && qwen3nextShape(m) ? Kind::Qwen3Next : Kind::None;
    return familyOf(m.architecture, f) && denseAttentionOnly(m, f) ? Kind::Dense : Kind::None;
}

} // namespace

bool hasComputeSkeleton(const ModelShape& model) {
    Family f;
    return kindOf(model, f) != Kind::None;
}

namespace {

// Everything a skeleton reads, hashed (64-bit, splitmix64 finaliser per field): the memo's key.
// Hashing fields directly keeps a lookup far cheaper than the replay it saves.
std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    std::uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

std::uint64_t memoKey(const ModelShape& m, const ComputeGraphParams& p) {
    std::uint64_t h = std::hash<std::string>{}(m.architecture);
    for (const std::uint64_t v :
         {std::uint64_t{m.n_embd}, std::uint64_t{m.n_vocab}, std::uint64_t{m.n_ff},
          std::uint64_t{m.n_ff_exp}, std::uint64_t{m.n_ff_shexp}, std::uint64_t{m.moe.n_expert},
          std::uint64_t{m.moe.n_expert_used}, std::uint64_t{m.moe.n_expert_shared},
          std::uint64_t{m.moe.gated_experts}, std::uint64_t{m.ssm.d_conv},
          std::uint64_t{m.ssm.d_inner}, std::uint64_t{m.ssm.d_state}, std::uint64_t{m.ssm.n_group},
          std::uint64_t{m.ssm.dt_rank}, std::uint64_t{m.mla.q_lora}, std::uint64_t{m.mla.kv_lora},
          std::uint64_t{m.mla.head_k}, std::uint64_t{m.mla.head_v}, std::uint64_t{m.mla.rope},
          std::uint64_t{p.n_ubatch}, std::uint64_t{p.n_outputs}, std::uint64_t{p.n_kv},
          std::uint64_t{p.n_kv_swa}, std::uint64_t{p.n_seqs}, std::uint64_t{p.flash_attn},
          std::uint64_t{p.quantized_k}, std::uint64_t{p.quantized_v},
          std::uint64_t{p.kq_mask_f32_cast},
          // The builder reads it (ropeFactors): Llama 3.0 and 3.1 differ
          // only in it.
          std::uint64_t{m.rope_factors_bytes}, std::uint64_t{m.layers.size()}})
        h = mix(h, v);
    // Runs of identical layers (most models) hash as one layer and a count.
    auto same = [](const LayerShape& a, const LayerShape& b) {
        return a.attention == b.attention && a.is_mtp == b.is_mtp &&
               (a.experts_bytes > 0) == (b.experts_bytes > 0) &&
               (a.ffn_bytes > 0) == (b.ffn_bytes > 0) && a.n_head == b.n_head &&
               a.n_head_kv == b.n_head_kv && a.n_embd_k_gqa == b.n_embd_k_gqa &&
               a.n_embd_v_gqa == b.n_embd_v_gqa && a.recurrent_r == b.recurrent_r &&
               a.recurrent_s == b.recurrent_s;
    };
    for (size_t i = 0; i < m.layers.size();) {
        const LayerShape& l = m.layers[i];
        size_t run = 1;
        while (i + run < m.layers.size() && same(l, m.layers[i + run]))
            ++run;
        h = mix(h, static_cast<std::uint64_t>(l.attention) | std::uint64_t{l.is_mtp} << 8 |
                       std::uint64_t{l.experts_bytes > 0} << 9 |
                       std::uint64_t{l.ffn_bytes > 0} << 10);
        h = mix(h, std::uint64_t{l.n_head} << 32 | l.n_head_kv);
        h = mix(h, std::uint64_t{l.n_embd_k_gqa} << 32 | l.n_embd_v_gqa);
        h = mix(h, l.recurrent_r);
        h = mix(h, l.recurrent_s);
        h = mix(h, run);
        i += run;
    }
    return h;
}

// Builds the architecture's graph into `b` (kind not None); the CPU replay's peak when
// b.replay_cpu is set.
Bytes build(Builder& b, Kind kind, const Family& f) {
    if (kind == Kind::Mamba2) return b.mamba2Model();
    if (kind == Kind::Jamba) return b.jamba(f);
    if (kind == Kind::Qwen3Next) return b.qwen3next(f);
    if (kind == Kind::Gemma3n) return b.gemma3n(f);
    if (f.falcon_h1) return b.falconH1(f);
    if (f.lfm2) return b.lfm2(f);
    return f.nemotron_h ? b.nemotronH(f) : b.dense(f);
}

std::optional<Bytes> replay(const ModelShape& model, const ComputeGraphParams& params) {
    Family f;
    const Kind kind = kindOf(model, f);
    if (kind == Kind::None) return std::nullopt;
    Builder b(model, params);
    return build(b, kind, f);
}

// The graph of a (model, params), built without the CPU replay. The placement search prices one
// rung's graph over many placements (its bisection over --n-cpu-moe and -ngl, each a scheduler
// replay), so each thread keeps the last few graphs built: a build is a fifth of a replay's cost.
// Shared, so a graph stays alive for its caller when a later build evicts it.
std::shared_ptr<const graph::Graph>
builtGraph(const ModelShape& model, const ComputeGraphParams& params, Kind kind, const Family& f) {
    const std::uint64_t key =
        mix(mix(memoKey(model, params), static_cast<std::uint64_t>(params.type_k)),
            static_cast<std::uint64_t>(params.type_v));
    constexpr size_t kKept = 4;
    thread_local std::array<std::pair<std::uint64_t, std::shared_ptr<const graph::Graph>>, kKept>
        kept;
    thread_local size_t next = 0;
    for (const auto& [k, g] : kept)
        if (g && k == key) return g;
    Builder b(model, params);
    b.replay_cpu = false;
    build(b, kind, f);
    auto g = std::make_shared<const graph::Graph>(b.built());
    kept[next] = {key, g};
    next = (next + 1) % kKept;
    return g;
}

} // namespace

std::optional<Bytes> replayedCompute(const ModelShape& model, const ComputeGraphParams& params) {
    // A plan prices the same geometry many times (rungs, remedies, the fit simulation, both
    // postures); each thread remembers its recent replays (one graph build and replay is tens of
    // microseconds to a millisecond).
    constexpr size_t kMemo = 512;
    thread_local std::unordered_map<std::uint64_t, std::optional<Bytes>> memo;
    const std::uint64_t key = memoKey(model, params);
    if (const auto it = memo.find(key); it != memo.end()) return it->second;
    const std::optional<Bytes> result = replay(model, params);
    if (memo.size() >= kMemo) memo.clear();
    memo.emplace(key, result);
    return result;
}

} // namespace headroom

namespace headroom {

std::optional<std::vector<graph::BackendCompute>>
scheduledCompute(const ModelShape& model, const ComputeGraphParams& params,
                 const graph::SchedPlacement& placement) {
    Family f;
    const Kind kind = kindOf(model, f);
    if (kind == Kind::None) return std::nullopt;
    std::uint64_t key = mix(memoKey(model, params), static_cast<std::uint64_t>(params.type_k));
    key = mix(key, static_cast<std::uint64_t>(params.type_v));
    for (const graph::BufferType& b : placement.buffers)
        key = mix(mix(mix(key, b.alignment), b.max_size), std::uint64_t{b.flash_attn_f16_copies});
    for (const Bytes b : placement.max_tensor_bytes)
        key = mix(key, b);
    // Backends are -1 (none) or small indices: shifted to non-negative before widening.
    for (const int b : placement.layer_backend)
        key = mix(key, static_cast<std::uint64_t>(static_cast<unsigned>(b + 1)));
    for (const int b : placement.expert_backend)
        key = mix(key, static_cast<std::uint64_t>(static_cast<unsigned>(b + 1)) << 8);
    for (const int b : placement.ffn_backend)
        key = mix(key, static_cast<std::uint64_t>(static_cast<unsigned>(b + 1)) << 16);
    for (const Bytes b : placement.dense_bytes)
        key = mix(key, b);
    for (const Bytes b : placement.expert_bytes)
        key = mix(key, b);
    for (const auto& block : placement.matrices)
        for (const graph::SchedPlacement::Matrix& w : block)
            key = mix(mix(mix(mix(key, static_cast<std::uint64_t>(w.in)),
                              static_cast<std::uint64_t>(w.out)),
                          w.bytes),
                      std::uint64_t{w.experts});
    for (const std::uint64_t v :
         {static_cast<std::uint64_t>(static_cast<unsigned>(placement.output_backend + 1)),
          static_cast<std::uint64_t>(placement.n_expert), std::uint64_t{placement.op_offload},
          static_cast<std::uint64_t>(placement.offload_min_batch),
          static_cast<std::uint64_t>(placement.n_copies), std::uint64_t{placement.pin_norms},
          static_cast<std::uint64_t>(placement.vulkan_reorder),
          std::uint64_t{placement.offload_matmul_only}, std::uint64_t{placement.kv_on_host},
          std::uint64_t{placement.max_tensor_bytes.size()}})
        key = mix(key, v);
    constexpr size_t kMemo = 512;
    thread_local std::unordered_map<std::uint64_t, std::vector<graph::BackendCompute>> memo;
    if (const auto it = memo.find(key); it != memo.end()) return it->second;
    const graph::Graph& built = *builtGraph(model, params, kind, f);
    // An FFN moved away from its block needs the skeleton's FFN matmuls tagged (Builder::ffnMm);
    // a builder that writes a block's FFN otherwise cannot place it.
    const size_t n_ffn = std::min(placement.ffn_backend.size(), placement.layer_backend.size());
    bool moved = false;
    for (size_t il = 0; il < n_ffn; ++il)
        moved = moved || placement.ffn_backend[il] != placement.layer_backend[il];
    if (moved) {
        std::vector<std::uint8_t> tagged(n_ffn, 0);
        for (const graph::Tensor& t : built.tensors())
            if (t.ffn && t.layer >= 0 && static_cast<size_t>(t.layer) < n_ffn)
                tagged[static_cast<size_t>(t.layer)] = 1;
        for (size_t il = 0; il < n_ffn; ++il)
            if (placement.ffn_backend[il] != placement.layer_backend[il] && tagged[il] == 0)
                return std::nullopt;
    }
    std::vector<graph::BackendCompute> result = graph::replaySchedule(built, placement);
    if (memo.size() >= kMemo) memo.clear();
    memo.emplace(key, result);
    return result;
}

std::vector<std::string> skeletonNodes(const ModelShape& model, const ComputeGraphParams& params) {
    Family f;
    const Kind kind = kindOf(model, f);
    if (kind == Kind::None) return {};
    Builder b(model, params);
    build(b, kind, f);
    return graph::describeNodes(b.built());
}

} // namespace headroom
