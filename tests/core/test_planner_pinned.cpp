// The typed launch and the user's own placement ("what if"): -ngl, --n-cpu-moe, -ot, -ts and -sm
// are priced exactly as llama.cpp would place them, overcommits are refused naming the device,
// the launch keeps the user's flags, and remedies carry the flags they apply.
#include "common/plan_helpers.h"
#include "launch/launch_config.h"
#include "planner.h"
#include "planner/planner_internal.h"
#include "policy/placement.h"

#include <QtTest>

#include <algorithm>

using namespace headroom;
using namespace headroom::test;

namespace {

bool contains(const std::vector<std::string>& v, const std::vector<std::string>& seq) {
    return std::search(v.begin(), v.end(), seq.begin(), seq.end()) != v.end();
}

} // namespace

Q_DECLARE_METATYPE(std::vector<double>)
Q_DECLARE_METATYPE(std::vector<std::uint32_t>)

class TestPlannerPinned : public QObject {
    Q_OBJECT

private slots:
    void tensorSplitPlacesLayersAsLlamaCppDoes_data() {
        QTest::addColumn<std::vector<double>>("split");
        QTest::addColumn<QString>("ngl");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<std::vector<std::uint32_t>>("gpuLayers");
        QTest::addColumn<std::uint32_t>("hostLayers");
        // llama8bLike: 32 blocks + the output = 33 layers. llama_model::load_tensors:
        // i_gpu_start = max(33 - ngl, 0), act = min(ngl, 33), device = upper_bound(cumulative,
        // (il - i_gpu_start) / act).
        // -ts 3,1, all: cumulative {0.75, 1}; il/33 < 0.75 <=> il <= 24: GPU0 0..24 (25 layers),
        // GPU1 25..32 (8, the output included).
        QTest::newRow("-ts 3,1 -ngl all") << std::vector<double>{3, 1} << "all"
                                          << "layer" << std::vector<std::uint32_t>{25, 8} << 0u;
        // -ts 1,1: il/33 < 0.5 <=> il <= 16: 17 and 16.
        QTest::newRow("-ts 1,1 -ngl all") << std::vector<double>{1, 1} << "all"
                                          << "layer" << std::vector<std::uint32_t>{17, 16} << 0u;
        // -ngl 20: i_gpu_start 13, layers 13..32; (il - 13)/20 < 0.75 <=> il - 13 <= 14: GPU0
        // 15, GPU1 5, CPU blocks 0..12 (13).
        QTest::newRow("-ts 3,1 -ngl 20") << std::vector<double>{3, 1} << "20"
                                         << "layer" << std::vector<std::uint32_t>{15, 5} << 13u;
        // -ts 0,1: cumulative {0, 1}; upper_bound finds the first point > f, never 0: all on GPU1.
        QTest::newRow("-ts 0,1") << std::vector<double>{0, 1} << "all"
                                 << "layer" << std::vector<std::uint32_t>{0, 33} << 0u;
        // -sm none: llama.cpp keeps only the main GPU.
        QTest::newRow("-sm none") << std::vector<double>{} << "all"
                                  << "none" << std::vector<std::uint32_t>{33, 0} << 0u;
    }

    void tensorSplitPlacesLayersAsLlamaCppDoes() {
        QFETCH(std::vector<double>, split);
        QFETCH(QString, ngl);
        QFETCH(QString, mode);
        QFETCH(std::vector<std::uint32_t>, gpuLayers);
        QFETCH(std::uint32_t, hostLayers);
        PlanOptions o;
        o.context = 65536;
        o.pinned.tensor_split = split;
        o.pinned.gpu_layers = *parseGpuLayers(ngl.toStdString());
        o.pinned.split_mode = *parseSplitMode(mode.toStdString());
        // Two 80 GiB cards: everything fits, so only the mapping is under test.
        const Plan p =
            planOrFail(llama8bLike(), snapshotFromSizes({80 * GiB, 80 * GiB}, 256 * GiB, false), o);
        const Rung& r = p.rungs[static_cast<size_t>(p.decision.rung_index)];
        QVERIFY(r.placement.pinned);
        QCOMPARE(r.placement.device_layers, gpuLayers);
        QCOMPARE(r.placement.host_layers, hostLayers);
        // The launch keeps the user's flags as given.
        QVERIFY(p.launch.has_value());
        QCOMPARE(p.launch->tensor_split, split);
        QCOMPARE(*p.launch->gpu_layers, o.pinned.gpu_layers.value());
        QCOMPARE(p.launch->split_mode, o.pinned.split_mode);
        if (!split.empty())
            QVERIFY(contains(llamaServerArgs(*p.launch), {"-ts", tensorSplitText(split)}));
    }

