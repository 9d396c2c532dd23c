// -sm tensor (llama.cpp v0.5.0's tensor parallelism) priced per device, against real loads: the
// sparse Llama replica of tests/validation/rpc (hidden 1024, FFN 2816, 16 heads of 64, 4 KV heads,
// vocab 32000, 6 blocks; Q8_0 matrices, F32 attn_k/attn_v and norms) loaded by llama-server
// v0.5.0 over two and three loopback ggml-rpc-server (CPU backend) with `-sm tensor -fa on`, each
// device's allocations read from its rpc-server's log (GGML_RPC_DEBUG=1;
// docs/llama-cpp/split-mode-tensor.md §6, where every figure below is listed).
#include "arch/shape_from_gguf.h"
#include "gguf/gguf_writer.h"
#include "planner.h"
#include "planner/planner_internal.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace headroom;

namespace {

// The replica, written as a GGUF header (tensor data is not read).
ModelShape replica(const QTemporaryDir& dir, bool tied) {
    GgufWriter w;
    w.set("general.architecture", GgufValue::string("llama"));
    w.set("general.name", GgufValue::string("Llama-smtensor-replica"));
    w.set("llama.context_length", GgufValue::u32(131072));
    w.set("llama.embedding_length", GgufValue::u32(1024));
    w.set("llama.block_count", GgufValue::u32(6));
    w.set("llama.feed_forward_length", GgufValue::u32(2816));
    w.set("llama.attention.head_count", GgufValue::u32(16));
    w.set("llama.attention.head_count_kv", GgufValue::u32(4));
    w.set("llama.rope.dimension_count", GgufValue::u32(64));
    w.set("llama.attention.layer_norm_rms_epsilon", GgufValue::f32(1e-5f));
    w.set("llama.vocab_size", GgufValue::u32(32000));
    w.addTensor("token_embd.weight", {1024, 32000}, GgmlType::Q8_0);
    w.addTensor("output_norm.weight", {1024}, GgmlType::F32);
    if (!tied) w.addTensor("output.weight", {1024, 32000}, GgmlType::Q8_0);
    w.addTensor("rope_freqs.weight", {32}, GgmlType::F32);
    for (int il = 0; il < 6; ++il) {
        const std::string b = "blk." + std::to_string(il) + ".";
        w.addTensor(b + "attn_norm.weight", {1024}, GgmlType::F32);
        w.addTensor(b + "attn_q.weight", {1024, 1024}, GgmlType::Q8_0);
        w.addTensor(b + "attn_k.weight", {1024, 256}, GgmlType::F32);
        w.addTensor(b + "attn_v.weight", {1024, 256}, GgmlType::F32);
        w.addTensor(b + "attn_output.weight", {1024, 1024}, GgmlType::Q8_0);
        w.addTensor(b + "ffn_norm.weight", {1024}, GgmlType::F32);
        w.addTensor(b + "ffn_gate.weight", {1024, 2816}, GgmlType::Q8_0);
        w.addTensor(b + "ffn_up.weight", {1024, 2816}, GgmlType::Q8_0);
        w.addTensor(b + "ffn_down.weight", {2816, 1024}, GgmlType::Q8_0);
    }
    const QString path = dir.filePath(tied ? "tied.gguf" : "replica.gguf");
    if (auto ok = w.write(path.toStdString(), true); !ok) qFatal("%s", ok.error().message.c_str());
    auto shape = shapeFromGgufFile(path.toStdString());
    if (!shape) qFatal("%s", shape.error().message.c_str());
    return *shape;
}

// n loopback rpc-servers of the CPU backend, and a main host with none.
HardwareSnapshot rpcServers(int n) {
    HardwareSnapshot hw = snapshotFromSizes({}, 64 * GiB, false);
    for (int k = 0; k < n; ++k) {
        RpcHost h;
        h.endpoint = "127.0.0.1:" + std::to_string(50052 + k);
        GpuDevice g;
        g.name = "CPU";
        g.backend = "cpu";
        g.total_bytes = 16 * GiB;
        g.memory_provenance = "user";
        h.devices.push_back(g);
        h.source = "user";
        hw.rpc_hosts.push_back(h);
    }
    return hw;
}

PlanOptions tensorSplit(std::uint32_t ctx, std::vector<double> ts, std::uint32_t ngl = 99) {
    PlanOptions o;
    o.context = ctx;
    o.n_parallel = 1;
    o.flash_attn = FlashAttn::On;
    o.pinned.gpu_layers = GpuLayers::of(ngl);
    o.pinned.split_mode = SplitMode::Tensor;
    o.pinned.tensor_split = std::move(ts);
    return o;
}

const Rung& chosen(const Plan& p) {
    return p.rungs.at(static_cast<size_t>(p.decision.rung_index));
}

using Figures = std::vector<qulonglong>;

} // namespace

Q_DECLARE_METATYPE(std::vector<double>)

