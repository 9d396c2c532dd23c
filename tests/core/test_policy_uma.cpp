// Unified-memory OS floor (docs/sources.md, Hermes unified memory OS floor).
#include "policy/uma.h"

#include <QtTest>

using namespace headroom;
using namespace headroom::policy;

class TestPolicyUma : public QObject {
    Q_OBJECT
private slots:
    void a16GiBMachineKeepsTheThreeGiBMinimum() {
        // 10 % of 16 GiB = 1.6 GiB < 3 GiB → 3 GiB.
        QCOMPARE(osFloorBytes(16 * GiB), 3 * GiB);
    }

    void a64GiBMachineKeepsTenPercent() {
        // 68 719 476 736 / 10 = 6 871 947 673 (6.4 GiB).
        QCOMPARE(osFloorBytes(64 * GiB), Bytes(6871947673));
    }

    void a128GiBMachineKeepsTenPercent() {
        // 137 438 953 472 / 10 = 13 743 895 347 (12.8 GiB).
        QCOMPARE(osFloorBytes(128 * GiB), Bytes(13743895347));
    }

    void from160GiBUpTheFloorIsCappedAt16GiB() {
        // 160 GiB / 10 = 16 GiB exactly; 256 GiB and 1 TiB would be 25.6 and 102.4 GiB.
        QCOMPARE(osFloorBytes(160 * GiB), 16 * GiB);
        QCOMPARE(osFloorBytes(256 * GiB), 16 * GiB);
        QCOMPARE(osFloorBytes(1 * TiB), 16 * GiB);
    }

    void a240GiBModelRunsOnA256GiBMachineBecauseOfTheCap() {
        // 256 − 240 = 16 GiB left = the capped floor → allowed. Uncapped, 10 % = 25.6 GiB would
        // have refused it.
        const OsFloorCheck c = checkOsFloor(256 * GiB, 240 * GiB);
        QVERIFY(c.ok);
        QCOMPARE(c.left, SignedBytes(16 * GiB));
        QVERIFY(Bytes(c.left) < (256 * GiB) / 10);
        // One byte more and the OS would be left under its floor.
        QVERIFY(!checkOsFloor(256 * GiB, 240 * GiB + 1).ok);
    }

    void aPlanLeavingLessThanTheFloorIsRefused() {
        // 64 GiB pool, 58 GiB needed: 6 GiB left < 6.4 GiB floor.
        const OsFloorCheck c = checkOsFloor(64 * GiB, 58 * GiB);
        QVERIFY(!c.ok);
        QCOMPARE(c.floor, Bytes(6871947673));
        QCOMPARE(c.left, SignedBytes(6 * GiB));
    }

    void aPlanLargerThanThePoolLeavesANegativeRemainderNotAWrappedOne() {
        const OsFloorCheck c = checkOsFloor(16 * GiB, 20 * GiB);
        QVERIFY(!c.ok);
        QCOMPARE(c.left, -SignedBytes(4 * GiB));
    }
};

QTEST_APPLESS_MAIN(TestPolicyUma)
#include "test_policy_uma.moc"
