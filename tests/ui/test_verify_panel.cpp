// The GUI's "Verify on my llama.cpp": the same run as `headroom-cli verify` (core/verify), off the
// GUI thread, against stand-in llama-server scripts that print llama.cpp's buffer lines or exit.
#include "verifypanel.h"

#include "common/verify_stand_ins.h"
#include "core/arch/shape_from_gguf.h"
#include "core/gguf/gguf_writer.h"
#include "core/planner.h"

#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace headroom;
using namespace headroom::ui;

class TestVerifyPanel : public QObject {
    Q_OBJECT
private:
    QTemporaryDir dir_;
    QString model_;

    // A stand-in llama-server: `body` after the shebang, executable.
    QString script(const QString& name, const QByteArray& body) {
        QString path = test::standInServer(dir_.filePath(name), body);
        if (path.isEmpty()) qFatal("cannot write %s", qPrintable(name));
        return path;
    }

    // The CPU-only plan of the test model at 4096 tokens: one launch, on the host.
    Plan plan() {
        auto shape = shapeFromGgufFile(model_.toStdString());
        if (!shape) qFatal("%s", shape.error().message.c_str());
        PlanOptions o;
        o.context = 4096;
        o.backend = Backend::Cpu;
        o.mtp = MtpMode::Off;
        auto p = makePlan(*shape, snapshotFromSizes({}, 64 * GiB, false), o);
        if (!p) qFatal("%s", p.error().message.c_str());
        return *p;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // A small llama: 4 blocks of n_embd 1024, 4096 tokens (the data is a hole).
        const GgufWriter w = test::smallLlamaGguf();
        model_ = dir_.filePath("llama-test.gguf");
        QVERIFY(w.write(model_.toStdString()));
    }

    void aLoadedServerGivesEachDevicesDifferencesWithoutBlockingTheWindow() {
        VerifyPanel panel;
        const Plan p = plan();
        panel.setPlan(p);
        // The server prints the host's buffers as the plan has them, but twice the compute, then
        // says it listens and waits to be stopped.
        const Rung& rung = p.rungs[static_cast<size_t>(p.decision.rung_index)];
        auto mib = [](Bytes b) {
            return QByteArray::number(double(b) / (1024.0 * 1024.0), 'f', 2);
        };
        panel.setServer(script(
            "fake-llama-server.sh",
            "echo 'main: build = 1 (build: 4242 (abc1234) with cc)'\n"
            "echo 'load_tensors:   CPU_Mapped model buffer size = " +
                mib(rung.host.weights) +
                " MiB'\n"
                "echo 'llama_context:        CPU  output buffer size = " +
                mib(rung.host.output) + " MiB'\n" +
                "echo 'llama_kv_cache:        CPU KV buffer size = " + mib(rung.host.kv()) +
                " MiB'\n" + "echo 'sched_reserve:        CPU compute buffer size = " +
                mib(2 * rung.host.compute) + " MiB'\n" +
                "echo 'main: server is listening on http://127.0.0.1:8080'\nexec sleep 1000\n"));
        QSignalSpy done(&panel, &VerifyPanel::finished);
        QSignalSpy failed(&panel, &VerifyPanel::failed);
        auto* button = panel.findChild<QPushButton*>(QStringLiteral("verifyButton"));
        QVERIFY(button && button->isEnabled());
        QTest::mouseClick(button, Qt::LeftButton);
        // The click returns at once: the load runs on a worker thread, and the button waits.
        QVERIFY(panel.isRunning());
        QVERIFY(!button->isEnabled());
        QVERIFY(done.wait(30000));
        QCOMPARE(failed.count(), 0);
        const QString report = panel.reportText();
        // formatVerifyReport: the host's terms, planned against measured, and the build.
        QVERIFY2(report.contains("host"), qPrintable(report));
        QVERIFY2(report.contains("compute"), qPrintable(report));
        QVERIFY2(report.contains("b4242"), qPrintable(report));
        QVERIFY(button->isEnabled());
    }

    void aServerThatExitsIsReportedAsTheCliReportsIt() {
        VerifyPanel panel;
        panel.setPlan(plan());
        panel.setServer(script("exits.sh", "echo 'error: no such file'\nexit 3\n"));
        QSignalSpy failed(&panel, &VerifyPanel::failed);
        panel.start();
        QVERIFY(failed.wait(30000));
        const QString message = failed.at(0).at(0).toString();
        QVERIFY2(message.contains("exited before the model was loaded (exit code 3)"),
                 qPrintable(message));
        QVERIFY(panel.reportText().isEmpty());
    }

    void aCatalogModelHasNoFileToLoad() {
        VerifyPanel panel;
        Plan p = plan();
        p.model.id = "qwen3-8b"; // a catalog id, not a file
        panel.setPlan(p);
        auto* button = panel.findChild<QPushButton*>(QStringLiteral("verifyButton"));
        QVERIFY(!button->isEnabled());
        panel.start();
        QVERIFY(!panel.isRunning());
    }
};

QTEST_MAIN(TestVerifyPanel)
#include "test_verify_panel.moc"