    void theUsersNglAndNCpuMoeArePricedAsGivenAndEchoed() {
        PlanOptions o;
        o.pinned.gpu_layers = GpuLayers::of(9); // 8 blocks + output: all
        o.pinned.n_cpu_moe = 3;
        const Plan p = planOrFail(moeShape(), snapshotFromSizes({24 * GiB}, 64 * GiB, false), o);
        for (const Rung& r : p.rungs) {
            QVERIFY(r.placement.pinned);
            QCOMPARE(r.placement.gpu_layers, 9u);
            QCOMPARE(r.placement.n_cpu_moe, 3u);
            // The experts of blocks 0..2 (1 GiB each) are in host memory, as the user asked,
            // although everything would fit the 24 GiB card: spilled, not searched away.
            QCOMPARE(r.host.experts, 3 * GiB);
            QCOMPARE(r.placement.spill_bytes, 3 * GiB);
            QCOMPARE(r.verdict, Verdict::Spilled);
            // 64 experts per block: 3 blocks on the host, 5 on the GPU.
            QCOMPARE(r.placement.expert_slots_host, std::uint64_t{3 * 64});
            QCOMPARE(r.placement.expert_slots_gpu, std::uint64_t{5 * 64});
        }
        QVERIFY(p.launch.has_value());
        QCOMPARE(p.launch->n_cpu_moe, 3u);
        QCOMPARE(*p.launch->gpu_layers, GpuLayers::of(9));
        const auto args = llamaServerArgs(*p.launch);
        QVERIFY(contains(args, {"-ngl", "9"}));
        QVERIFY(contains(args, {"--n-cpu-moe", "3"}));
    }

    void anOvercommittedPinnedPlacementIsRefusedNamingTheDeviceAndTheShortfall_data() {
        QTest::addColumn<bool>("exact");
        QTest::newRow("-c 64K") << true;
        // No -c: the ladder's floor is 64K too, and a refused floor is otherwise reported as the
        // machine's physics floor; a pinned placement's is not (another placement may fit).
        QTest::newRow("the ladder's floor") << false;
    }
    void anOvercommittedPinnedPlacementIsRefusedNamingTheDeviceAndTheShortfall() {
        QFETCH(bool, exact);
        // llama8bLike at 64K: 7.23 GiB of weights + 8 GiB of f16 KV on an 8 GiB card (6 GiB
        // usable) with every layer pinned to it: no search may rescue it.
        PlanOptions o;
        if (exact) o.context = 65536;
        o.pinned.gpu_layers = GpuLayers::all();
        const Plan p = planOrFail(llama8bLike(), snapshotFromSizes({8 * GiB}, 64 * GiB, false), o);
        const Rung& r = p.rungs[static_cast<size_t>(p.decision.rung_index)];
        QCOMPARE(r.verdict, Verdict::Refused);
        QVERIFY(r.refusal.has_value());
        const Refusal& f = *r.refusal;
        QCOMPARE(f.code, RefusalCode::DeviceOvercommitted);
        QCOMPARE(f.budget, BudgetName::Vram);
        QCOMPARE(f.device, 0);
        // Shortfall = what GPU 0 holds - what it has usable, and it is what the message says.
        QCOMPARE(f.needed_bytes, r.devices[0].bytes);
        QCOMPARE(f.shortfall_bytes, toSigned(r.devices[0].bytes) - r.devices[0].budget_bytes);
        QVERIFY(f.shortfall_bytes > 0);
        QVERIFY(f.message.find("GPU 0") != std::string::npos);
        QVERIFY(f.message.find(formatBytes(static_cast<Bytes>(f.shortfall_bytes))) !=
                std::string::npos);
        QVERIFY(!p.launch.has_value());
    }

    void tensorPatternsMoveTheTensorsTheyMatch_data() {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<bool>("moe");
        QTest::addColumn<int>("block");
        QTest::addColumn<int>("expertParts");
        QTest::addColumn<int>("ffnParts");
        QTest::addColumn<bool>("attn");
        // The usual expert pattern takes all three banks of every MoE block.
        QTest::newRow("experts everywhere")
            << R"(\.ffn_(up|down|gate)_exps=CPU)" << true << 5 << 3 << 0 << false;
        // Anchored block numbers: blk.1 matches, blk.5 does not.
        QTest::newRow("experts of blocks 0,1 (block 1)")
            << R"(blk\.(0|1)\.ffn_.*_exps=CPU)" << true << 1 << 3 << 0 << false;
        QTest::newRow("experts of blocks 0,1 (block 5)")
            << R"(blk\.(0|1)\.ffn_.*_exps=CPU)" << true << 5 << 0 << 0 << false;
        // One bank of three.
        QTest::newRow("down experts only") << "ffn_down_exps=CPU" << true << 2 << 1 << 0 << false;
        // The planner's own hybrid FFN pattern (policy::hybridFfnOverride({1, 2})).
        QTest::newRow("hybrid FFN pattern")
            << QString::fromStdString(policy::hybridFfnOverride({1, 2})) << false << 2 << 0 << 3
            << false;
        QTest::newRow("attention") << R"(blk\.3\.attn_q=CPU)" << false << 3 << 0 << 0 << true;
    }

