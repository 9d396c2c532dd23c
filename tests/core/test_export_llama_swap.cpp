// llama-swap export: the YAML parses back (yaml-cpp) to the planned command, ttl and memory, and
// the routing lists exactly the models that fit in memory together.
#include "core/export_sample_plans.h"
#include "export/llama_swap.h"
#include "export/shell.h"

#include <yaml-cpp/yaml.h>

#include <QtTest>

using namespace headroom;

namespace {

std::vector<const Plan*> pointers(const std::vector<SwapModel>& ms) {
    std::vector<const Plan*> v;
    v.reserve(ms.size());
    for (const auto& m : ms)
        v.push_back(&m.plan);
    return v;
}

} // namespace

class TestExportLlamaSwap : public QObject {
    Q_OBJECT
private slots:
    void singleModelEntryParsesBackToThePlannedCommand() {
        SwapModel m{testplans::denseResident(), "", {}};
        LlamaSwapOptions o;
        o.ttl_seconds = 300;
        auto text = llamaSwapYaml({m}, o);
        QVERIFY2(text.has_value(), text.has_value() ? "" : text.error().message.c_str());
        const YAML::Node root = YAML::Load(*text);
        // The id is the GGUF's file name without .gguf.
        const YAML::Node entry = root["models"]["My Model (Q4_K_M)"];
        QVERIFY(entry.IsMap());
        QCOMPARE(entry["ttl"].as<int>(), 300);
        QCOMPARE(entry["name"].as<std::string>(), std::string("My Model 8B"));

        // cmd: comment lines then the launch; splitting it like a shell gives the argv that
        // llamaServerLaunch builds with --port ${PORT}.
        LaunchExportOptions lo;
        lo.port = "${PORT}";
        auto expected = llamaServerLaunch(m.plan, lo);
        QVERIFY(expected.has_value());
        const std::string cmd = entry["cmd"].as<std::string>();
        QVERIFY(cmd.find("--port ${PORT}") != std::string::npos); // the macro stays bare
        auto words = shellSplit(cmd);
        QVERIFY(words.has_value());
        QCOMPARE(*words, expected->argv);

        // Metadata: rung 1 of the sample plan, 15 GiB on GPU0, 1 GiB host.
        const YAML::Node h = entry["metadata"]["headroom"];
        QCOMPARE(h["context"].as<std::uint32_t>(), 131072u);
        QCOMPARE(h["verdict"].as<std::string>(), std::string("resident"));
        QCOMPARE(h["fit"].as<std::string>(), std::string("pin"));
        QCOMPARE(h["devices"].size(), size_t(1));
        QCOMPARE(h["devices"][0]["name"].as<std::string>(), std::string("GPU0"));
        QCOMPARE(h["devices"][0]["bytes"].as<Bytes>(), 15 * GiB);
        QCOMPARE(h["devices"][0]["budget_bytes"].as<SignedBytes>(),
                 m.plan.budget.devices[0].usable);
        QCOMPARE(h["host_bytes"].as<Bytes>(), 1 * GiB);
        // One model: nothing to route.
        QVERIFY(!root["routing"]);
    }

    void matrixSetsListTheLargestCombinationsThatFit() {
        // Usable on the 24 GiB card: 24 GiB - 0.09 * 24 GiB = 21.84 GiB.
        // a 10 + b 8 = 18 fits; a + c 6 = 16 fits; b + c = 14 fits; a + b + c = 24 does not;
        // d 20 fits beside none (20 + 6 = 26).
        std::vector<SwapModel> ms = {{testplans::smallModel("a.gguf", 10), "", {}},
                                     {testplans::smallModel("b.gguf", 8), "", {}},
                                     {testplans::smallModel("c.gguf", 6), "", {}},
                                     {testplans::smallModel("d.gguf", 20), "", {}}};
        auto sets = coResidentSets(pointers(ms));
        QVERIFY(sets.has_value());
        const std::vector<std::vector<size_t>> expected = {{0, 1}, {0, 2}, {1, 2}};
        QCOMPARE(*sets, expected);

        auto text = llamaSwapYaml(ms, {});
        QVERIFY(text.has_value());
        const YAML::Node root = YAML::Load(*text);
        const YAML::Node router = root["routing"]["router"];
        QCOMPARE(router["use"].as<std::string>(), std::string("matrix"));
        const YAML::Node matrix = router["settings"]["matrix"];
        QCOMPARE(matrix["vars"]["m1"].as<std::string>(), std::string("a"));
        QCOMPARE(matrix["vars"]["m4"].as<std::string>(), std::string("d"));
        QCOMPARE(matrix["sets"].size(), size_t(3));
        QCOMPARE(matrix["sets"]["fit-1"].as<std::string>(), std::string("m1 & m2"));
        QCOMPARE(matrix["sets"]["fit-3"].as<std::string>(), std::string("m2 & m3"));
        // Every model in the config; d is in no set, so llama-swap runs it alone.
        QCOMPARE(root["models"].size(), size_t(4));
        QVERIFY(text->find("m4 &") == std::string::npos);
    }

