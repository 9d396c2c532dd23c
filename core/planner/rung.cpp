// Rung pricing: one context priced per term, placed (searched, or the user's pinned placement),
// given a verdict and, for a refusal, the budget and shortfall; plus the per-rung KV-spill and
// expert-split analyses and the speed estimate.
#include "planner/planner_internal.h"
#include "planner/speed_estimate.h"
#include "policy/expert_split.h"
#include "policy/kv_spill.h"
#include "policy/placement.h"
#include "policy/uma.h"

#include <algorithm>

namespace headroom::detail {

// KV paged out to RAM or disk (elizaOS kv-spill): with every weight on the GPUs, the KV the GPUs
// can still hold is the resident budget; the rest would page at 256 tokens, gated by the restore
// latency. On llama.cpp this is --no-kv-offload with --cache-ram; reported per rung.
KvSpillPlan kvSpillFor(const ContextPrice& price, const Assignment& full,
                       const HardwareSnapshot& hw, const MemoryBudget& budget,
                       const ResolvedOptions& opt, std::uint32_t context) {
    KvSpillPlan none;
    if (budget.devices.empty()) {
        none.message = "CPU only: the KV cache already lives in RAM";
        return none;
    }
    const Bytes kv = price.kvTotal();
    if (kv == 0) {
        none.message = "no KV cache (recurrent state only)";
        return none;
    }
    SignedBytes resident = 0;
    for (size_t d = 0; d < full.devices.size(); ++d)
        resident += budget.devices[d].usable -
                    (toSigned(full.devices[d].total()) - toSigned(full.devices[d].kv()));
    if (resident <= 0) {
        none.message = "the weights alone exceed the GPU budget: no room for resident KV pages";
        none.resident_budget_bytes = resident;
        return none;
    }
    policy::KvSpillInput in;
    in.requested_context = context;
    in.bytes_per_token = kvBytesPerToken(price);
    in.resident_budget_bytes = resident;
    const policy::KvHostKind kind = policy::hostKindOf(hw);
    in.restore_class = policy::restoreClassFor(kind);
    in.cpu_spill_available =
        policy::cpuSpillAvailable(kind, hw.ram_total, static_cast<Bytes>(resident));
    in.voice = opt.voice;
    auto plan = policy::planKvSpill(in);
    if (!plan) {
        none.message = plan.error().message;
        return none;
    }
    return *plan;
}

// MoE on a GPU (ferrox/FreeToken split): what is left after everything but the experts and the KV
// goes to experts first, up to full residency, with the rung's whole KV as the reserve floor
// (llama.cpp does not page KV). llama.cpp realises it as --n-cpu-moe.
ExpertSplit expertSplitFor(const ModelShape& model, const ContextPrice& price,
                           const Assignment& full, const MemoryBudget& budget,
                           std::uint32_t context) {
    ExpertSplit none;
    if (!model.isMoe() || budget.devices.empty() || model.bytesPerExpert() == 0) return none;
    SignedBytes net = 0;
    for (size_t d = 0; d < full.devices.size(); ++d)
        net += budget.devices[d].usable -
               (toSigned(full.devices[d].total()) - toSigned(full.devices[d].kv()) -
                toSigned(full.devices[d].experts));
    policy::ExpertSplitInput in;
    in.budget_bytes = net;
    in.bytes_per_expert = model.bytesPerExpert();
    in.bytes_per_page = std::max<Bytes>(1, kvBytesPerToken(price) * policy::kKvPageTokens);
    in.num_experts = model.moe.n_expert;
    in.total_experts = static_cast<std::uint64_t>(model.nMoeLayers()) * model.moe.n_expert;
    in.prefill_overlap = true;
    in.kv_reserve_pages = policy::kvReservePages(context, policy::kKvPageTokens);
    auto split = policy::planCacheBudget(in);
    if (!split) {
        none.message = split.error().message;
        return none;
    }
    ExpertSplit s = *split;
    s.applicable = true;
    return s;
}

namespace {

// A pinned placement that does not fit: name the device (or RAM) and by how much.
// Across hosts: which device has the most room for the layers an overcommitted one must shed, and
// how many (each of the worst device's layers weighs its weights + KV + state over its layers).
std::string moveHint(const Assignment& a, const MemoryBudget& budget,
                     const std::vector<std::uint32_t>& layers, size_t worst, SignedBytes over) {
    if (worst >= layers.size() || layers[worst] == 0) return {};
    const Terms& t = a.devices[worst];
    const Bytes per = satAdd(satAdd(t.weights, t.kv()), t.recurrent_state) / layers[worst];
    if (per == 0) return {};
    int best = -1;
    SignedBytes room = 0;
    for (size_t d = 0; d < a.devices.size(); ++d) {
        const SignedBytes free = budget.devices[d].usable - toSigned(a.devices[d].total());
        if (d != worst && free > room) room = free, best = static_cast<int>(d);
    }
    const Bytes n = (static_cast<Bytes>(over) + per - 1) / per;
    if (best < 0 || toSigned(n * per) > room) return {};
    return "; move " + std::to_string(n) + " layer" + (n == 1 ? "" : "s") + " to " +
           budget.devices[static_cast<size_t>(best)].name + " (" + formatSignedBytes(room) +
           " free there) with -ts";
}

Refusal pinnedRefusal(const Assignment& a, const MemoryBudget& budget,
                      const std::vector<std::uint32_t>& layers, bool detail) {
    Refusal f;
    int worst = -1;
    SignedBytes worst_over = 0;
    for (size_t d = 0; d < a.devices.size(); ++d) {
        const SignedBytes over = toSigned(a.devices[d].total()) - budget.devices[d].usable;
        if (over > worst_over) worst_over = over, worst = static_cast<int>(d);
    }
    if (worst >= 0) {
        const auto& dev = budget.devices[static_cast<size_t>(worst)];
        f.code = RefusalCode::DeviceOvercommitted;
        f.budget = BudgetName::Vram;
        f.device = worst;
        f.needed_bytes = a.devices[static_cast<size_t>(worst)].total();
        f.available_bytes = std::max<SignedBytes>(0, dev.usable);
        // needed - available, both as reported: a budget below 0 is reported as 0 room.
        f.shortfall_bytes = toSigned(f.needed_bytes) - f.available_bytes;
        if (detail) {
            f.message = "the pinned placement overcommits GPU " + std::to_string(worst) + " (" +
                        dev.name + ") by " + formatBytes(static_cast<Bytes>(f.shortfall_bytes)) +
                        ": it needs " + formatBytes(f.needed_bytes) + " of " +
                        formatSignedBytes(f.available_bytes) + " usable" +
                        moveHint(a, budget, layers, static_cast<size_t>(worst), worst_over);
            f.terms = termLines(a.devices[static_cast<size_t>(worst)]);
        }
        return f;
    }
    f.code = RefusalCode::RamExceeded;
    f.budget = BudgetName::Ram;
    f.needed_bytes = a.host.total();
    f.available_bytes = std::max<SignedBytes>(0, budget.ram_usable);
    f.shortfall_bytes = std::max<SignedBytes>(0, toSigned(f.needed_bytes) - f.available_bytes);
    if (detail) {
        f.message = "the pinned placement leaves " + formatBytes(f.needed_bytes) +
                    " in system RAM but only " + formatSignedBytes(f.available_bytes) +
                    " is usable (" + formatBytes(static_cast<Bytes>(f.shortfall_bytes)) + " short)";
        f.terms = termLines(a.host);
    }
    return f;
}

// A searched placement that does not fit: the budget that binds, with numbers that agree with
// each other (needed > available, shortfall = needed - available, a budget below 0 counted as 0
// room). The sum of every budget binds only when the rung exceeds it; otherwise that sum has room
// the placement cannot use, and the budget that overflows is named instead: a GPU that cannot
// hold what llama.cpp keeps on it even with every layer in system RAM (`a` is then the -ngl 0
// placement, the search's last resort), or system RAM at the smallest move that fits the GPUs.
Refusal memoryRefusal(const Assignment& a, const Terms& totals, const MemoryBudget& budget,
                      std::uint32_t context, bool detail) {
    Refusal f;
    f.needed_bytes = totals.total();
    const auto room = [](SignedBytes usable) { return std::max<SignedBytes>(0, usable); };
    SignedBytes available = room(budget.ram_usable);
    for (const auto& d : budget.devices)
        available = satAddSigned(available, room(d.usable));
    if (budget.unknown) {
        f.code = RefusalCode::MemoryUnknown;
        f.budget = BudgetName::MemoryUnknown;
        available = 0; // nothing is known to be free
    } else if (budget.uma) {
        f.code = RefusalCode::UmaPoolExceeded;
        f.budget = BudgetName::UmaPool;
        available = budget.devices.empty() ? 0 : room(budget.devices[0].usable);
    } else if (budget.devices.empty()) {
        f.code = RefusalCode::RamExceeded;
        f.budget = BudgetName::Ram;
    } else {
        f.code = RefusalCode::VramRamExceeded;
        f.budget = BudgetName::VramRam;
    }
    int worst = -1;
    SignedBytes worst_over = 0;
    if (!budget.unknown && !budget.uma && toSigned(f.needed_bytes) <= available) {
        for (size_t d = 0; d < a.devices.size(); ++d) {
            const SignedBytes over =
                toSigned(a.devices[d].total()) - room(budget.devices[d].usable);
            if (over > worst_over) worst_over = over, worst = static_cast<int>(d);
        }
        if (worst >= 0) {
            f.code = RefusalCode::DeviceTooSmall;
            f.budget = BudgetName::Vram;
            f.device = worst;
            f.needed_bytes = a.devices[static_cast<size_t>(worst)].total();
            available = room(budget.devices[static_cast<size_t>(worst)].usable);
        } else {
            f.code = RefusalCode::RamExceeded;
            f.budget = BudgetName::Ram;
            f.needed_bytes = a.host.total();
            available = room(budget.ram_usable);
        }
    }
    f.available_bytes = available;
    f.shortfall_bytes = std::max<SignedBytes>(0, toSigned(f.needed_bytes) - available);
    if (!detail) return f; // message and terms are for people; a remedy's re-pricing needs numbers
    if (f.code == RefusalCode::MemoryUnknown) {
        f.message = "free memory could not be read right now, so no launch is planned on a guess";
        f.terms = termLines(totals);
    } else if (f.code == RefusalCode::DeviceTooSmall) {
        const DeviceBudget& dev = budget.devices[static_cast<size_t>(worst)];
        f.message = "GPU " + std::to_string(worst) + " (" + dev.name + ", " +
                    formatBytes(dev.total) + ") is too small: with every layer in system RAM " +
                    "(-ngl 0) llama.cpp still keeps " + formatBytes(f.needed_bytes) +
                    " on it, and it has " + formatSignedBytes(available) + " usable after its " +
                    formatBytes(dev.margin) + " margin (" + formatSignedBytes(f.shortfall_bytes) +
                    " short)";
        f.terms = termLines(a.devices[static_cast<size_t>(worst)]);
    } else if (f.budget == BudgetName::Ram && !budget.devices.empty()) {
        f.message = formatTokens(context) + " leaves " + formatBytes(f.needed_bytes) +
                    " in system RAM beside what the GPUs hold, but ram has " +
                    formatSignedBytes(available) + " usable (" +
                    formatSignedBytes(f.shortfall_bytes) + " short)";
        f.terms = termLines(a.host);
    } else {
        f.message = formatTokens(context) + " needs " + formatBytes(f.needed_bytes) + " but " +
                    budgetName(f.budget) + " has " + formatSignedBytes(available) + " usable (" +
                    formatSignedBytes(f.shortfall_bytes) + " short)";
        f.terms = termLines(totals);
    }
    return f;
}

// Where the rung's placement puts each layer and expert, as the plan and the launch report it.
void describePlacement(Placement& p, const ModelShape& model, const ResolvedOptions& opt,
                       const MemoryBudget& budget, const PlacementChoice& choice, bool pinned,
                       Bytes spill_bytes) {
    const std::uint32_t n_layer_all = model.nLayer();
    p.gpu_layers = choice.ngl;
    p.n_cpu_moe = choice.n_cpu_moe;
    p.kv_offload = opt.kv_offload;
    p.spill_bytes = spill_bytes;
    for (size_t il = 0; il < choice.ffn_host.size(); ++il)
        if (choice.ffn_host[il]) p.ffn_blocks_to_host.push_back(static_cast<std::uint32_t>(il));
    p.override_tensor = policy::hybridFfnOverride(p.ffn_blocks_to_host);
    p.pinned = pinned;
    p.split_mode = choice.split_mode;
    // -sm tensor's default is an equal split (llama_meta_device_get_split_state with no -ts), so
    // nothing is written for it.
    p.tensor_split = choice.split.empty() && budget.devices.size() > 1 &&
                             choice.split_mode != SplitMode::None &&
                             choice.split_mode != SplitMode::Tensor
                         ? plannedSplit(budget)
                         : choice.split;
    const bool tensor = choice.split_mode == SplitMode::Tensor;
    const std::vector<double> cumulative =
        choice.split_mode == SplitMode::None || tensor
            ? std::vector<double>(budget.devices.size(), 1.0)
            : cumulativeSplit(p.tensor_split, budget.devices.size());
    p.device_layers.assign(budget.devices.size(), 0);
    for (std::uint32_t il = 0; il <= n_layer_all; ++il) {
        int d = layerDevice(il, n_layer_all, choice.ngl, cumulative, opt.ngl_counts_output);
        if (d >= 0 && choice.split_mode == SplitMode::Row) d = 0;
        if (d >= 0 && tensor) {
            // Every device holds a share of every layer on the Meta device.
            for (auto& n : p.device_layers)
                ++n;
        } else if (d >= 0) {
            ++p.device_layers[static_cast<size_t>(d)];
        } else {
            ++p.host_layers;
        }
    }
    if (model.isMoe()) {
        const Bytes per_layer = model.moe.n_expert;
        for (std::uint32_t il = 0; il < n_layer_all; ++il) {
            if (model.layers[il].experts_bytes == 0 || (model.layers[il].is_mtp && !opt.mtp))
                continue;
            const bool host =
                il < choice.n_cpu_moe ||
                (il < choice.moves.size() && choice.moves[il].expert_parts >= 3) ||
                layerDevice(il, n_layer_all, choice.ngl, cumulative, opt.ngl_counts_output) < 0;
            (host ? p.expert_slots_host : p.expert_slots_gpu) += per_layer;
        }
    }
}

} // namespace

Rung planRung(const ModelShape& model, const ResolvedOptions& opt, const MemoryBudget& budget,
              const HardwareSnapshot& hw, std::uint64_t requested_ctx, bool detail) {
    Rung r;
    r.requested_context =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(requested_ctx, UINT32_MAX));
    ContextPrice price = priceContext(model, opt, requested_ctx);
    r.context = price.geometry.n_ctx;
    r.n_ubatch = price.geometry.n_ubatch;
    if (opt.draft_model && opt.draft) {
        // The draft is placed by its own flags whatever the target's placement, so it is priced
        // once and every placement of the target is searched beside it.
        r.draft = priceDraft(*opt.draft_model, *opt.draft, budget, r.context);
        for (const Terms& t : r.draft->devices)
            price.draft_devices.push_back(t.total());
        price.draft_host = r.draft->host.total();
    }
    const std::uint32_t ngl_all = model.nLayer() + 1;
    const bool pinned = opt.pinned.pinsPlacement() && !budget.devices.empty() && !budget.uma;

