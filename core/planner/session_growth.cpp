// The growth decision of a plan's launch window (Plan::growth), so the CLI, the JSON and the
// window say the same thing.
#include "planner.h"
#include "planner/planner_internal.h"
#include "policy/growth.h"
#include "policy/speed.h"

#include <cmath>
#include <limits>

namespace headroom::detail {

std::optional<SessionGrowth> sessionGrowth(const Plan& plan) {
    const Rung* launched = launchedRung(plan);
    if (!launched) return std::nullopt;
    const Rung& r = *launched;
    policy::GrowthInput in;
    in.current_window = r.requested_context;
    in.session_tokens =
        static_cast<std::uint64_t>(std::ceil(r.requested_context * policy::kGrowthOccupancy));
    in.occupancy_confirmed = true;
    in.idle = true;
    in.n_ctx_train = plan.model.n_ctx_train;
    in.decode_tok_s = r.speed.decode_tok_s;
    in.usable_vram = plan.budget.vramUsable();
    in.ram_available = plan.budget.ram_usable;
    // The next window is a ladder rung the plan priced; one it did not price cannot be shown to
    // fit, so the re-fit fails rather than guess.
    in.need_at = [&plan](std::uint32_t window) -> Bytes {
        for (const Rung& x : plan.rungs)
            if (x.requested_context == window) return x.totals.total();
        return std::numeric_limits<Bytes>::max();
    };
    auto d = policy::growthDecision(in);
    if (!d) return std::nullopt;
    SessionGrowth g;
    g.action = policy::growthActionName(d->action);
    g.window = r.requested_context;
    if (d->action == policy::GrowthAction::Grow) g.next_window = d->next_window;
    g.reason = d->reason;
    g.occupancy_tokens = in.session_tokens;
    g.decode_tok_s = r.speed.decode_tok_s;
    g.needed_bytes = d->needed_bytes;
    g.available_bytes = d->available_bytes;
    return g;
}

} // namespace headroom::detail
