// The llama-swap export against llama-swap's current configuration schema. The rules below are
// restated from mostlygeek/llama-swap config-schema.json (JSON Schema draft-07) at commit
// 0bdb3720 (2026-08-22): the keys each object allows (additionalProperties: false), required keys,
// types and patterns. Only the parts the export writes are restated; a key the export starts
// writing that is not listed here fails the test until the rule is added from the schema.
#include "core/export_sample_plans.h"
#include "export/llama_swap.h"

#include <yaml-cpp/yaml.h>

#include <QtTest>

#include <regex>
#include <set>

using namespace headroom;

namespace {

// config-schema.json "properties" (top level).
const std::set<std::string> kTopLevel = {"healthCheckTimeout",
                                         "globalTTL",
                                         "unloadTimeout",
                                         "logLevel",
                                         "logTimeFormat",
                                         "metricsMaxInMemory",
                                         "captureBuffer",
                                         "store",
                                         "ui",
                                         "performance",
                                         "startPort",
                                         "sendLoadingState",
                                         "includeAliasesInList",
                                         "macros",
                                         "profiles",
                                         "selectors",
                                         "models",
                                         "groups",
                                         "matrix",
                                         "hooks",
                                         "logToStdout",
                                         "apiKeys",
                                         "peers",
                                         "upstream",
                                         "routing"};
// models.additionalProperties.properties.
const std::set<std::string> kModel = {
    "aliases", "capabilities", "checkEndpoint",    "cmd",
    "cmdStop", "compat",       "concurrencyLimit", "description",
    "env",     "filters",      "macros",           "metadata",
    "name",    "proxy",        "sendLoadingState", "timeouts",
    "ttl",     "unlisted",     "unloadTimeout",    "useModelName"};

bool isInteger(const YAML::Node& n) {
    return n.IsScalar() && std::regex_match(n.Scalar(), std::regex("-?[0-9]+"));
}
bool isBool(const YAML::Node& n) {
    return n.IsScalar() && (n.Scalar() == "true" || n.Scalar() == "false");
}

// Every violation as one line; empty when the document follows the restated rules.
std::vector<std::string> violations(const YAML::Node& root) {
    std::vector<std::string> v;
    auto keysWithin = [&](const YAML::Node& map, const std::set<std::string>& allowed,
                          const std::string& where) {
        if (!map.IsMap()) {
            v.push_back(where + " is not an object");
            return;
        }
        for (const auto& kv : map)
            if (!allowed.count(kv.first.Scalar()))
                v.push_back(where + "." + kv.first.Scalar() + " is not allowed");
    };
    keysWithin(root, kTopLevel, "(top)");
    if (!root["models"] || !root["models"].IsMap()) v.push_back("models is required");
    std::set<std::string> ids;
    for (const auto& kv : root["models"]) {
        const std::string id = kv.first.Scalar();
        ids.insert(id);
        const YAML::Node& m = kv.second;
        keysWithin(m, kModel, "models." + id);
        if (!m["cmd"] || !m["cmd"].IsScalar()) v.push_back("models." + id + ".cmd is required");
        // ttl: integer, minimum -1.
        if (m["ttl"] && (!isInteger(m["ttl"]) || std::stol(m["ttl"].Scalar()) < -1))
            v.push_back("models." + id + ".ttl must be an integer >= -1");
        // concurrencyLimit: integer, minimum 0.
        if (m["concurrencyLimit"] &&
            (!isInteger(m["concurrencyLimit"]) || std::stol(m["concurrencyLimit"].Scalar()) < 0))
            v.push_back("models." + id + ".concurrencyLimit must be an integer >= 0");
        if (m["metadata"] && !m["metadata"].IsMap())
            v.push_back("models." + id + ".metadata must be an object");
    }
    // allOf: the legacy top-level groups/matrix and routing are not combined by the export.
    if (root["routing"] && (root["groups"] || root["matrix"]))
        v.push_back("routing beside top-level groups/matrix");
    if (const YAML::Node routing = root["routing"]) {
        keysWithin(routing, {"scheduler", "router"}, "routing");
        const YAML::Node router = routing["router"];
        keysWithin(router, {"use", "settings"}, "routing.router");
        const std::string use = router["use"] ? router["use"].Scalar() : "group";
        if (use != "group" && use != "matrix") v.push_back("routing.router.use: " + use);
        const YAML::Node settings = router["settings"];
        keysWithin(settings, {"groups", "matrix"}, "routing.router.settings");
        if (const YAML::Node matrix = settings["matrix"]) {
            // matrixConfig: required vars and sets; vars names ^[a-zA-Z0-9]{1,8}$.
            keysWithin(matrix, {"vars", "evict_costs", "sets"}, "matrix");
            if (!matrix["vars"] || matrix["vars"].size() < 1) v.push_back("matrix.vars required");
            if (!matrix["sets"] || matrix["sets"].size() < 1) v.push_back("matrix.sets required");
            std::set<std::string> vars;
            for (const auto& kv : matrix["vars"]) {
                if (!std::regex_match(kv.first.Scalar(), std::regex("[a-zA-Z0-9]{1,8}")))
                    v.push_back("matrix.vars name " + kv.first.Scalar());
                if (!ids.count(kv.second.Scalar()))
                    v.push_back("matrix.vars " + kv.first.Scalar() + " names no model");
                vars.insert(kv.first.Scalar());
            }
            for (const auto& kv : matrix["sets"]) {
                if (!kv.second.IsScalar()) v.push_back("matrix.sets values are strings");
                // The DSL's names (&, |, (), +ref aside) must be vars or model ids.
                const std::string e = kv.second.Scalar();
                static const std::regex name("[A-Za-z0-9._-]+");
                for (auto it = std::sregex_iterator(e.begin(), e.end(), name);
                     it != std::sregex_iterator(); ++it)
                    if (!vars.count(it->str()) && !ids.count(it->str()))
                        v.push_back("matrix.sets " + kv.first.Scalar() + " names " + it->str());
            }
        }
        if (const YAML::Node groups = settings["groups"]) {
            // groupsConfig: each group requires members (array of strings); booleans.
            std::set<std::string> seen;
            for (const auto& g : groups) {
                const std::string where = "groups." + g.first.Scalar();
                keysWithin(g.second, {"swap", "exclusive", "persistent", "members"}, where);
                for (const char* b : {"swap", "exclusive", "persistent"})
                    if (g.second[b] && !isBool(g.second[b])) v.push_back(where + "." + b);
                if (!g.second["members"] || !g.second["members"].IsSequence())
                    v.push_back(where + ".members is required");
                for (const auto& m : g.second["members"]) {
                    if (!ids.count(m.Scalar())) v.push_back(where + " member " + m.Scalar());
                    // config.example.yaml: "a model can belong to only one group".
                    if (!seen.insert(m.Scalar()).second)
                        v.push_back("two groups hold " + m.Scalar());
                }
            }
        }
    }
    return v;
}

Plan smallModel(const std::string& file, Bytes gpuGiB) {
    Plan p = testplans::denseResident();
    p.model.id = "/models/" + file;
    p.model.name = file;
    p.rungs[1].devices[0].bytes = gpuGiB * GiB;
    return p;
}

} // namespace

