// Drives the real main window by objectName, the way a user (or an accessibility tool) would:
// type the hardware, pick a model, move the context slider, change the cache type, click a
// remedy — and checks the charts' data and the why-refused text against the planner's own
// numbers for the same inputs. Also: a broken probe and a corrupt GGUF end up as errors in the
// window, and the README screenshot is taken here (written under build/ by the `screenshot`
// target, never into the source tree; see the README).
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

#include "common/catalog_fixture.h"
#include "core/catalog.h"
#include "core/gguf/gguf_writer.h"
#include "core/launch/llama_version.h"
#include "core/planner.h"

#include <QAction>
#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace headroom;
using namespace headroom::ui;
using namespace headroom::ui::test;

namespace {

// What the planner says for the window's current inputs.
Plan expectedPlan(MainWindow& w) {
    auto p =
        makePlan(*w.controller()->model(), w.controller()->hardware(), w.controller()->options());
    if (!p) qFatal("planner failed: %s", p.error().message.c_str());
    return *p;
}

void selectRow(MainWindow& w, const QString& id) {
    auto* table = child<QTableView>(&w, "modelTable");
    auto* proxy = static_cast<QSortFilterProxyModel*>(table->model());
    const int row = w.modelPicker()->catalogModel()->rowOfId(id);
    QVERIFY(row >= 0);
    const QModelIndex index = proxy->mapFromSource(w.modelPicker()->catalogModel()->index(row, 0));
    table->setFocus();
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(index).center());
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void typedHardwareAndAPickedModelGiveThePlannersNumbers() {
        MainWindow w(quietConfig());
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        typeInto(child<QLineEdit>(&w, "vramEdit"), QStringLiteral("24GiB"));
        typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("64GiB"));
        QCOMPARE(w.controller()->hardware().gpus.size(), size_t(1));
        QCOMPARE(w.controller()->hardware().gpus[0].total_bytes, 24 * GiB);
        selectRow(w, QStringLiteral("qwen3-14b"));
        QVERIFY(w.controller()->plan());
        QCOMPARE(qs(w.controller()->model()->id), QStringLiteral("qwen3-14b"));

