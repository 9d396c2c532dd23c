// The `rpc-server` launch for each RPC host a plan offloads to (issue 15): what to run on each
// machine before the main host's llama-server with --rpc.
#pragma once

#include "hardware.h"
#include "launch/launch_config.h"

#include <string>
#include <vector>

namespace headroom {

// llama.cpp's RPC server program (tools/rpc/CMakeLists.txt: set(TARGET ggml-rpc-server)).
inline constexpr const char* kRpcServerProgram = "ggml-rpc-server";

struct RpcServerLaunch {
    std::string endpoint;          // host:port, as the main host's --rpc names it
    std::string label;             // the host's label ("" = none)
    std::vector<std::string> argv; // program and flags
};

// One launch per RPC host the config's --rpc lists, in that order. Flags are those the server of
// llama.cpp v0.5.0 accepts (tools/rpc/rpc-server.cpp rpc_server_params_parse):
//   -H HOST  the address to bind: the endpoint's host, the address the main host connects to
//            (the server's default, 127.0.0.1, is unreachable from another machine);
//   -p PORT  the endpoint's port;
//   -d DEVS  only when the profile names every device as ggml does ("CUDA0", "Vulkan1"): the
//            server then serves exactly those, in that order (get_devices);
//   -c       the server's local file cache: a tensor it has seen is loaded from its own disk the
//            next time instead of crossing the network (RPC_CMD_SET_TENSOR_HASH).
std::vector<RpcServerLaunch> rpcServerLaunches(const HardwareSnapshot& hw,
                                               const LaunchConfig& config);

} // namespace headroom
