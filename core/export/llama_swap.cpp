#include "export/llama_swap.h"

#include "export/shell.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <numeric>
#include <set>

namespace headroom {

namespace {

// The llama-swap macro for the port it assigns each model (config.example.yaml `startPort`).
inline constexpr const char* kPortMacro = "${PORT}";

struct Budget {
    std::vector<std::string> names;
    std::vector<SignedBytes> usable;
    SignedBytes host = 0;
    bool uma = false;
};

Result<Budget> sharedBudget(const std::vector<const Plan*>& plans) {
    Budget b;
    if (plans.empty()) return b;
    const MemoryBudget& first = plans.front()->budget;
    b.uma = first.uma;
    b.host = first.ram_usable;
    for (const auto& d : first.devices) {
        b.names.push_back(d.name);
        b.usable.push_back(d.usable);
    }
    for (size_t i = 1; i < plans.size(); ++i) {
        const MemoryBudget& o = plans[i]->budget;
        bool same = o.devices.size() == first.devices.size() && o.uma == first.uma;
        for (size_t d = 0; same && d < o.devices.size(); ++d)
            same = o.devices[d].name == first.devices[d].name &&
                   o.devices[d].total == first.devices[d].total;
        if (!same)
            return makeError(ErrorCode::InvalidArgument,
                             "plans for different hardware cannot share one llama-swap config",
                             "plan " + std::to_string(i + 1) + " (" + plans[i]->model.id +
                                 ") was made for other devices than plan 1 (" +
                                 plans.front()->model.id + ")");
    }
    return b;
}

// Per-device and host bytes of a plan's chosen rung (device order of the budget).
struct Use {
    std::vector<Bytes> device;
    Bytes host = 0;
    bool refused = false;
};

Use useOf(const Plan& p, size_t nDevices) {
    Use u;
    u.device.assign(nDevices, 0);
    auto r = chosenRung(p);
    if (!r) {
        u.refused = true;
        return u;
    }
    for (size_t d = 0; d < r->devices.size() && d < nDevices; ++d)
        u.device[d] = r->devices[d].bytes;
    u.host = r->host_bytes;
    return u;
}

bool fits(const Budget& b, const std::vector<Use>& uses, std::uint32_t mask) {
    std::vector<Bytes> dev(b.usable.size(), 0);
    Bytes host = 0;
    for (size_t i = 0; i < uses.size(); ++i) {
        if (!(mask >> i & 1u)) continue;
        if (uses[i].refused) return false;
        for (size_t d = 0; d < dev.size(); ++d)
            dev[d] = satAdd(dev[d], uses[i].device[d]);
        host = satAdd(host, uses[i].host);
    }
    if (b.uma && !dev.empty()) {
        // One pool: what llama.cpp puts in "host" buffers is the same memory.
        return toSigned(satAdd(dev[0], host)) <= b.usable[0];
    }
    for (size_t d = 0; d < dev.size(); ++d)
        if (toSigned(dev[d]) > b.usable[d]) return false;
    return toSigned(host) <= b.host;
}

Result<std::vector<Use>> usesOf(const std::vector<const Plan*>& plans, const Budget& b) {
    if (plans.size() > kMaxSwapModels)
        return makeError(ErrorCode::InvalidArgument,
                         "llama-swap export plans co-residency for at most " +
                             std::to_string(kMaxSwapModels) + " models, got " +
                             std::to_string(plans.size()));
    std::vector<Use> uses;
    for (const Plan* p : plans)
        uses.push_back(useOf(*p, b.usable.size()));
    return uses;
}

std::string fileStem(const std::string& path) {
    std::string stem = std::filesystem::path(path).filename().string();
    const std::string ext = ".gguf";
    if (stem.size() > ext.size() && stem.compare(stem.size() - ext.size(), ext.size(), ext) == 0)
        stem.resize(stem.size() - ext.size());
    return stem;
}

// The cmd block: comments, then one flag per line (llama-swap strips `#` lines and splits the
// rest like a shell). ${PORT} stays bare so llama-swap's macro expansion sees it.
std::string swapCmd(const LaunchCommand& l) {
    std::string s;
    for (auto c : l.comments) {
        std::replace(c.begin(), c.end(), '\n', ' ');
        s += "# " + c + "\n";
    }
    const std::string quotedMacro = shellQuote(kPortMacro);
    for (auto line : launchLines(l.argv)) {
        for (size_t at = line.find(quotedMacro); at != std::string::npos;
             at = line.find(quotedMacro, at))
            line.replace(at, quotedMacro.size(), kPortMacro);
        s += line + "\n";
    }
    return s;
}

std::string setExpression(const std::vector<size_t>& members) {
    std::string e;
    for (size_t m : members)
        e += (e.empty() ? "" : " & ") + ("m" + std::to_string(m + 1));
    return e;
}

std::string memoryLine(const Budget& b, const std::vector<Use>& uses,
                       const std::vector<size_t>& members) {
    std::string s;
    for (size_t d = 0; d < b.usable.size(); ++d) {
        Bytes sum = 0;
        for (size_t m : members)
            sum = satAdd(sum, uses[m].device[d]);
        s += (s.empty() ? "" : ", ") + b.names[d] + " " + formatBytes(sum) + " of " +
             formatSignedBytes(b.usable[d]);
    }
    Bytes host = 0;
    for (size_t m : members)
        host = satAdd(host, uses[m].host);
    if (!b.uma)
        s += (s.empty() ? "" : ", ") + std::string("RAM ") + formatBytes(host) + " of " +
             formatSignedBytes(b.host);
    return s;
}

} // namespace

const char* swapRoutingName(SwapRouting r) {
    return r == SwapRouting::Matrix ? "matrix" : "group";
}

Result<bool> fitTogether(const std::vector<const Plan*>& plans) {
    auto b = sharedBudget(plans);
    if (!b) return b.error();
    auto uses = usesOf(plans, *b);
    if (!uses) return uses.error();
    const std::uint32_t all =
        plans.size() >= 32 ? ~0u : static_cast<std::uint32_t>((1ull << plans.size()) - 1);
    return fits(*b, *uses, all);
}

Result<std::vector<std::vector<size_t>>> coResidentSets(const std::vector<const Plan*>& plans) {
    auto b = sharedBudget(plans);
    if (!b) return b.error();
    auto uses = usesOf(plans, *b);
    if (!uses) return uses.error();
    const std::uint32_t n = static_cast<std::uint32_t>(plans.size());
    std::vector<std::uint32_t> masks((1u << n));
    std::iota(masks.begin(), masks.end(), 0u);
    // Largest combinations first, so a subset of one already kept is recognised and skipped.
    std::stable_sort(masks.begin(), masks.end(), [](std::uint32_t a, std::uint32_t c) {
        return std::popcount(a) > std::popcount(c);
    });
    std::vector<std::uint32_t> kept;
    for (std::uint32_t m : masks) {
        if (std::popcount(m) < 2) break;
        if (std::any_of(kept.begin(), kept.end(), [m](std::uint32_t k) { return (m & k) == m; }))
            continue;
        if (fits(*b, *uses, m)) kept.push_back(m);
    }
    std::vector<std::vector<size_t>> sets;
    for (std::uint32_t m : kept) {
        std::vector<size_t> s;
        for (std::uint32_t i = 0; i < n; ++i)
            if (m >> i & 1u) s.push_back(i);
        sets.push_back(s);
    }
    std::sort(sets.begin(), sets.end()); // stable, readable order: by first member
    return sets;
}

Result<std::vector<std::vector<size_t>>> coResidentGroups(const std::vector<const Plan*>& plans) {
    auto b = sharedBudget(plans);
    if (!b) return b.error();
    auto uses = usesOf(plans, *b);
    if (!uses) return uses.error();
    std::vector<size_t> order(plans.size());
    std::iota(order.begin(), order.end(), 0);
    auto weight = [&](size_t i) {
        Bytes w = (*uses)[i].host;
        for (Bytes d : (*uses)[i].device)
            w = satAdd(w, d);
        return w;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t c) { return weight(a) > weight(c); });
    std::vector<std::uint32_t> bins;
    for (size_t i : order) {
        bool placed = false;
        for (auto& bin : bins)
            if (!(*uses)[i].refused && fits(*b, *uses, bin | (1u << i))) {
                bin |= 1u << i;
                placed = true;
                break;
            }
        if (!placed) bins.push_back(1u << i);
    }
    std::vector<std::vector<size_t>> groups;
    for (std::uint32_t m : bins) {
        std::vector<size_t> g;
        for (size_t i = 0; i < plans.size(); ++i)
            if (m >> i & 1u) g.push_back(i);
        groups.push_back(g);
    }
    std::sort(groups.begin(), groups.end());
    return groups;
}

