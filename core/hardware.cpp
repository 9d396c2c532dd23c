#include "hardware.h"

#include "backend/backend.h"
#include "gpu_specs.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace headroom {

std::vector<ClusterDevice> clusterDevices(const HardwareSnapshot& hw) {
    std::vector<ClusterDevice> out;
    // ggml-rpc.cpp ggml_backend_rpc_add_server numbers RPC devices with one counter across all
    // servers, in the order --rpc lists them; llama_prepare_model_devices puts them first.
    std::size_t rpc_id = 0;
    for (size_t h = 0; h < hw.rpc_hosts.size(); ++h)
        for (const auto& g : hw.rpc_hosts[h].devices) {
            const std::string name = "RPC" + std::to_string(rpc_id++);
            const RpcHost& host = hw.rpc_hosts[h];
            // The host's label, when it has one, rides along so every table, chart and refusal
            // groups and names the device by its machine.
            out.push_back({&g, static_cast<int>(h), name,
                           "rpc " + host.endpoint +
                               (host.label.empty() ? "" : " (" + host.label + ")") + " " + name});
        }
    for (const auto& g : hw.gpus)
        out.push_back({&g, -1, g.name, g.name});
    return out;
}

namespace {

// "host:port" or "[v6]:port" with a port of 1-65535: the form llama-server's --rpc takes.
bool plausibleEndpoint(const std::string& e) {
    const size_t colon = e.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 >= e.size()) return false;
    unsigned port = 0;
    const char* first = e.data() + colon + 1;
    const char* last = e.data() + e.size();
    const auto [ptr, ec] = std::from_chars(first, last, port);
    if (ec != std::errc() || ptr != last || port == 0 || port > 65535) return false;
    const std::string host = e.substr(0, colon);
    if (host.front() == '[') return host.size() > 2 && host.back() == ']';
    return host.find_first_of(" \t/,") == std::string::npos;
}

Result<bool> validateRpcHosts(const HardwareSnapshot& hw) {
    auto bad = [](std::string msg) {
        return makeError(ErrorCode::InvalidArgument, std::move(msg));
    };
    if (hw.rpc_hosts.empty()) return true;
    if (hw.uma)
        return bad("rpc_hosts: a unified-memory main host with RPC hosts is not modelled yet");
    std::size_t n = hw.gpus.size();
    std::set<std::string> seen;
    for (size_t h = 0; h < hw.rpc_hosts.size(); ++h) {
        const RpcHost& r = hw.rpc_hosts[h];
        const std::string at = "rpc_hosts[" + std::to_string(h) + "]";
        if (!plausibleEndpoint(r.endpoint))
            return bad(at + ".endpoint: '" + r.endpoint + "' is not host:port (port 1-65535)");
        if (!seen.insert(r.endpoint).second)
            return bad(at + ".endpoint: " + r.endpoint + " is listed twice");
        if (r.devices.empty()) return bad(at + ".devices: an RPC host serves at least one device");
        if (!(r.link_gbs > 0) || r.link_gbs > kMaxRpcLinkGbs)
            return bad(at + ".link_gbs: must be above 0 and at most 1000 GB/s");
        if (!(r.rtt_ms >= 0) || r.rtt_ms > kMaxRpcRttMs)
            return bad(at + ".rtt_ms: must be between 0 and 10000 ms");
        if (r.ram_total && *r.ram_total > kMaxPlausibleBytes)
            return bad(at + ".ram_total_bytes is larger than 1 PiB");
        for (size_t i = 0; i < r.devices.size(); ++i) {
            const auto& g = r.devices[i];
            const std::string d = at + ".devices[" + std::to_string(i) + "]";
            if (g.total_bytes == 0) return bad(d + ".total_bytes: the device's memory is needed");
            if (g.total_bytes > kMaxPlausibleBytes)
                return bad(d + ".total_bytes is larger than 1 PiB");
            if (g.free_bytes && *g.free_bytes > g.total_bytes)
                return bad(d + ".free_bytes exceeds total_bytes");
        }
        n += r.devices.size();
    }
    if (n > kMaxDevices)
        return bad("rpc_hosts: " + std::to_string(n) +
                   " devices with this machine's GPUs; llama.cpp "
                   "uses at most " +
                   std::to_string(kMaxDevices));
    return true;
}

} // namespace

HardwareSnapshot snapshotFromSizes(const std::vector<Bytes>& vram, Bytes ram, bool uma) {
    HardwareSnapshot hw;
    hw.source = "user";
    hw.uma = uma;
    hw.ram_total = ram;
    hw.ram_provenance = "user";
    int i = 0;
    for (Bytes v : vram) {
        if (v == 0) continue; // --vram 0 means "no GPU"
        GpuDevice g;
        g.name = uma ? "Unified GPU" : "GPU" + std::to_string(i);
        g.integrated = uma;
        g.total_bytes = v;
        g.memory_provenance = "user";
        hw.gpus.push_back(g);
        ++i;
    }
    std::string label;
    for (const auto& g : hw.gpus)
        label += (label.empty() ? "" : " + ") + formatBytes(g.total_bytes);
    if (label.empty()) label = "CPU only";
    label += uma ? " unified" : "";
    label += " | RAM " + formatBytes(ram);
    hw.label = label;
    return hw;
}

