// Expert-cache / KV-pool split (docs/sources.md, ferrox expert budget; the
// behaviour of ferrox expert_budget.rs and FreeToken cache_budget tests).
#include "policy/expert_split.h"

#include <QtTest>

using namespace headroom;
using namespace headroom::policy;

namespace {
// Small round numbers: a slot costs 100 B, a KV page 10 B.
ExpertSplitInput small(SignedBytes budget, std::uint64_t layers, std::uint64_t experts = 128) {
    ExpertSplitInput in;
    in.budget_bytes = budget;
    in.bytes_per_expert = 100;
    in.bytes_per_page = 10;
    in.num_experts = experts;
    in.total_experts = layers * experts;
    in.prefill_overlap = true;
    in.kv_reserve_pages = 0;
    return in;
}

// The worked example: 48 layers × 128 experts, 4.5 MiB per slot, 98 304 B/token × 64-token
// pages = 6 MiB per page, reserve 32 768 tokens = 512 pages, overlap asked.
ExpertSplitInput worked(SignedBytes budget) {
    ExpertSplitInput in;
    in.budget_bytes = budget;
    in.bytes_per_expert = 4 * MiB + 512 * KiB;
    in.bytes_per_page = 98304 * 64;
    in.num_experts = 128;
    in.total_experts = 48 * 128;
    in.prefill_overlap = true;
    in.kv_reserve_pages = kvReservePages(32768, 64);
    return in;
}
} // namespace

class TestPolicyExpertSplit : public QObject {
    Q_OBJECT
private slots:
    void theNetBudgetIsTheRatioOfFreeMemoryMinusWeightsAndFixedCosts() {
        // trunc(0.9 × 10 GiB) = trunc(9 663 676 416.0) = 9 663 676 416; − 4 GiB (4 294 967 296)
        // = 5 368 709 120.
        QCOMPARE(netBudget(0.9, 10 * GiB, 4 * GiB, 0), SignedBytes(5368709120));
        // Fixed costs come off too: − 1 GiB more.
        QCOMPARE(netBudget(0.9, 10 * GiB, 4 * GiB, 1 * GiB), SignedBytes(5368709120 - 1073741824));
    }

    void anOverCommittedGpuGivesANegativeBudgetNotAWrappedOne() {
        // 9 663 676 416 − 12 GiB (12 884 901 888) = −3 221 225 472.
        QCOMPARE(netBudget(0.9, 10 * GiB, 12 * GiB, 0), SignedBytes(-3221225472));
    }

    void theStartupKvBudgetPricesWhatLoadingConsumed() {
        // trunc(0.9 × 1000) − (1000 − 400) = 900 − 600 = 300.
        QCOMPARE(startupKvBudget(0.9, 1000, 400), SignedBytes(300));
        // Loading took everything: 900 − 1000 = −100, signed.
        QCOMPARE(startupKvBudget(0.9, 1000, 0), SignedBytes(-100));
    }

    void expertCacheIsFilledToFullResidencyBeforeKvGetsTheRemainder() {
        // 2 layers × 128 = 256 slots for full residency (= 2E, so the double buffer stays).
        // Budget 100 000: raw = 100 000 / 100 = 1000 → capped at 256; KV gets
        // (100 000 − 25 600) / 10 = 7440 pages.
        const auto r = planCacheBudget(small(100000, 2));
        QVERIFY(r.has_value());
        QCOMPARE(r->expert_slots, std::uint64_t(256));
        QCOMPARE(r->pages, std::uint64_t(7440));
        QVERIFY(r->prefill_overlap);
        QVERIFY(!r->too_small);
        // needed = 25 600 + 74 400 = 100 000.
        QCOMPARE(r->needed_bytes, Bytes(100000));
    }

    void moreBudgetNeverBuysSlotsPastFullResidencyTheBytesGoToKv() {
        // Doubling the budget to 200 000: still 256 slots, KV (200 000 − 25 600) / 10 = 17 440
        // pages, i.e. all 100 000 extra bytes became 10 000 pages.
        const auto r = planCacheBudget(small(200000, 2));
        QVERIFY(r.has_value());
        QCOMPARE(r->expert_slots, std::uint64_t(256));
        QCOMPARE(r->pages, std::uint64_t(17440));
    }

