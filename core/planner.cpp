#include "planner.h"

#include "planner/speed_estimate.h"
#include "planner_internal.h"
#include "policy/expert_split.h"
#include "policy/kv_spill.h"
#include "policy/ladder.h"
#include "policy/placement.h"
#include "policy/speed.h"
#include "policy/uma.h"
#include "pricing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace headroom {

namespace {

using policy::contextLadder;
using policy::kFloorWindow;

std::string gib(Bytes b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(b) / GiB);
    return buf;
}

} // namespace

namespace detail {

namespace {

Bytes runtimeOverhead(Backend b) {
    switch (b) {
    case Backend::Cuda:
        return kCudaRuntimeOverhead;
    case Backend::Vulkan:
        return kVulkanRuntimeOverhead;
    case Backend::Metal:
        return kMetalRuntimeOverhead;
    default:
        return 0;
    }
}

// Which device llama.cpp gives layer `il` (llama_model::load_tensors: i_gpu_start =
// max(n_layer_all + 1 - n_gpu_layers, 0), the output counting as layer n_layer_all, then
// upper_bound over the cumulative tensor split). -1 = CPU.
int layerDevice(std::uint32_t il, std::uint32_t n_layer_all, std::uint32_t ngl,
                const std::vector<double>& splits) {
    if (splits.empty()) return -1;
    const std::int64_t start =
        std::max<std::int64_t>(static_cast<std::int64_t>(n_layer_all) + 1 - ngl, 0);
    const std::int64_t act =
        std::min<std::int64_t>(ngl, static_cast<std::int64_t>(n_layer_all) + 1);
    if (static_cast<std::int64_t>(il) < start || static_cast<std::int64_t>(il) - start >= act)
        return -1;
    if (splits.size() == 1) return 0;
    const double f =
        static_cast<double>(static_cast<std::int64_t>(il) - start) / static_cast<double>(act);
    const auto it = std::upper_bound(splits.begin(), splits.end(), f);
    return static_cast<int>(std::min<std::ptrdiff_t>(
        it - splits.begin(), static_cast<std::ptrdiff_t>(splits.size()) - 1));
}

// llama.cpp's default tensor split follows each device's free memory (llama_model_load: splits
// from ggml_backend_dev_memory); we split by usable budget, which is the same proportion.
std::vector<double> cumulativeSplits(const MemoryBudget& budget) {
    std::vector<double> s;
    double sum = 0;
    for (const auto& d : budget.devices)
        sum += std::max<double>(0, static_cast<double>(d.usable));
    double acc = 0;
    for (const auto& d : budget.devices) {
        acc += sum > 0 ? std::max<double>(0, static_cast<double>(d.usable)) / sum
                       : 1.0 / budget.devices.size();
        s.push_back(acc);
    }
    return s;
}

} // namespace

Assignment assign(const ModelShape& model, const ContextPrice& price, const ResolvedOptions& opt,
                  const MemoryBudget& budget, const PlacementChoice& choice) {
    Assignment a;
    const size_t n_dev = budget.devices.size();
    a.devices.assign(n_dev, Terms{});
    const std::vector<double> splits = cumulativeSplits(budget);
    const std::uint32_t n_layer_all = model.nLayer();
    std::vector<bool> dev_has_layers(n_dev, false);
    bool host_has_layers = false;

    for (std::uint32_t il = 0; il < n_layer_all; ++il) {
        const LayerPrice& lp = price.layers[il];
        const int d = layerDevice(il, n_layer_all, choice.ngl, splits);
        Terms& t = d >= 0 ? a.devices[d] : a.host;
        if (d >= 0)
            dev_has_layers[d] = true;
        else
            host_has_layers = true;
        Bytes w = lp.weights;
        const bool experts_host = lp.experts > 0 && il < choice.n_cpu_moe;
        const bool ffn_host = il < choice.ffn_host.size() && choice.ffn_host[il];
        if (d >= 0 && experts_host) {
            w -= lp.experts;
            a.host.weights = satAdd(a.host.weights, lp.experts);
            a.host.experts = satAdd(a.host.experts, lp.experts);
            a.spill_bytes = satAdd(a.spill_bytes, lp.experts);
        } else {
            t.experts = satAdd(t.experts, lp.experts);
        }
        if (d >= 0 && ffn_host) {
            const Bytes moved = lp.ffn;
            w -= moved;
            a.host.weights = satAdd(a.host.weights, moved);
            a.spill_bytes = satAdd(a.spill_bytes, moved);
        }
        t.weights = satAdd(t.weights, w);
        if (d < 0 && n_dev > 0) a.spill_bytes = satAdd(a.spill_bytes, lp.weights);
        // KV and recurrent state live with their layer unless KV offload is off
        // (llama_kv_cache ctor: offload ? model.dev_layer(il) : CPU).
        t.kv_k = satAdd(t.kv_k, lp.kv_k);
        t.kv_v = satAdd(t.kv_v, lp.kv_v);
        t.recurrent_state = satAdd(t.recurrent_state, lp.state);
    }
    const int out_dev = layerDevice(n_layer_all, n_layer_all, choice.ngl, splits);
    a.output_on_gpu = out_dev >= 0;
    Terms& out = out_dev >= 0 ? a.devices[out_dev] : a.host;
    // A tied output head is the token embedding loaded a second time for the output layer's
    // device (TENSOR_DUPLICATED in llama_model::load_tensors); on the CPU it is the same tensor,
    // so only that copy is dropped: output_norm (part of output_weights) is still loaded.
    const Bytes output_weights = (out_dev < 0 && model.output_tied_to_embd)
                                     ? satSub(price.output_weights, price.token_embd)
                                     : price.output_weights;
    out.weights = satAdd(out.weights, satAdd(output_weights, price.other_weights));
    if (out_dev < 0 && n_dev > 0)
        a.spill_bytes = satAdd(a.spill_bytes, satAdd(output_weights, price.other_weights));
    // The input layer (token embeddings) always stays on the CPU (llama_model::load_tensors:
    // dev_input = cpu_dev).
    a.host.weights = satAdd(a.host.weights, price.token_embd);

    // Compute buffers: one per backend that runs part of the graph.
    for (size_t d = 0; d < n_dev; ++d) {
        a.devices[d].compute = price.computeFor(dev_has_layers[d], static_cast<int>(d) == out_dev);
        a.devices[d].overhead = runtimeOverhead(opt.backend);
    }
    if (n_dev == 0) {
        a.host.compute = price.computeFor(true, true);
    } else {
        a.host.compute = (host_has_layers || out_dev < 0)
                             ? price.computeFor(host_has_layers, out_dev < 0)
                             : price.compute_host;
    }
    Terms& mtp_home = out_dev >= 0 ? a.devices[out_dev] : a.host;
    mtp_home.compute = satAdd(mtp_home.compute, price.compute_mtp);
    mtp_home.kv_k = satAdd(mtp_home.kv_k, price.mtp_kv_k);
    mtp_home.kv_v = satAdd(mtp_home.kv_v, price.mtp_kv_v);
    // The projector is loaded by libmtmd on the main GPU when there is one.
    (n_dev > 0 ? a.devices[0] : a.host).mmproj = price.mmproj;
    // Logits are copied out of the graph into a host buffer (llama_context::output_reserve).
    a.host.output = price.output;
    return a;
}

bool fits(const Assignment& a, const MemoryBudget& budget) {
    if (budget.unknown) return false;
    if (budget.uma) {
        // One pool: what llama.cpp calls "host" memory comes out of the same RAM.
        const Bytes need = satAdd(a.devices.empty() ? 0 : a.devices[0].total(), a.host.total());
        return !budget.devices.empty() && toSigned(need) <= budget.devices[0].usable;
    }
    for (size_t d = 0; d < a.devices.size(); ++d)
        if (toSigned(a.devices[d].total()) > budget.devices[d].usable) return false;
    return toSigned(a.host.total()) <= budget.ram_usable;
}

namespace {

bool devicesFit(const Assignment& a, const MemoryBudget& budget) {
    for (size_t d = 0; d < a.devices.size(); ++d)
        if (toSigned(a.devices[d].total()) > budget.devices[d].usable) return false;
    return true;
}

Terms sumTerms(const Assignment& a) {
    Terms t = a.host;
    for (const auto& d : a.devices)
        t += d;
    return t;
}

std::vector<TermLine> termLines(const Terms& t) {
    std::vector<TermLine> lines;
    auto add = [&](const char* label, Bytes b) {
        if (b > 0) lines.push_back({label, b});
    };
    add("weights", t.weights);
    add("KV cache (K)", t.kv_k);
    add("KV cache (V)", t.kv_v);
    add("recurrent state", t.recurrent_state);
    add("compute buffers (estimate)", t.compute);
    add("output buffer", t.output);
    add("runtime overhead (estimate)", t.overhead);
    add("multimodal projector", t.mmproj);
    return lines;
}

SignedBytes deviceOverflow(const Assignment& a, const MemoryBudget& budget) {
    SignedBytes over = 0;
    for (size_t d = 0; d < a.devices.size(); ++d)
        over =
            std::max<SignedBytes>(over, toSigned(a.devices[d].total()) - budget.devices[d].usable);
    return over;
}

} // namespace

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

Rung planRung(const ModelShape& model, const ResolvedOptions& opt, const MemoryBudget& budget,
              const HardwareSnapshot& hw, std::uint64_t requested_ctx, bool detail) {
    Rung r;
    r.requested_context =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(requested_ctx, UINT32_MAX));
    const ContextPrice price = priceContext(model, opt, requested_ctx);
    r.context = price.geometry.n_ctx;
    r.n_ubatch = price.geometry.n_ubatch;
    const std::uint32_t n_layer_all = model.nLayer();
    const std::uint32_t ngl_all = n_layer_all + 1;

