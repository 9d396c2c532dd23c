#include "policy/variant.h"

#include "policy/ladder.h"
#include "policy/speed.h"

#include <algorithm>

namespace headroom::policy {

namespace {
bool within(Bytes need, SignedBytes available) {
    return available >= 0 && need <= static_cast<Bytes>(available);
}

SignedBytes sum(SignedBytes a, SignedBytes b) {
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}
} // namespace

const char* variantReasonName(VariantReason r) {
    switch (r) {
    case VariantReason::BestLargeWindow:
        return "best-large-window";
    case VariantReason::BestFits:
        return "best-fits";
    case VariantReason::SmallestFitsSpilled:
        return "smallest-fits-spilled";
    }
    return "?";
}

const char* recommendReasonName(RecommendReason r) {
    switch (r) {
    case RecommendReason::BestQualityResident:
        return "best-quality-resident";
    case RecommendReason::SpeedGatedQuality:
        return "speed-gated-quality";
    case RecommendReason::FastestResident:
        return "fastest-resident";
    case RecommendReason::LeastPainfulSpilled:
        return "least-painful-spilled";
    }
    return "?";
}

Result<std::optional<VariantChoice>> selectVariant(const std::vector<VariantCandidate>& candidates,
                                                   const VariantNeed& need,
                                                   const VariantBudget& budget) {
    if (!need)
        return makeError(ErrorCode::InvalidArgument,
                         "variant selection needs a pricing function for the candidates");
    const std::uint64_t native = budget.n_ctx_train ? budget.n_ctx_train : kFloorWindow;
    const auto target = static_cast<std::uint32_t>(std::min<std::uint64_t>(kTargetWindow, native));
    const auto floor = static_cast<std::uint32_t>(std::min<std::uint64_t>(kFloorWindow, native));

    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const Bytes n = need(i, target);
        if (within(n, budget.usable_vram))
            return std::optional<VariantChoice>(
                VariantChoice{i, true, VariantReason::BestLargeWindow, target, n});
    }
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const Bytes n = need(i, floor);
        if (within(n, budget.usable_vram))
            return std::optional<VariantChoice>(
                VariantChoice{i, true, VariantReason::BestFits, floor, n});
    }
    if (candidates.empty()) return std::optional<VariantChoice>();
    const auto smallest = static_cast<std::size_t>(
        std::min_element(candidates.begin(), candidates.end(),
                         [](const VariantCandidate& a, const VariantCandidate& b) {
                             return a.size_bytes < b.size_bytes;
                         }) -
        candidates.begin());
    const Bytes n = need(smallest, floor);
    if (within(n, sum(budget.usable_vram, budget.ram_available)))
        return std::optional<VariantChoice>(
            VariantChoice{smallest, false, VariantReason::SmallestFitsSpilled, floor, n});
    return std::optional<VariantChoice>();
}

std::optional<Recommendation> recommendedEntry(const std::vector<EntryCandidate>& entries) {
    std::optional<std::size_t> pick, fastestResident, fastestFitting;
    double bestResidentQuality = -1e300;
    bool anyResident = false;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const EntryCandidate& e = entries[i];
        if (!e.fits) continue;
        if (!fastestFitting || e.decode_tok_s > entries[*fastestFitting].decode_tok_s)
            fastestFitting = i;
        if (!e.zero_spill) continue;
        anyResident = true;
        bestResidentQuality = std::max(bestResidentQuality, e.quality);
        if (!fastestResident || e.decode_tok_s > entries[*fastestResident].decode_tok_s)
            fastestResident = i;
        if (e.decode_tok_s < kPleasantTokS) continue;
        const bool better =
            !pick || e.quality > entries[*pick].quality ||
            (e.quality == entries[*pick].quality && e.size_bytes < entries[*pick].size_bytes);
        if (better) pick = i;
    }
    if (pick)
        return Recommendation{*pick, bestResidentQuality > entries[*pick].quality
                                         ? RecommendReason::SpeedGatedQuality
                                         : RecommendReason::BestQualityResident};
    if (anyResident) return Recommendation{*fastestResident, RecommendReason::FastestResident};
    if (fastestFitting)
        return Recommendation{*fastestFitting, RecommendReason::LeastPainfulSpilled};
    return std::nullopt;
}

} // namespace headroom::policy
