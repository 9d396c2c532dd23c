// KV cache, recurrent state and output buffer must equal llama.cpp's closed forms exactly.
#include "common/test_shapes.h"
#include "pricing.h"

#include <QtTest>

using namespace headroom;
using namespace headroom::test;

class TestPricing : public QObject {
    Q_OBJECT

private slots:
    void fullAttentionKvAtF16IsRowBytesTimesCellsPerLayer() {
        const ModelShape m = llama8bLike();
        ResolvedOptions o;
        const ContextPrice p = priceContext(m, o, 65536);
        // K row = 8 heads x 128 = 1024 f16 elements = 2048 B; 65536 cells -> 134 217 728 B per
        // layer for K and the same for V; x 32 layers = 4 GiB each, 8 GiB together.
        QCOMPARE(p.layers[0].kv_k, Bytes{134217728});
        QCOMPARE(p.layers[0].kv_v, Bytes{134217728});
        QCOMPARE(p.kvTotal(), Bytes{8} * GiB);
    }

    void q8ZeroCacheIsExactly34Over64OfF16AndQ4ZeroIs18Over64() {
        const ModelShape m = llama8bLike();
        ResolvedOptions o;
        o.type_k = o.type_v = GgmlType::Q8_0;
        // 1024 elements = 32 blocks x 34 B = 1088 B per cell; x 65536 x 32 layers x 2 = 4 563 402
        // 752 = 8 GiB x 34/64.
        QCOMPARE(priceContext(m, o, 65536).kvTotal(), Bytes{4563402752});
        o.type_k = o.type_v = GgmlType::Q4_0;
        // 32 blocks x 18 B = 576 B per cell -> 8 GiB x 18/64 = 2 415 919 104.
        QCOMPARE(priceContext(m, o, 65536).kvTotal(), Bytes{2415919104});
    }

    void contextIsPaddedTo256Cells() {
        const ModelShape m = llama8bLike();
        ResolvedOptions o;
        const ContextPrice p = priceContext(m, o, 1000);
        // pad256(1000) = 1024.
        QCOMPARE(p.geometry.n_ctx, 1024u);
        QCOMPARE(p.layers[0].kv_k, Bytes{2048} * 1024);
    }

    void parallelSequencesWithoutUnifiedCacheGetPaddedStreams() {
        const ModelShape m = llama8bLike();
        ResolvedOptions o;
        o.n_seq = 3;
        const ContextPrice p = priceContext(m, o, 10000);
        // pad256(10000) = 10240; per stream pad256(10240 / 3 = 3413) = 3584; n_ctx = 3 x 3584.
        QCOMPARE(p.geometry.n_ctx_seq, 3584u);
        QCOMPARE(p.geometry.n_stream, 3u);
        QCOMPARE(p.geometry.n_ctx, 10752u);
        QCOMPARE(p.layers[0].kv_k, Bytes{2048} * 3584 * 3);
        // The unified cache keeps one stream of the padded context.
        o.kv_unified = true;
        const ContextPrice u = priceContext(m, o, 10000);
        QCOMPARE(u.geometry.n_stream, 1u);
        QCOMPARE(u.layers[0].kv_k, Bytes{2048} * 10240);
    }

    void slidingWindowLayersHoldWindowPlusUbatchCells() {
        ModelShape m = llama8bLike();
        m.n_swa = 1024;
        m.layers[0].attention = AttentionKind::SlidingWindow;
        ResolvedOptions o;
        o.n_ubatch = 512;
        const ContextPrice p = priceContext(m, o, 131072);
        // pad256(min(131072, 1024 + 512)) = 1536 cells.
        QCOMPARE(p.geometry.swa_cells, 1536u);
        QCOMPARE(p.layers[0].kv_k, Bytes{2048} * 1536);
        QCOMPARE(p.layers[1].kv_k, Bytes{2048} * 131072);
        // Unified over 2 sequences: pad256(2 x 1024 + 512) = 2560; per-stream caches keep 1536
        // each.
        o.n_seq = 2;
        o.kv_unified = true;
        QCOMPARE(priceContext(m, o, 131072).geometry.swa_cells, 2560u);
        o.kv_unified = false;
        const ContextPrice s = priceContext(m, o, 131072);
        QCOMPARE(s.layers[0].kv_k, Bytes{2048} * 1536 * 2);
        // --swa-full gives the SWA layers the whole context.
        o.swa_full = true;
        o.n_seq = 1;
        QCOMPARE(priceContext(m, o, 131072).layers[0].kv_k, Bytes{2048} * 131072);
    }

    void mlaCachesOnlyTheLatentK() {
        ModelShape m = llama8bLike();
        for (auto& l : m.layers) {
            l.attention = AttentionKind::Mla;
            l.n_head_kv = 1;
            l.n_embd_k_gqa = 512 + 64; // kv_lora_rank + rope dims (DeepSeek-V2-Lite)
            l.n_embd_v_gqa = 512;
        }
        ResolvedOptions o;
        const ContextPrice p = priceContext(m, o, 4096);
        // 576 f16 = 1152 B per cell x 4096 cells; no V cache (llama_kv_cache ctor: has_v =
        // !is_mla).
        QCOMPARE(p.layers[0].kv_k, Bytes{1152} * 4096);
        QCOMPARE(p.layers[0].kv_v, Bytes{0});
    }