    PlacementChoice choice;
    choice.ngl = budget.devices.empty() ? 0 : ngl_all;
    Assignment a = assign(model, price, opt, budget, choice);
    const Assignment full = a; // everything offloaded: the reference for the KV and expert splits
    bool ok = fits(a, budget);
    bool resident = ok;

    if (!ok && !budget.devices.empty() && !budget.uma && !budget.unknown) {
        // Both axes below are monotone (more experts or fewer layers on the CPU never needs more
        // VRAM), so the smallest move that fits is found by bisection: O(layers log layers).
        auto smallestFitting = [&](std::uint32_t lo, std::uint32_t hi, auto&& apply) -> bool {
            // Finds the smallest k in [lo, hi] whose apply(k) fits; leaves `a`/`choice` there.
            apply(hi);
            if (!devicesFit(assign(model, price, opt, budget, choice), budget)) return false;
            while (lo < hi) {
                const std::uint32_t mid = lo + (hi - lo) / 2;
                apply(mid);
                if (devicesFit(assign(model, price, opt, budget, choice), budget))
                    hi = mid;
                else
                    lo = mid + 1;
            }
            apply(hi);
            a = assign(model, price, opt, budget, choice);
            return true;
        };
        // 1. MoE: keep the experts of the first N blocks in RAM (--n-cpu-moe N), smallest N.
        if (model.isMoe()) {
            ok = smallestFitting(1, n_layer_all, [&](std::uint32_t n) { choice.n_cpu_moe = n; });
            if (!ok) choice.n_cpu_moe = n_layer_all;
        } else if (model.hasRecurrent()) {
            // 2. Hybrid: move the FFNs of the fewest recurrent blocks that cover the overflow.
            const SignedBytes over = deviceOverflow(a, budget);
            choice.ffn_host.assign(n_layer_all, false);
            for (std::uint32_t b : policy::recurrentSpillBlocks(
                     model, static_cast<Bytes>(std::max<SignedBytes>(0, over))))
                choice.ffn_host[b] = true;
            a = assign(model, price, opt, budget, choice);
            ok = devicesFit(a, budget);
            if (!ok) choice.ffn_host.clear();
        }
        // 3. Otherwise llama.cpp's only axis: fewer offloaded layers (the first blocks stay on
        // the CPU). k layers kept on the CPU = ngl_all - k offloaded.
        if (!ok) {
            ok = smallestFitting(0, ngl_all, [&](std::uint32_t k) { choice.ngl = ngl_all - k; });
            if (!ok) {
                choice.ngl = 0;
                a = assign(model, price, opt, budget, choice);
            }
        }
        ok = ok && toSigned(a.host.total()) <= budget.ram_usable;
    }

