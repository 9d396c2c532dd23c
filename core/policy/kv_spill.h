// KV-cache spill planning (docs/sources.md, after elizaOS kv-spill.ts): when the whole
// KV cache does not fit the resident budget, keep as many 256-token pages resident as fit and
// spill the rest to host RAM or disk — but only for long contexts (≥ 64K) and only when restoring
// one cold page stays within the product's latency budget.
#pragma once

#include "hardware.h"
#include "plan.h"
#include "result.h"
#include "units.h"

#include <cstdint>

namespace headroom::policy {

// Spill is offered only from 64K tokens up: a shorter context that does not fit resident means
// the model or device is the wrong one, not that pages should move. Not a knob.
inline constexpr std::uint64_t kKvSpillMinContext = 65536;
// KV moves in pages of 256 tokens (the granularity elizaOS pages at). Not a knob.
inline constexpr std::uint64_t kKvPageTokens = 256;
// Worst-case latency a cold page restore may add to one step: a voice turn must answer within a
// conversational pause (200 ms); a text turn tolerates 1.5 s. Not knobs.
inline constexpr double kVoiceLatencyBudgetMs = 200.0;
inline constexpr double kTextLatencyBudgetMs = 1500.0;
// Restore bandwidth per class in bytes per millisecond (40 000 000 B/ms = 40 GB/s): Apple unified
// memory copy ~40 GB/s, host RAM over PCIe ~12 GB/s, NVMe ~1.5 GB/s, SATA SSD ~0.25 GB/s. Sustained
// figures elizaOS plans with. Not knobs.
inline constexpr double kRestoreBytesPerMsCpuApple = 40'000'000.0;
inline constexpr double kRestoreBytesPerMsCpuPcie = 12'000'000.0;
inline constexpr double kRestoreBytesPerMsDiskNvme = 1'500'000.0;
inline constexpr double kRestoreBytesPerMsDiskSata = 250'000.0;
// A quarter of a model's recommended RAM budget may hold resident KV; the rest is weights,
// runtime and the OS. Not a knob.
inline constexpr double kResidentKvBudgetFraction = 0.25;

struct KvSpillInput {
    std::uint64_t requested_context = 0; // tokens
    Bytes bytes_per_token = 0;           // KV bytes per token, all layers, as cached
    SignedBytes resident_budget_bytes = 0;
    KvRestoreClass restore_class = KvRestoreClass::CpuPcie;
    bool cpu_spill_available = false; // host RAM can take spilled pages (else: disk)
    bool voice = false;               // the 200 ms voice budget instead of the 1.5 s text one
};

// Plans the KV placement. Errors only for inputs that cannot be priced (context or bytes per
// token 0, a resident budget ≤ 0, a cache beyond kMaxPlausibleBytes). A spill that cannot work is
// an answer: mode Unsupported with `blocker`, a message and every number.
//  * whole cache (ceil(ctx / 256) pages × page bytes) ≤ budget → Resident (any context);
//  * context < 64K → Unsupported, ContextBelowMinimum: resident bytes = the budget, spill bytes
//    = the overrun, whole pages inside the budget; no tier (nothing moves) and restore/latency
//    figures stay 0;
//  * else resident pages = max(1, budget / page bytes), the rest spill; tier Cpu when
//    cpu_spill_available, else Disk (a cpu-* class on the disk tier is restored as disk-nvme);
//  * one cold page's restore (page bytes / class bandwidth) > latency budget → Unsupported,
//    RestoreTooSlow; else Spill.
Result<KvSpillPlan> planKvSpill(const KvSpillInput& in);

// Bytes per millisecond a class restores at (the constants above).
double restoreBytesPerMs(KvRestoreClass c);

// floor(ram_budget × 0.25): the resident KV budget derived from a model's recommended RAM.
Bytes residentKvBudget(Bytes recommended_ram_bytes);

// What kind of host the KV would spill from.
enum class KvHostKind { AppleSilicon, DiscreteGpu, CpuOnly };
// Apple Silicon → cpu-apple; a discrete GPU → cpu-pcie (pages cross PCIe); CPU only → disk-nvme
// (there is no faster tier below host RAM).
KvRestoreClass restoreClassFor(KvHostKind host);
// A metal GPU → AppleSilicon; any non-integrated GPU → DiscreteGpu; otherwise (no GPU, or an
// integrated non-Apple GPU whose "host RAM" is the same pool) → CpuOnly.
KvHostKind hostKindOf(const HardwareSnapshot& hw);
// Host RAM can take spilled pages on Apple Silicon, or when RAM exceeds twice the resident
// budget (elizaOS' rule: the spilled pages must not evict the weights).
bool cpuSpillAvailable(KvHostKind host, Bytes ram_total, Bytes resident_budget);

} // namespace headroom::policy
