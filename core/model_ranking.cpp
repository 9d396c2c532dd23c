#include "model_ranking.h"

#include <algorithm>

namespace headroom {

namespace {

int verdictRank(Verdict v) {
    return v == Verdict::Resident ? 0 : v == Verdict::Spilled ? 1 : 2;
}

Verdict headline(const ModelStanding& s) {
    return s.largest_resident ? Verdict::Resident : s.best;
}

std::uint32_t headlineContext(const ModelStanding& s) {
    return s.largest_resident ? s.largest_resident : s.largest;
}

} // namespace

ModelStanding standingOf(const Plan& plan) {
    ModelStanding s;
    for (const Rung& r : plan.rungs) {
        if (r.verdict == Verdict::Refused) continue;
        if (r.requested_context >= s.largest) {
            s.largest = r.requested_context;
            s.best = r.verdict;
        }
        if (r.verdict == Verdict::Resident)
            s.largest_resident = std::max(s.largest_resident, r.requested_context);
    }
    if (const Rung* r = launchedRung(plan)) s.decode_tok_s = r->speed.decode_tok_s;
    const Bytes file = plan.model.file_bytes ? plan.model.file_bytes : plan.model.weightBytes();
    if (plan.model.n_params) s.bits_per_weight = double(file) * 8.0 / double(plan.model.n_params);
    return s;
}

bool ranksAbove(const ModelStanding& a, const ModelStanding& b) {
    const int va = verdictRank(headline(a)), vb = verdictRank(headline(b));
    if (va != vb) return va < vb;
    const std::uint32_t ca = headlineContext(a), cb = headlineContext(b);
    if (ca != cb) return ca > cb;
    if (a.decode_tok_s != b.decode_tok_s) return a.decode_tok_s > b.decode_tok_s;
    return a.bits_per_weight > b.bits_per_weight;
}

} // namespace headroom
