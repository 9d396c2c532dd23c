// The window at the sizes people run it at — 1024×700, 1366×768, 1920×1080, and the same at
// 200 % scale (QT_SCALE_FACTOR=2, set by the ctest entry that runs this under Xvfb) — shows every
// label and button whole: each visible one's size hint fits its geometry, or it elides with a
// tooltip that carries the whole text. The first window size fits the screen. Screenshots of
// each size go to the build tree (build/tests/screenshots/layout-WxH[@2x].png); the
// docs-screenshots target copies them into docs/ — a test never writes into the source tree.
#include "hardwarepanel.h"
#include "mainwindow.h"
#include "modelpicker.h"
#include "setmodel.h"
#include "setpanel.h"
#include "ui/ui_test_util.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScreen>
#include <QSlider>
#include <QTabBar>
#include <QtTest>

using namespace headroom;
using namespace headroom::ui;
using namespace headroom::ui::test;

namespace {

// Text that would not fit: "objectName (class): needs W×H, has W×H".
QStringList clippedWidgets(QWidget* root) {
    QStringList out;
    auto describe = [](QWidget* w, QSize need) {
        return QStringLiteral("%1 (%2 '%3'): needs %4x%5, has %6x%7")
            .arg(w->objectName(), QLatin1String(w->metaObject()->className()))
            .arg(w->property("text").toString().left(40))
            .arg(need.width())
            .arg(need.height())
            .arg(w->width())
            .arg(w->height());
    };
    for (QWidget* w : root->findChildren<QWidget*>()) {
        if (!w->isVisible() || w->window() != root) continue;
        // Inside a scroll area (the model table's cells, the export text) content may scroll.
        if (w->inherits("QAbstractItemView") || w->inherits("QPlainTextEdit") ||
            w->inherits("QScrollBar") || w->inherits("QChartView") || w->inherits("QTabBar") ||
            w->inherits("QHeaderView") || w->inherits("QMenuBar"))
            continue;
        const bool hasTip = !w->toolTip().isEmpty();
        if (auto* l = qobject_cast<QLabel*>(w)) {
            if (l->text().isEmpty() || !l->pixmap().isNull()) continue;
            if (l->wordWrap()) {
                const int need = l->heightForWidth(l->width());
                if (need > l->height() + 1 && !hasTip) out << describe(l, QSize(l->width(), need));
                continue;
            }
            const QSize need = l->minimumSizeHint();
            if ((need.width() > l->width() + 1 || need.height() > l->height() + 1) && !hasTip)
                out << describe(l, need);
            continue;
        }
        if (qobject_cast<QAbstractButton*>(w) || qobject_cast<QComboBox*>(w)) {
            if (w->parentWidget() && w->parentWidget()->inherits("QTabBar")) continue;
            const QSize need = qobject_cast<QComboBox*>(w)
                                   ? w->minimumSizeHint() // combos elide by design
                                   : w->sizeHint();
            // A button or combo narrower than its text elides it: fine only with a tooltip.
            const bool tooNarrow = need.width() > w->width() + 1;
            const bool tooLow = need.height() > w->height() + 1;
            if (tooLow || (tooNarrow && !hasTip)) out << describe(w, need);
            if (auto* c = qobject_cast<QComboBox*>(w)) {
                const int textWidth = c->fontMetrics().horizontalAdvance(c->currentText());
                // The visible text room is the width less the arrow and frame (about 2 em).
                const bool elided = textWidth + 2 * c->fontMetrics().height() > c->width();
                if (elided && c->toolTip().isEmpty() &&
                    c->itemData(c->currentIndex(), Qt::ToolTipRole).toString().isEmpty())
                    out << describe(c, QSize(textWidth, c->height()));
            }
        }
    }
    return out;
}

} // namespace

