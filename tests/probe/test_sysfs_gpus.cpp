// GPUs from fake sysfs trees (Vulkan off, NVML pointed at a missing library): what each vendor's
// kernel driver exposes, and the PCIe link narrowed along the path to the root port.
#include "fake_tree.h"
#include "pci_sysfs.h"
#include "probe.h"

#include <QtTest>

using namespace headroom;
using namespace headroom::probe;
using headroom::test::FakeTree;

class SysfsGpusTest : public QObject {
    Q_OBJECT

    static ProbeOptions options(const FakeTree& t) {
        ProbeOptions o;
        o.paths.proc_root = t.proc();
        o.paths.sys_root = t.sys();
        o.paths.nvml_libraries = {"libheadroom-no-such-nvml.so"};
        o.use_vulkan = false;
        return o;
    }

private slots:
    void pcieSpeedStringsMapToGenerations() {
        QCOMPARE(detail::pcieGenFromSpeed("2.5 GT/s PCIe"), 1u);
        QCOMPARE(detail::pcieGenFromSpeed("8 GT/s"), 3u);
        QCOMPARE(detail::pcieGenFromSpeed("16.0 GT/s PCIe"), 4u);
        QCOMPARE(detail::pcieGenFromSpeed("32.0 GT/s PCIe"), 5u);
        QCOMPARE(detail::pcieGenFromSpeed("Unknown"), 0u);
    }

    void amdDiscreteReportsVramAndTheNarrowestLink() {
        FakeTree t;
        t.meminfo(64, 60);
        // Root port 0000:00:01.1 (gen 4 x8: the slot), the card's internal switch 0000:01:00.0
        // and 0000:02:00.0 (gen 4 x16), the GPU 0000:03:00.0 idling at 2.5 GT/s.
        const std::string dev = t.pciGpu("card0", "0000:00:01.1/0000:01:00.0/0000:02:00.0",
                                         "0000:03:00.0", "0x1002", "0x744c", "amdgpu");
        t.link("devices/pci0000:00/0000:00:01.1", "16.0 GT/s PCIe", 8, "16.0 GT/s PCIe", 8);
        t.link("devices/pci0000:00/0000:00:01.1/0000:01:00.0", "16.0 GT/s PCIe", 16,
               "16.0 GT/s PCIe", 16);
        t.link("devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0", "16.0 GT/s PCIe", 16,
               "16.0 GT/s PCIe", 16);
        t.link(dev, "16.0 GT/s PCIe", 16, "2.5 GT/s PCIe", 16);
        t.sys(dev + "/mem_info_vram_total", std::to_string(24 * GiB) + "\n");
        t.sys(dev + "/mem_info_vram_used", std::to_string(3 * GiB) + "\n");
        t.sys(dev + "/mem_info_gtt_total", std::to_string(32 * GiB) + "\n");
        t.sys(dev + "/mem_info_gtt_used", "0\n");
        t.sys(dev + "/mem_info_vram_vendor", "samsung\n");
        t.sys(dev + "/product_name", "AMD Radeon RX 7900 XTX\n");
        auto hw = probeHardware(options(t));
        QVERIFY(hw.has_value());
        QCOMPARE(hw->gpus.size(), size_t(1));
        const GpuDevice& g = hw->gpus[0];
        QVERIFY(!g.integrated);
        QVERIFY(!hw->uma);
        QCOMPARE(g.total_bytes, 24 * GiB);
        // 24 GiB VRAM - 3 GiB used.
        QCOMPARE(*g.free_bytes, 21 * GiB);
        QCOMPARE(QString::fromStdString(g.pci_address), QString("0000:03:00.0"));
        QCOMPARE(QString::fromStdString(g.backend), QString("vulkan"));
        // Gen from max_link_speed (16 GT/s = gen 4, not the idle 2.5); width x8 at the root port.
        QCOMPARE(g.pcie_gen, 4u);
        QCOMPARE(g.pcie_width, 8u);
        // 0x744c + "XTX" in the name: 960 GB/s from the table.
        QCOMPARE(g.bandwidth_gbs, 960.0);
        QVERIFY(g.memory_provenance.find("sysfs") != std::string::npos);
        QVERIFY(g.note.find("idles at gen 1") != std::string::npos);
    }

