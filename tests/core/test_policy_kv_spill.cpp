// KV spill planning (docs/sources.md, elizaOS KV spill; the behaviour of
// kv-spill.test.ts).
#include "policy/kv_spill.h"

#include <QtTest>

using namespace headroom;
using namespace headroom::policy;

namespace {
KvSpillInput input(std::uint64_t ctx, Bytes per_token, SignedBytes budget,
                   KvRestoreClass cls = KvRestoreClass::CpuPcie, bool cpu = true,
                   bool voice = false) {
    KvSpillInput in;
    in.requested_context = ctx;
    in.bytes_per_token = per_token;
    in.resident_budget_bytes = budget;
    in.restore_class = cls;
    in.cpu_spill_available = cpu;
    in.voice = voice;
    return in;
}
} // namespace

class TestPolicyKvSpill : public QObject {
    Q_OBJECT
private slots:
    void aCacheWithinTheResidentBudgetStaysResidentWhole() {
        // 32768 tokens × 1000 B = 32 768 000 B (128 pages of 256 000 B) ≤ 64 MiB.
        const auto r = planKvSpill(input(32768, 1000, 64 * MiB));
        QVERIFY(r.has_value());
        QCOMPARE(r->mode, KvSpillMode::Resident);
        QCOMPARE(r->total_bytes, Bytes(32768000));
        QCOMPARE(r->resident_bytes, r->total_bytes);
        QCOMPARE(r->spill_bytes, Bytes(0));
        QCOMPARE(r->total_pages, std::uint64_t(128));
    }

    void aLongContextOverTheBudgetSpillsToCpuWithinTheTextBudget() {
        // 262144 × 2000 B: page = 2000 × 256 = 512 000 B, 1024 pages, total 524 288 000 B
        // > 64 MiB = 67 108 864 B. Resident pages = floor(67 108 864 / 512 000) = 131, spill
        // 1024 − 131 = 893. Restore over PCIe: 512 000 / 12 000 000 B/ms = 0.04267 ms ≪ 1500.
        const auto r = planKvSpill(input(262144, 2000, 64 * MiB));
        QVERIFY(r.has_value());
        QCOMPARE(r->mode, KvSpillMode::Spill);
        QCOMPARE(r->tier, KvSpillTier::Cpu);
        QCOMPARE(r->resident_pages, std::uint64_t(131));
        QCOMPARE(r->spill_pages, std::uint64_t(893));
        QVERIFY(r->resident_pages >= 1);
        QCOMPARE(r->resident_bytes + r->spill_bytes, r->total_bytes);
        QCOMPARE(r->latency_budget_ms, 1500.0);
        QVERIFY(qAbs(r->worst_case_restore_ms - 512000.0 / 12e6) < 1e-9);
        QVERIFY(r->worst_case_restore_ms < r->latency_budget_ms / 1000);
        QCOMPARE(r->blocker, KvSpillBlocker::None);
    }

    void voiceBundlesArePricedAgainstThe200MsBudget() {
        // Same cache as above, voice on: the budget becomes 200 ms; 0.0427 ms still passes.
        const auto r = planKvSpill(input(262144, 2000, 64 * MiB, KvRestoreClass::CpuPcie, true,
                                         /*voice=*/true));
        QVERIFY(r.has_value());
        QCOMPARE(r->latency_budget_ms, 200.0);
        QVERIFY(r->voice);
        QCOMPARE(r->mode, KvSpillMode::Spill);
    }

    void aSlowSataRestoreBreaksTheVoiceBudgetAndIsUnsupported() {
        // Worked example (b): 200 000 B/token, page = 51 200 000 B; SATA restores 250 000 B/ms,
        // so one cold page takes 51 200 000 / 250 000 = 204.8 ms > 200 ms.
        // 262144 tokens = 1024 pages (204 800 000 000 B); 64 MiB holds max(1, 67108864 /
        // 51 200 000 = 1) = 1 page, so 1023 pages (52 377 600 000 B) would spill.
        const auto r = planKvSpill(input(262144, 200000, 64 * MiB, KvRestoreClass::DiskSata,
                                         /*cpu=*/false, /*voice=*/true));
        QVERIFY(r.has_value()); // a refusal is an answer, not an Error
        QCOMPARE(r->mode, KvSpillMode::Unsupported);
        QCOMPARE(r->blocker, KvSpillBlocker::RestoreTooSlow);
        QVERIFY(r->voice);
        QCOMPARE(r->restore_class, KvRestoreClass::DiskSata);
        QCOMPARE(r->tier, KvSpillTier::Disk);
        QCOMPARE(r->page_bytes, Bytes(51200000));
        QVERIFY(qAbs(r->worst_case_restore_ms - 204.8) < 1e-9);
        QVERIFY(r->worst_case_restore_ms > r->latency_budget_ms);
        QCOMPARE(r->resident_pages, std::uint64_t(1));
        QCOMPARE(r->spill_bytes, Bytes(52377600000));
        QCOMPARE(r->context, std::uint64_t(262144));
        QVERIFY(QString::fromStdString(r->message).contains("voice latency budget"));
    }

