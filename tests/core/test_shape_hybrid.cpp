// Recurrent and hybrid families: which layers keep a recurrent state, its width
// (llama_hparams::n_embd_r() / n_embd_s(), src/llama-hparams.cpp) and which keep KV, following
// llama_model::create_memory's layer filters (src/llama-model.cpp).
#include "core/shape_test_util.h"
#include "planner/planner_internal.h"

using namespace headroom;
using namespace headroom::test;

Q_DECLARE_METATYPE(headroom::LlamaVersion)
Q_DECLARE_METATYPE(headroom::Posture)

namespace {

// Qwen/Qwen3-Next-80B-A3B-Instruct config.json: 48 layers, hidden 2048, 16 heads, 2 KV heads,
// head_dim 256, full_attention_interval 4, linear_conv_kernel_dim 4, 16 linear key heads and
// 32 value heads of 128, 512 experts (top-10) of 512, one shared expert, 262144 context.
// The converter writes ssm.conv_kernel 4, ssm.state_size 128, ssm.group_count 16,
// ssm.time_step_rank 32, ssm.inner_size 32 x 128 = 4096.
Header qwen3Next(std::uint32_t blocks, std::uint32_t nextn, const std::string& arch = "qwen3next") {
    Header h(arch);
    h.transformer(262144, 2048, blocks, 16, 2, 256)
        .u32("ssm.conv_kernel", 4)
        .u32("ssm.state_size", 128)
        .u32("ssm.group_count", 16)
        .u32("ssm.time_step_rank", 32)
        .u32("ssm.inner_size", 4096)
        .u32("full_attention_interval", 4)
        .u32("expert_count", 512)
        .u32("expert_used_count", 10)
        .u32("expert_feed_forward_length", 512)
        .u32("expert_shared_feed_forward_length", 512);
    if (nextn) h.u32("nextn_predict_layers", nextn);
    return h;
}

} // namespace

class TestShapeHybrid : public QObject {
    Q_OBJECT
private slots:
    void qwen3Next80bHasTwelveFullAndThirtySixRecurrentLayers() {
        auto s = qwen3Next(48, 0).shape();
        // (il + 1) % 4 == 0 is full attention: layers 3, 7, ..., 47 -> 12; the other 36 are
        // gated-delta-net layers.
        QCOMPARE(countKind(s, AttentionKind::Full), 12);
        QCOMPARE(countKind(s, AttentionKind::Recurrent), 36);
        QCOMPARE(s.layers[3].attention, AttentionKind::Full);
        QCOMPARE(s.layers[0].attention, AttentionKind::Recurrent);
        // Full layers: 2 KV heads x 256 = 512 for K and V; no state.
        QCOMPARE(s.layers[3].n_embd_k_gqa, 512u);
        QCOMPARE(s.layers[3].n_embd_v_gqa, 512u);
        QCOMPARE(s.layers[3].recurrent_r, 0ull);
        // Recurrent layers: n_embd_r = (conv 4 - 1) x (inner 4096 + 2 x groups 16 x state 128)
        //   = 3 x (4096 + 4096) = 24576;  n_embd_s = state 128 x inner 4096 = 524288
        // (= 32 value heads x 128 x 128, the delta-net matrix). No KV.
        QCOMPARE(s.layers[0].recurrent_r, 24576ull);
        QCOMPARE(s.layers[0].recurrent_s, 524288ull);
        QCOMPARE(s.layers[0].n_embd_k_gqa, 0u);
        QVERIFY(s.hasRecurrent());
        QCOMPARE(s.moe.n_expert, 512u);
        QCOMPARE(s.moe.n_expert_used, 10u);
        QCOMPARE(s.n_ctx_train, 262144ull);
    }

