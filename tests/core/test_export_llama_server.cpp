// llama-server export: the argument list comes from the priced plan, survives shell quoting, and
// treats llama.cpp's --fit and the launch traps explicitly.
#include "core/export_sample_plans.h"
#include "export/llama_server.h"
#include "export/shell.h"
#include "planner.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace headroom;

namespace {

std::string valueOf(const std::vector<std::string>& argv, const std::string& flag) {
    auto it = std::find(argv.begin(), argv.end(), flag);
    if (it == argv.end() || it + 1 == argv.end()) return "<absent>";
    return *(it + 1);
}

bool has(const std::vector<std::string>& argv, const std::string& word) {
    return std::find(argv.begin(), argv.end(), word) != argv.end();
}

bool anyContains(const std::vector<std::string>& lines, const std::string& text) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

// Runs the text through /bin/sh and returns the words it passes to a program.
QStringList wordsAsShellSeesThem(const std::string& commandLine) {
    QProcess sh;
    // `set --` replaces the positional parameters with the words of the line; printf prints
    // each on its own NUL-terminated record, so words with spaces or newlines stay whole.
    const QString script =
        QString::fromStdString("set -- " + commandLine) + QStringLiteral("\nprintf '%s\\0' \"$@\"");
    sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), script});
    sh.waitForFinished(10000);
    QStringList out = QString::fromUtf8(sh.readAllStandardOutput()).split(QChar(0));
    if (!out.isEmpty() && out.last().isEmpty()) out.removeLast();
    return out;
}

} // namespace

class TestExportLlamaServer : public QObject {
    Q_OBJECT
private slots:
    void shellQuoteLeavesPlainWordsAloneAndQuotesTheRest() {
        QCOMPARE(shellQuote("-ngl"), std::string("-ngl"));
        QCOMPARE(shellQuote("/models/a.gguf"), std::string("/models/a.gguf"));
        QCOMPARE(shellQuote(""), std::string("''"));
        QCOMPARE(shellQuote("a b"), std::string("'a b'"));
        // ' cannot appear inside '…': close, escaped quote, reopen.
        QCOMPARE(shellQuote("it's"), std::string("'it'\\''s'"));
        QCOMPARE(shellQuote("${PORT}"), std::string("'${PORT}'"));
    }

    void shellSplitReadsQuotesEscapesContinuationsAndComments() {
        auto w = shellSplit("a 'b c' \"d \\\"e\\\"\" f\\ g \\\n h # comment\n'' i");
        QVERIFY(w.has_value());
        const std::vector<std::string> expected = {"a", "b c", "d \"e\"", "f g", "h", "", "i"};
        QCOMPARE(*w, expected);
    }

    void shellSplitNamesAnUnterminatedQuote() {
        auto w = shellSplit("llama-server -m 'model.gguf");
        QVERIFY(!w.has_value());
        QCOMPARE(w.error().code, ErrorCode::ParseError);
        QVERIFY(w.error().message.find("single quote") != std::string::npos);
        QVERIFY(!shellSplit("trailing \\").has_value());
    }

    void shellJoinRoundTripsAwkwardWordsThroughARealShell() {
        const std::vector<std::string> words = {"llama-server",
                                                "/m/My Model (Q4).gguf",
                                                "blk\\.(4[0-7])\\.ffn_.*_exps\\.weight=CPU",
                                                "it's",
                                                "$HOME",
                                                "`x`",
                                                "a\nb",
                                                "",
                                                "*"};
        const std::string line = shellJoin(words);
        auto back = shellSplit(line);
        QVERIFY(back.has_value());
        QCOMPARE(*back, words);
        const QStringList viaSh = wordsAsShellSeesThem(line);
        QCOMPARE(viaSh.size(), static_cast<qsizetype>(words.size()));
        for (size_t i = 0; i < words.size(); ++i)
            QCOMPARE(viaSh[static_cast<qsizetype>(i)].toStdString(), words[i]);
    }

