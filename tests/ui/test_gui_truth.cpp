// What the window says must be true, and reachable from the keyboard: a context refusal counts
// tokens, the charts' legend lists what is drawn, hover shows exact bytes and survives the view's
// own tooltip event, the numbers table is the plan's and copies as TSV, the machine's label
// changes only on a real edit, a context target belongs to its model, opened files get a fit,
// an invalid option combination is explained where the charts were, verdicts are drawn on the
// bars under an axis that keeps its labels, and mnemonics and chart tabs work from the keyboard.
#include "catalogmodel.h"
#include "charts/chartspanel.h"
#include "exportpanel.h"
#include "hardwarepanel.h"
#include "mainwindow.h"
#include "modelpicker.h"
#include "optionspanel.h"
#include "rungmodels.h"
#include "ui/ui_test_util.h"
#include "whypanel.h"

#include "common/test_shapes.h"
#include "core/catalog.h"
#include "core/gguf/gguf_writer.h"
#include "core/launch/llama_version.h"
#include "core/planner.h"
#include "core/policy/speed.h"
#include "core/units.h"

#include <QAbstractButton>
#include <QAbstractScrollArea>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolTip>
#include <QtTest>

using namespace headroom;
using namespace headroom::ui;
using namespace headroom::ui::test;

namespace {

// Llama 3.1 8B (catalog) with one nextn block appended (32 + 1 layers): a model with an MTP head.
// `as_gguf`: the block as GGUF→shape describes a non-hybrid architecture's nextn block, outside
// the main cache in the default profile (ModelShape::nextn_default_filter).
ModelShape llamaWithMtpHead(bool as_gguf) {
    auto catalog = loadBuiltinCatalog();
    if (!catalog) qFatal("catalog: %s", catalog.error().message.c_str());
    const CatalogEntry* e = catalog->find("llama-3.1-8b-instruct");
    if (!e) qFatal("llama-3.1-8b-instruct is not in the catalog");
    ModelShape m = catalogShape(*e, e->defaultQuant());
    LayerShape head = m.layers.back();
    head.is_mtp = true;
    head.in_main_cache = !as_gguf && head.in_main_cache;
    m.layers.push_back(head);
    m.n_mtp_layers = 1;
    m.architecture = headroom::test::kMtpArchitecture;
    m.nextn_default_filter = as_gguf;
    return m;
}

} // namespace

