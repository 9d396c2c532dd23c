// llama.cpp's --fit, simulated with Headroom's prices (planner/fit_simulation.h): the context it
// would choose for an unset -c, where it gives up, the margin it keeps and the RAM it ignores.
#include "common/plan_helpers.h"
#include "planner/fit_simulation.h"

#include <QtTest>

using namespace headroom;
using namespace headroom::test;

class TestFitSimulation : public QObject {
    Q_OBJECT

private slots:
    // llama8bLike at its trained 131072: 16 GiB of f16 KV (32 x 2 x 1024 x 2 B x 131072) plus
    // 7400 MiB of weights exceed 24 GiB - 1024 MiB, so fit shrinks the unset context, in steps of
    // 256 (one stream), not below -fitc 4096, and keeps every layer on the GPU (one device: step 2
    // ends the fit).
    void anUnsetContextShrinksUntilTheMarginHolds() {
        const HardwareSnapshot hw = snapshotFromSizes({24 * GiB}, 64 * GiB, false);
        const auto s = simulateFit(llama8bLike(), hw, {}, {});
        QVERIFY(s.has_value());
        QVERIFY(s->ctx_unset);
        QCOMPARE(s->ctx_start, 131072u);
        QVERIFY(s->context < 131072u);
        QVERIFY(s->context >= 4096u);
        QCOMPARE(s->context % 256, 0u);
        QCOMPARE(s->gpu_layers, 33u);
        QVERIFY(!s->gave_up);
        QVERIFY(s->devices_fit);
        // 24 GiB free less the default -fitt 1024 MiB.
        QCOMPARE(s->device_targets[0], toSigned(24 * GiB - 1024 * MiB));
    }

    // -c given: fit leaves it ("context size set by user -> no change") and moves layers instead.
    void aGivenContextIsKeptAndLayersMove() {
        const HardwareSnapshot hw = snapshotFromSizes({24 * GiB}, 64 * GiB, false);
        PlanOptions o;
        o.context = 131072;
        const auto s = simulateFit(llama8bLike(), hw, o, {});
        QVERIFY(s.has_value());
        QCOMPARE(s->context, 131072u);
        QVERIFY(s->changed_placement);
        QVERIFY(s->gpu_layers < 33u);
        QVERIFY(s->devices_fit);
    }

    void fitGivesUpOnTheUsersPlacement_data() {
        QTest::addColumn<int>("pin");
        QTest::addColumn<QString>("reason");
        QTest::newRow("-ngl") << 0 << QStringLiteral("n_gpu_layers already set by user");
        QTest::newRow("-ot") << 1 << QStringLiteral("tensor_buft_overrides already set by user");
        QTest::newRow("--n-cpu-moe")
            << 2 << QStringLiteral("tensor_buft_overrides already set by user");
    }
    void fitGivesUpOnTheUsersPlacement() {
        QFETCH(int, pin);
        QFETCH(QString, reason);
        const HardwareSnapshot hw = snapshotFromSizes({24 * GiB}, 64 * GiB, false);
        PlanOptions o;
        if (pin == 0) o.pinned.gpu_layers = GpuLayers::of(20);
        if (pin == 1) o.pinned.tensor_overrides = {{"blk\\.0\\.ffn_up_exps", "CPU"}};
        if (pin == 2) o.pinned.n_cpu_moe = 2;
        const auto s = simulateFit(moeShape(), hw, o, {});
        QVERIFY(s.has_value());
        QVERIFY(s->gave_up);
        QVERIFY(QString::fromStdString(s->give_up_reason).contains(reason));
        QVERIFY(!s->changed_placement);
    }

    // moeShape: 8 GiB of experts. On a 4 GiB card with 4 GiB of RAM fit puts the experts in
    // system RAM as if it were unlimited; the simulation says how far past the RAM that goes.
    void fitIgnoresTheRamItSpillsInto() {
        const HardwareSnapshot hw = snapshotFromSizes({4 * GiB}, 4 * GiB, false);
        PlanOptions o;
        o.context = 8192;
        const auto s = simulateFit(moeShape(), hw, o, {});
        QVERIFY(s.has_value());
        QVERIFY(s->changed_placement);
        QVERIFY(s->n_cpu_moe > 0);
        QVERIFY(s->host_over_ram > 0);
        bool said = false;
        for (const auto& d : s->differences)
            said = said || d.find("fit assumes unlimited RAM") != std::string::npos;
        QVERIFY(said);
    }

    // -np 4 -kvu, -c unset: v0.4.0 starts from 131072 (one KV stream), v0.5.0 from
    // 131072 x 4 = 524288 (common/fit.cpp counts every sequence).
    void theVersionDecidesWhereAnUnsetContextStarts_data() {
        QTest::addColumn<int>("version");
        QTest::addColumn<uint>("start");
        QTest::newRow("v0.4.0") << int(LlamaVersion::V0_4_0) << 131072u;
        QTest::newRow("v0.5.0") << int(LlamaVersion::V0_5_0) << 524288u;
    }
    void theVersionDecidesWhereAnUnsetContextStarts() {
        QFETCH(int, version);
        QFETCH(uint, start);
        PlanOptions o;
        o.n_parallel = 4;
        o.kv_unified = true;
        o.llama_version = static_cast<LlamaVersion>(version);
        const auto s =
            simulateFit(llama8bLike(), snapshotFromSizes({80 * GiB}, 64 * GiB, false), o, {});
        QVERIFY(s.has_value());
        QCOMPARE(s->ctx_start, start);
    }

    // -fitt 2048 on one device: the target is free memory less 2048 MiB.
    void theFitTargetIsTheMarginPerDevice() {
        FitSettings f;
        f.target_mib = {2048};
        const auto s =
            simulateFit(llama8bLike(), snapshotFromSizes({24 * GiB}, 64 * GiB, false), {}, f);
        QVERIFY(s.has_value());
        QCOMPARE(s->device_targets[0], toSigned(24 * GiB - 2048 * MiB));
    }
};

QTEST_APPLESS_MAIN(TestFitSimulation)
#include "test_fit_simulation.moc"