    r.totals = sumTerms(a);
    for (size_t d = 0; d < a.devices.size(); ++d) {
        DeviceUse u;
        u.name = budget.devices[d].name;
        u.terms = a.devices[d];
        u.bytes = u.terms.total();
        u.budget_bytes = budget.devices[d].usable;
        r.devices.push_back(u);
    }
    r.host = a.host;
    r.host_bytes = a.host.total();
    r.host_budget_bytes = budget.uma ? 0 : budget.ram_usable;
    r.placement.gpu_layers = choice.ngl;
    r.placement.n_cpu_moe = choice.n_cpu_moe;
    r.placement.spill_bytes = a.spill_bytes;
    for (size_t il = 0; il < choice.ffn_host.size(); ++il)
        if (choice.ffn_host[il])
            r.placement.ffn_blocks_to_host.push_back(static_cast<std::uint32_t>(il));
    r.placement.override_tensor = policy::hybridFfnOverride(r.placement.ffn_blocks_to_host);
    if (model.isMoe()) {
        const std::vector<double> splits = cumulativeSplits(budget);
        const Bytes per_layer = model.moe.n_expert;
        for (std::uint32_t il = 0; il < n_layer_all; ++il) {
            if (model.layers[il].experts_bytes == 0 || (model.layers[il].is_mtp && !opt.mtp))
                continue;
            const bool host =
                il < choice.n_cpu_moe || layerDevice(il, n_layer_all, choice.ngl, splits) < 0;
            (host ? r.placement.expert_slots_host : r.placement.expert_slots_gpu) += per_layer;
        }
    }

