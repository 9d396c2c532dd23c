#include "export/rpc_server.h"

#include <cctype>

namespace headroom {

namespace {

// ggml's backend device names: letters then a number ("CUDA0", "Vulkan1", "MTL0", "CPU" is not
// a served device name worth pinning).
bool ggmlDeviceName(const std::string& s) {
    size_t i = 0;
    while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i])))
        ++i;
    if (i == 0 || i == s.size()) return false;
    for (size_t k = i; k < s.size(); ++k)
        if (!std::isdigit(static_cast<unsigned char>(s[k]))) return false;
    return true;
}

} // namespace

std::vector<RpcServerLaunch> rpcServerLaunches(const HardwareSnapshot& hw,
                                               const LaunchConfig& config) {
    std::vector<RpcServerLaunch> out;
    for (const auto& endpoint : config.rpc_servers) {
        RpcServerLaunch l;
        l.endpoint = endpoint;
        const RpcHost* host = nullptr;
        for (const auto& h : hw.rpc_hosts)
            if (h.endpoint == endpoint) host = &h;
        if (host) l.label = host->label;
        const size_t colon = endpoint.rfind(':');
        std::string addr = endpoint.substr(0, colon);
        // rpc-server binds with the host text as given; an IPv6 literal goes without brackets.
        if (addr.size() > 2 && addr.front() == '[' && addr.back() == ']')
            addr = addr.substr(1, addr.size() - 2);
        l.argv = {kRpcServerProgram, "-H", addr, "-p", endpoint.substr(colon + 1)};
        if (host) {
            std::string devs;
            bool named = !host->devices.empty();
            for (const auto& g : host->devices) {
                named = named && ggmlDeviceName(g.name);
                devs += (devs.empty() ? "" : ",") + g.name;
            }
            if (named) l.argv.insert(l.argv.end(), {"-d", devs});
        }
        l.argv.push_back("-c");
        out.push_back(std::move(l));
    }
    return out;
}

} // namespace headroom
