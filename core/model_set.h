// Several models on one machine at once: llama-server's router children or llama-swap entries
// kept loaded together. Each is its own llama.cpp process with its own weights, caches, compute
// buffers, output rows and backend runtime, so on every device the set holds the sum of its
// members' plans. planModelSet prices them together and chooses each member's context.
#pragma once

#include "hardware.h"
#include "model_shape.h"
#include "options.h"
#include "plan.h"
#include "result.h"

#include <cstddef>
#include <string>
#include <vector>

namespace headroom {

// The most models one set plans (each context search re-plans every member).
inline constexpr std::size_t kMaxSetModels = 8;

struct SetMember {
    ModelShape model;
    PlanOptions options; // a -c here is kept; without one the set chooses the context
};

// What the set holds on one device (or in host RAM) beside what the machine lets a plan use.
struct SetUse {
    std::string name;
    Bytes bytes = 0;
    SignedBytes usable = 0;
};

struct ModelSet {
    // In the members' order; plan k is priced beside plans 0..k-1 (PlanOptions::beside_*).
    std::vector<Plan> plans;
    bool fits = false;     // every member has a launch
    bool resident = false; // and none spills to system RAM
    int blocked = -1;      // the first member without a launch when the set does not fit
    std::string blocked_why;
    std::vector<SetUse> devices; // per device, llama.cpp's order, the set's chosen rungs summed
    SetUse host;                 // host RAM (on unified memory, the pool is devices[0])
    std::vector<std::string> notes;
};

// Members are priced in the order given: the first sees the machine, each next one what the ones
// before it hold kept out of its budget (BudgetReserve), so its placement fills what is left, as
// llama-servers started in that order would. A member given -c keeps it. The others get the
// largest context (4K, 8K, 16K, 32K, then the ladder's rungs, each capped at the member's own
// limit) at which every member runs resident beside the others, else the largest at which every
// member runs at all; then each in turn, in order, is raised rung by rung while the set still
// holds that way. When no context fits, `blocked` names the first member that cannot run at 4K
// beside the ones before it, and why. Errors: fewer than two or more than kMaxSetModels members,
// or a member whose own options cannot be planned (validateOptions).
Result<ModelSet> planModelSet(const std::vector<SetMember>& members, const HardwareSnapshot& hw);

} // namespace headroom
