// Vulkan: the sanity rules on what drivers report (fed directly, as real drivers report them) and
// the real loader path against Mesa's software driver and against a missing loader.
#include "probe.h"
#include "vulkan_probe.h"

#include <QtTest>

#include <filesystem>

using namespace headroom;
using namespace headroom::probe;
using namespace headroom::probe::detail;

namespace {

VulkanDeviceInfo device(int type, std::vector<VulkanHeap> heaps, bool budget) {
    VulkanDeviceInfo d;
    d.name = "test GPU";
    d.vendor_id = 0x1002;
    d.device_type = type;
    d.has_budget = budget;
    d.heaps = std::move(heaps);
    return d;
}

VulkanHeap heap(Bytes size, bool local, std::optional<Bytes> budget = {},
                std::optional<Bytes> usage = {}) {
    return VulkanHeap{size, local, budget, usage};
}

// Mesa's llvmpipe manifest on Debian (mesa-vulkan-drivers).
const char* kLavapipeIcd = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

} // namespace

class VulkanProbeTest : public QObject {
    Q_OBJECT

private slots:
    void discreteCountsOnlyDeviceLocalHeapsAndUsesTheBudget() {
        // 24 GiB VRAM (budget 22, usage 1) + 256 MiB BAR heap (budget 256, usage 0) + 32 GiB host
        // heap that is not device-local.
        auto d = device(kVkDiscrete,
                        {heap(24 * GiB, true, 22 * GiB, GiB), heap(256 * MiB, true, 256 * MiB, 0),
                         heap(32 * GiB, false, 30 * GiB, 0)},
                        true);
        const VulkanMemory m = summarizeVulkanMemory(d);
        QCOMPARE(m.total, 24 * GiB + 256 * MiB);
        // (22 - 1) GiB + 256 MiB.
        QCOMPARE(*m.free, 21 * GiB + 256 * MiB);
        QCOMPARE(QString::fromStdString(m.provenance), QString("VK_EXT_memory_budget"));
        QCOMPARE(m.heaps.size(), size_t(3));
    }

    void budgetAboveHeapSizeIsClampedToTheHeap() {
        // An iGPU driver reporting a 40 GiB budget on a 32 GiB heap with 2 GiB used.
        auto d = device(kVkIntegrated, {heap(32 * GiB, true, 40 * GiB, 2 * GiB)}, true);
        const VulkanMemory m = summarizeVulkanMemory(d);
        // Clamped budget 32 GiB - 2 GiB used = 30 GiB, not 38.
        QCOMPARE(*m.free, 30 * GiB);
        QCOMPARE(*m.heaps[0].budget, 32 * GiB);
        QCOMPARE(m.corrections.size(), size_t(1));
    }

    void usageAboveBudgetIsZeroFreeNotAWrap() {
        auto d = device(kVkDiscrete, {heap(8 * GiB, true, 6 * GiB, 7 * GiB)}, true);
        const VulkanMemory m = summarizeVulkanMemory(d);
        QCOMPARE(*m.free, Bytes{0});
        QCOMPARE(m.total, 8 * GiB);
    }

    void zeroBudgetMeansUnknownFreeMemory() {
        auto d = device(kVkDiscrete, {heap(8 * GiB, true, Bytes{0}, Bytes{0})}, true);
        const VulkanMemory m = summarizeVulkanMemory(d);
        QVERIFY(!m.free);
        QCOMPARE(QString::fromStdString(m.provenance), QString("heap size, no budget extension"));
    }

    void integratedGpuSumsTheSplitHeaps() {
        // RADV on a 128 GiB Strix Halo with a 32 GiB device-local heap and a 64 GiB non-local
        // heap: counting the device-local heap alone reads 32 of 96 GiB.
        auto d =
            device(kVkIntegrated,
                   {heap(32 * GiB, true, 31 * GiB, GiB), heap(64 * GiB, false, 60 * GiB, 0)}, true);
        const VulkanMemory m = summarizeVulkanMemory(d);
        QCOMPARE(m.total, 96 * GiB);
        // (31 - 1) + (60 - 0) = 90 GiB.
        QCOMPARE(*m.free, 90 * GiB);
    }

