// The options panel's placement fields (-ngl, --n-cpu-moe, --cpu-moe, -ot, -ts, -sm) drive the
// real window the way a user would type them, and the window answers for exactly that placement:
// the plan prices it as given, the launch keeps the flags, an overcommitted GPU is named with the
// amount, and an entry that does not read is said inline with no old chart, reason or launch left
// on screen. The text is read by the same readPlacementFlags as the CLI's arguments.
#include "charts/chartspanel.h"
#include "exportpanel.h"
#include "hardwarepanel.h"
#include "mainwindow.h"
#include "modelpicker.h"
#include "optionspanel.h"
#include "rungmodels.h"
#include "ui/ui_test_util.h"
#include "whypanel.h"

#include "core/launch/placement_flags.h"
#include "core/planner.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest>

#include <numeric>

using namespace headroom;
using namespace headroom::ui;
using namespace headroom::ui::test;

namespace {

void selectRow(MainWindow& w, const QString& id) {
    auto* table = child<QTableView>(&w, "modelTable");
    auto* proxy = static_cast<QSortFilterProxyModel*>(table->model());
    const int row = w.modelPicker()->catalogModel()->rowOfId(id);
    QVERIFY(row >= 0);
    const QModelIndex index = proxy->mapFromSource(w.modelPicker()->catalogModel()->index(row, 0));
    table->setFocus();
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(index).center());
}

// The window on a built-in machine with one catalog model picked, planned once.
void openOn(MainWindow& w, const QString& preset, const QString& model) {
    QVERIFY(w.hardwarePanel()->selectPreset(preset));
    selectRow(w, model);
    QVERIFY(w.controller()->plan());
}

// What the planner itself says for the window's inputs with `pinned` as the placement.
Plan plannedWith(MainWindow& w, const PlacementFlags& typed) {
    auto pinned = readPlacementFlags(typed);
    if (!pinned) qFatal("placement does not read: %s", pinned.error().message.c_str());
    PlanOptions o = w.controller()->options();
    o.pinned = *pinned;
    auto p = makePlan(*w.controller()->model(), w.controller()->hardware(), o);
    if (!p) qFatal("planner failed: %s", p.error().message.c_str());
    return *p;
}

QString launchLine(MainWindow& w) {
    w.exportPanel()->setFormat(ExportPanel::LlamaServerLine);
    return w.exportPanel()->text();
}

} // namespace

class TestGuiPlacement : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void aTypedLayerCountIsPricedAsGivenAndLaunchedAsTyped() {
        MainWindow w(quietConfig());
        openOn(w, QStringLiteral("rtx-4090"), QStringLiteral("llama-3.1-8b-instruct"));
        // Unpinned, the 8B model fits whole on the 24 GiB card: all 32 blocks + the output layer.
        {
            const Plan* searched = w.controller()->plan();
            QVERIFY(!searched->decision.refused);
            QCOMPARE(searched->rungs[size_t(searched->decision.rung_index)].placement.device_layers,
                     std::vector<std::uint32_t>{33});
        }

