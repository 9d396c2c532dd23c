// Apple GPUs through ggml-metal (ggml/src/ggml-metal/ggml-metal.cpp): unified memory, so every
// buffer comes out of the same RAM.
#include "backend/backend.h"

namespace headroom {

const BackendTraits& metalBackend() {
    static const BackendTraits t{
        .id = Backend::Metal,
        .name = "metal",
        .aliases = "mtl",
        .display = "Metal",
        .buffer_name = "MTL",
        // ggml_backend_metal_device_i.get_host_buffer_type is NULL: the CPU's buffers stay
        // plain CPU buffers.
        .host_buffer = "",
        .speed_class = "metal",
        // ggml_backend_metal_buffer_type_shared_get_alignment: 32. get_max_size is the
        // device's maxBufferLength (ggml-metal-device.m), several GiB: a compute buffer is
        // taken as one allocation.
        .device = {32, 0, 0},
        .host = {32, 0, 0},
        // ggml_backend_metal_device_offload_op: MUL_MAT and MUL_MAT_ID only, batch >=
        // op_offload_min_batch_size (GGML_OP_OFFLOAD_MIN_BATCH, default 32).
        .offload = OffloadOps::MatMulOnly,
        .offload_min_batch = 32,
        // ggml_metal_graph_optimize reorders nodes for concurrency; not replayed (the packing
        // of a Metal split is the graph's own order here).
        .reorders_graph = false,
        .async_events = true,
        .gpu = true,
        .unified_memory = true,
        .runtime_overhead = 0,
        .overhead_basis = "Metal allocates its pipelines in the process's own memory",
        .measured = false,
    };
    return t;
}

} // namespace headroom