class TestGuiTruth : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void aContextRefusalCountsTokensNotBytes() {
        MainWindow w(quietConfig());
        w.show();
        machine(w, "24GiB", "64GiB");
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("qwen3-32b")));
        // Qwen3-32B is trained to 40960 tokens (catalog); -c 131072 is 90112 = 88K past it.
        typeInto(child<QLineEdit>(&w, "contextEdit"), QStringLiteral("131072"));
        const Plan& plan = *w.controller()->plan();
        const Rung& rung = plan.rungs[size_t(w.whyPanel()->selectedRung())];
        QVERIFY(rung.refusal);
        QCOMPARE(rung.refusal->code, RefusalCode::ContextTooLong);
        const QString numbers = w.whyPanel()->numbersText();
        QVERIFY2(numbers.contains(QStringLiteral("needed 128K tokens")), qPrintable(numbers));
        QVERIFY2(numbers.contains(QStringLiteral("available 40K tokens")), qPrintable(numbers));
        QVERIFY2(numbers.contains(QStringLiteral("shortfall 88K tokens")), qPrintable(numbers));
        QVERIFY2(!numbers.contains(QStringLiteral("KiB")), qPrintable(numbers));
    }

    // Qwen3-32B at 128K on 16 GiB VRAM + 32 GiB RAM is blocked twice: its KV (f16, 32 GiB at
    // 131072 tokens: 64 layers × 8 KV heads × 128 × 2 B × 2 (K and V) × 131072) does not fit the
    // 46 GiB usable beside 18.4 GiB of weights, and 128K is past its 40K trained context. The
    // window names both; q4_0 KV alone is not ticked; the first remedy is ticked and, clicked,
    // the 128K rung runs.
    void aRefusalBlockedTwiceNamesBothAndItsTickedRemedyRuns() {
        MainWindow w(quietConfig());
        w.show();
        machine(w, "16GiB", "32GiB");
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("qwen3-32b")));
        typeInto(child<QLineEdit>(&w, "contextEdit"), QStringLiteral("131072"));
        const Rung& rung = w.controller()->plan()->rungs[size_t(w.whyPanel()->selectedRung())];
        QCOMPARE(rung.requested_context, 131072u);
        QVERIFY(rung.refusal);
        QCOMPARE(rung.refusal->reasons.size(), size_t(2));
        const QString numbers = w.whyPanel()->numbersText();
        QVERIFY2(numbers.contains(QStringLiteral("2 reasons block it")), qPrintable(numbers));
        QVERIFY2(numbers.contains(QStringLiteral("trained context")), qPrintable(numbers));
        for (size_t i = 0; i < rung.refusal->remedies.size(); ++i) {
            const Remedy& m = rung.refusal->remedies[i];
            const QString text =
                child<QPushButton>(&w, qPrintable(QStringLiteral("remedyButton%1").arg(i)))->text();
            QCOMPARE(text.contains(QStringLiteral("✓")), m.fixes);
            if (m.kind == RemedyKind::KvCacheQ4) {
                QVERIFY(!m.fixes);
                QVERIFY2(text.contains(QStringLiteral("still: past the trained context")),
                         qPrintable(text));
            }
        }
        QVERIFY(rung.refusal->remedies.front().fixes);
        QTest::mouseClick(child<QPushButton>(&w, "remedyButton0"), Qt::LeftButton);
        const Plan& after = *w.controller()->plan();
        const auto it = std::find_if(after.rungs.begin(), after.rungs.end(),
                                     [](const Rung& r) { return r.requested_context == 131072; });
        QVERIFY(it != after.rungs.end());
        QVERIFY(it->verdict != Verdict::Refused);
    }

    // Qwen3-30B-A3B Q4_K_M needs 21.8 GiB at its 40K rung; 4 GiB VRAM + 16 GiB RAM leaves
    // 18 GiB usable (the CLI's vram+ram figure). The catalog's next smaller quant, Q3_K_S, is a
    // 4.90 GiB smaller file: the remedy names it, is ticked, and clicking it switches to it.
    void aSmallerQuantRemedySwitchesToThatQuant() {
        MainWindow w(quietConfig());
        w.show();
        machine(w, "4GiB", "16GiB");
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("qwen3-30b-a3b")));
        const Plan& plan = *w.controller()->plan();
        QVERIFY(plan.decision.refused);
        const Rung& rung = plan.rungs[size_t(w.whyPanel()->selectedRung())];
        QVERIFY(rung.refusal);
        int index = -1;
        for (size_t i = 0; i < rung.refusal->remedies.size(); ++i)
            if (rung.refusal->remedies[i].kind == RemedyKind::SmallerQuant) index = int(i);
        QVERIFY(index >= 0);
        const Remedy& m = rung.refusal->remedies[size_t(index)];
        QCOMPARE(m.model_ref, std::string("qwen3-30b-a3b:Q3_K_S"));
        QVERIFY(m.fixes);
        QTest::mouseClick(
            child<QPushButton>(&w, qPrintable(QStringLiteral("remedyButton%1").arg(index))),
            Qt::LeftButton);
        QCOMPARE(w.controller()->model()->quant, std::string("Q3_K_S"));
        QVERIFY(!w.controller()->plan()->decision.refused);
    }

    void niceTickSteps_data() {
        QTest::addColumn<double>("top");
        QTest::addColumn<double>("step");
        // top / 5 ticks, rounded up to 1, 2, 2.5 or 5 × 10^n:
        QTest::newRow("22.1 GiB: 4.42 -> 5") << 22.1 << 5.0;
        QTest::newRow("189 GiB: 37.8 -> 50") << 189.0 << 50.0;
        QTest::newRow("16.6 GiB: 3.32 -> 5") << 16.6 << 5.0;
        QTest::newRow("11 GiB: 2.2 -> 2.5") << 11.0 << 2.5;
        QTest::newRow("9 GiB: 1.8 -> 2") << 9.0 << 2.0;
        QTest::newRow("0.3 GiB: 0.06 -> 0.1") << 0.3 << 0.1;
        QTest::newRow("5 GiB: exactly 1") << 5.0 << 1.0;
        QTest::newRow("nothing: 1") << 0.0 << 1.0;
    }
    void niceTickSteps() {
        QFETCH(double, top);
        QFETCH(double, step);
        QVERIFY(qFuzzyCompare(niceTickStep(top), step));
    }

    void theLegendListsEveryDrawnTermAndHoverShowsExactBytes() {
        MainWindow w(quietConfig());
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        machine(w, "24GiB", "64GiB");
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("qwen3-30b-a3b")));
        ChartsPanel* charts = w.chartsPanel();
        const QStringList legend = charts->legendEntries();
        // Every term with bytes on some rung of some chart is listed, and none without.
        for (int c = RungMemoryModel::Weights; c <= RungMemoryModel::LastTerm; ++c) {
            bool drawn = false;
            for (int m = 0; m < charts->memoryModelCount(); ++m)
                for (int r = 0; r < charts->memoryModel(m)->rowCount(); ++r)
                    drawn = drawn || charts->memoryModel(m)->cellBytes(r, c) > 0;
            QCOMPARE(legend.contains(RungMemoryModel::columnName(c)), drawn);
        }
        QVERIFY(legend.contains(QStringLiteral("Experts"))); // a MoE on a 24 GiB card
        QVERIFY(legend.contains(QStringLiteral("Budget")));

        // Hover on the KV segment of rung 0 of GPU0: the exact byte count.
        RungMemoryModel* gpu = charts->memoryModel(0);
        const qlonglong kv = gpu->index(0, RungMemoryModel::Kv).data(BytesRole).toLongLong();
        charts->showHover(gpu, 0, RungMemoryModel::Kv, true);
        const QString exact = QLocale(QLocale::English).toString(kv) + QStringLiteral(" bytes");
        QVERIFY2(charts->hoverText().contains(exact), qPrintable(charts->hoverText()));
        // The view's own tooltip event (the mouse resting) keeps showing it.
        auto* view = w.findChild<QAbstractScrollArea*>(QStringLiteral("gpu0MemoryChart"));
        QVERIFY(view);
        QHelpEvent help(QEvent::ToolTip, QPoint(10, 10),
                        view->viewport()->mapToGlobal(QPoint(10, 10)));
        QVERIFY(QCoreApplication::sendEvent(view->viewport(), &help));
        QCOMPARE(QToolTip::text(), charts->hoverText());
        charts->showHover(gpu, 0, RungMemoryModel::Kv, false);
        QVERIFY(charts->hoverText().isEmpty());
    }

    void aBudgetIsALineEvenForASingleRung() {
        MainWindow w(quietConfig());
        w.show();
        machine(w, "16GiB", "64GiB");
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("llama-3.1-8b-instruct")));
        const QList<QPointF> budget = w.chartsPanel()->budgetLinePoints(0);
        RungMemoryModel* gpu = w.chartsPanel()->memoryModel(0);
        // Two points per rung, across its slot from x - 0.5 to x + 0.5: a rung alone is a line.
        QCOMPARE(budget.size(), 2 * gpu->rowCount());
        for (int r = 0; r < gpu->rowCount(); ++r) {
            const double gib = gpu->index(r, RungMemoryModel::Budget).data().toDouble();
            QCOMPARE(budget.at(2 * r), QPointF(r - 0.5, gib));
            QCOMPARE(budget.at(2 * r + 1), QPointF(r + 0.5, gib));
        }
    }

    // The verdicts are drawn on the bars (refused rungs faded, a marker on the launch window's
    // bar) while the axis keeps the bare contexts: a category label that changed with the verdict
    // relaid the whole chart out on every option change that moved a verdict.
    void verdictsAreDrawnOnTheBarsAndTheAxisKeepsTheContexts() {
        MainWindow w(quietConfig());
        w.show();
        // 16 GiB of VRAM and 16 of RAM: an 8B Q4 (~5 GiB of weights) with a 16 GiB f16 KV cache
        // at 128K (~22 GiB in all) spills into RAM; with 12 GiB of the GPU kept free (4 + 16 <
        // 22) that rung is refused, so the two plans' verdicts differ (checked below) while
        // their rungs do not.
        machine(w, "16GiB", "16GiB");
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("llama-3.1-8b-instruct")));
        ChartsPanel* charts = w.chartsPanel();
        auto* reserve = child<QDoubleSpinBox>(&w, "reserveSpin");
        QList<int> fadedBefore;
        QStringList labelsBefore;
        for (double gib : {0.0, 12.0}) {
            reserve->setValue(gib);
            const Plan* plan = w.controller()->plan();
            QVERIFY(plan);
            RungMemoryModel* gpu = charts->memoryModel(0);
            QStringList labels;
            QList<int> refused;
            for (int r = 0; r < int(plan->rungs.size()); ++r) {
                labels << tokensText(plan->rungs[size_t(r)].context);
                if (plan->rungs[size_t(r)].verdict == Verdict::Refused) refused << r;
            }
            QCOMPARE(charts->categoryLabels(0), labels);
            QCOMPARE(charts->fadedRows(0), refused);
            // The marker sits on top of the launch window's bar: x its row, y the sum of its
            // terms (GiB, as the bars are drawn); none when every rung is refused.
            QList<QPointF> marker;
            if (!plan->decision.refused) {
                const int row = plan->decision.rung_index;
                double top = 0;
                for (int c = RungMemoryModel::Weights; c <= RungMemoryModel::LastTerm; ++c)
                    top += gpu->index(row, c).data().toDouble();
                marker << QPointF(row, top);
            }
            QCOMPARE(charts->launchMarkerPoints(0), marker);
            if (gib == 0.0) {
                fadedBefore = charts->fadedRows(0);
                labelsBefore = charts->categoryLabels(0);
            }
        }
        QVERIFY(charts->fadedRows(0) != fadedBefore);      // the verdicts moved...
        QCOMPARE(charts->categoryLabels(0), labelsBefore); // ...the axis did not
    }

    // Without a mouse: the chart tabs are a focus stop whose arrows switch charts, and the
    // numbers table (the keyboard's way to the rungs) has its own mnemonic.
    void theChartTabsAreReachableFromTheKeyboard() {
        MainWindow w(quietConfig());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QApplication::setActiveWindow(&w);
        machine(w, "16GiB", "64GiB");
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("qwen3-30b-a3b")));
        auto* tabs = child<QTabWidget>(&w, "chartTabs");
        QTabBar* bar = tabs->tabBar();
        QVERIFY(bar->focusPolicy() & Qt::TabFocus);
        tabs->setCurrentIndex(0);
        bar->setFocus(Qt::TabFocusReason);
        QTest::keyClick(bar, Qt::Key_Right);
        QCOMPARE(tabs->currentIndex(), 1);
        QTest::keyClick(&w, Qt::Key_T, Qt::AltModifier);
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(w.chartsPanel()->table()));
    }

    void theNumbersTableIsThePlanAndCopiesAsTsv() {
        MainWindow w(quietConfig());
        w.show();
        machine(w, "16GiB", "64GiB");
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("llama-3.3-70b-instruct")));
        const Plan plan = *w.controller()->plan();
        QTableView* table = w.chartsPanel()->table();
        QAbstractItemModel* m = table->model();
        QCOMPARE(m->rowCount(), int(plan.rungs.size()));
        int kvColumn = -1, decodeColumn = -1;
        for (int c = 0; c < m->columnCount(); ++c) {
            const QString h = m->headerData(c, Qt::Horizontal).toString();
            if (h ==
                QStringLiteral("%1 KV cache (GiB)").arg(qs(plan.rungs.front().devices[0].name)))
                kvColumn = c;
            if (h == QStringLiteral("Decode tok/s")) decodeColumn = c;
        }
        QVERIFY(kvColumn >= 0 && decodeColumn >= 0);
        // Sorting by KV descending puts the largest rung first (KV grows with context).
        table->sortByColumn(kvColumn, Qt::DescendingOrder);
        QCOMPARE(m->index(0, kvColumn).data(BytesRole).toLongLong(),
                 qlonglong(plan.rungs.back().devices[0].terms.kv()));
        table->selectAll();
        const QString tsv = selectionAsTsv(table);
        const QStringList lines = tsv.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 1 + int(plan.rungs.size())); // header + one line per rung
        QCOMPARE(lines.front().split(QLatin1Char('\t')).size(), m->columnCount());
        // Ctrl+C on the table (its tab shown) puts the same text on the clipboard.
        auto* tabs = child<QTabWidget>(&w, "chartTabs");
        tabs->setCurrentWidget(table);
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        table->setFocus();
        QTest::keyClick(table, Qt::Key_C, Qt::ControlModifier);
        QCOMPARE(QGuiApplication::clipboard()->text(), tsv);
        // Without a mouse: Enter on a row explains that rung (sorted by KV descending, the
        // first row is the last rung of the plan).
        table->setCurrentIndex(m->index(0, 0));
        QTest::keyClick(table, Qt::Key_Return);
        QCOMPARE(w.whyPanel()->selectedRung(), int(plan.rungs.size()) - 1);
    }

    void tabbingThroughTheFiguresDoesNotRelabelTheMachine() {
        MainWindow w(quietConfig());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.hardwarePanel()->selectPreset(QStringLiteral("rtx-4090")));
        const std::string label = w.controller()->hardware().label;
        QCOMPARE(w.hardwarePanel()->presetText(), QStringLiteral("RTX 4090 24 GB + 64 GB DDR5"));
        auto* vram = child<QLineEdit>(&w, "vramEdit");
        auto* ram = child<QLineEdit>(&w, "ramEdit");
        vram->setFocus();
        QTest::keyClick(vram, Qt::Key_Tab); // leaves VRAM unchanged
        ram->setFocus();
        QTest::keyClick(ram, Qt::Key_Tab);
        QCOMPARE(w.controller()->hardware().label, label);
        QCOMPARE(w.hardwarePanel()->presetText(), QStringLiteral("RTX 4090 24 GB + 64 GB DDR5"));
        // A real edit is a different machine: "Custom".
        typeInto(ram, QStringLiteral("32GiB"));
        QCOMPARE(w.controller()->hardware().ram_total, 32 * GiB);
        QCOMPARE(w.hardwarePanel()->presetText(), QStringLiteral("Custom"));
    }

    void aGpuIsChosenByNameAndBringsItsFigures() {
        MainWindow w(quietConfig());
        w.show();
        QVERIFY(w.hardwarePanel()->selectPreset(QStringLiteral("rtx-4090")));
        auto* gpus = child<QComboBox>(&w, "gpuCombo");
        QVERIFY(gpus->count() > 5); // the presets' discrete GPUs, each once
        // Pick another card from the list with the keyboard.
        const int pick = gpus->findData(QStringLiteral("RTX 4090")) == 1 ? 2 : 1;
        const QString name = gpus->itemData(pick).toString();
        gpus->setFocus();
        gpus->setCurrentIndex(pick);
        QVERIFY(w.hardwarePanel()->selectGpu(name));
        const HardwareSnapshot& hw = w.controller()->hardware();
        QCOMPARE(hw.gpus.size(), size_t(1));
        QCOMPARE(qs(hw.gpus[0].name), name);
        QVERIFY(hw.gpus[0].bandwidth_gbs > 0); // known bandwidth, so speed is estimated
        QCOMPARE(hw.ram_total, 64 * GiB);      // the RTX 4090 preset's RAM stays
        QCOMPARE(w.hardwarePanel()->presetText(), QStringLiteral("Custom"));
        QCOMPARE(gpus->currentData().toString(), name);
        // Typed GiB still work and replace the size.
        typeInto(child<QLineEdit>(&w, "vramEdit"), QStringLiteral("10GiB"));
        QCOMPARE(w.controller()->hardware().gpus.at(0).total_bytes, 10 * GiB);
    }

    void aProbedMachineIsNamedInThePresetCombo() {
        MainWindowConfig c = quietConfig();
        c.probe_program = QStringLiteral(HEADROOM_BIN_DIR "/headroom-cli");
        c.probe_arguments = {QStringLiteral("probe"), QStringLiteral("--json")};
        MainWindow w(c);
        QVERIFY(w.hardwarePanel()->selectPreset(QStringLiteral("rtx-4090")));
        QSignalSpy done(w.hardwarePanel(), &HardwarePanel::snapshotChanged);
        w.hardwarePanel()->startProbe();
        QVERIFY(done.wait(60000));
        QVERIFY2(w.hardwarePanel()->presetText().startsWith(QStringLiteral("Probed: ")),
                 qPrintable(w.hardwarePanel()->presetText()));
    }

    void aContextTargetBelongsToItsModel() {
        MainWindow w(quietConfig());
        w.show();
        machine(w, "24GiB", "64GiB");
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("llama-3.1-8b-instruct")));
        typeInto(child<QLineEdit>(&w, "contextEdit"), QStringLiteral("131072"));
        QCOMPARE(w.controller()->options().context.value_or(0), 131072u);
        // Qwen3-14B is trained to 40K: 128K chosen for Llama must not follow it there.
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("qwen3-14b")));
        QVERIFY(!w.controller()->options().context.has_value());
        QVERIFY(!w.controller()->plan()->decision.refused);
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("llama-3.1-8b-instruct")));
        QCOMPARE(w.controller()->options().context.value_or(0), 131072u);
        QCOMPARE(w.optionsPanel()->options().context.value_or(0), 131072u);
    }

    void anOpenedGgufGetsItsFitWithoutAnOptionChange() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("tiny-llama.gguf"));
        // A two-block llama: 256 wide, 4 heads of 64, 2 KV heads, 8K trained context.
        GgufWriter g;
        g.set("general.architecture", GgufValue::string("llama"));
        g.set("general.name", GgufValue::string("Tiny Llama"));
        g.set("llama.context_length", GgufValue::u32(8192));
        g.set("llama.embedding_length", GgufValue::u32(256));
        g.set("llama.block_count", GgufValue::u32(2));
        g.set("llama.feed_forward_length", GgufValue::u32(512));
        g.set("llama.attention.head_count", GgufValue::u32(4));
        g.set("llama.attention.head_count_kv", GgufValue::u32(2));
        g.addTensor("token_embd.weight", {256, 1000}, GgmlType::F16);
        for (int b = 0; b < 2; ++b) {
            const std::string blk = "blk." + std::to_string(b) + ".";
            g.addTensor(blk + "attn_q.weight", {256, 256}, GgmlType::F16);
            g.addTensor(blk + "attn_k.weight", {256, 128}, GgmlType::F16);
            g.addTensor(blk + "attn_v.weight", {256, 128}, GgmlType::F16);
            g.addTensor(blk + "attn_output.weight", {256, 256}, GgmlType::F16);
            g.addTensor(blk + "ffn_up.weight", {256, 512}, GgmlType::F16);
            g.addTensor(blk + "ffn_down.weight", {512, 256}, GgmlType::F16);
        }
        g.addTensor("output.weight", {256, 1000}, GgmlType::F16);
        QVERIFY(g.write(path.toStdString(), true).has_value());

        MainWindow w(quietConfig());
        machine(w, "8GiB", "16GiB");
        CatalogModel* catalog = w.modelPicker()->catalogModel();
        QSignalSpy fits(catalog, &CatalogModel::fitsUpdated);
        QVERIFY(fits.wait(30000)); // the pass for the typed machine
        const int before = catalog->rowCount();
        QSignalSpy opened(w.controller(), &PlanController::modelChanged);
        w.openModelFile(path);
        QVERIFY(opened.wait(10000));
        QCOMPARE(catalog->rowCount(), before + 1);
        // No option changes: the new row is priced by a pass of its own.
        QTRY_VERIFY_WITH_TIMEOUT(catalog->fitAt(before).known, 30000);
        QVERIFY(catalog->index(before, CatalogModel::Fit).data().toString() != QStringLiteral("…"));
    }

    void anInvalidOptionCombinationIsExplainedWhereTheChartsWere() {
        MainWindow w(quietConfig());
        w.show();
        machine(w, "24GiB", "64GiB");
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("llama-3.1-8b-instruct")));
        // llama_init_from_model: a quantized V cache needs flash attention.
        child<QComboBox>(&w, "flashAttnCombo")->setCurrentIndex(2); // off
        auto* ctv = child<QComboBox>(&w, "cacheTypeVCombo");
        ctv->setCurrentIndex(ctv->findText(QStringLiteral("q4_0")));
        QVERIFY(!w.controller()->plan());
        QVERIFY2(w.chartsPanel()->message().contains(QStringLiteral("flash attention")),
                 qPrintable(w.chartsPanel()->message()));
        QVERIFY(!child<QTabWidget>(&w, "chartTabs")->isVisible());
        QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("flash attention")));
        // The last plan's charts wait hidden behind the message: none of them can be saved.
        QTemporaryDir dir;
        QVERIFY(!w.chartsPanel()->saveCurrentChart(dir.filePath(QStringLiteral("chart.png"))));
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("chart.png"))));
        // Fixed: the charts come back and the stale messages go.
        ctv->setCurrentIndex(ctv->findText(QStringLiteral("f16")));
        QVERIFY(w.controller()->plan());
        QVERIFY(w.chartsPanel()->message().isEmpty());
        QVERIFY(child<QTabWidget>(&w, "chartTabs")->isVisible());
        QVERIFY(w.errorText().isEmpty());
        QVERIFY(w.statusBar()->currentMessage().isEmpty());
    }

    void mtpShowsItsPostureItsCostAndComparesWithOff() {
        MainWindow w(quietConfig());
        w.show();
        machine(w, "24GiB", "64GiB");
        // Llama 3.1 8B with one nextn block appended: a model with an MTP head.
        w.controller()->setModel(llamaWithMtpHead(false));
        const Plan on = *w.controller()->plan();
        QVERIFY(on.mtp); // auto: the head is used when it fits
        const Rung& r = on.rungs[size_t(w.whyPanel()->selectedRung())];
        const QString text = w.whyPanel()->mtpText();
        QVERIFY2(text.contains(QStringLiteral("MTP is on (%1 posture")
                                   .arg(QString::fromLatin1(postureName(r.posture)))),
                 qPrintable(text));
        // The cost is the difference to the same inputs planned with MTP off.
        PlanOptions offOptions = on.options;
        offOptions.mtp = MtpMode::Off;
        const Plan off = *w.controller()->planWith(offOptions);
        const Rung* same = nullptr;
        for (const Rung& o : off.rungs)
            if (o.requested_context == r.requested_context) same = &o;
        QVERIFY(same);
        const QString cost =
            signedBytesText(toSigned(r.totals.total()) - toSigned(same->totals.total()));
        QVERIFY2(text.contains(QStringLiteral("costs %1 more").arg(cost)), qPrintable(text));
        // One click plans with MTP off; the next one goes back to auto.
        auto* compare = child<QPushButton>(&w, "mtpCompareButton");
        QTest::mouseClick(compare, Qt::LeftButton);
        QCOMPARE(w.controller()->options().mtp, MtpMode::Off);
        QVERIFY(!w.controller()->plan()->mtp);
        QVERIFY(w.whyPanel()->mtpText().startsWith(QStringLiteral("MTP is off")));
        QTest::mouseClick(compare, Qt::LeftButton);
        QCOMPARE(w.controller()->options().mtp, MtpMode::Auto);
        QVERIFY(w.controller()->plan()->mtp);
    }

    void nextnBlocksTheBuildCannotDraftWithSayWhyAndOfferNoComparison() {
        MainWindow w(quietConfig());
        w.show();
        machine(w, "24GiB", "64GiB");
        // The same model declared as plain llama: llama.cpp's llama graph has no MTP branch
        // (LlamaProfile::mtp_graph_archs), so auto leaves MTP off and the panel says why.
        ModelShape m = llamaWithMtpHead(false);
        m.architecture = "llama";
        w.controller()->setModel(m);
        QVERIFY(!w.controller()->plan()->mtp);
        const QString text = w.whyPanel()->mtpText();
        QVERIFY2(text.contains(QStringLiteral("builds no MTP draft graph for llama")),
                 qPrintable(text));
        QVERIFY(!child<QPushButton>(&w, "mtpCompareButton")->isVisible());
    }

    void theLlamaVersionComboRepricesAndRewritesTheLaunch() {
        MainWindow w(quietConfig());
        w.show();
        machine(w, "24GiB", "64GiB");
        // Llama 3.1 8B with one nextn block appended (32 + 1 layers) as GGUF→shape describes a
        // non-hybrid architecture's nextn block (ModelShape::nextn_default_filter), planned with
        // MTP off so only the main cache differs: v0.5.0 leaves the block out of it, v0.4.0 does
        // not filter llama and caches all 33 layers (LlamaProfile::filtersNextn).
        w.controller()->setModel(llamaWithMtpHead(true));
        auto* mtp = child<QComboBox>(&w, "mtpCombo");
        mtp->setCurrentIndex(2); // off
        QCOMPARE(w.controller()->options().mtp, MtpMode::Off);
        auto* version = child<QComboBox>(&w, "llamaVersionCombo");
        QCOMPARE(version->currentText(),
                 QString::fromLatin1(llamaVersionName(kDefaultLlamaVersion)));
        const Plan v05 = *w.controller()->plan();
        QCOMPARE(v05.options.llama_version, LlamaVersion::V0_5_0);

        version->setCurrentIndex(version->findText(QStringLiteral("v0.4.0")));
        QCOMPARE(w.controller()->options().llama_version, LlamaVersion::V0_4_0);
        const Plan v04 = *w.controller()->plan();
        QCOMPARE(v04.options.llama_version, LlamaVersion::V0_4_0);
        QCOMPARE(v04.rungs.front().requested_context, v05.rungs.front().requested_context);
        // Same context, 33 cached layers instead of 32: exactly 33/32 of the KV bytes.
        QCOMPARE(v04.rungs.front().totals.kv() * 32, v05.rungs.front().totals.kv() * 33);
        // The launch script says which build it is written for.
        w.exportPanel()->setFormat(ExportPanel::LlamaServerScript);
        QVERIFY2(w.exportPanel()->text().contains(QStringLiteral("for llama.cpp v0.4.0")),
                 qPrintable(w.exportPanel()->text()));
    }

    void theLaunchWindowSaysWhatItWouldGrowTo_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("vram");
        // On 16 GiB + 64 GiB: a 70B spills and decodes under the floor; a 30B-A3B MoE is fast.
        QTest::newRow("llama-3.3-70b") << QStringLiteral("llama-3.3-70b-instruct") << "16GiB";
        QTest::newRow("qwen3-30b-a3b") << QStringLiteral("qwen3-30b-a3b") << "16GiB";
        QTest::newRow("llama-3.1-8b on 8 GiB") << QStringLiteral("llama-3.1-8b-instruct") << "8GiB";
        QTest::newRow("llama-3.1-8b on 12 GiB")
            << QStringLiteral("llama-3.1-8b-instruct") << "12GiB";
        QTest::newRow("mistral-nemo on 12 GiB")
            << QStringLiteral("mistral-nemo-instruct-2407") << "12GiB";
    }
    void theLaunchWindowSaysWhatItWouldGrowTo() {
        MainWindow w(quietConfig());
        w.show();
        QFETCH(QString, model);
        QFETCH(QString, vram);
        typeInto(child<QLineEdit>(&w, "vramEdit"), vram);
        typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("64GiB"));
        QVERIFY(w.modelPicker()->selectModelId(model));
        const Plan& plan = *w.controller()->plan();
        QVERIFY(!plan.decision.refused);
        w.whyPanel()->selectRung(plan.decision.rung_index);
        const QString text = w.whyPanel()->growthText();
        QVERIFY2(text.startsWith(QStringLiteral("Growth: ")), qPrintable(text));
        // Gates 4 and 5 of policy/growth.h: decode at the window must reach the 6 tok/s floor
        // (here the estimate), and the next ladder rung's total must fit usable VRAM plus
        // usable RAM; past the last rung there is nothing to grow to.
        const Rung& launch = plan.rungs[size_t(plan.decision.rung_index)];
        const size_t next = size_t(plan.decision.rung_index) + 1;
        const bool fits = launch.speed.decode_tok_s >= policy::kFloorTokS &&
                          next < plan.rungs.size() &&
                          toSigned(plan.rungs[next].totals.total()) <=
                              plan.budget.vramUsable() + plan.budget.ram_usable;
        const QString expected =
            fits ? QStringLiteral("grow to %1").arg(tokensText(plan.rungs[next].requested_context))
                 : QStringLiteral("stays at");
        QVERIFY2(text.contains(expected), qPrintable(text));
        if (launch.speed.decode_tok_s < policy::kFloorTokS)
            QVERIFY2(text.contains(QStringLiteral("floor")), qPrintable(text));
        // Another rung than the launch window: no growth line.
        if (plan.rungs.size() > 1) {
            w.whyPanel()->selectRung(plan.decision.rung_index == 0 ? 1 : 0);
            QVERIFY(w.whyPanel()->growthText().isEmpty());
        }
    }

    // Walks the Tab chain from the first stop: every stop looks different with focus than
    // without (a focus frame, a highlighted border, a caret), so a keyboard user sees where
    // they are. The picture compared is the stop and its immediate surroundings.
    void everyTabStopShowsItsFocus() {
        MainWindow w(quietConfig());
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        machine(w, "16GiB", "64GiB");
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("llama-3.3-70b-instruct")));
        auto* slider = child<QSlider>(&w, "contextSlider");
        slider->setFocus();
        QTest::keyClick(slider, Qt::Key_End); // a refusal: remedy buttons are stops too
        QApplication::setActiveWindow(&w);
        QStringList invisible;
        QSet<QWidget*> seen;
        QWidget* start = child<QLineEdit>(&w, "modelSearch");
        start->setFocus();
        QWidget* stop = start;
        for (int i = 0; i < 80 && stop && !seen.contains(stop); ++i) {
            seen.insert(stop);
            // Unfocused: park the focus on the menu-less central widget; focused: the stop.
            const QRect area = stop->rect().adjusted(-3, -3, 3, 3);
            QWidget* parent = stop->parentWidget() ? stop->parentWidget() : stop;
            const QRect inParent = QRect(stop->mapTo(parent, area.topLeft()), area.size());
            stop->clearFocus();
            QCoreApplication::processEvents();
            const QImage without = parent->grab(inParent).toImage();
            stop->setFocus(Qt::TabFocusReason);
            QCoreApplication::processEvents();
            const QImage with = parent->grab(inParent).toImage();
            if (with == without)
                invisible << QStringLiteral("%1 (%2)").arg(
                    stop->objectName(), QLatin1String(stop->metaObject()->className()));
            QTest::keyClick(stop, Qt::Key_Tab);
            stop = QApplication::focusWidget();
        }
        QVERIFY(seen.size() > 15); // the walk went round the window
        QVERIFY2(invisible.isEmpty(), qPrintable(invisible.join(QStringLiteral(", "))));
    }

    void mnemonicsAreUniqueAndAltFOpensTheFileMenu() {
        MainWindow w(quietConfig());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        machine(w, "24GiB", "64GiB");
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("qwen3-14b")));
        QMap<QString, QStringList> owners;
        auto note = [&owners](const QString& text, const QString& who) {
            const QKeySequence k = QKeySequence::mnemonic(text);
            if (!k.isEmpty()) owners[k.toString()] << who;
        };
        for (QAction* a : w.menuBar()->actions())
            note(a->text(), a->text());
        for (QAbstractButton* b : w.findChildren<QAbstractButton*>())
            if (b->isVisibleTo(&w)) note(b->text(), b->objectName());
        for (QLabel* l : w.findChildren<QLabel*>())
            if (l->buddy() && l->isVisibleTo(&w)) note(l->text(), l->text());
        for (QTabWidget* t : w.findChildren<QTabWidget*>())
            for (int i = 0; i < t->count(); ++i)
                note(t->tabText(i), t->tabText(i));
        QStringList clashes;
        for (auto it = owners.cbegin(); it != owners.cend(); ++it)
            if (it.value().size() > 1)
                clashes << it.key() + QStringLiteral(": ") + it.value().join(QStringLiteral(", "));
        QVERIFY2(clashes.isEmpty(), qPrintable(clashes.join(QStringLiteral("; "))));
        QVERIFY(owners.contains(QStringLiteral("Alt+F")));
        QVERIFY(owners.contains(QStringLiteral("Alt+H")));

        // Alt+F opens the File menu (not a button), Alt+H the Help menu.
        QMenu* file = w.menuBar()->actions().at(0)->menu();
        QMenu* help = w.menuBar()->actions().at(1)->menu();
        child<QLineEdit>(&w, "modelSearch")->setFocus();
        QTest::keyClick(&w, Qt::Key_F, Qt::AltModifier);
        QTRY_COMPARE(QApplication::activePopupWidget(), static_cast<QWidget*>(file));
        file->close();
        QTest::keyClick(&w, Qt::Key_H, Qt::AltModifier);
        QTRY_COMPARE(QApplication::activePopupWidget(), static_cast<QWidget*>(help));
        help->close();
    }
};

QTEST_MAIN(TestGuiTruth)
#include "test_gui_truth.moc"
