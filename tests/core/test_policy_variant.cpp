// Quant variant selection and the default recommendation (docs/sources.md, Hermes speed
// classes and variants).
#include "policy/variant.h"

#include "policy/ladder.h"

#include <QtTest>

#include <cmath>

using namespace headroom;
using namespace headroom::policy;

namespace {
// Context memory of Qwen3.8-27B (Hermes' example): 34 816 B/token (16 full layers × 4096 ×
// 0.53125) + 48 recurrent × 4 MiB = 201 326 592 B, × 1.2 (MTP), truncated.
Bytes qwen27bCtx(std::uint32_t w) {
    return static_cast<Bytes>(std::trunc((34816.0 * w + 201326592.0) * 1.2));
}

// A synthetic model whose variants differ only in weights; ctx(w) = 10 000 B per token.
struct Toy {
    explicit Toy(std::vector<Bytes> w) : weights(std::move(w)) {}
    std::vector<Bytes> weights;
    mutable std::vector<std::uint32_t> priced; // windows asked for
    VariantNeed fn() const {
        return [this](std::size_t i, std::uint32_t w) {
            priced.push_back(w);
            return weights[i] + Bytes(w) * 10000;
        };
    }
};

std::vector<VariantCandidate> sized(const std::vector<Bytes>& sizes) {
    std::vector<VariantCandidate> c;
    for (Bytes s : sizes)
        c.push_back({"v" + std::to_string(c.size()), s});
    return c;
}

VariantBudget budget(SignedBytes vram, SignedBytes ram, std::uint64_t native = 262144) {
    return VariantBudget{vram, ram, native};
}

EntryCandidate entry(const char* id, bool resident, double quality, Bytes size, double tok_s,
                     bool fits = true) {
    return EntryCandidate{id, fits, resident, quality, size, tok_s};
}
} // namespace

class TestPolicyVariant : public QObject {
    Q_OBJECT
private slots:
    void theBestVariantThatHoldsTheTargetWindowResidentWins() {
        // At 144K ctx = 1 474 560 000 B. v0 (20e9) needs 21 474 560 000 > 21e9; v1 (18e9) needs
        // 19 474 560 000 ≤ 21e9 → v1, best-large-window, even though v2 also fits.
        Toy t({20000000000ull, 18000000000ull, 10000000000ull});
        const auto c = selectVariant(sized(t.weights), t.fn(), budget(21000000000, 0));
        QVERIFY(c.has_value() && c->has_value());
        QCOMPARE((*c)->index, std::size_t(1));
        QCOMPARE((*c)->reason, VariantReason::BestLargeWindow);
        QVERIFY((*c)->zero_spill);
        QCOMPARE((*c)->window, kTargetWindow);
        QCOMPARE((*c)->needed_bytes, Bytes(19474560000ull));
    }

    void aSmallerQuantAtTheTargetBeatsABetterOneThatOnlyHoldsTheFloor() {
        // v0 (20e9): 144K → 21 474 560 000 > 21e9, 64K → 20 655 360 000 ≤ 21e9 (floor only);
        // v1 (19e9): 144K → 20 474 560 000 ≤ 21e9 → v1 wins, the large window comes first.
        Toy t({20000000000ull, 19000000000ull});
        const auto c = selectVariant(sized(t.weights), t.fn(), budget(21000000000, 0));
        QCOMPARE((*c)->index, std::size_t(1));
        QCOMPARE((*c)->reason, VariantReason::BestLargeWindow);
    }

    void whenNoVariantHoldsTheTargetTheBestThatHoldsTheFloorFits() {
        // Budget 20.7e9. At 144K (+1 474 560 000): v0 21 474 560 000, v1 21 974 560 000, both
        // over. At 64K (+655 360 000): v0 20 655 360 000 ≤ 20.7e9 → v0, best-fits.
        Toy t({20000000000ull, 20500000000ull});
        const auto c = selectVariant(sized(t.weights), t.fn(), budget(20700000000, 0));
        QCOMPARE((*c)->index, std::size_t(0));
        QCOMPARE((*c)->reason, VariantReason::BestFits);
        QCOMPARE((*c)->window, kFloorWindow);
        QVERIFY((*c)->zero_spill);
    }

