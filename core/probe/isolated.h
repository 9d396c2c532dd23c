// Vulkan and NVML enumeration in a child process with a time limit. Both load vendor code
// (the Vulkan loader, every ICD it finds, libnvidia-ml) that can hang: VK_ICD_FILENAMES naming a
// FIFO blocks the loader in open(), a wedged driver blocks in an ioctl. In-process that hangs the
// command; in a forked child it costs at most the time limit, and the result says which source
// did not answer. The CLI (probe, and plan/export/catalog, which probe by default) uses this; the
// GUI already runs the whole probe as `headroom-cli probe --json` in a child.
#pragma once

#include "nvml.h"
#include "vulkan_probe.h"

#include <functional>
#include <string>
#include <vector>

namespace headroom::probe::detail {

// Enough for any real driver to enumerate (cold NVIDIA and Mesa start-up is well under a second)
// and short enough that a hang costs seconds. Both sources run at the same time, so a probe
// with both hanging still takes about this long once. Not a knob.
inline constexpr int kIsolatedProbeTimeoutMs = 3000;

struct ChildOutput {
    enum class Status { Ok, TimedOut, Crashed, Failed } status = Status::Failed;
    std::string output; // what the child wrote (Ok only)
    std::string why;    // Crashed / Failed: a sentence
};

// Runs each job in its own forked child, all at once; each job's return value travels back over a
// pipe. A child still running at the deadline is killed (SIGKILL) and reported TimedOut.
std::vector<ChildOutput> runInChildren(const std::vector<std::function<std::string()>>& jobs,
                                       int timeout_ms);

// readVulkan / readNvml in children, concurrently. A source that times out or crashes comes back
// empty, with the reason in VulkanResult::failure / NvmlResult::notes, and `*_timed_out` set.
struct IsolatedSources {
    VulkanResult vulkan;
    NvmlResult nvml;
    bool vulkan_timed_out = false, nvml_timed_out = false;
};
IsolatedSources readSourcesIsolated(bool use_vulkan, const std::string& vulkan_library,
                                    bool use_nvml, const std::vector<std::string>& nvml_libraries,
                                    int timeout_ms);

// The wire form between child and parent (JSON); exposed for the round-trip test.
std::string vulkanResultToText(const VulkanResult& r);
bool vulkanResultFromText(const std::string& text, VulkanResult& out);
std::string nvmlResultToText(const NvmlResult& r);
bool nvmlResultFromText(const std::string& text, NvmlResult& out);

} // namespace headroom::probe::detail