    void withoutHostRamSpillGoesToDiskAndACpuClassIsRestoredAsNvme() {
        // Same cache as the cpu case, no CPU spill: tier disk, cpu-pcie becomes disk-nvme,
        // restore 512 000 / 1 500 000 = 0.3413 ms, slower than PCIe's 0.0427 ms.
        const auto r = planKvSpill(input(262144, 2000, 64 * MiB, KvRestoreClass::CpuPcie, false));
        QVERIFY(r.has_value());
        QCOMPARE(r->tier, KvSpillTier::Disk);
        QCOMPARE(r->restore_class, KvRestoreClass::DiskNvme);
        QVERIFY(qAbs(r->worst_case_restore_ms - 512000.0 / 1.5e6) < 1e-9);
        QVERIFY(r->worst_case_restore_ms > 512000.0 / 12e6);
        QCOMPARE(r->mode, KvSpillMode::Spill);
    }

    void residentAndSpilledBytesArePageAlignedAndPagesCoverTheContext() {
        // 100 001 tokens → ceil(100001 / 256) = 391 pages of 3000 × 256 = 768 000 B; budget
        // 10 000 000 B holds floor(10 000 000 / 768 000) = 13 pages, 378 spill.
        const auto r = planKvSpill(input(100001, 3000, 10000000));
        QVERIFY(r.has_value());
        QCOMPARE(r->total_pages, std::uint64_t(391));
        QCOMPARE(r->resident_pages + r->spill_pages, std::uint64_t(391));
        QCOMPARE(r->resident_pages, std::uint64_t(13));
        QCOMPARE(r->resident_bytes % r->page_bytes, Bytes(0));
        QCOMPARE(r->spill_bytes % r->page_bytes, Bytes(0));
        QCOMPARE(r->resident_bytes, Bytes(13 * 768000));
        QCOMPARE(r->spill_bytes, Bytes(378 * 768000));
    }

    void aContextBelow64KThatOverrunsTheBudgetIsUnsupportedWithoutTalkingAboutLatency() {
        // 32768 × 4000 B = 131 072 000 B (128 pages of 1 024 000 B) > 64 MiB, but 32768 < 65536:
        // spill is not offered at this length. Resident = the budget, 67 108 864 B; spill = the
        // overrun, 131 072 000 − 67 108 864 = 63 963 136 B; whole pages inside the budget
        // floor(67108864 / 1024000) = 65, so 128 − 65 = 63 pages lie beyond it.
        const auto r = planKvSpill(input(32768, 4000, 64 * MiB));
        QVERIFY(r.has_value());
        QCOMPARE(r->mode, KvSpillMode::Unsupported);
        QCOMPARE(r->blocker, KvSpillBlocker::ContextBelowMinimum);
        QCOMPARE(r->context, std::uint64_t(32768));
        QCOMPARE(r->total_bytes, Bytes(131072000));
        QCOMPARE(r->resident_bytes, Bytes(67108864));
        QCOMPARE(r->spill_bytes, Bytes(63963136));
        QCOMPARE(r->resident_pages, std::uint64_t(65));
        QCOMPARE(r->spill_pages, std::uint64_t(63));
        QCOMPARE(r->worst_case_restore_ms, 0.0);
        const QString msg = QString::fromStdString(r->message);
        QVERIFY(!msg.contains("latency"));
        QVERIFY(msg.contains("32768"));
        QVERIFY(msg.contains("64K"));
    }

    void belowTheMinimumNoCountExceedsTheBudgetAndNothingGoesToDisk() {
        // A budget smaller than one page: 1 000 000 B against 1 024 000 B pages (4000 B × 256).
        // 32768 tokens → 128 pages, 131 072 000 B. No whole page fits, so resident pages = 0 and
        // resident bytes = the budget (never one whole page, which would exceed it); nothing
        // spills anywhere, so there is no tier, and without host RAM the class is not turned
        // into disk-nvme either (it stays the host's cpu-pcie).
        const auto r = planKvSpill(input(32768, 4000, 1000000, KvRestoreClass::CpuPcie, false));
        QVERIFY(r.has_value());
        QCOMPARE(r->mode, KvSpillMode::Unsupported);
        QCOMPARE(r->resident_pages, std::uint64_t(0));
        QCOMPARE(r->spill_pages, std::uint64_t(128));
        QCOMPARE(r->resident_bytes, Bytes(1000000));
        QCOMPARE(r->spill_bytes, Bytes(131072000 - 1000000));
        QVERIFY(r->resident_bytes <= static_cast<Bytes>(r->resident_budget_bytes));
        QCOMPARE(r->tier, KvSpillTier::None);
        QCOMPARE(r->restore_class, KvRestoreClass::CpuPcie);
    }

