// NVIDIA GPUs through ggml-cuda (ggml/src/ggml-cuda/ggml-cuda.cu). HIP and MUSA builds compile
// the same code under other names (hip.cpp).
#include "backend/backend.h"

namespace headroom {

namespace detail {

// The CUDA code's memory traits, shared by its HIP (ROCm) build.
BackendTraits cudaFamily() {
    return BackendTraits{
        .id = Backend::Cuda,
        .name = "cuda",
        .aliases = "musa",
        .display = "CUDA",
        .buffer_name = "CUDA", // GGML_CUDA_NAME (ggml/include/ggml-cuda.h)
        .host_buffer = "CUDA_Host",
        .speed_class = "cuda",
        // ggml_backend_cuda_buffer_type_get_alignment: 128; get_max_size NULL (SIZE_MAX), so a
        // compute buffer is one allocation, never chunked.
        .device = {128, 0, 0},
        // ggml_backend_cuda_host_buffer_type: the CPU buffer type's alignment and alloc size,
        // cudaMallocHost of exactly the size asked (ggml_cuda_host_malloc).
        .host = {32, 0, 0},
        // ggml_backend_cuda_device_offload_op: get_op_batch_size(op) >= op_offload_min_batch_size
        // (GGML_OP_OFFLOAD_MIN_BATCH, default 32 in ggml_backend_cuda_reg_get_device); the same
        // in v0.4.0.
        .offload = OffloadOps::BatchRows,
        .offload_min_batch = 32,
        // ggml_backend_cuda_buffer_type_get_alloc_size [TAG_ALLOC_SIZE_EXPAND]:
        // MATRIX_ROW_PADDING = 512 (ggml-cuda/common.cuh).
        .quantized_row_padding = 512,
        // ggml_cuda_flash_attn_ext_get_alloc_size (fattn.cu) with
        // ggml_cuda_flash_attn_ext_get_f16_extra_data (fattn-common.cuh): the tile and MMA
        // kernels need F16 K and V; a quantized cache's are converted into the node's own
        // allocation, each padded to 128 bytes.
        .flash_attn_f16_copies = true,
        // ggml_backend_cuda_graph_optimize (v0.5.0) adds allocation dependencies for the fused
        // MoE top-k and weighted reduction but reorders nothing.
        .reorders_graph = false,
        // ggml_backend_cuda_device_get_props: async and events (off only in a
        // GGML_CUDA_NO_PEER_COPY build).
        .async_events = true,
        .gpu = true,
        // ESTIMATE: the CUDA context, cuBLAS handles and workspace and the memory pool's first
        // blocks, 0.3-0.5 GiB per device in published llama.cpp runs; never measured here.
        .runtime_overhead = 400 * MiB,
        .overhead_basis = "CUDA context, cuBLAS workspace and pool (estimate: 0.3-0.5 GiB in "
                          "published runs)",
        .measured = false,
    };
}

} // namespace detail

const BackendTraits& cudaBackend() {
    static const BackendTraits t = detail::cudaFamily();
    return t;
}

} // namespace headroom
