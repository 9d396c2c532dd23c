// Spill placement: -ot overrides and recurrent FFN blocks (docs/sources.md, Hermes spill
// placement: "Spill overrides …", "Hybrid overrides match only recurrent block indices …", and the
// split-GGUF "spilling 2 blocks' worth moves exactly blocks 0 and 1").
#include "policy/placement.h"

#include <QtTest>

#include <regex>

using namespace headroom;
using namespace headroom::policy;
using Blocks = std::vector<std::uint32_t>;

namespace {
// n blocks; block i is full attention when full(i), else recurrent; every FFN costs ffn bytes.
template <typename Pred>
ModelShape hybrid(std::uint32_t n, Pred full, Bytes ffn = 2048) {
    ModelShape m;
    for (std::uint32_t i = 0; i < n; ++i) {
        LayerShape l;
        l.attention = full(i) ? AttentionKind::Full : AttentionKind::Recurrent;
        l.ffn_bytes = ffn;
        m.layers.push_back(l);
    }
    return m;
}

// Does the -ot value (PATTERN=BUFT) send this tensor to the host? llama.cpp uses regex_search
// (src/llama-model-loader.cpp).
bool pins(const std::string& ot, const std::string& tensor) {
    const std::string pattern = ot.substr(0, ot.rfind('='));
    return std::regex_search(tensor, std::regex(pattern));
}

std::string ffnUp(std::uint32_t block) {
    return "blk." + std::to_string(block) + ".ffn_up.weight";
}

// Qwen3-Next style: every fourth block (3, 7, 11, …) is full attention.
bool everyFourth(std::uint32_t i) {
    return i % 4 == 3;
}
} // namespace

class TestPolicyPlacement : public QObject {
    Q_OBJECT
private slots:
    void twoBlocksWorthOfSpillMovesExactlyBlocksZeroAndOne() {
        // 12 blocks, recurrent 0,1,2,4,5,6,8,9,10; FFN 2048 B each. Spill 4096: block 0
        // covers 2048 < 4096, block 1 brings 4096, which stops the walk.
        QCOMPARE(recurrentSpillBlocks(hybrid(12, everyFourth), Bytes(4096)), (Blocks{0, 1}));
    }

    void oneByteMoreThanTwoBlocksTakesAThird() {
        // 4097 > 4096 after blocks 0 and 1, so block 2 (2048 more) is added.
        QCOMPARE(recurrentSpillBlocks(hybrid(12, everyFourth), Bytes(4097)), (Blocks{0, 1, 2}));
    }

    void anUnknownSpillAmountMovesEveryRecurrentBlock() {
        QCOMPARE(recurrentSpillBlocks(hybrid(12, everyFourth), std::nullopt),
                 (Blocks{0, 1, 2, 4, 5, 6, 8, 9, 10}));
    }

    void anUnknownFfnSizeOnAnyRecurrentBlockMovesThemAll() {
        // Block 5's FFN size is unknown (0): the walk cannot be trusted, so all 9 move.
        ModelShape m = hybrid(12, everyFourth);
        m.layers[5].ffn_bytes = 0;
        QCOMPARE(recurrentSpillBlocks(m, Bytes(4096)), (Blocks{0, 1, 2, 4, 5, 6, 8, 9, 10}));
    }

    void whenAllRecurrentFfnsFallShortAllOfThemMove() {
        // 9 × 2048 = 18 432 < 100 000: every recurrent block, llama.cpp's fit spills the rest.
        QCOMPARE(recurrentSpillBlocks(hybrid(12, everyFourth), Bytes(100000)),
                 (Blocks{0, 1, 2, 4, 5, 6, 8, 9, 10}));
    }

    void expertBytesCountAsFfnBytesOfABlock() {
        // Block FFN = 1000 dense + 3096 experts = 4096: one block covers 4096.
        ModelShape m = hybrid(4, everyFourth, 1000);
        for (auto& l : m.layers)
            l.experts_bytes = 3096;
        QCOMPARE(recurrentSpillBlocks(m, Bytes(4096)), (Blocks{0}));
    }

    void interleavedLayoutsNeverIncludeFullAttentionBlocks() {
        // Alternating recurrent / full (odd blocks full), and a layout starting with full blocks.
        const ModelShape alt = hybrid(10, [](std::uint32_t i) { return i % 2 == 1; });
        QCOMPARE(recurrentSpillBlocks(alt, Bytes(6000)), (Blocks{0, 2, 4}));
        const ModelShape front = hybrid(8, [](std::uint32_t i) { return i < 3; });
        QCOMPARE(recurrentSpillBlocks(front, std::nullopt), (Blocks{3, 4, 5, 6, 7}));
        // The -ot rule pins recurrent FFNs and no full-attention FFN, incl. two-digit blocks.
        const ModelShape wide = hybrid(24, everyFourth);
        const SpillOverride o = spillOverride(wide, true, false, std::nullopt);
        for (std::uint32_t i = 0; i < 24; ++i)
            QVERIFY2(pins(o.override_tensor, ffnUp(i)) == !everyFourth(i), ffnUp(i).c_str());
    }

