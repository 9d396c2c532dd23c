// Growth at end of turn (docs/sources.md, Hermes growth).
#include "policy/growth.h"

#include <QtTest>

#include <cmath>

using namespace headroom;
using namespace headroom::policy;

namespace {
// Qwen3.8-27B (Hermes' worked example): weights 16 464 440 224 B; 16 full layers × 4096 B f16 per
// token at q8_0 (× 0.53125) = 34 816 B/token; 48 recurrent layers × 4 MiB = 201 326 592 B; MTP
// kv_scale 1.2.
Bytes qwen27bNeed(std::uint32_t window) {
    const double kv = 34816.0 * window + 201326592.0;
    return 16464440224ull + static_cast<Bytes>(std::trunc(kv * 1.2));
}

// A 32 GiB card: margin trunc(0.09 × 34 359 738 368) = 3 092 376 453 → usable 31 267 361 915
// (29.12 GiB); 64 GiB of RAM.
GrowthInput session96k(std::uint64_t tokens) {
    GrowthInput in;
    in.session_tokens = tokens;
    in.current_window = 98304;
    in.n_ctx_train = 262144;
    in.idle = true;
    in.decode_tok_s = 40.0;
    in.need_at = qwen27bNeed;
    in.usable_vram = 31267361915;
    in.ram_available = SignedBytes(64 * GiB);
    return in;
}
} // namespace

class TestPolicyGrowth : public QObject {
    Q_OBJECT
private slots:
    void theWorkedExampleGrowsA96kSessionTo144k() {
        // 84 000 ≥ 0.85 × 98 304 = 83 558.4; idle; 40 tok/s ≥ 6; next rung after 98 304 is
        // 147 456. need = 16 464 440 224 + trunc((34 816 × 147 456 + 201 326 592) × 1.2)
        // = 16 464 440 224 + trunc(6 402 185 625.6) = 22 866 625 849 B (21.30 GiB)
        // ≤ 31 267 361 915 + 68 719 476 736.
        const auto d = growthDecision(session96k(84000));
        QVERIFY(d.has_value());
        QCOMPARE(d->action, GrowthAction::Grow);
        QCOMPARE(d->next_window, std::optional<std::uint32_t>(147456));
        QCOMPARE(d->needed_bytes, Bytes(22866625849));
        QCOMPARE(d->reason, std::string("rung 96K -> 144K"));
    }

    void growthHoldsBelow85PercentOccupancy() {
        // 83 000 < 83 558.4.
        const auto d = growthDecision(session96k(83000));
        QCOMPARE(d->action, GrowthAction::Hold);
        QVERIFY(QString::fromStdString(d->reason).contains("occupancy"));
        QVERIFY(!d->next_window);
    }

    void confirmedOccupancySkipsThe85PercentGate() {
        // 78K = 79 872 < 83 558.4: holds unless the caller's compression gate confirmed it.
        auto in = session96k(79872);
        QCOMPARE(growthDecision(in)->action, GrowthAction::Hold);
        in.occupancy_confirmed = true;
        const auto d = growthDecision(in);
        QCOMPARE(d->action, GrowthAction::Grow);
        QCOMPARE(*d->next_window, 147456u);
    }

    void growthHoldsWhileTheServerIsBusy() {
        auto in = session96k(90000);
        in.idle = false;
        const auto d = growthDecision(in);
        QCOMPARE(d->action, GrowthAction::Hold);
        QVERIFY(QString::fromStdString(d->reason).contains("idle"));
    }

    void growthStepsExactlyOneRungAtATime() {
        // From 147 456 the next rung is 221 184, not native 262 144; from 221 184 it is native.
        auto in = session96k(140000); // ≥ 0.85 × 147 456 = 125 337.6
        in.current_window = 147456;
        QCOMPARE(*growthDecision(in)->next_window, 221184u);
        in.current_window = 221184;
        in.session_tokens = 200000; // ≥ 0.85 × 221 184 = 188 006.4
        QCOMPARE(*growthDecision(in)->next_window, 262144u);
    }

