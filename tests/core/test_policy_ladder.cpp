// Context ladder (docs/sources.md, Hermes context ladder: "Ladder starts at FLOOR, ends at
// native, strictly increases, each step ≤ 2×").
#include "policy/ladder.h"

#include <QtTest>

#include <cstdint>
#include <vector>

using namespace headroom::policy;
using Ladder = std::vector<std::uint32_t>;

class TestPolicyLadder : public QObject {
    Q_OBJECT
private slots:
    void a256kModelClimbsInFourRungsToNative() {
        // 65536, ×1.5 = 98304, ×1.5 = 147456, ×1.5 = 221184; the next, 331776, is not below
        // 262144, so native closes the ladder.
        QCOMPARE(contextLadder(262144), (Ladder{65536, 98304, 147456, 221184, 262144}));
    }

    void aMillionTokenModelClimbsInEightRungs() {
        // 221184 × 1.5 = 331776, × 1.5 = 497664, × 1.5 = 746496; 746496 × 1.5 = 1119744 is not
        // below 1048576, so native closes the ladder.
        QCOMPARE(contextLadder(1048576),
                 (Ladder{65536, 98304, 147456, 221184, 331776, 497664, 746496, 1048576}));
    }

    void a128kModelEndsAtNativeBetweenRungs() {
        // 147456 is not below 131072, so after 98304 the ladder ends at native.
        QCOMPARE(contextLadder(131072), (Ladder{65536, 98304, 131072}));
    }

    void aModelBelowTheFloorHasOnlyItsNativeRung() {
        // 65536 is not below 40960: no floor rung, only native.
        QCOMPARE(contextLadder(40960), (Ladder{40960}));
    }

    void anUnknownNativeContextIsPlannedAtTheFloor() {
        // native 0 = unknown: the floor stands in for native, a one-rung ladder.
        QCOMPARE(contextLadder(0), (Ladder{kFloorWindow}));
    }

    void aNativeContextExactlyOnARungIsNotRepeated() {
        // 147456 is itself a rung; the loop stops before it (not below native) and native is
        // appended once.
        QCOMPARE(contextLadder(147456), (Ladder{65536, 98304, 147456}));
    }

    void everyLadderStartsAtTheFloorEndsAtNativeRisesStrictlyAndNeverMoreThanDoubles() {
        const std::uint64_t natives[] = {65537,  81920,  98304,   100000,  131072,  163840,  200000,
                                         262144, 524288, 1000000, 1048576, 2097152, 10000000};
        for (std::uint64_t native : natives) {
            const Ladder l = contextLadder(native);
            QCOMPARE(l.front(), kFloorWindow);
            QCOMPARE(std::uint64_t(l.back()), native);
            for (std::size_t i = 1; i < l.size(); ++i) {
                QVERIFY2(l[i] > l[i - 1], qPrintable(QString::number(native)));
                QVERIFY2(std::uint64_t(l[i]) <= 2ull * l[i - 1],
                         qPrintable(QString::number(native)));
            }
        }
    }

    void aContextBeyondUint32IsClampedToWhatLlamaCppCanHold() {
        // n_ctx is a uint32_t in llama.cpp, so native 2^40 ends at UINT32_MAX.
        QCOMPARE(contextLadder(std::uint64_t(1) << 40).back(), UINT32_MAX);
    }

    void theNextRungIsTheFirstRungAboveTheCurrentWindow() {
        // ladder(262144) = 65536, 98304, 147456, 221184, 262144.
        QCOMPARE(nextLadderRung(98304, 262144), 147456u);
        // 100000 is between rungs: the next is 147456, not 100000 × 1.5.
        QCOMPARE(nextLadderRung(100000, 262144), 147456u);
        // From 221184 only native remains.
        QCOMPARE(nextLadderRung(221184, 262144), 262144u);
        // At native there is nothing above: native itself.
        QCOMPARE(nextLadderRung(262144, 262144), 262144u);
    }
};

QTEST_APPLESS_MAIN(TestPolicyLadder)
#include "test_policy_ladder.moc"
