// planModelSet (model_set.h): several models priced together, one llama.cpp process each.
#include "model_set.h"

#include "planner.h"
#include "policy/ladder.h"

#include <algorithm>
#include <optional>

namespace headroom {

namespace {

// The contexts the set tries, ascending: the small windows people share a card with, then the
// ladder up to the longest member's limit. Each member is capped at its own limit.
std::vector<std::uint32_t> setContexts(std::uint64_t longest) {
    std::vector<std::uint32_t> c = {4096, 8192, 16384, 32768};
    for (std::uint32_t r : policy::contextLadder(longest))
        c.push_back(r);
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
}

// Every member planned at `contexts` (0 = the member's own -c), each beside the ones before it.
// With `stop_at_refusal` the walk ends at the first member without a launch (a search only needs
// to know that one did not run).
struct Trial {
    std::vector<Plan> plans;
    bool runs = true;
    bool resident = true;
    int blocked = -1;
    bool overcommits = false; // the blocked member runs, but the set passes a budget
};

// Whether the set's sums stay within what the machine lets a plan use (the first member's budget,
// which has nothing beside it). Unified memory: the device and host buffers share the one pool.
bool withinMachine(const MemoryBudget& machine, const std::vector<Bytes>& device, Bytes host) {
    if (machine.uma && !machine.devices.empty()) {
        const Bytes pool = satAdd(device.empty() ? 0 : device[0], host);
        return toSigned(pool) <= machine.devices[0].usable;
    }
    for (size_t d = 0; d < device.size() && d < machine.devices.size(); ++d)
        if (toSigned(device[d]) > machine.devices[d].usable) return false;
    return toSigned(host) <= machine.ram_usable;
}

Result<Trial> trial(const std::vector<SetMember>& members, const HardwareSnapshot& hw,
                    const std::vector<std::uint32_t>& contexts, bool stop_at_refusal) {
    Trial t;
    std::vector<Bytes> device;
    Bytes host = 0;
    for (size_t k = 0; k < members.size(); ++k) {
        PlanOptions o = members[k].options;
        if (contexts[k] > 0) o.context = contexts[k];
        // What the user already kept out (PlanOptions::beside_*) plus the members before this one.
        o.beside_device_bytes.resize(std::max(o.beside_device_bytes.size(), device.size()), 0);
        for (size_t d = 0; d < device.size(); ++d)
            o.beside_device_bytes[d] = satAdd(o.beside_device_bytes[d], device[d]);
        o.beside_host_bytes = satAdd(o.beside_host_bytes, host);
        auto p = makePlan(members[k].model, hw, o);
        if (!p) return p.error();
        const Rung* r = launchedRung(*p);
        t.plans.push_back(std::move(*p));
        if (!r) {
            t.runs = t.resident = false;
            if (t.blocked < 0) t.blocked = static_cast<int>(k);
            if (stop_at_refusal) return t;
            continue;
        }
        t.resident = t.resident && r->verdict == Verdict::Resident;
        device.resize(std::max(device.size(), r->devices.size()), 0);
        for (size_t d = 0; d < r->devices.size(); ++d)
            device[d] = satAdd(device[d], r->devices[d].bytes);
        host = satAdd(host, r->host_bytes);
        // A member can run on what the others leave and still overcommit a device: llama.cpp
        // allocates its runtime on every card it sees (keepRuntimeRoom), whatever the placement.
        if (!withinMachine(t.plans.front().budget, device, host)) {
            t.runs = t.resident = false;
            t.overcommits = true;
            if (t.blocked < 0) t.blocked = static_cast<int>(k);
            if (stop_at_refusal) return t;
        }
    }
    return t;
}

std::string who(const Plan& p) {
    return p.model.name.empty() ? p.model.id : p.model.name;
}

// Each member's longest context (its -c, else its limit), whether the set chooses it, and the
// contexts the set tries.
struct SetContexts {
    std::vector<std::uint32_t> limit;
    std::vector<bool> chosen;
    std::vector<std::uint32_t> caps;
    bool any_chosen = false;

