#include "policy/expert_split.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace headroom::policy {

namespace {

// 128-bit intermediates: slots × bytes per slot cannot overflow, and a negative budget stays
// negative. Clamped back to 64 bits only for the results.
__extension__ typedef __int128 Wide;

SignedBytes clampSigned(Wide v) {
    if (v > Wide(INT64_MAX)) return INT64_MAX;
    if (v < Wide(INT64_MIN)) return INT64_MIN;
    return static_cast<SignedBytes>(v);
}

Bytes clampBytes(Wide v) {
    if (v < 0) return 0;
    if (v > Wide(UINT64_MAX)) return UINT64_MAX;
    return static_cast<Bytes>(v);
}

SignedBytes ratioOf(double ratio, Bytes free) {
    if (!(ratio > 0)) return 0; // also NaN
    ratio = std::min(ratio, 1.0);
    const double v = std::trunc(ratio * static_cast<double>(free));
    return v >= 9.2e18 ? INT64_MAX : static_cast<SignedBytes>(v);
}

} // namespace

SignedBytes netBudget(double memory_ratio, Bytes baseline_free, Bytes weights, Bytes fixed) {
    return clampSigned(Wide(ratioOf(memory_ratio, baseline_free)) - Wide(weights) - Wide(fixed));
}

SignedBytes startupKvBudget(double memory_ratio, Bytes init_free, Bytes new_free) {
    return clampSigned(Wide(ratioOf(memory_ratio, init_free)) - (Wide(init_free) - Wide(new_free)));
}

Bytes slotBytes(const std::vector<Bytes>& bank_row_bytes) {
    Bytes sum = 0;
    for (Bytes b : bank_row_bytes)
        sum = satAdd(sum, b);
    return sum;
}

std::uint64_t kvReservePages(std::uint64_t reserve_tokens, std::uint64_t page_tokens) {
    return ceilDiv(reserve_tokens, page_tokens);
}

Result<ExpertSplit> planCacheBudget(const ExpertSplitInput& in) {
    if (in.bytes_per_expert == 0)
        return makeError(ErrorCode::InvalidArgument,
                         "expert split needs a positive size per expert slot",
                         "bytes_per_expert 0");
    if (in.bytes_per_page == 0)
        return makeError(ErrorCode::InvalidArgument,
                         "expert split needs a positive size per KV page", "bytes_per_page 0");
    if (in.bytes_per_expert > kMaxPlausibleBytes || in.bytes_per_page > kMaxPlausibleBytes)
        return makeError(ErrorCode::InvalidArgument,
                         "expert slot or KV page size is beyond any plausible size",
                         "bytes_per_expert " + std::to_string(in.bytes_per_expert) +
                             ", bytes_per_page " + std::to_string(in.bytes_per_page));
    if (in.num_experts == 0)
        return makeError(ErrorCode::InvalidArgument,
                         "expert split needs at least one expert per layer", "num_experts 0");

    const std::uint64_t E = in.num_experts;
    const std::uint64_t hi = std::min(in.total_experts, in.max_slots.value_or(in.total_experts));
    if (hi < E)
        return makeError(ErrorCode::InvalidArgument,
                         "expert slot ceiling " + std::to_string(hi) +
                             " is below one layer of experts (" + std::to_string(E) + ")",
                         "total_experts " + std::to_string(in.total_experts) + ", max_slots " +
                             (in.max_slots ? std::to_string(*in.max_slots) : "none"));

    // The prefill double buffer borrows two layers of slots; it is dropped, not failed, when the
    // ceiling cannot hold two layers.
    const Wide twoLayers = Wide(E) * 2;
    bool overlap = in.prefill_overlap && Wide(hi) >= twoLayers;
    const Wide lo = overlap ? twoLayers : Wide(E);

    const Wide budget = in.budget_bytes;
    const Wide bpe = in.bytes_per_expert;
    const Wide bpp = in.bytes_per_page;
    const Wide reserve = in.kv_reserve_pages;

    const Wide spare = budget - reserve * bpp;
    const Wide raw = spare > 0 ? spare / bpe : 0;
    const Wide slots = std::max(lo, std::min(raw, Wide(hi)));
    overlap = overlap && slots >= twoLayers;
    const Wide remaining = budget - slots * bpe;
    const Wide pages = remaining <= 0 ? reserve : std::max(remaining / bpp, reserve);
    const Wide needed = slots * bpe + pages * bpp;

    ExpertSplit s;
    s.applicable = true;
    s.budget_bytes = in.budget_bytes;
    s.bytes_per_expert = in.bytes_per_expert;
    s.bytes_per_page = in.bytes_per_page;
    s.num_experts = E;
    s.total_experts = in.total_experts;
    s.max_slots = hi;
    s.reserve_pages = in.kv_reserve_pages;
    s.expert_slots = static_cast<std::uint64_t>(slots); // ≤ hi
    s.pages = clampBytes(pages);
    s.prefill_overlap = overlap;
    s.needed_bytes = clampBytes(needed);
    s.kv_starved = pages <= 1;
    s.too_small = needed > budget || s.kv_starved;

    const std::string sizes = std::to_string(s.expert_slots) + " expert slots and " +
                              std::to_string(s.pages) + " KV pages";
    if (needed > budget)
        s.message = "the smallest workable split (" + sizes + ") needs " +
                    formatBytes(s.needed_bytes) + " but the GPU budget for experts and KV is " +
                    formatSignedBytes(in.budget_bytes) +
                    "; free GPU memory, reserve fewer KV tokens or keep experts on the host";
    else if (s.kv_starved)
        s.message = "after " + std::to_string(s.expert_slots) + " expert slots (" +
                    formatBytes(clampBytes(slots * bpe)) + ") the KV pool keeps only " +
                    std::to_string(s.pages) + " page(s) of " + formatBytes(in.bytes_per_page) +
                    "; it needs at least 2";
    else
        s.message = sizes + (overlap ? " (prefill double buffer kept)" : "") + " use " +
                    formatBytes(s.needed_bytes) + " of " + formatSignedBytes(in.budget_bytes);
    return s;
}

} // namespace headroom::policy
