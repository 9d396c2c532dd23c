// Several models loaded together in the GUI: the set panel plans the models the user adds as one
// set (planModelSet) on the window's machine and options, says what each gets and why a set does
// not fit, and its chart draws, per device, each member's bytes, what is left free and the usable
// budget — the same numbers the planner gives for the set.
#include "catalog.h"
#include "charts/chartspanel.h"
#include "charts/setchart.h"
#include "hardware_presets.h"
#include "mainwindow.h"
#include "modelpicker.h"
#include "setmodel.h"
#include "setpanel.h"
#include "ui_test_util.h"

#include "core/model_set.h"

#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

#include <cmath>

using namespace headroom;
using namespace headroom::ui;
using namespace headroom::ui::test;

class TestSetPanel : public QObject {
    Q_OBJECT

    Catalog m_catalog;

    ModelShape shape(const char* id) {
        auto s = m_catalog.shape(id);
        if (!s) qFatal("catalog model %s missing", id);
        return *s;
    }
    HardwareSnapshot preset(const char* id) {
        auto hw = presetSnapshot(id);
        if (!hw) qFatal("preset %s missing", id);
        return *hw;
    }
    // The set as the planner makes it, the panel's reference.
    ModelSet expectedSet(const std::vector<ModelShape>& models, const HardwareSnapshot& hw) {
        std::vector<SetMember> members;
        members.reserve(models.size());
        for (const ModelShape& m : models)
            members.push_back({m, PlanOptions{}});
        auto set = planModelSet(members, hw);
        if (!set) qFatal("planModelSet failed: %s", set.error().message.c_str());
        return *set;
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        auto c = loadBuiltinCatalog();
        QVERIFY(c.has_value());
        m_catalog = std::move(*c);
    }

    // The pair on an RTX 4090: every cell of the chart's model is the member's launched
    // bytes on that device, the free segment is what the set leaves of the usable budget, and
    // the chart draws exactly those values under the usable line.
    void twoModelsArePlannedTogetherAndChartedPerDevice() {
        SetPanel panel;
        const HardwareSnapshot hw = preset("rtx-4090");
        panel.setInputs(hw, PlanOptions{});
        QVERIFY(panel.addMember(shape("qwen3-30b-a3b")));
        QVERIFY(panel.addMember(shape("gpt-oss-20b")));
        QTRY_VERIFY(!panel.isPlanning());
        const ModelSet want = expectedSet({shape("qwen3-30b-a3b"), shape("gpt-oss-20b")}, hw);
        const SetMemoryModel* m = panel.model();
        QCOMPARE(m->memberCount(), 2);
        QCOMPARE(m->rowCount(), int(want.devices.size()) + 1); // the card, then host RAM
        QStringList pools;
        for (int r = 0; r < m->rowCount(); ++r) {
            const bool host = r == int(want.devices.size());
            const SetUse& use = host ? want.host : want.devices[size_t(r)];
            pools << qs(use.name);
            SignedBytes used = 0;
            for (int k = 0; k < 2; ++k) {
                const Rung* rung = launchedRung(want.plans[size_t(k)]);
                QVERIFY(rung);
                const Bytes b = host ? rung->host_bytes : rung->devices[size_t(r)].bytes;
                QCOMPARE(m->cellBytes(r, k), toSigned(b));
                used += toSigned(b);
            }
            QCOMPARE(used, toSigned(use.bytes)); // the members add up to the set's sum
            QCOMPARE(m->cellBytes(r, m->freeColumn()), std::max<SignedBytes>(0, use.usable - used));
            QCOMPARE(m->cellBytes(r, m->usableColumn()), use.usable);
        }
        const SetChart* chart = panel.chart();
        QCOMPARE(chart->categories(), pools);
        QCOMPARE(chart->segmentLabels(),
                 (QStringList{m->memberName(0), m->memberName(1), QStringLiteral("Free")}));
        for (int s = 0; s <= m->freeColumn(); ++s) {
            const QList<qreal> values = chart->segmentValues(s);
            QCOMPARE(values.size(), m->rowCount());
            for (int r = 0; r < m->rowCount(); ++r)
                QCOMPARE(values[r], m->index(r, s).data().toDouble());
        }
        const QList<QPointF> budget = chart->budgetPoints();
        QCOMPARE(budget.size(), 2 * m->rowCount()); // a step across each bar
        QCOMPARE(budget[0].y(), toGiB(want.devices[0].usable));

        // What the CLI's `plan A B` says: both fit, with each member's chosen -c.
        const QString summary = panel.summaryText();
        QVERIFY2(summary.startsWith(QStringLiteral("The set fits together")), qPrintable(summary));
        for (const Plan& p : want.plans)
            QVERIFY2(
                summary.contains(QStringLiteral("-c %1").arg(launchedRung(p)->requested_context)),
                qPrintable(summary));
    }

    // Two 70B models on a 12 GB card with 32 GB of RAM: the second has nowhere to go, and the
    // panel says which model and why, in the planner's words.
    void aSetThatDoesNotFitNamesTheModelAndWhy() {
        SetPanel panel;
        const HardwareSnapshot hw = preset("rtx-3060-12g");
        panel.setInputs(hw, PlanOptions{});
        panel.addMember(shape("llama-3.1-8b-instruct"));
        panel.addMember(shape("llama-3.1-70b-instruct"));
        QTRY_VERIFY(!panel.isPlanning());
        const ModelSet want =
            expectedSet({shape("llama-3.1-8b-instruct"), shape("llama-3.1-70b-instruct")}, hw);
        QVERIFY(!want.fits);
        const QString summary = panel.summaryText();
        QVERIFY2(summary.startsWith(QStringLiteral("The set does not fit together.")),
                 qPrintable(summary));
        QVERIFY2(summary.contains(qs(want.blocked_why)), qPrintable(summary));
        QVERIFY(summary.contains(QStringLiteral("no launch beside the ones before it")));
    }