    void growthStopsAtNativeWithCompressDefault() {
        auto in = session96k(250000); // ≥ 0.85 × 262 144 = 222 822.4
        in.current_window = 262144;
        const auto d = growthDecision(in);
        QCOMPARE(d->action, GrowthAction::CompressDefault);
        QVERIFY(QString::fromStdString(d->reason).contains("native"));
    }

    void anUnknownNativeContextTreatsTheCurrentWindowAsNative() {
        auto in = session96k(90000);
        in.n_ctx_train = 0;
        QCOMPARE(growthDecision(in)->action, GrowthAction::CompressDefault);
    }

    void decodeBelowTheSixTokPerSecondFloorFlipsGrowthToCompressDefault() {
        auto in = session96k(90000);
        in.decode_tok_s = 5.9;
        const auto d = growthDecision(in);
        QCOMPARE(d->action, GrowthAction::CompressDefault);
        QVERIFY(QString::fromStdString(d->reason).contains("5.9 tok/s"));
        // Exactly 6.0 is not below the floor; an unmeasured speed does not block.
        in.decode_tok_s = 6.0;
        QCOMPARE(growthDecision(in)->action, GrowthAction::Grow);
        in.decode_tok_s.reset();
        QCOMPARE(growthDecision(in)->action, GrowthAction::Grow);
    }

    void growthRefitsAgainstTheGivenBudgetAndRefusesOnPhysics() {
        // 12 GiB + 8 GiB = 21 474 836 480 < 22 866 625 849 needed at 144K.
        auto in = session96k(90000);
        in.usable_vram = SignedBytes(12 * GiB);
        in.ram_available = SignedBytes(8 * GiB);
        const auto d = growthDecision(in);
        QCOMPARE(d->action, GrowthAction::CompressDefault);
        QVERIFY(QString::fromStdString(d->reason).contains("physics"));
        QCOMPARE(d->available_bytes, SignedBytes(21474836480));
        QCOMPARE(d->needed_bytes, Bytes(22866625849));
        // Exactly the needed total is enough (the gate refuses only need > available).
        in.ram_available = SignedBytes(22866625849) - in.usable_vram;
        QCOMPARE(growthDecision(in)->action, GrowthAction::Grow);
    }

    void aNegativeVramBudgetLowersWhatIsAvailableInsteadOfWrapping() {
        // −2 GiB + 8 GiB = 6 GiB available, far below 21.3 GiB.
        auto in = session96k(90000);
        in.usable_vram = -SignedBytes(2 * GiB);
        in.ram_available = SignedBytes(8 * GiB);
        const auto d = growthDecision(in);
        QCOMPARE(d->action, GrowthAction::CompressDefault);
        QCOMPARE(d->available_bytes, SignedBytes(6 * GiB));
    }

    void gatesRunInOrderOccupancyNativeIdleSpeedPhysics() {
        // Below occupancy and at native: occupancy answers first (hold).
        auto in = session96k(1000);
        in.current_window = 262144;
        QCOMPARE(growthDecision(in)->action, GrowthAction::Hold);
        // At native and busy: native answers before idleness (compress-default).
        in.session_tokens = 250000;
        in.idle = false;
        QCOMPARE(growthDecision(in)->action, GrowthAction::CompressDefault);
        // Busy and too slow below native: idleness answers before speed (hold).
        auto slow = session96k(90000);
        slow.idle = false;
        slow.decode_tok_s = 2.0;
        QCOMPARE(growthDecision(slow)->action, GrowthAction::Hold);
        // Too slow and over physics: speed answers first; the re-fit never runs.
        slow.idle = true;
        slow.usable_vram = 0;
        slow.ram_available = 0;
        const auto d = growthDecision(slow);
        QCOMPARE(d->action, GrowthAction::CompressDefault);
        QVERIFY(QString::fromStdString(d->reason).contains("tok/s"));
        QCOMPARE(d->needed_bytes, Bytes(0));
    }

    void aMissingPricingFunctionIsAnError() {
        auto in = session96k(90000);
        in.need_at = nullptr;
        QVERIFY(!growthDecision(in).has_value());
    }
};

QTEST_APPLESS_MAIN(TestPolicyGrowth)
#include "test_policy_growth.moc"
