#include "isolated.h"

#include "text_file.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace headroom::probe::detail {

using nlohmann::json;

namespace {

// A device list is a few KiB; anything near this is not a real answer. Not a knob.
constexpr std::size_t kMaxChildOutput = 4u * 1024u * 1024u;
// After SIGKILL a child stuck in an uninterruptible driver call may not be reapable at once;
// wait this long for it, then leave it (it is reaped by init when this process exits).
constexpr int kReapGraceMs = 200;

struct Child {
    pid_t pid = -1;
    int fd = -1;
    std::string buf;
    bool eof = false;
    bool overflow = false;
};

void writeAllTo(int fd, const std::string& s) {
    std::size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return;
        }
        done += static_cast<std::size_t>(n);
    }
}

bool reap(pid_t pid, int& status, int grace_ms) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
    for (;;) {
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid) return true;
        if (r < 0 && errno != EINTR) return false;
        if (std::chrono::steady_clock::now() >= until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

json optBytes(const std::optional<Bytes>& b) {
    return b ? json(*b) : json(nullptr);
}

// Values come from our own child, but are checked like any input: a child that died half-way
// through writing must not make the parent throw.
std::optional<Bytes> readOptBytes(const json& j) {
    if (j.is_number_unsigned()) return j.get<Bytes>();
    return std::nullopt;
}

} // namespace

std::vector<ChildOutput> runInChildren(const std::vector<std::function<std::string()>>& jobs,
                                       int timeout_ms) {
    std::vector<ChildOutput> out(jobs.size());
    std::vector<Child> kids(jobs.size());
    std::fflush(nullptr); // a child must not re-emit buffered output (it leaves with _exit anyway)
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        int p[2];
        if (::pipe2(p, O_CLOEXEC) != 0) {
            out[i].why = std::string("pipe: ") + std::strerror(errno);
            continue;
        }
        const pid_t pid = ::fork();
        if (pid < 0) {
            out[i].why = std::string("fork: ") + std::strerror(errno);
            ::close(p[0]);
            ::close(p[1]);
            continue;
        }
        if (pid == 0) {
            ::close(p[0]);
            std::string text;
            try {
                text = jobs[i]();
            } catch (...) {
                ::_exit(3);
            }
            writeAllTo(p[1], text);
            ::_exit(0);
        }
        ::close(p[1]);
        kids[i].pid = pid;
        kids[i].fd = p[0];
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        std::vector<pollfd> fds;
        std::vector<std::size_t> which;
        for (std::size_t i = 0; i < kids.size(); ++i)
            if (kids[i].fd >= 0 && !kids[i].eof) {
                fds.push_back({kids[i].fd, POLLIN, 0});
                which.push_back(i);
            }
        if (fds.empty()) break;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
        if (left <= 0) break;
        const int n = ::poll(fds.data(), fds.size(), static_cast<int>(left));
        if (n < 0 && errno != EINTR) break;
        for (std::size_t k = 0; k < fds.size(); ++k) {
            if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            Child& c = kids[which[k]];
            char chunk[65536];
            const ssize_t r = ::read(c.fd, chunk, sizeof chunk);
            if (r > 0) {
                if (c.buf.size() + static_cast<std::size_t>(r) > kMaxChildOutput) {
                    c.overflow = true;
                    c.eof = true;
                } else {
                    c.buf.append(chunk, static_cast<std::size_t>(r));
                }
            } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
                c.eof = true;
            }
        }
    }
    for (std::size_t i = 0; i < kids.size(); ++i) {
        Child& c = kids[i];
        if (c.pid < 0) continue;
        ::close(c.fd);
        int status = 0;
        if (!c.eof) {
            ::kill(c.pid, SIGKILL);
            reap(c.pid, status, kReapGraceMs);
            out[i].status = ChildOutput::Status::TimedOut;
            continue;
        }
        if (!reap(c.pid, status, timeout_ms)) {
            // Closed its pipe but did not exit: treat as hung.
            ::kill(c.pid, SIGKILL);
            reap(c.pid, status, kReapGraceMs);
            out[i].status = ChildOutput::Status::TimedOut;
            continue;
        }
        if (c.overflow) {
            out[i].status = ChildOutput::Status::Failed;
            out[i].why = "answer larger than " + std::to_string(kMaxChildOutput) + " bytes";
        } else if (WIFSIGNALED(status)) {
            out[i].status = ChildOutput::Status::Crashed;
            out[i].why = std::string("crashed (") + ::strsignal(WTERMSIG(status)) + ")";
        } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            out[i].status = ChildOutput::Status::Ok;
            out[i].output = std::move(c.buf);
        } else {
            out[i].status = ChildOutput::Status::Failed;
            out[i].why = "exited with status " + std::to_string(WEXITSTATUS(status));
        }
    }
    return out;
}