    void recurrentStateIsF32RowsPerSequenceAndIndependentOfContext() {
        ModelShape m = llama8bLike();
        m.layers[1].attention = AttentionKind::Recurrent;
        m.layers[1].recurrent_r = 3 * 8192; // (d_conv - 1) x conv channels
        m.layers[1].recurrent_s = 128 * 4096;
        ResolvedOptions o;
        o.n_seq = 2;
        const ContextPrice a = priceContext(m, o, 4096);
        const ContextPrice b = priceContext(m, o, 262144);
        // (24 576 + 524 288) x 4 B x 2 sequences = 4 390 912, at any context; no KV for that layer.
        QCOMPARE(a.layers[1].state, Bytes{4390912});
        QCOMPARE(b.layers[1].state, Bytes{4390912});
        QCOMPARE(a.layers[1].kv_k, Bytes{0});
    }

    void withoutFlashAttentionEveryVRowIsAsWideAsTheWidestLayer() {
        ModelShape m = llama8bLike();
        m.layers[0].n_embd_v_gqa = 2048;
        ResolvedOptions o;
        o.flash_attn = false;
        const ContextPrice p = priceContext(m, o, 1024);
        // v_trans: n_embd_v_gqa_max() = 2048 elements for every layer -> 4096 B per cell.
        QCOMPARE(p.layers[1].kv_v, Bytes{4096} * 1024);
        o.flash_attn = true;
        QCOMPARE(priceContext(m, o, 1024).layers[1].kv_v, Bytes{2048} * 1024);
    }

    void outputBufferHoldsOneLogitsRowPerSequence() {
        const ModelShape m = llama8bLike();
        ResolvedOptions o;
        o.n_seq = 4;
        // 128 256 x 4 B x 4 sequences.
        QCOMPARE(priceContext(m, o, 4096).output, Bytes{128256} * 4 * 4);
    }

    void mtpBlockWeightsLoadOnlyWithMtpButTheMainCacheMayStillCoverThem() {
        ModelShape m = llama8bLike();
        m.layers.back().is_mtp = true;
        m.n_mtp_layers = 1;
        ResolvedOptions o;
        // GLM-4.5 style: the nextn block stays in the main cache (no create_memory filter), so
        // its KV is allocated even with MTP off; its weights are TENSOR_SKIP.
        const ContextPrice off = priceContext(m, o, 4096);
        QCOMPARE(off.layers.back().weights, Bytes{0});
        QCOMPARE(off.layers.back().kv_k, Bytes{2048} * 4096);
        // With MTP on the weights load, and the unfiltered draft context caches every layer
        // again: 32 layers x 2048 B x 4096 cells for K.
        o.mtp = true;
        const ContextPrice on = priceContext(m, o, 4096);
        QCOMPARE(on.layers.back().weights, Bytes{200} * MiB);
        QCOMPARE(on.mtp_kv_k, Bytes{32} * 2048 * 4096);
        // Qwen3-Next style: the block is filtered out of the main cache and only the draft
        // context (filtered to il >= n_layer) caches it.
        m.layers.back().in_main_cache = false;
        o.mtp = false;
        QCOMPARE(priceContext(m, o, 4096).layers.back().kv_k, Bytes{0});
        o.mtp = true;
        const ContextPrice q = priceContext(m, o, 4096);
        QCOMPARE(q.layers.back().kv_k, Bytes{2048} * 4096);
        QCOMPARE(q.mtp_kv_k, Bytes{0});
    }

    void computeBufferMatchesLlamaCppsCpuBuildForLlama() {
        // Measured with node-llama-cpp 3.21.1's CPU build on a Llama-3.1-8B-shaped GGUF
        // (tests/validation/measured.json): 4K, ub 512.
        const ModelShape m = llama8bLike();
        ResolvedOptions o;
        const ContextPrice on = priceContext(m, o, 4096);
        // fa on: logits peak 4 x 512 x (128256 + 2 x 4096) + 4 x 512 = 279 447 552.
        QCOMPARE(on.computeFor(true, true), Bytes{279447552});
        o.flash_attn = false;
        const ContextPrice off = priceContext(m, o, 4096);
        // fa off: 4 x 512 x 4096 x 33 + 512 x (14 x 4096 + 8 x 32 x 128) + 20 x 512 = 322 971 648.
        QCOMPARE(off.computeFor(true, true), Bytes{322971648});
    }