        typeInto(child<QLineEdit>(&w, "gpuLayersEdit"), QStringLiteral("10"));
        QCOMPARE(w.controller()->options().pinned.gpu_layers,
                 std::optional<GpuLayers>(GpuLayers::of(10)));
        const Plan* plan = w.controller()->plan();
        QVERIFY(plan);
        QVERIFY(!plan->decision.refused);
        PlacementFlags typed;
        typed.gpu_layers = "10";
        const Plan expected = plannedWith(w, typed);
        QCOMPARE(plan->rungs.size(), expected.rungs.size());
        QCOMPARE(llamaServerArgs(*plan->launch), llamaServerArgs(*expected.launch));
        // llama_model::load_tensors: i_gpu_start = n_layer + 1 - ngl = 32 + 1 - 10 = 23, so
        // blocks 23..31 (9) and the output layer (1) go to the GPU: 10 layers there, the other
        // 33 - 10 = 23 on the CPU. Every rung prices that placement, not a searched one.
        for (const Rung& r : plan->rungs) {
            if (r.verdict == Verdict::Refused) continue;
            QVERIFY(r.placement.pinned);
            QCOMPARE(r.placement.device_layers, std::vector<std::uint32_t>{10});
            QCOMPARE(r.placement.host_layers, 23u);
        }
        // The launch keeps the user's flag, as typed.
        const QString line = launchLine(w);
        QVERIFY2(line.contains(QRegularExpression(QStringLiteral("(^| )-ngl 10( |$)"))),
                 qPrintable(line));
    }

    void aTensorSplitSplitsTheLayersAsTypedOverTwoGpus() {
        MainWindow w(quietConfig());
        openOn(w, QStringLiteral("rtx-3090-x2"), QStringLiteral("llama-3.1-8b-instruct"));
        typeInto(child<QLineEdit>(&w, "tensorSplitEdit"), QStringLiteral("3,1"));
        auto* sm = child<QComboBox>(&w, "splitModeCombo");
        sm->setCurrentIndex(sm->findText(QStringLiteral("layer")));
        const PinnedPlacement& pinned = w.controller()->options().pinned;
        QCOMPARE(pinned.tensor_split, (std::vector<double>{3, 1}));
        QCOMPARE(pinned.split_mode, std::optional<SplitMode>(SplitMode::Layer));
        const Plan* plan = w.controller()->plan();
        QVERIFY(plan && !plan->decision.refused);
        // llama_model::load_tensors with -ts 3,1: the cumulative split is {0.75, 1}; layer il of
        // the 33 goes to the first GPU whose bound exceeds il / 33, so il = 0..24 (24 / 33 =
        // 0.727 < 0.75, 25 / 33 = 0.758) land on GPU 0 (25 layers) and 25..32 on GPU 1 (8).
        const Rung& chosen = plan->rungs[size_t(plan->decision.rung_index)];
        QCOMPARE(chosen.placement.device_layers, (std::vector<std::uint32_t>{25, 8}));
        const QString line = launchLine(w);
        QVERIFY2(line.contains(QStringLiteral("-ts 3,1")), qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("-sm layer")), qPrintable(line));
    }

    void anOvercommittedGpuIsNamedWithTheAmount() {
        MainWindow w(quietConfig());
        // The 8B model at its 64K floor needs about 13 GiB with every layer on the GPU; a 4 GiB
        // card (2 GiB usable) cannot hold that, 64 GiB of RAM could: the placement is at fault.
        typeInto(child<QLineEdit>(&w, "vramEdit"), QStringLiteral("4GiB"));
        typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("64GiB"));
        selectRow(w, QStringLiteral("llama-3.1-8b-instruct"));
        typeInto(child<QLineEdit>(&w, "gpuLayersEdit"), QStringLiteral("all"));
        const Plan* plan = w.controller()->plan();
        QVERIFY(plan);
        const int row = w.whyPanel()->selectedRung();
        QVERIFY(row >= 0);
        const Rung& r = plan->rungs[size_t(row)];
        QCOMPARE(r.verdict, Verdict::Refused);
        QVERIFY(r.refusal);
        QCOMPARE(r.refusal->code, RefusalCode::DeviceOvercommitted);
        QCOMPARE(r.refusal->device, 0);
        QVERIFY(r.refusal->shortfall_bytes > 0);
        const QString sentence = w.whyPanel()->sentence();
        QVERIFY2(sentence.contains(QStringLiteral("overcommits GPU0")), qPrintable(sentence));
        QVERIFY2(sentence.contains(bytesText(Bytes(r.refusal->shortfall_bytes))),
                 qPrintable(sentence));
    }

    void anEntryThatDoesNotReadIsSaidInlineAndNoOldPlanStays_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("cpuMoe");
        QTest::addColumn<QString>("named");
        QTest::newRow("-ngl a word") << "gpuLayersEdit"
                                     << "ten" << false << "-ngl";
        QTest::newRow("-ngl negative") << "gpuLayersEdit"
                                       << "-5" << false << "-ngl";
        QTest::newRow("--n-cpu-moe all") << "nCpuMoeEdit"
                                         << "all" << false << "--n-cpu-moe";
        QTest::newRow("--cpu-moe with --n-cpu-moe") << "nCpuMoeEdit"
                                                    << "4" << true << "--cpu-moe or --n-cpu-moe";
        QTest::newRow("-ot without a device") << "overrideTensorEdit"
                                              << "exps" << false << "-ot";
        QTest::newRow("-ot bad regex") << "overrideTensorEdit"
                                       << "([=CPU" << false << "regular expression";
        QTest::newRow("-ts negative") << "tensorSplitEdit"
                                      << "3,-1" << false << "-ts";
    }
    void anEntryThatDoesNotReadIsSaidInlineAndNoOldPlanStays() {
        QFETCH(QString, field);
        QFETCH(QString, text);
        QFETCH(bool, cpuMoe);
        QFETCH(QString, named);
        MainWindow w(quietConfig());
        openOn(w, QStringLiteral("rtx-4090"), QStringLiteral("qwen3-30b-a3b"));
        const PinnedPlacement before = w.controller()->options().pinned;
        if (cpuMoe) {
            child<QCheckBox>(&w, "cpuMoeCheck")->setChecked(true);
            QVERIFY(w.controller()->options().pinned.cpu_moe);
        }
        auto* edit = child<QLineEdit>(&w, qPrintable(field));
        typeInto(edit, text);
        const QString error = w.optionsPanel()->errorText();
        QVERIFY2(error.contains(named), qPrintable(error));
        // No chart, reason or launch stays as if it answered what is typed now.
        QVERIFY2(w.chartsPanel()->message().contains(named),
                 qPrintable(w.chartsPanel()->message()));
        QVERIFY2(w.whyPanel()->sentence().contains(named), qPrintable(w.whyPanel()->sentence()));
        QVERIFY2(!w.exportPanel()->text().contains(QStringLiteral("llama-server")),
                 qPrintable(w.exportPanel()->text()));
        // Another edit does not slip the last good placement back in under the bad entry.
        child<QComboBox>(&w, "flashAttnCombo")->setCurrentIndex(1);
        QVERIFY(w.optionsPanel()->errorText().contains(named));
        QVERIFY(!w.chartsPanel()->message().isEmpty());
        // Clearing the entry plans again.
        typeInto(edit, QString());
        QVERIFY2(w.optionsPanel()->errorText().isEmpty(),
                 qPrintable(w.optionsPanel()->errorText()));
        QVERIFY(w.chartsPanel()->message().isEmpty());
        QVERIFY(w.controller()->plan());
        if (!cpuMoe) QCOMPARE(w.controller()->options().pinned, before);
    }

    void aPlacementGivenInOptionsIsShownInTheFields() {
        OptionsPanel panel;
        PlanOptions o;
        o.pinned.gpu_layers = GpuLayers::of(30);
        o.pinned.n_cpu_moe = 12;
        o.pinned.tensor_overrides = {{"\\.ffn_(up|down|gate)_exps", "CPU"}};
        o.pinned.tensor_split = {3, 1};
        o.pinned.split_mode = SplitMode::Row;
        panel.setOptions(o);
        QCOMPARE(child<QLineEdit>(&panel, "gpuLayersEdit")->text(), QStringLiteral("30"));
        QCOMPARE(child<QLineEdit>(&panel, "nCpuMoeEdit")->text(), QStringLiteral("12"));
        QCOMPARE(child<QLineEdit>(&panel, "overrideTensorEdit")->text(),
                 QStringLiteral("\\.ffn_(up|down|gate)_exps=CPU"));
        QCOMPARE(child<QLineEdit>(&panel, "tensorSplitEdit")->text(), QStringLiteral("3,1"));
        QCOMPARE(child<QComboBox>(&panel, "splitModeCombo")->currentText(), QStringLiteral("row"));
        // Read back through the fields, the same placement: nothing is announced for it.
        QSignalSpy edited(&panel, &OptionsPanel::optionsEdited);
        typeInto(child<QLineEdit>(&panel, "gpuLayersEdit"), QStringLiteral("30"));
        QCOMPARE(edited.count(), 0);
        QCOMPARE(panel.options().pinned, o.pinned);
    }
};

QTEST_MAIN(TestGuiPlacement)
#include "test_gui_placement.moc"
