#include "verify/server_log.h"

#include <algorithm>
#include <cmath>
#include <regex>

namespace headroom {

namespace {

Bytes mibToBytes(const std::string& mib) {
    // Two decimals at most; anything absurd (a garbage line that still matched) is clamped so
    // sums stay far from overflow.
    const double v = std::strtod(mib.c_str(), nullptr);
    if (!std::isfinite(v) || v < 0) return 0;
    const double b = std::round(v * static_cast<double>(MiB));
    return b >= static_cast<double>(kMaxPlausibleBytes) ? kMaxPlausibleBytes
                                                        : static_cast<Bytes>(b);
}

bool startsWith(std::string_view s, std::string_view p) {
    return s.substr(0, p.size()) == p;
}

} // namespace

const LoggedBuffer* ServerLog::find(std::string_view name) const {
    for (const auto& b : buffers)
        if (b.name == name) return &b;
    return nullptr;
}

bool isHostBuffer(std::string_view name) {
    return startsWith(name, "CPU") || name.find("_Host") != std::string_view::npos ||
           startsWith(name, "AMX");
}

std::string deviceOfBuffer(std::string_view name) {
    if (isHostBuffer(name)) return {};
    std::string s(name);
    // Row split (-sm row) names the device's split buffer type "CUDA0_Split".
    if (const auto at = s.find("_Split"); at != std::string::npos) s.erase(at);
    return s;
}

ServerLog parseServerLog(std::string_view text) {
    static const std::regex buffer_re(
        R"((\S+)\s+(model|KV|RS|output|compute) buffer size\s*=\s*([0-9]+(?:\.[0-9]+)?) MiB)");
    static const std::regex build_re(R"(build:? (\d+) \(([0-9a-fA-F]+)\))");
    // Columns are padded to the widest entry, hence \s* around every number.
    static const std::regex breakdown_re(
        R"(\|\s+-\s+(\S+) \((.*)\)\s*\|\s*(\d+)\s*=\s*(\d+)\s*\+\s*\(\s*(\d+)\s*=\s*(\d+)\s*\+\s*(\d+)\s*\+\s*(\d+)\s*\)\s*\+\s*(-?\d+)\s*\|)");
    // A log is bounded by the caller; each line is bounded here so a hostile line cannot make
    // the regex engine's recursion deep.
    constexpr std::size_t kMaxLine = 4096;
    ServerLog log;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string line(text.substr(pos, std::min(end - pos, kMaxLine)));
        pos = end + 1;
        std::smatch m;
        if (line.find("buffer size") != std::string::npos &&
            std::regex_search(line, m, buffer_re)) {
            auto it = std::find_if(log.buffers.begin(), log.buffers.end(),
                                   [&](const LoggedBuffer& b) { return b.name == m[1].str(); });
            if (it == log.buffers.end()) {
                log.buffers.push_back({m[1].str()});
                it = log.buffers.end() - 1;
            }
            const Bytes b = mibToBytes(m[3].str());
            const std::string kind = m[2].str();
            Bytes& slot = kind == "model"    ? it->model
                          : kind == "KV"     ? it->kv
                          : kind == "RS"     ? it->rs
                          : kind == "output" ? it->output
                                             : it->compute;
            slot = satAdd(slot, b);
            ++log.buffer_lines;
            log.breakdown.clear(); // only a table printed after the last buffer counts
            continue;
        }
        if (line.find("unaccounted") == std::string::npos &&
            line.find(" - ") != std::string::npos && std::regex_search(line, m, breakdown_re)) {
            const std::string name = m[1].str();
            auto it = std::find_if(log.breakdown.begin(), log.breakdown.end(),
                                   [&](const LoggedDeviceMemory& d) { return d.name == name; });
            const SignedBytes un = std::strtoll(m[9].str().c_str(), nullptr, 10);
            const SignedBytes bytes = std::clamp<SignedBytes>(un, -(1LL << 30), 1LL << 30) *
                                      static_cast<SignedBytes>(MiB);
            if (it == log.breakdown.end())
                log.breakdown.push_back({name, m[2].str(), bytes});
            else
                it->unaccounted = bytes;
            continue;
        }
        if (log.build.empty() && line.find("build") != std::string::npos &&
            std::regex_search(line, m, build_re))
            log.build = "b" + m[1].str() + " (" + m[2].str() + ")";
        if (line.find("server is listening") != std::string::npos ||
            line.find("listening on") != std::string::npos)
            log.listening = true;
        if (line.find("error") != std::string::npos || line.find("failed") != std::string::npos) {
            log.errors.push_back(line);
            if (log.errors.size() > 5) log.errors.erase(log.errors.begin());
        }
    }
    return log;
}

} // namespace headroom