        const Plan expected = expectedPlan(w);
        RungMemoryModel* gpu = w.chartsPanel()->memoryModel(0);
        QCOMPARE(gpu->rowCount(), int(expected.rungs.size()));
        for (int r = 0; r < gpu->rowCount(); ++r) {
            QCOMPARE(gpu->index(r, RungMemoryModel::Kv).data(BytesRole).toLongLong(),
                     qlonglong(expected.rungs[size_t(r)].devices[0].terms.kv()));
            QCOMPARE(gpu->index(r, RungMemoryModel::Budget).data(BytesRole).toLongLong(),
                     qlonglong(expected.rungs[size_t(r)].devices[0].budget_bytes));
        }
        QVERIFY(w.errorText().isEmpty());
        QVERIFY(!child<QLabel>(&w, "whySentence")->text().isEmpty());
        QVERIFY(child<QPlainTextEdit>(&w, "exportText")
                    ->toPlainText()
                    .contains(QStringLiteral("llama-server")));
    }

    void movingTheSliderAndTheCacheTypeReplansAndRewritesTheWhyText() {
        MainWindow w(quietConfig());
        w.show();
        typeInto(child<QLineEdit>(&w, "vramEdit"), QStringLiteral("16GiB"));
        typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("32GiB"));
        selectRow(w, QStringLiteral("llama-3.1-8b-instruct"));
        QVERIFY(w.controller()->plan());

        // The slider's last stop is the largest ladder rung: -c becomes that rung.
        auto* slider = child<QSlider>(&w, "contextSlider");
        const std::vector<std::uint32_t> rungs = w.optionsPanel()->rungs();
        QVERIFY(rungs.size() >= 2);
        slider->setFocus();
        QTest::keyClick(slider, Qt::Key_End);
        QCOMPARE(w.controller()->options().context.value_or(0), rungs.back());
        Plan expected = expectedPlan(w);
        int row = -1;
        for (size_t i = 0; i < expected.rungs.size(); ++i)
            if (expected.rungs[i].requested_context == rungs.back()) row = int(i);
        QVERIFY(row >= 0);
        QCOMPARE(w.whyPanel()->selectedRung(), row);
        const QString before = w.whyPanel()->sentence();
        QCOMPARE(before, rungSentence(expected, row));
        const qlonglong kvF16 = w.chartsPanel()
                                    ->memoryModel(0)
                                    ->index(row, RungMemoryModel::Kv)
                                    .data(BytesRole)
                                    .toLongLong();

        // q8_0 K cache: K rows shrink from 2 to 34/32 bytes per element, so KV falls.
        auto* ctk = child<QComboBox>(&w, "cacheTypeKCombo");
        ctk->setFocus();
        ctk->setCurrentIndex(ctk->findText(QStringLiteral("q8_0")));
        QCOMPARE(w.controller()->options().cache_type_k, GgmlType::Q8_0);
        expected = expectedPlan(w);
        const qlonglong kvQ8 = w.chartsPanel()
                                   ->memoryModel(0)
                                   ->index(row, RungMemoryModel::Kv)
                                   .data(BytesRole)
                                   .toLongLong();
        QCOMPARE(kvQ8, qlonglong(expected.rungs[size_t(row)].devices[0].terms.kv()));
        QVERIFY(kvQ8 < kvF16);
        QCOMPARE(w.whyPanel()->sentence(), rungSentence(expected, row));
        if (expected.rungs[size_t(row)].refusal)
            QVERIFY(w.whyPanel()->numbersText().contains(
                bytesText(expected.rungs[size_t(row)].refusal->needed_bytes)));
    }

    // The draft combo offers the small models of the target's tokenizer (Qwen3-0.6B beside
    // Qwen3-32B, no Llama); picking one plans it beside the target: the chart's draft column is
    // the planner's draft term, and the export carries -md. A target the draft cannot pair with
    // drops it, and the plan with it.
    void aDraftModelPickedInTheOptionsIsPlannedBesideTheTarget() {
        MainWindow w(quietConfig());
        w.show();
        typeInto(child<QLineEdit>(&w, "vramEdit"), QStringLiteral("24GiB"));
        typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("64GiB"));
        selectRow(w, QStringLiteral("qwen3-32b"));
        QVERIFY(w.controller()->plan());
        auto* draft = child<QComboBox>(&w, "draftCombo");
        const int small = draft->findData(QStringLiteral("qwen3-0.6b"));
        QVERIFY(small > 0);
        QCOMPARE(draft->findData(QStringLiteral("llama-3.2-1b-instruct")), -1);
        draft->setFocus();
        draft->setCurrentIndex(small);
        QVERIFY(w.controller()->options().draft.has_value());
        QVERIFY(w.errorText().isEmpty());
        const Plan expected = expectedPlan(w);
        RungMemoryModel* gpu = w.chartsPanel()->memoryModel(0);
        QCOMPARE(gpu->rowCount(), int(expected.rungs.size()));
        for (int r = 0; r < gpu->rowCount(); ++r)
            QCOMPARE(gpu->index(r, RungMemoryModel::Draft).data(BytesRole).toLongLong(),
                     qlonglong(expected.rungs[size_t(r)].devices[0].terms.draft));
        QVERIFY(expected.rungs.front().devices[0].terms.draft > 0);
        QVERIFY(child<QPlainTextEdit>(&w, "exportText")
                    ->toPlainText()
                    .contains(QStringLiteral("-md qwen3-0.6b.gguf")));
        selectRow(w, QStringLiteral("llama-3.1-8b-instruct"));
        QVERIFY(!w.controller()->options().draft.has_value());
        QCOMPARE(draft->currentIndex(), 0);
        QVERIFY(w.controller()->plan());
        QVERIFY(w.errorText().isEmpty());
    }

    void clickingARemedyAppliesItsOptions() {
        MainWindow w(quietConfig());
        w.show();
        // 8 GiB card, 16 GiB RAM and a 32B model at its largest rung: refused with remedies.
        typeInto(child<QLineEdit>(&w, "vramEdit"), QStringLiteral("8GiB"));
        typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("16GiB"));
        selectRow(w, QStringLiteral("qwen3-32b"));
        auto* slider = child<QSlider>(&w, "contextSlider");
        slider->setFocus();
        QTest::keyClick(slider, Qt::Key_End);
        const Plan plan = *w.controller()->plan();
        const Rung& rung = plan.rungs[size_t(w.whyPanel()->selectedRung())];
        QVERIFY(rung.refusal);
        // A context too large is always remedied (a smaller cache type or context): none offered
        // is a regression of the planner's remedies, not a reason to skip.
        QVERIFY2(!rung.refusal->remedies.empty(), "the planner offers no remedy for this refusal");
        QCOMPARE(w.whyPanel()->remedyCount(), int(rung.refusal->remedies.size()));
        const Remedy remedy = rung.refusal->remedies.front();
        QTest::mouseClick(child<QPushButton>(&w, "remedyButton0"), Qt::LeftButton);
        QCOMPARE(w.controller()->options().cache_type_k, remedy.options.cache_type_k);
        QCOMPARE(w.controller()->options().context, remedy.options.context);
        QCOMPARE(w.optionsPanel()->options().cache_type_v, remedy.options.cache_type_v);
    }

    void everyExportFormatComesFromTheChosenRung() {
        QTemporaryDir dir;
        MainWindow w(quietConfig());
        typeInto(child<QLineEdit>(&w, "vramEdit"), QStringLiteral("24GiB"));
        typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("64GiB"));
        selectRow(w, QStringLiteral("llama-3.1-8b-instruct"));
        const Plan plan = *w.controller()->plan();
        QVERIFY(!plan.decision.refused);
        const QString ctx = QString::number(plan.decision.context);
        auto* format = child<QComboBox>(&w, "exportFormatCombo");
        auto* text = child<QPlainTextEdit>(&w, "exportText");
        const std::pair<ExportPanel::Format, QString> expected[] = {
            {ExportPanel::LlamaServerLine, QStringLiteral("-c ") + ctx},
            {ExportPanel::LlamaServerScript, QStringLiteral("#!/bin/sh")},
            {ExportPanel::LlamaSwapYaml, QStringLiteral("models:")},
            {ExportPanel::OllamaModelfile, QStringLiteral("num_ctx ") + ctx},
            {ExportPanel::PlanJson, QStringLiteral("headroom.plan/1")},
        };
        for (const auto& [f, marker] : expected) {
            format->setCurrentIndex(format->findData(int(f)));
            QVERIFY2(text->toPlainText().contains(marker), qPrintable(text->toPlainText()));
        }
        // Saving is atomic and never replaces a file unless asked.
        const QString path = dir.filePath(QStringLiteral("plan.json"));
        QVERIFY(w.exportPanel()->saveTo(path, false).has_value());
        QVERIFY(!w.exportPanel()->saveTo(path, false).has_value());
        QVERIFY(w.exportPanel()->saveTo(path, true).has_value());
    }

    void theExportFollowsTheRungTheUserLooksAt() {
        MainWindow w(quietConfig());
        typeInto(child<QLineEdit>(&w, "vramEdit"), QStringLiteral("24GiB"));
        typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("64GiB"));
        selectRow(w, QStringLiteral("llama-3.1-8b-instruct"));
        const Plan plan = *w.controller()->plan();
        auto* format = child<QComboBox>(&w, "exportFormatCombo");
        auto* text = child<QPlainTextEdit>(&w, "exportText");
        format->setCurrentIndex(format->findData(int(ExportPanel::LlamaServerLine)));
        // Every rung: a rung that runs exports its own -c (the requested context, which llama.cpp
        // pads itself); a refused one says why instead of falling back to another rung.
        for (int i = 0; i < int(plan.rungs.size()); ++i) {
            w.whyPanel()->selectRung(i);
            QCOMPARE(w.exportPanel()->rung(), i);
            const Rung& r = plan.rungs[size_t(i)];
            if (r.verdict == Verdict::Refused) {
                QVERIFY2(text->toPlainText().startsWith("# Nothing to launch"),
                         qPrintable(text->toPlainText()));
            } else {
                const QString c =
                    QStringLiteral("-c ") + QString::number(r.requested_context) + " ";
                QVERIFY2(text->toPlainText().contains(c), qPrintable(text->toPlainText()));
            }
        }
    }

    void aPresetReplacesTheMachine() {
        MainWindow w(quietConfig());
        auto* presets = child<QComboBox>(&w, "presetCombo");
        // The built-in machines of resources/presets.json follow the first entry.
        QVERIFY2(presets->count() >= 2, "the preset list is empty");
        const QString id = presets->itemData(1).toString();
        QVERIFY(w.hardwarePanel()->selectPreset(id));
        QCOMPARE(qs(w.controller()->hardware().source), QStringLiteral("preset:") + id);
    }

    void theRealProbeGivesAMachineToPlanFor() {
        const QString cli = QStringLiteral(HEADROOM_BIN_DIR "/headroom-cli");
        // tests/CMakeLists.txt builds headroom-cli before this test.
        QVERIFY2(QFileInfo(cli).isExecutable(), "headroom-cli is not built");
        MainWindowConfig c = quietConfig();
        c.probe_program = cli;
        c.probe_arguments = {QStringLiteral("probe"), QStringLiteral("--json")};
        MainWindow w(c);
        QSignalSpy done(w.hardwarePanel(), &HardwarePanel::snapshotChanged);
        QSignalSpy failed(w.hardwarePanel(), &HardwarePanel::errorOccurred);
        w.hardwarePanel()->startProbe();
        QTRY_VERIFY_WITH_TIMEOUT(done.count() + failed.count() > 0, 20000);
        QVERIFY2(failed.isEmpty(),
                 failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
        // Whatever this machine is, the probe found its RAM and the default model is planned.
        QVERIFY(w.controller()->hardware().ram_total > 0);
        QVERIFY(w.controller()->plan());
        QVERIFY(!child<QLabel>(&w, "hardwareLabel")->text().isEmpty());
    }

    void aFailingProbeIsExplainedInTheWindow() {
        MainWindowConfig c = quietConfig();
        c.probe_program = QStringLiteral("/bin/false");
        MainWindow w(c);
        w.show();
        QSignalSpy spy(w.hardwarePanel(), &HardwarePanel::errorOccurred);
        QTest::mouseClick(child<QPushButton>(&w, "probeButton"), Qt::LeftButton);
        QVERIFY(spy.wait(10000));
        auto* label = child<QLabel>(&w, "probeErrorLabel");
        QVERIFY(label->isVisible());
        QVERIFY2(label->text().contains(QStringLiteral("exit code 1")), qPrintable(label->text()));
        // The way out is right there: typing figures clears the error and plans.
        QVERIFY(child<QPushButton>(&w, "enterByHandButton")->isVisible());
        typeInto(child<QLineEdit>(&w, "vramEdit"), QStringLiteral("12GiB"));
        typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("32GiB"));
        QVERIFY(!label->isVisible());
        QVERIFY(w.controller()->plan());
    }

    void aMissingOrBabblingProbeIsExplainedToo() {
        MainWindowConfig c = quietConfig();
        c.probe_program = QStringLiteral("/nonexistent/headroom-cli");
        MainWindow w(c);
        QSignalSpy spy(w.hardwarePanel(), &HardwarePanel::errorOccurred);
        w.hardwarePanel()->startProbe();
        QVERIFY(spy.wait(10000));
        QVERIFY2(w.hardwarePanel()->errorText().contains(QStringLiteral("Could not start")),
                 qPrintable(w.hardwarePanel()->errorText()));

        MainWindowConfig c2 = quietConfig();
        c2.probe_program = QStringLiteral("/bin/echo");
        c2.probe_arguments = {QStringLiteral("{not json")};
        MainWindow w2(c2);
        QSignalSpy spy2(w2.hardwarePanel(), &HardwarePanel::errorOccurred);
        w2.hardwarePanel()->startProbe();
        QVERIFY(spy2.wait(10000));
        QVERIFY2(w2.hardwarePanel()->errorText().contains(QStringLiteral("unreadable")),
                 qPrintable(w2.hardwarePanel()->errorText()));
    }

    void aCorruptGgufIsShownAsAnErrorInTheWindow() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.gguf"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            // The magic and a version, then the header ends mid tensor count.
            f.write("GGUF\x03\x00\x00\x00\x01\x00", 10);
        }
        MainWindow w(quietConfig());
        w.show();
        QSignalSpy spy(w.modelPicker(), &ModelPicker::errorOccurred);
        w.openModelFile(path);
        QVERIFY(spy.wait(10000));
        auto* label = child<QLabel>(&w, "modelErrorLabel");
        QVERIFY(label->isVisible());
        QVERIFY2(label->text().contains(QStringLiteral("broken.gguf")), qPrintable(label->text()));
        QVERIFY(w.modelPicker()->recentFiles().isEmpty());
    }

    void aCatalogUpdateAddsItsModelToTheListAndRestoringRemovesIt() {
        // The update is kept under a data home of this test's own.
        QTemporaryDir data;
        QVERIFY(data.isValid());
        const QByteArray saved = qgetenv("XDG_DATA_HOME");
        qputenv("XDG_DATA_HOME", data.path().toUtf8());
        const QString good = data.filePath(QStringLiteral("update.json"));
        const QString bad = data.filePath(QStringLiteral("truncated.json"));
        {
            QFile f(good);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(headroom::test::catalogDocument(
                {headroom::test::tinyCatalogEntry("tiny-update")})));
            QFile t(bad);
            QVERIFY(t.open(QIODevice::WriteOnly));
            t.write("{\"schema\": \"headroom.catalog/1\", \"models\": [");
        }
        MainWindow w(quietConfig());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        CatalogModel* cm = w.modelPicker()->catalogModel();
        const int shippedRows = cm->rowCount();
        QCOMPARE(cm->rowOfId(QStringLiteral("tiny-update")), -1);

        w.updateCatalogFrom(bad);
        auto* banner = child<QLabel>(&w, "errorBanner");
        QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), 10000);
        QVERIFY2(banner->text().contains(QStringLiteral("truncated.json")),
                 qPrintable(banner->text()));
        QCOMPARE(cm->rowCount(), shippedRows);

        w.updateCatalogFrom(good);
        QTRY_VERIFY_WITH_TIMEOUT(cm->rowOfId(QStringLiteral("tiny-update")) >= 0, 10000);
        QVERIFY(!banner->isVisible());
        QCOMPARE(cm->rowCount(), shippedRows + 1);

        child<QAction>(&w, "actionRestoreCatalog")->trigger();
        QCOMPARE(cm->rowOfId(QStringLiteral("tiny-update")), -1);
        QCOMPARE(cm->rowCount(), shippedRows);
        QVERIFY(!QFileInfo::exists(data.filePath(QStringLiteral("headroom/catalog-update.json"))));
        qputenv("XDG_DATA_HOME", saved);
    }

    void openingAValidGgufAddsItPlansItAndRemembersIt() {
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
        typeInto(child<QLineEdit>(&w, "vramEdit"), QStringLiteral("8GiB"));
        typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("16GiB"));
        QSignalSpy spy(w.controller(), &PlanController::modelChanged);
        w.openModelFile(path);
        QVERIFY(spy.wait(10000));
        QVERIFY2(w.modelPicker()->errorText().isEmpty(), qPrintable(w.modelPicker()->errorText()));
        QCOMPARE(w.controller()->model()->architecture, std::string("llama"));
        QCOMPARE(w.controller()->model()->source, ShapeSource::GgufHeader);
        QVERIFY(w.controller()->plan());
        QCOMPARE(w.modelPicker()->recentFiles().value(0), QFileInfo(path).absoluteFilePath());
    }

    void aFolderScanReportsUnreadableFilesAndCanBeCancelled() {
        QTemporaryDir dir;
        for (const char* name : {"a.gguf", "sub/b.gguf"}) {
            QDir().mkpath(QFileInfo(dir.filePath(QLatin1String(name))).absolutePath());
            QFile f(dir.filePath(QLatin1String(name)));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("not a gguf at all");
        }
        MainWindow w(quietConfig());
        QSignalSpy spy(w.modelPicker(), &ModelPicker::scanFinished);
        w.modelPicker()->scanFolder(dir.path());
        QVERIFY(w.modelPicker()->isScanning());
        QVERIFY(spy.wait(10000));
        QCOMPARE(spy.at(0).at(0).toInt(), 0);
        QCOMPARE(spy.at(0).at(1).toInt(), 2);
        QVERIFY(w.modelPicker()->errorText().contains(QStringLiteral("a.gguf")));
        // Cancel stops a scan in flight and leaves the picker ready again.
        w.modelPicker()->scanFolder(dir.path());
        w.modelPicker()->cancelScan();
        QVERIFY(spy.wait(10000));
        QVERIFY(!w.modelPicker()->isScanning());
    }

    void hardwareProfilesRoundTrip() {
        QTemporaryDir dir;
        MainWindow w(quietConfig());
        typeInto(child<QLineEdit>(&w, "vramEdit"), QStringLiteral("24GiB,12GiB"));
        typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("128GiB"));
        const QString path = dir.filePath(QStringLiteral("rig.json"));
        QVERIFY(w.hardwarePanel()->saveProfile(path).has_value());
        MainWindow w2(quietConfig());
        QVERIFY(w2.hardwarePanel()->loadProfile(path).has_value());
        QCOMPARE(w2.controller()->hardware().gpus.size(), size_t(2));
        QCOMPARE(w2.controller()->hardware().gpus[1].total_bytes, 12 * GiB);
        QCOMPARE(w2.controller()->hardware().ram_total, 128 * GiB);
        QFile bad(dir.filePath(QStringLiteral("bad.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"ram_total\": -5}");
        bad.close();
        QVERIFY(!w2.hardwarePanel()->loadProfile(bad.fileName()).has_value());
    }

    // The files a user names in the window follow the CLI's rules: a FIFO as the profile to load
    // is refused at once (QFile::open waited for a writer forever), and saving onto a symbolic
    // link replaces the link, never the file it points to.
    void aProfileIsNeverReadFromAFifoNorSavedThroughASymlink() {
        QTemporaryDir dir;
        MainWindow w(quietConfig());
        const std::string fifo = dir.filePath(QStringLiteral("fifo.json")).toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        const auto loaded = w.hardwarePanel()->loadProfile(QString::fromStdString(fifo));
        QVERIFY(!loaded.has_value());
        QVERIFY(loaded.error().message.find("FIFO") != std::string::npos);
        const QString real = dir.filePath(QStringLiteral("real.json"));
        const QString link = dir.filePath(QStringLiteral("link.json"));
        {
            QFile f(real);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("untouched");
        }
        QVERIFY(QFile::link(real, link));
        typeInto(child<QLineEdit>(&w, "vramEdit"), QStringLiteral("24GiB"));
        typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("64GiB"));
        QVERIFY(w.hardwarePanel()->saveProfile(link).has_value());
        QVERIFY(!QFileInfo(link).isSymLink());
        QFile f(real);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("untouched"));
        // The saved profile is a regular file that loads back.
        QVERIFY(w.hardwarePanel()->loadProfile(link).has_value());
    }

    void anRpcClusterProfileChartsEveryDeviceOfEveryHostAndLaunchesEachServer() {
        // Two rpc-server hosts of two 141 GiB GPUs each and a 24 GiB GPU on the main host (the
        // CLI test's cluster): DeepSeek-V3 Q4_K_M (376.7 GiB of weights) spreads over all five.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("cluster.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        const QByteArray gpus = // 141 GiB = 151397597184 bytes each
            "[{\"name\": \"CUDA0\", \"backend\": \"cuda\", \"total_bytes\": 151397597184},"
            " {\"name\": \"CUDA1\", \"backend\": \"cuda\", \"total_bytes\": 151397597184}]";
        f.write("{\"ram\": {\"total_bytes\": 274877906944}, \"devices\": [{\"name\": \"RTX 4090\", "
                "\"backend\": \"cuda\", \"total_bytes\": 25769803776}], \"rpc_hosts\": ["
                "{\"endpoint\": \"10.0.0.7:50052\", \"label\": \"den\", \"devices\": " +
                gpus + "}, {\"endpoint\": \"10.0.0.8:50052\", \"label\": \"attic\", \"devices\": " +
                gpus + "}]}");
        f.close();
        MainWindow w(quietConfig());
        QVERIFY(w.hardwarePanel()->loadProfile(path).has_value());
        QCOMPARE(w.controller()->hardware().rpc_hosts.size(), size_t(2));
        selectRow(w, QStringLiteral("deepseek-v3"));
        QVERIFY(w.controller()->plan());
        // One memory chart per device, RPC devices first as llama.cpp orders them (4 on the two
        // hosts, then the RTX 4090), then host RAM: 4 + 1 + 1 = 6. Each RPC chart is titled by
        // its host, so the columns read grouped host by host.
        QCOMPARE(w.chartsPanel()->memoryModelCount(), 6);
        const QStringList titles = {QStringLiteral("rpc 10.0.0.7:50052 (den) RPC0"),
                                    QStringLiteral("rpc 10.0.0.7:50052 (den) RPC1"),
                                    QStringLiteral("rpc 10.0.0.8:50052 (attic) RPC2"),
                                    QStringLiteral("rpc 10.0.0.8:50052 (attic) RPC3"),
                                    QStringLiteral("RTX 4090")};
        for (int i = 0; i < titles.size(); ++i)
            QCOMPARE(w.chartsPanel()->memoryModel(i)->deviceName(), titles[i]);
        // The launch: one rpc-server per host (its two GPUs), then llama-server with --rpc.
        const QString launch = child<QPlainTextEdit>(&w, "exportText")->toPlainText();
        QVERIFY2(launch.contains(QStringLiteral("# On 10.0.0.7:50052 (den): ggml-rpc-server -H "
                                                "10.0.0.7 -p 50052 -d CUDA0,CUDA1 -c")),
                 qPrintable(launch));
        QVERIFY2(launch.contains(QStringLiteral("# On 10.0.0.8:50052 (attic): ggml-rpc-server -H "
                                                "10.0.0.8 -p 50052 -d CUDA0,CUDA1 -c")),
                 qPrintable(launch));
        QVERIFY(launch.contains(QStringLiteral("--rpc 10.0.0.7:50052,10.0.0.8:50052")));
    }

    void chartsSaveAsPngAndSvg() {
        QTemporaryDir dir;
        MainWindow w(quietConfig());
        w.resize(1200, 800);
        w.show();
        typeInto(child<QLineEdit>(&w, "vramEdit"), QStringLiteral("24GiB"));
        typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("64GiB"));
        selectRow(w, QStringLiteral("qwen3-14b"));
        for (const char* name : {"chart.png", "chart.svg"}) {
            const QString path = dir.filePath(QLatin1String(name));
            auto ok = w.chartsPanel()->saveCurrentChart(path);
            QVERIFY2(ok.has_value(), ok ? "" : ok.error().message.c_str());
            QVERIFY(QFileInfo(path).size() > 1000);
        }
        QFile svg(dir.filePath(QStringLiteral("chart.svg")));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        QVERIFY(svg.readAll().contains("<svg"));
    }

    void everyInteractiveWidgetHasANameAndAnAccessibleName() {
        MainWindow w(quietConfig());
        w.show();
        typeInto(child<QLineEdit>(&w, "vramEdit"), QStringLiteral("24GiB"));
        typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("64GiB"));
        selectRow(w, QStringLiteral("qwen3-14b"));
        QStringList missing;
        for (QWidget* c : w.findChildren<QWidget*>()) {
            const bool interactive =
                qobject_cast<QAbstractButton*>(c) || qobject_cast<QComboBox*>(c) ||
                qobject_cast<QLineEdit*>(c) || qobject_cast<QAbstractSlider*>(c) ||
                qobject_cast<QAbstractSpinBox*>(c) || qobject_cast<QAbstractItemView*>(c);
            if (!interactive || !c->isVisibleTo(&w)) continue;
            // Qt's own inner parts (a spin box's line edit, a scroll bar, the tab bar's scrollers).
            if (qobject_cast<QAbstractSpinBox*>(c->parentWidget()) ||
                qobject_cast<QComboBox*>(c->parentWidget()) ||
                qobject_cast<QAbstractItemView*>(c->parentWidget()))
                continue;
            if (c->inherits("QScrollBar") || c->inherits("QToolButton") || c->inherits("QTabBar"))
                continue;
            if (c->objectName().isEmpty() || c->accessibleName().isEmpty())
                missing << QStringLiteral("%1 '%2'").arg(
                    QLatin1String(c->metaObject()->className()), c->objectName());
        }
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QStringLiteral(", "))));
    }

    void chartsFollowADarkPalette() {
        MainWindow w(quietConfig());
        w.show();
        const QPalette light = QApplication::palette();
        QPalette dark = light;
        dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x20));
        dark.setColor(QPalette::Base, QColor(0x18, 0x18, 0x18));
        dark.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
        QApplication::setPalette(dark);
        QCoreApplication::processEvents();
        QCOMPARE(w.chartsPanel()->chartBackground(), QColor(0x18, 0x18, 0x18));
        QApplication::setPalette(light);
    }

    void stateIsRestoredOnRestart() {
        QSettings().clear();
        MainWindowConfig c = quietConfig();
        c.restore_state = true;
        {
            MainWindow w(c);
            typeInto(child<QLineEdit>(&w, "vramEdit"), QStringLiteral("20GiB"));
            typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("48GiB"));
            selectRow(w, QStringLiteral("phi-4"));
            auto* ctv = child<QComboBox>(&w, "cacheTypeVCombo");
            ctv->setCurrentIndex(ctv->findText(QStringLiteral("q4_0")));
            auto* version = child<QComboBox>(&w, "llamaVersionCombo");
            version->setCurrentIndex(version->findText(QStringLiteral("v0.4.0")));
            w.saveState();
        }
        MainWindow again(c);
        QCOMPARE(qs(again.controller()->model()->id), QStringLiteral("phi-4"));
        QCOMPARE(again.controller()->options().cache_type_v, GgmlType::Q4_0);
        QCOMPARE(again.controller()->options().llama_version, LlamaVersion::V0_4_0);
        QCOMPARE(child<QComboBox>(&again, "llamaVersionCombo")->currentText(),
                 QStringLiteral("v0.4.0"));
        QCOMPARE(again.controller()->hardware().gpus.at(0).total_bytes, 20 * GiB);
        QCOMPARE(child<QComboBox>(&again, "cacheTypeVCombo")->currentText(),
                 QStringLiteral("q4_0"));
        // A build this Headroom no longer knows (settings from another version, or edited) comes
        // back as the default profile, not as garbage in the combo.
        {
            QSettings s;
            QVariantMap options = s.value(QStringLiteral("plan/options")).toMap();
            options[QStringLiteral("llama_version")] = QStringLiteral("v9.9.9");
            s.setValue(QStringLiteral("plan/options"), options);
        }
        MainWindow stale(c);
        QCOMPARE(stale.controller()->options().llama_version, kDefaultLlamaVersion);
        QCOMPARE(child<QComboBox>(&stale, "llamaVersionCombo")->currentText(),
                 QString::fromLatin1(llamaVersionName(kDefaultLlamaVersion)));
        QSettings().clear();
    }

    // Last: the README's picture of the main window, written into the build tree
    // (build/tests/screenshots/screenshot-main.png); `cmake --build build --target
    // docs-screenshots` copies it into docs/ — a test never writes into the source tree.
    void takesTheReadmeScreenshot() {
        MainWindow w(quietConfig());
        w.resize(1480, 920);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // A 16 GiB card with 64 GiB of RAM and a 70B model: low rungs spill, the top one is
        // refused, and the why panel shows the numbers and the remedies.
        typeInto(child<QLineEdit>(&w, "vramEdit"), QStringLiteral("16GiB"));
        typeInto(child<QLineEdit>(&w, "ramEdit"), QStringLiteral("64GiB"));
        selectRow(w, QStringLiteral("llama-3.3-70b-instruct"));
        auto* slider = child<QSlider>(&w, "contextSlider");
        slider->setFocus();
        QTest::keyClick(slider, Qt::Key_End);
        // The fit column is re-priced on a worker thread shortly after the last input change.
        QSignalSpy fits(w.modelPicker()->catalogModel(), &CatalogModel::fitsUpdated);
        QVERIFY(fits.wait(30000));
        QVERIFY(w.controller()->plan());
        QTest::qWait(50);
        const QPixmap shot = w.grab();
        QVERIFY(!shot.isNull());
        const QString docs =
            QCoreApplication::applicationDirPath() + QStringLiteral("/screenshots");
        QVERIFY(QDir().mkpath(docs));
        QSaveFile out(docs + QStringLiteral("/screenshot-main.png"));
        QVERIFY(out.open(QIODevice::WriteOnly));
        QVERIFY(shot.save(&out, "PNG"));
        QVERIFY(out.commit());
        // A real picture, not an empty file: it loads back at the size of the grabbed window.
        const QImage saved(docs + QStringLiteral("/screenshot-main.png"));
        QCOMPARE(saved.size(), shot.size());
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