Result<HardwareSnapshot> snapshotFromGpuNames(const std::vector<std::string>& names,
                                              const std::vector<Bytes>& vram, Bytes ram) {
    HardwareSnapshot hw;
    hw.source = "user";
    hw.ram_total = ram;
    hw.ram_provenance = "user";
    if (!vram.empty() && vram.size() != names.size())
        return makeError(ErrorCode::InvalidArgument,
                         "--vram gives " + std::to_string(vram.size()) + " sizes for " +
                             std::to_string(names.size()) + " GPUs named by --gpu");
    std::string label;
    for (size_t i = 0; i < names.size(); ++i) {
        auto spec = gpuSpecByName(names[i]);
        if (!spec) {
            std::string known;
            for (const auto& e : gpuSpecs())
                if (known.find(e.model) == std::string::npos)
                    known += (known.empty() ? "" : ", ") + std::string(e.model);
            return makeError(ErrorCode::NotFound, "unknown GPU '" + names[i] + "'",
                             "known: " + known);
        }
        GpuDevice g;
        g.name = spec->full_name;
        g.backend = std::string(traitsOf(spec->vendor_id == 0x106b   ? Backend::Metal
                                         : spec->vendor_id == 0x10de ? Backend::Cuda
                                                                     : Backend::Vulkan)
                                    .name);
        g.vendor_id = spec->vendor_id;
        g.device_id = spec->device_id;
        g.integrated = spec->uma;
        g.total_bytes = vram.empty() ? static_cast<Bytes>(spec->vram_gib * GiB) : vram[i];
        g.memory_provenance = vram.empty() ? "GPU table (typical variant)" : "user";
        applyGpuSpec(g, *spec);
        hw.uma = hw.uma || spec->uma;
        if (spec->uma) {
            // One pool: the machine's RAM is the GPU's memory and its bandwidth.
            g.total_bytes = ram;
            hw.host_bandwidth_gbs = spec->bandwidth_gbs;
            hw.host_bandwidth_provenance = g.bandwidth_provenance;
        }
        label += (label.empty() ? "" : " + ") + std::string(spec->model) + " " +
                 formatBytes(g.total_bytes);
        hw.gpus.push_back(g);
    }
    hw.label = label + (hw.uma ? " unified" : "") + " | RAM " + formatBytes(ram);
    return hw;
}

Result<bool> validateSnapshot(const HardwareSnapshot& hw) {
    auto bad = [](std::string msg) {
        return makeError(ErrorCode::InvalidArgument, std::move(msg));
    };
    if (hw.ram_total > kMaxPlausibleBytes)
        return bad("ram: " + formatBytes(hw.ram_total) + " is larger than 1 PiB");
    if (hw.gpus.size() > kMaxDevices)
        return bad("gpus: " + std::to_string(hw.gpus.size()) + " devices; llama.cpp uses at most " +
                   std::to_string(kMaxDevices));
    if (hw.ram_total == 0 && hw.gpus.empty())
        return bad("ram: the machine has neither RAM nor a GPU; give --ram SIZE");
    for (size_t i = 0; i < hw.gpus.size(); ++i) {
        const auto& g = hw.gpus[i];
        if (g.total_bytes > kMaxPlausibleBytes)
            return bad("gpus[" + std::to_string(i) + "].total_bytes is larger than 1 PiB");
        if (g.free_bytes && *g.free_bytes > g.total_bytes)
            return bad("gpus[" + std::to_string(i) + "].free_bytes exceeds total_bytes");
    }
    if (hw.ram_available && *hw.ram_available > hw.ram_total && hw.ram_total > 0)
        return bad("ram_available exceeds ram_total");
    if (hw.uma && hw.gpus.size() > 1) return bad("uma: a unified-memory machine has one GPU pool");
    return validateRpcHosts(hw);
}

SignedBytes MemoryBudget::vramUsable() const {
    SignedBytes s = 0;
    for (const auto& d : devices)
        s = satAddSigned(s, d.usable);
    return s;
}