    void whenNothingIsResidentTheSmallestFileSpills() {
        // VRAM 10e9 holds no variant at 64K (each ≥ 10e9 + 655 360 000). The smallest file is
        // v1 (sizes 30e9, 12e9, 15e9); 12e9 + 655 360 000 ≤ 10e9 + 8e9 → spilled.
        Toy t({30000000000ull, 12000000000ull, 15000000000ull});
        const auto c = selectVariant(sized(t.weights), t.fn(), budget(10000000000, 8000000000));
        QCOMPARE((*c)->index, std::size_t(1));
        QCOMPARE((*c)->reason, VariantReason::SmallestFitsSpilled);
        QVERIFY(!(*c)->zero_spill);
        QCOMPARE((*c)->needed_bytes, Bytes(12655360000ull));
    }

    void whenEvenTheSmallestSpilledDoesNotFitThereIsNoChoice() {
        // 12 655 360 000 > 10e9 + 2e9.
        Toy t({30000000000ull, 12000000000ull});
        const auto c = selectVariant(sized(t.weights), t.fn(), budget(10000000000, 2000000000));
        QVERIFY(c.has_value());
        QVERIFY(!c->has_value());
        // No candidates at all: no choice either.
        QVERIFY(!selectVariant({}, t.fn(), budget(1, 1))->has_value());
    }

    void aModelTrainedBelowTheTargetIsPricedAtItsNativeContext() {
        // native 40 960: target = floor = 40 960; 1e9 + 409 600 000 ≤ 2e9.
        Toy t({1000000000ull});
        const auto c = selectVariant(sized(t.weights), t.fn(), budget(2000000000, 0, 40960));
        QCOMPARE((*c)->window, 40960u);
        QCOMPARE((*c)->reason, VariantReason::BestLargeWindow);
        for (std::uint32_t w : t.priced)
            QCOMPARE(w, 40960u);
    }

    void aNegativeVramBudgetHoldsNothingResident() {
        // −1 GiB usable + 64 GiB RAM: only the spilled path, 1e9 + 655 360 000 ≤ 63 GiB.
        Toy t({1000000000ull});
        const auto c = selectVariant(sized(t.weights), t.fn(), budget(-SignedBytes(GiB), 64 * GiB));
        QCOMPARE((*c)->reason, VariantReason::SmallestFitsSpilled);
    }

    void hermes27bOnA24GiBCardIsBestFits() {
        // Usable 23 450 521 437 B (24 GiB − max(2 GiB, 9 %)). Lean overhead = 1.5 GiB
        // (1 610 612 736) + mmproj 931 146 432 + MTP logits 1 017 118 720 = 3 558 877 888.
        // 64K: 16 464 440 224 + 3 558 877 888 + trunc(2 483 027 968 × 1.2 = 2 979 633 561.6)
        //      = 23 002 951 673 (21.42 GiB) ≤ usable;
        // 144K: … + 6 402 185 625 = 26 425 503 737 (24.61 GiB) > usable → best-fits.
        const VariantNeed need = [](std::size_t, std::uint32_t w) {
            return 16464440224ull + 3558877888ull + qwen27bCtx(w);
        };
        const auto c = selectVariant({{"UD-Q4_K_M", 16464440224ull}}, need,
                                     budget(23450521437, SignedBytes(64 * GiB)));
        QCOMPARE((*c)->reason, VariantReason::BestFits);
        QCOMPARE((*c)->needed_bytes, Bytes(23002951673ull));
    }