class TestExportLlamaSwapSchema : public QObject {
    Q_OBJECT
private slots:
    void exportsFollowTheCurrentSchema_data() {
        QTest::addColumn<int>("routing");
        QTest::addColumn<int>("models");
        QTest::addColumn<int>("ttl");
        QTest::newRow("one model") << int(SwapRouting::Matrix) << 1 << 0;
        QTest::newRow("matrix") << int(SwapRouting::Matrix) << 4 << 300;
        QTest::newRow("groups") << int(SwapRouting::Groups) << 4 << 60;
    }
    void exportsFollowTheCurrentSchema() {
        QFETCH(int, routing);
        QFETCH(int, models);
        QFETCH(int, ttl);
        // 10 + 8 fit in 21.84 GiB; 20 fits beside none of the others.
        const Bytes sizes[] = {10, 8, 6, 20};
        std::vector<SwapModel> ms;
        ms.reserve(static_cast<size_t>(models));
        for (int i = 0; i < models; ++i)
            ms.push_back({smallModel("model-" + std::to_string(i) + ".gguf", sizes[i]), "", {}});
        LlamaSwapOptions o;
        o.routing = static_cast<SwapRouting>(routing);
        o.ttl_seconds = ttl;
        auto yaml = llamaSwapYaml(ms, o);
        QVERIFY(yaml.has_value());
        const auto v = violations(YAML::Load(*yaml));
        std::string all;
        for (const auto& line : v)
            all += line + "\n";
        QVERIFY2(v.empty(), all.c_str());
    }

    // The checker is not vacuous: the settings of the older format (vars/sets directly under
    // settings), an unknown model key and a bad var name are each caught.
    void theCheckerCatchesConfigsTheSchemaRejects() {
        const auto v = violations(YAML::Load(R"(
models:
  a: {cmd: "llama-server", port: 8080, ttl: -2}
routing:
  router:
    use: matrix
    settings:
      vars: {toolongname: a}
      sets: {s: "toolongname & b"}
)"));
        QVERIFY(v.size() >= 4);
        const std::string joined = [&] {
            std::string s;
            for (const auto& l : v)
                s += l + "\n";
            return s;
        }();
        QVERIFY(joined.find("models.a.port is not allowed") != std::string::npos);
        QVERIFY(joined.find("ttl must be an integer >= -1") != std::string::npos);
        QVERIFY(joined.find("routing.router.settings.vars is not allowed") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestExportLlamaSwapSchema)
#include "test_export_llama_swap_schema.moc"