std::string vulkanResultToText(const VulkanResult& r) {
    json devices = json::array();
    for (const auto& d : r.devices) {
        json heaps = json::array();
        for (const auto& h : d.heaps)
            heaps.push_back({{"size", h.size},
                             {"device_local", h.device_local},
                             {"budget", optBytes(h.budget)},
                             {"usage", optBytes(h.usage)}});
        devices.push_back({{"index", d.index},
                           {"name", d.name},
                           {"vendor_id", d.vendor_id},
                           {"device_id", d.device_id},
                           {"device_type", d.device_type},
                           {"api_version", d.api_version},
                           {"driver_id", d.driver_id},
                           {"driver_name", d.driver_name},
                           {"driver_info", d.driver_info},
                           {"uuid", d.uuid},
                           {"pci_address", d.pci_address},
                           {"has_budget", d.has_budget},
                           {"heaps", heaps}});
    }
    return dumpJson(json{{"loaded", r.loaded},
                         {"instance_version", r.instance_version},
                         {"devices", devices},
                         {"failure", r.failure},
                         {"notes", r.notes}},
                    -1);
}

bool vulkanResultFromText(const std::string& text, VulkanResult& out) {
    const json j = json::parse(text, nullptr, false);
    if (!j.is_object()) return false;
    try {
        VulkanResult r;
        r.loaded = j.value("loaded", false);
        r.instance_version = j.value("instance_version", 0u);
        r.failure = j.value("failure", std::string());
        r.notes = j.value("notes", std::vector<std::string>());
        for (const auto& d : j.at("devices")) {
            VulkanDeviceInfo v;
            v.index = d.value("index", 0u);
            v.name = d.value("name", std::string());
            v.vendor_id = d.value("vendor_id", 0u);
            v.device_id = d.value("device_id", 0u);
            v.device_type = d.value("device_type", static_cast<int>(kVkOther));
            v.api_version = d.value("api_version", 0u);
            v.driver_id = d.value("driver_id", 0u);
            v.driver_name = d.value("driver_name", std::string());
            v.driver_info = d.value("driver_info", std::string());
            v.uuid = d.value("uuid", std::string());
            v.pci_address = d.value("pci_address", std::string());
            v.has_budget = d.value("has_budget", false);
            for (const auto& h : d.at("heaps")) {
                VulkanHeap heap;
                heap.size = h.value("size", Bytes{0});
                heap.device_local = h.value("device_local", false);
                heap.budget = readOptBytes(h.at("budget"));
                heap.usage = readOptBytes(h.at("usage"));
                v.heaps.push_back(heap);
            }
            r.devices.push_back(std::move(v));
        }
        out = std::move(r);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

std::string nvmlResultToText(const NvmlResult& r) {
    json gpus = json::array();
    for (const auto& g : r.gpus)
        gpus.push_back({{"index", g.index},
                        {"name", g.name},
                        {"pci_address", g.pci_address},
                        {"vendor_id", g.vendor_id},
                        {"device_id", g.device_id},
                        {"total", optBytes(g.total)},
                        {"free", optBytes(g.free)},
                        {"bus_width_bits", g.bus_width_bits},
                        {"max_mem_clock_mhz", g.max_mem_clock_mhz},
                        {"pcie_max_gen", g.pcie_max_gen},
                        {"pcie_max_width", g.pcie_max_width}});
    return dumpJson(json{{"loaded", r.loaded},
                         {"library", r.library},
                         {"driver_version", r.driver_version},
                         {"gpus", gpus},
                         {"notes", r.notes}},
                    -1);
}

bool nvmlResultFromText(const std::string& text, NvmlResult& out) {
    const json j = json::parse(text, nullptr, false);
    if (!j.is_object()) return false;
    try {
        NvmlResult r;
        r.loaded = j.value("loaded", false);
        r.library = j.value("library", std::string());
        r.driver_version = j.value("driver_version", std::string());
        r.notes = j.value("notes", std::vector<std::string>());
        for (const auto& g : j.at("gpus")) {
            NvmlGpu n;
            n.index = g.value("index", 0u);
            n.name = g.value("name", std::string());
            n.pci_address = g.value("pci_address", std::string());
            n.vendor_id = g.value("vendor_id", 0u);
            n.device_id = g.value("device_id", 0u);
            n.total = readOptBytes(g.at("total"));
            n.free = readOptBytes(g.at("free"));
            n.bus_width_bits = g.value("bus_width_bits", 0u);
            n.max_mem_clock_mhz = g.value("max_mem_clock_mhz", 0u);
            n.pcie_max_gen = g.value("pcie_max_gen", 0u);
            n.pcie_max_width = g.value("pcie_max_width", 0u);
            r.gpus.push_back(std::move(n));
        }
        out = std::move(r);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

IsolatedSources readSourcesIsolated(bool use_vulkan, const std::string& vulkan_library,
                                    bool use_nvml, const std::vector<std::string>& nvml_libraries,
                                    int timeout_ms) {
    IsolatedSources s;
    std::vector<std::function<std::string()>> jobs;
    if (use_vulkan)
        jobs.emplace_back([&] { return vulkanResultToText(readVulkan(vulkan_library)); });
    if (use_nvml) jobs.emplace_back([&] { return nvmlResultToText(readNvml(nvml_libraries)); });
    const auto results = runInChildren(jobs, timeout_ms);
    const std::string limit = std::to_string(timeout_ms / 1000.0).substr(0, 3) + " s";
    std::size_t k = 0;
    if (use_vulkan) {
        const ChildOutput& c = results[k++];
        if (c.status == ChildOutput::Status::TimedOut) {
            s.vulkan_timed_out = true;
            s.vulkan.failure = "Vulkan timed out: enumeration did not finish within " + limit +
                               " (the Vulkan loader or a driver hangs; check VK_ICD_FILENAMES and "
                               "the installed ICDs); planned without Vulkan";
        } else if (c.status != ChildOutput::Status::Ok ||
                   !vulkanResultFromText(c.output, s.vulkan)) {
            s.vulkan = VulkanResult{};
            s.vulkan.failure =
                "Vulkan enumeration failed: " + (c.why.empty() ? std::string("no answer") : c.why) +
                "; planned without Vulkan";
        }
    }
    if (use_nvml) {
        const ChildOutput& c = results[k++];
        if (c.status == ChildOutput::Status::TimedOut) {
            s.nvml_timed_out = true;
            s.nvml.notes.push_back("NVML timed out: no answer within " + limit +
                                   " (the NVIDIA driver hangs); planned without NVML");
        } else if (c.status != ChildOutput::Status::Ok || !nvmlResultFromText(c.output, s.nvml)) {
            s.nvml = NvmlResult{};
            s.nvml.notes.push_back(
                "NVML failed: " + (c.why.empty() ? std::string("no answer") : c.why) +
                "; planned without NVML");
        }
    }
    return s;
}

} // namespace headroom::probe::detail
