// Placement search: when everything on the GPUs does not fit, the smallest move to host memory
// that does — the moves llama.cpp offers, in the order that costs decode speed least.
#include "planner/planner_internal.h"
#include "policy/placement.h"

namespace headroom::detail {

namespace {

// Finds the smallest k in [lo, hi] whose apply(k) makes the devices fit, by bisection (the axis
// must be monotone: a larger k never needs more VRAM). Leaves `choice`/`a` there; false when even
// apply(hi) does not fit.
template <typename Apply>
bool smallestFitting(const ModelShape& model, const ContextPrice& price, const ResolvedOptions& opt,
                     const MemoryBudget& budget, PlacementChoice& choice, Assignment& a,
                     std::uint32_t lo, std::uint32_t hi, Apply&& apply) {
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
}

} // namespace

bool searchPlacement(const ModelShape& model, const ContextPrice& price, const ResolvedOptions& opt,
                     const MemoryBudget& budget, PlacementChoice& choice, Assignment& a) {
    const std::uint32_t n_layer_all = model.nLayer();
    const std::uint32_t ngl_all = n_layer_all + 1;
    bool ok = false;
    // 1. MoE: keep the experts of the first N blocks in RAM (--n-cpu-moe N), smallest N.
    if (model.isMoe()) {
        ok = smallestFitting(model, price, opt, budget, choice, a, 1, n_layer_all,
                             [&](std::uint32_t n) { choice.n_cpu_moe = n; });
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
    // 3. Otherwise llama.cpp's only axis: fewer offloaded layers (the first blocks stay on the
    // CPU). k layers kept on the CPU = ngl_all - k offloaded.
    if (!ok) {
        ok = smallestFitting(model, price, opt, budget, choice, a, 0, ngl_all,
                             [&](std::uint32_t k) { choice.ngl = ngl_all - k; });
        if (!ok) {
            choice.ngl = 0;
            a = assign(model, price, opt, budget, choice);
        }
    }
    return ok;
}

bool searchLayerCount(const ModelShape& model, const ContextPrice& price,
                      const ResolvedOptions& opt, const MemoryBudget& budget,
                      PlacementChoice& choice, Assignment& a) {
    const std::uint32_t ngl_all = model.nLayer() + 1;
    const bool ok = smallestFitting(model, price, opt, budget, choice, a, 0, ngl_all,
                                    [&](std::uint32_t k) { choice.ngl = ngl_all - k; });
    if (!ok) {
        choice.ngl = 0;
        a = assign(model, price, opt, budget, choice);
    }
    return ok;
}

} // namespace headroom::detail
