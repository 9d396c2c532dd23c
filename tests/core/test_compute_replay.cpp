// The compute buffer replayed through ggml-alloc (core/compute_graph.h) on the graph skeletons
// (core/compute_skeleton.h): the allocator's rules on hand-built graphs, and whole models against
// the bytes llama.cpp v0.4.0 (node-llama-cpp 3.21.1, CPU backend) allocated in the validation suite
// (tests/validation/measured.json: "compute" -> "bytes" of each model's settings).
#include "common/test_shapes.h"
#include "compute_graph.h"
#include "compute_skeleton.h"
#include "pricing.h"

#include <QtTest>

#include <cmath>

using namespace headroom;
using namespace headroom::graph;

namespace {

// Llama-3.1-8B (config.json: 32 layers, 32 heads, 8 KV heads, head_dim 128, n_ff 14336,
// vocab 128256), the shape the suite's llama-3.1-8b.gguf has.
ModelShape llama31() {
    ModelShape m = test::llama8bLike();
    m.n_ff = 14336;
    return m;
}

// Mamba2-2.7B (tests/validation/models.js: 64 layers, n_embd 2560, vocab 50288, d_conv 4,
// d_inner 5120, d_state 128, one group, 80 heads): recurrent_r = 3 x (5120 + 2 x 128) = 16128,
// recurrent_s = 128 x 5120 = 655360, as llama_hparams::n_embd_r / n_embd_s give them.
ModelShape mamba2() {
    ModelShape m;
    m.architecture = "mamba2";
    m.n_embd = 2560;
    m.n_vocab = 50288;
    m.ssm = {4, 5120, 128, 1, 80};
    for (int i = 0; i < 64; ++i) {
        LayerShape l;
        l.attention = AttentionKind::Recurrent;
        l.recurrent_r = 16128;
        l.recurrent_s = 655360;
        l.attn_bytes = 1;
        m.layers.push_back(l);
    }
    return m;
}

// DeepSeek-V2-Lite (config.json: 27 layers, the first dense with n_ff 10944, 16 heads, no Q
// LoRA, kv_lora_rank 512, qk_nope 128 + qk_rope 64, v_head_dim 128, 64 routed experts of 1408,
// 6 used, 2 shared, vocab 102400): the MLA cache row is 512 + 64 = 576 wide, one KV head.
ModelShape deepseekV2Lite() {
    ModelShape m;
    m.architecture = "deepseek2";
    m.n_embd = 2048;
    m.n_vocab = 102400;
    m.n_ff = 10944;
    m.n_ff_exp = 1408;
    m.moe = {64, 6, 2};
    m.mla = {0, 512, 192, 128, 64};
    for (int i = 0; i < 27; ++i) {
        LayerShape l;
        l.attention = AttentionKind::Mla;
        l.n_head = 16;
        l.n_head_kv = 1;
        l.n_embd_k_gqa = 576;
        l.attn_bytes = 1;
        (i == 0 ? l.ffn_bytes : l.experts_bytes) = 1;
        m.layers.push_back(l);
    }
    return m;
}

// Jamba-v0.1 (tests/validation/models.js: 32 layers, attention every 8th from 4 with 32 heads and
// 8 KV heads of 128, Mamba-1 elsewhere with d_conv 4, d_inner 8192, d_state 16, dt_rank 256, 16
// experts of 14336 with 2 used in every odd layer, a dense FFN of 14336 in the others, vocab
// 65536): recurrent_r = 3 x 8192 = 24576 and recurrent_s = 16 x 8192 = 131072
// (llama_hparams::n_embd_r / n_embd_s without groups).
ModelShape jamba() {
    ModelShape m;
    m.architecture = "jamba";
    m.n_embd = 4096;
    m.n_vocab = 65536;
    m.n_ff = 14336;
    m.moe = {16, 2, 0};
    m.ssm = {4, 8192, 16, 0, 256};
    for (int i = 0; i < 32; ++i) {
        LayerShape l;
        l.n_head = 32;
        if (i % 8 == 4) {
            l.n_head_kv = 8;
            l.n_embd_k_gqa = l.n_embd_v_gqa = 1024;
        } else {
            l.attention = AttentionKind::Recurrent;
            l.recurrent_r = 24576;
            l.recurrent_s = 131072;
        }
        l.attn_bytes = 1;
        (i % 2 == 1 ? l.experts_bytes : l.ffn_bytes) = 1;
        m.layers.push_back(l);
    }
    return m;
}

// Qwen3-Next-80B-A3B (models.js: 48 layers, full attention every 4th (16 heads, 2 KV heads of
// 256), gated delta-net elsewhere (d_conv 4, 16 key heads and 32 value heads of 128: d_inner
// 4096, d_state 128), 512 experts of 512 with 10 used and one shared expert of 512, vocab
// 151936): recurrent_r = 3 x (4096 + 2 x 16 x 128) = 24576, recurrent_s = 128 x 128 x 32.
ModelShape qwen3next() {
    ModelShape m;
    m.architecture = "qwen3next";
    m.n_embd = 2048;
    m.n_vocab = 151936;
    m.n_ff = 5120;
    m.n_ff_exp = 512;
    m.moe = {512, 10, 1};
    m.ssm = {4, 4096, 128, 16, 32};
    for (int i = 0; i < 48; ++i) {
        LayerShape l;
        l.n_head = 16;
        l.n_head_kv = 2;
        if (i % 4 == 3) {
            l.n_embd_k_gqa = l.n_embd_v_gqa = 512;
        } else {
            l.attention = AttentionKind::Recurrent;
            l.recurrent_r = 24576;
            l.recurrent_s = 524288;
        }
        l.attn_bytes = l.ffn_bytes = l.experts_bytes = 1;
        m.layers.push_back(l);
    }
    return m;
}

// Gemma-3n-E2B (models.js: 30 layers, 8 heads and 2 KV heads of 256, every 5th layer full
// attention and the others a 512-token window, layers 20+ reading the cache of layers 18/19,
// n_ff 8192, vocab 262400).
ModelShape gemma3n() {
    ModelShape m;
    m.architecture = "gemma3n";
    m.n_embd = 2048;
    m.n_vocab = 262400;
    m.n_ff = 8192;
    m.n_swa = 512;
    for (int i = 0; i < 30; ++i) {
        LayerShape l;
        l.n_head = 8;
        l.n_head_kv = 2;
        if (i < 20) {
            l.attention = i % 5 == 4 ? AttentionKind::Full : AttentionKind::SlidingWindow;
            l.n_embd_k_gqa = l.n_embd_v_gqa = 512;
        } else {
            l.attention = AttentionKind::None;
        }
        l.attn_bytes = l.ffn_bytes = 1;
        m.layers.push_back(l);
    }
    return m;
}

// Falcon-H1-0.5B (the Vulkan grid's replica, tests/validation/models.js: 36 layers, each with
// attention (8 heads, 2 KV heads of 64) and a Mamba-2 mixer in parallel, n_embd 1024, n_ff 2048,
// vocab 32784, d_conv 4, d_inner 1536, d_state 128, one group, 24 heads): recurrent_r =
// 3 x (1536 + 2 x 128) = 5376, recurrent_s = 128 x 1536 = 196608.
ModelShape falconH1() {
    ModelShape m;
    m.architecture = "falcon-h1";
    m.n_embd = 1024;
    m.n_vocab = 32784;
    m.n_ff = 2048;
    m.ssm = {4, 1536, 128, 1, 24};
    for (int i = 0; i < 36; ++i) {
        LayerShape l;
        l.n_head = 8;
        l.n_head_kv = 2;
        l.n_embd_k_gqa = l.n_embd_v_gqa = 128;
        l.recurrent_r = 5376;
        l.recurrent_s = 196608;
        l.attn_bytes = l.ffn_bytes = 1;
        m.layers.push_back(l);
    }
    return m;
}

// LFM2-1.2B (models.js: 16 layers, attention at 2, 5, 8, 10, 12 and 14 (32 heads, 8 KV heads of
// 64), short convolutions elsewhere (L_cache 3: recurrent_r = 2 x 2048), n_ff 8192, vocab 65536).
ModelShape lfm2() {
    ModelShape m;
    m.architecture = "lfm2";
    m.n_embd = 2048;
    m.n_vocab = 65536;
    m.n_ff = 8192;
    for (int i = 0; i < 16; ++i) {
        LayerShape l;
        l.n_head = 32;
        if (i == 2 || i == 5 || i == 8 || i == 10 || i == 12 || i == 14) {
            l.n_head_kv = 8;
            l.n_embd_k_gqa = l.n_embd_v_gqa = 512;
        } else {
            l.attention = AttentionKind::Recurrent;
            l.recurrent_r = 4096;
        }
        l.attn_bytes = l.ffn_bytes = 1;
        m.layers.push_back(l);
    }
    return m;
}

ModelShape shapeNamed(const QString& name) {
    if (name == "mamba2") return mamba2();
    if (name == "deepseek2") return deepseekV2Lite();
    if (name == "jamba") return jamba();
    if (name == "qwen3next") return qwen3next();
    if (name == "gemma3n") return gemma3n();
    if (name == "falcon-h1") return falconH1();
    if (name == "lfm2") return lfm2();
    return llama31();
}

} // namespace

