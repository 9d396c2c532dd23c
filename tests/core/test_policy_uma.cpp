// Unified-memory OS floor (docs/sources.md, Hermes unified memory OS floor).
#include "policy/uma.h"

#include <QtTest>

using namespace headroom;
using namespace headroom::policy;

class TestPolicyUma : public QObject {
    Q_OBJECT
private slots:
    void theOsFloorIsTenPercentOfThePoolBetweenThreeAndSixteenGiB_data() {
        QTest::addColumn<Bytes>("pool");
        QTest::addColumn<Bytes>("floor");
        // 10 % of 16 GiB = 1.6 GiB < 3 GiB → 3 GiB.
        QTest::newRow("16 GiB keeps the 3 GiB minimum") << 16 * GiB << 3 * GiB;
        // 68 719 476 736 / 10 = 6 871 947 673 (6.4 GiB).
        QTest::newRow("64 GiB keeps 10 %") << 64 * GiB << Bytes(6871947673);
        // 137 438 953 472 / 10 = 13 743 895 347 (12.8 GiB).
        QTest::newRow("128 GiB keeps 10 %") << 128 * GiB << Bytes(13743895347);
        // 160 GiB / 10 = 16 GiB exactly: the cap.
        QTest::newRow("160 GiB reaches the 16 GiB cap") << 160 * GiB << 16 * GiB;
        // 10 % would be 25.6 GiB and 102.4 GiB; the cap holds.
        QTest::newRow("256 GiB is capped at 16 GiB") << 256 * GiB << 16 * GiB;
        QTest::newRow("1 TiB is capped at 16 GiB") << 1 * TiB << 16 * GiB;
    }
    void theOsFloorIsTenPercentOfThePoolBetweenThreeAndSixteenGiB() {
        QFETCH(Bytes, pool);
        QFETCH(Bytes, floor);
        QCOMPARE(osFloorBytes(pool), floor);
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
