#include "host_memory.h"

#include "fs_util.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace headroom::probe::detail {

namespace {

// cgroup v1 writes "unlimited" as PAGE_COUNTER_MAX x page size (9223372036854771712 with 4 KiB
// pages, other values with 16/64 KiB pages); anything from 2^62 up is that sentinel, not a limit
// a machine could have. Not a knob.
constexpr Bytes kCgroupV1Unlimited = Bytes{1} << 62;

std::map<std::string, Bytes> parseMeminfo(const std::string& text) {
    std::map<std::string, Bytes> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::istringstream rest(line.substr(colon + 1));
        std::string num, unit;
        rest >> num >> unit;
        auto v = parseU64(num);
        if (!v) continue;
        out[line.substr(0, colon)] = unit == "kB" ? satMul(*v, KiB) : *v;
    }
    return out;
}

std::optional<Bytes> statField(const std::string& statPath, const std::string& key) {
    auto text = readSmallFile(statPath);
    if (!text) return std::nullopt;
    std::istringstream in(*text);
    std::string k, v;
    while (in >> k >> v)
        if (k == key) return parseU64(v);
    return std::nullopt;
}

struct CgroupLevel {
    std::string dir;
    std::optional<Bytes> limit;
    std::optional<Bytes> usage; // minus inactive file
};

// Directories from the process's cgroup up to the mount root. When the named path does not exist
// under the mount (a container that sees the host's cgroup names without a cgroup namespace), only
// the mount root applies: that is the container's own cgroup in that setup.
std::vector<std::string> cgroupChain(const std::string& mount, const std::string& path) {
    std::vector<std::string> dirs;
    std::string p = path;
    while (!p.empty() && p.back() == '/')
        p.pop_back();
    if (!p.empty() && !isDirectory(joinPath(mount, p))) p.clear();
    while (!p.empty()) {
        dirs.push_back(joinPath(mount, p));
        const auto slash = p.rfind('/');
        p = slash == std::string::npos ? std::string() : p.substr(0, slash);
    }
    dirs.push_back(mount);
    return dirs;
}

// A cgroup's limit file, first line trimmed. One that is there but not a regular file (a FIFO or
// device under a fake root) is never read and is said in `refused`, so that "no memory limit" is
// not claimed for a limit that could not be read.
std::optional<std::string> readLimitLine(const std::string& file,
                                         std::vector<std::string>& refused) {
    std::string why;
    auto text = readSmallFile(file, &why);
    if (!text) {
        if (exists(file)) refused.push_back(file + " " + why + ": its limit is not known");
        return std::nullopt;
    }
    return trim(std::string_view(*text).substr(0, text->find('\n')));
}

std::vector<CgroupLevel> readV1(const std::string& mount, const std::string& path,
                                std::vector<std::string>& refused) {
    std::vector<CgroupLevel> levels;
    for (const auto& dir : cgroupChain(mount, path)) {
        CgroupLevel l;
        l.dir = dir;
        const auto line = readLimitLine(joinPath(dir, "memory.limit_in_bytes"), refused);
        auto limit = line ? parseU64(*line) : std::nullopt;
        if (limit && *limit < kCgroupV1Unlimited) l.limit = *limit;
        auto usage = readU64(joinPath(dir, "memory.usage_in_bytes"));
        // v1 memory.stat: total_inactive_file counts the hierarchy (what `docker stats`
        // subtracts); inactive file pages are reclaimable, so they are not "used".
        if (usage) {
            auto inactive = statField(joinPath(dir, "memory.stat"), "total_inactive_file");
            l.usage = satSub(*usage, inactive.value_or(0));
        }
        levels.push_back(l);
    }
    return levels;
}

std::vector<CgroupLevel> readV2(const std::string& mount, const std::string& path,
                                std::vector<std::string>& refused) {
    std::vector<CgroupLevel> levels;
    for (const auto& dir : cgroupChain(mount, path)) {
        CgroupLevel l;
        l.dir = dir;
        auto max = readLimitLine(joinPath(dir, "memory.max"), refused); // "max" = no limit
        if (max && *max != "max") {
            if (auto v = parseU64(*max)) l.limit = *v;
        }
        auto current = readU64(joinPath(dir, "memory.current"));
        if (current) {
            // v2 memory.stat inactive_file: reclaimable page cache (kernel cgroup-v2.rst).
            auto inactive = statField(joinPath(dir, "memory.stat"), "inactive_file");
            l.usage = satSub(*current, inactive.value_or(0));
        }
        levels.push_back(l);
    }
    return levels;
}

} // namespace