    // Every chosen member at `cap` (capped at its own limit); the others at their own -c (0).
    std::vector<std::uint32_t> at(std::uint32_t cap) const {
        std::vector<std::uint32_t> c(limit.size(), 0);
        for (size_t k = 0; k < limit.size(); ++k)
            if (chosen[k]) c[k] = std::min(cap, limit[k]);
        return c;
    }
};

SetContexts setContextsFor(const std::vector<SetMember>& members) {
    SetContexts s;
    s.limit.resize(members.size());
    s.chosen.resize(members.size());
    std::uint64_t longest = 0;
    for (size_t k = 0; k < members.size(); ++k) {
        const std::uint64_t l = contextLimit(members[k].model, members[k].options);
        s.limit[k] = static_cast<std::uint32_t>(std::min<std::uint64_t>(l, UINT32_MAX));
        s.chosen[k] = !members[k].options.context.has_value();
        longest = std::max(longest, l);
    }
    s.caps = setContexts(longest);
    s.any_chosen = std::any_of(s.chosen.begin(), s.chosen.end(), [](bool b) { return b; });
    return s;
}

// The contexts the set runs at: from the longest down, the first at which every member is
// resident, else the first at which every member runs; then each chosen member in turn raised
// while the set still holds the same way. The smallest contexts when nothing holds.
Result<std::vector<std::uint32_t>> chooseContexts(const std::vector<SetMember>& members,
                                                  const HardwareSnapshot& hw,
                                                  const SetContexts& s) {
    std::vector<std::uint32_t> contexts = s.at(s.caps.front());
    if (!s.any_chosen) return contexts;
    std::optional<std::vector<std::uint32_t>> runs;
    bool resident = false;
    for (auto cap = s.caps.rbegin(); cap != s.caps.rend() && !resident; ++cap) {
        const auto c = s.at(*cap);
        auto t = trial(members, hw, c, true);
        if (!t) return t.error();
        if (t->resident) {
            contexts = c;
            resident = true;
        } else if (t->runs && !runs) {
            runs = c;
        }
    }
    if (!resident && !runs) return contexts;
    if (!resident) contexts = *runs;
    // Each chosen member in turn takes the longest context the set still holds the same way
    // (resident stays resident), the others as they are.
    for (size_t k = 0; k < members.size(); ++k) {
        if (!s.chosen[k]) continue;
        for (std::uint32_t cap : s.caps) {
            const std::uint32_t c = std::min(cap, s.limit[k]);
            if (c <= contexts[k]) continue;
            auto raised = contexts;
            raised[k] = c;
            auto t = trial(members, hw, raised, true);
            if (!t) return t.error();
            if (!(resident ? t->resident : t->runs)) break;
            contexts = raised;
        }
    }
    return contexts;
}

// What the set's launched rungs hold on each device and in host RAM, against what the machine
// lets a plan use (the first member's budget: nothing beside it).
void sumSet(ModelSet& set) {
    const MemoryBudget& machine = set.plans.front().budget;
    for (const DeviceBudget& d : machine.devices)
        set.devices.push_back({d.name, 0, d.usable});
    set.host = {"RAM", 0, machine.ram_usable};
    for (const Plan& p : set.plans) {
        const Rung* r = launchedRung(p);
        if (!r) continue;
        for (size_t d = 0; d < r->devices.size() && d < set.devices.size(); ++d)
            set.devices[d].bytes = satAdd(set.devices[d].bytes, r->devices[d].bytes);
        set.host.bytes = satAdd(set.host.bytes, r->host_bytes);
    }
}

// Which member does not run beside the ones before it, and why.
std::string blockedWhy(const ModelSet& set, const std::vector<std::uint32_t>& contexts,
                       bool overcommits) {
    const size_t b = static_cast<size_t>(set.blocked);
    const Plan& p = set.plans[b];
    std::string before;
    for (size_t k = 0; k < b; ++k)
        before += (k ? ", " : "") + who(set.plans[k]);
    std::string why;
    if (overcommits)
        why = "what llama.cpp allocates for it whatever its placement (its runtime on every "
              "GPU) passes what the others leave";
    // The refusal of the context it was asked for (the first refused rung at or above it).
    const std::uint32_t asked = contexts[b] > 0 ? contexts[b] : p.options.context.value_or(0);
    for (const Rung& r : p.rungs)
        if (why.empty() && r.refusal && r.requested_context >= asked) why = r.refusal->message;
    return who(p) + " does not run" + (before.empty() ? std::string() : " beside " + before) +
           (why.empty() ? std::string() : ": " + why);
}

// The set's notes: why it does not fit, or the contexts chosen and whether anything spills.
void explainSet(ModelSet& set, const SetContexts& s, const std::vector<std::uint32_t>& contexts,
                bool overcommits) {
    if (set.blocked >= 0) {
        set.blocked_why = blockedWhy(set, contexts, overcommits);
        set.notes.push_back("the set does not fit together: " + set.blocked_why);
    } else {
        std::string picked;
        for (size_t k = 0; k < set.plans.size(); ++k)
            if (s.chosen[k])
                picked += (picked.empty() ? "" : ", ") + who(set.plans[k]) + " -c " +
                          std::to_string(contexts[k]);
        if (!picked.empty())
            set.notes.push_back(
                std::string("contexts chosen together (the longest at which every model runs") +
                (set.resident ? " with no spill" : "") + " beside the others): " + picked);
        if (!set.resident)
            set.notes.push_back(
                std::string(s.any_chosen ? "no context keeps" : "at the contexts given, not") +
                " every model out of system RAM together: part of a model runs "
                "from system RAM");
    }
    set.notes.push_back("each model is its own llama-server process with its placement pinned, "
                        "so the set holds the sum whatever order they start in; the speeds are "
                        "each model's alone (models generating at once share the memory "
                        "bandwidth)");
}

} // namespace

Result<ModelSet> planModelSet(const std::vector<SetMember>& members, const HardwareSnapshot& hw) {
    if (members.size() < 2 || members.size() > kMaxSetModels)
        return makeError(ErrorCode::InvalidArgument,
                         "a set plans 2 to " + std::to_string(kMaxSetModels) + " models, got " +
                             std::to_string(members.size()));
    for (const SetMember& m : members)
        if (auto ok = validateOptions(m.model, m.options); !ok) return ok.error();

    const SetContexts s = setContextsFor(members);
    auto contexts = chooseContexts(members, hw, s);
    if (!contexts) return contexts.error();
    auto final = trial(members, hw, *contexts, false);
    if (!final) return final.error();
    ModelSet set;
    set.plans = std::move(final->plans);
    set.fits = final->runs;
    set.resident = final->runs && final->resident;
    set.blocked = final->blocked;
    sumSet(set);
    explainSet(set, s, *contexts, final->overcommits);
    return set;
}

} // namespace headroom
