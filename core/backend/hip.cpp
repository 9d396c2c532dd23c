// AMD GPUs through ggml-cuda built for HIP (ROCm): the CUDA code under its HIP names
// (ggml/include/ggml-cuda.h: GGML_CUDA_NAME "ROCm"; ggml-cuda/vendors/hip.h), so its memory
// traits are CUDA's.
#include "backend/backend.h"

namespace headroom {

namespace detail {
BackendTraits cudaFamily();
}

const BackendTraits& hipBackend() {
    static const BackendTraits t = [] {
        BackendTraits h = detail::cudaFamily();
        h.id = Backend::Hip;
        h.name = "rocm";
        h.aliases = "hip";
        h.display = "ROCm";
        h.buffer_name = "ROCm";
        h.host_buffer = "ROCm_Host";
        h.speed_class = "rocm";
        h.overhead_basis = "HIP context, hipBLAS workspace and pool (estimate: CUDA's, "
                           "0.3-0.5 GiB)";
        return h;
    }();
    return t;
}

} // namespace headroom
