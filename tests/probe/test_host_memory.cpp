// System RAM and container limits from fake /proc and /sys trees.
#include "fake_tree.h"
#include "host_memory.h"
#include "probe.h"

#include <QtTest>

using namespace headroom;
using namespace headroom::probe;
using headroom::test::FakeTree;

class HostMemoryTest : public QObject {
    Q_OBJECT

    static ProbePaths paths(const FakeTree& t) {
        ProbePaths p;
        p.proc_root = t.proc();
        p.sys_root = t.sys();
        return p;
    }

private slots:
    void meminfoGivesTotalAvailableAndSwap() {
        FakeTree t;
        t.meminfo(64, 50, 8);
        auto m = detail::readHostMemory(paths(t));
        QVERIFY(m.has_value());
        // 64 GiB written as 67108864 kB, read back as 64 GiB.
        QCOMPARE(m->total, 64 * GiB);
        QCOMPARE(m->available, 50 * GiB);
        QCOMPARE(m->swap_total, 8 * GiB);
        QCOMPARE(QString::fromStdString(m->cgroup_version), QString());
        QVERIFY(!m->cgroup_limit);
    }

    void missingMemAvailableFallsBackToFreeBuffersAndCached() {
        FakeTree t;
        t.proc("meminfo", "MemTotal: 16777216 kB\nMemFree: 4194304 kB\nBuffers: 1048576 kB\n"
                          "Cached: 2097152 kB\n");
        auto m = detail::readHostMemory(paths(t));
        QVERIFY(m.has_value());
        // 4 GiB free + 1 GiB buffers + 2 GiB cached = 7 GiB.
        QCOMPARE(m->available, 7 * GiB);
        QVERIFY(m->available_provenance.find("MemFree+Buffers+Cached") != std::string::npos);
    }

    void unreadableMeminfoIsProbeFailed() {
        FakeTree t; // no meminfo written
        auto m = detail::readHostMemory(paths(t));
        QVERIFY(!m.has_value());
        QCOMPARE(m.error().code, ErrorCode::ProbeFailed);
        auto hw = probeHardware({paths(t), false, false, false});
        QVERIFY(!hw.has_value());
        QCOMPARE(hw.error().code, ErrorCode::ProbeFailed);
    }