    void the64LayerHybridListsAll48RecurrentBlocks() {
        // 64 blocks, every fourth full → 64 − 16 = 48 recurrent: 0,1,2,4,…,62.
        const ModelShape m = hybrid(64, everyFourth);
        const SpillOverride o = spillOverride(m, true, false, std::nullopt);
        QCOMPARE(o.ffn_blocks_to_host.size(), std::size_t(48));
        std::string expected = R"(blk\.()";
        for (std::uint32_t i = 0, n = 0; i < 64; ++i) {
            if (everyFourth(i)) continue;
            expected += (n++ ? "|" : "") + std::to_string(i);
        }
        expected += R"()\.ffn_.*\.weight=CPU)";
        QCOMPARE(o.override_tensor, expected);
        QVERIFY(o.override_tensor.rfind(R"(blk\.(0|1|2|4|5|6|8|)", 0) == 0);
        QVERIFY(o.override_tensor.find("|60|61|62)") != std::string::npos);
    }

    void aSpilledMoeModelSendsItsExpertTensorsToTheHost() {
        ModelShape m = hybrid(4, [](std::uint32_t) { return true; });
        m.moe.n_expert = 64;
        for (auto& l : m.layers)
            l.experts_bytes = 1 << 20;
        const SpillOverride o = spillOverride(m, true, false, Bytes(1));
        QCOMPARE(o.override_tensor, std::string(kMoeExpertsToCpuOverride));
        QVERIFY(o.override_tensor.find("exps") != std::string::npos);
        QVERIFY(pins(o.override_tensor, "blk.17.ffn_gate_exps.weight"));
        QVERIFY(pins(o.override_tensor, "blk.3.ffn_down_exps.weight"));
        QVERIFY(pins(o.override_tensor, "blk.0.ffn_gate_up_exps.weight"));
        // Shared experts, dense FFNs and attention stay where -ngl puts them.
        QVERIFY(!pins(o.override_tensor, "blk.3.ffn_up_shexp.weight"));
        QVERIFY(!pins(o.override_tensor, "blk.3.ffn_up.weight"));
        QVERIFY(!pins(o.override_tensor, "blk.3.attn_q.weight"));
        QVERIFY(o.ffn_blocks_to_host.empty());
    }

    void aHybridMoeModelMovesItsExpertsNotItsRecurrentFfns() {
        ModelShape m = hybrid(8, everyFourth);
        m.moe.n_expert = 128;
        QCOMPARE(spillOverride(m, true, false, std::nullopt).override_tensor,
                 std::string(kMoeExpertsToCpuOverride));
    }

    void aSpilledHybridModelGetsTheFfnPattern() {
        const SpillOverride o = spillOverride(hybrid(12, everyFourth), true, false, Bytes(4096));
        QCOMPARE(o.override_tensor, std::string(R"(blk\.(0|1)\.ffn_.*\.weight=CPU)"));
        QCOMPARE(o.ffn_blocks_to_host, (Blocks{0, 1}));
        // (0|1) does not reach blocks 10 or 11.
        QVERIFY(pins(o.override_tensor, "blk.1.ffn_down.weight"));
        QVERIFY(!pins(o.override_tensor, "blk.10.ffn_down.weight"));
        QVERIFY(!pins(o.override_tensor, "blk.11.ffn_down.weight"));
        QVERIFY(!pins(o.override_tensor, "blk.1.attn_qkv.weight"));
    }

    void aSpilledDenseModelGetsNoOverride() {
        const ModelShape dense = hybrid(32, [](std::uint32_t) { return true; });
        const SpillOverride o = spillOverride(dense, true, false, Bytes(1) << 30);
        QVERIFY(o.override_tensor.empty());
        QVERIFY(o.ffn_blocks_to_host.empty());
    }

    void unifiedMemoryNeverGetsAnOverride() {
        ModelShape moe = hybrid(4, [](std::uint32_t) { return true; });
        moe.moe.n_expert = 64;
        QVERIFY(spillOverride(moe, true, /*uma=*/true, std::nullopt).override_tensor.empty());
        QVERIFY(spillOverride(hybrid(12, everyFourth), true, true, std::nullopt)
                    .override_tensor.empty());
    }

    void aResidentPlanGetsNoOverride() {
        ModelShape moe = hybrid(4, [](std::uint32_t) { return true; });
        moe.moe.n_expert = 64;
        QVERIFY(spillOverride(moe, false, false, std::nullopt).override_tensor.empty());
    }

    void noSpillBytesMeansNoBlocksAndNoPattern() {
        // spill 0: covered 0 ≥ 0 before the first block, so none move and no -ot is written.
        const SpillOverride o = spillOverride(hybrid(12, everyFourth), true, false, Bytes(0));
        QVERIFY(o.ffn_blocks_to_host.empty());
        QVERIFY(o.override_tensor.empty());
    }
};

QTEST_APPLESS_MAIN(TestPolicyPlacement)
#include "test_policy_placement.moc"
