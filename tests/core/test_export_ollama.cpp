// Ollama Modelfile export: FROM and PARAMETER lines read back to the priced rung, and every
// planned setting Ollama cannot take per model is named in a comment.
#include "core/export_sample_plans.h"
#include "export/ollama.h"

#include <QtTest>

#include <map>
#include <sstream>

using namespace headroom;

namespace {

struct Parsed {
    std::string from;
    std::map<std::string, std::string> parameters;
    std::vector<std::string> comments;
    int instructions = 0;
};

// The Modelfile grammar the test needs: "# comment", "FROM arg", "PARAMETER key value";
// a double-quoted argument has \" and \\ escapes.
Parsed parseModelfile(const std::string& text) {
    Parsed p;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        if (line[0] == '#') {
            p.comments.push_back(line);
            continue;
        }
        ++p.instructions;
        const auto sp = line.find(' ');
        const std::string cmd = line.substr(0, sp);
        std::string rest = sp == std::string::npos ? "" : line.substr(sp + 1);
        if (cmd == "FROM") {
            if (!rest.empty() && rest.front() == '"') {
                std::string v;
                for (size_t i = 1; i + 1 < rest.size(); ++i) {
                    if (rest[i] == '\\') ++i;
                    v += rest[i];
                }
                rest = v;
            }
            p.from = rest;
        } else if (cmd == "PARAMETER") {
            const auto sp2 = rest.find(' ');
            p.parameters[rest.substr(0, sp2)] = rest.substr(sp2 + 1);
        }
    }
    return p;
}

bool anyContains(const std::vector<std::string>& lines, const std::string& text) {
    for (const auto& l : lines)
        if (l.find(text) != std::string::npos) return true;
    return false;
}

} // namespace

class TestExportOllama : public QObject {
    Q_OBJECT
private slots:
    void modelfileReadsBackToThePricedRung() {
        const Plan plan = testplans::denseResident();
        auto mf = ollamaModelfile(plan, {});
        QVERIFY(mf.has_value());
        const Parsed p = parseModelfile(mf->text);
        // The path has spaces and parentheses: quoted, and it reads back whole.
        QCOMPARE(p.from, plan.model.id);
        QVERIFY(mf->text.find("FROM \"/models/My Model (Q4_K_M).gguf\"") != std::string::npos);
        // One sequence: num_ctx is the whole rung, 131072.
        QCOMPARE(p.parameters.at("num_ctx"), std::string("131072"));
        QCOMPARE(p.parameters.at("num_gpu"), std::string("33"));
        // The priced physical batch, rung.n_ubatch = 512.
        QCOMPARE(p.parameters.at("num_batch"), std::string("512"));
        QCOMPARE(p.instructions, 4); // FROM + 3 PARAMETERs: nothing else is an instruction
        // Flash attention and q8_0 KV are server settings: named as environment variables.
        QVERIFY(anyContains(p.comments, "OLLAMA_FLASH_ATTENTION=1"));
        QVERIFY(anyContains(p.comments, "OLLAMA_KV_CACHE_TYPE=q8_0"));
        QVERIFY(anyContains(p.comments, "OLLAMA_NUM_PARALLEL=1"));
        QVERIFY(mf->unsupported.empty());
    }

    void parallelSequencesSplitNumCtxAndPlacementIsNamedAsUnsupported() {
        const Plan plan = testplans::moeSpilled();
        auto mf = ollamaModelfile(plan, {});
        QVERIFY(mf.has_value());
        const Parsed p = parseModelfile(mf->text);
        // 65536 tokens over -np 2: Ollama gives each request num_ctx = 32768.
        QCOMPARE(p.parameters.at("num_ctx"), std::string("32768"));
        QCOMPARE(p.parameters.at("num_batch"), std::string("2048"));
        QVERIFY(anyContains(p.comments, "OLLAMA_NUM_PARALLEL=2"));
        QVERIFY(anyContains(p.comments, "--n-cpu-moe 6"));
        QVERIFY(anyContains(p.comments, "-ot blk"));
        QVERIFY(anyContains(p.comments, "Catalog model"));
        // f16 K and V: Ollama's default type, expressible.
        QVERIFY(anyContains(p.comments, "OLLAMA_KV_CACHE_TYPE=f16"));
    }

    void unequalOrUnsupportedCacheTypesAreNamed() {
        Plan plan = testplans::denseResident();
        plan.options.cache_type_k = GgmlType::Q5_1;
        plan.options.cache_type_v = GgmlType::Q5_1;
        auto mf = ollamaModelfile(plan, {});
        QVERIFY(mf.has_value());
        QVERIFY(anyContains(mf->unsupported, "-ctk q5_1 -ctv q5_1"));
        QVERIFY(mf->text.find("OLLAMA_KV_CACHE_TYPE=") == std::string::npos);
        plan.options.cache_type_k = GgmlType::F16;
        plan.options.cache_type_v = GgmlType::Q8_0;
        mf = ollamaModelfile(plan, {});
        QVERIFY(anyContains(mf->unsupported, "one type for K and V"));
    }

    void cpuOnlyPlanPutsNoLayersOnAGpu() {
        Plan plan = testplans::denseResident();
        plan.backend = Backend::Cpu;
        auto mf = ollamaModelfile(plan, {});
        QVERIFY(mf.has_value());
        QCOMPARE(parseModelfile(mf->text).parameters.at("num_gpu"), std::string("0"));
    }

    void refusedPlanHasNoModelfile() {
        Plan plan = testplans::denseResident();
        plan.decision.refused = true;
        QVERIFY(!ollamaModelfile(plan, {}).has_value());
    }

    void modelPathOverrideWithAQuoteIsEscaped() {
        OllamaExportOptions o;
        o.model_path = "/m/say \"hi\".gguf";
        auto mf = ollamaModelfile(testplans::denseResident(), o);
        QVERIFY(mf.has_value());
        QCOMPARE(parseModelfile(mf->text).from, o.model_path);
    }
};

QTEST_APPLESS_MAIN(TestExportOllama)
#include "test_export_ollama.moc"