    void pinnedLaunchWritesThePricedRungAndTurnsFitOff() {
        const Plan plan = testplans::denseResident();
        auto l = llamaServerLaunch(plan, {});
        QVERIFY2(l.has_value(), l.has_value() ? "" : l.error().message.c_str());
        const auto& a = l->argv;
        QCOMPARE(a[0], std::string("llama-server"));
        // The GGUF path is the plan's own file (a GGUF-header model).
        QCOMPARE(valueOf(a, "-m"), plan.model.id);
        // rungs[decision.rung_index = 1].context = 131072.
        QCOMPARE(valueOf(a, "-c"), std::string("131072"));
        // placement.gpu_layers = 33 (32 blocks + output).
        QCOMPARE(valueOf(a, "-ngl"), std::string("33"));
        QCOMPARE(valueOf(a, "-ctk"), std::string("q8_0"));
        QCOMPARE(valueOf(a, "-ctv"), std::string("q8_0"));
        QCOMPARE(valueOf(a, "-fa"), std::string("on"));
        // -np is always written: llama-server's default is 4 slots, the plan priced 1.
        QCOMPARE(valueOf(a, "-np"), std::string("1"));
        QCOMPARE(valueOf(a, "--fit"), std::string("off"));
        // Default -ub 512 and -b 2048 are llama.cpp's own: not written.
        QVERIFY(!has(a, "-ub"));
        QVERIFY(!has(a, "-b"));
        QVERIFY(!has(a, "-ot"));
        // Each flag appears once.
        QCOMPARE(std::count(a.begin(), a.end(), std::string("-c")), 1);
        QCOMPARE(l->context, 131072u);
        QVERIFY(anyContains(l->comments, "fit: off"));
        QVERIFY(anyContains(l->comments, "GPU0: 15.00 GiB"));
    }

    void scriptRoundTripsToTheSameArguments() {
        auto l = llamaServerLaunch(testplans::moeSpilled(), {});
        QVERIFY(l.has_value());
        const std::string script = llamaServerScript(*l);
        QVERIFY(script.rfind("#!/bin/sh\n", 0) == 0);
        auto words = shellSplit(script);
        QVERIFY(words.has_value());
        // Comments vanish; the first word is `exec`, the rest is argv.
        QCOMPARE(words->front(), std::string("exec"));
        const std::vector<std::string> back(words->begin() + 1, words->end());
        QCOMPARE(back, l->argv);
        auto line = shellSplit(llamaServerCommandLine(*l));
        QVERIFY(line.has_value());
        QCOMPARE(*line, l->argv);
    }

    void spilledMoePinsExpertPlacementAndWarnsAboutSplitContext() {
        const Plan plan = testplans::moeSpilled();
        auto l = llamaServerLaunch(plan, {});
        QVERIFY(l.has_value());
        const auto& a = l->argv;
        QCOMPARE(valueOf(a, "-ngl"), std::string("49"));
        QCOMPARE(valueOf(a, "--n-cpu-moe"), std::string("6"));
        QCOMPARE(valueOf(a, "-ot"), plan.rungs[0].placement.override_tensor);
        // rung.n_ubatch = 2048 differs from llama.cpp's 512: written.
        QCOMPARE(valueOf(a, "-ub"), std::string("2048"));
        QCOMPARE(valueOf(a, "-np"), std::string("2"));
        QVERIFY(!has(a, "-kvu"));
        // 65536 / 2 = 32768 tokens per sequence, already a multiple of 256.
        QVERIFY(anyContains(l->warnings, "each sequence gets 32768 tokens"));
        QVERIFY(anyContains(l->warnings, "spilled: 9.00 GiB"));
        // A catalog model has no file: a placeholder named after the id, and a warning.
        QCOMPARE(valueOf(a, "-m"), std::string("qwen3-moe-30b.gguf"));
        QVERIFY(anyContains(l->warnings, "catalog model"));
        QVERIFY(anyContains(l->comments, "-ot, --n-cpu-moe"));
    }

    void leaveToFitDropsPlacementAndSetsTheMarginsAsFitTargets() {
        const Plan plan = testplans::moeSpilled();
        LaunchExportOptions o;
        o.fit = FitMode::LeaveToFit;
        auto l = llamaServerLaunch(plan, o);
        QVERIFY(l.has_value());
        const auto& a = l->argv;
        QVERIFY(!has(a, "-ngl"));
        QVERIFY(!has(a, "-ot"));
        QVERIFY(!has(a, "--n-cpu-moe"));
        QCOMPARE(valueOf(a, "-c"), std::string("65536"));
        QCOMPARE(valueOf(a, "--fit"), std::string("on"));
        // Margins: max(2 GiB, 9 % of 12 GiB = 1.08 GiB) = 2048 MiB; 8 GiB card: 2048 MiB too.
        QCOMPARE(valueOf(a, "--fit-target"), std::string("2048,2048"));
        QVERIFY(anyContains(l->comments, "system RAM is unlimited"));
    }

    void npWithKvUnifiedNeedsNoSplitWarning() {
        Plan plan = testplans::moeSpilled();
        plan.options.kv_unified = true;
        auto l = llamaServerLaunch(plan, {});
        QVERIFY(l.has_value());
        QVERIFY(has(l->argv, "-kvu"));
        QVERIFY(!anyContains(l->warnings, "divides the context"));
    }

    void quantizedVCacheWithoutFlashAttentionIsRefusedByThePlannerNotTheExporter() {
        // llama.cpp refuses it outright (llama_init_from_model); the planner says so before any
        // plan exists, so no exporter repeats the check.
        const Plan plan = testplans::denseResident();
        PlanOptions o = plan.options;
        o.flash_attn = FlashAttn::Off;
        auto v = validateOptions(plan.model, o);
        QVERIFY(!v.has_value());
        QVERIFY(v.error().message.find("requires flash attention") != std::string::npos);
    }