class TestLayout : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // The check itself can fail: a button squeezed below its text, a label without room, and
    // the same button once it has a tooltip (elided on purpose) is accepted.
    void theClippingCheckCatchesACutButtonAndLabel() {
        QWidget window;
        window.setObjectName(QStringLiteral("probeWindow"));
        auto* button = new QPushButton(QStringLiteral("A rather long button text"), &window);
        button->setObjectName(QStringLiteral("cutButton"));
        button->setGeometry(0, 0, 40, button->sizeHint().height());
        auto* label = new QLabel(QStringLiteral("A label that needs much more room"), &window);
        label->setObjectName(QStringLiteral("cutLabel"));
        label->setGeometry(0, 40, 30, 20);
        window.resize(200, 100);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QStringList clipped = clippedWidgets(&window);
        QCOMPARE(clipped.size(), 2);
        QVERIFY(clipped[0].startsWith(QStringLiteral("cut")));
        button->setToolTip(button->text());
        label->setToolTip(label->text());
        QVERIFY(clippedWidgets(&window).isEmpty());
    }

    void theFirstWindowFitsTheScreen() {
        // The offscreen platform's screen is a fixed 800×800 stand-in: sizes are judged on a
        // real X server, by the test_layout_xvfb entries (100 % and 200 %).
        if (QGuiApplication::platformName() == QLatin1String("offscreen"))
            QSKIP("needs a real screen (run by test_layout_xvfb)");
        MainWindow w(quietConfig());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QRect screen = w.screen()->availableGeometry();
        QVERIFY2(w.frameGeometry().width() <= screen.width() &&
                     w.frameGeometry().height() <= screen.height(),
                 qPrintable(QStringLiteral("window %1x%2 on a %3x%4 screen")
                                .arg(w.frameGeometry().width())
                                .arg(w.frameGeometry().height())
                                .arg(screen.width())
                                .arg(screen.height())));
    }

    void nothingIsCutAtCommonSizes_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1024x700") << QSize(1024, 700);
        QTest::newRow("1366x768") << QSize(1366, 768);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void nothingIsCutAtCommonSizes() {
        // The offscreen platform's screen is a fixed 800×800 stand-in: sizes are judged on a
        // real X server, by the test_layout_xvfb entries (100 % and 200 %).
        if (QGuiApplication::platformName() == QLatin1String("offscreen"))
            QSKIP("needs a real screen (run by test_layout_xvfb)");
        QFETCH(QSize, size);
        MainWindow w(quietConfig());
        const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
        if (size.width() > screen.width() || size.height() > screen.height())
            QSKIP(qPrintable(QStringLiteral("the screen (%1x%2 logical) is smaller")
                                 .arg(screen.width())
                                 .arg(screen.height())));
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // The README's scene: a 16 GiB card, 64 GiB of RAM, a 70B model at its largest rung —
        // spilled rungs, a refusal, its numbers and its remedies all on screen.
        typeInto(w.findChild<QLineEdit*>(QStringLiteral("vramEdit")), QStringLiteral("16GiB"));
        typeInto(w.findChild<QLineEdit*>(QStringLiteral("ramEdit")), QStringLiteral("64GiB"));
        QVERIFY(w.modelPicker()->selectModelId(QStringLiteral("llama-3.3-70b-instruct")));
        auto* slider = w.findChild<QSlider*>(QStringLiteral("contextSlider"));
        slider->setFocus();
        QTest::keyClick(slider, Qt::Key_End);
        // Two models loaded together: the set's list, summary and chart are on screen too.
        const CatalogModel* cm = w.modelPicker()->catalogModel();
        for (const char* id : {"qwen3-14b", "qwen3-8b"})
            w.setPanel()->addMember(cm->quantsAt(cm->rowOfId(QLatin1String(id))).front());
        QTRY_VERIFY(w.setPanel()->model()->memberCount() == 2);
        QTest::qWait(50);
        QCOMPARE(w.size(), size); // the layout's minimum does not push the window past it
        const QString dir = QCoreApplication::applicationDirPath() + QStringLiteral("/screenshots");
        QVERIFY(QDir().mkpath(dir));
        const qreal scale = w.devicePixelRatioF();
        const QString name = QStringLiteral("%1/layout-%2x%3%4.png")
                                 .arg(dir)
                                 .arg(size.width())
                                 .arg(size.height())
                                 .arg(scale > 1.5 ? QStringLiteral("@2x") : QString());
        QVERIFY(w.grab().save(name, "PNG"));
        const QStringList clipped = clippedWidgets(&w);
        QVERIFY2(clipped.isEmpty(), qPrintable(clipped.join(QStringLiteral("\n"))));
    }
};

QTEST_MAIN(TestLayout)
#include "test_layout.moc"
