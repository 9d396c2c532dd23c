// Hardware profiles and presets: JSON round trip, validation naming the field, atomic saves.
#include "hardware_json.h"
#include "hardware_presets.h"
#include "resources.h"

#include <QTemporaryDir>
#include <QtTest>

#include <set>

using namespace headroom;

namespace {

HardwareSnapshot sample() {
    HardwareSnapshot hw = snapshotFromSizes({24 * GiB}, 64 * GiB, false);
    GpuDevice& g = hw.gpus[0];
    g.name = "NVIDIA GeForce RTX 4090";
    g.vendor_id = 0x10de;
    g.device_id = 0x2684;
    g.pci_address = "0000:01:00.0";
    g.free_bytes = 20 * GiB;
    g.memory_provenance = "NVML";
    g.bandwidth_gbs = 1008;
    g.pcie_gen = 4;
    g.pcie_width = 16;
    g.heaps.push_back({24 * GiB, true, 23 * GiB, GiB});
    hw.ram_available = 50 * GiB;
    hw.cgroup_version = "v2";
    hw.cgroup_limit = 60 * GiB;
    hw.notes = {"a note"};
    GpuDevice cpu;
    cpu.name = "llvmpipe";
    cpu.device_type = "cpu";
    cpu.backend = "vulkan";
    cpu.total_bytes = 2 * GiB;
    hw.ignored_devices.push_back(cpu);
    return hw;
}

} // namespace

class HardwareJsonTest : public QObject {
    Q_OBJECT

private slots:
    void snapshotSurvivesARoundTrip() {
        const HardwareSnapshot hw = sample();
        const auto j = hardwareToJson(hw);
        QCOMPARE(QString::fromStdString(j.at("schema").get<std::string>()),
                 QString(kHardwareSchema));
        QCOMPARE(QString::fromStdString(j.at("devices")[0].at("vendor_id").get<std::string>()),
                 QString("0x10de"));
        auto back = hardwareFromJson(j);
        QVERIFY2(back.has_value(), back.has_value() ? "" : back.error().message.c_str());
        QCOMPARE(hardwareToJson(*back), j);
        QCOMPARE(*back->gpus[0].free_bytes, 20 * GiB);
        QCOMPARE(back->gpus[0].device_id, 0x2684u);
        QCOMPARE(*back->gpus[0].heaps[0].budget, 23 * GiB);
        QCOMPARE(back->ignored_devices.size(), size_t(1));
        QCOMPARE(*back->cgroup_limit, 60 * GiB);
    }

    void wrongTypesAreNamedByTheirField() {
        auto j = hardwareToJson(sample());
        j["devices"][0]["total_bytes"] = "lots";
        auto r = hardwareFromJson(j);
        QVERIFY(!r.has_value());
        QVERIFY2(r.error().message.find("devices[0].total_bytes") != std::string::npos,
                 r.error().message.c_str());

        j = hardwareToJson(sample());
        j["ram"]["total_bytes"] = -5;
        r = hardwareFromJson(j);
        QVERIFY(!r.has_value());
        QVERIFY(r.error().message.find("ram.total_bytes") != std::string::npos);

        j = hardwareToJson(sample());
        j["devices"][0]["heaps"][0]["budget_bytes"] = true;
        r = hardwareFromJson(j);
        QVERIFY(!r.has_value());
        QVERIFY(r.error().message.find("devices[0].heaps[0].budget_bytes") != std::string::npos);

        j = hardwareToJson(sample());
        j["devices"][0]["backend"] = "opencl";
        r = hardwareFromJson(j);
        QVERIFY(!r.has_value());
        QVERIFY(r.error().message.find("devices[0].backend") != std::string::npos);
    }

    void implausibleValuesAreRejected() {
        auto j = hardwareToJson(sample());
        // 2 PiB of VRAM: above kMaxPlausibleBytes (1 PiB).
        j["devices"][0]["total_bytes"] = 2 * 1024 * TiB;
        QVERIFY(!hardwareFromJson(j).has_value());
        j = hardwareToJson(sample());
        j["devices"][0]["free_bytes"] = 30 * GiB; // more free than the 24 GiB it has
        auto r = hardwareFromJson(j);
        QVERIFY(!r.has_value());
        QVERIFY(r.error().message.find("free_bytes") != std::string::npos);
        j = hardwareToJson(sample());
        j["schema"] = "headroom.hardware/99";
        r = hardwareFromJson(j);
        QVERIFY(!r.has_value());
        QCOMPARE(r.error().code, ErrorCode::Unsupported);
        j = hardwareToJson(sample());
        j.erase("ram");
        r = hardwareFromJson(j);
        QVERIFY(!r.has_value());
        QVERIFY(r.error().message.find("ram") != std::string::npos);
    }

