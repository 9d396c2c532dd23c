// headroom-cli export: the CLI contract — every target writes what the core exporters produce,
// files are written atomically and never replaced without --force, bad arguments exit 2.
#include "common/cli_runner.h"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

using headroom::test::runCli;
using Run = headroom::test::CliRun;

namespace {

// A catalog model on a 24 GiB card: Llama 3.1 8B fits at 128K (the `plan` command's answer).
const QStringList kPlanFlags = {QStringLiteral("--model"), QStringLiteral("llama-3.1-8b-instruct"),
                                QStringLiteral("--vram"),  QStringLiteral("24GiB"),
                                QStringLiteral("--ram"),   QStringLiteral("64GiB")};

Run exportTo(const QString& to, const QStringList& extra = {}) {
    QStringList args = {QStringLiteral("export"), QStringLiteral("--to"), to};
    args << kPlanFlags << extra;
    return runCli(args);
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestCliExport : public QObject {
    Q_OBJECT
private slots:
    void llamaServerScriptGoesToStdoutByDefault() {
        const Run r = exportTo(QStringLiteral("llama-server"));
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.startsWith("#!/bin/sh\n"));
        QVERIFY(r.out.contains("exec llama-server"));
        QVERIFY(r.out.contains("-c 131072"));
        QVERIFY(r.out.contains("fit: off"));
    }

    void outputFileHoldsExactlyWhatStdoutWouldAndIsExecutable() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("launch.sh"));
        const Run stdoutRun = exportTo(QStringLiteral("llama-server"));
        const Run fileRun = exportTo(QStringLiteral("llama-server"), {QStringLiteral("-o"), path});
        QCOMPARE(fileRun.code, 0);
        QVERIFY(fileRun.out.isEmpty());
        QCOMPARE(readAll(path), stdoutRun.out);
        QVERIFY(QFileInfo(path).isExecutable());
        // Atomic write: the temporary file was renamed into place, nothing else is left.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("launch.sh")});
    }

    void existingFileIsNotReplacedWithoutForce() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("Modelfile"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("mine\n");
        }
        const Run refused = exportTo(QStringLiteral("ollama"), {QStringLiteral("-o"), path});
        QCOMPARE(refused.code, 2);
        QVERIFY(refused.err.contains("already exists"));
        QCOMPARE(readAll(path), QByteArray("mine\n"));
        const Run forced = exportTo(QStringLiteral("ollama"),
                                    {QStringLiteral("-o"), path, QStringLiteral("--force")});
        QCOMPARE(forced.code, 0);
        QVERIFY(readAll(path).contains("PARAMETER num_ctx 131072"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("Modelfile")});
    }

    void unknownTargetExitsTwo() {
        const Run r = exportTo(QStringLiteral("lmstudio"));
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("--to"));
    }

    void missingTargetExitsTwo() {
        QStringList args = {QStringLiteral("export")};
        args << kPlanFlags;
        QCOMPARE(runCli(args).code, 2);
    }

    // --swap-routing takes matrix or groups; anything else is a bad argument naming the flag.
    void badSwapRoutingExitsTwo() {
        const Run r = exportTo(QStringLiteral("llama-swap"),
                               {QStringLiteral("--swap-routing"), QStringLiteral("group")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("--swap-routing"));
    }

    void badFitPolicyExitsTwo() {
        const Run r = exportTo(QStringLiteral("llama-server"),
                               {QStringLiteral("--fit-policy"), QStringLiteral("auto")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("--fit-policy"));
    }

    void unwritableDestinationExitsThree() {
        const Run r =
            exportTo(QStringLiteral("json"),
                     {QStringLiteral("-o"), QStringLiteral("/nonexistent-dir/plan.json")});
        QCOMPARE(r.code, 3);
        QVERIFY(r.err.contains("/nonexistent-dir/plan.json"));
    }

    void refusedPlanHasNothingToLaunchAndExitsTwo() {
        // 1 GiB of VRAM and 2 GiB of RAM cannot hold an 8B model's ~4.6 GiB of weights.
        const Run r =
            runCli({QStringLiteral("export"), QStringLiteral("--to"),
                    QStringLiteral("llama-server"), QStringLiteral("--model"),
                    QStringLiteral("llama-3.1-8b-instruct"), QStringLiteral("--vram"),
                    QStringLiteral("1GiB"), QStringLiteral("--ram"), QStringLiteral("2GiB")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("nothing to export"));
    }

    void llamaSwapOutputIsYamlWithThePortMacroAndTtl() {
        const Run r = exportTo(QStringLiteral("llama-swap"),
                               {QStringLiteral("--ttl"), QStringLiteral("600"),
                                QStringLiteral("--swap-id"), QStringLiteral("llama8b")});
        QCOMPARE(r.code, 0);
        const YAML::Node root = YAML::Load(r.out.toStdString());
        const YAML::Node m = root["models"]["llama8b"];
        QVERIFY(m.IsMap());
        QCOMPARE(m["ttl"].as<int>(), 600);
        QVERIFY(m["cmd"].as<std::string>().find("--port ${PORT}") != std::string::npos);
        QCOMPARE(m["metadata"]["headroom"]["context"].as<unsigned>(), 131072u);
    }

    void jsonOutputIsThePlanSchemaSameAsPlanJson() {
        const Run r = exportTo(QStringLiteral("json"));
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["schema"].get<std::string>(), std::string("headroom.plan/1"));
        QStringList planArgs = {QStringLiteral("plan"), QStringLiteral("--json")};
        planArgs << kPlanFlags;
        const Run plan = runCli(planArgs);
        QCOMPARE(plan.code, 0);
        QCOMPARE(j, nlohmann::json::parse(plan.out.toStdString()));
    }

    void fitPolicyFitLeavesPlacementToLlamaCpp() {
        const Run r = exportTo(QStringLiteral("llama-server"),
                               {QStringLiteral("--fit-policy"), QStringLiteral("fit")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("--fit on"));
        QVERIFY(!r.out.contains("-ngl"));
        // Margin of a 24 GiB card: 9 % of 24 GiB = 2211.84 MiB, rounded up to 2212.
        QVERIFY(r.out.contains("--fit-target 2212"));
    }

    // v0.5.0 removed --mlock/--no-mmap (common/arg.cpp); the old spellings are read and the
    // launch says it with --load-mode, which both builds parse. The script names the build.
    void oldLoadFlagsAreWrittenAsLoadModeForTheChosenBuild_data() {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("build");
        QTest::newRow("--mlock, default build")
            << QStringList{QStringLiteral("--mlock")} << QStringLiteral("--load-mode mlock")
            << QStringLiteral("llama.cpp v0.5.0 (node-llama-cpp 3.22.1)");
        QTest::newRow("--no-mmap, v0.4.0")
            << QStringList{QStringLiteral("--no-mmap"), QStringLiteral("--llama-version"),
                           QStringLiteral("v0.4.0")}
            << QStringLiteral("--load-mode none")
            << QStringLiteral("llama.cpp v0.4.0 (node-llama-cpp 3.21.1)");
        QTest::newRow("-lm dio") << QStringList{QStringLiteral("-lm"), QStringLiteral("dio")}
                                 << QStringLiteral("--load-mode dio")
                                 << QStringLiteral("llama.cpp v0.5.0");
    }
    void oldLoadFlagsAreWrittenAsLoadModeForTheChosenBuild() {
        QFETCH(QStringList, extra);
        QFETCH(QString, expected);
        QFETCH(QString, build);
        const Run r = exportTo(QStringLiteral("llama-server"), extra);
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(expected.toUtf8()), r.out.constData());
        QVERIFY(r.out.contains(build.toUtf8()));
        QVERIFY(!r.out.contains("--mlock"));
        QVERIFY(!r.out.contains("--no-mmap"));
    }

    void unknownLlamaVersionOrLoadModeExitsTwo_data() {
        QTest::addColumn<QStringList>("extra");
        QTest::newRow("version") << QStringList{QStringLiteral("--llama-version"),
                                                QStringLiteral("b4500")};
        QTest::newRow("load mode")
            << QStringList{QStringLiteral("--load-mode"), QStringLiteral("mmapp")};
        QTest::newRow("two load modes") << QStringList{
            QStringLiteral("--mlock"), QStringLiteral("--load-mode"), QStringLiteral("mmap")};
    }
    void unknownLlamaVersionOrLoadModeExitsTwo() {
        QFETCH(QStringList, extra);
        const Run r = exportTo(QStringLiteral("llama-server"), extra);
        QCOMPARE(r.code, 2);
        QVERIFY(!r.err.isEmpty());
    }

    // export --model A --model B: one plan per model, the same machine and options; llama-swap
    // gets one entry per model, the router preset one section per model; a single-model target
    // refuses several.
    void severalModelsExportToLlamaSwapAndTheRouter() {
        const QStringList two = {QStringLiteral("--model"), QStringLiteral("qwen3-30b-a3b")};
        const Run swap = exportTo(QStringLiteral("llama-swap"), two);
        QCOMPARE(swap.code, 0);
        const YAML::Node root = YAML::Load(swap.out.toStdString());
        QCOMPARE(root["models"].size(), std::size_t(2));
        QVERIFY(root["models"]["llama-3.1-8b-instruct"].IsMap());
        QVERIFY(root["models"]["qwen3-30b-a3b"].IsMap());

        const Run router = exportTo(QStringLiteral("router"), two);
        QCOMPARE(router.code, 0);
        QVERIFY(router.out.contains("\n[llama-3.1-8b-instruct]\n"));
        QVERIFY(router.out.contains("\n[qwen3-30b-a3b]\n"));
        QVERIFY(router.out.contains("version = 1\n"));
        QVERIFY(router.err.contains("--models-preset models.ini --models-max "));

        const Run one = exportTo(QStringLiteral("llama-server"), two);
        QCOMPARE(one.code, 2);
        QVERIFY(one.err.contains("takes one model"));
    }

    // The pair on an RTX 4090 at 16K, priced together (planModelSet): the llama-swap
    // groups hold both in one group that stays loaded (swap: false), each entry's planned bytes
    // summed stay within the card's budget, and the router preset holds both with their -c.
    void aPairThatFitsTogetherExportsAsOneGroupThatStaysLoaded() {
        const QStringList pair = {QStringLiteral("--model"),  QStringLiteral("qwen3-30b-a3b"),
                                  QStringLiteral("--model"),  QStringLiteral("gpt-oss-20b"),
                                  QStringLiteral("--preset"), QStringLiteral("rtx-4090"),
                                  QStringLiteral("-c"),       QStringLiteral("16384")};
        const Run swap =
            runCli(QStringList{QStringLiteral("export"), QStringLiteral("--to"),
                               QStringLiteral("llama-swap"), QStringLiteral("--swap-routing"),
                               QStringLiteral("groups")} +
                   pair);
        QVERIFY2(swap.code == 0, qPrintable(swap.err));
        const YAML::Node root = YAML::Load(swap.out.toStdString());
        const YAML::Node groups = root["routing"]["router"]["settings"]["groups"];
        QVERIFY(groups.IsMap());
        QCOMPARE(groups.size(), std::size_t(1));
        const YAML::Node g = groups.begin()->second;
        QCOMPARE(g["swap"].as<bool>(), false);
        QCOMPARE(g["members"].size(), std::size_t(2));
        std::uint64_t card = 0;
        std::int64_t budget = 0;
        for (const char* id : {"qwen3-30b-a3b", "gpt-oss-20b"}) {
            const YAML::Node h = root["models"][id]["metadata"]["headroom"];
            QCOMPARE(h["context"].as<std::uint32_t>(), 16384u);
            card += h["devices"][0]["bytes"].as<std::uint64_t>();
            // The first model's budget is the card's; the second's is what the first leaves.
            if (budget == 0) budget = h["devices"][0]["budget_bytes"].as<std::int64_t>();
        }
        QVERIFY(static_cast<std::int64_t>(card) <= budget);

        const Run router = runCli(QStringList{QStringLiteral("export"), QStringLiteral("--to"),
                                              QStringLiteral("router")} +
                                  pair);
        QVERIFY2(router.code == 0, qPrintable(router.err));
        QVERIFY(router.out.contains("\n[qwen3-30b-a3b]\n"));
        QVERIFY(router.out.contains("\n[gpt-oss-20b]\n"));
        QCOMPARE(router.out.count("\nc = 16384\n"), 2);
        QVERIFY(router.err.contains("--models-max 2"));
    }

    // -md llama-3.2-1b-instruct (the same 128256-token vocabulary as the 8B): every launch the
    // export writes carries the draft's flags, and Ollama, which has no draft model, says so.
    void everyExportCarriesTheDraftModel_data() {
        QTest::addColumn<QStringList>("says");
        // The shell script and llama-swap's cmd write one flag and its value per line.
        const QStringList launch = {"-md llama-3.2-1b-instruct.gguf", "--spec-type draft-simple",
                                    "-ngld ", "--spec-draft-n-max 3"};
        QTest::newRow("llama-server") << launch;
        QTest::newRow("llama-swap") << launch;
        QTest::newRow("router") << QStringList{"md = llama-3.2-1b-instruct.gguf",
                                               "spec-type = draft-simple", "ngld = "};
        QTest::newRow("ollama") << QStringList{"the draft model llama-3.2-1b-instruct.gguf"};
        QTest::newRow("json") << QStringList{"\"draft_model\": \"llama-3.2-1b-instruct.gguf\"",
                                             "\"spec_type\": \"draft-simple\""};
    }
    void everyExportCarriesTheDraftModel() {
        QFETCH(QStringList, says);
        const Run r = exportTo(QString::fromLatin1(QTest::currentDataTag()),
                               {QStringLiteral("-md"), QStringLiteral("llama-3.2-1b-instruct")});
        QVERIFY2(r.code == 0, r.err.constData());
        for (const QString& s : says)
            QVERIFY2(r.out.contains(s.toUtf8()), qPrintable(s + " not in:\n" + r.out));
    }

    void helpNamesEveryTargetAndTheExitCodes() {
        const Run r = runCli({QStringLiteral("export"), QStringLiteral("--help")});
        QCOMPARE(r.code, 0);
        for (const char* t :
             {"llama-server", "llama-swap", "ollama", "json", "--force", "Exit codes"})
            QVERIFY2(r.out.contains(t), t);
    }
};

QTEST_APPLESS_MAIN(TestCliExport)
#include "test_cli_export.moc"