Result<HostMemory> readHostMemory(const ProbePaths& paths) {
    HostMemory m;
    const std::string meminfoPath = joinPath(paths.proc_root, "meminfo");
    std::string why;
    auto text = readSmallFile(meminfoPath, &why);
    if (!text)
        return makeError(ErrorCode::ProbeFailed, "cannot read " + meminfoPath + ": " + why,
                         "system RAM is unknown; give --ram SIZE");
    auto mi = parseMeminfo(*text);
    if (!mi.count("MemTotal") || mi["MemTotal"] == 0)
        return makeError(ErrorCode::ProbeFailed, meminfoPath + " has no MemTotal line");
    m.mem_total = mi["MemTotal"];
    if (mi.count("MemAvailable")) {
        m.mem_available = mi["MemAvailable"];
        m.available_provenance = "/proc/meminfo MemAvailable";
    } else {
        // Kernels before 3.14 have no MemAvailable; free + buffers + page cache is the usual
        // stand-in (it overstates a little: not all cache is reclaimable).
        m.mem_available = satAdd(satAdd(mi["MemFree"], mi["Buffers"]), mi["Cached"]);
        m.available_provenance = "/proc/meminfo MemFree+Buffers+Cached (no MemAvailable)";
    }
    m.mem_available = std::min(m.mem_available, m.mem_total);
    m.swap_total = mi.count("SwapTotal") ? mi["SwapTotal"] : 0;
    m.swap_free = mi.count("SwapFree") ? mi["SwapFree"] : 0;
    m.total = m.mem_total;
    m.available = m.mem_available;
    m.total_provenance = "/proc/meminfo";

    // /proc/self/cgroup: "N:controllers:/path"; v1 lists "memory" among the controllers, v2 is
    // the single "0::/path" line. With both (hybrid hosts), memory is accounted by v1.
    std::string v1Path, v2Path;
    bool haveV1 = false, haveV2 = false;
    if (auto cg = readSmallFile(joinPath(paths.proc_root, "self/cgroup"))) {
        std::istringstream in(*cg);
        std::string line;
        while (std::getline(in, line)) {
            const auto c1 = line.find(':');
            const auto c2 = c1 == std::string::npos ? c1 : line.find(':', c1 + 1);
            if (c2 == std::string::npos) continue;
            const std::string id = line.substr(0, c1);
            const std::string ctrls = line.substr(c1 + 1, c2 - c1 - 1);
            const std::string path = line.substr(c2 + 1);
            if (id == "0" && ctrls.empty()) {
                haveV2 = true;
                v2Path = path;
                continue;
            }
            std::istringstream cs(ctrls);
            std::string c;
            while (std::getline(cs, c, ','))
                if (c == "memory") {
                    haveV1 = true;
                    v1Path = path;
                }
        }
    }
    std::vector<CgroupLevel> levels;
    std::vector<std::string> refused; // limit files that are not regular files
    const std::string cgRoot = joinPath(paths.sys_root, "fs/cgroup");
    if (haveV1 && exists(joinPath(cgRoot, "memory/memory.limit_in_bytes"))) {
        m.cgroup_version = "v1";
        m.cgroup_path = v1Path;
        levels = readV1(joinPath(cgRoot, "memory"), v1Path, refused);
    } else if (haveV2) {
        // Pure v2 mounts at /sys/fs/cgroup; hybrid hosts mount it at /sys/fs/cgroup/unified,
        // usually without the memory controller (then no memory.max exists anywhere).
        std::string mount;
        if (exists(joinPath(cgRoot, "cgroup.controllers")))
            mount = cgRoot;
        else if (exists(joinPath(cgRoot, "unified/cgroup.controllers")))
            mount = joinPath(cgRoot, "unified");
        if (!mount.empty()) {
            auto ctrls = readLine(joinPath(mount, "cgroup.controllers")).value_or("");
            if ((" " + ctrls + " ").find(" memory ") != std::string::npos) {
                m.cgroup_version = "v2";
                m.cgroup_path = v2Path;
                levels = readV2(mount, v2Path, refused);
            }
        }
    }
    // The binding level is the one leaving the least room: limit - usage, minimised over the
    // path (a parent's limit covers its children's combined usage).
    std::optional<Bytes> room;
    for (const auto& l : levels) {
        if (!l.limit) continue;
        if (!m.cgroup_limit || *l.limit < *m.cgroup_limit) m.cgroup_limit = *l.limit;
        const Bytes r = satSub(*l.limit, l.usage.value_or(0));
        if (!room || r < *room) {
            room = r;
            m.cgroup_usage = l.usage;
        }
    }
    if (!levels.empty() && !m.cgroup_usage) m.cgroup_usage = levels.front().usage;
    const std::string cgName = "cgroup " + m.cgroup_version;
    if (m.cgroup_limit) {
        if (*m.cgroup_limit < m.total) {
            m.total = *m.cgroup_limit;
            m.total_provenance =
                cgName + (m.cgroup_version == "v1" ? " memory.limit_in_bytes" : " memory.max");
            m.notes.push_back("memory is limited to " + formatBytes(m.total) + " by " + cgName +
                              " (" + m.cgroup_path + ")");
        }
        if (room && *room < m.available) {
            m.available = *room;
            m.available_provenance = cgName + " limit - usage (inactive file cache excluded)";
        }
    } else if (!m.cgroup_version.empty() && refused.empty()) {
        m.notes.push_back(cgName + " (" + m.cgroup_path + "): no memory limit");
    }
    m.notes.insert(m.notes.end(), refused.begin(), refused.end());
    m.available = std::min(m.available, m.total);
    return m;
}