    void withoutTheBudgetExtensionFreeIsUnknown() {
        auto d = device(kVkDiscrete, {heap(2 * GiB, true)}, false);
        const VulkanMemory m = summarizeVulkanMemory(d);
        QCOMPARE(m.total, 2 * GiB);
        QVERIFY(!m.free);
        QCOMPARE(QString::fromStdString(m.provenance), QString("heap size, no budget extension"));
    }

    void oneGpuUnderTwoDriversIsReportedOnceThroughRadv() {
        auto amdvlk = device(kVkDiscrete, {heap(16 * GiB, true)}, false);
        amdvlk.uuid = "00112233445566778899aabbccddeeff";
        amdvlk.driver_id = 2; // VK_DRIVER_ID_AMD_OPEN_SOURCE
        amdvlk.driver_name = "AMD open-source driver";
        auto radv = amdvlk;
        radv.driver_id = 3; // VK_DRIVER_ID_MESA_RADV
        radv.driver_name = "radv";
        auto other = amdvlk;
        other.uuid = "ffeeddccbbaa99887766554433221100";
        std::vector<std::string> notes;
        const auto kept = dedupeVulkanDevices({amdvlk, radv, other}, notes);
        QCOMPARE(kept.size(), size_t(2));
        QCOMPARE(QString::fromStdString(kept[0].driver_name), QString("radv"));
        QCOMPARE(notes.size(), size_t(1));
    }

    void missingLoaderIsAClearNoteNotACrash() {
        const VulkanResult r = readVulkan("libheadroom-no-such-vulkan.so.1");
        QVERIFY(!r.loaded);
        QVERIFY(r.devices.empty());
        QVERIFY(r.failure.find("no Vulkan loader") != std::string::npos);
    }

    void lavapipeIsListedAsACpuDeviceAndNotPlannedFor() {
        // scripts/packages.txt installs both; without them this path would go untested.
        QVERIFY2(std::filesystem::exists(kLavapipeIcd),
                 "Mesa's lavapipe manifest is not installed (package mesa-vulkan-drivers)");
        qputenv("VK_DRIVER_FILES", kLavapipeIcd);
        qputenv("VK_ICD_FILENAMES", kLavapipeIcd);
        const VulkanResult r = readVulkan("libvulkan.so.1");
        QVERIFY2(r.loaded, "no Vulkan loader installed (package libvulkan1)");
        QVERIFY2(r.failure.empty(), r.failure.c_str());
        QCOMPARE(r.devices.size(), size_t(1));
        const VulkanDeviceInfo& d = r.devices[0];
        QCOMPARE(d.device_type, int(kVkCpu));
        QCOMPARE(d.vendor_id, 0x10005u); // VK_VENDOR_ID_MESA
        QVERIFY(QString::fromStdString(d.name).contains("llvmpipe"));
        QVERIFY(!d.heaps.empty());
        const VulkanMemory m = summarizeVulkanMemory(d);
        QVERIFY(m.total > 0);
        if (d.has_budget) {
            // Newer Mesa: budget and usage must obey the spec's bounds after our clamping.
            for (const auto& h : m.heaps)
                QVERIFY(*h.budget <= h.size);
        } else {
            QVERIFY(!m.free); // Debian 12's lavapipe: fixed heap, no budget extension
        }

        ProbeOptions o;
        o.paths.nvml_libraries = {"libheadroom-no-such-nvml.so"};
        o.use_sysfs = false;
        auto hw = probeHardware(o);
        QVERIFY(hw.has_value());
        QVERIFY(hw->gpus.empty());
        QCOMPARE(hw->ignored_devices.size(), size_t(1));
        QCOMPARE(QString::fromStdString(hw->ignored_devices[0].device_type), QString("cpu"));
        QVERIFY(hw->ignored_devices[0].note.find("not a GPU") != std::string::npos);
        QVERIFY(hw->ram_total > 0);
    }
};

QTEST_APPLESS_MAIN(VulkanProbeTest)
#include "test_vulkan_probe.moc"