    void aBackendSlotCeilingRollsItsFreedBytesIntoKv() {
        // 8 layers × 128 = 1024 slots; budget 200 000. Uncapped: 1024 slots, KV (200 000 −
        // 102 400) / 10 = 9760 pages. Ceiling 992: 992 slots, KV (200 000 − 99 200) / 10 =
        // 10 080 pages: the 32 slots × 100 B = 3200 B freed are 320 more pages.
        const auto uncapped = planCacheBudget(small(200000, 8));
        QVERIFY(uncapped.has_value());
        QCOMPARE(uncapped->expert_slots, std::uint64_t(1024));
        QCOMPARE(uncapped->pages, std::uint64_t(9760));
        auto in = small(200000, 8);
        in.max_slots = 992;
        const auto capped = planCacheBudget(in);
        QVERIFY(capped.has_value());
        QCOMPARE(capped->expert_slots, std::uint64_t(992));
        QCOMPARE(capped->max_slots, std::uint64_t(992));
        QCOMPARE(capped->pages, std::uint64_t(10080));
    }

    void theKvReserveIsTakenOutBeforeTheCacheIsSized() {
        // 1024 slots possible, budget 50 000, reserve 2000 pages × 10 = 20 000 B:
        // experts get (50 000 − 20 000) / 100 = 300 slots, KV keeps its floor:
        // (50 000 − 30 000) / 10 = 2000 pages.
        auto in = small(50000, 8);
        in.kv_reserve_pages = 2000;
        const auto r = planCacheBudget(in);
        QVERIFY(r.has_value());
        QCOMPARE(r->expert_slots, std::uint64_t(300));
        QCOMPARE(r->pages, std::uint64_t(2000));
        QVERIFY(!r->too_small);
        // Without the reserve the experts would take all of it (500 slots) and starve KV.
        in.kv_reserve_pages = 0;
        const auto greedy = planCacheBudget(in);
        QCOMPARE(greedy->expert_slots, std::uint64_t(500));
        QVERIFY(greedy->too_small && greedy->kv_starved);
    }

    void aCeilingBelowTwoLayersDropsThePrefillDoubleBufferInsteadOfFailing() {
        // E = 128, ceiling 200 < 2 × 128 = 256: overlap off, lower bound one layer (128).
        // Budget 100 000 → raw 1000 → min(1000, 200) = 200 slots, KV (100 000 − 20 000) / 10.
        auto in = small(100000, 8);
        in.max_slots = 200;
        const auto r = planCacheBudget(in);
        QVERIFY(r.has_value());
        QVERIFY(!r->prefill_overlap);
        QCOMPARE(r->expert_slots, std::uint64_t(200));
        QCOMPARE(r->pages, std::uint64_t(8000));
        QVERIFY(!r->too_small);
    }

    void anExplicitRequestWithoutPrefillOverlapIsHonoured() {
        // Full residency affordable (256 slots ≥ 2E) but overlap not asked: stays off.
        auto in = small(100000, 2);
        in.prefill_overlap = false;
        const auto r = planCacheBudget(in);
        QVERIFY(r.has_value());
        QVERIFY(!r->prefill_overlap);
        QCOMPARE(r->expert_slots, std::uint64_t(256));
    }

    void aBudgetThatCannotHoldOneLayerIsTooSmallWithOneLayerOfSlots() {
        // No overlap, E = 128 → lower bound 128 slots = 12 800 B > budget 10 000. remaining
        // 10 000 − 12 800 < 0 → KV keeps its reserve of 4 pages; needed 12 800 + 40 = 12 840.
        auto in = small(10000, 8);
        in.prefill_overlap = false;
        in.kv_reserve_pages = 4;
        const auto r = planCacheBudget(in);
        QVERIFY(r.has_value()); // an answer, not an Error
        QVERIFY(r->too_small);
        QVERIFY(!r->kv_starved);
        QCOMPARE(r->expert_slots, std::uint64_t(128));
        QCOMPARE(r->pages, std::uint64_t(4));
        QCOMPARE(r->needed_bytes, Bytes(12840));
        QVERIFY(QString::fromStdString(r->message).contains("needs"));
    }

    void slotsThatLeaveOnlyOneKvPageAreTooSmall() {
        // 1 layer × 4 experts at 100 B = 400 B of a 410 B budget; (410 − 400) / 10 = 1 page.
        // needed 410 ≤ budget, yet one page is no KV pool.
        ExpertSplitInput in;
        in.budget_bytes = 410;
        in.bytes_per_expert = 100;
        in.bytes_per_page = 10;
        in.num_experts = 4;
        in.total_experts = 4;
        in.prefill_overlap = false;
        const auto r = planCacheBudget(in);
        QVERIFY(r.has_value());
        QCOMPARE(r->expert_slots, std::uint64_t(4));
        QCOMPARE(r->pages, std::uint64_t(1));
        QVERIFY(r->too_small);
        QVERIFY(r->kv_starved);
        QCOMPARE(r->needed_bytes, Bytes(410));
    }

