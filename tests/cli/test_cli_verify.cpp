// headroom-cli verify, run as a user would: against stand-in servers (shell scripts) that exit,
// hang, print garbage or print llama.cpp's buffer lines, and — when tests/verify/run.sh provides
// them (ctest verify_real_llama_server) — against a real llama-server loading a sparse replica
// of Llama-3.1-8B.
#include "common/cli_runner.h"
#include "common/verify_stand_ins.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstdio>

using headroom::test::runCli;
using namespace headroom;

namespace {

// A CPU-only machine and one context, so the plan has a single launch: -c 4096 on the host.
const QStringList kPlanFlags = {"--backend", "cpu",  "--vram", "0",  "--ram", "64GiB",
                                "-c",        "4096", "-fa",    "on", "-np",   "1"};

// Alive and not a zombie (/proc/PID/stat's third field is the state).
bool running(int pid) {
    if (::kill(pid, 0) != 0) return false;
    QFile stat(QString("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly)) return false;
    const QByteArray s = stat.readAll();
    const int close = s.lastIndexOf(')');
    return close < 0 || s.mid(close + 2, 1) != "Z";
}

QString mib(double bytes) {
    return QString::number(bytes / (1024.0 * 1024.0), 'f', 2);
}

} // namespace

class TestCliVerify : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString model_;

    QString script(const QString& name, const QByteArray& body) {
        return headroom::test::standInServer(dir_.filePath(name), body);
    }
    QStringList verifyArgs(const QString& server) const {
        return QStringList{"verify", model_, "--llama-server", server} + kPlanFlags;
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        model_ = dir_.filePath("llama.gguf");
        auto w = headroom::test::smallLlamaGguf().write(model_.toStdString());
        QVERIFY2(w.has_value(), w ? "" : w.error().message.c_str());
    }

    void aMissingServerBinaryIsUnreadableInput() {
        const auto r = runCli(verifyArgs(dir_.filePath("no-such-llama-server")));
        QCOMPARE(r.code, 3);
        QVERIFY2(r.err.contains("no-such-llama-server"), r.err.constData());
        // Not given and not in PATH: the message says how to name it.
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("PATH", dir_.path());
        const auto none = runCli(QStringList{"verify", model_} + kPlanFlags, env);
        QCOMPARE(none.code, 3);
        QVERIFY2(none.err.contains("--llama-server"), none.err.constData());
    }

    void aCatalogModelCannotBeVerified() {
        const auto r =
            runCli(QStringList{"verify", "--model", "qwen3-8b", "--llama-server", "/bin/true"} +
                   kPlanFlags);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("local GGUF"), r.err.constData());
    }

    void aServerThatExitsBeforeLoadingIsAProbeFailure() {
        const auto r =
            runCli(verifyArgs(script("exits.sh", "echo 'error: unknown argument'\nexit 1\n")));
        QCOMPARE(r.code, 4);
        QVERIFY2(r.err.contains("exit code 1"), r.err.constData());
        QVERIFY2(r.err.contains("unknown argument"), r.err.constData());
    }

    void aServerThatHangsIsStoppedAtTheTimeoutWithItsWholeProcessGroup() {
        // The script starts a child of its own and then waits: both must be gone afterwards.
        const QString pids = dir_.filePath("hang.pids");
        const auto r = runCli(verifyArgs(script("hangs.sh", "sleep 1000 &\necho $$ $! > '" +
                                                                pids.toUtf8() + "'\nwait\n")) +
                              QStringList{"--timeout", "2"});
        QCOMPARE(r.code, 4);
        QVERIFY2(r.err.contains("within 2 s"), r.err.constData());
        QFile f(pids);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto ids = QString::fromUtf8(f.readAll()).split(' ', Qt::SkipEmptyParts);
        QCOMPARE(ids.size(), 2);
        // Both were sent SIGKILL before verify returned; the orphaned `sleep` is reaped by init a
        // moment later, so each gets a second to disappear (a zombie already counts as gone).
        for (const auto& id : ids) {
            const int pid = id.trimmed().toInt();
            QVERIFY(pid > 0);
            QTRY_VERIFY_WITH_TIMEOUT(!running(pid), 1000);
        }
    }

    void garbageOutputIsAProbeFailure() {
        const auto r = runCli(verifyArgs(script(
            "garbage.sh", "head -c 200000 /dev/urandom | od -An\necho 'server is listening'\n")));
        QCOMPARE(r.code, 4);
        QVERIFY2(r.err.contains("no buffer lines"), r.err.constData());
    }

    void theBadTimeoutIsABadArgument() {
        QCOMPARE(runCli(verifyArgs("/bin/true") + QStringList{"--timeout", "0"}).code, 2);
    }