    void tensorPatternsMoveTheTensorsTheyMatch() {
        QFETCH(QString, pattern);
        QFETCH(bool, moe);
        QFETCH(int, block);
        QFETCH(int, expertParts);
        QFETCH(int, ffnParts);
        QFETCH(bool, attn);
        auto list = parseTensorOverrides(pattern.toStdString());
        QVERIFY2(list.has_value(), list ? "" : list.error().message.c_str());
        const ModelShape m = moe ? moeShape() : llama8bLike();
        auto moves = detail::tensorMoves(m, *list);
        QVERIFY(moves.has_value());
        const BlockMoves& mv = (*moves)[static_cast<size_t>(block)];
        QCOMPARE(int(mv.expert_parts), expertParts);
        QCOMPARE(int(mv.ffn_parts), ffnParts);
        QCOMPARE(mv.attn, attn);
    }

    void theExpertPatternPutsEveryExpertInHostMemory() {
        PlanOptions o;
        o.pinned.tensor_overrides = *parseTensorOverrides(R"(\.ffn_(up|down|gate)_exps=CPU)");
        const Plan p = planOrFail(moeShape(), snapshotFromSizes({24 * GiB}, 64 * GiB, false), o);
        const Rung& r = p.rungs[0];
        // 8 blocks x 1 GiB of experts.
        QCOMPARE(r.host.experts, 8 * GiB);
        QCOMPARE(r.devices[0].terms.experts, Bytes{0});
        QCOMPARE(p.launch->tensor_overrides, o.pinned.tensor_overrides);
        QVERIFY(contains(llamaServerArgs(*p.launch), {"-ot", R"(\.ffn_(up|down|gate)_exps=CPU)"}));
    }

    void badPlacementFlagsAreClearErrors_data() {
        QTest::addColumn<QString>("ot");
        QTest::addColumn<QString>("says");
        QTest::newRow("unbalanced group") << R"(blk\.(0=CPU)"
                                          << "not a valid regular expression";
        QTest::newRow("no device") << "ffn_up_exps"
                                   << "REGEX=DEVICE";
        QTest::newRow("empty pattern") << "=CPU"
                                       << "REGEX=DEVICE";
    }

    void badPlacementFlagsAreClearErrors() {
        QFETCH(QString, ot);
        QFETCH(QString, says);
        auto r = parseTensorOverrides(ot.toStdString());
        QVERIFY(!r.has_value());
        const std::string all = r.error().message + " " + r.error().details;
        QVERIFY2(all.find(says.toStdString()) != std::string::npos, all.c_str());
    }

    void aGpuTheMachineLacksOrTooManySplitsAreRefusedBeforePricing() {
        // One GPU: its buffer type is CUDA0 (common/arg.cpp parse_tensor_buffer_overrides knows
        // only the devices' own), so CUDA1 is refused and CUDA0 is priced.
        PlanOptions o;
        o.pinned.tensor_overrides = {{"ffn_up_exps", "CUDA1"}};
        auto bad = makePlan(moeShape(), snapshotFromSizes({24 * GiB}, 64 * GiB, false), o);
        QVERIFY(!bad.has_value());
        QVERIFY(bad.error().message.find("'CUDA1' is not a buffer type of this machine") !=
                std::string::npos);
        o.pinned.tensor_overrides = {{"ffn_up_exps", "CUDA0"}};
        QVERIFY(makePlan(moeShape(), snapshotFromSizes({24 * GiB}, 64 * GiB, false), o));
        PlanOptions ts;
        ts.pinned.tensor_split = {3, 1};
        auto one = makePlan(llama8bLike(), snapshotFromSizes({24 * GiB}, 64 * GiB, false), ts);
        QVERIFY(!one.has_value());
        QVERIFY(one.error().message.find("-ts") != std::string::npos);
    }

    void anExplicitDefaultUbatchStaysOnAnMtpModel_data() {
        QTest::addColumn<bool>("typed");
        QTest::addColumn<std::uint32_t>("stackedUbatch");
        // Typed -ub 512 is the user's: every posture prices and launches 512.
        QTest::newRow("-ub 512 typed") << true << 512u;
        // Left unset: Hermes' stacked posture prefills with a 2048 micro-batch.
        QTest::newRow("-ub unset") << false << 2048u;
    }