    // With one nextn block (block_count 49) the MTP block is dense attention; the main cache
    // leaves it out (filter il < n_layer()) and the MTP draft context caches it.
    void qwen3NextMtpBlockIsCachedOnlyByTheDraftContext() {
        auto s = qwen3Next(49, 1).shape();
        QCOMPARE(s.nLayer(), 49u);
        QCOMPARE(s.n_mtp_layers, 1u);
        const auto& mtp = s.layers[48];
        QVERIFY(mtp.is_mtp);
        QVERIFY(!mtp.in_main_cache);
        QCOMPARE(mtp.attention, AttentionKind::Full);
        QCOMPARE(mtp.n_embd_k_gqa, 512u);
        QCOMPARE(mtp.recurrent_s, 0ull);
        // The trunk is unchanged: 12 full + 36 recurrent, all in the main cache.
        int trunk_full = 0;
        for (std::uint32_t il = 0; il < 48; ++il) {
            QVERIFY(s.layers[il].in_main_cache);
            QVERIFY(!s.layers[il].is_mtp);
            trunk_full += s.layers[il].attention == AttentionKind::Full;
        }
        QCOMPARE(trunk_full, 12);
    }

    // MTP drafting keeps n_rs_seq recurrent-state snapshots per sequence for rollback on the
    // architectures of llama.cpp's src/llama-arch.cpp llm_arch_supports_rs_rollback
    // (common/common.h need_n_rs_seq = draft.n_max for --spec-type draft-mtp; Headroom writes
    // --spec-draft-n-max 3), and the llama_memory_recurrent ctor allocates
    // mem_size x (1 + n_rs_seq) rows (src/llama-memory-recurrent.cpp).
    // 8 trunk blocks + 1 nextn: layer 0 is a gated-delta-net layer whose state per row is
    // (24 576 + 524 288) f32 x 4 B = 2 195 456 B (see the 80B test above); one sequence.
    void mtpRollbackSnapshotsMultiplyTheRecurrentState_data() {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<LlamaVersion>("version");
        QTest::addColumn<Posture>("posture");
        QTest::addColumn<uint>("n_rs_seq");
        QTest::addColumn<qulonglong>("state");
        const qulonglong row = 2195456;
        // qwen35 is in both builds' rollback list: MTP (lean or stacked) -> 1 + 3 rows.
        QTest::newRow("qwen35 v0.5.0 lean")
            << "qwen35" << LlamaVersion::V0_5_0 << Posture::Lean << 3u << 4 * row;
        QTest::newRow("qwen35 v0.4.0 stacked")
            << "qwen35" << LlamaVersion::V0_4_0 << Posture::Stacked << 3u << 4 * row;
        QTest::newRow("qwen35moe v0.5.0 lean")
            << "qwen35moe" << LlamaVersion::V0_5_0 << Posture::Lean << 3u << 4 * row;
        // Without MTP llama.cpp asks for no snapshots: one row.
        QTest::newRow("qwen35 v0.5.0 plain")
            << "qwen35" << LlamaVersion::V0_5_0 << Posture::Plain << 0u << row;
        // Qwen3-Next is not rollback-capable: the llama_context ctor clamps n_rs_seq to 0.
        QTest::newRow("qwen3next v0.5.0 lean")
            << "qwen3next" << LlamaVersion::V0_5_0 << Posture::Lean << 0u << row;
    }
    void mtpRollbackSnapshotsMultiplyTheRecurrentState() {
        QFETCH(QString, arch);
        QFETCH(LlamaVersion, version);
        QFETCH(Posture, posture);
        QFETCH(uint, n_rs_seq);
        QFETCH(qulonglong, state);
        const ModelShape s = qwen3Next(9, 1, arch.toStdString()).shape();
        QVERIFY(s.mtpCapable());
        PlanOptions po;
        po.llama_version = version;
        const ResolvedOptions o = detail::resolve(s, po, HardwareSnapshot{}, posture);
        QCOMPARE(o.n_rs_seq, n_rs_seq);
        QCOMPARE(priceContext(s, o, 4096).layers[0].state, Bytes{state});
    }

    // An explicit attention.recurrent_layers array wins over the interval.
    void qwen3NextRecurrentLayersArrayOverridesInterval() {
        std::vector<bool> recurrent(8, true);
        recurrent[0] = false; // only layer 0 is attention
        auto s = qwen3Next(8, 0).bools("attention.recurrent_layers", recurrent).shape();
        QCOMPARE(countKind(s, AttentionKind::Full), 1);
        QCOMPARE(countKind(s, AttentionKind::Recurrent), 7);
        QCOMPARE(s.layers[0].attention, AttentionKind::Full);
    }