    void malformedTextIsAParseError() {
        auto r = hardwareFromJsonText("{\"ram\": {\"total_bytes\": 1");
        QVERIFY(!r.has_value());
        QCOMPARE(r.error().code, ErrorCode::ParseError);
        QVERIFY(!r.error().details.empty());
    }

    void profilesSaveAtomicallyAndNeverOverwriteUnasked() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("machine.json").toStdString();
        QVERIFY(saveHardwareProfile(path, sample(), false).has_value());
        auto loaded = loadHardwareProfile(path);
        QVERIFY(loaded.has_value());
        QCOMPARE(QString::fromStdString(loaded->source), QString::fromStdString("file:" + path));
        QCOMPARE(loaded->gpus[0].total_bytes, 24 * GiB);
        auto again = saveHardwareProfile(path, sample(), false);
        QVERIFY(!again.has_value());
        QVERIFY(saveHardwareProfile(path, sample(), true).has_value());
        // No temporary files left next to the profile.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
        auto missing = loadHardwareProfile(dir.filePath("nope.json").toStdString());
        QVERIFY(!missing.has_value());
        QCOMPARE(missing.error().code, ErrorCode::IoError);
    }

    void builtinPresetsCoverTheMachinesPeoplePlanFor() {
        auto presets = loadBuiltinPresets();
        QVERIFY2(presets.has_value(), presets.has_value() ? "" : presets.error().message.c_str());
        QVERIFY(presets->size() >= 15);
        std::set<std::string> ids;
        for (const auto& p : *presets) {
            ids.insert(p.id);
            QVERIFY2(!p.citation.empty(), p.id.c_str());
            QVERIFY2(p.hw.ram_total > 0, p.id.c_str());
            QVERIFY2(p.hw.host_bandwidth_gbs > 0, p.id.c_str());
            for (const auto& g : p.hw.gpus) {
                QVERIFY2(g.bandwidth_gbs > 0, p.id.c_str());
                QVERIFY2(g.fp16_tflops > 0, p.id.c_str());
            }
            QCOMPARE(QString::fromStdString(p.hw.source), QString::fromStdString("preset:" + p.id));
        }
        for (const char* id : {"rtx-3060-12g", "rtx-3090", "rtx-4060-ti-16g", "rtx-4090",
                               "rtx-5090", "rx-7900-xtx", "arc-b580", "m3-max-64g", "m4-max-128g",
                               "strix-halo-128g", "dgx-spark-128g", "h100-sxm-80g", "cpu-ddr5-64g"})
            QVERIFY2(ids.count(id), id);
        auto strix = presetSnapshot("strix-halo-128g");
        QVERIFY(strix.has_value());
        QVERIFY(strix->uma);
        QCOMPARE(strix->gpus[0].total_bytes, 128 * GiB);
        auto none = presetSnapshot("rtx-9999");
        QVERIFY(!none.has_value());
        QCOMPARE(none.error().code, ErrorCode::NotFound);
        QVERIFY(none.error().details.find("rtx-4090") != std::string::npos);
    }

    void presetErrorsNameTheEntry() {
        auto r = parsePresets(R"({"presets":[{"id":"a","source":"s","ram":{"total_bytes":1}},
                                             {"id":"a","source":"s","ram":{"total_bytes":1}}]})");
        QVERIFY(!r.has_value());
        QVERIFY(r.error().message.find("presets[1].id") != std::string::npos);
        r = parsePresets(R"({"presets":[{"id":"b","ram":{"total_bytes":1}}]})");
        QVERIFY(!r.has_value());
        QVERIFY(r.error().message.find("presets[0].source") != std::string::npos);
        r = parsePresets(R"({"presets":[{"id":"c","source":"s","ram":{"total_bytes":"x"}}]})");
        QVERIFY(!r.has_value());
        QVERIFY(r.error().message.find("presets[0].ram.total_bytes") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(HardwareJsonTest)
#include "test_hardware_json.moc"