CpuInfo readCpuInfo(const ProbePaths& paths) {
    CpuInfo c;
    const std::string path = joinPath(paths.proc_root, "cpuinfo");
    std::string why;
    auto text = readSmallFile(path, &why);
    if (!text) {
        // A missing file says nothing new (the CPU figures are simply absent); one that is
        // there and refused (a FIFO, a device) is named.
        if (exists(path)) c.unread = path + " " + why;
        return c;
    }
    std::istringstream in(*text);
    std::string line;
    std::set<std::string> packages;
    unsigned coresPerPackage = 0;
    double mhz = 0;
    std::string flags;
    while (std::getline(in, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        const std::string key = trim(std::string_view(line).substr(0, colon));
        const std::string val = trim(std::string_view(line).substr(colon + 1));
        if (key == "processor")
            ++c.threads;
        else if (key == "model name" && c.name.empty())
            c.name = val;
        else if (key == "physical id")
            packages.insert(val);
        else if (key == "cpu cores" && coresPerPackage == 0)
            coresPerPackage = static_cast<unsigned>(parseU64(val).value_or(0));
        else if (key == "cpu MHz" && mhz == 0)
            mhz = std::strtod(val.c_str(), nullptr);
        else if ((key == "flags" || key == "Features") && flags.empty())
            flags = " " + val + " ";
    }
    c.cores = coresPerPackage * static_cast<unsigned>(std::max<size_t>(1, packages.size()));
    if (auto khz =
            readU64(joinPath(paths.sys_root, "devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")))
        c.max_ghz = static_cast<double>(*khz) / 1e6;
    else
        c.max_ghz = mhz / 1000.0;
    // FP32 FLOPs per core per cycle, two FMA pipes assumed (every x86 core with AVX2 since
    // Haswell; AVX-512 parts double the width): 2 pipes x lanes x 2 (FMA). Not a knob.
    if (flags.find(" avx512f ") != std::string::npos)
        c.flops_per_cycle = 64;
    else if (flags.find(" avx2 ") != std::string::npos && flags.find(" fma ") != std::string::npos)
        c.flops_per_cycle = 32;
    else if (flags.find(" asimd ") != std::string::npos ||
             flags.find(" sse2 ") != std::string::npos)
        c.flops_per_cycle = 16;
    return c;
}

} // namespace headroom::probe::detail