class TestTensorParallel : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    // Weights and KV per device, to the byte. Derivations (SPEC §7): a Q8_0 row of 1024 is
    // 1088 B; Q and the output projection split in GQA groups of 256 (lcm(4 x 64, 128)), K and V
    // in whole KV heads (64), the FFN at 128 (lcm(32, 128)), output.weight by vocabulary rows;
    // norms and rope_freqs mirrored. Equal halves: per block 2 x 512 x 1088 (Q, O) + 2 x 128 x 4096
    // (K, V) + 3 x 1408 x 1088 (FFN) + 8192 (norms) = 6 766 592; x 6 + 16 000 x 1088 (output) +
    // 4096 + 128 = 58 011 776. KV: 128 x 4096 x 2 B x 12 tensors = 12 582 912.
    void everyDevicesWeightsAndKvMatchTheRealLoad_data() {
        QTest::addColumn<int>("servers");
        QTest::addColumn<std::vector<double>>("ts");
        QTest::addColumn<int>("ctx");
        QTest::addColumn<int>("ngl");
        QTest::addColumn<bool>("tied");
        QTest::addColumn<Figures>("weights");
        QTest::addColumn<Figures>("kv");
        QTest::newRow("two, equal") << 2 << std::vector<double>{} << 4096 << 99 << false
                                    << Figures{58011776, 58011776} << Figures{12582912, 12582912};
        // -ts 3,1: the FFN's 2112-row boundary rounds down to 2048 on even blocks, and the
        // rotated odd blocks give device 1 704 -> 640 rows (SPEC §7).
        QTest::newRow("two, -ts 3,1") << 2 << std::vector<double>{3, 1} << 4096 << 99 << false
                                      << Figures{86990976, 29032576} << Figures{18874368, 6291456};
        QTest::newRow("two, 8K") << 2 << std::vector<double>{} << 8192 << 99 << false
                                 << Figures{58011776, 58011776} << Figures{25165824, 25165824};
        // -ngl 4: blocks 3-5 and the output on the Meta device.
        QTest::newRow("two, -ngl 4") << 2 << std::vector<double>{} << 4096 << 4 << false
                                     << Figures{37712000, 37712000} << Figures{6291456, 6291456};
        // -ngl 4 -ts 1,2: the rotation counts the CPU's blocks too (get_il_eff), so blocks 3, 4,
        // 5 rotate by 1, 0, 1. Four KV heads by 1:2 give (1, 3) unrotated and (2, 2) rotated:
        // device 0 holds 2 + 1 + 2 = 5 heads' K and V, device 1 7; a head of one block is
        // 64 x 4096 x 2 B x 2 (K, V) = 1 MiB, so 5 242 880 and 7 340 032 (read from the two
        // rpc-servers' alloc_buffer lines, tests/validation/rpc). Weights likewise 26 649 344
        // and 48 774 656.
        QTest::newRow("two, -ngl 4 -ts 1,2")
            << 2 << std::vector<double>{1, 2} << 4096 << 4 << false << Figures{26649344, 48774656}
            << Figures{5242880, 7340032};
        // Tied: token_embd.weight loaded again as the head is mirrored whole (34 816 000 B).
        QTest::newRow("two, tied") << 2 << std::vector<double>{} << 4096 << 99 << true
                                   << Figures{75419776, 75419776} << Figures{12582912, 12582912};
        QTest::newRow("three, -ts 5,2,1")
            << 3 << std::vector<double>{5, 2, 1} << 4096 << 99 << false
            << Figures{73373824, 29450368, 13252736} << Figures{16777216, 6291456, 2097152};
    }
    void everyDevicesWeightsAndKvMatchTheRealLoad() {
        QFETCH(int, servers);
        QFETCH(std::vector<double>, ts);
        QFETCH(int, ctx);
        QFETCH(int, ngl);
        QFETCH(bool, tied);
        QFETCH(Figures, weights);
        QFETCH(Figures, kv);
        const ModelShape model = replica(m_dir, tied);
        auto plan = makePlan(model, rpcServers(servers),
                             tensorSplit(std::uint32_t(ctx), ts, std::uint32_t(ngl)));
        QVERIFY2(plan.has_value(), plan ? "" : plan.error().message.c_str());
        const Rung& r = chosen(*plan);
        QCOMPARE(r.devices.size(), size_t(servers));
        for (int j = 0; j < servers; ++j) {
            QCOMPARE(qulonglong(r.devices[size_t(j)].terms.weights), weights[size_t(j)]);
            QCOMPARE(qulonglong(r.devices[size_t(j)].terms.kv()), kv[size_t(j)]);
        }
    }

    // Compute: ggml-alloc plans the unsplit graph and allocates it on every device, so each
    // device's compute is what one device holding the same layers is priced at (-sm none), and
    // never below the logged Meta() buffer: 27 797 536 B at 4K, 31 991 840 at 8K (the f16 mask
    // 4096 x 512 x 2 B larger), 25 700 384 at -ngl 4. At full offload the plan is the CPU replay
    // less the two inputs the CPU keeps (inp_embd 1024 x 512 x 4 B, token ids 512 x 4 B): exact.
    void everyDeviceHoldsTheWholeComputeBuffer_data() {
        QTest::addColumn<int>("ctx");
        QTest::addColumn<int>("ngl");
        QTest::addColumn<qulonglong>("logged");
        QTest::addColumn<bool>("exact");
        QTest::newRow("4K") << 4096 << 99 << qulonglong(27797536) << true;
        QTest::newRow("8K") << 8192 << 99 << qulonglong(31991840) << true;
        QTest::newRow("-ngl 4") << 4096 << 4 << qulonglong(25700384) << false;
    }
    void everyDeviceHoldsTheWholeComputeBuffer() {
        QFETCH(int, ctx);
        QFETCH(int, ngl);
        QFETCH(qulonglong, logged);
        QFETCH(bool, exact);
        const ModelShape model = replica(m_dir, false);
        auto split = makePlan(model, rpcServers(2), tensorSplit(std::uint32_t(ctx), {}, ngl));
        PlanOptions one = tensorSplit(std::uint32_t(ctx), {}, std::uint32_t(ngl));
        one.pinned.split_mode = SplitMode::None;
        auto single = makePlan(model, rpcServers(2), one);
        QVERIFY(split && single);
        const Bytes whole = chosen(*single).devices[0].terms.compute;
        for (const DeviceUse& d : chosen(*split).devices) {
            QCOMPARE(d.terms.compute, whole);
            QVERIFY2(d.terms.compute >= logged, qPrintable(QString::number(d.terms.compute)));
            if (exact) QCOMPARE(qulonglong(d.terms.compute), logged);
        }
        // The all-reduce scratch (one step for two devices: 1024 x 512 x 4 B) is a runtime cost.
        QCOMPARE(chosen(*split).devices[1].terms.overhead, Bytes{1024 * 512 * 4});
    }

    // What llama.cpp refuses with -sm tensor, and what Headroom does not price, is an error
    // naming it; the launch writes -sm tensor and only a -ts the user gave.
    void refusalsNameTheProblemAndTheLaunchCarriesTheMode() {
        const ModelShape model = replica(m_dir, false);
        const HardwareSnapshot hw = rpcServers(2);
        PlanOptions fa_off = tensorSplit(4096, {});
        fa_off.flash_attn = FlashAttn::Off;
        auto a = makePlan(model, hw, fa_off);
        QVERIFY(!a.has_value());
        QVERIFY(a.error().message.find("flash attention") != std::string::npos);
        PlanOptions old = tensorSplit(4096, {});
        old.llama_version = LlamaVersion::V0_4_0;
        auto b = makePlan(model, hw, old);
        QVERIFY(!b.has_value());
        QVERIFY(b.error().message.find("v0.4.0") != std::string::npos);
        ModelShape olmoe = model;
        olmoe.architecture = "olmoe";
        auto c = makePlan(olmoe, hw, tensorSplit(4096, {}));
        QVERIFY(!c.has_value());
        QVERIFY(c.error().message.find("olmoe") != std::string::npos);

        auto plan = makePlan(model, hw, tensorSplit(4096, {}));
        QVERIFY(plan && plan->launch);
        const auto args = llamaServerArgs(*plan->launch);
        const auto sm = std::find(args.begin(), args.end(), "-sm");
        QVERIFY(sm != args.end() && sm + 1 != args.end());
        QCOMPARE(*(sm + 1), std::string("tensor"));
        QVERIFY(std::find(args.begin(), args.end(), "-ts") == args.end());
    }

    // The chunking itself (llama_meta_device_get_split_state): a 3:1 split of 2816 FFN rows at
    // 128 gives 2048 | 768 (2112 rounds down), and rotated by one block 640 to device 1 first.
    void sharesRoundEachBoundaryDownToTheGranularity() {
        QCOMPARE(detail::tensorShares(2816, 128, {3, 1}, 2, 0),
                 (std::vector<std::int64_t>{2048, 768}));
        QCOMPARE(detail::tensorShares(2816, 128, {3, 1}, 2, 1),
                 (std::vector<std::int64_t>{2176, 640}));
        QCOMPARE(detail::tensorShares(2816, 128, {}, 2, 0),
                 (std::vector<std::int64_t>{1408, 1408}));
        // Three equal devices over 1024 at 256: 341 -> 256, 682 -> 512, the rest 512.
        QCOMPARE(detail::tensorShares(1024, 256, {}, 3, 0),
                 (std::vector<std::int64_t>{256, 256, 512}));
    }
};

QTEST_APPLESS_MAIN(TestTensorParallel)
#include "test_tensor_parallel.moc"