    PlacementChoice choice;
    choice.ngl = budget.devices.empty() ? 0 : ngl_all;
    Assignment a = assign(model, price, opt, budget, choice);
    const Assignment full = a; // everything offloaded: the reference for the KV and expert splits
    bool ok = fits(a, budget);
    bool resident = ok;

    if (pinned) {
        // The user's placement, priced as given; `-ngl auto` among the pins searches the count.
        choice = pinnedChoice(model, opt, budget);
        a = assign(model, price, opt, budget, choice);
        if (opt.pinned.gpu_layers && opt.pinned.gpu_layers->kind == GpuLayers::Kind::Auto &&
            !devicesFit(a, budget) && !budget.unknown)
            searchLayerCount(model, price, opt, budget, choice, a);
        ok = fits(a, budget);
        resident = ok && a.spill_bytes == 0;
    } else if (!ok && !budget.devices.empty() && !budget.uma && !budget.unknown) {
        // Every axis of the search is monotone (more experts or fewer layers on the CPU never
        // needs more VRAM), so the smallest move that fits is found by bisection.
        ok = searchPlacement(model, price, opt, budget, choice, a);
        ok = ok && toSigned(a.host.total()) <= budget.ram_usable;
    }

    r.totals = sumTerms(a);
    for (size_t d = 0; d < a.devices.size(); ++d) {
        DeviceUse u;
        u.name = budget.devices[d].name;
        u.rpc_endpoint = budget.devices[d].rpc_endpoint;
        u.terms = a.devices[d];
        u.bytes = u.terms.total();
        u.budget_bytes = budget.devices[d].usable;
        r.devices.push_back(u);
    }
    r.host = a.host;
    r.host_bytes = a.host.total();
    r.host_budget_bytes = budget.uma ? 0 : budget.ram_usable;
    describePlacement(r.placement, model, opt, budget, choice, pinned, a.spill_bytes);