    void amdApuSumsCarveOutAndGttIntoOneUnifiedPool() {
        FakeTree t;
        t.meminfo(128, 120);
        const std::string dev =
            t.pciGpu("card1", "0000:00:08.1", "0000:c5:00.0", "0x1002", "0x1586", "amdgpu");
        t.sys(dev + "/mem_info_vram_total", std::to_string(GiB / 2) + "\n");
        t.sys(dev + "/mem_info_vram_used", std::to_string(GiB / 4) + "\n");
        t.sys(dev + "/mem_info_gtt_total", std::to_string(96 * GiB) + "\n");
        t.sys(dev + "/mem_info_gtt_used", std::to_string(GiB) + "\n");
        auto hw = probeHardware(options(t));
        QVERIFY(hw.has_value());
        QCOMPARE(hw->gpus.size(), size_t(1));
        const GpuDevice& g = hw->gpus[0];
        QVERIFY(g.integrated);
        QVERIFY(hw->uma);
        // 0.5 GiB carve-out + 96 GiB GTT.
        QCOMPARE(g.total_bytes, GiB / 2 + 96 * GiB);
        // used 0.25 GiB + 1 GiB.
        QCOMPARE(*g.free_bytes, GiB / 2 + 96 * GiB - GiB / 4 - GiB);
        QCOMPARE(g.pcie_gen, 0u); // on-die: no bus to report
        QCOMPARE(g.bandwidth_gbs, 256.0);
    }

    void apuPoolLargerThanRamIsCapped() {
        FakeTree t;
        t.meminfo(32, 30);
        const std::string dev =
            t.pciGpu("card0", "0000:00:08.1", "0000:05:00.0", "0x1002", "0x15bf", "amdgpu");
        t.sys(dev + "/mem_info_vram_total", std::to_string(GiB) + "\n");
        t.sys(dev + "/mem_info_gtt_total", std::to_string(48 * GiB) + "\n");
        auto hw = probeHardware(options(t));
        QVERIFY(hw.has_value());
        QCOMPARE(hw->gpus.size(), size_t(1));
        // 1 + 48 GiB claimed, 32 GiB of RAM exist.
        QCOMPARE(hw->gpus[0].total_bytes, 32 * GiB);
        QVERIFY(hw->gpus[0].note.find("capped") != std::string::npos);
    }

    void intelIgpuSharesSystemRam() {
        FakeTree t;
        t.meminfo(32, 24);
        t.pciGpu("card0", "", "0000:00:02.0", "0x8086", "0xa780", "i915");
        auto hw = probeHardware(options(t));
        QVERIFY(hw.has_value());
        QCOMPARE(hw->gpus.size(), size_t(1));
        const GpuDevice& g = hw->gpus[0];
        QVERIFY(g.integrated);
        QVERIFY(hw->uma);
        QCOMPARE(g.total_bytes, 32 * GiB);
        QCOMPARE(*g.free_bytes, 24 * GiB);
        QVERIFY(g.memory_provenance.find("system RAM") != std::string::npos);
    }

    void intelIgpuNextToADiscreteCardIsNotASecondGpu() {
        FakeTree t;
        t.meminfo(32, 24);
        t.pciGpu("card0", "", "0000:00:02.0", "0x8086", "0xa780", "i915");
        const std::string dev =
            t.pciGpu("card1", "0000:00:01.0", "0000:01:00.0", "0x1002", "0x73bf", "amdgpu");
        t.sys(dev + "/mem_info_vram_total", std::to_string(16 * GiB) + "\n");
        t.sys(dev + "/mem_info_vram_used", "0\n");
        t.sys(dev + "/board_info", "type : oam\n");
        auto hw = probeHardware(options(t));
        QVERIFY(hw.has_value());
        QCOMPARE(hw->gpus.size(), size_t(1));
        QCOMPARE(hw->gpus[0].total_bytes, 16 * GiB);
        QVERIFY(!hw->uma);
        QCOMPARE(hw->ignored_devices.size(), size_t(1));
        QVERIFY(hw->ignored_devices[0].note.find("integrated GPU next to a discrete") !=
                std::string::npos);
    }