    void aGraphThatKeepsItsHiddenStateAsAnOutputHoldsOneMoreRowBesideTheLogits() {
        // gpt-oss-20b's dims (n_vocab 201088, n_embd 2880): models/openai-moe.cpp marks the last
        // l_out as an output (t_h_nextn), so inp_embd, l_out and result_norm are all alive when
        // result_output is allocated. Measured on node-llama-cpp 3.21.1's CPU build, 32K, q8_0
        // cache, flash attention, ub 512 (tests/validation/measured.json): 429 524 992 bytes =
        // 4 x 512 x (201088 + 3 x 2880) + 4 x 512.
        ModelShape m = llama8bLike();
        m.architecture = "gpt-oss";
        m.n_vocab = 201088;
        m.n_embd = 2880;
        ResolvedOptions o;
        QCOMPARE(priceContext(m, o, 4096).compute_logits, Bytes{429524992});
        // The same dims under an architecture whose result_norm reuses the last layer output in
        // place keep two rows: 4 x 512 x (201088 + 2 x 2880) + 4 x 512 = 423 626 752.
        m.architecture = "llama";
        QCOMPARE(priceContext(m, o, 4096).compute_logits, Bytes{423626752});
    }

    void aSmallVocabularyLetsTheFfnPeakDominateWithFlashAttention() {
        // Phi-3.5-mini's dims (n_vocab 32064, n_embd 3072, n_ff 8192), 16K, q8_0 cache, flash
        // attention, ub 512. Measured on node-llama-cpp 3.21.1's CPU build: 85 997 568 bytes, with
        // the peak at layer 0's GLU product (allocator replay, tests/validation/peak.cpp).
        // FFN peak: 4 x 512 x (3 x 8192 + 3 x 3072) + f16 mask 2 x 512 x 16384 = 85 983 232
        // (-0.02 %: the rest are small index inputs); the logits peak, 4 x 512 x (32064 + 2 x 3072)
        // + 4 x 512 = 78 252 032, is lower.
        ModelShape m = llama8bLike();
        m.architecture = "phi3";
        m.n_vocab = 32064;
        m.n_embd = 3072;
        m.n_ff = 8192;
        for (auto& l : m.layers) {
            // Phi-3.5-mini: 32 heads of 96, as many KV heads.
            l.n_head = l.n_head_kv = 32;
            l.n_embd_k_gqa = l.n_embd_v_gqa = 3072;
            l.ffn_bytes = 1;
            l.experts_bytes = 0;
        }
        ResolvedOptions o;
        o.type_k = o.type_v = GgmlType::Q8_0;
        const ContextPrice p = priceContext(m, o, 16384);
        QCOMPARE(p.compute_layer, Bytes{85983232});
        QCOMPARE(p.compute_logits, Bytes{78252032});
        // The plan takes the replayed graph instead (compute_skeleton.h): the measured 85 997 568.
        QCOMPARE(p.computeFor(true, true), Bytes{85997568});
    }

    void aSharedExpertKeepsTheNormedInputAliveUnderTheExpertSum() {
        // GLM-4.5-Air's dims (n_vocab 151552, n_embd 4096, one shared expert). Measured on
        // node-llama-cpp 3.21.1's CPU build, 16K, q8_0 cache, flash attention, ub 512:
        // 335 546 368 bytes = 4 x 512 x (151552 + 3 x 4096) + 4 x 512 (inp_embd, the residual,
        // the normed input, then the expert sum that becomes result_norm).
        ModelShape m = llama8bLike();
        m.architecture = "glm4moe";
        m.n_vocab = 151552;
        m.n_embd = 4096;
        m.moe = {128, 8, 1};
        ResolvedOptions o;
        QCOMPARE(priceContext(m, o, 16384).compute_logits, Bytes{335546368});
    }

    void expertsWithoutTheirOwnWidthUseTheFfnWidth() {
        // Jamba-v0.1: experts are [n_embd, n_ff = 14336] (no expert_feed_forward_length), 2 used.
        // Measured (4K, f16 cache, flash attention, ub 512): 205 602 848 bytes at layer 1's GLU
        // product; FFN peak 4 x 512 x (3 x 14336 x 2 + 3 x 4096) + f16 mask 2 x 512 x 4096 =
        // 205 520 896 (-0.04 %).
        ModelShape m = llama8bLike();
        m.n_vocab = 65536;
        m.n_embd = 4096;
        m.n_ff = 14336;
        m.n_ff_exp = 0;
        m.moe = {16, 2, 0};
        for (auto& l : m.layers) {
            l.ffn_bytes = 0;
            l.experts_bytes = 1;
        }
        ResolvedOptions o;
        QCOMPARE(priceContext(m, o, 4096).compute_layer, Bytes{205520896});
    }

    void ubatchIsClampedToTheContext() {
        const ModelShape m = llama8bLike();
        ResolvedOptions o;
        o.n_ubatch = 4096;
        o.n_batch = 4096;
        // n_batch = min(n_ctx 1000, 4096) = 1000, n_ubatch = min(1000, 4096).
        QCOMPARE(priceContext(m, o, 1000).geometry.n_ubatch, 1000u);
    }
};

QTEST_APPLESS_MAIN(TestPricing)
#include "test_pricing.moc"
