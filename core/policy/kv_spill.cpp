#include "policy/kv_spill.h"

#include "backend/backend.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace headroom::policy {

namespace {

std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

bool isCpuClass(KvRestoreClass c) {
    return c == KvRestoreClass::CpuApple || c == KvRestoreClass::CpuPcie;
}

} // namespace

double restoreBytesPerMs(KvRestoreClass c) {
    switch (c) {
    case KvRestoreClass::CpuApple:
        return kRestoreBytesPerMsCpuApple;
    case KvRestoreClass::CpuPcie:
        return kRestoreBytesPerMsCpuPcie;
    case KvRestoreClass::DiskNvme:
        return kRestoreBytesPerMsDiskNvme;
    case KvRestoreClass::DiskSata:
        return kRestoreBytesPerMsDiskSata;
    }
    return kRestoreBytesPerMsDiskSata;
}

Bytes residentKvBudget(Bytes recommended_ram_bytes) {
    // long double holds a 64-bit integer exactly, so × 0.25 then truncation is exact.
    return static_cast<Bytes>(static_cast<long double>(recommended_ram_bytes) *
                              kResidentKvBudgetFraction);
}

KvRestoreClass restoreClassFor(KvHostKind host) {
    switch (host) {
    case KvHostKind::AppleSilicon:
        return KvRestoreClass::CpuApple;
    case KvHostKind::DiscreteGpu:
        return KvRestoreClass::CpuPcie;
    case KvHostKind::CpuOnly:
        return KvRestoreClass::DiskNvme;
    }
    return KvRestoreClass::DiskNvme;
}

KvHostKind hostKindOf(const HardwareSnapshot& hw) {
    for (const GpuDevice& g : hw.gpus)
        if (backendFromName(g.backend) == Backend::Metal) return KvHostKind::AppleSilicon;
    for (const GpuDevice& g : hw.gpus)
        if (!g.integrated) return KvHostKind::DiscreteGpu;
    return KvHostKind::CpuOnly;
}

bool cpuSpillAvailable(KvHostKind host, Bytes ram_total, Bytes resident_budget) {
    return host == KvHostKind::AppleSilicon || ram_total > satMul(2, resident_budget);
}

Result<KvSpillPlan> planKvSpill(const KvSpillInput& in) {
    if (in.requested_context == 0 || in.bytes_per_token == 0)
        return makeError(ErrorCode::InvalidArgument,
                         "KV spill planning needs a positive context and bytes per token",
                         "context " + std::to_string(in.requested_context) + ", bytes per token " +
                             std::to_string(in.bytes_per_token));
    if (in.resident_budget_bytes <= 0)
        return makeError(ErrorCode::InvalidArgument, "resident KV budget must be positive",
                         "resident_budget_bytes " + std::to_string(in.resident_budget_bytes));

    KvSpillPlan p;
    p.context = in.requested_context;
    p.voice = in.voice;
    p.page_tokens = kKvPageTokens;
    p.restore_class = in.restore_class;
    p.resident_budget_bytes = in.resident_budget_bytes;
    p.latency_budget_ms = in.voice ? kVoiceLatencyBudgetMs : kTextLatencyBudgetMs;
    p.page_bytes = satMul(in.bytes_per_token, kKvPageTokens);
    p.total_pages = ceilDiv(in.requested_context, kKvPageTokens);
    p.total_bytes = satMul(p.total_pages, p.page_bytes);
    if (p.total_bytes > kMaxPlausibleBytes)
        return makeError(ErrorCode::InvalidArgument,
                         "KV cache of " + std::to_string(in.requested_context) + " tokens at " +
                             std::to_string(in.bytes_per_token) +
                             " bytes per token is beyond any plausible size",
                         "limit " + formatBytes(kMaxPlausibleBytes));

    const Bytes budget = static_cast<Bytes>(in.resident_budget_bytes);
    if (p.total_bytes <= budget) {
        p.mode = KvSpillMode::Resident;
        p.resident_pages = p.total_pages;
        p.resident_bytes = p.total_bytes;
        p.message = "the whole KV cache (" + formatBytes(p.total_bytes) +
                    ") fits the resident budget of " + formatBytes(budget);
        return p;
    }

    const std::string ctx = std::to_string(in.requested_context);
    if (in.requested_context < kKvSpillMinContext) {
        // Below the minimum nothing spills (elizaOS planKvSpill step 3 runs before pages are
        // aligned and a tier is chosen): the budget is what may stay resident and the rest is the
        // overrun, in bytes. Counting pages here would report a resident page larger than a budget
        // smaller than one page, and a disk tier for a cache that goes nowhere.
        p.mode = KvSpillMode::Unsupported;
        p.blocker = KvSpillBlocker::ContextBelowMinimum;
        p.latency_budget_ms = 0; // no latency question is asked below the minimum
        p.resident_bytes = budget;
        p.spill_bytes = p.total_bytes - budget;
        p.resident_pages = budget / p.page_bytes; // whole pages inside the budget
        p.spill_pages = p.total_pages - p.resident_pages;
        p.message = "the KV cache of a " + ctx + "-token context needs " +
                    formatBytes(p.total_bytes) + " but only " + formatBytes(budget) +
                    " may stay resident, and KV spill is offered only from 64K tokens up; use a "
                    "shorter context, a smaller model or a machine with more memory";
        return p;
    }

    // At least one page stays resident: the page being written.
    p.resident_pages = std::max<std::uint64_t>(1, budget / p.page_bytes);
    p.spill_pages = p.total_pages - std::min(p.resident_pages, p.total_pages);
    p.resident_bytes = satMul(p.resident_pages, p.page_bytes);
    p.spill_bytes = satMul(p.spill_pages, p.page_bytes);
    p.tier = in.cpu_spill_available ? KvSpillTier::Cpu : KvSpillTier::Disk;
    // Without host RAM to take them, pages go to disk: a CPU-memory restore class would be a lie.
    if (p.tier == KvSpillTier::Disk && isCpuClass(p.restore_class))
        p.restore_class = KvRestoreClass::DiskNvme;

    // One cold page is the most a step ever waits for: pages are restored as they are touched.
    p.worst_case_restore_ms =
        static_cast<double>(p.page_bytes) / restoreBytesPerMs(p.restore_class);
    const char* kind = in.voice ? "voice" : "text";
    if (p.worst_case_restore_ms > p.latency_budget_ms) {
        p.mode = KvSpillMode::Unsupported;
        p.blocker = KvSpillBlocker::RestoreTooSlow;
        p.message =
            std::string("spilling the KV cache of a ") + ctx + "-token context breaks the " + kind +
            " latency budget: restoring one cold page from " + kvRestoreClassName(p.restore_class) +
            " takes " + fmt("%.1f", p.worst_case_restore_ms) + " ms against " +
            fmt("%.0f", p.latency_budget_ms) + " ms (" + formatBytes(p.spill_bytes) +
            " would spill); use a shorter context, more RAM or faster storage";
        return p;
    }

    p.mode = KvSpillMode::Spill;
    p.message = std::to_string(p.spill_pages) + " of " + std::to_string(p.total_pages) +
                " KV pages (" + formatBytes(p.spill_bytes) + ") spill to " +
                kvSpillTierName(p.tier) + "; a cold page restores in " +
                fmt("%.3f", p.worst_case_restore_ms) + " ms, within the " + kind + " budget of " +
                fmt("%.0f", p.latency_budget_ms) + " ms";
    return p;
}

} // namespace headroom::policy