    void aNegativeBudgetIsTooSmallNotAWrappedHugeCache() {
        // Budget −1000: raw 0 → one layer (128 × 100 = 12 800 B, no overlap) + 0 pages;
        // needed 12 800 > −1000 and 0 pages ≤ 1.
        auto in = small(-1000, 8);
        in.prefill_overlap = false;
        const auto r = planCacheBudget(in);
        QVERIFY(r.has_value());
        QVERIFY(r->too_small);
        QCOMPARE(r->expert_slots, std::uint64_t(128));
        QCOMPARE(r->pages, std::uint64_t(0));
        QCOMPARE(r->budget_bytes, SignedBytes(-1000));
    }

    void theWorkedExampleGives1046SlotsAnd512Pages() {
        // Net: trunc(0.9 × 24 GiB) = trunc(23 192 823 398.4) = 23 192 823 398; − 14 GiB
        // (15 032 385 536) = 8 160 437 862.
        const SignedBytes budget = netBudget(0.9, 24 * GiB, 14 * GiB, 0);
        QCOMPARE(budget, SignedBytes(8160437862));
        // reserve = ceil(32 768 / 64) = 512 pages × 6 291 456 = 3 221 225 472 B;
        // spare = 8 160 437 862 − 3 221 225 472 = 4 939 212 390; / 4 718 592 = 1046 slots
        // (≤ 6144, ≥ 256 so the double buffer stays). remaining = 8 160 437 862 − 1046 ×
        // 4 718 592 (4 935 647 232) = 3 224 790 630; / 6 291 456 = 512 pages.
        // needed = 4 935 647 232 + 512 × 6 291 456 = 8 156 872 704.
        const auto r = planCacheBudget(worked(budget));
        QVERIFY(r.has_value());
        QCOMPARE(r->reserve_pages, std::uint64_t(512));
        QCOMPARE(r->expert_slots, std::uint64_t(1046));
        QCOMPARE(r->pages, std::uint64_t(512));
        QVERIFY(r->prefill_overlap);
        QCOMPARE(r->needed_bytes, Bytes(8156872704));
        QVERIFY(!r->too_small);
    }

    void theWorkedExampleUnderA1000SlotKernelCapGives547Pages() {
        // 1000 slots: remaining 8 160 437 862 − 4 718 592 000 = 3 441 845 862; / 6 291 456 =
        // 547 pages.
        auto in = worked(8160437862);
        in.max_slots = 1000;
        const auto r = planCacheBudget(in);
        QVERIFY(r.has_value());
        QCOMPARE(r->expert_slots, std::uint64_t(1000));
        QCOMPARE(r->pages, std::uint64_t(547));
    }

    void theWorkedExampleOnA2GiBBudgetIsTooSmall() {
        // spare = 2 147 483 648 − 3 221 225 472 < 0 → lower bound 256 slots (1 207 959 552 B);
        // remaining 939 524 096 / 6 291 456 = 149 < 512 → reserve 512 pages (3 221 225 472 B);
        // needed 4 429 185 024 > 2 GiB.
        const auto r = planCacheBudget(worked(SignedBytes(2 * GiB)));
        QVERIFY(r.has_value());
        QVERIFY(r->too_small);
        QCOMPARE(r->expert_slots, std::uint64_t(256));
        QCOMPARE(r->pages, std::uint64_t(512));
        QCOMPARE(r->needed_bytes, Bytes(4429185024));
    }

    void aSlotCostsTheSumOfItsRowsOverEveryBank() {
        // gate + up + down rows: 1 572 864 × 3 = 4 718 592 (4.5 MiB).
        QCOMPARE(slotBytes({1572864, 1572864, 1572864}), Bytes(4718592));
        QCOMPARE(slotBytes({}), Bytes(0));
    }

    void invalidSizesAreErrorsInsteadOfPanics() {
        auto zeroExpert = small(100000, 2);
        zeroExpert.bytes_per_expert = 0;
        QVERIFY(!planCacheBudget(zeroExpert).has_value());
        auto zeroPage = small(100000, 2);
        zeroPage.bytes_per_page = 0;
        QVERIFY(!planCacheBudget(zeroPage).has_value());
        auto noExperts = small(100000, 2, 0);
        QVERIFY(!planCacheBudget(noExperts).has_value());
    }

    void aCeilingBelowOneLayerOfExpertsIsAnError() {
        // max_slots 100 < 128 experts per layer: not even one layer can be cached.
        auto in = small(100000, 8);
        in.max_slots = 100;
        const auto r = planCacheBudget(in);
        QVERIFY(!r.has_value());
        QVERIFY(QString::fromStdString(r.error().message).contains("below one layer"));
        // total_experts below num_experts is the same impossibility.
        auto fewer = small(100000, 1);
        fewer.total_experts = 64;
        QVERIFY(!planCacheBudget(fewer).has_value());
    }
};

QTEST_APPLESS_MAIN(TestPolicyExpertSplit)
#include "test_policy_expert_split.moc"
