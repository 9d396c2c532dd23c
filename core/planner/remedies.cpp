// Remedies: the changes that would make a refused rung run (or a spilled one resident), each
// re-priced with the change applied, and the llama-server flags it applies.
#include "planner.h"
#include "planner/planner_internal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace headroom::detail {

namespace {

// The rung at `ctx` re-planned with `changed`, the way makePlan prices it: in every posture it
// would price (so whichever it chooses, the verdict holds) and through the trained-context gate.
struct Replanned {
    Rung same;        // in the posture of the rung the remedy is for (else the first priced)
    bool runs = true; // non-refused (resident, for a spilled rung) in every posture
    std::string lacks;
};

Replanned replan(const ModelShape& model, const HardwareSnapshot& hw, const MemoryBudget& budget,
                 const PlanOptions& changed, const Rung& rung, std::uint32_t ctx,
                 bool want_resident) {
    Replanned out;
    const std::uint64_t limit = contextLimit(model, changed);
    bool have_same = false;
    bool first = true;
    for (Posture p : posturesFor(model, changed)) {
        const ResolvedOptions ro = resolve(model, changed, hw, p);
        Rung after = planRung(model, ro, budget, hw, ctx, false);
        after.posture = p;
        gateContext(after, limit, false);
        const bool ok =
            want_resident ? after.verdict == Verdict::Resident : after.verdict != Verdict::Refused;
        if (!ok && out.runs) {
            out.runs = false;
            out.lacks = lacksText(after);
        }
        if (first || (!have_same && p == rung.posture)) {
            have_same = p == rung.posture;
            out.same = std::move(after);
        }
        first = false;
    }
    return out;
}

bool blockedByMemory(const Rung& rung) {
    if (!rung.refusal) return rung.verdict == Verdict::Spilled;
    return std::any_of(
        rung.refusal->reasons.begin(), rung.refusal->reasons.end(),
        [](const BlockingReason& r) { return r.code != RefusalCode::ContextTooLong; });
}

std::optional<Remedy> tryRemedy(const ModelShape& model, const HardwareSnapshot& hw,
                                const MemoryBudget& budget, const PlanOptions& o, const Rung& rung,
                                RemedyKind kind, std::string label, PlanOptions changed,
                                std::uint32_t ctx, const ModelShape* other_model = nullptr) {
    const ModelShape& priced = other_model ? *other_model : model;
    if (!validateOptions(priced, changed)) return std::nullopt;
    const bool gpu_view = rung.verdict == Verdict::Spilled;
    const Replanned after = replan(priced, hw, budget, changed, rung, ctx, gpu_view);
    Remedy m;
    m.kind = kind;
    m.label = std::move(label);
    // The flags it applies: what differs between the rung's launch and the launch after it.
    const ResolvedOptions was = resolve(model, o, hw, rung.posture);
    const ResolvedOptions ro = resolve(priced, changed, hw, after.same.posture);
    m.args = changedArgs(launchConfig(o, budget, was.backend, was.flash_attn, rung),
                         launchConfig(changed, budget, ro.backend, ro.flash_attn, after.same));
    // Savings are counted on the budget that refused: one GPU that is too small, or system RAM
    // beside the GPUs, else everything (or, for a spilled rung, the GPUs).
    const Refusal* f = rung.refusal ? &*rung.refusal : nullptr;
    auto onBudget = [&](const Rung& r) -> SignedBytes {
        if (f && f->code == RefusalCode::DeviceTooSmall && f->device >= 0 &&
            static_cast<size_t>(f->device) < r.devices.size())
            return toSigned(r.devices[static_cast<size_t>(f->device)].bytes);
        if (f && f->code == RefusalCode::RamExceeded && !r.devices.empty())
            return toSigned(r.host_bytes);
        if (!gpu_view) return toSigned(r.totals.total());
        SignedBytes s = 0;
        for (const auto& d : r.devices)
            s += toSigned(d.bytes);
        return s;
    };
    m.saves_bytes = onBudget(rung) - onBudget(after.same);
    m.fixes = after.runs;
    if (!m.fixes) m.still_lacks = after.lacks;
    m.options = std::move(changed);
    // A remedy that neither fixes the rung nor clears one of its reasons is noise; so is a memory
    // saving on a rung that only the trained context blocks.
    const size_t reasons_before = rung.refusal ? rung.refusal->reasons.size() : 0;
    const size_t reasons_after = after.same.refusal ? after.same.refusal->reasons.size() : 0;
    if (!m.fixes && !blockedByMemory(rung) && reasons_after >= reasons_before) return std::nullopt;
    if (m.saves_bytes <= 0 && !m.fixes && reasons_after >= reasons_before) return std::nullopt;
    return m;
}

// YaRN as the model card documents it: the smallest whole factor that reaches `ctx` from the
// documented original context, at most the documented factor. nullopt when none does.
std::optional<PlanOptions> yarnFor(const ModelShape& model, const PlanOptions& o,
                                   std::uint32_t ctx) {
    if (model.yarn_factor <= 1 || model.yarn_orig_ctx == 0) return std::nullopt;
    if (ctx <= contextLimit(model, o)) return std::nullopt;
    const double factor =
        std::ceil(static_cast<double>(ctx) / static_cast<double>(model.yarn_orig_ctx));
    if (factor > model.yarn_factor) return std::nullopt;
    PlanOptions c = o;
    c.rope_scaling = RopeScaling::Yarn;
    c.rope_scale = std::max(2.0, factor);
    c.yarn_orig_ctx =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(model.yarn_orig_ctx, UINT32_MAX));
    return c;
}

