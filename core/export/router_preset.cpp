#include "export/router_preset.h"

#include "export/llama_server.h"
#include "export/shell.h"

#include <algorithm>
#include <bit>
#include <set>

namespace headroom {

namespace {

std::string trim(const std::string& s) {
    const size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos) return {};
    const size_t b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
}

// argv after the program, as (flag, value) pairs; a flag without a value gets "true".
std::vector<std::pair<std::string, std::string>> flagPairs(const std::vector<std::string>& argv) {
    std::vector<std::pair<std::string, std::string>> out;
    for (size_t i = 1; i < argv.size(); ++i) {
        const std::string& w = argv[i];
        const bool hasValue =
            i + 1 < argv.size() && !(argv[i + 1].size() > 1 && argv[i + 1][0] == '-');
        out.emplace_back(w, hasValue ? argv[++i] : std::string("true"));
    }
    return out;
}

std::string keyOf(const std::string& flag) {
    // The model source flags by their long names, which read better in a file; every other flag
    // keeps the spelling the launch uses (short forms are keys too, common/preset.cpp
    // get_map_key_opt maps every spelling without its dashes).
    if (flag == "-m") return "model";
    if (flag == "-hf") return "hf-repo";
    if (flag == "-mu") return "model-url";
    if (flag == "-mmu") return "mmproj-url";
    return flag.substr(flag.find_first_not_of('-'));
}

} // namespace

Result<std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>>>
parsePresetIni(const std::string& text) {
    std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> out;
    out.push_back({"", {}});
    size_t start = 0;
    int lineNo = 0;
    while (start <= text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string line = trim(text.substr(start, end - start));
        start = end + 1;
        ++lineNo;
        if (line.empty() || line[0] == ';' || line[0] == '#') continue;
        if (line.front() == '[') {
            if (line.back() != ']' || line.size() < 3)
                return makeError(ErrorCode::InvalidArgument,
                                 "preset line " + std::to_string(lineNo) + ": bad section");
            out.push_back({line.substr(1, line.size() - 2), {}});
            continue;
        }
        const size_t eq = line.find('=');
        if (eq == std::string::npos)
            return makeError(ErrorCode::InvalidArgument, "preset line " + std::to_string(lineNo) +
                                                             ": no '=' in '" + line + "'");
        out.back().second.emplace_back(trim(line.substr(0, eq)), trim(line.substr(eq + 1)));
    }
    return out;
}

Result<RouterPreset> routerPreset(const std::vector<SwapModel>& models,
                                  const RouterPresetOptions& options) {
    if (models.empty())
        return makeError(ErrorCode::InvalidArgument, "no models to write a router preset for");
    if (models.size() > kMaxSwapModels)
        return makeError(ErrorCode::InvalidArgument,
                         "at most " + std::to_string(kMaxSwapModels) + " models in one preset");
    std::vector<const Plan*> plans;
    std::vector<std::string> ids;
    std::set<std::string> seen;
    for (const auto& m : models) {
        plans.push_back(&m.plan);
        ids.push_back(m.id.empty() ? swapModelId(m.plan) : m.id);
        if (ids.back().find_first_of("[]\n") != std::string::npos)
            return makeError(ErrorCode::InvalidArgument,
                             "model id '" + ids.back() + "' cannot name an INI section");
        if (!seen.insert(ids.back()).second)
            return makeError(ErrorCode::InvalidArgument,
                             "two models would share the preset name '" + ids.back() + "'",
                             "give each a distinct id");
    }
    // The largest N such that every N of the models fit together: N = 1 needs each alone.
    std::uint32_t n = 1;
    for (std::uint32_t k = 2; k <= plans.size(); ++k) {
        bool all = true;
        const std::uint32_t full = (1u << plans.size()) - 1;
        for (std::uint32_t mask = 1; mask <= full && all; ++mask) {
            if (static_cast<std::uint32_t>(std::popcount(mask)) != k) continue;
            std::vector<const Plan*> sub;
            for (size_t i = 0; i < plans.size(); ++i)
                if (mask & (1u << i)) sub.push_back(plans[i]);
            auto ok = fitTogether(sub);
            if (!ok) return ok.error();
            all = *ok;
        }
        if (!all) break;
        n = k;
    }

    RouterPreset out;
    out.models_max = n;
    std::string& s = out.ini;
    s += "; llama-server router preset written by Headroom " HEADROOM_VERSION "\n";
    s += "; run: " + options.server_binary + " --models-preset " + options.preset_path +
         " --models-max " + std::to_string(n) + "\n";
    s += "; --models-max " + std::to_string(n) + ": every " + std::to_string(n) +
         " of these models fit in memory together (Headroom's co-residency check)\n";
    s += "version = 1\n";
    for (size_t i = 0; i < models.size(); ++i) {
        LaunchExportOptions lo = models[i].launch;
        lo.host.clear();
        lo.port.clear();
        auto l = llamaServerLaunch(models[i].plan, lo);
        if (!l) return l.error();
        s += "\n";
        for (auto c : l->comments) {
            for (char& ch : c)
                if (ch == '\n') ch = ' ';
            s += "; " + c + "\n";
        }
        s += "[" + ids[i] + "]\n";
        std::vector<std::pair<std::string, std::string>> keys;
        for (const auto& [flag, value] : flagPairs(l->argv)) {
            const std::string key = keyOf(flag);
            auto same = std::find_if(keys.begin(), keys.end(),
                                     [&](const auto& kv) { return kv.first == key; });
            if (same != keys.end())
                same->second += "," + value; // several -ot: one comma-separated list
            else
                keys.emplace_back(key, value);
        }
        for (const auto& [k, v] : keys)
            s.append(k).append(" = ").append(v).append("\n");
    }
    out.server = {options.server_binary, "--models-preset", options.preset_path, "--models-max",
                  std::to_string(n)};
    if (!options.host.empty()) out.server.insert(out.server.end(), {"--host", options.host});
    if (!options.port.empty()) out.server.insert(out.server.end(), {"--port", options.port});
    return out;
}

} // namespace headroom
