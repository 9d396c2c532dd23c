// The item models behind the charts and the picker: checked by QAbstractItemModelTester and
// against hand-built plans whose every number is derived below.
#include "catalogmodel.h"
#include "rungmodels.h"

#include "core/catalog.h"
#include "core/planner.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QtTest>

using namespace headroom;
using namespace headroom::ui;

namespace {

// Two rungs on one 24 GiB GPU: 32K resident (chosen), 64K refused.
Plan twoRungPlan() {
    Plan p;
    p.model.id = "test-model";
    p.model.name = "Test Model";
    p.model.source = ShapeSource::Catalog;
    p.hardware = snapshotFromSizes({24 * GiB}, 64 * GiB, false);
    for (std::uint32_t ctx : {32768u, 65536u}) {
        Rung r;
        r.requested_context = ctx;
        r.context = ctx;
        DeviceUse d;
        d.name = "GPU0";
        d.terms.weights = 14 * GiB;
        d.terms.experts = 4 * GiB;
        d.terms.kv_k = ctx / 32768 * GiB; // 1 GiB per 32K tokens, as if a model cost 32 KiB/token
        d.terms.kv_v = ctx / 32768 * GiB;
        d.terms.compute = 512 * MiB;
        d.bytes = d.terms.total();
        d.budget_bytes = 20 * GiB;
        r.devices.push_back(d);
        r.host.weights = 1 * GiB;
        r.host_bytes = r.host.total();
        r.host_budget_bytes = 50 * GiB;
        r.verdict = ctx == 32768 ? Verdict::Resident : Verdict::Refused;
        r.speed.decode_tok_s = ctx == 32768 ? 80 : 70;
        r.speed.prefill_tok_s = ctx == 32768 ? 3000 : 2500;
        r.expert_split.applicable = true;
        r.expert_split.expert_slots = 96;
        r.expert_split.bytes_per_expert = 8 * MiB;
        r.expert_split.pages = 10;
        r.expert_split.bytes_per_page = 64 * MiB;
        r.expert_split.budget_bytes = 2 * GiB;
        p.rungs.push_back(r);
    }
    p.decision.rung_index = 0;
    p.decision.context = 32768;
    return p;
}

} // namespace

class TestRungModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void memoryModelSplitsWeightsFromExpertsPerRung() {
        RungMemoryModel model(0);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPlan(twoRungPlan());
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(RungMemoryModel::ColumnCount));
        // Dense weights = 14 GiB weights - 4 GiB experts = 10 GiB.
        QCOMPARE(model.index(0, RungMemoryModel::Weights).data(BytesRole).toLongLong(),
                 qlonglong(10 * GiB));
        QCOMPARE(model.index(0, RungMemoryModel::Weights).data().toDouble(), 10.0);
        QCOMPARE(model.index(0, RungMemoryModel::Experts).data(BytesRole).toLongLong(),
                 qlonglong(4 * GiB));
        // KV at 64K = 2 GiB K + 2 GiB V = 4 GiB.
        QCOMPARE(model.index(1, RungMemoryModel::Kv).data(BytesRole).toLongLong(),
                 qlonglong(4 * GiB));
        QCOMPARE(model.index(1, RungMemoryModel::Budget).data().toDouble(), 20.0);
        // Used at 32K = 14 weights + 2 KV + 0.5 compute = 16.5 GiB.
        QCOMPARE(model.index(0, RungMemoryModel::Used).data().toDouble(), 16.5);
        QCOMPARE(model.index(1, RungMemoryModel::Index).data().toDouble(), 1.0);
    }

    void memoryModelLabelsMarkTheLaunchWindowAndRefusals() {
        RungMemoryModel model(0);
        model.setPlan(twoRungPlan());
        QCOMPARE(model.index(0, RungMemoryModel::Label).data().toString(), QStringLiteral("▸32K"));
        QCOMPARE(model.index(1, RungMemoryModel::Label).data().toString(), QStringLiteral("64K✕"));
        QVERIFY(model.index(0, 0).data(ChosenRole).toBool());
        QCOMPARE(model.index(1, 0).data(VerdictRole).toString(), QStringLiteral("refused"));
    }

    void hoverTextGivesExactBytesAndWhereTheyCameFrom() {
        RungMemoryModel model(0);
        model.setPlan(twoRungPlan());
        const QString tip =
            model.index(0, RungMemoryModel::Experts).data(Qt::ToolTipRole).toString();
        // 4 GiB = 4294967296 bytes.
        QVERIFY2(tip.contains(QStringLiteral("4,294,967,296 bytes")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("catalog entry")), qPrintable(tip));
    }

    void aNewPlanWithTheSameRungsUpdatesValuesInPlace() {
        RungMemoryModel model(0);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPlan(twoRungPlan());
        Plan next = twoRungPlan();
        next.rungs[1].devices[0].terms.kv_k = 1 * GiB; // q8_0-like: K halves from 2 GiB to 1 GiB
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
        model.setPlan(next);
        QCOMPARE(resets.count(), 0);
        QCOMPARE(changes.count(), 1);
        // KV at 64K = 1 GiB K + 2 GiB V = 3 GiB.
        QCOMPARE(model.index(1, RungMemoryModel::Kv).data(BytesRole).toLongLong(),
                 qlonglong(3 * GiB));
    }

    void hostModelShowsWhatLandsInRam() {
        RungMemoryModel model(RungMemoryModel::kHost);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPlan(twoRungPlan());
        QCOMPARE(model.index(0, RungMemoryModel::Weights).data().toDouble(), 1.0);
        QCOMPARE(model.index(0, RungMemoryModel::Budget).data().toDouble(), 50.0);
        QCOMPARE(model.deviceName(), QStringLiteral("Host RAM"));
    }

    void speedModelGivesDecodeAndPrefillPerRung() {
        SpeedModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPlan(twoRungPlan());
        QCOMPARE(model.index(1, SpeedModel::Decode).data().toDouble(), 70.0);
        QCOMPARE(model.index(0, SpeedModel::Prefill).data().toDouble(), 3000.0);
        QCOMPARE(model.index(1, SpeedModel::X).data().toDouble(), 1.0);
    }

    void theRungTableShowsEverySpeedWithItsRangeAndBasis() {
        // Issue 11: a speed is never shown without its range. Rung 0 decodes at 80 tok/s
        // expected in 60-100, on the basis the tooltip repeats.
        Plan p = twoRungPlan();
        p.rungs[0].speed.decode_low = 60;
        p.rungs[0].speed.decode_high = 100;
        p.rungs[0].speed.decode_basis = "bandwidth-bound, 82 % of 1008 GB/s";
        p.rungs[0].speed.prefill_low = 2000;
        p.rungs[0].speed.prefill_high = 4000;
        RungTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPlan(p);
        int decode = -1, prefill = -1;
        for (int c = 0; c < model.columnCount(); ++c) {
            const QString h = model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
            if (h == QStringLiteral("Decode tok/s")) decode = c;
            if (h == QStringLiteral("Prefill tok/s")) prefill = c;
        }
        QVERIFY(decode >= 0 && prefill >= 0);
        QCOMPARE(model.index(0, decode).data().toString(), QStringLiteral("80.0 (60.0–100.0)"));
        QCOMPARE(model.index(0, prefill).data().toString(), QStringLiteral("3000 (2000–4000)"));
        const QString tip = model.index(0, decode).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("decode 80.0 tok/s (60.0–100.0)")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("82 % of 1008 GB/s")), qPrintable(tip));
        // Sorting stays numeric: the sort role is the point estimate, not the text.
        QCOMPARE(model.index(0, decode).data(SortRole).toDouble(), 80.0);
        // The speed chart's model carries the range its band is drawn from.
        SpeedModel speed;
        speed.setPlan(p);
        QCOMPARE(speed.index(0, SpeedModel::DecodeLow).data().toDouble(), 60.0);
        QCOMPARE(speed.index(0, SpeedModel::DecodeHigh).data().toDouble(), 100.0);
    }

    void expertModelSplitsTheGpuRoomIntoSlotsAndPages() {
        ExpertSplitModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPlan(twoRungPlan());
        QVERIFY(model.applicable());
        // 96 slots x 8 MiB = 768 MiB = 0.75 GiB; 10 pages x 64 MiB = 640 MiB = 0.625 GiB.
        QCOMPARE(model.index(0, ExpertSplitModel::ExpertSlots).data().toDouble(), 0.75);
        QCOMPARE(model.index(0, ExpertSplitModel::KvPages).data().toDouble(), 0.625);
        QCOMPARE(model.index(0, ExpertSplitModel::Budget).data().toDouble(), 2.0);
    }

    void modelsFollowARealPlan() {
        auto catalog = loadBuiltinCatalog();
        QVERIFY2(catalog.has_value(), catalog ? "" : catalog.error().message.c_str());
        auto shape = catalog->shape("qwen3-30b-a3b");
        QVERIFY(shape.has_value());
        auto plan = makePlan(*shape, snapshotFromSizes({24 * GiB}, 64 * GiB, false), PlanOptions{});
        QVERIFY2(plan.has_value(), plan ? "" : plan.error().message.c_str());
        RungMemoryModel gpu(0);
        QAbstractItemModelTester tester(&gpu,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        gpu.setPlan(*plan);
        QCOMPARE(gpu.rowCount(), int(plan->rungs.size()));
        for (int r = 0; r < gpu.rowCount(); ++r) {
            const Terms& t = plan->rungs[size_t(r)].devices[0].terms;
            QCOMPARE(gpu.index(r, RungMemoryModel::Kv).data(BytesRole).toLongLong(),
                     qlonglong(t.kv()));
            QCOMPARE(gpu.index(r, RungMemoryModel::Used).data(BytesRole).toLongLong(),
                     qlonglong(t.total()));
        }
    }

    void theMoeCurveModelHasOnePointPerNCpuMoeValueAtTheLaunchWindow() {
        // Qwen3-30B-A3B has 48 MoE blocks: --n-cpu-moe 0..48 is 49 points, priced at the plan's
        // launch window. Moving a block's experts to RAM frees GPU bytes and costs decode speed
        // (host RAM is slower than VRAM), and every point shows decode inside its range.
        auto catalog = loadBuiltinCatalog();
        QVERIFY(catalog.has_value());
        auto shape = catalog->shape("qwen3-30b-a3b");
        QVERIFY(shape.has_value());
        auto plan = makePlan(*shape, snapshotFromSizes({24 * GiB}, 64 * GiB, false), PlanOptions{});
        QVERIFY(plan.has_value());
        MoeCurveModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPlan(*plan);
        QVERIFY(model.applicable());
        QCOMPARE(model.rowCount(), 0); // priced on refresh(), when the curve is on screen
        model.refresh();
        QCOMPARE(model.context(), plan->decision.context);
        QCOMPARE(model.rowCount(), 49);
        for (int r = 0; r < model.rowCount(); ++r) {
            const auto at = [&](int c) { return model.index(r, c).data().toDouble(); };
            QCOMPARE(at(MoeCurveModel::NCpuMoe), double(r));
            QVERIFY(at(MoeCurveModel::DecodeLow) <= at(MoeCurveModel::Decode));
            QVERIFY(at(MoeCurveModel::Decode) <= at(MoeCurveModel::DecodeHigh));
            if (r == 0) continue;
            const auto before = [&](int c) { return model.index(r - 1, c).data().toDouble(); };
            QVERIFY(at(MoeCurveModel::GpuGiB) <= before(MoeCurveModel::GpuGiB));
            QVERIFY(at(MoeCurveModel::Decode) <= before(MoeCurveModel::Decode));
        }
        QVERIFY(model.index(0, MoeCurveModel::Decode)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("--n-cpu-moe 0")));
        // A dense model has no experts to move: no curve.
        auto dense = catalog->shape("llama-3.1-8b-instruct");
        QVERIFY(dense.has_value());
        auto densePlan =
            makePlan(*dense, snapshotFromSizes({24 * GiB}, 64 * GiB, false), PlanOptions{});
        QVERIFY(densePlan.has_value());
        model.setPlan(*densePlan);
        model.refresh();
        QVERIFY(!model.applicable());
        QCOMPARE(model.rowCount(), 0);
    }

    void catalogModelFillsTheFitColumnOffTheGuiThread() {
        auto catalog = loadBuiltinCatalog();
        QVERIFY(catalog.has_value());
        std::vector<ModelShape> shapes;
        for (const CatalogEntry& e : catalog->entries())
            shapes.push_back(catalogShape(e, e.defaultQuant()));
        CatalogModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setModels(shapes);
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(SortRole);
        QAbstractItemModelTester proxyTester(
            &proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), int(shapes.size()));
        QCOMPARE(model.index(0, CatalogModel::Fit).data().toString(), QStringLiteral("…"));
        QSignalSpy spy(&model, &CatalogModel::fitsUpdated);
        const HardwareSnapshot hw = snapshotFromSizes({24 * GiB}, 64 * GiB, false);
        model.refreshFits(hw, PlanOptions{});
        QVERIFY(spy.wait(60000));
        for (int r = 0; r < model.rowCount(); ++r) {
            // The column says what the planner says about the same model on the same machine.
            const FitSummary expected =
                summarizeFit(defaultPlanFunction(), shapes[size_t(r)], hw, PlanOptions{});
            QCOMPARE(model.fitAt(r).largest_context, expected.largest_context);
            QCOMPARE(model.fitAt(r).standing.largest_resident, expected.standing.largest_resident);
        }
        // Sorting by the fit column, descending, is the catalog command's ranking: no row ranks
        // above the one before it, and the ranking is not one flat tie.
        proxy.sort(CatalogModel::Fit, Qt::DescendingOrder);
        auto standingAt = [&](int proxyRow) {
            return model.fitAt(proxy.mapToSource(proxy.index(proxyRow, 0)).row()).standing;
        };
        int strictSteps = 0;
        for (int r = 1; r < proxy.rowCount(); ++r) {
            QVERIFY2(!ranksAbove(standingAt(r), standingAt(r - 1)), qPrintable(QString::number(r)));
            strictSteps += ranksAbove(standingAt(r - 1), standingAt(r)) ? 1 : 0;
        }
        QVERIFY(strictSteps > 0);
        QCOMPARE(standingAt(0).best, Verdict::Resident);
    }

    void addingAnOpenedFileReplacesTheRowWithTheSameId() {
        CatalogModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        ModelShape a;
        a.id = "/models/a.gguf";
        a.name = "A";
        QCOMPARE(model.addModel(a), 0);
        a.name = "A again";
        QCOMPARE(model.addModel(a), 0);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, CatalogModel::Name).data().toString(), QStringLiteral("A again"));
    }
};

QTEST_MAIN(TestRungModels)
#include "test_rungmodels.moc"