    void anExplicitDefaultUbatchStaysOnAnMtpModel() {
        QFETCH(bool, typed);
        QFETCH(std::uint32_t, stackedUbatch);
        PlanOptions o;
        o.n_ubatch = llama::kDefaultUbatch;
        o.ubatch_set = typed;
        const Plan p =
            planOrFail(llama8bMtpLike(), snapshotFromSizes({80 * GiB}, 128 * GiB, false), o);
        QVERIFY(p.mtp);
        const auto& stacked =
            p.decision.posture == Posture::Stacked ? p.rungs : p.other_posture_rungs;
        for (const Rung& r : stacked)
            QCOMPARE(r.n_ubatch, stackedUbatch);
        QVERIFY(p.launch.has_value());
        if (typed) {
            // Written although it equals llama.cpp's default.
            QCOMPARE(p.launch->n_ubatch, std::optional<std::uint32_t>(512u));
            QVERIFY(contains(llamaServerArgs(*p.launch), {"-ub", "512"}));
        }
    }

    void unequalGpusPinThePlannedSplit() {
        // --vram 24GiB,12GiB: llama.cpp's default split would follow free memory at start-up;
        // the launch pins the split that was priced, each device's usable budget in MiB.
        const Plan p =
            planOrFail(llama8bLike(), snapshotFromSizes({24 * GiB, 12 * GiB}, 64 * GiB, false));
        QVERIFY(p.launch.has_value());
        // Whole MiB of each usable budget (integer quotients, as -ts is written).
        const SignedBytes mib0 = p.budget.devices[0].usable / toSigned(MiB);
        const SignedBytes mib1 = p.budget.devices[1].usable / toSigned(MiB);
        const std::vector<double> expected = {static_cast<double>(mib0), static_cast<double>(mib1)};
        QCOMPARE(p.launch->tensor_split, expected);
        QVERIFY(contains(llamaServerArgs(*p.launch), {"-ts", tensorSplitText(expected)}));
        // And that split is the one priced: the layer counts follow it.
        const Rung& r = p.rungs[static_cast<size_t>(p.decision.rung_index)];
        QCOMPARE(r.placement.tensor_split, expected);
        const auto c = detail::cumulativeSplit(expected, 2);
        std::uint32_t gpu0 = 0;
        for (std::uint32_t il = 0; il <= 32; ++il)
            gpu0 += detail::layerDevice(il, 32, r.placement.gpu_layers, c) == 0 ? 1 : 0;
        QCOMPARE(r.placement.device_layers[0], gpu0);
    }

    void launchForGivesAnyRunnableRungsLaunch() {
        // 24 GiB card: 64K and 96K resident, 128K spilled (test_planner derives it).
        const Plan p = planOrFail(llama8bLike(), snapshotFromSizes({24 * GiB}, 64 * GiB, false));
        for (size_t i = 0; i < p.rungs.size(); ++i) {
            auto l = launchFor(p, static_cast<int>(i));
            QVERIFY(l.has_value());
            QCOMPARE(l->ctx_size, p.rungs[i].requested_context);
            QCOMPARE(*l->gpu_layers, GpuLayers::of(p.rungs[i].placement.gpu_layers));
        }
        QCOMPARE(*launchFor(p, p.decision.rung_index), *p.launch);
        QVERIFY(!launchFor(p, static_cast<int>(p.rungs.size())).has_value());
        QVERIFY(!launchFor(p, -1).has_value());
    }

    void remediesCarryTheFlagsTheyApply() {
        // 8 GiB card + 16 GiB RAM: 128K f16 is refused (test_planner derives it); the q8_0 KV
        // remedy applies -ctk q8_0 -ctv q8_0 (flash attention is already on: auto).
        const Plan p = planOrFail(llama8bLike(), snapshotFromSizes({8 * GiB}, 16 * GiB, false));
        const Rung& r = p.rungs[2];
        QCOMPARE(r.verdict, Verdict::Refused);
        bool q8 = false;
        for (const auto& m : r.refusal->remedies) {
            if (m.kind == RemedyKind::KvCacheQ8) {
                q8 = true;
                QVERIFY(contains(m.args, {"-ctk", "q8_0"}));
                QVERIFY(contains(m.args, {"-ctv", "q8_0"}));
                QVERIFY(!contains(m.args, {"-fa", "on"}));
            }
            if (m.kind == RemedyKind::ShorterContext) QCOMPARE(m.args[0], std::string("-c"));
            if (m.kind != RemedyKind::SmallerQuant && m.kind != RemedyKind::FreeGpuMemory)
                QVERIFY2(!m.args.empty(), m.label.c_str());
        }
        QVERIFY(q8);
        QVERIFY(r.refusal->shortfall_bytes >= 0);
    }
};

QTEST_APPLESS_MAIN(TestPlannerPinned)
#include "test_planner_pinned.moc"
