// Every exporter on plans the planner made (not hand-built): the exported flags agree with the
// priced rung, and the JSON export reads back to the same plan.
#include "common/test_shapes.h"
#include "export/json_export.h"
#include "export/llama_server.h"
#include "export/llama_swap.h"
#include "export/ollama.h"
#include "export/shell.h"
#include "planner.h"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <QtTest>

#include <algorithm>

using namespace headroom;

namespace {

std::string valueOf(const std::vector<std::string>& argv, const std::string& flag) {
    auto it = std::find(argv.begin(), argv.end(), flag);
    if (it == argv.end() || it + 1 == argv.end()) return "<absent>";
    return *(it + 1);
}

Plan planFor(const ModelShape& m, const std::vector<Bytes>& vram, Bytes ram,
             const PlanOptions& o = {}) {
    auto p = makePlan(m, snapshotFromSizes(vram, ram, false), o);
    if (!p) qFatal("makePlan failed: %s", p.error().message.c_str());
    return *p;
}

} // namespace

class TestExportPlanned : public QObject {
    Q_OBJECT
private slots:
    void launchAgreesWithTheChosenRungOfARealPlan() {
        PlanOptions o;
        o.cache_type_k = o.cache_type_v = GgmlType::Q8_0;
        const Plan plan = planFor(test::llama8bLike(), {24 * GiB}, 64 * GiB, o);
        auto rung = chosenRung(plan);
        QVERIFY(rung.has_value());
        auto l = llamaServerLaunch(plan, {});
        QVERIFY2(l.has_value(), l.has_value() ? "" : l.error().message.c_str());
        QCOMPARE(valueOf(l->argv, "-c"), std::to_string(rung->requested_context));
        QCOMPARE(valueOf(l->argv, "-ngl"), std::to_string(rung->placement.gpu_layers));
        QCOMPARE(valueOf(l->argv, "-ctv"), std::string("q8_0"));
        // The planner's launch says --fit off once; the exporter neither repeats nor flips it.
        QCOMPARE(std::count(l->argv.begin(), l->argv.end(), std::string("--fit")), 1);
        QCOMPARE(valueOf(l->argv, "--fit"), std::string("off"));
        // The export is the planner's LaunchConfig formatted: after program and -m PATH, the same
        // words in the same order.
        QVERIFY(plan.launch.has_value());
        QCOMPARE(std::vector<std::string>(l->argv.begin() + 3, l->argv.end()),
                 llamaServerArgs(*plan.launch));
        auto back = shellSplit(llamaServerScript(*l));
        QVERIFY(back.has_value());
        QCOMPARE(std::vector<std::string>(back->begin() + 1, back->end()), l->argv);
    }

    void jsonExportIsThePlanSchemaAndReadsBack() {
        const Plan plan = planFor(test::llama8bLike(), {24 * GiB}, 64 * GiB);
        const std::string text = planJsonText(plan);
        const auto j = nlohmann::json::parse(text);
        QCOMPARE(j["schema"].get<std::string>(), std::string("headroom.plan/1"));
        QCOMPARE(j["rungs"].size(), plan.rungs.size());
        QCOMPARE(j["decision"]["context"].get<std::uint32_t>(), plan.decision.context);
        QCOMPARE(j["launch"]["llama_server"].get<std::vector<std::string>>(),
                 llamaServerArgs(*plan.launch));
        // launch.config is the same value, typed.
        QCOMPARE(j["launch"]["config"]["ctx_size"].get<std::uint32_t>(), plan.launch->ctx_size);
        QCOMPARE(j["launch"]["config"]["gpu_layers"].get<std::uint32_t>(),
                 plan.launch->gpu_layers->count);
        QCOMPARE(j["launch"]["config"]["n_parallel"].get<std::uint32_t>(), plan.launch->n_parallel);
        QCOMPARE(j["launch"]["config"]["fit"].get<bool>(), false);
        const Rung& r = plan.rungs[static_cast<size_t>(plan.decision.rung_index)];
        const auto& jr = j["rungs"][static_cast<size_t>(plan.decision.rung_index)];
        QCOMPARE(jr["context"].get<std::uint32_t>(), r.context);
        QCOMPARE(jr["devices"][0]["bytes"].get<Bytes>(), r.devices[0].bytes);
        QCOMPARE(jr["host_bytes"].get<Bytes>(), r.host_bytes);
        QCOMPARE(text.back(), '\n');
    }

    void refusedPlanStillExportsAsJsonButNotAsALaunch() {
        // 8B-like weights are ~7.2 GiB; 2 GiB of VRAM and 4 GiB of RAM cannot hold them.
        const Plan plan = planFor(test::llama8bLike(), {2 * GiB}, 4 * GiB);
        QVERIFY(plan.decision.refused);
        const auto j = nlohmann::json::parse(planJsonText(plan));
        QCOMPARE(j["decision"]["refused"].get<bool>(), true);
        QVERIFY(!llamaServerLaunch(plan, {}).has_value());
        QVERIFY(!ollamaModelfile(plan, {}).has_value());
    }

    void swapAndOllamaExportsOfARealPlanAgreeWithTheLaunch() {
        const Plan plan = planFor(test::llama8bLike(), {24 * GiB}, 64 * GiB);
        auto yaml = llamaSwapYaml({{plan, "llama8b", {}}}, {});
        QVERIFY2(yaml.has_value(), yaml.has_value() ? "" : yaml.error().message.c_str());
        const YAML::Node entry = YAML::Load(*yaml)["models"]["llama8b"];
        auto words = shellSplit(entry["cmd"].as<std::string>());
        QVERIFY(words.has_value());
        LaunchExportOptions lo;
        lo.port = "${PORT}";
        QCOMPARE(*words, llamaServerLaunch(plan, lo)->argv);
        auto mf = ollamaModelfile(plan, {});
        QVERIFY(mf.has_value());
        const Rung r = *chosenRung(plan);
        QVERIFY(mf->text.find("PARAMETER num_ctx " + std::to_string(r.requested_context) + "\n") !=
                std::string::npos);
    }

    void realPlansOnOneCardPairUpButThreeDoNotFit() {
        PlanOptions small;
        small.context = 8192;
        const Plan a = planFor(test::llama8bLike(), {24 * GiB}, 64 * GiB, small);
        const Plan b = a, c = a;
        // At 8K the 8B-like model takes 8.40 GiB of the card (weights 7.2 GiB + KV + compute +
        // runtime; the planner's figure). Usable: 24 GiB - 9 % = 21.84 GiB. Two copies need
        // 16.8 GiB and fit; three need 25.2 GiB and do not.
        const Rung ra = *chosenRung(a);
        QVERIFY(toSigned(2 * ra.devices[0].bytes) <= a.budget.devices[0].usable);
        QVERIFY(toSigned(3 * ra.devices[0].bytes) > a.budget.devices[0].usable);
        QCOMPARE(*fitTogether({&a, &b}), true);
        QCOMPARE(*fitTogether({&a, &b, &c}), false);
        auto sets = coResidentSets({&a, &b, &c});
        QVERIFY(sets.has_value());
        const std::vector<std::vector<size_t>> pairs = {{0, 1}, {0, 2}, {1, 2}};
        QCOMPARE(*sets, pairs);
    }
};

QTEST_APPLESS_MAIN(TestExportPlanned)
#include "test_export_planned.moc"
