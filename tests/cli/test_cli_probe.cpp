// headroom-cli probe / presets as a script (or the GUI's child process) sees them: JSON on
// stdout, exit codes, and no crash or hang whatever the Vulkan setup.
#include "common/cli_runner.h"
#include "hardware_json.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using headroom::test::runCli;
using nlohmann::json;
using Run = headroom::test::CliRun;

namespace {

json parse(const Run& r) {
    return json::parse(r.out.toStdString(), nullptr, false);
}

bool anyNoteContains(const json& j, const std::string& text) {
    for (const auto& n : j.at("notes"))
        if (n.get<std::string>().find(text) != std::string::npos) return true;
    return false;
}

const char* kLavapipeIcd = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

} // namespace

class CliProbeTest : public QObject {
    Q_OBJECT

private slots:
    void probeJsonReportsRamCgroupAndTheSoftwareDevice() {
        // scripts/packages.txt installs the loader and lavapipe, so the device path always runs.
        QVERIFY2(std::filesystem::exists(kLavapipeIcd),
                 "Mesa's lavapipe manifest is not installed (package mesa-vulkan-drivers)");
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("VK_DRIVER_FILES", kLavapipeIcd);
        env.insert("VK_ICD_FILENAMES", kLavapipeIcd);
        const Run r = runCli({"probe", "--json"}, env);
        QCOMPARE(r.code, 0);
        const json j = parse(r);
        QVERIFY(!j.is_discarded());
        auto hw = headroom::hardwareFromJson(j);
        QVERIFY2(hw.has_value(), hw.has_value() ? "" : hw.error().message.c_str());
        QVERIFY(hw->ram_total > 0);
        QVERIFY(hw->ram_available.has_value());
        QVERIFY(!hw->ram_provenance.empty());
        QVERIFY(!hw->ram_available_provenance.empty());
        QVERIFY(j.at("ram").contains("cgroup"));
        bool sawCpuDevice = false;
        for (const auto& g : hw->ignored_devices)
            sawCpuDevice = sawCpuDevice || (g.device_type == "cpu" &&
                                            g.name.find("llvmpipe") != std::string::npos &&
                                            !g.memory_provenance.empty());
        QVERIFY(sawCpuDevice);
    }

    void hiddenLoaderStillReportsRamAndSaysWhy() {
        const Run r = runCli({"probe", "--json", "--vulkan-library", "libheadroom-absent.so.1"});
        QCOMPARE(r.code, 0);
        const json j = parse(r);
        QVERIFY(!j.is_discarded());
        QVERIFY(j.at("ram").at("total_bytes").get<std::uint64_t>() > 0);
        QVERIFY(anyNoteContains(j, "no Vulkan loader"));
    }

    void brokenDriverManifestIsANoteNotACrash() {
        QTemporaryDir dir;
        const std::string so = dir.filePath("libgarbage_icd.so").toStdString();
        std::ofstream(so) << "this is not an ELF file";
        const std::string manifest = dir.filePath("garbage_icd.json").toStdString();
        const json icd = {{"file_format_version", "1.0.0"},
                          {"ICD", {{"library_path", so}, {"api_version", "1.3.0"}}}};
        std::ofstream(manifest) << icd.dump();
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("VK_DRIVER_FILES", QString::fromStdString(manifest));
        env.insert("VK_ICD_FILENAMES", QString::fromStdString(manifest));
        const Run r = runCli({"probe", "--json"}, env);
        QCOMPARE(r.code, 0);
        const json j = parse(r);
        QVERIFY(!j.is_discarded());
        QVERIFY(j.at("devices").empty());
        QVERIFY(j.at("ram").at("total_bytes").get<std::uint64_t>() > 0);
        // Either the loader is absent on this machine or it refused the driver; both say so.
        QVERIFY(anyNoteContains(j, "Vulkan") || anyNoteContains(j, "vkCreateInstance"));
    }

    void unreadableProcIsExitFourWithAnErrorObject() {
        QTemporaryDir dir;
        const Run r = runCli({"probe", "--json", "--proc-root", dir.path()});
        QCOMPARE(r.code, 4);
        const json j = parse(r);
        QVERIFY(!j.is_discarded());
        QCOMPARE(QString::fromStdString(j.at("error").at("code").get<std::string>()),
                 QString("probe_failed"));
        QVERIFY(r.err.contains("meminfo"));
    }

    void humanOutputNamesProvenance() {
        const Run r = runCli({"probe", "--vulkan-library", "libheadroom-absent.so.1"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("/proc/meminfo"));
        QVERIFY(r.out.contains("no Vulkan loader"));
    }

    void savedProfileLoadsAndIsNotOverwrittenUnasked() {
        QTemporaryDir dir;
        const QString path = dir.filePath("me.json");
        const QStringList args{"probe", "--vulkan-library", "libheadroom-absent.so.1", "--save",
                               path};
        QCOMPARE(runCli(args).code, 0);
        auto hw = headroom::loadHardwareProfile(path.toStdString());
        QVERIFY(hw.has_value());
        QVERIFY(hw->ram_total > 0);
        // Second save without --force: refused, exit 2 (a bad argument, as in export), file kept.
        const Run again = runCli(args);
        QCOMPARE(again.code, 2);
        QVERIFY(again.err.contains("already exists"));
        QCOMPARE(runCli(QStringList(args) << "--force").code, 0);
    }

    void presetsJsonListsTheBuiltInMachines() {
        const Run r = runCli({"presets", "--json"});
        QCOMPARE(r.code, 0);
        const json j = parse(r);
        QVERIFY(!j.is_discarded());
        QVERIFY(j.at("presets").size() >= 15);
        for (const auto& p : j.at("presets")) {
            QVERIFY(!p.at("id").get<std::string>().empty());
            QVERIFY(!p.at("source").get<std::string>().empty());
            QVERIFY(headroom::hardwareFromJson(p).has_value());
        }
        const Run text = runCli({"presets"});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.contains("rtx-4090"));
    }

    void badArgumentsAreExitTwo() { QCOMPARE(runCli({"probe", "--no-such-flag"}).code, 2); }
};

QTEST_APPLESS_MAIN(CliProbeTest)
#include "test_cli_probe.moc"
