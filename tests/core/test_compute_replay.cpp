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

ModelShape shapeNamed(const QString& name) {
    if (name == "mamba2") return mamba2();
    if (name == "deepseek2") return deepseekV2Lite();
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

    void anArchitectureWithoutASkeletonKeepsTheClosedForm() {
        // Jamba has no skeleton yet: compute_graph stays 0 and computeFor is the estimate
        // (inputs + the larger of the layer and logits peaks).
        ModelShape m = llama31();
        m.architecture = "jamba";
        QVERIFY(!hasComputeSkeleton(m));
        const ContextPrice p = priceContext(m, ResolvedOptions{}, 4096);
        QCOMPARE(p.compute_graph, Bytes{0});
        QCOMPARE(p.computeFor(true, true),
                 p.compute_inputs + std::max(p.compute_layer, p.compute_logits));
    }
};

QTEST_APPLESS_MAIN(TestComputeReplay)
#include "test_compute_replay.moc"
