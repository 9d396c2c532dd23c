// headroom-cli plan and catalog: the CLI contract — every catalog model plans as a table and as
// JSON of schema headroom.plan/1, bad arguments exit 2 naming the argument, unreadable models 3.
#include "common/catalog_fixture.h"
#include "common/cli_runner.h"
#include "common/gguf_quants.h"

#include "catalog.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using headroom::test::runCli;

namespace {

const QStringList kMachine = {"--vram", "24GiB", "--ram", "64GiB"};

} // namespace

class TestCliPlan : public QObject {
    Q_OBJECT
private slots:
    void everyCatalogModelPlansAsATableAndAsJson() {
        auto catalog = headroom::loadBuiltinCatalog();
        QVERIFY(catalog);
        QVERIFY(catalog->size() >= 40);
        for (const auto& e : catalog->entries()) {
            const QString id = QString::fromStdString(e.id);
            const auto table = runCli(QStringList{"plan", "--model", id} + kMachine);
            QVERIFY2(table.code == 0, qPrintable(id + ": " + table.err));
            QVERIFY2(table.out.contains("Decision:"), qPrintable(id));
            const auto json = runCli(QStringList{"plan", "--model", id, "--json"} + kMachine);
            QVERIFY2(json.code == 0, qPrintable(id + ": " + json.err));
            const auto j = nlohmann::json::parse(json.out.toStdString());
            QCOMPARE(j.at("schema").get<std::string>(), std::string("headroom.plan/1"));
            QCOMPARE(j.at("model").at("id").get<std::string>(), e.id);
            QVERIFY(!j.at("rungs").empty());
            for (const auto& r : j.at("rungs")) {
                // Every byte count is an integer and the total is the sum of its terms.
                const auto& b = r.at("bytes");
                const std::uint64_t sum =
                    b.at("weights").get<std::uint64_t>() + b.at("kv").get<std::uint64_t>() +
                    b.at("recurrent_state").get<std::uint64_t>() +
                    b.at("compute").get<std::uint64_t>() + b.at("output").get<std::uint64_t>() +
                    b.at("overhead").get<std::uint64_t>() + b.at("mmproj").get<std::uint64_t>();
                QCOMPARE(b.at("total").get<std::uint64_t>(), sum);
                const std::string v = r.at("verdict");
                QVERIFY(v == "resident" || v == "spilled" || v == "refused");
                QCOMPARE(r.at("refusal").is_null(), v != "refused");
            }
        }
    }

    // plan --model A --model B: the set as JSON (headroom.model-set/1), each member's whole plan
    // inside, the per-device sums the members' chosen rungs added up; as a table, both launches.
    void twoModelsArePricedTogetherAsASet() {
        const QStringList pair = {"plan",     "--model",     "qwen3-30b-a3b",
                                  "--model",  "gpt-oss-20b", "--preset",
                                  "rtx-4090", "-c",          "16384"};
        const auto json = runCli(pair + QStringList{"--json"});
        QVERIFY2(json.code == 0, qPrintable(json.err));
        const auto j = nlohmann::json::parse(json.out.toStdString());
        QCOMPARE(j.at("schema").get<std::string>(), std::string("headroom.model-set/1"));
        QVERIFY(j.at("fits").get<bool>());
        QCOMPARE(j.at("plans").size(), size_t(2));
        std::uint64_t card = 0;
        for (const auto& p : j.at("plans")) {
            QCOMPARE(p.at("schema").get<std::string>(), std::string("headroom.plan/1"));
            const auto& rung = p.at("rungs").at(p.at("decision").at("rung_index").get<size_t>());
            QCOMPARE(rung.at("requested_context").get<std::uint32_t>(), 16384u);
            card += rung.at("devices").at(0).at("bytes").get<std::uint64_t>();
        }
        QCOMPARE(j.at("devices").at(0).at("bytes").get<std::uint64_t>(), card);
        QVERIFY(static_cast<std::int64_t>(card) <=
                j.at("devices").at(0).at("usable_bytes").get<std::int64_t>());
        const auto table = runCli(pair);
        QVERIFY2(table.code == 0, qPrintable(table.err));
        QVERIFY(table.out.contains("priced together"));
        QVERIFY(table.out.contains("Launch 1: llama-server"));
        QVERIFY(table.out.contains("Launch 2: llama-server"));
    }