    void hostRamIsPartOfFittingTogether() {
        // 5 + 5 GiB of GPU fits, but each also needs 40 GiB of the 64 GiB RAM: 80 > 64.
        Plan a = testplans::smallModel("a.gguf", 5), b = testplans::smallModel("b.gguf", 5);
        a.rungs[1].host_bytes = b.rungs[1].host_bytes = 40 * GiB;
        auto together = fitTogether({&a, &b});
        QVERIFY(together.has_value());
        QVERIFY(!*together);
        b.rungs[1].host_bytes = 20 * GiB; // 60 <= 64
        QVERIFY(*fitTogether({&a, &b}));
    }

    void groupsPartitionModelsIntoBinsThatFit() {
        // Largest first: d 20 alone; a 10 then b 8 (18) fit; c 6 would make 24 > 21.84: new bin.
        std::vector<SwapModel> ms = {{testplans::smallModel("a.gguf", 10), "", {}},
                                     {testplans::smallModel("b.gguf", 8), "", {}},
                                     {testplans::smallModel("c.gguf", 6), "", {}},
                                     {testplans::smallModel("d.gguf", 20), "", {}}};
        auto groups = coResidentGroups(pointers(ms));
        QVERIFY(groups.has_value());
        const std::vector<std::vector<size_t>> expected = {{0, 1}, {2}, {3}};
        QCOMPARE(*groups, expected);

        LlamaSwapOptions o;
        o.routing = SwapRouting::Groups;
        auto text = llamaSwapYaml(ms, o);
        QVERIFY(text.has_value());
        const YAML::Node router = YAML::Load(*text)["routing"]["router"];
        QCOMPARE(router["use"].as<std::string>(), std::string("group"));
        const YAML::Node g1 = router["settings"]["groups"]["fit-1"];
        QCOMPARE(g1["swap"].as<bool>(), false);
        QCOMPARE(g1["exclusive"].as<bool>(), true);
        QCOMPARE(g1["members"][0].as<std::string>(), std::string("a"));
        QCOMPARE(g1["members"][1].as<std::string>(), std::string("b"));
        QCOMPARE(router["settings"]["groups"].size(), size_t(3));
    }

    void plansForDifferentHardwareAreRejected() {
        Plan a = testplans::denseResident();
        Plan b = testplans::moeSpilled(); // two GPUs
        auto r = fitTogether({&a, &b});
        QVERIFY(!r.has_value());
        QVERIFY(r.error().message.find("different hardware") != std::string::npos);
    }

    void duplicateIdsAndNegativeTtlAreRejected() {
        std::vector<SwapModel> ms = {{testplans::smallModel("a.gguf", 1), "", {}},
                                     {testplans::smallModel("a.gguf", 2), "", {}}};
        auto dup = llamaSwapYaml(ms, {});
        QVERIFY(!dup.has_value());
        QVERIFY(dup.error().message.find("'a'") != std::string::npos);
        ms[1].id = "a-2";
        QVERIFY(llamaSwapYaml(ms, {}).has_value());
        LlamaSwapOptions o;
        o.ttl_seconds = -1;
        QVERIFY(!llamaSwapYaml(ms, o).has_value());
    }

    void refusedModelIsAnErrorNotASilentEntry() {
        Plan p = testplans::denseResident();
        p.decision.refused = true;
        auto r = llamaSwapYaml({{p, "", {}}}, {});
        QVERIFY(!r.has_value());
        QVERIFY(r.error().message.find("nothing to export") != std::string::npos);
    }

    void tooManyModelsIsAnError() {
        std::vector<SwapModel> ms;
        for (size_t i = 0; i <= kMaxSwapModels; ++i)
            ms.push_back({testplans::smallModel("m" + std::to_string(i) + ".gguf", 1), "", {}});
        auto r = llamaSwapYaml(ms, {});
        QVERIFY(!r.has_value());
        QVERIFY(r.error().message.find("at most 16") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestExportLlamaSwap)
#include "test_export_llama_swap.moc"
