// Router-mode export (llama-server --models-preset INI): the file parses back (common/preset.cpp's
// rules) to one section per model whose keys are the planned launch's flags without dashes, every
// key is an option of llama.cpp v0.5.0's llama-server, and --models-max is the largest N for which
// every N models fit together.
#include "common/llama_server_help.h"
#include "core/export_sample_plans.h"
#include "export/router_preset.h"

#include <QtTest>

#include <set>

using namespace headroom;

namespace {

// Every spelling llama-server v0.5.0's --help lists, without leading dashes (the preset's keys).
std::set<std::string> helpKeys() {
    std::set<std::string> keys;
    for (const auto& flag : test::llamaServerHelpFlags(LlamaVersion::V0_5_0))
        keys.insert(flag.substr(flag.find_first_not_of('-')));
    return keys;
}

} // namespace

class TestExportRouter : public QObject {
    Q_OBJECT
private slots:
    void eachModelIsASectionOfItsLaunchFlags() {
        SwapModel dense{testplans::denseResident(), "", {}};
        SwapModel moe{testplans::moeSpilled(), "", {}};
        // Two different machines cannot share one router; give the MoE plan the dense one's.
        moe.plan.hardware = dense.plan.hardware;
        moe.plan.budget = dense.plan.budget;
        moe.plan.rungs[0].devices.resize(1);
        auto preset = routerPreset({dense, moe}, {});
        QVERIFY2(preset.has_value(), preset ? "" : preset.error().message.c_str());
        auto ini = parsePresetIni(preset->ini);
        QVERIFY(ini.has_value());
        // The unnamed head holds only version = 1 (common/preset.cpp skips it).
        QCOMPARE(ini->size(), size_t(3));
        QCOMPARE(ini->at(0).second.size(), size_t(1));
        QCOMPARE(ini->at(0).second[0].first, std::string("version"));

        const auto accepted = helpKeys();
        for (size_t i = 0; i < 2; ++i) {
            const SwapModel& m = i == 0 ? dense : moe;
            const auto& [section, keys] = ini->at(i + 1);
            QCOMPARE(section, swapModelId(m.plan));
            auto launch = llamaServerLaunch(m.plan, {});
            QVERIFY(launch.has_value());
            // Rebuild argv from the section, flags without their dashes (a key names a flag in
            // any spelling): model is -m, "true" is a bare flag, a comma-joined ot is one -ot per
            // pattern.
            std::vector<std::string> argv = {launch->argv[0]};
            for (const auto& [k, v] : keys) {
                QVERIFY2(accepted.count(k), k.c_str());
                if (k == "ot") {
                    std::istringstream parts(v);
                    std::string part;
                    while (std::getline(parts, part, ','))
                        argv.insert(argv.end(), {"ot", part});
                    continue;
                }
                argv.push_back(k == "model" ? "m" : k);
                if (v != "true") argv.push_back(v);
            }
            std::vector<std::string> expected;
            for (const auto& w : launch->argv)
                expected.push_back(w.size() > 1 && w[0] == '-' ? w.substr(w.find_first_not_of('-'))
                                                               : w);
            QCOMPARE(argv, expected);
        }
    }

    void modelsMaxIsTheLargestCountThatAlwaysFits_data() {
        QTest::addColumn<QList<int>>("gib");
        QTest::addColumn<uint>("expected");
        // 21.84 GiB usable: any two of 10, 8, 6 fit (18 at most), all three (24) do not.
        QTest::newRow("pairs") << QList<int>{10, 8, 6} << 2u;
        // 20 + 6 = 26 > 21.84: one pair fails, so only 1 is safe.
        QTest::newRow("one big") << QList<int>{10, 8, 6, 20} << 1u;
        // 5 + 5 + 5 = 15 fits.
        QTest::newRow("all") << QList<int>{5, 5, 5} << 3u;
    }
    void modelsMaxIsTheLargestCountThatAlwaysFits() {
        QFETCH(QList<int>, gib);
        QFETCH(uint, expected);
        std::vector<SwapModel> ms;
        ms.reserve(static_cast<size_t>(gib.size()));
        for (int i = 0; i < gib.size(); ++i)
            ms.push_back(
                {testplans::smallModel("m" + std::to_string(i) + ".gguf", Bytes(gib[i])), "", {}});
        RouterPresetOptions o;
        o.preset_path = "/etc/models.ini";
        o.port = "8080";
        auto preset = routerPreset(ms, o);
        QVERIFY(preset.has_value());
        QCOMPARE(preset->models_max, expected);
        const std::vector<std::string> server = {
            "llama-server", "--models-preset",        "/etc/models.ini",
            "--models-max", std::to_string(expected), "--port",
            "8080"};
        QCOMPARE(preset->server, server);
        // The router owns host and port: no section sets them.
        QVERIFY(preset->ini.find("port =") == std::string::npos);
    }

    void duplicateNamesAndBrokenIniAreErrors() {
        SwapModel a{testplans::smallModel("a.gguf", 5), "", {}};
        QVERIFY(!routerPreset({a, a}, {}));
        QVERIFY(!routerPreset({}, {}));
        QVERIFY(!parsePresetIni("[unterminated\nc = 1\n"));
        QVERIFY(!parsePresetIni("[m]\njust words\n"));
    }
};

QTEST_APPLESS_MAIN(TestExportRouter)
#include "test_export_router.moc"
