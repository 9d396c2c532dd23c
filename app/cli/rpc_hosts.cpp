#include "rpc_hosts.h"

#ifdef HEADROOM_HAVE_PROBE
#include "probe/rpc_probe.h"
#endif

#include <algorithm>
#include <chrono>

namespace headroom::cli {

std::optional<Error> checkRpcList(const std::string& list) {
#ifdef HEADROOM_HAVE_PROBE
    if (auto endpoints = probe::parseRpcEndpoints(list); !endpoints) {
        Error e = endpoints.error();
        e.code = ErrorCode::InvalidArgument;
        return e;
    }
#else
    (void)list; // addRpcHosts says this build cannot probe
#endif
    return std::nullopt;
}

Result<bool> addRpcHosts(HardwareSnapshot& hw, const std::string& list) {
    if (list.empty()) return true;
#ifndef HEADROOM_HAVE_PROBE
    (void)hw;
    return makeError(ErrorCode::ProbeFailed, "--rpc: this build has no probe",
                     "give the RPC hosts in a hardware profile (rpc_hosts) instead");
#else
    auto endpoints = probe::parseRpcEndpoints(list);
    if (!endpoints) {
        Error e = endpoints.error();
        e.code = ErrorCode::InvalidArgument; // the parser's message names --rpc
        return e;
    }
    for (const auto& ep : *endpoints) {
        const auto start = std::chrono::steady_clock::now();
        auto info = probe::probeRpcServer(ep);
        if (!info) return info.error();
        const double elapsed_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        RpcHost h;
        h.endpoint = ep.text();
        h.source = "probe";
        for (const auto& d : info->devices) {
            GpuDevice g;
            // The protocol gives memory, not names or backends (GET_DEVICE_MEMORY).
            g.name = "device " + std::to_string(d.index);
            g.backend = "rpc";
            g.total_bytes = d.total_bytes;
            g.free_bytes = std::min(d.free_bytes, d.total_bytes);
            g.memory_provenance = "rpc-server GET_DEVICE_MEMORY";
            h.devices.push_back(g);
        }
        // The probe's exchanges (HELLO, DEVICE_COUNT, one GET_DEVICE_MEMORY per device, and the
        // TCP handshake) each wait one round trip: their mean is the link's round trip, an upper
        // bound (it includes the server's work).
        h.rtt_ms = elapsed_ms / static_cast<double>(info->devices.size() + 3);
        h.rtt_provenance = "probe (mean of the RPC handshake's round trips)";
        auto same = [&](const RpcHost& o) { return o.endpoint == h.endpoint; };
        hw.rpc_hosts.erase(std::remove_if(hw.rpc_hosts.begin(), hw.rpc_hosts.end(), same),
                           hw.rpc_hosts.end());
        Bytes total = 0;
        for (const auto& g : h.devices)
            total = satAdd(total, g.total_bytes);
        hw.label += " + rpc " + h.endpoint + " " + formatBytes(total);
        hw.rpc_hosts.push_back(std::move(h));
    }
    return validateSnapshot(hw);
#endif
}

} // namespace headroom::cli