    // One model is not a set: a hint, no chart; a second brings the chart, removing it takes it
    // away again, and Clear empties the list.
    void oneModelIsNotASetAndRemovingGoesBackToIt() {
        SetPanel panel;
        panel.setInputs(preset("rtx-4090"), PlanOptions{});
        auto* add = panel.findChild<QPushButton*>(QStringLiteral("setAdd"));
        auto* remove = panel.findChild<QPushButton*>(QStringLiteral("setRemove"));
        auto* clear = panel.findChild<QPushButton*>(QStringLiteral("setClear"));
        QVERIFY(add && remove && clear);
        QVERIFY(!add->isEnabled()); // nothing selected to add
        const ModelShape a = shape("qwen3-8b");
        panel.setCandidate(&a);
        QVERIFY(add->isEnabled());
        QTest::mouseClick(add, Qt::LeftButton);
        QCOMPARE(panel.memberIds(), QStringList{QStringLiteral("qwen3-8b")});
        QCOMPARE(panel.model()->rowCount(), 0);
        QVERIFY(panel.summaryText().isEmpty());
        QVERIFY(panel.findChild<QLabel*>(QStringLiteral("setHint"))
                    ->text()
                    .startsWith(QStringLiteral("Add another model")));
        const ModelShape b = shape("qwen3-0.6b");
        panel.setCandidate(&b);
        QTest::mouseClick(add, Qt::LeftButton);
        QTRY_VERIFY(!panel.isPlanning());
        QCOMPARE(panel.model()->memberCount(), 2);
        // Each member's row says what it gets.
        QVERIFY2(panel.findChild<QListWidget*>(QStringLiteral("setMembers"))
                     ->item(0)
                     ->text()
                     .startsWith(QStringLiteral("Qwen3 8B — ")),
                 qPrintable(
                     panel.findChild<QListWidget*>(QStringLiteral("setMembers"))->item(0)->text()));
        // The list's current row is the one just added: Remove takes it off.
        QTest::mouseClick(remove, Qt::LeftButton);
        QCOMPARE(panel.memberIds(), QStringList{QStringLiteral("qwen3-8b")});
        QCOMPARE(panel.model()->rowCount(), 0);
        QTest::mouseClick(clear, Qt::LeftButton);
        QCOMPARE(panel.memberCount(), 0);
        QVERIFY(!clear->isEnabled());
    }

    void theSetHoldsAtMostTheModelsThePlannerPlans() {
        SetPanel panel;
        const ModelShape m = shape("qwen3-0.6b");
        panel.setCandidate(&m);
        for (size_t k = 0; k < kMaxSetModels; ++k)
            QVERIFY(panel.addMember(m));
        QVERIFY(!panel.addMember(m));
        QCOMPARE(panel.memberCount(), int(kMaxSetModels));
        QVERIFY(!panel.findChild<QPushButton*>(QStringLiteral("setAdd"))->isEnabled());
    }

    // In the window: the picked model is what Add adds, the set follows the window's machine and
    // options (a q8_0 K cache reaches every member), and the set comes back on restart.
    void theWindowsSelectionMachineAndOptionsFeedTheSet() {
        QSettings().clear();
        MainWindowConfig c = quietConfig();
        c.restore_state = true;
        {
            MainWindow w(c);
            machine(w, "24GiB", "64GiB");
            auto* add = child<QPushButton>(&w, "setAdd");
            QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("qwen3-14b")));
            QTest::mouseClick(add, Qt::LeftButton);
            QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("qwen3-0.6b")));
            QTest::mouseClick(add, Qt::LeftButton);
            QCOMPARE(w.setPanel()->memberIds(),
                     (QStringList{QStringLiteral("qwen3-14b"), QStringLiteral("qwen3-0.6b")}));
            auto* ctk = child<QComboBox>(&w, "cacheTypeKCombo");
            ctk->setCurrentIndex(ctk->findText(QStringLiteral("q8_0")));
            QTRY_VERIFY(w.setPanel()->model()->memberCount() == 2 &&
                        w.setPanel()->model()->set().plans[1].options.cache_type_k ==
                            GgmlType::Q8_0);
            QCOMPARE(w.setPanel()->model()->set().plans[0].hardware.gpus.at(0).total_bytes,
                     24 * GiB);
            // The set's chart is a tab of the charts panel, brought to the front when the set
            // appeared; with one model left it is disabled and the panel goes back to memory.
            auto* tabs = child<QTabWidget>(&w, "chartTabs");
            const int tab = tabs->indexOf(w.setPanel()->chart());
            QVERIFY(tab >= 0);
            QVERIFY(tabs->isTabEnabled(tab));
            QCOMPARE(tabs->currentIndex(), tab);
            QCOMPARE(w.chartsPanel()->currentChartView(), w.setPanel()->chart()->view());
            w.setPanel()->removeMember(1);
            QVERIFY(!tabs->isTabEnabled(tab));
            QCOMPARE(tabs->currentIndex(), 0);
            QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("qwen3-0.6b")));
            QTest::mouseClick(add, Qt::LeftButton);
            QTRY_VERIFY(!w.setPanel()->isPlanning() && w.setPanel()->model()->memberCount() == 2);
            w.saveState();
        }
        MainWindow again(c);
        QCOMPARE(again.setPanel()->memberIds(),
                 (QStringList{QStringLiteral("qwen3-14b"), QStringLiteral("qwen3-0.6b")}));
        QSettings().clear();
    }
};

QTEST_MAIN(TestSetPanel)
#include "test_set_panel.moc"
