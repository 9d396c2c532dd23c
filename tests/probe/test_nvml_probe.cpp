// Discrete NVIDIA through NVML: a stand-in libnvidia-ml (fake_nvml.c) loaded with the real
// dlopen path, joined by PCI address with a fake sysfs tree.
#include "fake_tree.h"
#include "probe.h"

#include <QtTest>

using namespace headroom;
using namespace headroom::probe;
using headroom::test::FakeTree;

class NvmlProbeTest : public QObject {
    Q_OBJECT

    static ProbeOptions options(const FakeTree& t) {
        ProbeOptions o;
        o.paths.proc_root = t.proc();
        o.paths.sys_root = t.sys();
        o.paths.nvml_libraries = {"libheadroom-no-such-nvml.so", HEADROOM_FAKE_NVML};
        o.use_vulkan = false;
        return o;
    }
    static void nvidiaTree(const FakeTree& t) {
        t.meminfo(64, 60);
        const std::string dev =
            t.pciGpu("card0", "0000:00:01.0", "0000:01:00.0", "0x10de", "0x2684", "nvidia");
        t.link("devices/pci0000:00/0000:00:01.0", "16.0 GT/s PCIe", 16, "16.0 GT/s PCIe", 16);
        t.link(dev, "16.0 GT/s PCIe", 16, "2.5 GT/s PCIe", 16);
    }

private slots:
    void init() {
        qunsetenv("HEADROOM_FAKE_NVML_DEVICE_ID");
        qunsetenv("HEADROOM_FAKE_NVML_FREE_MIB");
        qunsetenv("HEADROOM_FAKE_NVML_NO_MEMORY");
        qunsetenv("HEADROOM_FAKE_NVML_NAME");
    }

    void discreteNvidiaTakesMemoryFromNvmlAndTheLinkFromSysfs() {
        FakeTree t;
        nvidiaTree(t);
        auto hw = probeHardware(options(t));
        QVERIFY(hw.has_value());
        QCOMPARE(hw->gpus.size(), size_t(1));
        const GpuDevice& g = hw->gpus[0];
        QCOMPARE(QString::fromStdString(g.name), QString("NVIDIA GeForce RTX 4090"));
        QCOMPARE(QString::fromStdString(g.backend), QString("cuda"));
        QCOMPARE(QString::fromStdString(g.pci_address), QString("0000:01:00.0"));
        QCOMPARE(g.total_bytes, 24 * GiB);
        // The fake reports 20480 MiB free.
        QCOMPARE(*g.free_bytes, 20 * GiB);
        QCOMPARE(QString::fromStdString(g.memory_provenance), QString("NVML"));
        QCOMPARE(g.bandwidth_gbs, 1008.0); // table entry for 0x2684
        QCOMPARE(g.pcie_gen, 4u);
        QCOMPARE(g.pcie_width, 16u);
        QVERIFY(g.pcie_provenance.find("sysfs") != std::string::npos);
        QVERIFY(!hw->uma);
    }

    void unknownModelFallsBackToClockTimesBusWidth() {
        qputenv("HEADROOM_FAKE_NVML_DEVICE_ID", "0x9999");
        qputenv("HEADROOM_FAKE_NVML_NAME", "NVIDIA Future GPU");
        FakeTree t;
        t.meminfo(64, 60);
        auto hw = probeHardware(options(t)); // no sysfs entry either: NVML alone
        QVERIFY(hw.has_value());
        QCOMPARE(hw->gpus.size(), size_t(1));
        const GpuDevice& g = hw->gpus[0];
        // Neither id nor name is tabulated: 2 x 10501 MHz x 384 bit / 8 / 1000 = 1008.096 GB/s.
        QCOMPARE(g.bandwidth_gbs, 1008.096);
        QVERIFY(g.bandwidth_provenance.find("NVML") != std::string::npos);
        // PCIe from NVML when sysfs has nothing.
        QCOMPARE(g.pcie_gen, 4u);
        QVERIFY(g.pcie_provenance.find("NVML") != std::string::npos);
    }

    void unifiedMemoryNvidiaUsesSystemRam() {
        qputenv("HEADROOM_FAKE_NVML_NO_MEMORY", "1");
        FakeTree t;
        t.meminfo(128, 100);
        auto hw = probeHardware(options(t));
        QVERIFY(hw.has_value());
        QCOMPARE(hw->gpus.size(), size_t(1));
        QVERIFY(hw->uma);
        QVERIFY(hw->gpus[0].integrated);
        QCOMPARE(hw->gpus[0].total_bytes, 128 * GiB);
        QCOMPARE(*hw->gpus[0].free_bytes, 100 * GiB);
    }

    void liveRefreshRereadsNvmlFree() {
        FakeTree t;
        nvidiaTree(t);
        const auto o = options(t);
        auto hw = probeHardware(o);
        QVERIFY(hw.has_value());
        qputenv("HEADROOM_FAKE_NVML_FREE_MIB", "8192");
        QVERIFY(refreshLiveMemory(*hw, o).empty());
        QCOMPARE(*hw->gpus[0].free_bytes, 8 * GiB);
        // NVML gone: unknown, not the old figure.
        auto gone = o;
        gone.paths.nvml_libraries = {"libheadroom-no-such-nvml.so"};
        QCOMPARE(refreshLiveMemory(*hw, gone).size(), size_t(1));
        QVERIFY(!hw->gpus[0].free_bytes);
    }
};

QTEST_APPLESS_MAIN(NvmlProbeTest)
#include "test_nvml_probe.moc"
