#include "policy/speculation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace headroom::policy {

namespace {

// sum_{i=from}^{to} a^i, summed term by term: n_max is small and a may be 1.
double powerSum(double a, std::uint32_t from, std::uint32_t to) {
    double sum = 0, term = std::pow(a, from);
    for (std::uint32_t i = from; i <= to; ++i, term *= a)
        sum += term;
    return sum;
}

bool usable(double s) {
    return std::isfinite(s) && s > 0;
}

// One step's speed-up at acceptance `accept`, `drafted` tokens drafted, the verify batch's compute
// after (serial) or beside (overlapped) its weight read.
double speedup(const SpeculationWork& w, double accept, double drafted, bool serial) {
    const double batch = (drafted + 1) * w.target_prefill_s;
    const double verify = serial ? w.target_decode_s + batch : std::max(w.target_decode_s, batch);
    const double step = drafted * w.draft_s + verify;
    return tokensPerStep(accept, w.n_max) * w.target_decode_s / step;
}

} // namespace

double tokensPerStep(double accept, std::uint32_t n_max) {
    return powerSum(accept, 0, n_max);
}

double draftedPerStep(double accept, std::uint32_t n_max) {
    return n_max == 0 ? 0 : powerSum(accept, 0, n_max - 1);
}

double acceptanceFromRun(double n_predict, double n_accept, std::uint32_t n_max) {
    const double steps = n_predict - n_accept;
    if (!(steps > 0) || !(n_accept >= 0) || n_max == 0) return 0;
    const double per_step = n_accept / steps;
    if (per_step >= n_max) return 0;
    // sum_{i=1}^{n} a^i rises with a on [0, 1]: bisect.
    double lo = 0, hi = 1;
    for (int i = 0; i < 60; ++i) {
        const double mid = (lo + hi) / 2;
        (powerSum(mid, 1, n_max) < per_step ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

SpeculationFigure estimateSpeculation(const SpeculationWork& w) {
    SpeculationFigure f;
    if (!usable(w.target_decode_s) || !usable(w.target_prefill_s) || !usable(w.draft_s) ||
        w.n_max == 0 || !(w.accept_low > 0) || !(w.accept_high <= 1) ||
        w.accept_low > w.accept_high || w.accept_typical < w.accept_low ||
        w.accept_typical > w.accept_high)
        return f;
    const double n = w.n_max;
    f.speedup = speedup(w, w.accept_typical, n, true);
    f.speedup_low = speedup(w, w.accept_low, n, true);
    f.speedup_high = speedup(w, w.accept_high, draftedPerStep(w.accept_high, w.n_max), false);
    f.tokens_per_step_low = tokensPerStep(w.accept_low, w.n_max);
    f.tokens_per_step_high = tokensPerStep(w.accept_high, w.n_max);
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "ESTIMATE: %u drafted per step at %.0f-%.0f %% acceptance per position "
                  "(published runs; typical %.0f %%) yield %.2f-%.2f tokens; a drafted token costs "
                  "%.2f ms, a "
                  "plain target step %.2f ms, each verified token %.3f ms more",
                  w.n_max, w.accept_low * 100, w.accept_high * 100, w.accept_typical * 100,
                  f.tokens_per_step_low, f.tokens_per_step_high, w.draft_s * 1e3,
                  w.target_decode_s * 1e3, w.target_prefill_s * 1e3);
    f.basis = buf;
    return f;
}

} // namespace headroom::policy
