// Catalog choices (docs/sources.md, Hermes select_variant / recommended_entry): which
// quant of a model to offer on this machine, and which model to recommend by default. Pricing is
// the caller's (a callable), so the policy is the same for catalog priors and GGUF headers.
#pragma once

#include "result.h"
#include "units.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace headroom::policy {

enum class VariantReason { BestLargeWindow, BestFits, SmallestFitsSpilled };
// "best-large-window" | "best-fits" | "smallest-fits-spilled"
const char* variantReasonName(VariantReason r);

struct VariantCandidate {
    std::string label;    // "Q4_K_M"
    Bytes size_bytes = 0; // file bytes (the "smallest" order)
};

struct VariantBudget {
    SignedBytes usable_vram = 0;   // capacity budget (UMA: the usable pool)
    SignedBytes ram_available = 0; // spill room (0 on UMA)
    std::uint64_t n_ctx_train = 0; // 0 = unknown: the floor stands in for native
};

// What candidate `index` needs at `window` tokens: weights + overhead + context memory.
using VariantNeed = std::function<Bytes(std::size_t index, std::uint32_t window)>;

struct VariantChoice {
    std::size_t index = 0;
    bool zero_spill = false;
    VariantReason reason = VariantReason::BestFits;
    std::uint32_t window = 0; // the window it was priced at
    Bytes needed_bytes = 0;   // need(index, window)
};

// Candidates are ordered best first (highest quality quant first). With native = n_ctx_train
// (or the floor), target = min(kTargetWindow, native), floor = min(kFloorWindow, native):
//  1. the first candidate with need(target) ≤ usable_vram → BestLargeWindow (resident);
//  2. else the first with need(floor) ≤ usable_vram → BestFits (resident);
//  3. else the smallest file, if need(floor) ≤ usable_vram + ram_available →
//     SmallestFitsSpilled (weights spill);
//  4. else nullopt: even spilled it does not fit (physics refuses).
// Error when `need` is missing.
Result<std::optional<VariantChoice>> selectVariant(const std::vector<VariantCandidate>& candidates,
                                                   const VariantNeed& need,
                                                   const VariantBudget& budget);

enum class RecommendReason {
    BestQualityResident,
    SpeedGatedQuality,
    FastestResident,
    LeastPainfulSpilled
};
// "best-quality-resident" | "speed-gated-quality" | "fastest-resident" | "least-painful-spilled"
const char* recommendReasonName(RecommendReason r);

struct EntryCandidate {
    std::string id;
    bool fits = false;       // selectVariant gave a choice
    bool zero_spill = false; // that choice is resident
    double quality = 0;      // catalog quality score, higher is better
    Bytes size_bytes = 0;    // of the chosen variant
    double decode_tok_s = 0; // predicted at the chosen placement (spilled when it spills)
};

struct Recommendation {
    std::size_t index = 0;
    RecommendReason reason = RecommendReason::BestQualityResident;
};

// Among fitting entries: resident ones at ≥ kPleasantTokS are "pleasant"; if any, the best by
// (quality, then smaller size) — SpeedGatedQuality when some resident entry of higher quality
// was passed over for being slower, else BestQualityResident. Else the fastest resident entry
// (FastestResident). Else the fastest fitting one (LeastPainfulSpilled). nullopt when nothing
// fits. Ties keep the earlier entry.
std::optional<Recommendation> recommendedEntry(const std::vector<EntryCandidate>& entries);

} // namespace headroom::policy
