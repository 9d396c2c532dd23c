#include "pricing.h"

#include "compute_skeleton.h"

#include <algorithm>

namespace headroom {

namespace {

// llama.cpp pads n_ctx and every cache size to 256 cells (llama_context::llama_context in
// src/llama-context.cpp: GGML_PAD(cparams.n_ctx, 256); llama_kv_cache_iswa ctor:
// GGML_PAD(..., 256) for the SWA cache). Not a knob: it is llama.cpp's.
inline constexpr std::uint64_t kCtxPad = 256;

// Graphs whose main build marks a hidden state as an output (llm_graph_result::t_h_nextn, made an
// output by llm_graph_result::set_outputs -> ggml_set_output) besides result_norm: that row is
// never freed nor reused in place by ggml-alloc, so one more [n_embd, n_ubatch] f32 row is alive
// next to the logits. models/openai-moe.cpp (t_h_nextn = the last l_out, before the final norm);
// models/qwen3next.cpp, qwen35.cpp, qwen35moe.cpp and nemotron-h.cpp (t_h_nextn = the normed state,
// result_norm = ggml_get_rows of it, a copy). deepseek2 and glm4moe set t_h_nextn to result_norm
// itself (no extra row).
bool keepsHiddenStateRow(const std::string& arch) {
    return arch == "gpt-oss" || arch == "qwen3next" || arch == "qwen35" || arch == "qwen35moe" ||
           arch == "nemotron_h" || arch == "nemotron_h_moe";
}

} // namespace

ContextGeometry contextGeometry(const ModelShape& model, const ResolvedOptions& opt,
                                std::uint64_t requested_ctx) {
    ContextGeometry g;
    const std::uint32_t n_seq = std::max<std::uint32_t>(1, opt.n_seq);
    std::uint64_t n_ctx = requested_ctx == 0 ? model.n_ctx_train : requested_ctx;
    // llama_context ctor: n_batch = min(n_ctx, n_batch) for causal models (before padding), then
    // n_ubatch = min(n_batch, n_ubatch).
    const std::uint64_t n_batch = std::min<std::uint64_t>(n_ctx, opt.n_batch);
    g.n_ubatch = static_cast<std::uint32_t>(std::min<std::uint64_t>(n_batch, opt.n_ubatch));
    n_ctx = padTo(n_ctx, kCtxPad);
    std::uint64_t n_ctx_seq = n_ctx;
    g.n_stream = 1;
    if (!opt.kv_unified) {
        n_ctx_seq = padTo(n_ctx / n_seq, kCtxPad);
        n_ctx = n_ctx_seq * n_seq;
        g.n_stream = n_seq;
    }
    g.n_ctx = static_cast<std::uint32_t>(std::min<std::uint64_t>(n_ctx, UINT32_MAX));
    g.n_ctx_seq = static_cast<std::uint32_t>(std::min<std::uint64_t>(n_ctx_seq, UINT32_MAX));
    // llama_kv_cache_iswa ctor: size_swa = pad256(min(size_base, n_swa * (unified ? n_seq : 1) +
    // n_ubatch)), or size_base with --swa-full.
    if (opt.swa_full || model.n_swa == 0) {
        g.swa_cells = g.n_ctx_seq;
    } else {
        const std::uint64_t want =
            static_cast<std::uint64_t>(model.n_swa) * (opt.kv_unified ? n_seq : 1) + g.n_ubatch;
        g.swa_cells =
            static_cast<std::uint32_t>(padTo(std::min<std::uint64_t>(n_ctx_seq, want), kCtxPad));
    }
    // Output rows of the reserved graph: llama_context::sched_reserve (src/llama-context.cpp)
    // reserves the prompt graph with n_outputs = min(n_tokens, cparams.n_outputs_max), n_tokens =
    // min(n_ctx, n_ubatch) (g.n_ubatch: already at most n_batch <= n_ctx). The ctor takes
    // n_outputs_max from the context parameters, n_batch when they say 0, as
    // llama_context_default_params does (the library program).
    std::uint64_t outputs_max = n_batch;
    if (opt.program == Program::LlamaServer) {
        // tools/server/server-context.cpp server_output_limits, with common/speculative.cpp
        // common_speculative_get_output_limits(params.n_batch, n_parallel, n_draft): min(n_batch,
        // n_parallel x (1 + n_draft)), at least 1. params.n_batch is -b as given, not clamped.
        // (Embedding and pooling servers reserve n_batch; Headroom plans neither.)
        const std::uint64_t per_step = static_cast<std::uint64_t>(n_seq) * (1 + opt.n_draft);
        outputs_max = std::max<std::uint64_t>(1, std::min<std::uint64_t>(opt.n_batch, per_step));
    }
    g.n_outputs = static_cast<std::uint32_t>(std::min<std::uint64_t>(g.n_ubatch, outputs_max));
    return g;
}

ContextPrice priceContext(const ModelShape& model, const ResolvedOptions& opt,
                          std::uint64_t requested_ctx) {
    ContextPrice p;
    p.geometry = contextGeometry(model, opt, requested_ctx);
    const ContextGeometry& g = p.geometry;
    const Bytes n_seq = std::max<std::uint32_t>(1, opt.n_seq);

    // Without flash attention llama.cpp stores V transposed and sizes every layer's V rows to the
    // widest layer (llama_kv_cache ctor: v_trans ? hparams.n_embd_v_gqa_max() : n_embd_v_gqa(il)).
    std::uint32_t v_max = 0;
    for (const auto& l : model.layers)
        if (l.hasKv()) v_max = std::max(v_max, l.n_embd_v_gqa);

    // A build that does not filter this architecture's nextn blocks (v0.4.0 for most: see
    // LlamaProfile::filtersNextn) keeps them in the main cache, and its MTP draft context caches
    // every layer again.
    const bool nextn_unfiltered = model.nextn_default_filter &&
                                  !llamaProfile(opt.llama_version).filtersNextn(model.architecture);

    p.layers.resize(model.layers.size());
    for (size_t il = 0; il < model.layers.size(); ++il) {
        const LayerShape& l = model.layers[il];
        LayerPrice& lp = p.layers[il];
        lp.mtp = l.is_mtp;
        lp.experts = l.experts_bytes;
        lp.ffn = l.ffn_bytes;
        lp.ffn_matrices =
            l.ffn_matrix_bytes > 0 ? std::min(l.ffn_matrix_bytes, l.ffn_bytes) : l.ffn_bytes;
        lp.weights = satAdd(satAdd(l.attn_bytes, l.ffn_bytes), l.experts_bytes);
        if (l.is_mtp && !opt.mtp) {
            // llama.cpp skips MTP tensors unless the model is loaded for MTP (llama_model_params
            // load_mtp; models/*.cpp set TENSOR_SKIP on them).
            lp.weights = lp.experts = lp.ffn = lp.ffn_matrices = 0;
        }
        // A block outside the main cache (the Qwen3-Next family filters il < n_layer() in
        // llama_model::create_memory) has KV only in the MTP draft context.
        const bool cached = l.in_main_cache || (l.is_mtp && (opt.mtp || nextn_unfiltered));
        if (l.hasKv() && cached) {
            // llama_kv_cache ctor: K = ggml_new_tensor_3d(type_k, n_embd_k_gqa, kv_size, n_stream),
            // V likewise with type_v; MLA keeps only K (has_v = !is_mla).
            Bytes cells = static_cast<Bytes>(l.isSwa() ? g.swa_cells : g.n_ctx_seq) * g.n_stream;
            if (l.stream_per_sequence) {
                // llama_kv_cache_dsv4 (src/llama-kv-cache-dsv4.cpp): its caches are built with
                // unified = false, so n_seq_max streams of kv_size = n_ctx_seq cells whatever
                // --kv-unified says, and the window is pad256(min(n_ctx_seq, n_swa + n_ubatch))
                // (llama_kv_cache_iswa ctor with unified false).
                const std::uint64_t window =
                    opt.swa_full || model.n_swa == 0
                        ? g.n_ctx_seq
                        : padTo(std::min<std::uint64_t>(g.n_ctx_seq,
                                                        std::uint64_t{model.n_swa} + g.n_ubatch),
                                kCtxPad);
                cells = satMul(l.isSwa() ? window : g.n_ctx_seq, n_seq);
            }
            lp.kv_k = satMul(ggmlRowBytes(opt.type_k, l.n_embd_k_gqa), cells);
            if (!l.isMla()) {
                const std::uint32_t v_elems = opt.flash_attn ? l.n_embd_v_gqa : v_max;
                lp.kv_v = satMul(ggmlRowBytes(opt.type_v, v_elems), cells);
            }
            // llama_kv_cache_dsa / llama_kv_cache_msa ctors (src/llama-kv-cache-dsa.cpp,
            // llama-kv-cache-msa.cpp): the indexer cache is a llama_kv_cache of the same types,
            // kv_size and streams, one head of indexer_head_size per layer for K, and for V
            // (MSA: the model is not MLA) one value head. Counted with K and V: llama.cpp's
            // memory breakdown adds it to the same buffers.
            if (l.n_embd_indexer_k > 0)
                lp.kv_k =
                    satAdd(lp.kv_k, satMul(ggmlRowBytes(opt.type_k, l.n_embd_indexer_k), cells));
            if (l.n_embd_indexer_v > 0)
                lp.kv_v =
                    satAdd(lp.kv_v, satMul(ggmlRowBytes(opt.type_v, l.n_embd_indexer_v), cells));
            if (l.compress_ratio > 0) {
                // llama_kv_cache_dsv4 ctor: kv_csa / kv_hca (and kv_lid for the CSA layers'
                // indexer keys) hold GGML_PAD(dsv4_comp_size(kv_size, ratio), 256) cells per
                // stream, dsv4_comp_size = max(1, ceil(kv_size / ratio)), K only, type_k.
                const std::uint64_t per_stream =
                    padTo(std::max<std::uint64_t>(1, ceilDiv(std::uint64_t{g.n_ctx_seq},
                                                             std::uint64_t{l.compress_ratio})),
                          kCtxPad);
                const Bytes comp_cells =
                    satMul(per_stream, l.stream_per_sequence ? n_seq : g.n_stream);
                lp.kv_k =
                    satAdd(lp.kv_k, satMul(ggmlRowBytes(opt.type_k, l.n_embd_comp_k), comp_cells));
                if (l.n_embd_comp_indexer_k > 0)
                    lp.kv_k =
                        satAdd(lp.kv_k, satMul(ggmlRowBytes(opt.type_k, l.n_embd_comp_indexer_k),
                                               comp_cells));
            }
        }
        if (l.recurrent_r > 0 || l.recurrent_s > 0) {
            // llama_memory_recurrent ctor: r = [n_embd_r, mem_size x (1 + n_rs_seq)], s likewise
            // with n_embd_s, in f32, mem_size = max(1, n_seq_max); n_rs_seq is 0 unless MTP
            // drafting on a rollback-capable architecture asks for snapshots.
            const Bytes rows = satMul(n_seq, Bytes{1} + opt.n_rs_seq);
            lp.state = satMul(satAdd(l.recurrent_r, l.recurrent_s), satMul(4, rows));
        }
    }
    if (opt.mtp && model.n_mtp_layers > 0) {
        // The MTP draft context (LLAMA_CONTEXT_TYPE_MTP) builds its own cache. Architectures whose
        // create_memory branch filters it to il >= n_layer() cache only the MTP blocks (priced
        // above, or here again when the main cache holds them too: mtp_draft_nextn_only); the
        // others pass no filter, so the draft context caches every layer again.
        bool filtered = false;
        for (const auto& l : model.layers)
            filtered = filtered || (l.is_mtp && !l.in_main_cache);
        filtered = filtered && !nextn_unfiltered;
        if (!filtered) {
            Bytes k = 0, v = 0;
            std::uint32_t v_draft_max = 0;
            for (const auto& l : model.layers)
                v_draft_max = std::max(v_draft_max, l.n_embd_v_gqa_draft);
            for (size_t il = 0; il < p.layers.size(); ++il) {
                const LayerPrice& lp = p.layers[il];
                if (model.mtp_draft_nextn_only && !nextn_unfiltered && !lp.mtp) continue;
                const LayerShape& l = model.layers[il];
                if (l.n_embd_v_gqa_draft > 0) {
                    // A plain iswa cache of K and V over this block (LayerShape::
                    // n_embd_v_gqa_draft), none of the main cache's compressed or per-sequence
                    // parts: cells as llama_kv_cache_iswa sizes them for the context's streams.
                    const Bytes cells =
                        satMul(l.isSwa() ? g.swa_cells : g.n_ctx_seq, Bytes{g.n_stream});
                    const std::uint32_t v_elems =
                        opt.flash_attn ? l.n_embd_v_gqa_draft : v_draft_max;
                    k = satAdd(k, satMul(ggmlRowBytes(opt.type_k, l.n_embd_k_gqa), cells));
                    v = satAdd(v, satMul(ggmlRowBytes(opt.type_v, v_elems), cells));
                    continue;
                }
                k = satAdd(k, lp.kv_k);
                v = satAdd(v, lp.kv_v);
            }
            p.mtp_kv_k = k;
            p.mtp_kv_v = v;
        }
    }
    // The input layer: token_embd and any per-layer embedding table (both LLM_TENSOR_LAYER_INPUT,
    // placed on the CPU by llama_model::load_tensors).
    p.token_embd = satAdd(model.token_embd_bytes, model.per_layer_embd_bytes);
    p.output_weights = model.output_bytes;
    p.other_weights = model.other_bytes;
    p.first_block_weights = std::min(model.first_block_bytes, model.other_bytes);

    // Output buffer: llama_context::output_reserve(n_seq_max) at context creation holds
    // n_vocab * max(n_outputs, n_seq_max) floats of logits (embeddings off), in either program.
    // With -bs (common/common.cpp common_init_result: every sequence's sampler chain goes to
    // llama_context_params.samplers, and llama_context::set_sampler keeps each before that
    // reservation) output_reserve adds the backend sampler's rows: logits and probabilities
    // (2 x n_vocab f32) and candidates (n_vocab i32) per row, and one sampled token (i32) per
    // row: (2 x 4 + 4) x n_vocab x rows + 4 x rows. Same in v0.4.0.
    // Not priced: llama-server grows the buffer at the first batch with more outputs than
    // n_seq_max (output_reserve(n_outputs_all), n_outputs_all <= n_outputs_max): an MTP launch's
    // verify batches (n_parallel x (1 + draft tokens) rows, plus the unmasked next-token
    // embeddings of every batch token, common/speculative.cpp llama_set_embeddings_nextn). What
    // is priced is what llama.cpp logs at load, which `verify` compares exactly.
    const Bytes logits_row = satMul(model.n_vocab, 4);
    p.output = satMul(logits_row, n_seq);
    if (opt.backend_sampling)
        p.output = satAdd(p.output, satMul(satAdd(satMul(logits_row, 3), 4), n_seq));

    // Compute buffers. Where the architecture has a graph skeleton the whole-graph buffer is
    // replayed exactly (compute_graph below, compute_skeleton.h); the closed form here is the
    // fallback for the others and still prices the per-device split (compute_layer and
    // compute_logits) when devices hold parts of the graph.
    // Closed form (ESTIMATE). llama.cpp sizes them by reserving the worst-case graph
    // (llama_context::graph_reserve: n_tokens = n_ubatch, every token an output) and letting
    // ggml-alloc pack it (ggml_gallocr_alloc_graph_impl: inputs first, a tensor freed after its
    // last consumer, in-place reuse for element-wise ops, best-fit free blocks); the buffer is the
    // highest offset ever used. Replaying that allocator on llama.cpp's own graphs (dev tool in
    // tests/validation/README.md) shows two peaks:
    //   logits peak    = 4 ub n_vocab (result_output, allocated last, above everything alive)
    //                  + 4 ub n_embd x rows + 4 ub (the small inputs below inp_embd)
    //     rows = 2: inp_embd (an input, kept to the end) and the last layer's output, which the
    //     final norm and result_norm reuse in place; + 1 where the graph keeps a hidden state
    //     output (keepsHiddenStateRow); + 1 with shared experts: the routed experts' sum is
    //     allocated while the residual and the normed FFN input are both alive (the shared
    //     expert, built after it in build_moe_ffn's callers, e.g. models/deepseek2.cpp,
    //     glm4-moe.cpp, llama4.cpp, still reads the normed input), so it lands above three rows
    //     and the shared-expert add and residual add reuse it in place up to result_norm.
    //   attention peak = 4 ub n_kv (n_head + 1)                   (f32 KQ scores + f32 mask, no FA)
    //                  + ub (14 n_embd + 8 n_head head_dim) + 20 ub
    //   FFN peak       = 4 ub (3 w + 3 n_embd) + mask bytes
    //     at the GLU product: the gate and up rows and the product ([w, ub] f32 each;
    //     ggml_swiglu_split is not an in-place op; a fused up of 2w plus the product is the same
    //     3w), the residual and inp_embd, and the hole of the normed FFN input (allocated before
    //     gate/up, freed after them, so it stays under them), plus the KQ masks every layer reads
    //     (inputs, alive to the last layer):
    //     [n_kv, ub] per mask kind (full, and sliding-window when present), f16 with flash
    //     attention, f32 without (llm_graph_input_attn_kv::set_input; build_attn_inp_kv).
    //     w = n_ff for a dense block, n_ff_exp x n_expert_used for a routed-MoE block (experts of
    //     n_ff rows where the file has no expert width, as Jamba's: models/jamba.cpp).
    // With flash attention the scores are never materialised; the logits peak dominates unless the
    // vocabulary is small (Phi-3: 32064 tokens) and the FFN wide.
    // Not modelled: where the last layer's output lands depends on which free hole best fits at
    // that moment; when none does (e.g. an MoE expert sum allocated while the weighted expert rows
    // [n_embd, n_expert_used, ub] are alive) it lands above them and the logits move up with it.
    // docs/accuracy.md lists the settings where that happens.
    const Bytes ub = g.n_ubatch;
    const Bytes n_embd = model.n_embd;
    std::uint32_t n_head = 0, head_k = 0;
    for (const auto& l : model.layers) {
        if (!l.hasKv() || l.n_head == 0) continue;
        n_head = std::max(n_head, l.n_head);
        if (l.n_head_kv > 0) head_k = std::max(head_k, l.n_embd_k_gqa / l.n_head_kv);
    }
    const Bytes n_kv = g.n_ctx_seq;
    const Bytes activations =
        satAdd(satMul(ub, 14 * n_embd + 8 * static_cast<Bytes>(n_head) * head_k), 20 * ub);
    const Bytes scores =
        opt.flash_attn ? 0 : satMul(satMul(4 * ub, n_kv), static_cast<Bytes>(n_head) + 1);
    p.compute_inputs = 0;
    // FFN peak (see above). A block is dense when it has FFN weights and no routed experts.
    Bytes w = 0;
    bool swa = false;
    for (const auto& l : model.layers) {
        if (l.experts_bytes > 0)
            w = std::max<Bytes>(w,
                                static_cast<Bytes>(model.n_ff_exp ? model.n_ff_exp : model.n_ff) *
                                    model.moe.n_expert_used);
        else if (l.ffn_bytes > 0)
            w = std::max<Bytes>(w, model.n_ff);
        swa = swa || l.isSwa();
    }
    // An older build's mask (ResolvedOptions::kq_mask_f32_cast) is an F32 input, and its F16
    // cast lives on every device that runs attention for the whole graph: counted in both peaks.
    const Bytes mask_elem = opt.flash_attn && !opt.kq_mask_f32_cast ? 2 : 4;
    const Bytes mask_cells = satMul(ub, satAdd(n_kv, swa ? Bytes{g.swa_cells} : Bytes{0}));
    const Bytes masks = satMul(mask_elem, mask_cells);
    const Bytes casts = opt.flash_attn && opt.kq_mask_f32_cast ? satMul(2, mask_cells) : 0;
    const Bytes ffn_peak = satAdd(satMul(4 * ub, satAdd(3 * w, 3 * n_embd)), masks);
    p.compute_layer = satAdd(std::max(satAdd(activations, scores), ffn_peak), casts);
    // One copy of the masks is in the layer peak when the FFN peak is the larger one (it adds
    // them) or without flash attention (the attention peak's "+ 1" row is the f32 mask).
    p.kq_masks = masks;
    p.layer_peak_has_masks = ffn_peak >= satAdd(activations, scores) || !opt.flash_attn;
    // The other inputs of the graph (llm_graph_context::build_inp_embd, build_inp_pos,
    // build_inp_out_ids in src/llama-graph.cpp): token ids [ub] i32; positions [ub *
    // n_pos_per_embd] i32, taken at 4 per token (M-RoPE's count, the most llama.cpp uses) so it is
    // never short; output ids [n_outputs] i32 with n_outputs <= ub; and inp_embd, the embeddings
    // path ggml_build_forward_select leaves in the graph unread while tokens are given.
    p.hidden_row = satMul(satMul(4, ub), n_embd);
    p.token_rows = 4 * ub;
    p.position_rows = 16 * ub;
    p.output_id_rows = 4 * ub;
    p.embd_input_row = p.hidden_row;
    // The logits peak with n_out output rows (ContextGeometry::n_outputs: a whole ubatch for the
    // library program, n_parallel x (1 + draft tokens) for llama-server). The last block of most
    // graphs keeps only the output rows (models/llama.cpp and the others: ggml_get_rows(cur,
    // inp_out_ids) at il == n_layer - 1), so the last layer's output, the shared-expert row and
    // the logits are n_out long while inp_embd stays a ubatch long. The graphs that keep their
    // hidden state (keepsHiddenStateRow: models/openai-moe.cpp, qwen35.cpp, … take the rows only
    // when embeddings_nextn_masked, off by default) run the last block and the final norm on the
    // whole ubatch and take the output rows after it (result_norm, a copy).
    const Bytes n_out = g.n_outputs;
    const bool keeps = keepsHiddenStateRow(model.architecture);
    const Bytes shared = model.moe.n_expert_shared > 0 ? 1 : 0;
    const Bytes rows_ub = keeps ? 2 + shared : 1;
    const Bytes rows_out = keeps ? 1 : 1 + shared;
    p.compute_logits = satAdd(satAdd(satMul(4 * n_out, model.n_vocab),
                                     satMul(4 * n_embd, satAdd(ub * rows_ub, n_out * rows_out))),
                              4 * ub);
    // A device holding the output layer and no block receives the last block's output as a split
    // input (ggml_backend_sched_split_graph: a tensor of its own, flagged as an output, so the
    // final norm cannot reuse it), normalises it into a new row (the weight multiply reuses that
    // in place) and computes the logits. Checked on llama-server over RPC loopback
    // (docs/accuracy-rpc.md), n_vocab 32000, n_embd 1024, -np 1: 4 x 32000 + 4 x 1024 + 4 x
    // 4 x 1024 (4 pipeline copies of the hidden row) = 148 480 B = 0.14 MiB, measured 0.14.
    p.output_hidden = satMul(4 * n_embd, keeps ? ub : n_out);
    p.compute_output_only = satAdd(
        satAdd(satMul(4 * n_out, model.n_vocab), satMul(4 * n_embd, keeps ? ub + n_out : n_out)),
        p.output_hidden);
    // -bs: the backend sampler chain runs in the graph after the logits, on the output layer's
    // device (llama_context::set_sampler: backend_init with ggml_backend_dev_buffer_type of
    // dev_output), over n_out rows of n_vocab. ESTIMATE: llama-server's default chain (common
    // sampling params, 10 samplers) measured 2 more [n_vocab, n_out] f32 rows on the output-only
    // RPC device (0.14 -> 0.39 MiB, docs/accuracy-rpc.md); a request with other samplers makes
    // llama-server reserve again with its chain.
    if (opt.backend_sampling) {
        const Bytes sampler_rows = satMul(8 * n_out, model.n_vocab);
        p.compute_logits = satAdd(p.compute_logits, sampler_rows);
        p.compute_output_only = satAdd(p.compute_output_only, sampler_rows);
    }
    p.compute_host = satMul(satMul(ub, n_embd), 4);
    // The MTP draft context's graph is not modelled beyond the logits peak of a whole ubatch
    // (its own block's peak is not priced), so it keeps that proxy whatever the program.
    if (opt.mtp && model.mtpCapable())
        p.compute_mtp =
            satAdd(satMul(4 * ub, satAdd(model.n_vocab, (rows_ub + rows_out) * n_embd)), 4 * ub);
    // Exact where the architecture has a skeleton: the reserved graph (n_ubatch tokens, n_outputs
    // of them outputs: llama_context::graph_reserve) replayed through ggml-alloc, plus -bs's
    // sampler rows as priced above.
    ComputeGraphParams graph{g.n_ubatch,
                             g.n_outputs,
                             g.n_ctx_seq,
                             g.swa_cells,
                             g.n_stream,
                             opt.flash_attn,
                             isQuantizedCacheType(opt.type_k),
                             isQuantizedCacheType(opt.type_v)};
    graph.kq_mask_f32_cast = opt.kq_mask_f32_cast;
    if (const auto replayed = replayedCompute(model, graph)) {
        p.compute_graph =
            opt.backend_sampling ? satAdd(*replayed, satMul(8 * n_out, model.n_vocab)) : *replayed;
    } else {
        // No skeleton: the closed form stays an estimate, so its measured error bound is added
        // (kComputeEstimateMarginPct, pricing.h) and the plan says so (launch_window.cpp), so
        // that it never prices below the buffer llama.cpp allocates on the validated settings.
        p.compute_margin_pct = kComputeEstimateMarginPct;
        auto withMargin = [&p](Bytes b) {
            return satAdd(b, ceilDiv(satMul(b, p.compute_margin_pct), 100));
        };
        p.compute_layer = withMargin(p.compute_layer);
        p.compute_logits = withMargin(p.compute_logits);
        p.compute_output_only = withMargin(p.compute_output_only);
    }
    p.mmproj = opt.mmproj_bytes;
    return p;
}

Bytes ContextPrice::computeFor(bool holds_layers, bool holds_output) const {
    if (replays(holds_layers, holds_output)) return compute_graph;
    return estimateFor(holds_layers, holds_output);
}

Bytes ContextPrice::estimateFor(bool holds_layers, bool holds_output) const {
    if (!holds_layers && !holds_output) return 0;
    if (!holds_layers) return satAdd(compute_inputs, compute_output_only);
    const Bytes peak = holds_output ? std::max(compute_layer, compute_logits) : compute_layer;
    return satAdd(compute_inputs, peak);
}

// Pipeline parallelism (llama.cpp v0.5.0 ggml/src/ggml-backend.cpp,
// ggml_backend_sched_split_graph): with n_copies = kSchedMaxCopies the scheduler gives every graph
// input read by a node n_copies tensors on the backend that holds it (the original is copy 0), and
// every split input (a tensor read by a split on another backend) n_copies tensors on the
// receiving backend, all flagged as outputs so ggml-alloc never frees or reuses them, and adds them
// as leafs allocated before the graph. Graph inputs are given to the last backend, the CPU
// (ggml_backend_sched_backend_id_from_cur: "graph input -> last backend").
//
// A device holding blocks receives, as split inputs, the masks and positions every block reads,
// the output ids the last block reads, and the hidden state from the backend before it, each
// n_copies times; one copy of the masks is already in compute_layer when that peak counts it. A
// device holding only the output receives the hidden rows (output_hidden). Same check: 26.50 MiB
// layer peak + 3 x 4 (masks) + 4 x 2 (hidden) + 4 x 10/1024 = 46.54 MiB, measured 46.54.
Bytes ContextPrice::pipelineDeviceExtra(bool holds_layers, bool holds_output) const {
    // A device holding only the output: computeFor counts one copy of the hidden rows it receives.
    if (!holds_layers) return holds_output ? satMul(kSchedMaxCopies - 1, output_hidden) : 0;
    const Bytes inputs =
        satAdd(satAdd(kq_masks, hidden_row), satAdd(position_rows, output_id_rows));
    return satSub(satMul(kSchedMaxCopies, inputs), masksInPeak(holds_layers, holds_output));
}

Bytes ContextPrice::masksInPeak(bool holds_layers, bool holds_output) const {
    const bool layer_peak = holds_layers && (!holds_output || compute_layer >= compute_logits);
    return layer_peak && layer_peak_has_masks ? kq_masks : 0;
}

// The graph inputs in the CPU backend's buffer beside devices: ggml_gallocr_alloc_graph_impl
// allocates inputs first and never frees a leaf, so they sit below the peaks. The unread inp_embd
// leaf once (read by no node, so never copied), and `copies` of each input a node reads (token
// ids, positions, output ids, masks), less the masks' copy the peak already counts. Checked
// against llama-server over RPC loopback (docs/accuracy-rpc.md), n_embd 1024, ub 512, FA mask
// 4096 x 512 x 2 B = 4 MiB:
//   full offload, pipeline parallel, CPU runs no block: compute_host 2 + 2 + 4 x (4 + (2 + 8 +
//   2)/1024) = 20.05 MiB, measured 20.05;
//   -c 8192 -ngl 4 (CPU runs blocks, copies 1): 30.50 layer peak + 2 + 12/1024 = 32.51 MiB,
//   measured 32.51.
Bytes ContextPrice::hostInputs(Bytes copies, bool holds_layers, bool holds_output) const {
    const Bytes read = satAdd(satAdd(kq_masks, token_rows), satAdd(position_rows, output_id_rows));
    return satSub(satAdd(embd_input_row, satMul(copies, read)),
                  masksInPeak(holds_layers, holds_output));
}

Bytes ContextPrice::kvTotal() const {
    Bytes t = satAdd(mtp_kv_k, mtp_kv_v);
    for (const auto& l : layers)
        t = satAdd(t, satAdd(l.kv_k, l.kv_v));
    return t;
}

Bytes ContextPrice::stateTotal() const {
    Bytes t = 0;
    for (const auto& l : layers)
        t = satAdd(t, l.state);
    return t;
}

Bytes kvBytesPerToken(const ContextPrice& price) {
    const Bytes ctx = std::max<Bytes>(1, price.geometry.n_ctx);
    return std::max<Bytes>(1, ceilDiv(price.kvTotal(), ctx));
}

} // namespace headroom