    // What prices one model only is refused with several, naming the flag; exit 2.
    void flagsForOneModelAreRefusedWithSeveral_data() {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("named");
        QTest::newRow("moe curve") << QStringList{"--moe-curve"} << "--moe-curve";
        QTest::newRow("fit target") << QStringList{"--fit-target", "1024"} << "--fit-target";
        QTest::newRow("projector file")
            << QStringList{"--mmproj", "/nonexistent.gguf"} << "--mmproj";
        QTest::newRow("draft model") << QStringList{"-md", "qwen3-0.6b"} << "-md";
    }
    void flagsForOneModelAreRefusedWithSeveral() {
        QFETCH(QStringList, extra);
        QFETCH(QString, named);
        const auto r = runCli(QStringList{"plan", "--model", "qwen3-4b", "--model", "qwen3-8b"} +
                              kMachine + extra);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(named.toUtf8()), r.err.constData());
    }

    // -sm names its four modes when given another; -sm tensor with flash attention off is refused
    // as llama.cpp refuses it. Both exit 2.
    void badSplitModesExitTwoNamingWhy() {
        const auto unknown =
            runCli(QStringList{"plan", "--model", "qwen3-8b", "-sm", "tensors"} + kMachine);
        QCOMPARE(unknown.code, 2);
        QVERIFY2(unknown.err.contains("layer, row, none, tensor"), unknown.err.constData());
        const auto fa_off =
            runCli(QStringList{"plan", "--model", "qwen3-8b", "--vram", "24GiB,24GiB", "--ram",
                               "64GiB", "-sm", "tensor", "-fa", "off"});
        QCOMPARE(fa_off.code, 2);
        QVERIFY2(fa_off.err.contains("flash attention"), fa_off.err.constData());
    }

    void llamaEightBOnA24GibCardLaunchesAt128kResident() {
        const auto r =
            runCli(QStringList{"plan", "--model", "llama-3.1-8b-instruct", "--json"} + kMachine);
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        // f16 KV of 32 layers x 1024 x 2 x 2 B = 128 KiB per token: 16 GiB at 128K, plus 4.6 GiB of
        // weights fits a 24 GiB card's 21.84 GiB usable.
        QCOMPARE(j.at("decision").at("context").get<int>(), 131072);
        QCOMPARE(j.at("decision").at("spilled").get<bool>(), false);
        const auto& launch = j.at("launch").at("llama_server");
        QCOMPARE(launch.at(0).get<std::string>(), std::string("-c"));
        QCOMPARE(launch.at(1).get<std::string>(), std::string("131072"));
        QCOMPARE(j.at("rungs").back().at("bytes").at("kv").get<std::uint64_t>(),
                 std::uint64_t{16} << 30);
    }

    // --program names what runs the model: llama-server (the default, what the launch runs)
    // reserves one logits row per slot, the library (node-llama-cpp's llama_context) a whole
    // ubatch; -bs adds the backend sampler's rows to the output buffer and is written.
    void theProgramDecidesTheLogitsRowsAndBackendSamplingIsPricedAndWritten() {
        const QStringList args =
            QStringList{"plan", "--model", "llama-3.1-8b-instruct", "-c", "4096", "-fa",
                        "on",   "--json"} +
            kMachine;
        auto rungAt4k = [](const QByteArray& out) {
            const auto j = nlohmann::json::parse(out.toStdString());
            for (const auto& r : j.at("rungs"))
                if (r.at("context").get<int>() == 4096) return std::make_pair(j, r);
            return std::make_pair(j, nlohmann::json());
        };
        const auto server = runCli(args);
        QCOMPARE(server.code, 0);
        const auto [sj, s] = rungAt4k(server.out);
        QVERIFY(!s.is_null());
        QCOMPARE(sj.at("options").at("program").get<std::string>(), std::string("llama-server"));
        // Llama-3.1-8B (n_embd 4096, n_ff 14336, vocab 128256), ub 512, one CUDA GPU holding
        // every layer and the output. llama-server, -np 1: one logits row, so the FFN peak
        // decides. The whole graph on the CPU is 125 841 440 B, which llama-server v0.5.0 logs as
        // 120.01 MiB (test_compute_replay); on the GPU the scheduler keeps the token rows
        // ([4096, 512] f32, 8 MiB: GET_ROWS is never offloaded) and the 2 KiB of token ids on
        // the CPU, the one output id's copy takes ggml-cuda's 128-byte alignment instead of 32,
        // and the replay's margin is 6 MiB: 125 841 440 - 8 MiB - 2 KiB + 96 + 6 MiB.
        QCOMPARE(s.at("devices").at(0).at("terms").at("compute").get<std::uint64_t>(),
                 std::uint64_t{125841440} - 8 * 1048576 - 2048 + 96 + 6 * 1048576);
        const auto library = runCli(args + QStringList{"--program", "library"});
        QCOMPARE(library.code, 0);
        const auto [lj, l] = rungAt4k(library.out);
        QVERIFY(!l.is_null());
        // The library's 512 logits rows: 4 x 512 x (128256 + 2 x 4096) + 4 x 512 = 279 447 552
        // on one backend; on the GPU less the token rows and ids, plus the margin, as above (a
        // whole ubatch of output ids is 2 KiB, already aligned).
        QCOMPARE(l.at("devices").at(0).at("terms").at("compute").get<std::uint64_t>(),
                 std::uint64_t{279447552} - 8 * 1048576 - 2048 + 6 * 1048576);
        const auto sampled = runCli(args + QStringList{"-bs"});
        QCOMPARE(sampled.code, 0);
        const auto [bj, b] = rungAt4k(sampled.out);
        QVERIFY(!b.is_null());
        // 4 x 128256 logits + (2 x 4 + 4) x 128256 sampler rows + 4 = 2 052 100 bytes (-np 1).
        QCOMPARE(b.at("host").at("output").get<std::uint64_t>(), std::uint64_t{2052100});
        QCOMPARE(s.at("host").at("output").get<std::uint64_t>(), std::uint64_t{513024});
        const auto& launch = bj.at("launch").at("llama_server");
        QVERIFY(std::find(launch.begin(), launch.end(), "-bs") != launch.end());
        QVERIFY(bj.at("launch").at("config").at("backend_sampling").get<bool>());
    }

    // The plan carries what llama.cpp's own --fit would do with the same flags: with -ngl 20
    // given, fit "gives up" (common/fit.cpp: n_gpu_layers already set by user), and -fitt 2048
    // leaves 24 GiB - 2048 MiB = 23622320128 bytes as the device's target.
    void planJsonSimulatesLlamaCppsFitWithTheUsersFlags() {
        const auto r = runCli(QStringList{"plan", "--model", "llama-3.1-8b-instruct", "--json",
                                          "-ngl", "20", "-fitt", "2048"} +
                              kMachine);
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const auto& f = j.at("fit_simulation");
        QCOMPARE(f.at("llama_version").get<std::string>(), std::string("v0.5.0"));
        QVERIFY(f.at("gave_up").get<bool>());
        QCOMPARE(f.at("give_up_reason").get<std::string>(),
                 std::string("n_gpu_layers already set by user"));
        QCOMPARE(f.at("gpu_layers").get<int>(), 20);
        QCOMPARE(f.at("device_budget_bytes").at(0).get<std::int64_t>(),
                 std::int64_t{24} * 1024 * 1024 * 1024 - std::int64_t{2048} * 1024 * 1024);
        const auto bad = runCli(
            QStringList{"plan", "--model", "llama-3.1-8b-instruct", "-fitt", "lots"} + kMachine);
        QCOMPARE(bad.code, 2);
    }

    // --free gives each GPU's live free memory, so narrowing is scriptable: 20 GiB free keeps
    // 20 - 2.16 (9 % margin of the 24 GiB card) = 17.84 GiB; 96K needs 16.93 GiB (12 GiB of f16
    // KV + weights, compute, overhead), 128K 20.93 GiB, so the launch narrows to 96K.
    void freeMemoryPerDeviceNarrowsTheLaunch() {
        const auto r = runCli(
            QStringList{"plan", "--model", "llama-3.1-8b-instruct", "--json", "--free", "20GiB"} +
            kMachine);
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j.at("decision").at("context").get<int>(), 98304);
        QVERIFY(j.at("decision")
                    .at("reasons")
                    .back()
                    .get<std::string>()
                    .find("fits beside other programs") != std::string::npos);
    }

    void freeMemoryMustNameEachGpuAndFitIt_data() {
        QTest::addColumn<QString>("free");
        QTest::newRow("more than the card") << "30GiB";
        QTest::newRow("two sizes, one GPU") << "1GiB,2GiB";
        QTest::newRow("not a size") << "lots";
    }
    void freeMemoryMustNameEachGpuAndFitIt() {
        QFETCH(QString, free);
        const auto r = runCli(
            QStringList{"plan", "--model", "llama-3.1-8b-instruct", "--free", free} + kMachine);
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("--free"));
    }

    void llamaCppShortFlagsAreAccepted() {
        // -ctk/-ctv/-fa/-ub/-np are llama.cpp's spellings; q8_0 KV is 34/64 of f16: 8.5 GiB at
        // 128K.
        const auto r = runCli(QStringList{"plan", "--model", "llama-3.1-8b-instruct", "-c", "128K",
                                          "-ctk", "q8_0", "-ctv", "q8_0", "-fa", "on", "-ub", "256",
                                          "-np", "1", "--json"} +
                              kMachine);
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const auto& rung = j.at("rungs").at(j.at("decision").at("rung_index").get<int>());
        QCOMPARE(rung.at("bytes").at("kv").get<std::uint64_t>(), std::uint64_t{17} << 29);
        QCOMPARE(rung.at("n_ubatch").get<int>(), 256);
    }

    void badArgumentsExitTwoAndNameTheArgument() {
        struct Case {
            QStringList args;
            const char* names;
        };
        const Case cases[] = {
            {{"plan", "--model", "llama-3.1-8b-instruct", "--vram", "lots", "--ram", "64GiB"},
             "--vram"},
            {{"plan", "--model", "llama-3.1-8b-instruct", "--vram", "24GiB"}, "--ram"},
            {{"plan", "--model", "llama-3.1-8b-instruct", "--vram", "24GiB", "--ram", "2PiB"},
             "--ram"},
            {QStringList{"plan", "--model", "llama-3.1-8b-instruct", "-ctk", "q9"} + kMachine,
             "-ctk"},
            {QStringList{"plan", "--model", "llama-3.1-8b-instruct", "-fa", "maybe"} + kMachine,
             "-fa"},
            {QStringList{"plan", "--model", "llama-3.1-8b-instruct", "-c", "-5"} + kMachine,
             "ctx-size"},
            {QStringList{"plan", "--model", "no-such-model"} + kMachine, "no-such-model"},
            {QStringList{"plan", "--model", "llama-3.1-8b-instruct", "-ctv", "q8_0", "-fa", "off"} +
                 kMachine,
             "flash attention"},
            {QStringList{"plan"} + kMachine, "no model"},
            {QStringList{"plan", "--model", "llama-3.1-8b-instruct", "--preset", "no-such-box"},
             "no-such-box"},
            {{"catalog", "--fits-at", "soon"}, "--fits-at"},
            {QStringList{"plan", "--model", "llama-3.1-8b-instruct", "--reserve", "some"} +
                 kMachine,
             "--reserve"},
            {QStringList{"plan", "--model", "llama-3.1-8b-instruct", "--backend", "gpu"} + kMachine,
             "--backend"},
            {QStringList{"plan", "--model", "llama-3.1-8b-instruct", "--mtp", "yes"} + kMachine,
             "--mtp"},
            {QStringList{"plan", "--model", "llama-3.1-8b-instruct", "--mmproj", "on"} + kMachine,
             "no projector"},
            {QStringList{"plan", "--model", "qwen3-32b", "-md", "no-such-draft"} + kMachine,
             "no-such-draft"},
            {QStringList{"plan", "--model", "qwen3-32b", "-ngld", "5"} + kMachine, "-ngld"},
            {QStringList{"plan", "--model", "qwen3-32b", "-md", "qwen3-0.6b", "-ngld", "auto"} +
                 kMachine,
             "-ngld"},
            {QStringList{"plan", "--model", "qwen3-32b", "-md", "qwen3-0.6b", "-ctkd", "q9"} +
                 kMachine,
             "-ctkd"},
            {QStringList{"plan", "--model", "qwen3-32b", "--spec-type", "fast"} + kMachine,
             "--spec-type"},
            {QStringList{"plan", "--model", "qwen3.5-9b", "--mtp", "on", "--spec-draft-n-max",
                         "5"} +
                 kMachine,
             "--spec-draft-n-max"},
            {QStringList{"plan", "--model", "qwen3-32b", "-md", "qwen3-0.6b", "--spec-type",
                         "draft-mtp"} +
                 kMachine,
             "--spec-type"},
            {QStringList{"plan", "--model", "qwen3-32b", "-md", "https://example.com/d.gguf"} +
                 kMachine,
             "URL"},
            // Llama 3.2's 128256 tokens against Qwen3's 151936: llama.cpp allows 128 apart.
            {QStringList{"plan", "--model", "qwen3-32b", "-md", "llama-3.2-1b-instruct"} + kMachine,
             "vocabulary"},
        };
        for (const auto& c : cases) {
            const auto r = runCli(c.args);
            QVERIFY2(r.code == 2,
                     qPrintable(c.args.join(' ') + " -> " + QString::number(r.code) + " " + r.err));
            QVERIFY2(r.err.contains(c.names), qPrintable(c.args.join(' ') + ": " + r.err));
        }
    }

    // The issue's case: Qwen3-32B with Qwen3-0.6B drafting on an RTX 4090 at 16K. The draft's
    // bytes are a term of the card and of host RAM beside the target's, the totals add them, the
    // table has a column for them, and the launch carries -md, --spec-type draft-simple and
    // -ngld 29 (the 0.6B model's 28 blocks and its output layer, all on the card).
    void aDraftModelIsPricedBesideItsTargetAndLaunchedWithIt() {
        const QStringList args = {"plan",     "--model",  "qwen3-32b", "-md", "qwen3-0.6b",
                                  "--preset", "rtx-4090", "-c",        "16K"};
        const auto r = runCli(args + QStringList{"--json"});
        QVERIFY2(r.code == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const auto& rung = j.at("rungs").at(j.at("decision").at("rung_index").get<size_t>());
        const auto& draft = rung.at("draft");
        QCOMPARE(draft.at("model").get<std::string>(), std::string("qwen3-0.6b"));
        QCOMPARE(draft.at("gpu_layers").get<int>(), 29);
        QCOMPARE(draft.at("context").get<int>(), rung.at("context").get<int>());
        const auto& card = rung.at("devices").at(0).at("terms");
        QCOMPARE(card.at("draft"), draft.at("devices").at(0).at("total"));
        QCOMPARE(rung.at("host").at("draft"), draft.at("host").at("total"));
        QCOMPARE(rung.at("bytes").at("draft"), draft.at("total"));
        const auto& b = rung.at("bytes");
        std::uint64_t sum = 0;
        for (const char* t : {"weights", "kv", "recurrent_state", "compute", "output", "overhead",
                              "mmproj", "draft"})
            sum += b.at(t).get<std::uint64_t>();
        QCOMPARE(b.at("total").get<std::uint64_t>(), sum);
        const auto& launch = j.at("launch").at("config");
        QCOMPARE(launch.at("draft_model").get<std::string>(), std::string("qwen3-0.6b.gguf"));
        QCOMPARE(launch.at("spec_type").get<std::string>(), std::string("draft-simple"));
        QCOMPARE(launch.at("draft_gpu_layers").get<std::string>(), std::string("29"));
        QCOMPARE(launch.at("spec_draft_n_max").get<int>(), 3);
        QCOMPARE(j.at("options").at("draft").at("model").get<std::string>(),
                 std::string("qwen3-0.6b"));
        const auto table = runCli(args);
        QVERIFY2(table.code == 0, table.err.constData());
        QVERIFY(table.out.contains("  draft "));
        QVERIFY2(table.out.contains(
                     "-md qwen3-0.6b.gguf --spec-type draft-simple -ngld 29 --spec-draft-n-max 3"),
                 table.out.constData());

        // Its speed: the target's own decode stays the rung's figure, and speculation's range
        // beside it is that figure times the speed-up range (policy/speculation.h).
        const auto& speed = rung.at("speed");
        const auto& spec = speed.at("speculative");
        QCOMPARE(spec.at("drafter").get<std::string>(), std::string("qwen3-0.6b"));
        QCOMPARE(spec.at("n_max").get<int>(), 3);
        QVERIFY(spec.at("estimate").get<bool>());
        const double x = spec.at("speedup").at("x").get<double>();
        QVERIFY(std::abs(spec.at("decode").at("tok_s").get<double>() -
                         x * speed.at("decode").at("tok_s").get<double>()) < 1e-6);
        QVERIFY(spec.at("speedup").at("low").get<double>() <= x &&
                x <= spec.at("speedup").at("high").get<double>());
        QVERIFY2(table.out.contains("Speculative decoding (qwen3-0.6b, up to 3 drafted per step)"),
                 table.out.constData());
        // The launch window's growth decision, in the table's words and in the JSON.
        QVERIFY2(table.out.contains("Growth: "), table.out.constData());
        QVERIFY(j.at("growth").is_object());
        QCOMPARE(j.at("growth").at("window").get<int>(), 16384);
        // A plan without a drafter says nothing of it.
        const auto plain = runCli(QStringList{"plan", "--model", "qwen3-32b", "--preset",
                                              "rtx-4090", "-c", "16K", "--json"});
        QVERIFY2(plain.code == 0, plain.err.constData());
        const auto pj = nlohmann::json::parse(plain.out.toStdString());
        QVERIFY(pj.at("rungs").at(0).at("speed").at("speculative").is_null());
    }

    // A draft given as a GGUF file is read like the target (its header only) and launched by its
    // path; one that is missing is unreadable input, exit 3.
    void aDraftFileIsLaunchedByItsPathAndAMissingOneExitsThree() {
        QTemporaryDir dir;
        const QString target = dir.filePath(QStringLiteral("Target-Q8_0.gguf"));
        const QString draft = dir.filePath(QStringLiteral("Draft-Q4_0.gguf"));
        // llama.h llama_ftype: 7 Q8_0, 2 Q4_0 (the test model's 32000-token vocabulary in both).
        QVERIFY(headroom::test::quantOfTestModel(headroom::GgmlType::Q8_0, 7)
                    .write(target.toStdString())
                    .has_value());
        QVERIFY(headroom::test::quantOfTestModel(headroom::GgmlType::Q4_0, 2)
                    .write(draft.toStdString())
                    .has_value());
        const auto r = runCli(QStringList{"plan", target, "-md", draft, "--json"} + kMachine);
        QVERIFY2(r.code == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(QString::fromStdString(
                     j.at("launch").at("config").at("draft_model").get<std::string>()),
                 draft);
        const auto missing =
            runCli(QStringList{"plan", target, "-md", dir.filePath(QStringLiteral("none.gguf"))} +
                   kMachine);
        QCOMPARE(missing.code, 3);
        QVERIFY2(missing.err.contains("-md"), missing.err.constData());
    }

    void anUnreadableModelFileExitsThree() {
        QTemporaryDir dir;
        const QString path = dir.filePath("broken.gguf");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("GGUF\x03\x00\x00\x00 truncated");
        f.close();
        const auto r = runCli(QStringList{"plan", path} + kMachine);
        QCOMPARE(r.code, 3);
        QVERIFY(r.err.contains("broken.gguf"));
        const auto missing = runCli(QStringList{"plan", dir.filePath("nope.gguf")} + kMachine);
        QCOMPARE(missing.code, 3);
        const auto projector = runCli(QStringList{"plan", "--model", "gemma-3-27b-it", "--mmproj",
                                                  dir.filePath("mmproj.gguf")} +
                                      kMachine);
        QCOMPARE(projector.code, 3);
        QVERIFY(projector.err.contains("--mmproj"));
    }

    void presetsPlanThroughThePlanCommand() {
        const auto r =
            runCli({"plan", "--model", "gpt-oss-20b", "--preset", "m4-max-128g", "--json"});
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j.at("hardware").at("uma").get<bool>(), true);
        for (const auto& rung : j.at("rungs"))
            QVERIFY(rung.at("verdict") != "spilled"); // UMA never spills
    }

    void catalogRanksResidentModelsFirst() {
        const auto r = runCli(QStringList{"catalog", "--json"} + kMachine);
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        bool seen_non_resident = false;
        for (const auto& m : j.at("models")) {
            const bool resident = m.at("largest_resident_context").get<std::uint64_t>() > 0;
            QVERIFY(!(resident && seen_non_resident));
            seen_non_resident = seen_non_resident || !resident;
        }
    }
    void catalogUpdateAddsAModelEveryCommandPlansAndResetRemovesIt() {
        // The user's round trip: install an update with one new model, plan it, go back.
        QTemporaryDir data;
        QVERIFY(data.isValid());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_DATA_HOME", data.path());
        nlohmann::json e = headroom::test::tinyCatalogEntry("updated-tiny");
        e["name"] = "Updated Tiny";
        const QString file = data.filePath("update.json");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(headroom::test::catalogDocument({e})));
        f.close();

        const QStringList plan = QStringList{"plan", "--model", "updated-tiny"} + kMachine;
        QCOMPARE(runCli(plan, env).code, 2); // not in the shipped catalog: a bad --model
        const auto up = runCli({"catalog", "--update", file}, env);
        QVERIFY2(up.code == 0, up.err.constData());
        QVERIFY2(up.out.contains("1 new"), up.out.constData());
        const auto planned = runCli(plan, env);
        QVERIFY2(planned.code == 0, planned.err.constData());
        const auto listed = runCli(QStringList{"catalog", "--json"} + kMachine, env);
        QCOMPARE(listed.code, 0);
        const auto j = nlohmann::json::parse(listed.out.toStdString());
        QCOMPARE(j.at("catalog_update").at("added").get<int>(), 1);
        QVERIFY(!j.at("ranking").get<std::string>().empty());

        QCOMPARE(runCli({"catalog", "--reset"}, env).code, 0);
        QCOMPARE(runCli(plan, env).code, 2);
    }

    void pinnedPlacementIsPricedAndEchoedInTheLaunch() {
        // The issue's own question: Qwen3-30B-A3B on an RTX 4090 with -ngl 30 --n-cpu-moe 12.
        const auto r = runCli({"plan", "--model", "qwen3-30b-a3b", "--preset", "rtx-4090", "-ngl",
                               "30", "--n-cpu-moe", "12", "--json"});
        QVERIFY2(r.code == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const auto& cfg = j.at("launch").at("config");
        QCOMPARE(cfg.at("gpu_layers").get<int>(), 30);
        QCOMPARE(cfg.at("n_cpu_moe").get<int>(), 12);
        const auto argv = j.at("launch").at("llama_server").get<std::vector<std::string>>();
        auto has = [&](const std::string& flag, const std::string& value) {
            for (size_t i = 0; i + 1 < argv.size(); ++i)
                if (argv[i] == flag && argv[i + 1] == value) return true;
            return false;
        };
        QVERIFY(has("-ngl", "30"));
        QVERIFY(has("--n-cpu-moe", "12"));
        // Priced as given: 48 blocks + output = 49 layers, i_gpu_start = 49 - 30 = 19, so 19 stay
        // on the CPU and 30 on the GPU.
        const auto& rung = j.at("rungs").at(j.at("decision").at("rung_index").get<size_t>());
        QCOMPARE(rung.at("placement").at("pinned").get<bool>(), true);
        QCOMPARE(rung.at("placement").at("gpu_layers").get<int>(), 30);
        QCOMPARE(rung.at("placement").at("host_layers").get<int>(), 19);
        QCOMPARE(rung.at("placement").at("device_layers").at(0).get<int>(), 30);
        QCOMPARE(j.at("options").at("pinned").at("n_cpu_moe").get<int>(), 12);
    }

    void placementFlagsAreAcceptedInEverySpelling_data() {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("value");
        QTest::newRow("-ngl 10") << QStringList{"-ngl", "10"} << "-ngl"
                                 << "10";
        QTest::newRow("--gpu-layers all") << QStringList{"--gpu-layers", "all"} << "-ngl"
                                          << "all";
        QTest::newRow("--n-gpu-layers 5") << QStringList{"--n-gpu-layers", "5"} << "-ngl"
                                          << "5";
        QTest::newRow("-ot experts")
            << QStringList{"-ot", R"(\.ffn_(up|down|gate)_exps=CPU)"} << "-ot"
            << R"(\.ffn_(up|down|gate)_exps=CPU)";
        QTest::newRow("--cpu-moe") << QStringList{"--cpu-moe"} << "--cpu-moe"
                                   << "";
        QTest::newRow("-ub 512 stays") << QStringList{"-ub", "512"} << "-ub"
                                       << "512";
    }

    void placementFlagsAreAcceptedInEverySpelling() {
        QFETCH(QStringList, flags);
        QFETCH(QString, flag);
        QFETCH(QString, value);
        const auto r =
            runCli(QStringList{"plan", "--model", "qwen3-30b-a3b", "--json"} + kMachine + flags);
        QVERIFY2(r.code == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const auto argv = j.at("launch").at("llama_server").get<std::vector<std::string>>();
        const auto it = std::find(argv.begin(), argv.end(), flag.toStdString());
        QVERIFY2(it != argv.end(), qPrintable(flag));
        if (!value.isEmpty()) QCOMPARE(*(it + 1), value.toStdString());
    }

    void twoGpusSplitThreeToOneAsLlamaCppDoes() {
        // 48 blocks + output = 49 layers on two 24 GiB cards, -ts 3,1: l/49 < 0.75 <=> l <= 36,
        // so 37 layers on GPU 0 and 12 on GPU 1.
        const auto r = runCli({"plan", "--model", "qwen3-30b-a3b", "--vram", "24GiB,24GiB", "--ram",
                               "64GiB", "-ts", "3,1", "--json"});
        QVERIFY2(r.code == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const auto& rung = j.at("rungs").at(j.at("decision").at("rung_index").get<size_t>());
        QCOMPARE(rung.at("placement").at("device_layers").at(0).get<int>(), 37);
        QCOMPARE(rung.at("placement").at("device_layers").at(1).get<int>(), 12);
        QCOMPARE(j.at("launch").at("config").at("tensor_split").get<std::vector<double>>(),
                 (std::vector<double>{3, 1}));
    }

    void badPlacementFlagsExitTwoNamingTheFlag_data() {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<QString>("says");
        QTest::newRow("bad regex") << QStringList{"-ot", "blk\\.(0=CPU"} << "regular expression";
        QTest::newRow("a gpu the machine lacks")
            << QStringList{"-ot", "exps=CUDA1"} << "'CUDA1' is not a buffer type of this machine";
        QTest::newRow("bad -ngl") << QStringList{"-ngl", "many"} << "-ngl";
        QTest::newRow("bad -ts") << QStringList{"-ts", "3,x"} << "-ts";
        QTest::newRow("too many -ts") << QStringList{"-ts", "1,1"} << "-ts";
        QTest::newRow("bad -sm") << QStringList{"-sm", "diagonal"} << "-sm";
        QTest::newRow("both moe flags")
            << QStringList{"--cpu-moe", "--n-cpu-moe", "3"} << "--cpu-moe";
        QTest::newRow("bad --rope-scaling")
            << QStringList{"--rope-scaling", "ntk"} << "--rope-scaling";
        QTest::newRow("bad --rope-scale") << QStringList{"--rope-scale", "-2"} << "--rope-scale";
    }

    // Qwen3-32B is trained to 40K and its card documents YaRN ×4 from 32K: at -c 128K the JSON
    // lists both blocking reasons on a 16 GiB card, only re-planned fixes say "fixes", a YaRN
    // remedy carries its flags, and with those flags the 128K rung runs and the launch keeps them.
    void yarnTakesAModelPastItsTrainedContextAndRemediesAreProven() {
        const QStringList machine = {"--vram", "16GiB", "--ram", "32GiB"};
        const auto r =
            runCli(QStringList{"plan", "--model", "qwen3-32b", "-c", "131072", "--json"} + machine);
        QVERIFY2(r.code == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const auto& rung = j.at("rungs").at(j.at("decision").at("rung_index").get<size_t>());
        const auto& refusal = rung.at("refusal");
        QCOMPARE(refusal.at("reasons").size(), size_t(2));
        QCOMPARE(refusal.at("reasons").at(1).at("code").get<std::string>(),
                 std::string("context_too_long"));
        bool yarn_fix = false;
        for (const auto& m : refusal.at("remedies")) {
            if (m.at("kind") == "kv_cache_q4") {
                QVERIFY(!m.at("fixes").get<bool>());
                QVERIFY(!m.at("still_lacks").get<std::string>().empty());
            }
            if (m.at("kind") == "rope_scaling_yarn" && m.at("fixes").get<bool>()) yarn_fix = true;
        }
        QVERIFY(yarn_fix);
        const auto run =
            runCli(QStringList{"plan", "--model", "qwen3-32b", "-c", "131072", "-ctk", "q4_0",
                               "-ctv", "q4_0", "-fa", "on", "--rope-scaling", "yarn",
                               "--rope-scale", "4", "--yarn-orig-ctx", "32768", "--json"} +
                   machine);
        QVERIFY2(run.code == 0, run.err.constData());
        const auto k = nlohmann::json::parse(run.out.toStdString());
        QVERIFY(!k.at("decision").at("refused").get<bool>());
        const auto argv = k.at("launch").at("llama_server").get<std::vector<std::string>>();
        const std::vector<std::string> want = {"--rope-scaling",  "yarn", "--rope-scale", "4",
                                               "--yarn-orig-ctx", "32768"};
        QVERIFY(std::search(argv.begin(), argv.end(), want.begin(), want.end()) != argv.end());
    }

    // A GGUF path with other quants of the same model beside it: the smaller-quant remedy names
    // the next smaller file (Q6_K, not the smallest Q4_0), and re-planning that file on the same
    // machine proves it: the rung runs with every byte on the GPU.
    void aGgufPlanOffersTheNextSmallerQuantBesideItAndItRuns() {
        QTemporaryDir dir;
        const QString q8 = dir.filePath(QStringLiteral("Sibling-2B-Q8_0.gguf"));
        const QString q6 = dir.filePath(QStringLiteral("Sibling-2B-Q6_K.gguf"));
        const QString q4 = dir.filePath(QStringLiteral("Sibling-2B-Q4_0.gguf"));
        // llama.h llama_ftype: 7 Q8_0, 18 Q6_K, 2 Q4_0.
        QVERIFY(headroom::test::quantOfTestModel(headroom::GgmlType::Q8_0, 7)
                    .write(q8.toStdString())
                    .has_value());
        QVERIFY(headroom::test::quantOfTestModel(headroom::GgmlType::Q6_K, 18)
                    .write(q6.toStdString())
                    .has_value());
        QVERIFY(headroom::test::quantOfTestModel(headroom::GgmlType::Q4_0, 2)
                    .write(q4.toStdString())
                    .has_value());
        // A 4.5 GiB card keeps max(2 GiB, 9 %) = 2 GiB in reserve: 2.5 GiB usable. At 8K the
        // GPU holds the blocks and output (the weights less token_embd, which stays on the CPU),
        // 0.25 GiB of f16 KV (8 layers × 2 × 1024 × 2 bytes × 8192), 0.12 GiB of compute and
        // 0.39 GiB of runtime overhead: ≈ 2.61 GiB at Q8_0 (≈ 1.99 GiB file, 34 bytes per 32
        // weights) — it spills — and ≈ 2.19 GiB at Q6_K (≈ 1.53 GiB, 210 bytes per 256) — it is
        // resident.
        const QStringList machine = {"--vram", "4.5GiB", "--ram", "16GiB", "-c", "8192", "--json"};
        const auto r = runCli(QStringList{"plan", q8} + machine);
        QVERIFY2(r.code == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const nlohmann::json* rung = nullptr;
        for (const auto& x : j.at("rungs"))
            if (x.at("context").get<int>() >= 8192 && !rung) rung = &x;
        QVERIFY(rung);
        QVERIFY(rung->at("verdict").get<std::string>() != "resident");
        const auto& remedies = rung->at("refusal").is_null() ? rung->at("spill_remedies")
                                                             : rung->at("refusal").at("remedies");
        const nlohmann::json* smaller = nullptr;
        for (const auto& m : remedies)
            if (m.at("kind") == "smaller_quant") smaller = &m;
        QVERIFY2(smaller, r.out.constData());
        QCOMPARE(QString::fromStdString(smaller->at("model").get<std::string>()), q6);
        QVERIFY(smaller->at("fixes").get<bool>());
        const auto again = runCli(QStringList{"plan", q6} + machine);
        QVERIFY2(again.code == 0, again.err.constData());
        const auto k = nlohmann::json::parse(again.out.toStdString());
        bool resident = false;
        for (const auto& x : k.at("rungs"))
            if (x.at("context") == rung->at("context"))
                resident = x.at("verdict").get<std::string>() == "resident";
        QVERIFY(resident);
    }

    void badPlacementFlagsExitTwoNamingTheFlag() {
        QFETCH(QStringList, flags);
        QFETCH(QString, says);
        const auto r = runCli(QStringList{"plan", "--model", "qwen3-30b-a3b"} + kMachine + flags);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(says.toUtf8()), r.err.constData());
    }

    void theMoeCurvePricesEveryNCpuMoeValueAtOneContext() {
        // Qwen3-30B-A3B has 48 blocks, all MoE: the curve runs --n-cpu-moe 0..48 (49 points) at
        // the -c given. Each block moved to the CPU takes its experts off the GPU, so GPU bytes
        // never rise and decode (host RAM is slower than the RTX 4090) never rises either.
        const auto r =
            runCli(QStringList{"plan", "--model", "qwen3-30b-a3b", "--moe-curve", "--json", "-c",
                               "32768", "--gpu", "RTX 4090", "--ram", "64GiB"});
        QVERIFY2(r.code == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j.at("schema").get<std::string>(), std::string("headroom.moe-curve/1"));
        QCOMPARE(j.at("context").get<int>(), 32768);
        const auto& pts = j.at("points");
        QCOMPARE(int(pts.size()), 49);
        for (size_t i = 0; i < pts.size(); ++i) {
            const auto& p = pts[i];
            QCOMPARE(p.at("n_cpu_moe").get<size_t>(), i);
            const auto& d = p.at("decode");
            QVERIFY(d.at("low").get<double>() <= d.at("tok_s").get<double>());
            QVERIFY(d.at("tok_s").get<double>() <= d.at("high").get<double>());
            QVERIFY(!d.at("basis").get<std::string>().empty());
            if (i == 0) continue;
            const auto& q = pts[i - 1];
            QVERIFY(p.at("gpu_bytes").get<double>() <= q.at("gpu_bytes").get<double>());
            QVERIFY(d.at("tok_s").get<double>() <= q.at("decode").at("tok_s").get<double>());
        }
    }

    void deepSeekV3AcrossTwoRpcHostsShowsEachHostItsDevicesAndItsLaunch() {
        // Issue 15's command, on a profile instead of live servers: two rpc-server hosts of two
        // 141 GiB GPUs each (H200-sized) and a 24 GiB GPU on the main host. DeepSeek-V3 Q4_K_M is
        // 404.43 GB (376.7 GiB) of weights, more than any one host holds and less than the
        // 4 x 141 + 24 = 588 GiB of the three, so every host gets layers.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString profile = dir.filePath("cluster.json");
        QFile f(profile);
        QVERIFY(f.open(QIODevice::WriteOnly));
        const auto gpu = [](const char* name, const char* gib) {
            return std::string("{\"name\": \"") + name +
                   "\", \"backend\": \"cuda\", \"total_bytes\": " + gib + "}";
        };
        // Each server's two GPUs as an rpc-server probe names them (ggml device names).
        const std::string h200 = gpu("CUDA0", "151397597184") + ", " + // 141 GiB = 141 x 2^30
                                 gpu("CUDA1", "151397597184");
        f.write(("{\"ram\": {\"total_bytes\": 274877906944}, \"devices\": [" +
                 gpu("RTX 4090", "25769803776") + // 24 GiB; RAM 256 GiB = 2^38
                 "], \"rpc_hosts\": ["
                 "{\"endpoint\": \"10.0.0.7:50052\", \"label\": \"den\", \"devices\": [" +
                 h200 +
                 "]}, {\"endpoint\": \"10.0.0.8:50052\", \"label\": \"attic\", "
                 "\"devices\": [" +
                 h200 + "]}]}")
                    .c_str());
        f.close();
        const auto r =
            runCli({"plan", "--model", "deepseek-v3", "--hardware", profile, "-c", "32K"});
        QVERIFY2(r.code == 0, r.err.constData());
        const QString out = QString::fromUtf8(r.out);
        const auto at = [&out](const QString& s) { return out.indexOf(s); };
        // The per-host table: each RPC host in --rpc order, its devices (llama.cpp numbers RPC
        // devices across hosts: RPC0, RPC1 on the first, RPC2, RPC3 on the second), then the main
        // host with its own GPU and RAM.
        QVERIFY2(at("Per host and device at 32K") >= 0, qPrintable(out));
        const QStringList order = {"rpc 10.0.0.7:50052 (den)",
                                   "    RPC0 CUDA0",
                                   "    RPC1 CUDA1",
                                   "rpc 10.0.0.8:50052 (attic)",
                                   "    RPC2 CUDA0",
                                   "    RPC3 CUDA1",
                                   "this machine",
                                   "    RTX 4090",
                                   "    host RAM"};
        qsizetype prev = at("Per host and device");
        for (const auto& s : order) {
            const qsizetype i = out.indexOf(s, prev);
            QVERIFY2(i > prev, qPrintable(s + " is not in its place:\n" + out));
            prev = i;
        }
        // The speed says how much of it is the network.
        QVERIFY2(out.contains("Network (in the speeds above):"), qPrintable(out));
        QVERIFY(out.contains("% of decode"));
        // One rpc-server line per host serving its two GPUs, then the main llama-server line with
        // --rpc and -ts.
        QVERIFY2(out.contains("-d CUDA0,CUDA1 -c"), qPrintable(out));
        QCOMPARE(out.count(QRegularExpression("^On 10\\.0\\.0\\.7:50052 \\(den\\): \\S*rpc-server ",
                                              QRegularExpression::MultilineOption)),
                 1);
        QCOMPARE(
            out.count(QRegularExpression("^On 10\\.0\\.0\\.8:50052 \\(attic\\): \\S*rpc-server ",
                                         QRegularExpression::MultilineOption)),
            1);
        const QRegularExpression launch(
            "^Launch: llama-server .*--rpc 10\\.0\\.0\\.7:50052,10\\.0\\.0\\.8:50052"
            ".* -ts \\S+",
            QRegularExpression::MultilineOption);
        QVERIFY2(launch.match(out).hasMatch(), qPrintable(out));
    }

    void theMoeCurveOfADenseModelExitsTwo() {
        // No routed experts, nothing for --n-cpu-moe to move: a bad argument, exit 2.
        const auto r = runCli(
            QStringList{"plan", "--model", "llama-3.1-8b-instruct", "--moe-curve"} + kMachine);
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("no routed experts"));
    }
};

QTEST_GUILESS_MAIN(TestCliPlan)
#include "test_cli_plan.moc"