    void quantizedVCacheWarnsThatFlashAttentionIsPinned() {
        auto l = llamaServerLaunch(testplans::denseResident(), {});
        QVERIFY(l.has_value());
        QVERIFY(anyContains(l->warnings, "quantized V cache"));
    }

    void mlaModelWithUnequalCacheTypesIsRefusedByThePlannerAndWarnedInTheExport() {
        Plan plan = testplans::denseResident();
        for (auto& layer : plan.model.layers)
            layer.attention = AttentionKind::Mla;
        PlanOptions o = plan.options;
        o.cache_type_v = GgmlType::F16;
        auto v = validateOptions(plan.model, o);
        QVERIFY(!v.has_value());
        QVERIFY(v.error().message.find("MLA") != std::string::npos);
        auto ok = llamaServerLaunch(plan, {});
        QVERIFY(ok.has_value());
        QVERIFY(anyContains(ok->warnings, "MLA model"));
    }

    void theCommandIsThePlansLaunchConfigFormatted() {
        // No argv is parsed: after the program and `-m PATH` the words are exactly
        // llamaServerArgs() of the plan's LaunchConfig.
        for (const Plan& plan : {testplans::denseResident(), testplans::moeSpilled()}) {
            auto l = llamaServerLaunch(plan, {});
            QVERIFY(l.has_value());
            QVERIFY(plan.launch.has_value());
            const std::vector<std::string> tail(l->argv.begin() + 3, l->argv.end());
            QCOMPARE(tail, llamaServerArgs(*plan.launch));
        }
    }

    void anyRunnableRungExportsWhenAsked() {
        // denseResident: rung 0 (64K) resident, rung 1 (128K) the decision, rung 2 refused.
        const Plan plan = testplans::denseResident();
        LaunchExportOptions o;
        o.rung_index = 0;
        auto l = llamaServerLaunch(plan, o);
        QVERIFY(l.has_value());
        QCOMPARE(valueOf(l->argv, "-c"), std::string("65536"));
        o.rung_index = 2;
        auto refused = llamaServerLaunch(plan, o);
        QVERIFY(!refused.has_value());
        QVERIFY(refused.error().message.find("refused") != std::string::npos);
        o.rung_index = 3; // past the last rung
        QVERIFY(!llamaServerLaunch(plan, o).has_value());
    }

    void refusedPlanHasNothingToExport() {
        Plan plan = testplans::denseResident();
        plan.decision.refused = true;
        plan.decision.rung_index = -1;
        auto l = llamaServerLaunch(plan, {});
        QVERIFY(!l.has_value());
        QVERIFY(l.error().message.find("nothing to export") != std::string::npos);
        // The reason is the last refused rung's message.
        QCOMPARE(l.error().details, std::string("256K is beyond the trained context of 128K"));
        // A smaller rung runs (128K, rung 1), so the message names it instead of refusing the
        // whole model.
        QVERIFY2(l.error().message.find("the 128K rung runs") != std::string::npos,
                 l.error().message.c_str());
        QVERIFY(l.error().message.find("-c 131072") != std::string::npos);
        // When no rung runs, the model itself is refused on this hardware.
        for (Rung& r : plan.rungs)
            r.verdict = Verdict::Refused;
        auto none = llamaServerLaunch(plan, {});
        QVERIFY(!none.has_value());
        QVERIFY2(none.error().message.find("refuses") != std::string::npos &&
                     none.error().message.find("runs") == std::string::npos,
                 none.error().message.c_str());
    }

    void cpuBackendPinsZeroGpuLayers() {
        Plan plan = testplans::denseResident();
        plan.backend = Backend::Cpu;
        auto l = llamaServerLaunch(plan, {});
        QVERIFY(l.has_value());
        QCOMPARE(valueOf(l->argv, "-ngl"), std::string("0"));
    }

    void hostPortAndModelOverridesAreWritten() {
        LaunchExportOptions o;
        o.model_path = "/srv/it's.gguf";
        o.port = "${PORT}";
        o.host = "0.0.0.0";
        o.server_binary = "/opt/llama.cpp/llama-server";
        auto l = llamaServerLaunch(testplans::denseResident(), o);
        QVERIFY(l.has_value());
        QCOMPARE(l->argv[0], o.server_binary);
        QCOMPARE(valueOf(l->argv, "-m"), o.model_path);
        QCOMPARE(valueOf(l->argv, "--port"), std::string("${PORT}"));
        QCOMPARE(valueOf(l->argv, "--host"), std::string("0.0.0.0"));
    }
};

QTEST_APPLESS_MAIN(TestExportLlamaServer)
#include "test_export_llama_server.moc"