namespace {

Bytes discreteMargin(Bytes total) {
    return std::max<Bytes>(kDiscreteMarginFloor, static_cast<Bytes>(kDiscreteMarginFraction *
                                                                    static_cast<double>(total)));
}

MemoryBudget makeBudget(const HardwareSnapshot& hw, const BudgetReserve& reserve, BudgetKind kind) {
    const Bytes extra = reserve.extra;
    auto beside = [&reserve](size_t device) {
        return toSigned(device < reserve.devices.size() ? reserve.devices[device] : 0);
    };
    MemoryBudget b;
    b.kind = kind;
    b.uma = hw.uma;
    b.ram_total = hw.ram_total;
    b.ram_provenance = hw.ram_provenance;
    const bool live = kind == BudgetKind::Live;
    // Live RAM is MemAvailable when the snapshot has it; a snapshot typed in by hand has only the
    // total, which then stands for both (the GPU's free figure is what live planning narrows on).
    const Bytes ram = live ? hw.ram_available.value_or(hw.ram_total) : hw.ram_total;
    if (hw.uma) {
        // One pool: the GPU's share is 80 % of it; host RAM is not extra spill room.
        Bytes pool = hw.gpus.empty() ? hw.ram_total : std::max(hw.gpus[0].total_bytes, Bytes{0});
        b.uma_pool_total = pool;
        Bytes base = pool;
        if (live) {
            // Live: what the pool has free now (the GPU's live figure, else RAM available).
            if (!hw.gpus.empty() && hw.gpus[0].free_bytes)
                base = *hw.gpus[0].free_bytes;
            else if (hw.ram_available)
                base = std::min(pool, *hw.ram_available);
            else
                b.unknown = true;
        }
        DeviceBudget d;
        d.name = hw.gpus.empty() ? "Unified memory" : hw.gpus[0].name;
        d.total = pool;
        d.margin = satSub(pool, static_cast<Bytes>(kUmaUsableFraction * static_cast<double>(pool)));
        d.usable = satAddSigned(
            toSigned(static_cast<Bytes>(kUmaUsableFraction * static_cast<double>(base))) -
                toSigned(extra),
            -satAddSigned(beside(0), toSigned(reserve.host)));
        d.provenance = hw.gpus.empty() ? hw.ram_provenance : hw.gpus[0].memory_provenance;
        b.devices.push_back(d);
        b.ram_usable = 0;
        return b;
    }
    if (hw.gpus.empty() && hw.rpc_hosts.empty()) {
        // CPU only: RAM is the pool the model runs from.
        b.ram_usable = satAddSigned(
            toSigned(static_cast<Bytes>(kCpuOnlyUsableFraction * static_cast<double>(ram))) -
                toSigned(extra),
            -toSigned(reserve.host));
        return b;
    }
    // In llama.cpp's device order: RPC hosts' devices first. The extra reserve is kept on the
    // main host's first GPU (the one its desktop and the output run on), or on the first device
    // when the main host has none.
    const std::vector<ClusterDevice> devs = clusterDevices(hw);
    const size_t reserve_on = hw.gpus.empty() ? 0 : devs.size() - hw.gpus.size();
    for (size_t i = 0; i < devs.size(); ++i) {
        const auto& g = *devs[i].gpu;
        DeviceBudget d;
        d.name = devs[i].display;
        d.backend = g.backend;
        if (devs[i].rpc_host >= 0)
            d.rpc_endpoint = hw.rpc_hosts[static_cast<size_t>(devs[i].rpc_host)].endpoint;
        d.total = g.total_bytes;
        d.margin = discreteMargin(g.total_bytes);
        d.provenance = g.memory_provenance;
        Bytes base = g.total_bytes;
        if (live) {
            if (g.free_bytes)
                base = *g.free_bytes;
            else if (devs[i].rpc_host < 0)
                b.unknown = true;
            // An RPC host typed in without a free figure is taken at its capacity: live planning
            // narrows on the main host's reading (hasLiveFigures looks only at this machine).
        }
        d.usable = satAddSigned(toSigned(base) - toSigned(d.margin) -
                                    (i == reserve_on ? toSigned(extra) : 0),
                                -beside(i));
        b.devices.push_back(d);
    }
    b.ram_usable = satAddSigned(toSigned(ram), -toSigned(reserve.host));
    return b;
}

} // namespace

MemoryBudget capacityBudget(const HardwareSnapshot& hw, const BudgetReserve& reserve) {
    return makeBudget(hw, reserve, BudgetKind::Capacity);
}

MemoryBudget capacityBudget(const HardwareSnapshot& hw, Bytes extra_reserve) {
    return capacityBudget(hw, BudgetReserve{extra_reserve, {}, 0});
}

MemoryBudget liveBudget(const HardwareSnapshot& hw, const BudgetReserve& reserve) {
    return makeBudget(hw, reserve, BudgetKind::Live);
}

MemoryBudget liveBudget(const HardwareSnapshot& hw, Bytes extra_reserve) {
    return liveBudget(hw, BudgetReserve{extra_reserve, {}, 0});
}

bool hasLiveFigures(const HardwareSnapshot& hw) {
    for (const auto& g : hw.gpus)
        if (g.free_bytes) return true;
    return false;
}

} // namespace headroom
