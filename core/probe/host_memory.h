// System RAM, swap and container limits from /proc and cgroup v1/v2 (internal to headroom_probe).
#pragma once

#include "probe.h"

#include <optional>
#include <string>
#include <vector>

namespace headroom::probe::detail {

struct HostMemory {
    Bytes mem_total = 0;     // MemTotal
    Bytes mem_available = 0; // MemAvailable, or MemFree + Buffers + Cached on old kernels
    Bytes swap_total = 0, swap_free = 0;
    std::string cgroup_version;        // "v1", "v2", "" when no memory controller was found
    std::string cgroup_path;           // the process's cgroup, as /proc/self/cgroup names it
    std::optional<Bytes> cgroup_limit; // tightest limit on the path to the root (none: unlimited)
    std::optional<Bytes> cgroup_usage; // usage of that cgroup minus inactive file cache
    Bytes total = 0;                   // min(MemTotal, limit)
    Bytes available = 0;               // min(MemAvailable, limit - usage) over the path
    std::string total_provenance, available_provenance;
    std::vector<std::string> notes;
};

// Error (ProbeFailed) only when meminfo is unreadable or has no MemTotal.
Result<HostMemory> readHostMemory(const ProbePaths& paths);

struct CpuInfo {
    std::string name;
    unsigned threads = 0;
    unsigned cores = 0;           // physical cores (cpu cores x sockets), 0 when unknown
    double max_ghz = 0;           // cpufreq cpuinfo_max_freq, else "cpu MHz"
    unsigned flops_per_cycle = 0; // FP32 per core per cycle from the SIMD flags
    std::string unread;           // why an existing /proc/cpuinfo was not read ("" when it was)
};
CpuInfo readCpuInfo(const ProbePaths& paths);

} // namespace headroom::probe::detail