std::string swapModelId(const Plan& plan) {
    if (plan.model.source == ShapeSource::GgufHeader) return fileStem(plan.model.id);
    return plan.model.id.empty() ? std::string("model") : plan.model.id;
}

Result<std::string> llamaSwapYaml(const std::vector<SwapModel>& models,
                                  const LlamaSwapOptions& options) {
    if (models.empty())
        return makeError(ErrorCode::InvalidArgument, "no models to write a llama-swap config for");
    if (options.ttl_seconds < 0)
        return makeError(ErrorCode::InvalidArgument,
                         "ttl must be 0 (never unload) or a number of seconds, got " +
                             std::to_string(options.ttl_seconds));
    std::vector<const Plan*> plans;
    std::vector<std::string> ids;
    std::set<std::string> seen;
    for (const auto& m : models) {
        plans.push_back(&m.plan);
        ids.push_back(m.id.empty() ? swapModelId(m.plan) : m.id);
        if (!seen.insert(ids.back()).second)
            return makeError(ErrorCode::InvalidArgument,
                             "two models would share the llama-swap id '" + ids.back() + "'",
                             "give each a distinct id");
    }
    auto budget = sharedBudget(plans);
    if (!budget) return budget.error();
    auto uses = usesOf(plans, *budget);
    if (!uses) return uses.error();

    std::vector<LaunchCommand> launches;
    for (const auto& m : models) {
        LaunchExportOptions lo = m.launch;
        lo.port = kPortMacro;
        auto l = llamaServerLaunch(m.plan, lo);
        if (!l) return l.error();
        launches.push_back(*l);
    }

    YAML::Emitter y;
    y << YAML::Comment("llama-swap configuration written by Headroom " HEADROOM_VERSION
                       ". Each cmd is the launch Headroom priced; metadata.headroom carries "
                       "the planned memory per device.");
    y << YAML::BeginMap;
    y << YAML::Key << "models" << YAML::Value << YAML::BeginMap;
    for (size_t i = 0; i < models.size(); ++i) {
        const Plan& p = models[i].plan;
        const Rung rung = *chosenRung(p); // llamaServerLaunch succeeded, so there is one
        y << YAML::Key << ids[i] << YAML::Value << YAML::BeginMap;
        if (!p.model.name.empty()) y << YAML::Key << "name" << YAML::Value << p.model.name;
        y << YAML::Key << "cmd" << YAML::Value << YAML::Literal << swapCmd(launches[i]);
        y << YAML::Key << "ttl" << YAML::Value << options.ttl_seconds;
        y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
        y << YAML::Key << "headroom" << YAML::Value << YAML::BeginMap;
        y << YAML::Key << "context" << YAML::Value << rung.context;
        y << YAML::Key << "verdict" << YAML::Value << verdictName(rung.verdict);
        y << YAML::Key << "fit" << YAML::Value << fitModeName(models[i].launch.fit);
        y << YAML::Key << "devices" << YAML::Value << YAML::BeginSeq;
        for (const auto& d : rung.devices) {
            y << YAML::BeginMap;
            y << YAML::Key << "name" << YAML::Value << d.name;
            y << YAML::Key << "bytes" << YAML::Value << d.bytes;
            y << YAML::Key << "budget_bytes" << YAML::Value << d.budget_bytes;
            y << YAML::EndMap;
        }
        y << YAML::EndSeq;
        y << YAML::Key << "host_bytes" << YAML::Value << rung.host_bytes;
        y << YAML::EndMap << YAML::EndMap; // headroom, metadata
        y << YAML::EndMap;                 // the model
    }
    y << YAML::EndMap; // models

    if (models.size() > 1) {
        y << YAML::Key << "routing" << YAML::Value << YAML::BeginMap;
        y << YAML::Key << "router" << YAML::Value << YAML::BeginMap;
        y << YAML::Key << "use" << YAML::Value << swapRoutingName(options.routing);
        y << YAML::Key << "settings" << YAML::Value << YAML::BeginMap;
        if (options.routing == SwapRouting::Matrix) {
            auto sets = coResidentSets(plans);
            if (!sets) return sets.error();
            y << YAML::Key << "matrix" << YAML::Value << YAML::BeginMap;
            y << YAML::Key << "vars" << YAML::Value << YAML::BeginMap;
            for (size_t i = 0; i < ids.size(); ++i)
                y << YAML::Key << ("m" + std::to_string(i + 1)) << YAML::Value << ids[i];
            y << YAML::EndMap;
            y << YAML::Key << "sets" << YAML::Value << YAML::BeginMap;
            // A model in no set runs alone (llama-swap's matrix rule), which is the answer
            // for a model that fits beside no other.
            for (size_t s = 0; s < sets->size(); ++s) {
                y << YAML::Key << ("fit-" + std::to_string(s + 1)) << YAML::Value
                  << setExpression((*sets)[s]);
                y << YAML::Comment(memoryLine(*budget, *uses, (*sets)[s]));
            }
            y << YAML::EndMap << YAML::EndMap; // sets, matrix
        } else {
            auto groups = coResidentGroups(plans);
            if (!groups) return groups.error();
            y << YAML::Key << "groups" << YAML::Value << YAML::BeginMap;
            for (size_t g = 0; g < groups->size(); ++g) {
                y << YAML::Key << ("fit-" + std::to_string(g + 1)) << YAML::Value << YAML::BeginMap;
                // swap false: the members fit together, so they may all stay loaded;
                // exclusive true: loading this group unloads the others, which may not fit.
                y << YAML::Key << "swap" << YAML::Value << false;
                y << YAML::Key << "exclusive" << YAML::Value << true;
                y << YAML::Key << "members" << YAML::Value << YAML::BeginSeq;
                for (size_t m : (*groups)[g])
                    y << ids[m];
                y << YAML::EndSeq;
                y << YAML::EndMap;
                y << YAML::Comment(memoryLine(*budget, *uses, (*groups)[g]));
            }
            y << YAML::EndMap; // groups
        }
        y << YAML::EndMap << YAML::EndMap << YAML::EndMap; // settings, router, routing
    }
    y << YAML::EndMap;
    if (!y.good())
        return makeError(ErrorCode::InvalidArgument, "could not write the llama-swap YAML",
                         y.GetLastError());
    return std::string(y.c_str()) + "\n";
}

} // namespace headroom
