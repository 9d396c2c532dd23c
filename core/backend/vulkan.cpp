// Any GPU through ggml-vulkan (ggml/src/ggml-vulkan/ggml-vulkan.cpp), measured on Mesa's
// lavapipe (docs/accuracy-vulkan.md, docs/accuracy-vulkan-v0.5.0.md).
#include "backend/backend.h"

namespace headroom {

const BackendTraits& vulkanBackend() {
    static const BackendTraits t{
        .id = Backend::Vulkan,
        .name = "vulkan",
        .aliases = "vk",
        .display = "Vulkan",
        .buffer_name = "Vulkan",
        .host_buffer = "Vulkan_Host",
        .speed_class = "vulkan",
        // ggml_backend_vk_buffer_type_get_alignment is minStorageBufferOffsetAlignment, not
        // known to a plan: TENSOR_ALIGNMENT's 32 (an error under one alignment a tensor).
        // ggml_backend_vk_buffer_type_get_max_size is suballocation_block_size, 1 GiB unless
        // GGML_VK_SUBALLOCATION_BLOCK_SIZE says otherwise (ggml_vk_get_device): ggml-alloc packs a
        // compute buffer into chunks of at most that (ggml_dyn_tallocr_new_chunk).
        .device = {32, 1024 * MiB, 0},
        // ggml_backend_vk_host_buffer_type_alloc_buffer asks for 32 bytes more than it is
        // given ("behave like the CPU buffer type"); max size likewise 1 GiB.
        .host = {32, 1024 * MiB, 32},
        // ggml_backend_vk_device_offload_op: ggml_vk_get_op_batch_size (ggml-vulkan-debug.cpp)
        // >= op_offload_min_batch_size (GGML_OP_OFFLOAD_MIN_BATCH, default 32).
        .offload = OffloadOps::BatchRows,
        .offload_min_batch = 32,
        // ggml_vk_graph_optimize, replayed per release (compute_graph.cpp vkGraphOptimize).
        .reorders_graph = true,
        // v0.5.0's ggml_backend_vk_device_supports_op refuses an op any of whose tensors passes
        // maxStorageBufferRange (tensor_size_supported), unless the device has 64-bit shader
        // indexing; 4 GiB - 1 is what most discrete GPUs' drivers report (and lavapipe under
        // tests/validation/vulkan/vk_limits_shim.c). The plan prices both outcomes.
        .max_op_tensor = 4 * GiB - 1,
        .async_events = true,
        .gpu = true,
        .runtime_overhead = 256 * MiB,
        .overhead_basis = "Vulkan instance, device and pipelines (estimate)",
        .measured = true,
    };
    return t;
}

} // namespace headroom