class TestComputeReplay : public QObject {
    Q_OBJECT

private slots:
    void aSourceIsFreedAfterItsLastConsumerAndItsHoleReused() {
        // x (an input, 1 KiB) -> a -> b -> c, each a 1 KiB copy (ggml_cont never runs in place).
        // x is freed once a is computed, so b takes x's hole at offset 0; a is freed after b and
        // c lands where a was: two rows, 2 KiB, never more.
        Graph g;
        const Id x = g.input(Elem::F32, 256);
        const Id a = g.cont(x, {256, 1, 1, 1});
        const Id b = g.cont(a, {256, 1, 1, 1});
        const Id c = g.cont(b, {256, 1, 1, 1});
        g.setOutput(c);
        g.expand(c);
        QCOMPARE(replayPeak(g, 32), Bytes{2048});
    }

    void anInPlaceOpTakesItsSourcesMemoryOnlyWhenNothingElseReadsIt() {
        // x (an output, so it stays) -> a -> ggml_scale(a): in place on a, 2 KiB.
        Graph g;
        const Id x = g.input(Elem::F32, 256);
        const Id a = g.cont(x, {256, 1, 1, 1});
        const Id s = g.scale(a);
        g.setOutput(x);
        g.setOutput(s);
        g.expand(s);
        QCOMPARE(replayPeak(g, 32), Bytes{2048});
        // When a is read again after the scale, the scale needs a row of its own: 3 KiB.
        Graph h;
        const Id hx = h.input(Elem::F32, 256);
        const Id ha = h.cont(hx, {256, 1, 1, 1});
        const Id hs = h.scale(ha);
        const Id sum = h.add(hs, ha);
        h.setOutput(hx);
        h.setOutput(sum);
        h.expand(sum);
        QCOMPARE(replayPeak(h, 32), Bytes{3072});
    }

