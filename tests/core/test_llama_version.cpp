// The llama.cpp version profiles: each difference between v0.4.0 and v0.5.0 that Headroom models,
// checked against the `llama-server --help` of each build (tests/fixtures/llama-server-help/,
// captured from llama.cpp built by tools/llama_cpp_build.sh), and every flag an exporter writes
// for a grid of real plans checked against the help of the build the plan targets.
#include "common/llama_server_help.h"
#include "common/plan_helpers.h"
#include "export/llama_server.h"
#include "export/llama_swap.h"
#include "launch/llama_version.h"
#include "policy/placement.h"

#include <QtTest>

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace headroom;
using namespace headroom::test;

Q_DECLARE_METATYPE(headroom::LlamaVersion)

namespace {

// Words of an argv that are flags: every value Headroom writes after a flag is a number, a path,
// a regex or a name, none of which starts with '-' followed by a letter.
std::vector<std::string> flagsOf(const std::vector<std::string>& words) {
    std::vector<std::string> out;
    for (const auto& w : words)
        if (w.size() > 1 && w[0] == '-' &&
            (std::isalpha(static_cast<unsigned char>(w[1])) || w[1] == '-'))
            out.push_back(w);
    return out;
}

// The plans of the grid: dense, MoE and MTP shapes on one GPU, two GPUs, a small GPU (spill) and
// no GPU, with the option sets that add flags (quantized cache, slots, SWA, pinned placement,
// load mode).
struct GridCase {
    std::string name;
    ModelShape model;
    HardwareSnapshot hw;
    PlanOptions options;
};

std::vector<GridCase> grid(LlamaVersion v) {
    ModelShape mtp = llama8bLike();
    LayerShape nextn = mtp.layers.back();
    nextn.is_mtp = true;
    mtp.layers.push_back(nextn);
    mtp.n_mtp_layers = 1;
    mtp.architecture = kMtpArchitecture;
    mtp.id = "mtp";
    const std::vector<std::pair<std::string, ModelShape>> models = {
        {"dense", llama8bLike()}, {"moe", moeShape()}, {"mtp", mtp}};
    const std::vector<std::pair<std::string, HardwareSnapshot>> machines = {
        {"1gpu", snapshotFromSizes({24 * GiB}, 64 * GiB, false)},
        {"2gpu", snapshotFromSizes({12 * GiB, 8 * GiB}, 64 * GiB, false)},
        {"small", snapshotFromSizes({6 * GiB}, 64 * GiB, false)},
        {"cpu", snapshotFromSizes({0}, 64 * GiB, false)}};
    std::vector<std::pair<std::string, PlanOptions>> optionSets;
    PlanOptions o;
    o.llama_version = v;
    optionSets.push_back({"defaults", o});
    PlanOptions q = o;
    q.cache_type_k = q.cache_type_v = GgmlType::Q8_0;
    q.flash_attn = FlashAttn::On;
    q.n_ubatch = 1024;
    q.ubatch_set = true;
    q.mmproj = true;
    q.mmproj_bytes = 600 * MiB;
    optionSets.push_back({"q8", q});
    PlanOptions multi = o;
    multi.n_parallel = 4;
    multi.kv_unified = true;
    multi.swa_full = true;
    multi.load_mode = LoadMode::Mlock;
    optionSets.push_back({"slots", multi});
    PlanOptions pinned = o;
    pinned.pinned.gpu_layers = GpuLayers::all();
    pinned.pinned.n_cpu_moe = 2;
    pinned.pinned.tensor_overrides = {{"blk\\.7\\.ffn_(up|down|gate)_exps", "CPU"}};
    pinned.load_mode = LoadMode::None;
    optionSets.push_back({"pinned", pinned});

    std::vector<GridCase> out;
    for (const auto& [mn, m] : models)
        for (const auto& [hn, hw] : machines)
            for (const auto& [on, opts] : optionSets) {
                PlanOptions po = opts;
                if (on == "pinned" && hn == "2gpu") po.pinned.tensor_split = {3, 1};
                if (on == "pinned" && m.moe.n_expert == 0) {
                    po.pinned.n_cpu_moe.reset();
                    po.pinned.tensor_overrides.clear();
                }
                std::string name = mn;
                name.append("/").append(hn).append("/").append(on);
                out.push_back({name, m, hw, po});
            }
    return out;
}

} // namespace

