// Fitting a capacity plan to live free memory (docs/sources.md, Hermes live fit:
// fit_to_free_memory): the live re-plan is a fresh plan_launch on the live budget — without the
// requested-window restore, and free to choose the other MTP posture — and only the window moves,
// only down.
#include "common/plan_helpers.h"
#include "planner.h"

#include <QtTest>

using namespace headroom;
using namespace headroom::test;

namespace {

bool hasReason(const Plan& p, const std::string& text) {
    for (const auto& r : p.decision.reasons)
        if (r.find(text) != std::string::npos) return true;
    return false;
}

// A MoE model of 24 blocks (one 80-wide KV head each, 10 MiB attention + 68 MiB of routed experts
// per block), 50 MiB token embedding and output, trained to 256K. f16 KV: 24 x 80 x 2 x 2 =
// 7680 B per token, so 0.70 GiB at 96K, 1.05 GiB at 144K, 1.48 GiB at 206662 (pad 206848), 1.58
// GiB at 216K.
ModelShape moe24() {
    ModelShape m = denseShape(24, 16, 1, 80, 32000, 0, 262144);
    m.id = "test-moe24";
    m.moe = {64, 8, 0};
    m.n_ff_exp = 256;
    for (auto& l : m.layers) {
        l.attn_bytes = 10 * MiB;
        l.ffn_bytes = 0;
        l.experts_bytes = 68 * MiB;
    }
    m.token_embd_bytes = 50 * MiB;
    m.output_bytes = 50 * MiB;
    return m;
}

// A dense model of 16 blocks plus one MTP (nextn) block, 60 MiB each, two 128-wide KV heads,
// 300 MiB embedding and output, vocabulary 151936, trained to 128K.
ModelShape denseMtp17() {
    ModelShape m = denseShape(17, 32, 2, 128, 151936, 60 * MiB, 131072);
    m.id = "test-dense-mtp17";
    m.token_embd_bytes = 300 * MiB;
    m.output_bytes = 300 * MiB;
    m.layers.back().is_mtp = true;
    m.n_mtp_layers = 1;
    m.architecture = kMtpArchitecture;
    return m;
}

} // namespace

