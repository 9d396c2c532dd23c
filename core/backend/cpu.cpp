// The CPU backend (ggml/src/ggml-cpu, ggml-backend.cpp's CPU buffer type): what every priced
// buffer is measured against (docs/accuracy.md, docs/accuracy-v0.5.0.md).
#include "backend/backend.h"

namespace headroom {

const BackendTraits& cpuBackend() {
    static const BackendTraits t{
        .id = Backend::Cpu,
        .name = "cpu",
        .aliases = "",
        .display = "CPU",
        .buffer_name = "CPU",
        .host_buffer = "",
        .speed_class = "cpu",
        // ggml_backend_cpu_buffer_type_get_alignment: TENSOR_ALIGNMENT (32); no maximum.
        .device = {32, 0, 0},
        .host = {32, 0, 0},
        .offload = OffloadOps::None,
        .async_events = false,
        .gpu = false,
        .runtime_overhead = 0,
        .overhead_basis = "the CPU backend allocates nothing before its buffers",
        .measured = true,
    };
    return t;
}

} // namespace headroom