std::string scaleText(double f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", f);
    return buf;
}

// The launch options that trade memory for nothing but speed or features: a smaller KV cache,
// flash attention, one sequence, the window-sized SWA cache, no projector, the default
// micro-batch.
void addOptionRemedies(std::vector<Remedy>& out, const ModelShape& model,
                       const HardwareSnapshot& hw, const MemoryBudget& budget, const PlanOptions& o,
                       const Rung& rung) {
    auto add = [&](std::optional<Remedy> m) {
        if (m) out.push_back(std::move(*m));
    };
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
}

// The draft model's remedies (-md): the plan without it, its KV cache in q8_0, and its next
// smaller quant, each re-planned like any other remedy.
void addDraftRemedies(std::vector<Remedy>& out, const ModelShape& model, const HardwareSnapshot& hw,
                      const MemoryBudget& budget, const PlanOptions& o, const Rung& rung) {
    if (!o.draft || !o.draft->model || !rung.draft) return;
    const std::uint32_t ctx = rung.requested_context;
    auto add = [&](std::optional<Remedy> m) {
        if (m) out.push_back(std::move(*m));
    };
    PlanOptions without = o;
    without.draft.reset();
    add(tryRemedy(model, hw, budget, o, rung, RemedyKind::DropDraft,
                  "without the draft model (drop -md " + o.draft->model->id + ", " +
                      formatBytes(rung.draft->total()) + ")",
                  without, ctx));
    const ModelShape& dm = *o.draft->model;
    const bool has_kv = std::any_of(dm.layers.begin(), dm.layers.end(),
                                    [](const LayerShape& l) { return l.hasKv(); });
    if (has_kv && o.draft->cache_type_k != GgmlType::Q8_0 &&
        o.draft->cache_type_k != GgmlType::Q4_0) {
        PlanOptions c = o;
        c.draft->cache_type_k = c.draft->cache_type_v = GgmlType::Q8_0;
        c.flash_attn = FlashAttn::On;
        add(tryRemedy(model, hw, budget, o, rung, RemedyKind::DraftCacheQ8,
                      "q8_0 KV cache for the draft (-ctkd q8_0 -ctvd q8_0 -fa on)", c, ctx));
    }
    const QuantSibling* next = nullptr;
    for (const auto& q : dm.siblings)
        if (q.shape && q.file_bytes < dm.file_bytes && (!next || q.file_bytes > next->file_bytes))
            next = &q;
    if (next) {
        PlanOptions c = o;
        c.draft->model = next->shape;
        c.draft->ref = next->shape->source == ShapeSource::GgufHeader ? next->ref : std::string();
        add(tryRemedy(model, hw, budget, o, rung, RemedyKind::SmallerDraft,
                      "a smaller draft quant: " + next->quant + " (" +
                          formatBytes(next->file_bytes) + " file instead of " +
                          formatBytes(dm.file_bytes) + ")",
                      c, ctx));
    }
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
    addOptionRemedies(out, model, hw, budget, o, rung);
    const std::uint32_t ctx = rung.requested_context;
    addDraftRemedies(out, model, hw, budget, o, rung);
    if (rung.verdict == Verdict::Spilled && rung.placement.n_cpu_moe > 0) {
        Remedy m;
        m.kind = RemedyKind::CpuMoe;
        m.label = "--n-cpu-moe " + std::to_string(rung.placement.n_cpu_moe) +
                  " (already applied: experts of the first " +
                  std::to_string(rung.placement.n_cpu_moe) + " blocks run from RAM)";
        m.args = {"--n-cpu-moe", std::to_string(rung.placement.n_cpu_moe)};
        m.saves_bytes = toSigned(rung.placement.spill_bytes);
        // Already part of this placement: applying it again leaves the rung as it is.
        m.fixes = false;
        m.still_lacks = "already applied: the rung still spills";
        m.options = o;
        out.push_back(m);
    }
    if (rung.verdict != Verdict::Resident && blockedByMemory(rung)) {
        // A smaller quant of the same model: the next smaller one the catalog lists or a GGUF
        // beside this one holds, priced with its own shape and file size (never an estimate).
        const QuantSibling* next = nullptr;
        for (const auto& q : model.siblings)
            if (q.shape && q.file_bytes < model.file_bytes &&
                (!next || q.file_bytes > next->file_bytes))
                next = &q;
        if (next) {
            auto m =
                tryRemedy(model, hw, budget, o, rung, RemedyKind::SmallerQuant,
                          "a smaller quant: " + next->quant + " (" + formatBytes(next->file_bytes) +
                              " file instead of " + formatBytes(model.file_bytes) + ")",
                          o, ctx, next->shape.get());
            if (m) {
                m->model_ref = next->ref;
                add(std::move(m));
            }
        }
    }
    if (const auto y = yarnFor(model, o, ctx)) {
        const std::string flags = "--rope-scaling yarn --rope-scale " + scaleText(y->rope_scale) +
                                  " --yarn-orig-ctx " + std::to_string(y->yarn_orig_ctx);
        const size_t singles = out.size();
        add(tryRemedy(model, hw, budget, o, rung, RemedyKind::RopeScalingYarn,
                      "YaRN to " +
                          formatTokens(static_cast<std::uint64_t>(
                              y->rope_scale * static_cast<double>(y->yarn_orig_ctx))) +
                          " as the model card documents (" + flags + ")",
                      *y, ctx));
        // Both the context and memory block: YaRN with each memory remedy, so the list holds a
        // change that keeps the asked-for context and, applied, really runs.
        if (blockedByMemory(rung)) {
            for (size_t i = 0; i < singles; ++i) {
                const Remedy& mem = out[i];
                if (mem.kind == RemedyKind::ShorterContext || mem.kind == RemedyKind::SmallerQuant)
                    continue;
                PlanOptions c = mem.options;
                c.rope_scaling = y->rope_scaling;
                c.rope_scale = y->rope_scale;
                c.yarn_orig_ctx = y->yarn_orig_ctx;
                auto both = tryRemedy(model, hw, budget, o, rung, RemedyKind::RopeScalingYarn,
                                      "YaRN (" + flags + ") with " + mem.label, c, ctx);
                if (both && both->fixes) out.push_back(std::move(*both));
            }
        }
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
            m.fixes = false; // outside the launch: re-plan once it is freed
            m.still_lacks = "not a launch option: re-plan after other programs free it";
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
