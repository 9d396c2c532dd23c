// Models as people think of them: one row per model with its quants chosen in a combo, the quants
// compared side by side (size, largest resident rung, decode speed) with the variant policy's
// recommendation marked, a GPU chosen by name that plans as `headroom-cli --gpu NAME` does, and
// a GGUF's sibling quants in the same folder as quants of its row.
#include "catalogmodel.h"
#include "hardwarepanel.h"
#include "mainwindow.h"
#include "modelpicker.h"
#include "quantcompare.h"
#include "ui/ui_test_util.h"
#include "whypanel.h"

#include "common/cli_runner.h"
#include "common/gguf_quants.h"

#include "core/arch/shape_from_catalog.h"
#include "core/catalog.h"
#include "core/gpu_specs.h"
#include "core/plan_json.h"
#include "core/planner.h"
#include "core/policy/variant.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLineEdit>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include <limits>

using namespace headroom;
using namespace headroom::ui;
using namespace headroom::ui::test;

namespace {

const CatalogEntry& entry(const Catalog& c, const char* id) {
    const CatalogEntry* e = c.find(id);
    if (!e) qFatal("no catalog entry %s", id);
    return *e;
}

// The entry's quants as the picker orders them: largest file first.
std::vector<CatalogQuant> quantsLargestFirst(const CatalogEntry& e) {
    std::vector<CatalogQuant> q = e.quants;
    std::stable_sort(q.begin(), q.end(), [](const CatalogQuant& a, const CatalogQuant& b) {
        return a.file_bytes > b.file_bytes;
    });
    return q;
}

Result<Plan> fitPlan(const ModelShape& m, const HardwareSnapshot& hw, PlanOptions o) {
    o.context.reset();
    return makePlan(m, hw, o);
}

} // namespace