    void anOutputIsNeverFreedNorReused() {
        // x (kept) -> a -> b -> c: a is freed after b and c takes its hole, 3 KiB; with a an
        // output too, c goes above b: 4 KiB.
        for (const bool a_is_output : {false, true}) {
            Graph g;
            const Id x = g.input(Elem::F32, 256);
            const Id a = g.cont(x, {256, 1, 1, 1});
            const Id b = g.cont(a, {256, 1, 1, 1});
            const Id c = g.cont(b, {256, 1, 1, 1});
            g.setOutput(x);
            if (a_is_output) g.setOutput(a);
            g.setOutput(c);
            g.expand(c);
            QCOMPARE(replayPeak(g, 32), Bytes{a_is_output ? 4096u : 3072u});
        }
    }

    void everySizeIsPaddedToTheBuffersAlignment() {
        // Three floats (12 B) and their copy: each padded to 32 (ggml_dyn_tallocr_alloc's
        // aligned_offset), 64 in all; at alignment 64, 128.
        Graph g;
        const Id x = g.input(Elem::F32, 3);
        const Id a = g.cont(x, {3, 1, 1, 1});
        g.setOutput(a);
        g.expand(a);
        QCOMPARE(replayPeak(g, 32), Bytes{64});
        QCOMPARE(replayPeak(g, 64), Bytes{128});
    }

