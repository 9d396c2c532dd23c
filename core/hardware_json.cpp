#include "hardware_json.h"

#include "backend/backend.h"
#include "resources.h"
#include "text_file.h"

#include <cmath>
#include <cstdio>

namespace headroom {

using nlohmann::json;

namespace {

std::string hexId(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%04x", v);
    return buf;
}

json optionalBytes(const std::optional<Bytes>& b) {
    return b ? json(*b) : json(nullptr);
}

// The verified calibration (core/calibration.h); null when the profile was never verified.
json calibrationJson(const std::optional<Calibration>& c) {
    if (!c) return nullptr;
    return {{"llama_build", c->llama_build},
            {"backend", c->backend},
            {"model", c->model},
            {"context", c->context},
            {"device_compute_factor", c->device_compute_factor},
            {"host_compute_factor", c->host_compute_factor},
            {"device_overhead_bytes", c->device_overhead_bytes}};
}

// Reads typed fields out of one JSON object and remembers the first problem, so the parsing code
// stays a flat list of fields and the error names the exact path ("devices[1].total_bytes").
class Reader {
public:
    Reader(const json& obj, std::string path, std::optional<Error>& err)
        : obj_(obj), path_(std::move(path)), err_(err) {}

    std::string field(const std::string& key) const {
        return path_.empty() ? key : path_ + "." + key;
    }
    bool has(const std::string& key) const {
        return obj_.is_object() && obj_.contains(key) && !obj_.at(key).is_null();
    }
    const json& at(const std::string& key) const { return obj_.at(key); }

    void fail(const std::string& key, const std::string& what) {
        if (!err_) err_ = makeError(ErrorCode::InvalidArgument, field(key) + ": " + what);
    }