    void cgroupV2LimitCapsTotalAndAvailable() {
        FakeTree t;
        t.meminfo(64, 50);
        t.proc("self/cgroup", "0::/docker/abc\n");
        t.sys("fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
        t.sys("fs/cgroup/docker/abc/memory.max", std::to_string(8 * GiB) + "\n");
        t.sys("fs/cgroup/docker/abc/memory.current", std::to_string(3 * GiB) + "\n");
        t.sys("fs/cgroup/docker/abc/memory.stat",
              "anon 1073741824\ninactive_file " + std::to_string(GiB) + "\nactive_file 0\n");
        auto m = detail::readHostMemory(paths(t));
        QVERIFY(m.has_value());
        QCOMPARE(QString::fromStdString(m->cgroup_version), QString("v2"));
        // The container may hold 8 GiB, not the host's 64.
        QCOMPARE(m->total, 8 * GiB);
        QVERIFY(m->cgroup_limit.has_value());
        QCOMPARE(*m->cgroup_limit, 8 * GiB);
        // usage 3 GiB - 1 GiB reclaimable inactive file = 2 GiB; 8 - 2 = 6 GiB < MemAvailable 50.
        QCOMPARE(m->available, 6 * GiB);
        QCOMPARE(*m->cgroup_usage, 2 * GiB);
        QVERIFY(m->total_provenance.find("memory.max") != std::string::npos);
    }

    void cgroupV2MaxMeansNoLimit() {
        FakeTree t;
        t.meminfo(32, 20);
        t.proc("self/cgroup", "0::/user.slice\n");
        t.sys("fs/cgroup/cgroup.controllers", "memory pids\n");
        t.sys("fs/cgroup/user.slice/memory.max", "max\n");
        t.sys("fs/cgroup/user.slice/memory.current", std::to_string(30 * GiB) + "\n");
        auto m = detail::readHostMemory(paths(t));
        QVERIFY(m.has_value());
        QCOMPARE(QString::fromStdString(m->cgroup_version), QString("v2"));
        QVERIFY(!m->cgroup_limit);
        // No limit: the host figures stand, even though the cgroup's usage is large.
        QCOMPARE(m->total, 32 * GiB);
        QCOMPARE(m->available, 20 * GiB);
    }

    void cgroupV2ParentLimitBindsTheChild() {
        FakeTree t;
        t.meminfo(128, 100);
        t.proc("self/cgroup", "0::/parent/child\n");
        t.sys("fs/cgroup/cgroup.controllers", "memory\n");
        t.sys("fs/cgroup/parent/memory.max", std::to_string(16 * GiB) + "\n");
        t.sys("fs/cgroup/parent/memory.current", std::to_string(12 * GiB) + "\n");
        t.sys("fs/cgroup/parent/child/memory.max", std::to_string(32 * GiB) + "\n");
        t.sys("fs/cgroup/parent/child/memory.current", std::to_string(2 * GiB) + "\n");
        auto m = detail::readHostMemory(paths(t));
        QVERIFY(m.has_value());
        // Child alone: 32 - 2 = 30 GiB; parent: 16 - 12 = 4 GiB (siblings use the rest). The
        // tighter room wins; the tighter limit is 16 GiB.
        QCOMPARE(*m->cgroup_limit, 16 * GiB);
        QCOMPARE(m->total, 16 * GiB);
        QCOMPARE(m->available, 4 * GiB);
    }

    void cgroupV1UnlimitedSentinelIsNoLimit() {
        FakeTree t;
        t.meminfo(24, 20);
        t.proc("self/cgroup", "5:devices:/\n4:memory:/process_api/x\n0::/\n");
        // 9223372036854771712 = PAGE_COUNTER_MAX x 4 KiB, what v1 writes for "no limit".
        t.sys("fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
        t.sys("fs/cgroup/memory/process_api/x/memory.limit_in_bytes", "9223372036854771712\n");
        t.sys("fs/cgroup/memory/process_api/x/memory.usage_in_bytes", "505311232\n");
        auto m = detail::readHostMemory(paths(t));
        QVERIFY(m.has_value());
        QCOMPARE(QString::fromStdString(m->cgroup_version), QString("v1"));
        QVERIFY(!m->cgroup_limit);
        QCOMPARE(m->total, 24 * GiB);
        QCOMPARE(m->available, 20 * GiB);
        QCOMPARE(*m->cgroup_usage, Bytes{505311232});
    }

    void cgroupV1LimitApplies() {
        FakeTree t;
        t.meminfo(24, 20);
        t.proc("self/cgroup", "4:memory:/job\n");
        t.sys("fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
        t.sys("fs/cgroup/memory/job/memory.limit_in_bytes", std::to_string(4 * GiB) + "\n");
        t.sys("fs/cgroup/memory/job/memory.usage_in_bytes", std::to_string(GiB) + "\n");
        t.sys("fs/cgroup/memory/job/memory.stat", "cache 0\ntotal_inactive_file 0\n");
        auto m = detail::readHostMemory(paths(t));
        QVERIFY(m.has_value());
        QCOMPARE(m->total, 4 * GiB);
        // 4 GiB limit - 1 GiB usage = 3 GiB.
        QCOMPARE(m->available, 3 * GiB);
    }

    void containerWithoutCgroupNamespaceReadsTheMountRoot() {
        FakeTree t;
        t.meminfo(64, 60);
        // The host's path is named but does not exist inside the container's mount.
        t.proc("self/cgroup", "0::/system.slice/docker-123.scope\n");
        t.sys("fs/cgroup/cgroup.controllers", "memory\n");
        t.sys("fs/cgroup/memory.max", std::to_string(2 * GiB) + "\n");
        t.sys("fs/cgroup/memory.current", std::to_string(GiB / 2) + "\n");
        auto m = detail::readHostMemory(paths(t));
        QVERIFY(m.has_value());
        QCOMPARE(m->total, 2 * GiB);
        // 2 GiB - 0.5 GiB = 1.5 GiB.
        QCOMPARE(m->available, 3 * GiB / 2);
    }

    void probeOfACgroupLimitedContainerCarriesProvenance() {
        FakeTree t;
        t.meminfo(64, 50);
        t.proc("self/cgroup", "0::/\n");
        t.sys("fs/cgroup/cgroup.controllers", "memory\n");
        t.sys("fs/cgroup/memory.max", std::to_string(8 * GiB) + "\n");
        t.sys("fs/cgroup/memory.current", std::to_string(GiB) + "\n");
        ProbeOptions o{paths(t), false, false, true};
        auto hw = probeHardware(o);
        QVERIFY(hw.has_value());
        QCOMPARE(hw->ram_total, 8 * GiB);
        // 8 - 1 = 7 GiB.
        QCOMPARE(*hw->ram_available, 7 * GiB);
        QCOMPARE(QString::fromStdString(hw->cgroup_version), QString("v2"));
        QVERIFY(hw->ram_provenance.find("cgroup v2") != std::string::npos);
        QVERIFY(hw->ram_available_provenance.find("cgroup v2") != std::string::npos);
        QVERIFY(hw->gpus.empty());
    }
};

QTEST_APPLESS_MAIN(HostMemoryTest)
#include "test_host_memory.moc"
