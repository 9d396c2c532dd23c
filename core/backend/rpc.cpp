// A device another host serves (ggml/src/ggml-rpc/ggml-rpc.cpp): whatever backend the server
// runs, seen through the RPC protocol (docs/accuracy-rpc.md).
#include "backend/backend.h"

namespace headroom {

const BackendTraits& rpcBackend() {
    static const BackendTraits t{
        .id = Backend::Rpc,
        .name = "rpc",
        .aliases = "",
        .display = "RPC",
        .buffer_name = "RPC",
        .host_buffer = "", // ggml_backend_rpc_device_i.get_host_buffer_type is NULL
        .speed_class = "vulkan",
        // The alignment and maximum are the server's (RPC_CMD_GET_ALIGNMENT,
        // RPC_CMD_GET_MAX_SIZE); the probe asks for them.
        .device = {32, 0, 0},
        .host = {32, 0, 0},
        // ggml_backend_rpc_device_i.offload_op is NULL: never.
        .offload = OffloadOps::None,
        // ggml_backend_rpc_device_get_props: async and events.
        .async_events = true,
        .gpu = true,
        // The server set its backend up before it answered, so what that took is already
        // outside the memory it reports.
        .runtime_overhead = 0,
        .overhead_basis = "already outside the memory the server reports",
        .measured = true,
    };
    return t;
}

} // namespace headroom
