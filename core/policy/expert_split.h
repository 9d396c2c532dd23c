// Expert-cache / KV-pool split (docs/sources.md, after ferrox expert_budget.rs ⇐
// FreeToken cache_budget.py): for an engine that keeps a GPU cache of MoE expert slots next to a
// paged KV pool, the KV pool first keeps its reserve, experts then fill up to full residency (or
// the backend's slot ceiling), and KV takes whatever is left. Experts come first because a slot
// short costs a PCIe transfer on every token, while a KV page short costs one queued request.
#pragma once

#include "plan.h"
#include "result.h"
#include "units.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace headroom::policy {

// trunc(memory_ratio × baseline_free) − weights − fixed: what the GPU has for experts + KV.
// Signed: an over-committed GPU gives a negative budget, never a wrapped huge one. The ratio is
// clamped to [0, 1] (NaN reads as 0). Computed in double and truncated toward zero, as ferrox
// does.
SignedBytes netBudget(double memory_ratio, Bytes baseline_free, Bytes weights, Bytes fixed);

// trunc(memory_ratio × init_free) − (init_free − new_free): the KV budget left after loading,
// pricing what the load really consumed (free memory before minus after). Signed.
SignedBytes startupKvBudget(double memory_ratio, Bytes init_free, Bytes new_free);

// One expert slot costs the sum of that expert's row over every weight bank (gate, up, down, …);
// fixed per-model tensors are not part of it. Empty → 0. Saturating.
Bytes slotBytes(const std::vector<Bytes>& bank_row_bytes);

// ceil(reserve_tokens / page_tokens): the KV reserve in pages (page_tokens 0 → 0).
std::uint64_t kvReservePages(std::uint64_t reserve_tokens, std::uint64_t page_tokens);

struct ExpertSplitInput {
    SignedBytes budget_bytes = 0;    // netBudget(): may be negative
    Bytes bytes_per_expert = 0;      // slotBytes() of one (layer, expert)
    Bytes bytes_per_page = 0;        // KV bytes per token × page tokens
    std::uint64_t num_experts = 0;   // routed experts per layer
    std::uint64_t total_experts = 0; // MoE layers × num_experts = full residency
    bool prefill_overlap = true;     // ask for the prefill double buffer (2 layers of slots)
    std::uint64_t kv_reserve_pages = 0;
    std::optional<std::uint64_t> max_slots; // backend kernel slot limit (nullopt: none)
};

// The split, exactly as ferrox plans it:
//   hi = min(total, max_slots); overlap = asked and hi ≥ 2E; lo = overlap ? 2E : E
//   spare = budget − reserve × page; raw = spare > 0 ? spare / slot : 0
//   slots = max(lo, min(raw, hi)); remaining = budget − slots × slot
//   pages = remaining ≤ 0 ? reserve : max(remaining / page, reserve)
//   too_small when slots × slot + pages × page > budget, or pages ≤ 1 (kv_starved).
// too_small is an answer (with needed_bytes and the sizes), not an Error. Errors, where ferrox
// would panic: bytes per expert or per page 0, no experts per layer, a ceiling (total or
// max_slots) below one layer of experts, sizes beyond kMaxPlausibleBytes.
Result<ExpertSplit> planCacheBudget(const ExpertSplitInput& in);

} // namespace headroom::policy