class TestLlamaVersion : public QObject {
    Q_OBJECT

private slots:
    void versionNamesParseBackAndUnknownOnesAreRefused() {
        for (LlamaVersion v : allLlamaVersions()) {
            QCOMPARE(*parseLlamaVersion(llamaVersionName(v)), v);
            QCOMPARE(*parseLlamaVersion(std::string(llamaVersionName(v)).substr(1)), v);
        }
        const auto bad = parseLlamaVersion("b4500");
        QVERIFY(!bad);
        QCOMPARE(bad.error().code, ErrorCode::InvalidArgument);
        QVERIFY(bad.error().details.find("v0.5.0") != std::string::npos);
        QCOMPARE(kDefaultLlamaVersion, LlamaVersion::V0_5_0);
    }

    void buildNumbersParseAsLlamaServerPrintsThem_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("build"); // 0: refused
        QTest::newRow("version: line") << "6699" << 6699;
        QTest::newRow("release tag") << "b6699" << 6699;
        QTest::newRow("largest") << "999999" << 999999;
        QTest::newRow("empty") << "" << 0;
        QTest::newRow("tag without number") << "b" << 0;
        QTest::newRow("zero") << "0" << 0;
        QTest::newRow("negative") << "-5" << 0;
        QTest::newRow("trailing text") << "6699 (c08002a1)" << 0;
        QTest::newRow("a semantic version") << "v0.5.0" << 0;
        QTest::newRow("past the range") << "1000000" << 0;
        QTest::newRow("past 32 bits") << "99999999999" << 0;
    }
    void buildNumbersParseAsLlamaServerPrintsThem() {
        QFETCH(QString, text);
        QFETCH(int, build);
        const auto b = parseLlamaBuild(text.toStdString());
        if (build == 0) {
            QVERIFY(!b);
            QCOMPARE(b.error().code, ErrorCode::InvalidArgument);
        } else {
            QVERIFY(b);
            QCOMPARE(*b, std::uint32_t(build));
        }
    }

    // PR #23764 landed between tags b9341 and b9518: up to b9341 the F32 mask is known, inside
    // the window it is priced (the larger allocation), from b9518 on it is gone.
    void theF32MaskIsPricedUntilTheFirstBuildKnownToHaveTheF16One_data() {
        QTest::addColumn<int>("build");
        QTest::addColumn<bool>("f32_cast");
        QTest::newRow("b6699, ik_llama.cpp#822's") << 6699 << true;
        QTest::newRow("b9341, the window's start") << 9341 << true;
        QTest::newRow("b9517, inside the window") << 9517 << true;
        QTest::newRow("b9518, the window's end") << 9518 << false;
        QTest::newRow("b10621, v0.3.0-dev") << 10621 << false;
    }
    void theF32MaskIsPricedUntilTheFirstBuildKnownToHaveTheF16One() {
        QFETCH(int, build);
        QFETCH(bool, f32_cast);
        QCOMPARE(olderBuildGraph(std::uint32_t(build)).kq_mask_f32_cast, f32_cast);
        QVERIFY(!f32_cast || olderBuildGraph(std::uint32_t(build)).any());
    }

    // The per-sequence KV streams first ran in b5913 (llama.cpp issue #14847's assertion).
    void oneKvStreamIsPricedBeforeB5913_data() {
        QTest::addColumn<int>("build");
        QTest::addColumn<bool>("one_stream");
        QTest::newRow("b5273, llama.cpp#13298's") << 5273 << true;
        QTest::newRow("b5912") << 5912 << true;
        QTest::newRow("b5913") << 5913 << false;
        QTest::newRow("b6699") << 6699 << false;
    }
    // -ngl without the output layer is known up to b4783 (the newest such published log).
    void anOlderNglIsPricedUpToTheLastBuildKnownToHaveIt_data() {
        QTest::addColumn<int>("build");
        QTest::addColumn<bool>("excludes_output");
        QTest::newRow("b2408, llama.cpp#6031's") << 2408 << true;
        QTest::newRow("b4783, llama.cpp#12213's") << 4783 << true;
        QTest::newRow("b4784") << 4784 << false;
    }
    void anOlderNglIsPricedUpToTheLastBuildKnownToHaveIt() {
        QFETCH(int, build);
        QFETCH(bool, excludes_output);
        QCOMPARE(olderBuildGraph(std::uint32_t(build)).ngl_excludes_output, excludes_output);
    }

    void oneKvStreamIsPricedBeforeB5913() {
        QFETCH(int, build);
        QFETCH(bool, one_stream);
        QCOMPARE(olderBuildGraph(std::uint32_t(build)).one_kv_stream, one_stream);
    }

    void loadModesParseBackInLlamaCppsSpelling() {
        for (LoadMode m : {LoadMode::Auto, LoadMode::None, LoadMode::Mmap, LoadMode::Mlock,
                           LoadMode::MmapMlock, LoadMode::DirectIo})
            QCOMPARE(*parseLoadMode(loadModeName(m)), m);
        QVERIFY(!parseLoadMode("no-mmap"));
    }

    // The removed flags of the v0.5.0 profile are exactly the flags v0.4.0's --help lists and
    // v0.5.0's does not (v0.5.0 only added --log-jsonl/--no-log-jsonl, which Headroom never
    // writes).
    void theRemovedFlagsAreWhatTheTwoHelpsDiffer() {
        const auto v4 = llamaServerHelpFlags(LlamaVersion::V0_4_0);
        const auto v5 = llamaServerHelpFlags(LlamaVersion::V0_5_0);
        QVERIFY(v4.size() > 200); // a parse that found the option table, not a stray line
        std::set<std::string> gone;
        for (const auto& f : v4)
            if (!v5.count(f)) gone.insert(f);
        const auto& removed = llamaProfile(LlamaVersion::V0_5_0).removed_flags;
        QCOMPARE(gone, std::set<std::string>(removed.begin(), removed.end()));
        QVERIFY(llamaProfile(LlamaVersion::V0_4_0).removed_flags.empty());
        for (const char* f : {"--mlock", "--no-mmap"}) {
            QVERIFY(!llamaProfile(LlamaVersion::V0_5_0).accepts(f));
            QVERIFY(llamaProfile(LlamaVersion::V0_4_0).accepts(f));
        }
        // --load-mode, which replaces them, is in both.
        QVERIFY(v4.count("--load-mode") && v5.count("--load-mode"));
    }

    // Both helps say -np defaults to -1 = auto, which tools/server/server.cpp resolves to 4 slots
    // on a unified cache; the profiles carry that.
    void bothBuildsDefaultTheServerToFourUnifiedSlots() {
        for (LlamaVersion v : allLlamaVersions()) {
            std::ifstream in(test::llamaServerHelpPath(v));
            std::string text((std::istreambuf_iterator<char>(in)), {});
            QVERIFY(text.find("number of server slots (default: -1, -1 = auto)") !=
                    std::string::npos);
            QCOMPARE(llamaProfile(v).server_auto_slots, 4u);
            QVERIFY(llamaProfile(v).server_auto_kv_unified);
            // Fit's defaults, as each help prints them.
            QVERIFY(text.find("default: 1024") != std::string::npos);
            QVERIFY(text.find("minimum ctx size that can be set by --fit option, default: 4096") !=
                    std::string::npos);
            QCOMPARE(llamaProfile(v).fit_target_mib, 1024u);
            QCOMPARE(llamaProfile(v).fit_min_ctx, 4096u);
        }
    }

    void fitSizesAnUnsetContext_data() {
        QTest::addColumn<LlamaVersion>("version");
        QTest::addColumn<uint>("nSeq");
        QTest::addColumn<bool>("unified");
        QTest::addColumn<uint>("expected");
        // v0.4.0 counts KV streams: one with a unified cache -> 131072 x 1.
        QTest::newRow("v0.4.0 4 slots unified") << LlamaVersion::V0_4_0 << 4u << true << 131072u;
        // Split cache: 4 streams -> 131072 x 4 = 524288.
        QTest::newRow("v0.4.0 4 slots split") << LlamaVersion::V0_4_0 << 4u << false << 524288u;
        // v0.5.0 counts every sequence even on a unified cache: 131072 x 4 = 524288.
        QTest::newRow("v0.5.0 4 slots unified") << LlamaVersion::V0_5_0 << 4u << true << 524288u;
        QTest::newRow("v0.5.0 4 slots split") << LlamaVersion::V0_5_0 << 4u << false << 524288u;
        QTest::newRow("v0.5.0 1 slot") << LlamaVersion::V0_5_0 << 1u << true << 131072u;
        // 131072 x 65536 = 2^33 saturates at UINT32_MAX = 4294967295, as fit does.
        QTest::newRow("v0.5.0 saturates") << LlamaVersion::V0_5_0 << 65536u << true << 4294967295u;
    }
    void fitSizesAnUnsetContext() {
        QFETCH(LlamaVersion, version);
        QFETCH(uint, nSeq);
        QFETCH(bool, unified);
        QFETCH(uint, expected);
        QCOMPARE(fitUnsetContext(llamaProfile(version), 131072, nSeq, unified), expected);
    }

    // llama_model::create_memory's default-branch nextn filter (src/llama-model.cpp): v0.4.0
    // (80fb11ac) applied it to step35, hy_v3, glm-dsa, mimo2 and deepseek32 only; v0.5.0
    // (de3ff815) to every non-hybrid architecture with nextn blocks.
    void theNextnFilterCoversEveryArchitectureFromV050_data() {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<bool>("v040");
        QTest::addColumn<bool>("v050");
        QTest::newRow("glm4moe") << "glm4moe" << false << true;
        QTest::newRow("talkie") << "talkie" << false << true;
        QTest::newRow("mistral4") << "mistral4" << false << true;
        QTest::newRow("step35") << "step35" << true << true;
        QTest::newRow("hy_v3") << "hy_v3" << true << true;
        QTest::newRow("mimo2") << "mimo2" << true << true;
    }
    void theNextnFilterCoversEveryArchitectureFromV050() {
        QFETCH(QString, arch);
        QFETCH(bool, v040);
        QFETCH(bool, v050);
        QCOMPARE(llamaProfile(LlamaVersion::V0_4_0).filtersNextn(arch.toStdString()), v040);
        QCOMPARE(llamaProfile(LlamaVersion::V0_5_0).filtersNextn(arch.toStdString()), v050);
    }

    // src/llama-arch.cpp llm_arch_supports_rs_rollback: v0.5.0 added kimi-k3. With MTP the
    // snapshots are the draft length (common_params_speculative::need_n_rs_seq); without, none.
    // Measured with llama-server v0.5.0 (CPU, -c 4096 -np 1) on the sparse LFM2-1.2B replica
    // (tests/validation/models.js; lfm2 is rollback-capable): "n_rs_seq = 0", RS buffer 0.16 MiB
    // (10 short-conv layers x 2048 x 2 f32 = 163 840 B) without drafting; with --spec-type
    // draft-mtp --spec-draft-n-max 3, "n_rs_seq = 3" and 0.62 MiB = 163 840 x (1 + 3) before the
    // MTP context itself failed (the file has no nextn block).
    void rollbackSnapshotsFollowTheBuildsArchitectureList_data() {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<bool>("mtp");
        QTest::addColumn<uint>("v040");
        QTest::addColumn<uint>("v050");
        QTest::newRow("kimi-k3 drafting") << "kimi-k3" << true << 0u << 3u;
        QTest::newRow("qwen35 drafting") << "qwen35" << true << 3u << 3u;
        QTest::newRow("bailingmoe3 drafting") << "bailingmoe3" << true << 3u << 3u;
        QTest::newRow("nemotron_h_moe drafting") << "nemotron_h_moe" << true << 3u << 3u;
        QTest::newRow("qwen35 not drafting") << "qwen35" << false << 0u << 0u;
        QTest::newRow("qwen3next drafting") << "qwen3next" << true << 0u << 0u;
        QTest::newRow("kimi-linear drafting") << "kimi-linear" << true << 0u << 0u;
    }
    void rollbackSnapshotsFollowTheBuildsArchitectureList() {
        QFETCH(QString, arch);
        QFETCH(bool, mtp);
        QFETCH(uint, v040);
        QFETCH(uint, v050);
        const std::string a = arch.toStdString();
        QCOMPARE(recurrentSnapshots(llamaProfile(LlamaVersion::V0_4_0), a, mtp, 3), v040);
        QCOMPARE(recurrentSnapshots(llamaProfile(LlamaVersion::V0_5_0), a, mtp, 3), v050);
    }

    void theLoadModeIsWrittenAsLoadModeForEveryBuild() {
        LaunchConfig c;
        c.load_mode = LoadMode::MmapMlock;
        const auto args = llamaServerArgs(c);
        const auto at = std::find(args.begin(), args.end(), "--load-mode");
        QVERIFY(at != args.end());
        QCOMPARE(*(at + 1), std::string("mmap+mlock"));
        c.load_mode.reset();
        const auto none = llamaServerArgs(c);
        QVERIFY(std::find(none.begin(), none.end(), "--load-mode") == none.end());
    }

    // Remote models: a URL is downloaded with -mu (never -m URL), a projector URL with -mmu, an
    // hf: reference becomes -hf OWNER/REPO:QUANT, with --no-mmproj when the plan priced no
    // projector (common/arg.cpp: -hf fetches the repository's projector by default).
    void remoteModelsAreWrittenAsLlamaCppDownloadsThem_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mmproj");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("url") << "https://example.org/m.gguf"
                             << "" << QStringList{"-mu", "https://example.org/m.gguf"};
        QTest::newRow("url + projector url") << "https://example.org/m.gguf"
                                             << "https://example.org/p.gguf"
                                             << QStringList{"-mu", "https://example.org/m.gguf",
                                                            "-mmu", "https://example.org/p.gguf"};
        QTest::newRow("hf") << "hf:owner/repo:Q8_0"
                            << "" << QStringList{"-hf", "owner/repo:Q8_0", "--no-mmproj"};
        QTest::newRow("hf + projector")
            << "hf:owner/repo"
            << "/models/p.gguf" << QStringList{"-hf", "owner/repo", "--mmproj", "/models/p.gguf"};
        QTest::newRow("file") << "/models/m.gguf"
                              << "" << QStringList{"-m", "/models/m.gguf"};
    }
    void remoteModelsAreWrittenAsLlamaCppDownloadsThem() {
        QFETCH(QString, model);
        QFETCH(QString, mmproj);
        QFETCH(QStringList, expected);
        Plan p = planOrFail(llama8bLike(), snapshotFromSizes({24 * GiB}, 64 * GiB, false));
        p.options.mmproj = !mmproj.isEmpty();
        LaunchExportOptions lo;
        lo.model_path = model.toStdString();
        lo.mmproj_path = mmproj.toStdString();
        const auto l = llamaServerLaunch(p, lo);
        QVERIFY(l.has_value());
        QStringList head;
        for (size_t i = 1; i <= static_cast<size_t>(expected.size()); ++i)
            head << QString::fromStdString(l->argv[i]);
        QCOMPARE(head, expected);
        QVERIFY(std::find(l->argv.begin(), l->argv.end(), "-m") == l->argv.end() ||
                !model.startsWith("http"));
    }

    // The -ot value a spilled MoE launch writes moves exactly --cpu-moe's tensors (v0.5.0
    // LLM_FFN_EXPS_REGEX): every routed-expert bank, fused, chunked or biased, and nothing else.
    void theExpertPatternMovesEveryExpertTensorAndNothingElse_data() {
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<bool>("moved");
        for (const char* t : {"blk.3.ffn_up_exps.weight", "blk.3.ffn_gate_exps.weight",
                              "blk.3.ffn_down_exps.weight", "blk.3.ffn_gate_up_exps.weight",
                              "blk.3.ffn_down_chexps.weight", "blk.3.ffn_up_chexps.weight",
                              "blk.3.ffn_up_exps.bias", "blk.47.ffn_down_exps.bias"})
            QTest::newRow(t) << QString(t) << true;
        for (const char* t :
             {"blk.3.ffn_up_shexp.weight", "blk.3.ffn_up.weight", "blk.3.ffn_gate_inp.weight",
              "blk.3.exp_probs_b.bias", "blk.3.attn_q.weight", "token_embd.weight"})
            QTest::newRow(t) << QString(t) << false;
    }
    void theExpertPatternMovesEveryExpertTensorAndNothingElse() {
        QFETCH(QString, tensor);
        QFETCH(bool, moved);
        const std::string ot = policy::kMoeExpertsToCpuOverride;
        const auto parsed = parseTensorOverrides(ot);
        QVERIFY(parsed.has_value());
        QCOMPARE(parsed->size(), size_t(1));
        QCOMPARE(parsed->front().device, std::string("CPU"));
        // src/llama-model-loader.cpp matches -ot patterns with std::regex_search.
        QCOMPARE(std::regex_search(tensor.toStdString(), std::regex(parsed->front().pattern)),
                 moved);
    }

    void everyExportedFlagIsInThatBuildsHelp_data() {
        QTest::addColumn<LlamaVersion>("version");
        for (LlamaVersion v : allLlamaVersions())
            QTest::newRow(llamaVersionName(v)) << v;
    }
    void everyExportedFlagIsInThatBuildsHelp() {
        QFETCH(LlamaVersion, version);
        const auto accepted = llamaServerHelpFlags(version);
        std::set<std::string> written;
        int exported = 0;
        for (const GridCase& g : grid(version)) {
            auto planOr = makePlan(g.model, g.hw, g.options);
            QVERIFY2(planOr.has_value(), g.name.c_str());
            const Plan& plan = *planOr;
            if (plan.decision.refused) continue;
            for (int variant = 0; variant < 4; ++variant) {
                LaunchExportOptions lo;
                lo.fit = variant % 2 ? FitMode::LeaveToFit : FitMode::Pin;
                lo.host = "0.0.0.0";
                lo.port = "8080";
                lo.mmproj_path = "/models/mmproj.gguf";
                if (variant == 2) {
                    lo.model_path = "https://example.org/m.gguf";
                    lo.mmproj_path = "https://example.org/mmproj.gguf";
                }
                if (variant == 3) lo.model_path = "hf:owner/repo:Q4_K_M";
                auto launch = llamaServerLaunch(plan, lo);
                QVERIFY2(launch.has_value(), g.name.c_str());
                for (const auto& f : flagsOf(launch->argv)) {
                    QVERIFY2(accepted.count(f),
                             (g.name + ": " + f + " is not in llama-server --help of " +
                              llamaVersionName(version))
                                 .c_str());
                    QVERIFY(llamaProfile(version).accepts(f));
                    written.insert(f);
                }
                ++exported;
            }
            // The llama-swap cmd: the same launch on ${PORT}, one flag per line.
            auto yaml = llamaSwapYaml({{plan, "", {}}}, {});
            QVERIFY2(yaml.has_value(), g.name.c_str());
            const YAML::Node root = YAML::Load(*yaml);
            for (const auto& kv : root["models"]) {
                std::istringstream cmd(kv.second["cmd"].as<std::string>());
                std::string line;
                std::vector<std::string> words;
                while (std::getline(cmd, line)) {
                    if (line.rfind('#', 0) == 0) continue;
                    std::istringstream ws(line);
                    std::string w;
                    while (ws >> w)
                        words.push_back(w);
                }
                for (const auto& f : flagsOf(words))
                    QVERIFY2(accepted.count(f), (g.name + " (llama-swap): " + f).c_str());
            }
        }
        // The grid reached the flags that matter: placement, fit, cache, slots, MTP, load mode.
        QVERIFY(exported > 40);
        for (const char* f :
             {"-ngl",       "--n-cpu-moe", "-ot",         "-ts",      "--fit",      "--fit-target",
              "-fa",        "-ctk",        "-ctv",        "-ub",      "-np",        "-kvu",
              "--swa-full", "--spec-type", "--load-mode", "--mmproj", "--host",     "--port",
              "-m",         "-mu",         "-mmu",        "-hf",      "--no-mmproj"})
            QVERIFY2(written.count(f), f);
    }
};

QTEST_APPLESS_MAIN(TestLlamaVersion)
#include "test_llama_version.moc"
