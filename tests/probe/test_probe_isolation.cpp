// The CLI's probe isolation (core/probe/isolated.h): Vulkan and NVML enumerate in forked children
// with a time limit, so a hanging loader or driver costs the limit, never the command.
#include "isolated.h"

#include <QElapsedTimer>
#include <QtTest>

#include <csignal>
#include <unistd.h>

using namespace headroom;
using namespace headroom::probe::detail;

class TestProbeIsolation : public QObject {
    Q_OBJECT

private slots:
    void aChildThatAnswersIsRead() {
        const auto r = runInChildren({[] { return std::string("hello"); }}, 2000);
        QCOMPARE(r.size(), std::size_t{1});
        QCOMPARE(r[0].status, ChildOutput::Status::Ok);
        QCOMPARE(r[0].output, std::string("hello"));
    }

    // Two children at once, one hanging: the hang is killed at the limit (300 ms) and the other
    // answer still comes back; the whole call takes about the limit, not the hang.
    void aHangingChildIsKilledAtTheLimitWhileTheOtherAnswers() {
        QElapsedTimer t;
        t.start();
        const auto r = runInChildren({[] {
                                          for (;;)
                                              ::pause();
                                          return std::string();
                                      },
                                      [] { return std::string("ok"); }},
                                     300);
        QVERIFY2(t.elapsed() < 2000, std::to_string(t.elapsed()).c_str());
        QCOMPARE(r[0].status, ChildOutput::Status::TimedOut);
        QCOMPARE(r[1].status, ChildOutput::Status::Ok);
        QCOMPARE(r[1].output, std::string("ok"));
    }

    void aCrashingChildIsReportedNotPropagated() {
        const auto r = runInChildren({[] {
                                         // SIGKILL: QtTest's own crash handler (inherited
                                         // by the child) would catch SIGSEGV and print a
                                         // backtrace; a kill is a death it cannot intercept.
                                         ::raise(SIGKILL);
                                         return std::string("never");
                                     }},
                                     2000);
        QCOMPARE(r[0].status, ChildOutput::Status::Crashed);
        QVERIFY(!r[0].why.empty());
    }

    void vulkanResultsSurviveTheTripThroughThePipe() {
        VulkanResult v;
        v.loaded = true;
        v.instance_version = 4206592; // VK_MAKE_API_VERSION(0, 1, 3, 0) = (1<<22)|(3<<12)
        VulkanDeviceInfo d;
        d.index = 1;
        d.name = "GPU";
        d.vendor_id = 0x1002;
        d.device_id = 0x744c;
        d.device_type = kVkDiscrete;
        d.uuid = "00ff";
        d.pci_address = "0000:03:00.0";
        d.has_budget = true;
        d.heaps.push_back({25753026560, true, std::optional<Bytes>(20 * GiB), std::nullopt});
        v.devices.push_back(d);
        v.notes.push_back("n");
        VulkanResult back;
        QVERIFY(vulkanResultFromText(vulkanResultToText(v), back));
        QCOMPARE(back.instance_version, v.instance_version);
        QCOMPARE(back.devices.size(), std::size_t{1});
        QCOMPARE(back.devices[0].pci_address, d.pci_address);
        QCOMPARE(back.devices[0].device_type, kVkDiscrete);
        QCOMPARE(back.devices[0].heaps[0].size, Bytes{25753026560});
        QCOMPARE(back.devices[0].heaps[0].budget, std::optional<Bytes>(20 * GiB));
        QVERIFY(!back.devices[0].heaps[0].usage);
        QVERIFY(!vulkanResultFromText("{\"devices\": 3}", back));
        QVERIFY(!vulkanResultFromText("not json", back));
    }

    void nvmlResultsSurviveTheTripThroughThePipe() {
        NvmlResult n;
        n.loaded = true;
        n.driver_version = "550.54";
        NvmlGpu g;
        g.name = "RTX";
        g.pci_address = "0000:01:00.0";
        g.total = 24 * GiB;
        g.bus_width_bits = 384;
        n.gpus.push_back(g);
        NvmlResult back;
        QVERIFY(nvmlResultFromText(nvmlResultToText(n), back));
        QCOMPARE(back.driver_version, n.driver_version);
        QCOMPARE(back.gpus.size(), std::size_t{1});
        QCOMPARE(back.gpus[0].total, std::optional<Bytes>(24 * GiB));
        QVERIFY(!back.gpus[0].free);
        QCOMPARE(back.gpus[0].bus_width_bits, 384u);
    }

    // A missing Vulkan loader through the isolated path is a failure note, as in-process.
    void aMissingLoaderIsANoteNotATimeout() {
        const auto s = readSourcesIsolated(true, "/nonexistent/libvulkan.so.1", false, {}, 3000);
        QVERIFY(!s.vulkan_timed_out);
        QVERIFY(!s.vulkan.failure.empty());
        QVERIFY(s.vulkan.devices.empty());
    }
};

QTEST_APPLESS_MAIN(TestProbeIsolation)
#include "test_probe_isolation.moc"