class TestPlannerLiveFit : public QObject {
    Q_OBJECT

private slots:
    void theLiveRePlanDoesNotRestoreTheRequestedWindow() {
        // 6 GiB card: capacity usable 6 - 2 (margin floor) = 4 GiB. Device bytes per rung
        // (weights 24 x 78 MiB + 50 MiB output = 1.88 GiB, plus KV, compute ~0.1-0.2 GiB and the
        // 0.39 GiB CUDA overhead): 96K ~3.08, 144K ~3.48, 206662 ~3.96, 216K ~4.08 GiB. The
        // capacity plan's largest zero-spill ladder rung is 144K, and the requested 206662 still
        // runs resident, so it is restored.
        HardwareSnapshot hw = snapshotFromSizes({6 * GiB}, 16 * GiB, false);
        PlanOptions o;
        o.requested_window = 206662;
        const Plan capacity = planOrFail(moe24(), hw, o);
        QCOMPARE(capacity.decision.context, 206848u); // pad256(206662)
        QVERIFY(!capacity.decision.spilled);
        // 5.5 GB free now: live usable 5 500 000 000 B - 2 GiB = 3.12 GiB. A fresh plan_launch
        // on that budget (no requested window) gives 96K resident (3.08 <= 3.12 < 3.48), which is
        // below 206662, so the window narrows to 96K — not to the 64K floor fallback that
        // restoring 206662 on the live budget (where it would spill) used to force.
        hw.gpus[0].free_bytes = Bytes{5'500'000'000};
        const Plan live = planOrFail(moe24(), hw, o);
        QCOMPARE(live.decision.context, 98304u);
        QVERIFY(!live.decision.spilled);
        QVERIFY(!live.decision.refused);
        QCOMPARE(live.rungs[live.decision.rung_index].verdict, Verdict::Resident);
        QVERIFY(hasReason(live, "96K fits beside other programs' GPU memory"));
    }

    void theLiveRePlanChoosesThePostureAgain() {
        // 48 GiB card, q8_0 caches: capacity usable 48 - 4.32 (9 %) = 43.68 GiB, where stacked
        // (ub 2048) reaches the trained 128K resident and is chosen.
        HardwareSnapshot hw = snapshotFromSizes({48 * GiB}, 64 * GiB, false);
        PlanOptions o;
        o.cache_type_k = o.cache_type_v = GgmlType::Q8_0;
        const Plan capacity = planOrFail(denseMtp17(), hw, o);
        QCOMPARE(capacity.decision.posture, Posture::Stacked);
        QCOMPARE(capacity.decision.context, 131072u);
        // 9.2 GB free: live usable 9 200 000 000 B - 4.32 GiB = 4.25 GiB. Stacked needs ~5.25 GiB
        // on the device at the 64K floor (its 2048-token logits alone are 2048 x 151936 x 4 =
        // 1.16 GiB), so it cannot run resident; lean needs ~3.98 GiB at 96K and ~4.55 at 128K.
        // plan_launch on the live budget therefore picks lean 96K resident, and that is the
        // narrowed window — not stacked 64K, which the live budget cannot hold.
        hw.gpus[0].free_bytes = Bytes{9'200'000'000};
        const Plan live = planOrFail(denseMtp17(), hw, o);
        QCOMPARE(live.decision.posture, Posture::Lean);
        QCOMPARE(live.decision.context, 98304u);
        QVERIFY(!live.decision.spilled);
        const Rung& chosen = live.rungs[live.decision.rung_index];
        QCOMPARE(chosen.posture, Posture::Lean);
        QCOMPARE(chosen.context, 98304u);
        // The launch is the lean posture's: the default 512 ubatch, so no -ub is written.
        QVERIFY(live.launch.has_value());
        QVERIFY(!live.launch->n_ubatch.has_value());
    }

    void aLiveRePlanThatKeepsTheWindowTakesThePostureThatFitsIt() {
        // 48 GiB card, q8_0 caches: the capacity plan is stacked at the trained 128K (as above).
        // Device bytes per rung, stacked: 64K 5 099 364 384, 96K 5 839 659 040, 128K 6 579 953 696;
        // lean: 64K 3 536 680 992, 96K 4 176 312 352, 128K 4 815 943 712.
        HardwareSnapshot hw = snapshotFromSizes({48 * GiB}, 64 * GiB, false);
        PlanOptions o;
        o.cache_type_k = o.cache_type_v = GgmlType::Q8_0;
        QCOMPARE(planOrFail(denseMtp17(), hw, o).decision.posture, Posture::Stacked);
        // 10 GB free: live usable 10 000 000 000 - 4 638 564 679 (9 % of 48 GiB) = 5 361 435 321
        // B. Lean reaches 128K resident (4 815 943 712 fits); stacked only 64K (5 099 364 384
        // fits, 96K's 5 839 659 040 does not), so the fresh plan is lean 128K: the same window
        // as the capacity plan. Stacked at 128K needs 6 579 953 696 > 5 361 435 321 live, so
        // keeping the stacked posture would launch a window its own live pricing does not hold.
        hw.gpus[0].free_bytes = Bytes{10'000'000'000};
        const Plan live = planOrFail(denseMtp17(), hw, o);
        QCOMPARE(live.decision.context, 131072u);
        QCOMPARE(live.decision.posture, Posture::Lean);
        QVERIFY(!live.decision.spilled);
        const Rung& chosen = live.rungs[live.decision.rung_index];
        QCOMPARE(chosen.posture, Posture::Lean);
        QCOMPARE(chosen.verdict, Verdict::Resident);
        QVERIFY(hasReason(live, "in the lean posture (stacked would spill there now)"));
        // The launch is lean's: the default 512 ubatch, so no -ub is written.
        QVERIFY(live.launch.has_value());
        QVERIFY(!live.launch->n_ubatch.has_value());
    }

    void aLiveReadingThatHoldsNothingKeepsTheFloorAndThePosture() {
        // 3 GB free on the 48 GiB card leaves a negative live budget (3 000 000 000 B - 4.32
        // GiB): neither posture runs resident at any rung, so the floor is held (Hermes
        // fit_to_free_memory, its last step) with the capacity plan's posture.
        HardwareSnapshot hw = snapshotFromSizes({48 * GiB}, 64 * GiB, false);
        hw.gpus[0].free_bytes = Bytes{3'000'000'000};
        PlanOptions o;
        o.cache_type_k = o.cache_type_v = GgmlType::Q8_0;
        const Plan live = planOrFail(denseMtp17(), hw, o);
        QCOMPARE(live.decision.posture, Posture::Stacked);
        QCOMPARE(live.decision.context, 65536u);
        QVERIFY(hasReason(live, "other programs hold most of the GPU memory"));
    }
};

QTEST_APPLESS_MAIN(TestPlannerLiveFit)
#include "test_planner_live_fit.moc"