    r.verdict = ok ? (resident ? Verdict::Resident : Verdict::Spilled) : Verdict::Refused;
    if (!ok && pinned && !budget.unknown) {
        r.refusal = pinnedRefusal(a, budget, r.placement.device_layers, detail);
    } else if (!ok) {
        r.refusal = memoryRefusal(a, r.totals, budget, r.context, detail);
    }
    // Unified memory: a plan that fits the pool must still leave the OS its floor (Hermes
    // estimator revision 5eca89b5, UMA OS-floor gate). With the 80 % pool share it cannot bite
    // today (20 % left always exceeds min(16 GiB, max(3 GiB, 10 %))); it stays as the guard if
    // that share ever changes.
    if (r.verdict == Verdict::Resident && budget.uma && !budget.devices.empty()) {
        const policy::OsFloorCheck os =
            policy::checkOsFloor(budget.uma_pool_total, r.totals.total());
        if (!os.ok) {
            r.verdict = Verdict::Refused;
            Refusal f;
            f.code = RefusalCode::OsFloor;
            f.budget = BudgetName::OsFloor;
            f.needed_bytes = r.totals.total();
            f.available_bytes = toSigned(budget.uma_pool_total) - toSigned(os.floor);
            f.shortfall_bytes =
                std::max<SignedBytes>(0, toSigned(f.needed_bytes) - f.available_bytes);
            f.terms = termLines(r.totals);
            f.message = "would leave " + formatSignedBytes(os.left) + " of the " +
                        formatBytes(budget.uma_pool_total) + " pool for the OS (floor " +
                        formatBytes(os.floor) + "): the machine would swap";
            r.refusal = f;
        }
    }
    if (r.refusal && r.refusal->reasons.empty())
        r.refusal->reasons.push_back({r.refusal->code, r.refusal->budget, r.refusal->message});
    if (!detail) return r;
    r.kv_spill = kvSpillFor(price, full, hw, budget, opt, r.context);
    r.expert_split = expertSplitFor(model, price, full, budget, r.context);
    r.speed = estimateSpeed(model, a, hw, budget, r.n_ubatch, r.context, opt.backend);
    addNetworkTime(r.speed, model, r.placement, budget, hw, r.n_ubatch);
    addSpeculation(r.speed, model, opt, r.draft ? &*r.draft : nullptr, hw, budget, r.n_ubatch,
                   r.context);
    return r;
}