    void hermes35bA3bOnA24GiBCardCanOnlySpill() {
        // ctx(w) = trunc((10 full layers × 2048 × 0.53125 = 10 880 B/token × w + 30 recurrent ×
        // 4 MiB = 125 829 120) × 1.2); ctx(64K) = trunc(838 860 800 × 1.2) = 1 006 632 960.
        // 22 663 387 424 + overhead (1 610 612 736 + 902 822 528 + 1 017 118 720 = 3 530 553 984)
        // + 1 006 632 960 = 27 200 574 368 > 23 450 521 437, ≤ usable + 64 GiB.
        const VariantNeed need = [](std::size_t, std::uint32_t w) {
            return 22663387424ull + 3530553984ull +
                   static_cast<Bytes>(std::trunc((10880.0 * w + 125829120.0) * 1.2));
        };
        const auto c = selectVariant({{"UD-Q4_K_M", 22663387424ull}}, need,
                                     budget(23450521437, SignedBytes(64 * GiB)));
        QCOMPARE((*c)->reason, VariantReason::SmallestFitsSpilled);
        QCOMPARE((*c)->needed_bytes, Bytes(27200574368ull));
    }

    void aMissingPricingFunctionIsAnError() {
        QVERIFY(!selectVariant(sized({1}), nullptr, budget(1, 1)).has_value());
    }

    void theBestQualityPleasantResidentEntryIsRecommended() {
        // Both resident and ≥ 20 tok/s; b has the higher quality → b, no resident entry above it.
        const auto r = recommendedEntry({entry("a", true, 70, 10, 80), entry("b", true, 80, 16, 60),
                                         entry("c", false, 95, 30, 30)});
        QVERIFY(r);
        QCOMPARE(r->index, std::size_t(1));
        QCOMPARE(r->reason, RecommendReason::BestQualityResident);
    }

    void aSlowerHigherQualityResidentEntryMakesThePickSpeedGated() {
        // c (quality 90) is resident but 12 tok/s < 20: passed over for b (80, 60 tok/s).
        const auto r = recommendedEntry({entry("a", true, 70, 10, 80), entry("b", true, 80, 16, 60),
                                         entry("c", true, 90, 40, 12)});
        QCOMPARE(r->index, std::size_t(1));
        QCOMPARE(r->reason, RecommendReason::SpeedGatedQuality);
    }

    void equalQualityPrefersTheSmallerEntry() {
        const auto r =
            recommendedEntry({entry("big", true, 80, 20, 50), entry("small", true, 80, 12, 40)});
        QCOMPARE(r->index, std::size_t(1));
    }

    void withNoPleasantEntryTheFastestResidentIsRecommended() {
        // Resident at 12 and 15 tok/s (both < 20) → the 15 tok/s one.
        const auto r = recommendedEntry({entry("a", true, 90, 40, 12), entry("b", true, 70, 30, 15),
                                         entry("c", false, 50, 5, 50)});
        QCOMPARE(r->index, std::size_t(1));
        QCOMPARE(r->reason, RecommendReason::FastestResident);
    }

    void withNothingResidentTheFastestSpilledEntryIsTheLeastPainful() {
        // d does not fit at all and is ignored despite its speed.
        const auto r = recommendedEntry({entry("a", false, 90, 40, 3), entry("b", false, 70, 30, 5),
                                         entry("d", false, 99, 1, 500, /*fits=*/false)});
        QCOMPARE(r->index, std::size_t(1));
        QCOMPARE(r->reason, RecommendReason::LeastPainfulSpilled);
    }

    void nothingIsRecommendedWhenNothingFits() {
        QVERIFY(!recommendedEntry({entry("d", false, 99, 1, 500, false)}));
        QVERIFY(!recommendedEntry({}));
    }

    void hermes24GiBExampleRecommendsThe27bAsBestQualityResident() {
        // 27B: best-fits (resident), 1000e9 / 16 464 440 224 = 60.7 tok/s. 35B-A3B: spilled at
        // 80e9 / (22 663 387 424 × 0.15) = 23.5 tok/s. Only residents gate quality, so the
        // 27B is best-quality-resident even if the 35B scores higher.
        const auto r =
            recommendedEntry({entry("qwen3.8-27b", true, 80, 16464440224ull, 60.7),
                              entry("qwen3.6-35b-a3b", false, 85, 22663387424ull, 23.5)});
        QCOMPARE(r->index, std::size_t(0));
        QCOMPARE(r->reason, RecommendReason::BestQualityResident);
        QCOMPARE(std::string(recommendReasonName(r->reason)), std::string("best-quality-resident"));
    }
};

QTEST_APPLESS_MAIN(TestPolicyVariant)
#include "test_policy_variant.moc"
