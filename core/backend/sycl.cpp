// Intel GPUs through ggml-sycl (ggml/src/ggml-sycl/ggml-sycl.cpp).
#include "backend/backend.h"

namespace headroom {

const BackendTraits& syclBackend() {
    static const BackendTraits t{
        .id = Backend::Sycl,
        .name = "sycl",
        .aliases = "",
        .display = "SYCL",
        .buffer_name = "SYCL",
        .host_buffer = "SYCL_Host", // ggml_backend_sycl_device_get_host_buffer_type
        .speed_class = "sycl",
        // ggml_backend_sycl_buffer_type_get_alignment: SYCL_BUFFER_ALIGNMENT (128,
        // ggml-sycl/common.hpp). get_max_size is the device's max_mem_alloc_size (2 GiB with
        // GGML_SYCL_HOST_PINNED_MEM_2G): not known to a plan, taken as one allocation.
        .device = {128, 0, 0},
        .host = {32, 0, 0},
        // ggml_backend_sycl_device_offload_op: get_op_batch_size >= op_offload_min_batch_size.
        .offload = OffloadOps::BatchRows,
        .offload_min_batch = 32,
        .async_events = true,
        .gpu = true,
        .runtime_overhead = 400 * MiB,
        .overhead_basis = "SYCL queue, oneDNN/oneMKL workspace (estimate: CUDA's, 0.3-0.5 GiB)",
        .measured = false,
    };
    return t;
}

} // namespace headroom