    void theReplayedBufferEqualsWhatLlamaCppAllocated_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("ctx");
        QTest::addColumn<int>("ub");
        QTest::addColumn<int>("np");
        QTest::addColumn<bool>("fa");
        QTest::addColumn<bool>("q8");
        QTest::addColumn<qulonglong>("measured");
        // llama-3.1-8b. 4K, ub 512, flash attention: the logits peak, result_output
        // 4 x 512 x 128256 = 262 668 288 above inp_tokens (2 048), inp_embd and the last layer's
        // output (2 x 8 388 608): 279 447 552.
        QTest::newRow("llama 4K fa")
            << "llama" << 4096 << 512 << 1 << true << false << 279447552ULL;
        // Without flash attention the f32 KQ scores [4096, 512, 32] (268 435 456) peak instead.
        QTest::newRow("llama 4K no fa")
            << "llama" << 4096 << 512 << 1 << false << false << 322971648ULL;
        QTest::newRow("llama 8K ub 256 no fa")
            << "llama" << 8192 << 256 << 1 << false << false << 299897856ULL;
        // A q8_0 cache rotates Q, K and V by Hadamard matrices (attn_rot_k/v): one more hidden
        // row (8 388 608) than the f16 4K case is alive under the logits.
        QTest::newRow("llama 16K q8_0")
            << "llama" << 16384 << 512 << 1 << true << true << 287836160ULL;
        QTest::newRow("llama 8K ub 2048")
            << "llama" << 8192 << 2048 << 1 << true << false << 1117790208ULL;
        QTest::newRow("llama 8K 4 sequences")
            << "llama" << 8192 << 512 << 4 << true << false << 279447552ULL;
        // mamba2-2.7b: no attention, the same buffer at every context; ub scales it.
        QTest::newRow("mamba2 4K") << "mamba2" << 4096 << 512 << 1 << true << false << 118722592ULL;
        QTest::newRow("mamba2 8K ub 256")
            << "mamba2" << 8192 << 256 << 1 << false << false << 59361312ULL;
        QTest::newRow("mamba2 8K ub 2048")
            << "mamba2" << 8192 << 2048 << 1 << true << false << 474890272ULL;
        QTest::newRow("mamba2 4 sequences")
            << "mamba2" << 8192 << 512 << 4 << true << false << 118722592ULL;
        // deepseek-v2-lite: MLA attention, routed and shared experts, a dense first block.
        QTest::newRow("deepseek2 4K fa")
            << "deepseek2" << 4096 << 512 << 1 << true << false << 251934720ULL;
        QTest::newRow("deepseek2 4K no fa")
            << "deepseek2" << 4096 << 512 << 1 << false << false << 251934720ULL;
        QTest::newRow("deepseek2 8K ub 256 no fa")
            << "deepseek2" << 8192 << 256 << 1 << false << false << 173157376ULL;
        QTest::newRow("deepseek2 16K q8_0")
            << "deepseek2" << 16384 << 512 << 1 << true << true << 251934720ULL;
        QTest::newRow("deepseek2 8K ub 2048")
            << "deepseek2" << 8192 << 2048 << 1 << true << false << 1007738880ULL;
        QTest::newRow("deepseek2 8K 4 sequences")
            << "deepseek2" << 8192 << 512 << 4 << true << false << 222300160ULL;
        // jamba-v0.1: Mamba-1 and attention blocks, routed experts in every other block. At 4K
        // with flash attention the peak is inside block 1's experts (peak.cpp): the gate, up and
        // GLU rows [14336, 2, 512] f32 (3 x 58 720 256), the residual and inp_embd (2 x
        // 8 388 608), the f16 mask [4096, 512] (4 194 304) and 47 136 of routing and inputs,
        // 197 179 424 alive, over an 8 423 424 hole left under them: 205 602 848.
        QTest::newRow("jamba 4K fa")
            << "jamba" << 4096 << 512 << 1 << true << false << 205602848ULL;
        QTest::newRow("jamba 4K no fa")
            << "jamba" << 4096 << 512 << 1 << false << false << 314581024ULL;
        QTest::newRow("jamba 8K ub 256 no fa")
            << "jamba" << 8192 << 256 << 1 << false << false << 295702560ULL;
        QTest::newRow("jamba 16K q8_0")
            << "jamba" << 16384 << 512 << 1 << true << true << 251752480ULL;
        QTest::newRow("jamba 8K ub 2048")
            << "jamba" << 8192 << 2048 << 1 << true << false << 839188512ULL;
        QTest::newRow("jamba 8K 4 sequences")
            << "jamba" << 8192 << 512 << 4 << true << false << 203505696ULL;
        // qwen3-next-80b-a3b: gated delta-net and gated attention, 10 of 512 experts plus a gated
        // shared expert. At 4K with flash attention the logits peak: result_output 4 x 512 x
        // 151936 = 311 164 928 above inp_embd, the f16 mask [4096, 512], h_nextn and result_norm
        // (4 x 4 194 304; the last block runs on every row, result_norm gathers them after the
        // final norm) and the small inputs: tokens, positions, output ids (3 x 2 048), K and V
        // row indices (2 x 4 096 i64) and s_copy (4, padded to 32): 327 956 512.
        QTest::newRow("qwen3next 4K fa")
            << "qwen3next" << 4096 << 512 << 1 << true << false << 327956512ULL;
        QTest::newRow("qwen3next 4K no fa")
            << "qwen3next" << 4096 << 512 << 1 << false << false << 330049568ULL;
        QTest::newRow("qwen3next 8K ub 256 no fa")
            << "qwen3next" << 8192 << 256 << 1 << false << false << 166069248ULL;
        QTest::newRow("qwen3next 16K q8_0")
            << "qwen3next" << 16384 << 512 << 1 << true << true << 323749888ULL;
        QTest::newRow("qwen3next 8K ub 2048")
            << "qwen3next" << 8192 << 2048 << 1 << true << false << 1294999552ULL;
        QTest::newRow("qwen3next 8K 4 sequences")
            << "qwen3next" << 8192 << 512 << 4 << true << false << 330053664ULL;
        // gemma-3n-e2b: AltUp streams, LAUREL, per-layer inputs, shared-KV layers. At 4K with
        // flash attention the logits peak: result_output 4 x 512 x 262400 = 537 395 200 above
        // inp_embd and result_norm (2 x 4 194 304), the f16 masks [4096, 512] and [1024, 512] (the
        // window's 512 + 512 cells: 4 194 304 + 1 048 576) and the small inputs: token ids twice
        // (embeddings and per-layer embeddings), positions, output ids (4 x 2 048), K and V row
        // indices of both caches (4 x 4 096): 551 051 264.
        QTest::newRow("gemma3n 4K fa")
            << "gemma3n" << 4096 << 512 << 1 << true << false << 551051264ULL;
        QTest::newRow("gemma3n 4K no fa")
            << "gemma3n" << 4096 << 512 << 1 << false << false << 549980160ULL;
        QTest::newRow("gemma3n 8K ub 256 no fa")
            << "gemma3n" << 8192 << 256 << 1 << false << false << 274990080ULL;
        QTest::newRow("gemma3n 16K q8_0")
            << "gemma3n" << 16384 << 512 << 1 << true << true << 545785856ULL;
        QTest::newRow("gemma3n 8K ub 2048")
            << "gemma3n" << 8192 << 2048 << 1 << true << false << 2183143424ULL;
        QTest::newRow("gemma3n 8K 4 sequences")
            << "gemma3n" << 8192 << 512 << 4 << true << false << 548954112ULL;
    }

    void theReplayedBufferEqualsWhatLlamaCppAllocated() {
        QFETCH(QString, model);
        QFETCH(int, ctx);
        QFETCH(int, ub);
        QFETCH(int, np);
        QFETCH(bool, fa);
        QFETCH(bool, q8);
        QFETCH(qulonglong, measured);
        const ModelShape m = shapeNamed(model);
        QVERIFY(hasComputeSkeleton(m));
        ResolvedOptions o;
        o.program = Program::Library; // measured through node-llama-cpp's llama_context
        o.flash_attn = fa;
        o.n_batch = o.n_ubatch = static_cast<std::uint32_t>(ub);
        o.n_seq = static_cast<std::uint32_t>(np);
        if (q8) o.type_k = o.type_v = GgmlType::Q8_0;
        const ContextPrice p = priceContext(m, o, static_cast<std::uint64_t>(ctx));
        QCOMPARE(p.compute_graph, Bytes{measured});
        // The CPU-only plan takes the replayed buffer (computeFor with layers and output).
        QCOMPARE(p.computeFor(true, true), Bytes{measured});
    }

    void llamaServersOneOutputRowIsReplayedToo() {
        // llama-server v0.5.0 (CPU) on the Llama-3.1-8B replica, -c 4096 -np 1 -fa on: one output
        // row (server_output_limits), "CPU compute buffer size = 120.01 MiB" (sched_reserve). The
        // log rounds to 0.01 MiB, so the replay must land within 0.005 MiB of it.
        ResolvedOptions o;
        o.flash_attn = true;
        const ContextPrice p = priceContext(llama31(), o, 4096);
        QCOMPARE(p.geometry.n_outputs, 1u);
        const double mib = double(p.computeFor(true, true)) / double(MiB);
        QVERIFY2(std::abs(mib - 120.01) <= 0.005, qPrintable(QString::number(mib, 'f', 4)));
    }

    void theLlamaSkeletonHasAsManyBufferNodesAsLlamaCppsGraph() {
        // llama.cpp's reserved graph for llama-3.1-8b (4K, ub 512, flash attention), dumped by
        // tests/validation/peak.cpp (HEADROOM_GRAPH_DUMP): 998 nodes, 192 of them views of the
        // KV cache or writes into it (6 per layer); the other 806 live in the compute buffer.
        ComputeGraphParams params;
        params.n_ubatch = params.n_outputs = 512;
        params.n_kv = params.n_kv_swa = 4096;
        const auto nodes = skeletonNodes(llama31(), params);
        QCOMPARE(nodes.size(), size_t{806});
        QCOMPARE(QString::fromStdString(nodes.front()), QString("GET_ROWS [4096,512,1,1]"));
        QCOMPARE(QString::fromStdString(nodes.back()), QString("MUL_MAT [128256,512,1,1]"));
    }

    void fewerOutputRowsShrinkTheLogitsPeak() {
        // llama-server reserves logits for fewer rows than the micro-batch; with one output row
        // the logits are 4 x 128256 = 513 024 B and the peak moves into the layers (the f32 KQ
        // scores without flash attention: 4 x 4096 x 512 x 32 = 268 435 456, above them).
        ComputeGraphParams params;
        params.n_ubatch = 512;
        params.n_outputs = 1;
        params.n_kv = params.n_kv_swa = 4096;
        params.flash_attn = false;
        const auto one = replayedCompute(llama31(), params);
        QVERIFY(one.has_value());
        QVERIFY(*one > Bytes{268435456});
        params.n_outputs = 512;
        QVERIFY(*one < *replayedCompute(llama31(), params));
    }

    void anArchitectureWithoutASkeletonKeepsTheClosedFormWithItsMargin() {
        // Bloom has no skeleton: compute_graph stays 0 and computeFor is the estimate (inputs +
        // the larger of the layer and logits peaks), each closed-form term raised by
        // kComputeEstimateMarginPct (22 %), rounded up to the byte, over the same shape priced
        // as llama (whose closed-form terms carry no margin: it replays its graph).
        ModelShape m = llama31();
        m.architecture = "bloom";
        QVERIFY(!hasComputeSkeleton(m));
        const ContextPrice p = priceContext(m, ResolvedOptions{}, 4096);
        const ContextPrice plain = priceContext(llama31(), ResolvedOptions{}, 4096);
        QCOMPARE(p.compute_graph, Bytes{0});
        QCOMPARE(p.compute_margin_pct, 22u);
        QCOMPARE(plain.compute_margin_pct, 0u);
        QCOMPARE(p.compute_layer, plain.compute_layer + (plain.compute_layer * 22 + 99) / 100);
        QCOMPARE(p.compute_logits, plain.compute_logits + (plain.compute_logits * 22 + 99) / 100);
        QCOMPARE(p.computeFor(true, true),
                 p.compute_inputs + std::max(p.compute_layer, p.compute_logits));
    }

    // Jamba's skeleton tags its blocks, so the Vulkan pricing replays it through the scheduler
    // (compute_skeleton.cpp scheduledCompute). Everything on one backend, one unbounded chunk and
    // no reorder is the CPU backend's single allocation: the same 205 602 848 B the CPU suite
    // measured at 4K, ub 512, flash attention (theReplayedBufferEqualsWhatLlamaCppAllocated).
    void jambaIsReplayedThroughTheSchedulerToo() {
        const ModelShape m = jamba();
        ComputeGraphParams p;
        p.n_ubatch = p.n_outputs = 512;
        p.n_kv = p.n_kv_swa = 4096;
        graph::SchedPlacement one;
        one.buffers.assign(1, graph::BufferType{32, 0});
        one.layer_backend.assign(m.layers.size(), 0);
        one.expert_backend = one.layer_backend;
        one.dense_bytes.assign(m.layers.size() + 1, 0);
        one.expert_bytes.assign(m.layers.size() + 1, 0);
        one.n_expert = m.moe.n_expert;
        const auto r = scheduledCompute(m, p, one);
        QVERIFY(r.has_value());
        QCOMPARE(r->size(), size_t{1});
        QCOMPARE(r->front().bytes, *replayedCompute(m, p));
        QCOMPARE(r->front().bytes, Bytes{205602848});
    }

    // One lavapipe device holding every block and the output (-ngl 99), the CPU last: ggml-vulkan's
    // buffer type (16-byte alignment on lavapipe, 1 GiB chunks with the storage range raised) and
    // the pinned host buffer; weighted norms pinned to their block (full offload).
    static graph::SchedPlacement onLavapipe(const ModelShape& m, VulkanReorder reorder) {
        graph::SchedPlacement p;
        p.buffers = {graph::BufferType{16, Bytes{1} << 30}, graph::BufferType{32, 0}};
        p.layer_backend.assign(m.layers.size(), 0);
        p.expert_backend = p.layer_backend;
        p.dense_bytes.assign(m.layers.size() + 1, 0);
        p.expert_bytes.assign(m.layers.size() + 1, 0);
        p.pin_norms = true;
        p.vulkan_reorder = reorder;
        return p;
    }

    void theDeviceBufferIsWhatEachReleasesReorderLeavesToGgmlAlloc_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("ctx");
        QTest::addColumn<int>("ub");
        QTest::addColumn<int>("reorder");
        QTest::addColumn<qulonglong>("measured");
        // Vulkan0's compute buffer on lavapipe, flash attention, f16 cache, one sequence
        // (tests/validation/vulkan, buffer_shim.c, exact bytes). Falcon-H1 at -ub 2048: build_rs's
        // zero-row extra states, freed as zero-size blocks, keep ggml-alloc from merging the
        // space below the logits in the order v0.5.0's ggml_vk_graph_optimize leaves, not in
        // v0.4.0's or without the reorder (GGML_VK_DISABLE_GRAPH_OPTIMIZE=1). LFM2 at -ub 512:
        // the first residual add runs in place on the device's copy of the embeddings
        // (ggml_dup_tensor_layout keeps its layout).
        QTest::newRow("falcon-h1 v0.5.0")
            << "falcon-h1" << 8192 << 2048 << int(VulkanReorder::V0_5_0) << 344113168ull;
        QTest::newRow("falcon-h1 v0.4.0")
            << "falcon-h1" << 8192 << 2048 << int(VulkanReorder::V0_4_0) << 285343744ull;
        QTest::newRow("falcon-h1 unordered")
            << "falcon-h1" << 8192 << 2048 << int(VulkanReorder::Off) << 276955136ull;
        QTest::newRow("lfm2 v0.5.0")
            << "lfm2" << 4096 << 512 << int(VulkanReorder::V0_5_0) << 146829328ull;
    }

    void theDeviceBufferIsWhatEachReleasesReorderLeavesToGgmlAlloc() {
        QFETCH(QString, model);
        QFETCH(int, ctx);
        QFETCH(int, ub);
        QFETCH(int, reorder);
        QFETCH(qulonglong, measured);
        const ModelShape m = shapeNamed(model);
        ComputeGraphParams p;
        p.n_ubatch = p.n_outputs = static_cast<std::uint32_t>(ub);
        p.n_kv = p.n_kv_swa = static_cast<std::uint32_t>(ctx);
        const auto r = scheduledCompute(m, p, onLavapipe(m, static_cast<VulkanReorder>(reorder)));
        QVERIFY(r.has_value());
        QCOMPARE(r->size(), size_t{2});
        QCOMPARE(r->front().bytes, Bytes{measured});
    }

    void granitesScaledEmbeddingsAreInTheGraphBeforeTheFirstBlock() {
        // llm_graph_context::build_inp_embd applies Granite's f_embedding_scale and expands the
        // result at once, so in a Granite 4.0-H graph the SCALE is the second node, before the
        // first Mamba-2 block's state rows (llama.cpp v0.5.0's graph, dumped by
        // tests/validation/vulkan/alloc_replay.cpp: node_0 GET_ROWS, embd SCALE, then build_rs).
        ModelShape m = mamba2();
        m.architecture = "granitehybrid";
        ComputeGraphParams params;
        params.n_ubatch = params.n_outputs = 512;
        params.n_kv = params.n_kv_swa = 4096;
        const auto nodes = skeletonNodes(m, params);
        QVERIFY(nodes.size() > 2);
        QCOMPARE(QString::fromStdString(nodes[0]), QString("GET_ROWS [2560,512,1,1]"));
        QCOMPARE(QString::fromStdString(nodes[1]), QString("SCALE [2560,512,1,1]"));
    }

    void theNewSkeletonsNeedTheirShapesSizes() {
        // A Jamba without its SSM sizes (a catalog shape), a Qwen3-Next whose value heads are not
        // a multiple of its key heads, and a Gemma 3n without any full-attention layer have no
        // skeleton; they keep the closed form.
        ModelShape j = jamba();
        j.ssm = {};
        QVERIFY(!hasComputeSkeleton(j));
        ModelShape q = qwen3next();
        q.ssm.dt_rank = 24; // 24 value heads over 16 key heads
        QVERIFY(!hasComputeSkeleton(q));
        ModelShape g = gemma3n();
        for (LayerShape& l : g.layers)
            if (l.attention == AttentionKind::Full) l.attention = AttentionKind::SlidingWindow;
        QVERIFY(!hasComputeSkeleton(g));
        QVERIFY(hasComputeSkeleton(jamba()) && hasComputeSkeleton(qwen3next()) &&
                hasComputeSkeleton(gemma3n()));
    }

    void theNewSkeletonsHaveAsManyBufferNodesAsLlamaCppsGraphs_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<QString>("last");
        // llama.cpp's reserved graphs (4K, ub 512, flash attention) dumped by peak.cpp
        // (HEADROOM_GRAPH_DUMP), less the nodes that are views of the caches or writes into them:
        // jamba 2008 nodes, 1564 in the buffer; qwen3next 4999, 4423; gemma3n 2731, 2571. The last
        // node is the logits (gemma3n: the soft-capping's final ggml_scale).
        QTest::newRow("jamba") << "jamba" << 1564 << "MUL_MAT [65536,512,1,1]";
        QTest::newRow("qwen3next") << "qwen3next" << 4423 << "MUL_MAT [151936,512,1,1]";
        QTest::newRow("gemma3n") << "gemma3n" << 2571 << "SCALE [262400,512,1,1]";
    }

    void theNewSkeletonsHaveAsManyBufferNodesAsLlamaCppsGraphs() {
        QFETCH(QString, model);
        QFETCH(int, nodes);
        QFETCH(QString, last);
        ComputeGraphParams params;
        params.n_ubatch = params.n_outputs = 512;
        params.n_kv = 4096;
        params.n_kv_swa = 1024; // gemma3n's window: 512 + 512 cells
        const auto skeleton = skeletonNodes(shapeNamed(model), params);
        QCOMPARE(skeleton.size(), static_cast<size_t>(nodes));
        QCOMPARE(QString::fromStdString(skeleton.back()), last);
    }
};

QTEST_APPLESS_MAIN(TestComputeReplay)
#include "test_compute_replay.moc"