    void buffersAreComparedTermByTermAndTheCalibrationIsSaved() {
        // The plan's own host terms, printed back by a stand-in server the way llama.cpp prints
        // them, except the compute buffer, which it reports at twice the plan's figure.
        const auto p = runCli(QStringList{"plan", model_, "--json", "--mtp", "off"} + kPlanFlags);
        QCOMPARE(p.code, 0);
        const auto plan = QJsonDocument::fromJson(p.out).object();
        QJsonObject host;
        for (const auto& rung : plan["rungs"].toArray())
            if (rung.toObject()["context"].toInt() == 4096)
                host = rung.toObject()["host"].toObject();
        QVERIFY(!host.isEmpty());
        const double weights = host["weights"].toDouble(), kv = host["kv"].toDouble(),
                     output = host["output"].toDouble(), compute = host["compute"].toDouble();
        QVERIFY(compute > 0);
        const QByteArray body =
            "echo 'main: build = 1 (build: 4242 (abc1234) with cc)'\n"
            "echo 'load_tensors:   CPU_Mapped model buffer size = " +
            mib(weights).toUtf8() +
            " MiB'\n"
            "echo 'llama_context:        CPU  output buffer size = " +
            mib(output).toUtf8() +
            " MiB'\n"
            "echo 'llama_kv_cache:        CPU KV buffer size = " +
            mib(kv).toUtf8() +
            " MiB'\n"
            "echo 'sched_reserve:        CPU compute buffer size = " +
            mib(2 * compute).toUtf8() +
            " MiB'\n"
            "echo 'main: server is listening on http://127.0.0.1:8080'\nexec sleep 1000\n";
        const QString profile = dir_.filePath("calibrated.json");
        const auto r = runCli(verifyArgs(script("fake-llama-server.sh", body)) +
                              QStringList{"--json", "--save-calibration", profile});
        QCOMPARE(r.code, 0);
        const auto v = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(v["schema"].toString(), QString("headroom.verify/1"));
        QCOMPARE(v["llama_build"].toString(), QString("b4242 (abc1234)"));
        QVERIFY(v["exact_terms_agree"].toBool());
        const auto devices = v["devices"].toArray();
        QCOMPARE(devices.size(), 1); // CPU only: the host
        const auto terms = devices[0].toObject()["terms"].toObject();
        for (const char* t : {"weights", "kv", "output"})
            QVERIFY2(terms[t].toObject()["agrees"].toBool(), t);
        // compute: planned c, measured round2(2c) -> difference about -c (within the log's
        // 0.005 MiB rounding), and the host factor about 2.
        const auto c = terms["compute"].toObject();
        QVERIFY(std::abs(c["difference_bytes"].toDouble() + compute) <= 5243);
        const double factor = v["calibration"].toObject()["host_compute_factor"].toDouble();
        QVERIFY2(std::abs(factor - 2.0) < 1e-3, qPrintable(QString::number(factor)));

        // A later plan on the saved profile prices host compute x2 and says it was verified.
        const auto again =
            runCli(QStringList{"plan", model_, "--hardware", profile, "--json", "--mtp", "off",
                               "-c", "4096", "-fa", "on", "-np", "1", "--backend", "cpu"});
        QCOMPARE(again.code, 0);
        const auto plan2 = QJsonDocument::fromJson(again.out).object();
        double compute2 = 0;
        for (const auto& rung : plan2["rungs"].toArray())
            if (rung.toObject()["context"].toInt() == 4096)
                compute2 = rung.toObject()["host"].toObject()["compute"].toDouble();
        QVERIFY2(std::abs(compute2 - std::ceil(compute * factor)) <= 1,
                 qPrintable(QString::number(compute2)));
        bool noted = false;
        for (const auto& n : plan2["notes"].toArray())
            noted =
                noted || n.toString().contains("verified on this machine, llama.cpp build b4242");
        QVERIFY(noted);
    }

    // The real engine (ctest verify_real_llama_server sets both variables): llama-server from
    // the llama.cpp that node-llama-cpp ships, on a sparse replica of Llama-3.1-8B. Weights, KV
    // and output must agree with the plan within the log's rounding; compute is reported.
    void aRealLlamaServerAgreesOnWeightsKvAndOutput() {
        const QString server = qEnvironmentVariable("HEADROOM_LLAMA_SERVER");
        const QString replica = qEnvironmentVariable("HEADROOM_VERIFY_GGUF");
        if (server.isEmpty() || replica.isEmpty())
            QSKIP("no real llama-server given (ctest verify_real_llama_server runs this)");
        const auto r = runCli(QStringList{"verify", replica, "--llama-server", server, "--json",
                                          "--timeout", "300", "--mtp", "off"} +
                                  kPlanFlags,
                              QProcessEnvironment::systemEnvironment(), 330000);
        QVERIFY2(r.code == 0, r.err.constData());
        const auto v = QJsonDocument::fromJson(r.out).object();
        QVERIFY2(v["llama_build"].toString().startsWith("b"), r.out.constData());
        QVERIFY2(v["exact_terms_agree"].toBool(), r.out.constData());
        const auto host = v["devices"].toArray().last().toObject()["terms"].toObject();
        // Llama-3.1-8B at 4096 cells, f16 K and V: 32 layers x 4096 x 1024 x 2 B x 2 = 512 MiB.
        QCOMPARE(host["kv"].toObject()["measured_bytes"].toDouble(), 512.0 * 1024 * 1024);
        QVERIFY(host["weights"].toObject()["measured_bytes"].toDouble() > 8e9);
        QVERIFY(host["compute"].toObject()["measured_bytes"].toDouble() > 0);
        std::fprintf(stderr, "%s\n", r.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliVerify)
#include "test_cli_verify.moc"