    void recurrentLayersArrayOfWrongLengthIsRefused() {
        auto r = shapeFromInput(
            qwen3Next(8, 0).bools("attention.recurrent_layers", {true, false}).input());
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::ParseError);
        QVERIFY(r.error().message.find("expected one per layer (8)") != std::string::npos);
    }

    // state-spaces/mamba2-2.7b: 64 layers, d_model 2560, expand 2 (d_inner 5120), d_state 128,
    // ngroups 1, d_conv 4. Pure recurrent: every layer is state, none is KV.
    void mamba2_2_7bIsRecurrentEverywhere() {
        auto s = Header("mamba2")
                     .u32("context_length", 1048576)
                     .u32("embedding_length", 2560)
                     .u32("block_count", 64)
                     .u32("ssm.conv_kernel", 4)
                     .u32("ssm.inner_size", 5120)
                     .u32("ssm.state_size", 128)
                     .u32("ssm.time_step_rank", 80)
                     .u32("ssm.group_count", 1)
                     .shape();
        QCOMPARE(countKind(s, AttentionKind::Recurrent), 64);
        // r = 3 x (5120 + 2 x 1 x 128) = 3 x 5376 = 16128; s = 128 x 5120 = 655360.
        QCOMPARE(s.layers[63].recurrent_r, 16128ull);
        QCOMPARE(s.layers[63].recurrent_s, 655360ull);
        QCOMPARE(s.layers[63].n_embd_k_gqa, 0u);
    }

    // ai21labs/Jamba-v0.1: 32 layers, hidden 4096, 32 heads, 8 KV heads, attn_layer_period 8,
    // attn_layer_offset 4 (attention at 4, 12, 20, 28), mamba d_state 16, d_conv 4, expand 2
    // (d_inner 8192). The converter writes head_count_kv per layer, 0 on Mamba layers.
    void jambaAttendsEveryEighthLayerFromFour() {
        std::vector<std::uint32_t> kv(32, 0);
        for (std::uint32_t il = 4; il < 32; il += 8)
            kv[il] = 8;
        auto s = Header("jamba")
                     .transformer(262144, 4096, 32, 32, 8, 128)
                     .arr("attention.head_count_kv", kv)
                     .u32("ssm.conv_kernel", 4)
                     .u32("ssm.inner_size", 8192)
                     .u32("ssm.state_size", 16)
                     .u32("ssm.time_step_rank", 256)
                     .shape();
        QCOMPARE(countKind(s, AttentionKind::Full), 4);
        QCOMPARE(countKind(s, AttentionKind::Recurrent), 28);
        QCOMPARE(s.layers[12].attention, AttentionKind::Full);
        QCOMPARE(s.layers[12].n_embd_k_gqa, 1024u); // 8 x 128
        // Jamba reads no group count: r = 3 x 8192 = 24576, s = 16 x 8192 = 131072.
        QCOMPARE(s.layers[0].recurrent_r, 24576ull);
        QCOMPARE(s.layers[0].recurrent_s, 131072ull);
    }

    // The scan's weight per block (LLM_TENSOR_SSM_A, "blk.N.ssm_a"): Mamba-1's [d_state, d_inner]
    // (Jamba: 16 x 8192 f32 = 524 288 B) is told from Mamba-2's [1, n_head] by its first
    // dimension; the delta-net families' 1-D ssm_a (SSM_A_NOSCAN, a GGML_OP_MUL) is no scan's.
    void theScanWeightAndItsLayoutAreRecorded_data() {
        QTest::addColumn<QList<qint64>>("dims");
        QTest::addColumn<Bytes>("bytes");
        QTest::addColumn<bool>("mamba1");
        QTest::newRow("Mamba-1") << QList<qint64>{16, 8192} << Bytes{524288} << true;
        QTest::newRow("Mamba-2") << QList<qint64>{1, 128} << Bytes{512} << false;
        QTest::newRow("delta-net, 1-D") << QList<qint64>{32} << Bytes{0} << false;
    }
    void theScanWeightAndItsLayoutAreRecorded() {
        QFETCH(QList<qint64>, dims);
        QFETCH(Bytes, bytes);
        QFETCH(bool, mamba1);
        std::vector<std::uint64_t> ne(dims.begin(), dims.end());
        auto s = Header("mamba2")
                     .transformer(4096, 1024, 2, 0, 0, 64)
                     .u32("ssm.conv_kernel", 4)
                     .u32("ssm.inner_size", 8192)
                     .u32("ssm.state_size", 128)
                     .u32("ssm.group_count", 1)
                     .u32("ssm.time_step_rank", 128)
                     .tensor("blk.1.ssm_a", ne, GgmlType::F32)
                     .shape();
        QCOMPARE(s.layers[1].ssm_a_bytes, bytes);
        QCOMPARE(s.layers[0].ssm_a_bytes, Bytes{0});
        QCOMPARE(s.ssm.mamba1_scan, mamba1);
    }

    // ibm-granite/granite-4.0-h-small dims: 40 layers, hidden 4096, 32 heads, 8 KV heads,
    // Mamba-2 with 128 heads of 64 (d_inner 8192), d_state 128, 1 group, conv 4; a 9:1 mix, so
    // 4 attention layers (their positions here are illustrative: 5, 15, 25, 35).
    void graniteHybridRecurrentWhereKvHeadsAreZero() {
        std::vector<std::uint32_t> kv(40, 0);
        for (std::uint32_t il : {5u, 15u, 25u, 35u})
            kv[il] = 8;
        auto s = Header("granitehybrid")
                     .transformer(131072, 4096, 40, 32, 8, 128)
                     .arr("attention.head_count_kv", kv)
                     .u32("ssm.conv_kernel", 4)
                     .u32("ssm.inner_size", 8192)
                     .u32("ssm.state_size", 128)
                     .u32("ssm.time_step_rank", 128)
                     .u32("ssm.group_count", 1)
                     .shape();
        QCOMPARE(countKind(s, AttentionKind::Full), 4);
        QCOMPARE(countKind(s, AttentionKind::Recurrent), 36);
        // r = 3 x (8192 + 2 x 1 x 128) = 25344; s = 128 x 8192 = 1048576.
        QCOMPARE(s.layers[0].recurrent_r, 25344ull);
        QCOMPARE(s.layers[0].recurrent_s, 1048576ull);
        QCOMPARE(s.layers[5].n_embd_k_gqa, 1024u);
        QCOMPARE(s.layers[5].recurrent_s, 0ull);
    }

    // tiiuae/Falcon-H1-7B-Instruct dims: 44 layers, hidden 3072, 12 heads, 2 KV heads of 128,
    // Mamba-2 d_ssm 3072, d_state 256, 1 group, conv 4. Attention and SSM run side by side in
    // every block, so every layer has both a KV row and a state.
    void falconH1LayersCarryKvAndStateTogether() {
        auto s = Header("falcon-h1")
                     .transformer(262144, 3072, 44, 12, 2, 128)
                     .u32("ssm.conv_kernel", 4)
                     .u32("ssm.inner_size", 3072)
                     .u32("ssm.state_size", 256)
                     .u32("ssm.time_step_rank", 24)
                     .u32("ssm.group_count", 1)
                     .shape();
        QCOMPARE(countKind(s, AttentionKind::Full), 44);
        for (const auto& l : s.layers) {
            QVERIFY(layerHasKv(l));
            QVERIFY(layerHasRecurrentState(l));
            // K/V: 2 x 128 = 256; r = 3 x (3072 + 2 x 256) = 10752; s = 256 x 3072 = 786432.
            QCOMPARE(l.n_embd_k_gqa, 256u);
            QCOMPARE(l.recurrent_r, 10752ull);
            QCOMPARE(l.recurrent_s, 786432ull);
        }
        // No layer's kind is Recurrent, yet the model keeps state: hasRecurrent() says so.
        QCOMPARE(countKind(s, AttentionKind::Recurrent), 0);
        QVERIFY(s.hasRecurrent());
    }

    // LiquidAI/LFM2-1.2B: 16 layers, hidden 2048, 32 heads, 8 KV heads (head 64), conv L_cache 3,
    // attention at layers 2, 5, 8, 10, 12, 14 (full_attn_idxs); short-conv elsewhere.
    void lfm2ShortConvLayersKeepTwoColumnsOfState() {
        std::vector<std::uint32_t> kv(16, 0);
        for (std::uint32_t il : {2u, 5u, 8u, 10u, 12u, 14u})
            kv[il] = 8;
        auto s = Header("lfm2")
                     .u32("context_length", 128000)
                     .u32("embedding_length", 2048)
                     .u32("block_count", 16)
                     .u32("attention.head_count", 32)
                     .arr("attention.head_count_kv", kv)
                     .u32("shortconv.l_cache", 3)
                     .shape();
        QCOMPARE(countKind(s, AttentionKind::Full), 6);
        QCOMPARE(countKind(s, AttentionKind::Recurrent), 10);
        // Head size 2048 / 32 = 64; K = 8 x 64 = 512. Conv state n_embd x (3 - 1) = 4096, no s.
        QCOMPARE(s.layers[2].n_embd_k_gqa, 512u);
        QCOMPARE(s.layers[0].recurrent_r, 4096ull);
        QCOMPARE(s.layers[0].recurrent_s, 0ull);
    }

    // lfm2 with a sliding_window turns every attention layer into SWA.
    void lfm2WithWindowMakesAttentionLayersSliding() {
        auto s = Header("lfm2")
                     .u32("context_length", 128000)
                     .u32("embedding_length", 1024)
                     .u32("block_count", 4)
                     .u32("attention.head_count", 16)
                     .arr("attention.head_count_kv", {0, 8, 0, 8})
                     .u32("shortconv.l_cache", 3)
                     .u32("attention.sliding_window", 4096)
                     .shape();
        QCOMPARE(countKind(s, AttentionKind::SlidingWindow), 2);
        QCOMPARE(countKind(s, AttentionKind::Recurrent), 2);
        QCOMPARE(s.n_swa, 4096u);
    }

    // nvidia/NVIDIA-Nemotron-Nano-9B-v2 dims: hidden 4480, 40 heads, 8 KV heads of 128, Mamba-2
    // with 128 heads of 80 (d_inner 10240), d_state 128, 8 groups, conv 4. Blocks are Mamba
    // (kv 0, ff 0), attention (kv 8, ff 0) or MLP (kv 0, ff > 0); the pattern here is a short
    // illustrative slice M - M * - (6 blocks) of the 56-block hybrid_override_pattern.
    void nemotronHMlpBlocksHaveNoCache() {
        auto s = Header("nemotron_h")
                     .u32("context_length", 131072)
                     .u32("embedding_length", 4480)
                     .u32("block_count", 6)
                     .u32("attention.head_count", 40)
                     .arr("attention.head_count_kv", {0, 0, 0, 8, 0, 0})
                     .arr("feed_forward_length", {0, 15680, 0, 0, 15680, 0})
                     .u32("attention.key_length", 128)
                     .u32("attention.value_length", 128)
                     .u32("ssm.conv_kernel", 4)
                     .u32("ssm.inner_size", 10240)
                     .u32("ssm.state_size", 128)
                     .u32("ssm.time_step_rank", 128)
                     .u32("ssm.group_count", 8)
                     .shape();
        // 0 M, 1 -, 2 M, 3 *, 4 -, 5 M.
        QCOMPARE(s.layers[0].attention, AttentionKind::Recurrent);
        QCOMPARE(s.layers[1].attention, AttentionKind::None);
        QCOMPARE(s.layers[3].attention, AttentionKind::Full);
        QCOMPARE(s.layers[4].attention, AttentionKind::None);
        QCOMPARE(s.layers[3].n_embd_k_gqa, 1024u); // 8 x 128
        // r = 3 x (10240 + 2 x 8 x 128) = 3 x 12288 = 36864; s = 128 x 10240 = 1310720.
        QCOMPARE(s.layers[0].recurrent_r, 36864ull);
        QCOMPARE(s.layers[0].recurrent_s, 1310720ull);
        QCOMPARE(s.layers[1].recurrent_r, 0ull);
        QCOMPARE(s.n_ff, 15680u);
    }

    // Recurrent architectures need their SSM keys; llama.cpp reads them as required.
    void missingSsmKeyIsRefusedWithItsName() {
        auto r = shapeFromInput(Header("mamba2")
                                    .u32("context_length", 2048)
                                    .u32("embedding_length", 768)
                                    .u32("block_count", 24)
                                    .u32("ssm.conv_kernel", 4)
                                    .input());
        QVERIFY(!r);
        QVERIFY(r.error().message.find("mamba2.ssm.inner_size") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestShapeHybrid)
#include "test_shape_hybrid.moc"