    r.verdict = ok ? (resident ? Verdict::Resident : Verdict::Spilled) : Verdict::Refused;
    if (!ok) {
        Refusal f;
        const Bytes needed = r.totals.total();
        SignedBytes available = budget.ram_usable;
        for (const auto& d : budget.devices)
            available += d.usable;
        if (budget.unknown) {
            f.code = RefusalCode::MemoryUnknown;
            f.budget = BudgetName::MemoryUnknown;
        } else if (budget.uma) {
            f.code = RefusalCode::UmaPoolExceeded;
            f.budget = BudgetName::UmaPool;
            available = budget.devices.empty() ? 0 : budget.devices[0].usable;
        } else if (budget.devices.empty()) {
            f.code = RefusalCode::RamExceeded;
            f.budget = BudgetName::Ram;
        } else {
            f.code = RefusalCode::VramRamExceeded;
            f.budget = BudgetName::VramRam;
        }
        f.needed_bytes = needed;
        f.available_bytes = available;
        f.shortfall_bytes = toSigned(needed) - available;
        if (!detail) {
            // message and terms are for people; a remedy's re-pricing needs the numbers only
        } else if (f.code == RefusalCode::MemoryUnknown)
            f.message =
                "free memory could not be read right now, so no launch is planned on a guess";
        else
            f.message = formatTokens(r.context) + " needs " + gib(needed) + " but " +
                        budgetName(f.budget) + " has " + formatSignedBytes(available) +
                        " usable (" + formatSignedBytes(f.shortfall_bytes) + " short)";
        if (detail) f.terms = termLines(r.totals);
        r.refusal = f;
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
            f.shortfall_bytes = toSigned(f.needed_bytes) - f.available_bytes;
            f.terms = termLines(r.totals);
            f.message = "would leave " + formatSignedBytes(os.left) + " of the " +
                        formatBytes(budget.uma_pool_total) + " pool for the OS (floor " +
                        formatBytes(os.floor) + "): the machine would swap";
            r.refusal = f;
        }
    }
    if (!detail) return r;
    r.kv_spill = kvSpillFor(price, full, hw, budget, opt, r.context);
    r.expert_split = expertSplitFor(model, price, full, budget, r.context);
    r.speed = estimateSpeed(model, a, hw, budget, r.n_ubatch, r.context, opt.backend);
    return r;
}

} // namespace detail