    void nvidiaWithoutNvmlIsSeenButNotPlanned() {
        FakeTree t;
        t.meminfo(64, 60);
        const std::string dev =
            t.pciGpu("card0", "0000:00:01.0", "0000:01:00.0", "0x10de", "0x2684", "nvidia");
        t.link("devices/pci0000:00/0000:00:01.0", "16.0 GT/s PCIe", 16, "16.0 GT/s PCIe", 16);
        t.link(dev, "16.0 GT/s PCIe", 16, "16.0 GT/s PCIe", 16);
        auto hw = probeHardware(options(t));
        QVERIFY(hw.has_value());
        QVERIFY(hw->gpus.empty());
        QCOMPARE(hw->ignored_devices.size(), size_t(1));
        const GpuDevice& g = hw->ignored_devices[0];
        QCOMPARE(QString::fromStdString(g.name), QString("NVIDIA RTX 4090"));
        QCOMPARE(QString::fromStdString(g.backend), QString("cuda"));
        QVERIFY(g.note.find("memory size unknown") != std::string::npos);
        QCOMPARE(g.pcie_gen, 4u);
        bool nvmlNote = false;
        for (const auto& n : hw->notes)
            nvmlNote = nvmlNote || n.find("NVML not available") != std::string::npos;
        QVERIFY(nvmlNote);
    }

    void connectorsAndUnknownLinkSpeedsAreHarmless() {
        FakeTree t;
        t.meminfo(16, 8);
        const std::string dev =
            t.pciGpu("card0", "0000:00:01.0", "0000:01:00.0", "0x1002", "0x73ff", "amdgpu");
        t.sys("class/drm/card0-DP-1/status", "connected\n");
        t.link(dev, "Unknown", 0, "Unknown", 0);
        t.sys(dev + "/mem_info_vram_total", std::to_string(8 * GiB) + "\n");
        t.sys(dev + "/mem_info_vram_vendor", "hynix\n");
        auto hw = probeHardware(options(t));
        QVERIFY(hw.has_value());
        QCOMPARE(hw->gpus.size(), size_t(1));
        QCOMPARE(hw->gpus[0].pcie_gen, 0u);
        // No mem_info_vram_used: free counts as the whole 8 GiB minus 0.
        QCOMPARE(hw->gpus[0].total_bytes, 8 * GiB);
    }

    void liveRefreshRereadsUsageOnly() {
        FakeTree t;
        t.meminfo(64, 60);
        const std::string dev =
            t.pciGpu("card0", "0000:00:01.0", "0000:01:00.0", "0x1002", "0x744c", "amdgpu");
        t.sys(dev + "/mem_info_vram_total", std::to_string(24 * GiB) + "\n");
        t.sys(dev + "/mem_info_vram_used", std::to_string(GiB) + "\n");
        t.sys(dev + "/mem_info_vram_vendor", "samsung\n");
        auto o = options(t);
        auto hw = probeHardware(o);
        QVERIFY(hw.has_value());
        QCOMPARE(*hw->gpus[0].free_bytes, 23 * GiB);
        // Another program takes 10 GiB more; RAM availability drops to 40 GiB.
        t.sys(dev + "/mem_info_vram_used", std::to_string(11 * GiB) + "\n");
        t.meminfo(64, 40);
        const auto notes = refreshLiveMemory(*hw, o);
        QVERIFY(notes.empty());
        // 24 - 11 = 13 GiB.
        QCOMPARE(*hw->gpus[0].free_bytes, 13 * GiB);
        QCOMPARE(*hw->ram_available, 40 * GiB);
        // The usage file disappears (device gone): unknown, never the stale figure.
        std::filesystem::remove(t.sys() + "/" + dev + "/mem_info_vram_used");
        QCOMPARE(refreshLiveMemory(*hw, o).size(), size_t(1));
        QVERIFY(!hw->gpus[0].free_bytes);
    }
};

QTEST_APPLESS_MAIN(SysfsGpusTest)
#include "test_sysfs_gpus.moc"