class TestQuantPicker : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void everyModelIsOneRowHoldingAllItsQuants() {
        MainWindow w(quietConfig());
        auto catalog = loadBuiltinCatalog();
        QVERIFY(catalog.has_value());
        CatalogModel* cm = w.modelPicker()->catalogModel();
        QAbstractItemModelTester tester(cm, QAbstractItemModelTester::FailureReportingMode::QtTest);
        // One row per catalog entry, however many quants each lists.
        QCOMPARE(size_t(cm->rowCount()), catalog->size());
        QSet<QString> names;
        for (int row = 0; row < cm->rowCount(); ++row)
            names.insert(cm->index(row, CatalogModel::Name).data().toString());
        QCOMPARE(names.size(), cm->rowCount()); // no two rows read alike
        // Qwen3 30B-A3B lists five quants (Q8_0, Q6_K, Q5_K_M, Q4_K_M, Q3_K_S): one row holds
        // them, largest file first, and the default quant (the bare id) is current.
        const CatalogEntry& e = entry(*catalog, "qwen3-30b-a3b");
        QCOMPARE(e.quants.size(), size_t(5));
        const int row = cm->rowOfId(QStringLiteral("qwen3-30b-a3b"));
        QVERIFY(row >= 0);
        QCOMPARE(cm->rowOfId(QStringLiteral("qwen3-30b-a3b:Q8_0")), row);
        const auto want = quantsLargestFirst(e);
        QCOMPARE(cm->quantsAt(row).size(), want.size());
        for (size_t i = 0; i < want.size(); ++i) {
            QCOMPARE(cm->quantsAt(row)[i].quant, want[i].name);
            QCOMPARE(cm->quantsAt(row)[i].file_bytes, want[i].file_bytes);
        }
        QCOMPARE(cm->modelAt(row).id, std::string("qwen3-30b-a3b"));
        QCOMPARE(cm->modelAt(row).quant, e.defaultQuant().name);
    }

    void switchingTheQuantReplansWithThatQuantsSize() {
        MainWindow w(quietConfig());
        w.show();
        machine(w, "24GiB", "64GiB");
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("qwen3-30b-a3b")));
        auto catalog = loadBuiltinCatalog();
        QVERIFY(catalog.has_value());
        const auto quants = quantsLargestFirst(entry(*catalog, "qwen3-30b-a3b"));
        auto* combo = child<QComboBox>(&w, "quantCombo");
        QCOMPARE(combo->count(), 5);
        // The default Q4_K_M is fourth of Q8_0, Q6_K, Q5_K_M, Q4_K_M, Q3_K_S.
        QCOMPARE(combo->currentIndex(), 3);
        const Bytes before = w.controller()->plan()->rungs.front().totals.weights;
        // One key press up picks Q5_K_M (21,740,000,000 bytes in the catalog).
        combo->setFocus();
        QTest::keyClick(combo, Qt::Key_Up);
        QCOMPARE(combo->currentIndex(), 2);
        QCOMPARE(w.controller()->model()->quant, quants[2].name);
        QCOMPARE(w.controller()->plan()->model.file_bytes, Bytes{21'740'000'000});
        QCOMPARE(w.controller()->plan()->model.file_bytes, quants[2].file_bytes);
        // Re-planned with that file: the weights are those of catalogShape(entry, Q5_K_M).
        const ModelShape q5 = catalogShape(entry(*catalog, "qwen3-30b-a3b"), quants[2]);
        const Bytes after = w.controller()->plan()->rungs.front().totals.weights;
        QVERIFY(after > before);
        auto direct = makePlan(q5, w.controller()->hardware(), w.controller()->options());
        QVERIFY(direct.has_value());
        QCOMPARE(after, direct->rungs.front().totals.weights);
        // Still one row, now showing Q5_K_M; the window's model is that quant's shape.
        const int row = w.modelPicker()->catalogModel()->rowOfId(QStringLiteral("qwen3-30b-a3b"));
        QCOMPARE(w.modelPicker()->catalogModel()->modelAt(row).quant, std::string("Q5_K_M"));
    }

    void theComparisonShowsEachQuantsSizeResidentRungAndSpeed() {
        MainWindow w(quietConfig());
        w.show();
        machine(w, "24GiB", "64GiB");
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("qwen3-30b-a3b")));
        QuantCompareModel* cmp = w.modelPicker()->comparisonModel();
        QAbstractItemModelTester tester(cmp,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        // Filled by the debounced refresh after the selection (kFitRefreshDelayMs).
        QTRY_COMPARE_WITH_TIMEOUT(cmp->rowCount(), 5, 10000);
        auto catalog = loadBuiltinCatalog();
        QVERIFY(catalog.has_value());
        const CatalogEntry& e = entry(*catalog, "qwen3-30b-a3b");
        const auto quants = quantsLargestFirst(e);
        const HardwareSnapshot& hw = w.controller()->hardware();
        for (int i = 0; i < 5; ++i) {
            const CatalogQuant& q = quants[size_t(i)];
            // Each figure is the planner's for that quant alone, at its own launch decision.
            auto p = fitPlan(catalogShape(e, q), hw, w.controller()->options());
            QVERIFY(p.has_value());
            std::uint32_t resident = 0;
            for (const Rung& r : p->rungs)
                if (r.verdict == Verdict::Resident)
                    resident = std::max(resident, r.requested_context);
            QVERIFY(cmp->index(i, QuantCompareModel::Quant)
                        .data()
                        .toString()
                        .startsWith(QString::fromStdString(q.name)));
            QCOMPARE(cmp->index(i, QuantCompareModel::Size).data(BytesRole).toULongLong(),
                     qulonglong(q.file_bytes));
            QCOMPARE(
                cmp->index(i, QuantCompareModel::LargestResident).data(ContextRole).toULongLong(),
                qulonglong(resident));
            const QuantComparison& row = cmp->comparison().rows[size_t(i)];
            if (p->decision.refused) {
                QCOMPARE(row.decode_tok_s, 0.0);
            } else {
                QCOMPARE(row.decode_tok_s,
                         p->rungs[size_t(p->decision.rung_index)].speed.decode_tok_s);
                QVERIFY(row.decode_tok_s > 0);
            }
        }
        // Q8_0 is 32,480,000,000 bytes (30.2 GiB): no rung of it is resident on a 24 GiB card,
        // while Q3_K_S (13,292,468,800 bytes, 12.4 GiB) holds some.
        QCOMPARE(cmp->comparison().rows[0].largest_resident, 0u);
        QVERIFY(cmp->comparison().rows[4].largest_resident > 0);
        QCOMPARE(cmp->index(0, QuantCompareModel::LargestResident).data().toString(),
                 QStringLiteral("none"));
    }

    void theRecommendedQuantIsTheVariantPolicys() {
        MainWindow w(quietConfig());
        w.show();
        machine(w, "24GiB", "64GiB");
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("qwen3-30b-a3b")));
        QuantCompareModel* cmp = w.modelPicker()->comparisonModel();
        QTRY_COMPARE_WITH_TIMEOUT(cmp->rowCount(), 5, 10000);
        auto catalog = loadBuiltinCatalog();
        QVERIFY(catalog.has_value());
        const CatalogEntry& e = entry(*catalog, "qwen3-30b-a3b");
        const auto quants = quantsLargestFirst(e);
        // The policy run here on its own: candidates best first, each priced by the planner at
        // the policy's window, the budget the plan's.
        const HardwareSnapshot& hw = w.controller()->hardware();
        std::vector<policy::VariantCandidate> candidates;
        std::vector<ModelShape> shapes;
        candidates.reserve(quants.size());
        shapes.reserve(quants.size());
        for (const CatalogQuant& q : quants) {
            candidates.push_back({q.name, q.file_bytes});
            shapes.push_back(catalogShape(e, q));
        }
        const PlanOptions options = w.controller()->options();
        auto need = [&](std::size_t i, std::uint32_t window) -> Bytes {
            PlanOptions o = options;
            o.context = window;
            auto p = makePlan(shapes[i], hw, o);
            if (p)
                for (const Rung& r : p->rungs)
                    if (r.requested_context == window) return r.totals.total();
            return std::numeric_limits<Bytes>::max();
        };
        const Plan& plan = *w.controller()->plan();
        policy::VariantBudget budget{plan.budget.vramUsable(), plan.budget.ram_usable,
                                     e.n_ctx_train};
        auto choice = policy::selectVariant(candidates, need, budget);
        QVERIFY(choice && *choice);
        QCOMPARE(cmp->comparison().recommended, int((*choice)->index));
        // Trained to 40,960 tokens, the policy's target and floor are both 40K. The f16 KV of
        // 48 layers × 4 KV heads × 128 × 2 (K, V) × 2 bytes is 96 KiB a token, 3.75 GiB at 40K:
        // Q6_K (23.4 GiB) and Q5_K_M (20.2 GiB) with it pass 24 GiB, Q4_K_M (17.3 GiB) does not —
        // the best quant this card holds at 40K.
        QCOMPARE(quants[size_t(cmp->comparison().recommended)].name, std::string("Q4_K_M"));
        QCOMPARE(cmp->comparison().reason, QStringLiteral("best-large-window"));
        // Marked in the table and in the quant combo.
        for (int i = 0; i < 5; ++i)
            QCOMPARE(cmp->index(i, QuantCompareModel::Quant).data().toString().contains(u'★'),
                     i == 3);
        auto* combo = child<QComboBox>(&w, "quantCombo");
        QVERIFY2(combo->itemText(3).contains(QStringLiteral("recommended")),
                 qPrintable(combo->itemText(3)));
        QVERIFY(!combo->itemText(0).contains(QStringLiteral("recommended")));
    }

    void aGpuChosenByNamePlansAsTheCliGpuFlag() {
        MainWindow w(quietConfig());
        w.show();
        typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("64GiB"));
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("qwen3-30b-a3b")));
        // The RTX 4060 Ti of the GPU table, by the full name the list shows.
        const auto spec = gpuSpecByName("RTX 4060 Ti");
        QVERIFY(spec.has_value());
        auto* gpus = child<QComboBox>(&w, "gpuCombo");
        const int index = gpus->findData(QString::fromLatin1(spec->full_name));
        QVERIFY(index > 0);
        gpus->setCurrentIndex(index);
        QVERIFY(w.hardwarePanel()->selectGpu(QString::fromLatin1(spec->full_name)));
        const HardwareSnapshot& hw = w.controller()->hardware();
        QCOMPARE(hw.gpus.size(), size_t(1));
        QCOMPARE(hw.ram_total, 64 * GiB);
        QCOMPARE(hw.gpus[0].bandwidth_gbs, spec->bandwidth_gbs); // known, so speed is estimated
        QCOMPARE(hw.gpus[0].fp16_tflops, spec->fp16_tflops);
        const auto cli = headroom::test::runCli(
            {QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("qwen3-30b-a3b"),
             QStringLiteral("--gpu"), QStringLiteral("RTX 4060 Ti"), QStringLiteral("--ram"),
             QStringLiteral("64GiB"), QStringLiteral("--json")});
        QVERIFY2(cli.code == 0, cli.err.constData());
        const auto want = nlohmann::json::parse(cli.out.toStdString());
        const auto got = planToJson(*w.controller()->plan());
        QCOMPARE(QString::fromStdString(got.at("hardware").dump()),
                 QString::fromStdString(want.at("hardware").dump()));
        QCOMPARE(QString::fromStdString(got.at("rungs").dump()),
                 QString::fromStdString(want.at("rungs").dump()));
        QCOMPARE(QString::fromStdString(got.at("decision").dump()),
                 QString::fromStdString(want.at("decision").dump()));
    }

    void aGgufWithSiblingQuantsIsOneRowAndItsSmallerQuantRemedyStaysInIt() {
        QTemporaryDir dir;
        const QString q8 = dir.filePath(QStringLiteral("Sibling-2B-Q8_0.gguf"));
        const QString q6 = dir.filePath(QStringLiteral("Sibling-2B-Q6_K.gguf"));
        const QString q4 = dir.filePath(QStringLiteral("Sibling-2B-Q4_0.gguf"));
        // llama.h llama_ftype: 7 Q8_0, 18 Q6_K, 2 Q4_0.
        QVERIFY(headroom::test::quantOfTestModel(GgmlType::Q8_0, 7).write(q8.toStdString()));
        const GgufWriter w6 = headroom::test::quantOfTestModel(GgmlType::Q6_K, 18);
        QVERIFY(w6.write(q6.toStdString()));
        QVERIFY(headroom::test::quantOfTestModel(GgmlType::Q4_0, 2).write(q4.toStdString()));
        MainWindow w(quietConfig());
        w.show();
        // A 4.5 GiB card keeps max(2 GiB, 9 %) = 2 GiB in reserve: 2.5 GiB usable. At 8K the
        // GPU holds the blocks and output (the weights less token_embd, which stays on the CPU),
        // 0.25 GiB of f16 KV (8 layers × 2 × 1024 × 2 bytes × 8192), 0.12 GiB of compute and
        // 0.39 GiB of runtime overhead: ≈ 2.61 GiB at Q8_0 (≈ 1.99 GiB file, 34 bytes per 32
        // weights) — it spills — and ≈ 2.19 GiB at Q6_K (≈ 1.53 GiB, 210 bytes per 256) — it is
        // resident.
        machine(w, "4.5GiB", "16GiB");
        CatalogModel* cm = w.modelPicker()->catalogModel();
        const int rows = cm->rowCount();
        QSignalSpy spy(w.controller(), &PlanController::modelChanged);
        w.openModelFile(q8);
        QVERIFY(spy.wait(10000));
        // One new row holding the three files, the opened one current.
        QCOMPARE(cm->rowCount(), rows + 1);
        const int row = cm->rowOfId(q8);
        QCOMPARE(cm->quantsAt(row).size(), size_t(3));
        QCOMPARE(cm->rowOfId(q6), row);
        QCOMPARE(cm->modelAt(row).quant, std::string("Q8_0"));
        // A context target for this model (its trained 8192), kept across its quants.
        typeInto(child<QLineEdit>(&w, "contextEdit"), QStringLiteral("8192"));
        // Opening a sibling file keeps the one row and makes it current.
        w.openModelFile(q6);
        QVERIFY(spy.wait(10000));
        QCOMPARE(cm->rowCount(), rows + 1);
        QCOMPARE(cm->modelAt(row).quant, std::string("Q6_K"));
        QCOMPARE(w.controller()->plan()->model.file_bytes, w6.fileSize());
        QCOMPARE(w.controller()->options().context.value_or(0), 8192u); // the model's target
        // Back to Q8_0 through the combo (largest first: Q8_0, Q6_K, Q4_0).
        QVERIFY(w.modelPicker()->selectQuant(0));
        const Plan& plan = *w.controller()->plan();
        const Rung* rung = nullptr;
        for (const Rung& r : plan.rungs)
            if (r.requested_context == 8192) rung = &r;
        QVERIFY(rung);
        QVERIFY(rung->verdict != Verdict::Resident);
        const auto& remedies = rung->refusal ? rung->refusal->remedies : rung->spill_remedies;
        bool offered = false;
        for (const Remedy& m : remedies)
            offered = offered || (m.kind == RemedyKind::SmallerQuant &&
                                  m.model_ref == q6.toStdString() && m.fixes);
        QString seen; // the remedies offered, for the failure message
        for (const Remedy& m : remedies)
            seen += qs(m.label) + QStringLiteral("; ");
        QVERIFY2(offered, qPrintable(seen));
        // Applied as the why panel applies a smaller-quant remedy (its button exists for a
        // refused rung; this one spills): the window switches to the Q6_K file in the same row,
        // at the same 8K target, and the rung runs resident.
        const PlanOptions options = plan.options; // a copy: the plan is replaced on the way
        Q_EMIT w.whyPanel()->quantChosen(q6, options);
        QCOMPARE(cm->rowCount(), rows + 1);
        QCOMPARE(w.controller()->model()->id, q6.toStdString());
        QCOMPARE(w.controller()->options().context.value_or(0), 8192u);
        bool resident = false;
        for (const Rung& r : w.controller()->plan()->rungs)
            if (r.requested_context == 8192) resident = r.verdict == Verdict::Resident;
        QVERIFY(resident);
    }
};

QTEST_MAIN(TestQuantPicker)
#include "test_quant_picker.moc"