namespace {

using detail::planRung;

ResolvedOptions resolve(const ModelShape& model, const PlanOptions& o, const HardwareSnapshot& hw,
                        Posture posture) {
    ResolvedOptions r;
    if (o.backend != Backend::Auto)
        r.backend = o.backend;
    else if (hw.gpus.empty())
        r.backend = Backend::Cpu;
    else
        r.backend = hw.gpus[0].backend == "metal"    ? Backend::Metal
                    : hw.gpus[0].backend == "vulkan" ? Backend::Vulkan
                                                     : Backend::Cuda;
    // -fa auto: llama.cpp enables flash attention when the device supports the op for the model's
    // head sizes (llama_context ctor, "auto" resolution); the CPU, CUDA, Metal and Vulkan backends
    // all do for the architectures we price, so auto resolves to on.
    r.flash_attn = o.flash_attn != FlashAttn::Off;
    r.type_k = o.cache_type_k;
    r.type_v = o.cache_type_v;
    r.n_batch = o.n_batch;
    r.n_ubatch = o.n_ubatch;
    r.n_seq = std::max<std::uint32_t>(1, o.n_parallel);
    r.kv_unified = o.kv_unified;
    r.swa_full = o.swa_full;
    r.voice = o.latency == LatencyProfile::Voice;
    r.mtp = posture != Posture::Plain;
    if (r.mtp && !o.ubatch_set) {
        // Hermes postures: lean decodes with the default 512 ubatch, stacked prefills with 2048.
        r.n_ubatch = posture == Posture::Stacked ? 2048 : 512;
        r.n_batch = std::max(r.n_batch, posture == Posture::Stacked ? 4096u : r.n_batch);
    }
    if (o.mmproj || o.mmproj_bytes) r.mmproj_bytes = o.mmproj_bytes.value_or(model.mmproj_bytes);
    return r;
}

struct PostureResult {
    Posture posture = Posture::Plain;
    std::vector<Rung> rungs; // ladder rungs (+ exact -c), ascending
    Decision initial;        // before a requested window is restored
    Decision decision;
};

Bytes ctxBytes(const Rung& r) {
    return satAdd(r.totals.kv(), r.totals.recurrent_state);
}

// Hermes initial_window over our priced rungs: the largest zero-spill rung from the bottom, else
// the floor held with spill and grown while KV stays under 15 % of VRAM and VRAM + RAM holds.
Decision initialWindow(const std::vector<Rung>& rungs, const std::vector<bool>& on_ladder,
                       const MemoryBudget& budget) {
    Decision d;
    int first = -1;
    for (size_t i = 0; i < rungs.size(); ++i)
        if (on_ladder[i]) {
            first = static_cast<int>(i);
            break;
        }
    if (first < 0) return d;
    if (rungs[first].verdict == Verdict::Refused) {
        d.refused = true;
        d.context = rungs[first].context;
        d.rung_index = first;
        d.reasons.push_back(
            "the " + formatTokens(rungs[first].requested_context) +
            " floor does not fit with these options; the floor is the smallest window planned");
        return d;
    }
    int best = -1;
    for (size_t i = first; i < rungs.size(); ++i) {
        if (!on_ladder[i]) continue;
        if (rungs[i].verdict != Verdict::Resident) break;
        best = static_cast<int>(i);
    }
    if (best >= 0) {
        d.rung_index = best;
        d.reasons.push_back("largest zero-spill rung (" +
                            formatTokens(rungs[best].requested_context) + ")");
    } else {
        const SignedBytes cap = static_cast<SignedBytes>(
            detail::kSpillKvCapFraction *
            static_cast<double>(std::max<SignedBytes>(0, budget.vramUsable())));
        int w = first;
        for (size_t i = first + 1; i < rungs.size(); ++i) {
            if (!on_ladder[i]) continue;
            if (toSigned(ctxBytes(rungs[i])) > cap || rungs[i].verdict == Verdict::Refused) break;
            w = static_cast<int>(i);
        }
        d.rung_index = w;
        d.reasons.push_back("floor held at " + formatTokens(rungs[first].requested_context) +
                            (w != first
                                 ? " and grown to " + formatTokens(rungs[w].requested_context)
                                 : std::string()) +
                            "; weights spill (deliberate price of the guarantee)");
    }
    const Rung& r = rungs[d.rung_index];
    d.context = r.context;
    d.spilled = r.verdict == Verdict::Spilled;
    d.spill_bytes = r.placement.spill_bytes;
    d.kv_on_gpu = r.placement.kv_offload && !budget.devices.empty();
    return d;
}

int findRung(const std::vector<Rung>& rungs, std::uint32_t requested) {
    for (size_t i = 0; i < rungs.size(); ++i)
        if (rungs[i].requested_context == requested) return static_cast<int>(i);
    return -1;
}

// Re-prices one rung with changed options and reports what the change saves on the budget that
// refused (or on the GPUs, for a spilled rung) and whether the rung then runs.
std::optional<Remedy> tryRemedy(const ModelShape& model, const HardwareSnapshot& hw,
                                const MemoryBudget& budget, const Rung& rung, RemedyKind kind,
                                std::string label, PlanOptions changed, std::uint32_t ctx) {
    if (!validateOptions(model, changed)) return std::nullopt;
    const ResolvedOptions ro = resolve(model, changed, hw, rung.posture);
    const Rung after = planRung(model, ro, budget, hw, ctx, false);
    Remedy m;
    m.kind = kind;
    m.label = std::move(label);
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
        add(tryRemedy(model, hw, budget, rung, RemedyKind::ShorterContext,
                      "shorter context: -c " + std::to_string(it->requested_context), c,
                      it->requested_context));
        break;
    }
    bool has_kv = false;
    for (const auto& l : model.layers)
        has_kv = has_kv || l.attention == AttentionKind::Full ||
                 l.attention == AttentionKind::SlidingWindow || l.attention == AttentionKind::Mla;
    const std::uint32_t ctx = rung.requested_context;
    if (has_kv && o.cache_type_k != GgmlType::Q8_0 && o.cache_type_k != GgmlType::Q4_0) {
        PlanOptions c = o;
        c.cache_type_k = c.cache_type_v = GgmlType::Q8_0;
        c.flash_attn = FlashAttn::On;
        add(tryRemedy(model, hw, budget, rung, RemedyKind::KvCacheQ8,
                      "q8_0 KV cache (-ctk q8_0 -ctv q8_0 -fa on)", c, ctx));
    }
    if (has_kv && o.cache_type_k != GgmlType::Q4_0) {
        PlanOptions c = o;
        c.cache_type_k = c.cache_type_v = GgmlType::Q4_0;
        c.flash_attn = FlashAttn::On;
        add(tryRemedy(model, hw, budget, rung, RemedyKind::KvCacheQ4,
                      "q4_0 KV cache (-ctk q4_0 -ctv q4_0 -fa on)", c, ctx));
    }
    if (o.flash_attn == FlashAttn::Off) {
        PlanOptions c = o;
        c.flash_attn = FlashAttn::On;
        add(tryRemedy(model, hw, budget, rung, RemedyKind::FlashAttention,
                      "flash attention (-fa on)", c, ctx));
    }
    if (o.n_parallel > 1) {
        PlanOptions c = o;
        c.n_parallel = 1;
        add(tryRemedy(model, hw, budget, rung, RemedyKind::FewerSequences, "one sequence (-np 1)",
                      c, ctx));
    }
    if (o.swa_full) {
        PlanOptions c = o;
        c.swa_full = false;
        add(tryRemedy(model, hw, budget, rung, RemedyKind::SwaCacheDefault,
                      "window-sized SWA cache (drop --swa-full)", c, ctx));
    }
    if (o.mmproj || o.mmproj_bytes) {
        PlanOptions c = o;
        c.mmproj = false;
        c.mmproj_bytes.reset();
        add(tryRemedy(model, hw, budget, rung, RemedyKind::DropMmproj,
                      "no vision projector (drop --mmproj)", c, ctx));
    }
    if (rung.n_ubatch > 512) {
        PlanOptions c = o;
        c.n_ubatch = 512;
        c.ubatch_set = true;
        add(tryRemedy(model, hw, budget, rung, RemedyKind::SmallerUbatch,
                      "smaller micro-batch (-ub 512)", c, ctx));
    }
    if (rung.verdict == Verdict::Spilled && rung.placement.n_cpu_moe > 0) {
        Remedy m;
        m.kind = RemedyKind::CpuMoe;
        m.label = "--n-cpu-moe " + std::to_string(rung.placement.n_cpu_moe) +
                  " (already applied: experts of the first " +
                  std::to_string(rung.placement.n_cpu_moe) + " blocks run from RAM)";
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

std::vector<std::string> launchArgs(const Plan& plan, const Rung& r) {
    const PlanOptions& o = plan.options;
    std::vector<std::string> a;
    auto add = [&](std::initializer_list<std::string> xs) { a.insert(a.end(), xs); };
    add({"-c", std::to_string(r.requested_context)});
    add({"-ngl", std::to_string(r.placement.gpu_layers)});
    if (r.placement.n_cpu_moe > 0) add({"--n-cpu-moe", std::to_string(r.placement.n_cpu_moe)});
    if (!r.placement.override_tensor.empty()) add({"-ot", r.placement.override_tensor});
    if (!plan.hardware.gpus.empty()) add({"-fit", "off"}); // the placement above is the plan
    add({"-fa", plan.flash_attn ? "on" : "off"});
    if (o.cache_type_k != GgmlType::F16) add({"-ctk", std::string(ggmlTypeName(o.cache_type_k))});
    if (o.cache_type_v != GgmlType::F16) add({"-ctv", std::string(ggmlTypeName(o.cache_type_v))});
    const std::uint32_t batch =
        r.posture == Posture::Stacked && !o.ubatch_set ? std::max(o.n_batch, 4096u) : o.n_batch;
    if (batch != 2048) add({"-b", std::to_string(batch)});
    if (r.n_ubatch != 512) add({"-ub", std::to_string(r.n_ubatch)});
    // Always pinned: llama-server without -np runs 4 slots on one unified cache
    // (tools/server/server.cpp), which is not what was priced.
    add({"-np", std::to_string(o.n_parallel)});
    if (o.kv_unified) add({"-kvu"});
    if (o.swa_full) add({"--swa-full"});
    if (plan.mtp) add({"--spec-type", "draft-mtp", "--spec-draft-n-max", "3"});
    return a;
}

} // namespace

Result<bool> validateOptions(const ModelShape& model, const PlanOptions& o) {
    auto bad = [](std::string m, std::string d = {}) {
        return makeError(ErrorCode::InvalidArgument, std::move(m), std::move(d));
    };
    if (model.layers.empty()) return bad("model '" + model.id + "' has no layers to price");
    if (o.n_ubatch == 0 || o.n_batch == 0)
        return bad("--batch-size and --ubatch-size must be at least 1");
    if (o.n_parallel == 0 || o.n_parallel > 256)
        return bad("--parallel must be between 1 and 256 (llama.cpp's LLAMA_MAX_SEQ)");
    if (o.context && *o.context > 0 && *o.context < 256)
        return bad("--ctx-size must be 0 (native) or at least 256");
    // llama_init_from_model: "V cache quantization requires flash_attn".
    if (isQuantizedCacheType(o.cache_type_v) && o.flash_attn == FlashAttn::Off)
        return bad("a quantized V cache (-ctv " + std::string(ggmlTypeName(o.cache_type_v)) +
                       ") requires flash attention",
                   "use -fa on (or auto), or -ctv f16");
    bool mla = false;
    for (const auto& l : model.layers)
        mla = mla || l.attention == AttentionKind::Mla;
    if (mla && o.cache_type_k != o.cache_type_v)
        return bad("MLA models (" + model.architecture + ") need the same K and V cache type",
                   "give -ctk and -ctv the same value");
    return true;
}

Result<Plan> makePlan(const ModelShape& model, const HardwareSnapshot& hw,
                      const PlanOptions& options) {
    if (auto v = validateOptions(model, options); !v) return v.error();
    if (auto v = validateSnapshot(hw); !v) return v.error();

    Plan plan;
    plan.model = model;
    plan.hardware = hw;
    plan.options = options;
    plan.budget = capacityBudget(hw, options.extra_reserve);
    const std::uint64_t native = model.n_ctx_train ? model.n_ctx_train : kFloorWindow;
    if (!model.n_ctx_train)
        plan.notes.push_back("trained context unknown: the 64K floor is used as native");
    if (model.conservative)
        plan.notes.push_back("architecture '" + model.architecture +
                             "' is not modelled in detail: every layer is priced as full attention "
                             "(an over-estimate)");
    plan.notes.push_back(
        "compute buffers, runtime overhead and speeds are estimates; weights, KV cache, recurrent "
        "state and output buffer follow llama.cpp's allocation exactly");

    std::vector<std::uint32_t> contexts = contextLadder(native);
    std::optional<std::uint32_t> exact;
    if (options.context) {
        exact = *options.context == 0
                    ? static_cast<std::uint32_t>(std::min<std::uint64_t>(native, UINT32_MAX))
                    : *options.context;
        if (std::find(contexts.begin(), contexts.end(), *exact) == contexts.end())
            contexts.push_back(*exact);
    }
    if (options.requested_window &&
        std::find(contexts.begin(), contexts.end(), *options.requested_window) == contexts.end())
        contexts.push_back(*options.requested_window);
    std::sort(contexts.begin(), contexts.end());
    const std::vector<std::uint32_t> lad = contextLadder(native);

    const bool mtp = model.mtpCapable() && options.mtp != MtpMode::Off;
    plan.mtp = mtp;
    std::vector<Posture> postures = mtp ? std::vector<Posture>{Posture::Lean, Posture::Stacked}
                                        : std::vector<Posture>{Posture::Plain};

    // `restore`: apply the requested-window restore (Hermes plan_launch with a requested window);
    // the live re-plan is a fresh plan_launch without one (fit_to_free_memory step 2).
    auto priceAll = [&](Posture p, const MemoryBudget& budget, bool restore) {
        PostureResult pr;
        pr.posture = p;
        const ResolvedOptions ro = resolve(model, options, hw, p);
        plan.backend = ro.backend;
        plan.flash_attn = ro.flash_attn;
        std::vector<bool> on_ladder;
        for (std::uint32_t c : contexts) {
            Rung r = planRung(model, ro, budget, hw, c);
            r.posture = p;
            r.on_ladder = std::find(lad.begin(), lad.end(), c) != lad.end();
            if (c > native && r.verdict != Verdict::Refused) {
                // Beyond the trained context llama.cpp runs but warns ("possible training context
                // overflow"); quality is not guaranteed, so we refuse rather than plan it silently.
                Refusal f;
                f.code = RefusalCode::ContextTooLong;
                f.budget = BudgetName::TrainedContext;
                f.needed_bytes = c;
                f.available_bytes = static_cast<SignedBytes>(native);
                f.shortfall_bytes = static_cast<SignedBytes>(c) - static_cast<SignedBytes>(native);
                f.message = formatTokens(c) + " is beyond the model's trained context of " +
                            formatTokens(native);
                r.refusal = f;
                r.verdict = Verdict::Refused;
            }
            on_ladder.push_back(r.on_ladder);
            pr.rungs.push_back(std::move(r));
        }
        pr.initial = initialWindow(pr.rungs, on_ladder, budget);
        pr.decision = pr.initial;
        // A window granted earlier is restored when it still passes physics (Hermes plan_launch).
        if (restore && options.requested_window && !pr.decision.refused) {
            const std::uint32_t target = static_cast<std::uint32_t>(
                std::min<std::uint64_t>(*options.requested_window, native));
            const int ti = findRung(pr.rungs, target);
            if (ti >= 0 && pr.rungs[ti].context > pr.decision.context &&
                pr.rungs[ti].verdict != Verdict::Refused) {
                const Rung& r = pr.rungs[ti];
                pr.decision.rung_index = ti;
                pr.decision.context = r.context;
                pr.decision.spilled = r.verdict == Verdict::Spilled;
                pr.decision.spill_bytes = r.placement.spill_bytes;
                pr.decision.reasons = {"grown window restored (" + formatTokens(target) + ")"};
            }
        }
        pr.decision.posture = p;
        pr.initial.posture = p;
        return pr;
    };

    std::vector<PostureResult> results;
    for (Posture p : postures)
        results.push_back(priceAll(p, plan.budget, true));

    // Posture choice (Hermes plan_launch): stacked only when it does not cost window or spill.
    auto choosePosture = [&](const std::vector<PostureResult>& rs, bool restore) -> size_t {
        if (rs.size() != 2) return 0;
        const PostureResult& lean = rs[0];
        const PostureResult& stacked = rs[1];
        const Decision& L = lean.decision;
        const Decision& S = stacked.decision;
        if (S.refused) return 0;
        if (L.refused) return 1;
        if (S.context < L.context) return 0;
        if (!S.spilled) return 1;
        if (restore && options.requested_window && !stacked.initial.spilled &&
            stacked.initial.context >= lean.initial.context &&
            S.context > stacked.initial.context && L.spilled)
            return 1;
        return 0;
    };
    auto postureReason = [&](Posture p) {
        return mtp ? std::string(p == Posture::Stacked ? "stacked MTP posture (ub 2048)"
                                                       : "lean MTP posture (ub 512)")
                   : std::string("no MTP head: one context");
    };
    size_t chosen = choosePosture(results, true);
    Decision decision = results[chosen].decision;
    decision.reasons.insert(decision.reasons.begin(), postureReason(results[chosen].posture));

    // An explicit -c is the user's choice: the decision is that rung, priced honestly.
    if (exact) {
        const std::vector<Rung>& rungs = results[chosen].rungs;
        const int ei = findRung(rungs, *exact);
        const Rung& r = rungs[ei];
        decision.rung_index = ei;
        decision.context = r.context;
        decision.refused = r.verdict == Verdict::Refused;
        decision.spilled = r.verdict == Verdict::Spilled;
        decision.spill_bytes = r.placement.spill_bytes;
        decision.reasons.push_back("context set with -c " + std::to_string(*exact));
    } else if (!decision.refused && !decision.spilled && hasLiveFigures(hw)) {
        // Narrow to live free memory (Hermes fit_to_free_memory): a fresh plan_launch on the live
        // budget — no requested-window restore, and the posture chosen again — and only the window
        // moves, only down, never below the floor, and never onto a spilled placement.
        const MemoryBudget live = liveBudget(hw, options.extra_reserve);
        std::vector<PostureResult> now;
        for (Posture p : postures)
            now.push_back(priceAll(p, live, false));
        const size_t now_chosen = choosePosture(now, false);
        const Decision& fresh = now[now_chosen].decision;
        if (!fresh.refused && !fresh.spilled) {
            if (fresh.context < decision.context) {
                const std::string was =
                    formatTokens(results[chosen].rungs[decision.rung_index].requested_context);
                // Both postures price the same contexts, so the live rung's index is valid in
                // the capacity rungs of its posture.
                chosen = now_chosen;
                decision.posture = results[chosen].posture;
                decision.reasons.front() = postureReason(decision.posture);
                decision.rung_index = fresh.rung_index;
                decision.context = fresh.context;
                decision.reasons.push_back(
                    formatTokens(results[chosen].rungs[decision.rung_index].requested_context) +
                    " fits beside other programs' GPU memory (" + was + " would not)");
            }
        } else {
            // Step 4: the floor, resident, in the capacity plan's posture. A live reading can still
            // count memory an outgoing server is about to free; spilling on it would pin a fitting
            // model to the CPU.
            const std::vector<Rung>& rungs = results[chosen].rungs;
            int first = 0;
            while (first < static_cast<int>(rungs.size()) && !rungs[first].on_ladder)
                ++first;
            if (first < static_cast<int>(rungs.size()) && decision.rung_index > first) {
                decision.rung_index = first;
                decision.context = rungs[first].context;
                decision.reasons.push_back("floor held at " +
                                           formatTokens(rungs[first].requested_context) +
                                           "; other programs hold most of the GPU memory");
            }
        }
    }
    PostureResult& pick = results[chosen];
    if (decision.refused && decision.rung_index >= 0) {
        Rung& r = pick.rungs[decision.rung_index];
        if (r.refusal && r.refusal->code != RefusalCode::ContextTooLong && !exact) {
            r.refusal->code = RefusalCode::PhysicsFloor;
            r.refusal->message =
                "needs " + gib(r.refusal->needed_bytes) + " at the " +
                formatTokens(r.requested_context) + " floor but only " +
                formatSignedBytes(r.refusal->available_bytes) + " of " +
                budgetName(r.refusal->budget) +
                " is usable (see the remedies: a smaller quant or a smaller KV cache)";
        }
    }
    for (auto& r : pick.rungs) {
        if (r.verdict == Verdict::Resident || !r.refusal) {
            if (r.verdict != Verdict::Spilled) continue;
        }
        if (r.refusal && r.refusal->code == RefusalCode::ContextTooLong) continue;
        auto remedies = remediesFor(model, hw, plan.budget, options, pick.rungs, r);
        if (r.refusal)
            r.refusal->remedies = std::move(remedies);
        else
            r.spill_remedies = std::move(remedies);
    }
    plan.rungs = std::move(pick.rungs);
    if (results.size() == 2) plan.other_posture_rungs = std::move(results[1 - chosen].rungs);
    plan.decision = decision;
    if (decision.rung_index >= 0 && !decision.refused)
        plan.launch_args = launchArgs(plan, plan.rungs[decision.rung_index]);
    return plan;
}

} // namespace headroom
