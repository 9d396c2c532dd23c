// Remedies: the changes that would make a refused rung run (or a spilled one resident), each
// re-priced with the change applied, and the llama-server flags it applies.
#include "planner.h"
#include "planner/planner_internal.h"

#include <algorithm>

namespace headroom::detail {

namespace {

std::optional<Remedy> tryRemedy(const ModelShape& model, const HardwareSnapshot& hw,
                                const MemoryBudget& budget, const PlanOptions& o, const Rung& rung,
                                RemedyKind kind, std::string label, PlanOptions changed,
                                std::uint32_t ctx) {
    if (!validateOptions(model, changed)) return std::nullopt;
    const ResolvedOptions ro = resolve(model, changed, hw, rung.posture);
    Rung after = planRung(model, ro, budget, hw, ctx, false);
    after.posture = rung.posture;
    Remedy m;
    m.kind = kind;
    m.label = std::move(label);
    // The flags it applies: what differs between the rung's launch and the launch after it.
    const ResolvedOptions was = resolve(model, o, hw, rung.posture);
    m.args = changedArgs(launchConfig(o, budget, was.backend, was.flash_attn, rung),
                         launchConfig(changed, budget, ro.backend, ro.flash_attn, after));
    const bool gpu_view = rung.verdict == Verdict::Spilled;
    auto onBudget = [&](const Rung& r) -> SignedBytes {
        if (!gpu_view) return toSigned(r.totals.total());
        SignedBytes s = 0;
        for (const auto& d : r.devices)
            s += toSigned(d.bytes);
        return s;
    };
    m.saves_bytes = onBudget(rung) - onBudget(after);
    m.fixes = gpu_view ? after.verdict == Verdict::Resident : after.verdict != Verdict::Refused;
    m.options = std::move(changed);
    if (m.saves_bytes <= 0 && !m.fixes) return std::nullopt;
    return m;
}

} // namespace

std::vector<Remedy> remediesFor(const ModelShape& model, const HardwareSnapshot& hw,
                                const MemoryBudget& budget, const PlanOptions& o,
                                const std::vector<Rung>& rungs, const Rung& rung) {
    std::vector<Remedy> out;
    auto add = [&](std::optional<Remedy> m) {
        if (m) out.push_back(std::move(*m));
    };
    const Verdict want = rung.verdict == Verdict::Spilled ? Verdict::Resident : Verdict::Spilled;
    // Shorter context: the largest ladder rung below this one that reaches the wanted verdict.
    for (auto it = rungs.rbegin(); it != rungs.rend(); ++it) {
        if (it->requested_context >= rung.requested_context || !it->on_ladder) continue;
        const bool good = want == Verdict::Resident ? it->verdict == Verdict::Resident
                                                    : it->verdict != Verdict::Refused;
        if (!good) continue;
        PlanOptions c = o;
        c.context = it->requested_context;
        add(tryRemedy(model, hw, budget, o, rung, RemedyKind::ShorterContext,
                      "shorter context: -c " + std::to_string(it->requested_context), c,
                      it->requested_context));
        break;
    }
    const bool has_kv = std::any_of(model.layers.begin(), model.layers.end(),
                                    [](const LayerShape& l) { return l.hasKv(); });
    const std::uint32_t ctx = rung.requested_context;
    if (has_kv && o.cache_type_k != GgmlType::Q8_0 && o.cache_type_k != GgmlType::Q4_0) {
        PlanOptions c = o;
        c.cache_type_k = c.cache_type_v = GgmlType::Q8_0;
        c.flash_attn = FlashAttn::On;
        add(tryRemedy(model, hw, budget, o, rung, RemedyKind::KvCacheQ8,
                      "q8_0 KV cache (-ctk q8_0 -ctv q8_0 -fa on)", c, ctx));
    }
    if (has_kv && o.cache_type_k != GgmlType::Q4_0) {
        PlanOptions c = o;
        c.cache_type_k = c.cache_type_v = GgmlType::Q4_0;
        c.flash_attn = FlashAttn::On;
        add(tryRemedy(model, hw, budget, o, rung, RemedyKind::KvCacheQ4,
                      "q4_0 KV cache (-ctk q4_0 -ctv q4_0 -fa on)", c, ctx));
    }
    if (o.flash_attn == FlashAttn::Off) {
        PlanOptions c = o;
        c.flash_attn = FlashAttn::On;
        add(tryRemedy(model, hw, budget, o, rung, RemedyKind::FlashAttention,
                      "flash attention (-fa on)", c, ctx));
    }
    if (o.n_parallel > 1) {
        PlanOptions c = o;
        c.n_parallel = 1;
        add(tryRemedy(model, hw, budget, o, rung, RemedyKind::FewerSequences,
                      "one sequence (-np 1)", c, ctx));
    }
    if (o.swa_full) {
        PlanOptions c = o;
        c.swa_full = false;
        add(tryRemedy(model, hw, budget, o, rung, RemedyKind::SwaCacheDefault,
                      "window-sized SWA cache (drop --swa-full)", c, ctx));
    }
    if (o.mmproj || o.mmproj_bytes) {
        PlanOptions c = o;
        c.mmproj = false;
        c.mmproj_bytes.reset();
        add(tryRemedy(model, hw, budget, o, rung, RemedyKind::DropMmproj,
                      "no vision projector (drop --mmproj)", c, ctx));
    }
    if (rung.n_ubatch > llama::kDefaultUbatch) {
        PlanOptions c = o;
        c.n_ubatch = llama::kDefaultUbatch;
        c.ubatch_set = true;
        add(tryRemedy(model, hw, budget, o, rung, RemedyKind::SmallerUbatch,
                      "smaller micro-batch (-ub " + std::to_string(llama::kDefaultUbatch) + ")", c,
                      ctx));
    }
    if (rung.verdict == Verdict::Spilled && rung.placement.n_cpu_moe > 0) {
        Remedy m;
        m.kind = RemedyKind::CpuMoe;
        m.label = "--n-cpu-moe " + std::to_string(rung.placement.n_cpu_moe) +
                  " (already applied: experts of the first " +
                  std::to_string(rung.placement.n_cpu_moe) + " blocks run from RAM)";
        m.args = {"--n-cpu-moe", std::to_string(rung.placement.n_cpu_moe)};
        m.saves_bytes = toSigned(rung.placement.spill_bytes);
        m.fixes = true;
        m.options = o;
        out.push_back(m);
    }
    if (rung.verdict == Verdict::Refused && rung.refusal && rung.refusal->shortfall_bytes > 0) {
        // A smaller quant: ~4.8 -> ~3.9 bits per weight (Q4_K_M -> Q3_K_M) saves about a fifth of
        // the weights. ESTIMATE: the catalog or the file of the smaller quant has the real size.
        Remedy m;
        m.kind = RemedyKind::SmallerQuant;
        const Bytes saves = rung.totals.weights / 5;
        m.label = "a smaller quant (e.g. Q4_K_M -> Q3_K_M, about 20 % smaller weights, estimate)";
        m.saves_bytes = toSigned(saves);
        m.fixes = m.saves_bytes >= rung.refusal->shortfall_bytes;
        m.options = o;
        out.push_back(m);
    }
    if (budget.kind == BudgetKind::Live || hasLiveFigures(hw)) {
        SignedBytes held = 0;
        for (const auto& g : hw.gpus)
            if (g.free_bytes) held += toSigned(g.total_bytes) - toSigned(*g.free_bytes);
        if (held > 0 && rung.verdict != Verdict::Resident) {
            Remedy m;
            m.kind = RemedyKind::FreeGpuMemory;
            m.label = "free " + formatBytes(static_cast<Bytes>(held)) +
                      " of GPU memory other programs hold";
            m.saves_bytes = held;
            m.fixes = false;
            m.options = o;
            out.push_back(m);
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const Remedy& a, const Remedy& b) {
        if (a.fixes != b.fixes) return a.fixes;
        return a.saves_bytes > b.saves_bytes;
    });
    return out;
}

} // namespace headroom::detail