void gateContext(Rung& r, std::uint64_t limit, bool detail) {
    if (r.requested_context <= limit) return;
    // Beyond the trained context llama.cpp runs but warns ("possible training context overflow");
    // quality is not guaranteed, so we refuse rather than plan it silently.
    const std::string message = detail ? formatTokens(r.requested_context) +
                                             " is beyond the model's trained context of " +
                                             formatTokens(limit)
                                       : std::string();
    if (r.refusal) {
        // Already refused for memory: the context is a further reason, not a replacement, so a
        // remedy for one of them is never shown as fixing the rung.
        r.refusal->needed_tokens = r.requested_context;
        r.refusal->available_tokens = limit;
        r.refusal->reasons.push_back(
            {RefusalCode::ContextTooLong, BudgetName::TrainedContext, message});
        return;
    }
    Refusal f;
    f.code = RefusalCode::ContextTooLong;
    f.budget = BudgetName::TrainedContext;
    // Tokens, not bytes: the byte fields stay 0 (no memory budget was exceeded).
    f.needed_tokens = r.requested_context;
    f.available_tokens = limit;
    f.message = message;
    f.reasons.push_back({f.code, f.budget, message});
    r.refusal = f;
    r.verdict = Verdict::Refused;
}

std::string lacksText(const Rung& r) {
    if (!r.refusal) return r.verdict == Verdict::Spilled ? "weights still spill to RAM" : "";
    std::string s;
    for (const BlockingReason& why : r.refusal->reasons) {
        std::string part;
        if (why.code == RefusalCode::ContextTooLong)
            part = "past the trained context (" + formatTokens(r.refusal->available_tokens) + ")";
        else if (why.code == RefusalCode::MemoryUnknown)
            part = "free memory unknown";
        else
            part = std::string(budgetName(why.budget)) + " " +
                   formatSignedBytes(r.refusal->shortfall_bytes) + " short";
        s += (s.empty() ? "" : "; ") + part;
    }
    return s;
}

} // namespace headroom::detail