    void degenerateInputsAreErrorsNamingTheProblem() {
        const auto zeroCtx = planKvSpill(input(0, 2000, 64 * MiB));
        QVERIFY(!zeroCtx.has_value());
        QVERIFY(QString::fromStdString(zeroCtx.error().message).contains("positive context"));
        const auto zeroBpt = planKvSpill(input(65536, 0, 64 * MiB));
        QVERIFY(!zeroBpt.has_value());
        QVERIFY(QString::fromStdString(zeroBpt.error().message).contains("bytes per token"));
        for (SignedBytes budget : {SignedBytes(0), SignedBytes(-1)}) {
            const auto r = planKvSpill(input(65536, 2000, budget));
            QVERIFY(!r.has_value());
            QCOMPARE(r.error().message, std::string("resident KV budget must be positive"));
        }
    }

    void anAbsurdCacheSizeIsAnErrorNotAWrappedNumber() {
        // 2^32 tokens × 2^40 B/token saturates far past 1 PiB.
        const auto r = planKvSpill(input(std::uint64_t(1) << 32, Bytes(1) << 40, 64 * MiB));
        QVERIFY(!r.has_value());
        QCOMPARE(r.error().code, ErrorCode::InvalidArgument);
    }

    void theResidentBudgetIsAQuarterOfTheRecommendedRam() {
        // 9600 MiB × 0.25 = 2400 MiB = 2 516 582 400 B.
        QCOMPARE(residentKvBudget(9600 * MiB), 2400 * MiB);
        QCOMPARE(residentKvBudget(9600 * MiB), Bytes(2516582400));
    }

    void workedExampleAOneMillionTokensOnTheTwoBTierSpillsToCpu() {
        // Recommended 8492 MiB → budget floor(8 904 507 392 × 0.25) = 2 226 126 848 B.
        // 2400 B/token (2B tier): page 614 400 B; 1 048 576 / 256 = 4096 pages, total
        // 2 516 582 400 B > budget → resident floor(2 226 126 848 / 614 400) = 3623 pages,
        // spill 473 pages = 290 611 200 B; PCIe restore 614 400 / 12e6 = 0.0512 ms ≤ 1500.
        const Bytes budget = residentKvBudget(8492 * MiB);
        QCOMPARE(budget, Bytes(2226126848));
        const auto r = planKvSpill(input(1048576, 2400, SignedBytes(budget),
                                         restoreClassFor(KvHostKind::DiscreteGpu), true));
        QVERIFY(r.has_value());
        QCOMPARE(r->page_bytes, Bytes(614400));
        QCOMPARE(r->total_pages, std::uint64_t(4096));
        QCOMPARE(r->total_bytes, Bytes(2516582400));
        QCOMPARE(r->resident_pages, std::uint64_t(3623));
        QCOMPARE(r->spill_pages, std::uint64_t(473));
        QCOMPARE(r->spill_bytes, Bytes(290611200));
        QCOMPARE(r->tier, KvSpillTier::Cpu);
        QVERIFY(qAbs(r->worst_case_restore_ms - 0.0512) < 1e-12);
        QCOMPARE(r->mode, KvSpillMode::Spill);
    }

    void theRestoreClassFollowsTheHost() {
        QCOMPARE(restoreClassFor(KvHostKind::AppleSilicon), KvRestoreClass::CpuApple);
        QCOMPARE(restoreClassFor(KvHostKind::DiscreteGpu), KvRestoreClass::CpuPcie);
        QCOMPARE(restoreClassFor(KvHostKind::CpuOnly), KvRestoreClass::DiskNvme);

        HardwareSnapshot mac;
        mac.gpus.push_back(GpuDevice{});
        mac.gpus[0].backend = "metal";
        mac.gpus[0].integrated = true;
        QCOMPARE(hostKindOf(mac), KvHostKind::AppleSilicon);
        HardwareSnapshot pc;
        pc.gpus.push_back(GpuDevice{}); // cuda, discrete by default
        QCOMPARE(hostKindOf(pc), KvHostKind::DiscreteGpu);
        QCOMPARE(hostKindOf(HardwareSnapshot{}), KvHostKind::CpuOnly);
    }

    void hostRamTakesSpillOnAppleOrWhenItIsTwiceTheResidentBudget() {
        // 2 × 4 GiB = 8 GiB: 8 GiB of RAM is not more than that, 8 GiB + 1 is.
        QVERIFY(!cpuSpillAvailable(KvHostKind::DiscreteGpu, 8 * GiB, 4 * GiB));
        QVERIFY(cpuSpillAvailable(KvHostKind::DiscreteGpu, 8 * GiB + 1, 4 * GiB));
        QVERIFY(cpuSpillAvailable(KvHostKind::AppleSilicon, 1 * GiB, 4 * GiB));
    }
};

QTEST_APPLESS_MAIN(TestPolicyKvSpill)
#include "test_policy_kv_spill.moc"