    void str(const std::string& key, std::string& out) {
        if (!has(key)) return;
        if (!at(key).is_string()) return fail(key, "expected a string");
        out = at(key).get<std::string>();
    }
    void boolean(const std::string& key, bool& out) {
        if (!has(key)) return;
        if (!at(key).is_boolean()) return fail(key, "expected true or false");
        out = at(key).get<bool>();
    }
    void bytes(const std::string& key, Bytes& out) {
        if (!has(key)) return;
        const json& v = at(key);
        if (!v.is_number_integer() ||
            (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0))
            return fail(key, "expected a non-negative integer number of bytes");
        const Bytes b = v.get<Bytes>();
        if (b > kMaxPlausibleBytes) return fail(key, "larger than 1 PiB");
        out = b;
    }
    void optBytes(const std::string& key, std::optional<Bytes>& out) {
        if (!has(key)) return;
        Bytes b = 0;
        bytes(key, b);
        if (!err_) out = b;
    }
    void number(const std::string& key, double& out, double max) {
        if (!has(key)) return;
        const json& v = at(key);
        if (!v.is_number()) return fail(key, "expected a number");
        const double d = v.get<double>();
        if (!std::isfinite(d) || d < 0 || d > max)
            return fail(key,
                        "must be between 0 and " + std::to_string(static_cast<long long>(max)));
        out = d;
    }
    void u32(const std::string& key, std::uint32_t& out, std::uint32_t max) {
        if (!has(key)) return;
        const json& v = at(key);
        if (!v.is_number_unsigned() || v.get<std::uint64_t>() > max)
            return fail(key, "expected an integer from 0 to " + std::to_string(max));
        out = static_cast<std::uint32_t>(v.get<std::uint64_t>());
    }
    // Ids are written "0x10de"; integers are accepted too because people type them.
    void id(const std::string& key, std::uint32_t& out) {
        if (!has(key)) return;
        const json& v = at(key);
        if (v.is_number_unsigned() && v.get<std::uint64_t>() <= 0xffffffffULL) {
            out = static_cast<std::uint32_t>(v.get<std::uint64_t>());
            return;
        }
        if (v.is_string()) {
            const std::string s = v.get<std::string>();
            char* end = nullptr;
            const unsigned long long n = std::strtoull(s.c_str(), &end, 0);
            if (!s.empty() && end && *end == '\0' && n <= 0xffffffffULL) {
                out = static_cast<std::uint32_t>(n);
                return;
            }
        }
        fail(key, "expected an id such as \"0x10de\" or 4318");
    }
    void strings(const std::string& key, std::vector<std::string>& out) {
        if (!has(key)) return;
        if (!at(key).is_array()) return fail(key, "expected an array of strings");
        for (size_t i = 0; i < at(key).size(); ++i) {
            if (!at(key)[i].is_string())
                return fail(key + "[" + std::to_string(i) + "]", "expected a string");
            out.push_back(at(key)[i].get<std::string>());
        }
    }
    bool object(const std::string& key) {
        if (!has(key)) return false;
        if (!at(key).is_object()) {
            fail(key, "expected an object");
            return false;
        }
        return true;
    }
    bool array(const std::string& key) {
        if (!has(key)) return false;
        if (!at(key).is_array()) {
            fail(key, "expected an array");
            return false;
        }
        return true;
    }

private:
    const json& obj_;
    std::string path_;
    std::optional<Error>& err_;
};

GpuDevice gpuFromJson(const json& j, const std::string& path, std::optional<Error>& err,
                      bool rpc = false) {
    GpuDevice g;
    if (!j.is_object()) {
        if (!err) err = makeError(ErrorCode::InvalidArgument, path + ": expected an object");
        return g;
    }
    Reader r(j, path, err);
    r.str("name", g.name);
    r.str("backend", g.backend);
    // "rpc": a device an rpc-server serves whose backend the protocol does not say.
    const auto known = backendFromName(g.backend);
    if (!known || (*known == Backend::Rpc && !rpc))
        r.fail("backend", "'" + g.backend + "' is not one of " +
                              std::string(backendNamesForHelp()) + (rpc ? ", rpc" : ""));
    else
        g.backend = std::string(traitsOf(*known).name); // one spelling per backend
    r.id("vendor_id", g.vendor_id);
    r.id("device_id", g.device_id);
    r.str("pci_address", g.pci_address);
    r.str("driver", g.driver);
    r.str("device_type", g.device_type);
    r.str("uuid", g.uuid);
    r.boolean("integrated", g.integrated);
    r.bytes("total_bytes", g.total_bytes);
    r.optBytes("free_bytes", g.free_bytes);
    r.str("memory_provenance", g.memory_provenance);
    r.number("bandwidth_gbs", g.bandwidth_gbs, kMaxPlausibleGbs);
    r.str("bandwidth_provenance", g.bandwidth_provenance);
    r.number("fp16_tflops", g.fp16_tflops, kMaxPlausibleTflops);
    r.str("fp16_provenance", g.fp16_provenance);
    r.str("note", g.note);
    if (r.object("pcie")) {
        Reader p(r.at("pcie"), r.field("pcie"), err);
        // PCIe 7 is the newest generation specified; x32 the widest link. Not knobs.
        p.u32("gen", g.pcie_gen, 7);
        p.u32("width", g.pcie_width, 32);
        p.str("provenance", g.pcie_provenance);
    }
    if (r.array("heaps")) {
        const json& hs = r.at("heaps");
        for (size_t i = 0; i < hs.size(); ++i) {
            const std::string hp = r.field("heaps") + "[" + std::to_string(i) + "]";
            if (!hs[i].is_object()) {
                if (!err) err = makeError(ErrorCode::InvalidArgument, hp + ": expected an object");
                break;
            }
            Reader h(hs[i], hp, err);
            MemoryHeap heap;
            h.bytes("size_bytes", heap.size);
            h.boolean("device_local", heap.device_local);
            h.optBytes("budget_bytes", heap.budget);
            h.optBytes("usage_bytes", heap.usage);
            g.heaps.push_back(heap);
        }
    }
    if (!err && g.free_bytes && *g.free_bytes > g.total_bytes)
        r.fail("free_bytes", "exceeds total_bytes");
    return g;
}

void devicesFromJson(Reader& r, const std::string& key, std::vector<GpuDevice>& out,
                     std::optional<Error>& err, std::size_t max, bool rpc = false) {
    if (!r.array(key)) return;
    const json& arr = r.at(key);
    if (arr.size() > max)
        return r.fail(key, std::to_string(arr.size()) + " devices; at most " + std::to_string(max) +
                               " are accepted");
    for (size_t i = 0; i < arr.size() && !err; ++i)
        out.push_back(gpuFromJson(arr[i], r.field(key) + "[" + std::to_string(i) + "]", err, rpc));
}

// rpc_hosts[]: {endpoint, label, devices[], ram_total_bytes, link_gbs, rtt_ms, provenances}.
void rpcHostsFromJson(Reader& r, std::vector<RpcHost>& out, std::optional<Error>& err) {
    if (!r.array("rpc_hosts")) return;
    const json& arr = r.at("rpc_hosts");
    if (arr.size() > kMaxDevices)
        return r.fail("rpc_hosts", std::to_string(arr.size()) + " hosts; at most " +
                                       std::to_string(kMaxDevices) + " are accepted");
    for (size_t i = 0; i < arr.size() && !err; ++i) {
        const std::string at = r.field("rpc_hosts") + "[" + std::to_string(i) + "]";
        if (!arr[i].is_object()) {
            err = makeError(ErrorCode::InvalidArgument, at + ": expected an object");
            return;
        }
        Reader h(arr[i], at, err);
        RpcHost host;
        if (!h.has("endpoint")) h.fail("endpoint", "missing: the host:port rpc-server listens on");
        h.str("endpoint", host.endpoint);
        h.str("label", host.label);
        h.str("source", host.source);
        if (!h.has("devices")) h.fail("devices", "missing: the devices the server serves");
        devicesFromJson(h, "devices", host.devices, err, kMaxDevices, true);
        h.optBytes("ram_total_bytes", host.ram_total);
        h.number("link_gbs", host.link_gbs, kMaxRpcLinkGbs);
        h.str("link_provenance", host.link_provenance);
        h.number("rtt_ms", host.rtt_ms, kMaxRpcRttMs);
        h.str("rtt_provenance", host.rtt_provenance);
        out.push_back(std::move(host));
    }
}

} // namespace

Result<json> parseJsonText(const std::string& text, const std::string& what) {
    return parseJsonDocument(text, what);
}

json gpuDeviceToJson(const GpuDevice& g) {
    json heaps = json::array();
    for (const auto& h : g.heaps)
        heaps.push_back({{"size_bytes", h.size},
                         {"device_local", h.device_local},
                         {"budget_bytes", optionalBytes(h.budget)},
                         {"usage_bytes", optionalBytes(h.usage)}});
    return {
        {"name", g.name},
        {"backend", g.backend},
        {"vendor_id", hexId(g.vendor_id)},
        {"device_id", hexId(g.device_id)},
        {"pci_address", g.pci_address},
        {"driver", g.driver},
        {"device_type", g.device_type},
        {"uuid", g.uuid},
        {"integrated", g.integrated},
        {"total_bytes", g.total_bytes},
        {"free_bytes", optionalBytes(g.free_bytes)},
        {"memory_provenance", g.memory_provenance},
        {"bandwidth_gbs", g.bandwidth_gbs},
        {"bandwidth_provenance", g.bandwidth_provenance},
        {"fp16_tflops", g.fp16_tflops},
        {"fp16_provenance", g.fp16_provenance},
        {"pcie", {{"gen", g.pcie_gen}, {"width", g.pcie_width}, {"provenance", g.pcie_provenance}}},
        {"heaps", heaps},
        {"note", g.note}};
}

json hardwareToJson(const HardwareSnapshot& hw) {
    json devices = json::array(), ignored = json::array();
    for (const auto& g : hw.gpus)
        devices.push_back(gpuDeviceToJson(g));
    for (const auto& g : hw.ignored_devices)
        ignored.push_back(gpuDeviceToJson(g));
    json rpc = json::array();
    for (const auto& h : hw.rpc_hosts) {
        json devs = json::array();
        for (const auto& g : h.devices)
            devs.push_back(gpuDeviceToJson(g));
        rpc.push_back({{"endpoint", h.endpoint},
                       {"label", h.label},
                       {"source", h.source},
                       {"devices", devs},
                       {"ram_total_bytes", optionalBytes(h.ram_total)},
                       {"link_gbs", h.link_gbs},
                       {"link_provenance", h.link_provenance},
                       {"rtt_ms", h.rtt_ms},
                       {"rtt_provenance", h.rtt_provenance}});
    }
    json cgroup = nullptr;
    if (!hw.cgroup_version.empty() || hw.cgroup_limit)
        cgroup = {{"version", hw.cgroup_version},
                  {"limit_bytes", optionalBytes(hw.cgroup_limit)},
                  {"usage_bytes", optionalBytes(hw.cgroup_usage)}};
    return {{"schema", kHardwareSchema},
            {"label", hw.label},
            {"source", hw.source},
            {"uma", hw.uma},
            {"devices", devices},
            {"ignored_devices", ignored},
            {"ram",
             {{"total_bytes", hw.ram_total},
              {"available_bytes", optionalBytes(hw.ram_available)},
              {"provenance", hw.ram_provenance},
              {"available_provenance", hw.ram_available_provenance},
              {"swap_total_bytes", hw.swap_total},
              {"swap_free_bytes", optionalBytes(hw.swap_free)},
              {"bandwidth_gbs", hw.host_bandwidth_gbs},
              {"bandwidth_provenance", hw.host_bandwidth_provenance},
              {"cgroup", cgroup}}},
            {"cpu",
             {{"name", hw.cpu_name},
              {"threads", hw.cpu_threads},
              {"tflops", hw.cpu_tflops},
              {"tflops_provenance", hw.cpu_tflops_provenance}}},
            {"notes", hw.notes},
            {"rpc_hosts", rpc},

            {"calibration", calibrationJson(hw.calibration)}};
}

namespace {

Result<HardwareSnapshot> hardwareFromJsonUnguarded(const json& j, const std::string& where) {
    const std::string& root = where;
    if (!j.is_object())
        return makeError(ErrorCode::InvalidArgument,
                         (root.empty() ? std::string("hardware") : root) + ": expected an object");
    std::optional<Error> err;
    HardwareSnapshot hw;
    Reader r(j, root, err);
    std::string schema;
    r.str("schema", schema);
    if (!err && r.has("schema") && schema != kHardwareSchema)
        return makeError(ErrorCode::Unsupported,
                         r.field("schema") + ": '" + schema + "' is not " + kHardwareSchema);
    r.str("label", hw.label);
    r.str("source", hw.source);
    r.boolean("uma", hw.uma);
    devicesFromJson(r, "devices", hw.gpus, err, kMaxDevices);
    devicesFromJson(r, "ignored_devices", hw.ignored_devices, err, kMaxIgnoredDevices);
    if (r.object("ram")) {
        Reader m(r.at("ram"), r.field("ram"), err);
        // "ram": {} is not a machine with 0 bytes of RAM: the figure is required.
        if (!m.has("total_bytes")) m.fail("total_bytes", "missing: the RAM size in bytes");
        m.bytes("total_bytes", hw.ram_total);
        m.optBytes("available_bytes", hw.ram_available);
        m.str("provenance", hw.ram_provenance);
        m.str("available_provenance", hw.ram_available_provenance);
        m.bytes("swap_total_bytes", hw.swap_total);
        m.optBytes("swap_free_bytes", hw.swap_free);
        m.number("bandwidth_gbs", hw.host_bandwidth_gbs, kMaxPlausibleGbs);
        m.str("bandwidth_provenance", hw.host_bandwidth_provenance);
        if (m.object("cgroup")) {
            Reader c(m.at("cgroup"), m.field("cgroup"), err);
            c.str("version", hw.cgroup_version);
            c.optBytes("limit_bytes", hw.cgroup_limit);
            c.optBytes("usage_bytes", hw.cgroup_usage);
        }
    } else if (!err) {
        r.fail("ram", "missing: a profile needs ram.total_bytes");
    }
    if (r.object("cpu")) {
        Reader c(r.at("cpu"), r.field("cpu"), err);
        c.str("name", hw.cpu_name);
        // 4096 hardware threads is beyond any single host today. Not a knob.
        std::uint32_t threads = 0;
        c.u32("threads", threads, 4096);
        hw.cpu_threads = threads;
        c.number("tflops", hw.cpu_tflops, kMaxPlausibleTflops);
        c.str("tflops_provenance", hw.cpu_tflops_provenance);
    }
    r.strings("notes", hw.notes);
    rpcHostsFromJson(r, hw.rpc_hosts, err);
    if (r.object("calibration")) {
        Reader c(r.at("calibration"), r.field("calibration"), err);
        Calibration cal;
        c.str("llama_build", cal.llama_build);
        c.str("backend", cal.backend);
        c.str("model", cal.model);
        c.u32("context", cal.context, UINT32_MAX);
        // A compute buffer 1000 times its estimate is a broken measurement, not a calibration.
        // Not a knob.
        c.number("device_compute_factor", cal.device_compute_factor, 1000);
        c.number("host_compute_factor", cal.host_compute_factor, 1000);
        c.bytes("device_overhead_bytes", cal.device_overhead_bytes);
        hw.calibration = cal;
    }
    if (err) return *err;
    if (auto ok = validateSnapshot(hw); !ok) {
        Error e = ok.error();
        if (!root.empty()) e.message = root + "." + e.message;
        return e;
    }
    return hw;
}

} // namespace

Result<HardwareSnapshot> hardwareFromJson(const json& j, const std::string& where) {
    // The checks above test every type before get<>(); the guard is for what they cannot see
    // (memory exhaustion), so no exception leaves core.
    try {
        return hardwareFromJsonUnguarded(j, where);
    } catch (const std::exception& e) {
        return makeError(ErrorCode::InvalidArgument,
                         (where.empty() ? std::string("hardware") : where) + ": " + e.what());
    }
}

Result<HardwareSnapshot> hardwareFromJsonText(const std::string& text, const std::string& where) {
    auto j = parseJsonText(text, where.empty() ? std::string("hardware profile") : where);
    if (!j) return j.error();
    return hardwareFromJson(*j, where);
}

Result<HardwareSnapshot> loadHardwareProfile(const std::string& path) {
    auto j = readJsonFile(path);
    if (!j) return j.error();
    auto hw = hardwareFromJson(*j);
    // A field out of range inside the file is unreadable input (exit 3), like broken syntax.
    if (!hw) return asFileContentError(hw.error(), "'" + path + "'");
    hw->source = "file:" + path;
    return hw;
}

Result<bool> saveHardwareProfile(const std::string& path, const HardwareSnapshot& hw,
                                 bool overwrite) {
    if (auto ok = validateSnapshot(hw); !ok) return ok.error();
    const json j = hardwareToJson(hw);
    // What is saved must load back: the reader's checks are stricter than validateSnapshot()
    // (thread counts, PCIe links, bandwidths), so the document is read back before writing.
    if (auto back = hardwareFromJson(j); !back)
        return makeError(ErrorCode::InvalidArgument,
                         "the snapshot would not load back as a profile: " + back.error().message);
    return writeFileAtomically(path, dumpJson(j) + "\n", overwrite);
}

} // namespace headroom
