// KV cache, recurrent state and output buffer must equal llama.cpp's closed forms exactly.
#include "common/test_shapes.h"
#include "pricing.h"

#include <QtTest>

using namespace headroom;
using namespace headroom::test;

namespace {

// gpt-oss-20b's output dims (n_vocab 201088, n_embd 2880) on a dense trunk: a graph that keeps
// its hidden state as an output (keepsHiddenStateRow).
ModelShape gptOssLike() {
    ModelShape m = llama8bLike();
    m.architecture = "gpt-oss";
    m.n_vocab = 201088;
    m.n_embd = 2880;
    return m;
}

} // namespace

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
        o.program = Program::Library; // measured through node-llama-cpp's llama_context
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
        ModelShape m = gptOssLike();
        ResolvedOptions o;
        o.program = Program::Library; // measured through node-llama-cpp's llama_context
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
        o.program = Program::Library; // measured through node-llama-cpp's llama_context
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
        o.program = Program::Library; // measured through node-llama-cpp's llama_context
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

    void llamaServerReservesOneLogitsRowPerSlotWhereTheLibraryReservesAUbatch() {
        // llama-server (server_output_limits): n_outputs_max = min(-b 2048, -np 1 x (1 + 0
        // drafts)) = 1; sched_reserve reserves min(ub 512, 1) = 1 output row. The library
        // (llama_context_default_params): n_outputs_max = n_batch, so min(512, 2048) = 512.
        const ModelShape m = llama8bLike();
        ResolvedOptions o;
        const ContextPrice server = priceContext(m, o, 4096);
        QCOMPARE(server.geometry.n_outputs, 1u);
        // Logits peak: 4 x 1 x 128256 (logits) + 4 x 4096 x (512 (inp_embd) + 1 (the last
        // layer's output row)) + 4 x 512 = 513 024 + 8 404 992 + 2 048 = 8 920 064.
        QCOMPARE(server.compute_logits, Bytes{8920064});
        // So the FFN peak decides the closed-form estimate a device holding blocks but not the
        // output gets: 4 x 512 x (3 x 16384 + 3 x 4096) + the f16 mask 2 x 512 x 4096
        // = 125 829 120 + 4 194 304 = 130 023 424.
        QCOMPARE(server.computeFor(true, false), Bytes{130023424});
        // Holding every block and the output, the buffer is the replayed graph. llama-server
        // v0.5.0 logged 120.01 MiB on the real Llama-3.1-8B replica (n_ff 14336, -c 4096, FA),
        // replayed to 125 841 440 B; this shape's FFN is 16384 wide, and its three FFN rows at the
        // peak add 3 x 4 B x 512 x (16384 - 14336) = 12 582 912: 138 424 352.
        QVERIFY(server.replays(true, true));
        QCOMPARE(server.computeFor(true, true), Bytes{138424352});
        o.program = Program::Library;
        const ContextPrice library = priceContext(m, o, 4096);
        QCOMPARE(library.geometry.n_outputs, 512u);
        // 4 x 512 x (128256 + 2 x 4096) + 4 x 512 = 279 447 552 (the measured figure above).
        QCOMPARE(library.computeFor(true, true), Bytes{279447552});
    }

    void llamaServerOutputRowsCountSlotsAndDraftsUpToTheBatchAndUbatch_data() {
        QTest::addColumn<std::uint32_t>("n_seq");
        QTest::addColumn<std::uint32_t>("n_draft");
        QTest::addColumn<std::uint32_t>("n_batch");
        QTest::addColumn<std::uint32_t>("n_ubatch");
        QTest::addColumn<std::uint32_t>("rows");
        // min(n_ubatch, min(n_batch, n_seq x (1 + n_draft))), at least 1.
        QTest::newRow("2 slots") << 2u << 0u << 2048u << 512u << 2u;               // 2 x 1
        QTest::newRow("2 slots, MTP 3 drafts") << 2u << 3u << 2048u << 512u << 8u; // 2 x 4
        QTest::newRow("-b 4 caps them") << 2u << 3u << 4u << 4u << 4u;             // min(4, 8)
        QTest::newRow("-ub 2 caps the graph") << 2u << 3u << 2048u << 2u << 2u;    // min(2, 8)
        QTest::newRow("256 slots") << 256u << 3u << 2048u << 512u << 512u;         // min(512, 1024)
    }
    void llamaServerOutputRowsCountSlotsAndDraftsUpToTheBatchAndUbatch() {
        QFETCH(std::uint32_t, n_seq);
        QFETCH(std::uint32_t, n_draft);
        QFETCH(std::uint32_t, n_batch);
        QFETCH(std::uint32_t, n_ubatch);
        QFETCH(std::uint32_t, rows);
        ResolvedOptions o;
        o.n_seq = n_seq;
        o.n_draft = n_draft;
        o.n_batch = n_batch;
        o.n_ubatch = n_ubatch;
        QCOMPARE(priceContext(llama8bLike(), o, 4096).geometry.n_outputs, rows);
        // The library reserves the whole ubatch whatever the slots and drafts.
        o.program = Program::Library;
        QCOMPARE(priceContext(llama8bLike(), o, 4096).geometry.n_outputs, n_ubatch);
    }

    void aDeviceHoldingOnlyTheOutputPaysTheNormAndLogitsOfTheOutputRows() {
        // The RPC loopback replica (tests/validation/rpc: n_embd 1024 = 16 heads x 64, vocab
        // 32000), -np 1 under llama-server: one output row. The norm's row, the logits and one
        // copy of the hidden row the last block sends: 4 x 32000 + 4 x 1024 + 4 x 1024 = 136 192.
        const ModelShape m = denseShape(6, 16, 4, 64, 32000, 10 * MiB, 4096);
        ResolvedOptions o;
        const ContextPrice p = priceContext(m, o, 4096);
        QCOMPARE(p.computeFor(false, true), Bytes{136192});
        // Pipeline parallelism keeps 4 copies of that row: 3 more x 4096 = 12 288, so 148 480 B
        // = 0.1416 MiB, which llama.cpp v0.5.0 logs as 0.14 MiB (docs/accuracy-rpc.md).
        QCOMPARE(p.pipelineDeviceExtra(false, true), Bytes{12288});
        // -bs runs the sampler chain there too: 2 more rows of 32000 f32 (the estimate measured
        // with llama-server's default chain, 0.39 MiB logged): 136 192 + 256 000 = 392 192.
        o.backend_sampling = true;
        QCOMPARE(priceContext(m, o, 4096).computeFor(false, true), Bytes{392192});
        o.backend_sampling = false;
        // The library sends and computes a whole ubatch of rows: 4 x 512 x 32000 + 4 x 1024 x 512
        // (norm) + 4 x 1024 x 512 (hidden) = 65 536 000 + 2 097 152 + 2 097 152 = 69 730 304.
        o.program = Program::Library;
        QCOMPARE(priceContext(m, o, 4096).computeFor(false, true), Bytes{69730304});
    }

    void aGraphThatKeepsItsHiddenStateRunsTheLastBlockOnTheWholeUbatchUnderLlamaServer() {
        // gpt-oss (models/openai-moe.cpp): without embeddings_nextn_masked the last block and the
        // final norm see all 512 tokens and result_norm takes the one output row after them.
        const ModelShape m = gptOssLike();
        ResolvedOptions o;
        const ContextPrice p = priceContext(m, o, 4096);
        // 4 x 201088 + 4 x 2880 x (2 x 512 (inp_embd, the kept hidden state) + 1 (result_norm))
        // + 4 x 512 = 804 352 + 11 808 000 + 2 048 = 12 614 400.
        QCOMPARE(p.compute_logits, Bytes{12614400});
        // Output only: 512 hidden rows in, 512 normed, 1 result_norm row, 1 logits row:
        // 4 x 2880 x 512 x 2 + 4 x 2880 + 4 x 201088 = 11 796 480 + 11 520 + 804 352 = 12 612 352.
        QCOMPARE(p.computeFor(false, true), Bytes{12612352});
    }

    void backendSamplingAddsTheSamplersRowsToTheOutputBuffer() {
        // llama_context::output_reserve with backend samplers: per row, logits + probs (2 x
        // n_vocab f32), candidates (n_vocab i32) and the sampled token (1 i32) beside the
        // logits row (n_vocab f32). llama8bLike: n_vocab 128256.
        const ModelShape m = llama8bLike();
        ResolvedOptions o;
        o.backend_sampling = true;
        // One sequence: 4 x 128256 + (2 x 4 + 4) x 128256 + 4 = 513 024 + 1 539 072 + 4 =
        // 2 052 100.
        QCOMPARE(priceContext(m, o, 4096).output, Bytes{2052100});
        // Two sequences: output_reserve(n_seq_max = 2) at load, twice that.
        o.n_seq = 2;
        QCOMPARE(priceContext(m, o, 4096).output, Bytes{4104200});
        // Without -bs only the logits rows: 2 x 513 024.
        o.backend_sampling = false;
        QCOMPARE(priceContext(m, o, 4096).output, Bytes{1026048});
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
