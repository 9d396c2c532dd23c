// What each llama.cpp backend (ggml-<backend>) does to memory, as one traits value per backend,
// one file per backend (cpu.cpp, cuda.cpp, hip.cpp, metal.cpp, vulkan.cpp, sycl.cpp, rpc.cpp).
// Pricing, the scheduler replay, the probe, the speed classes, the exporters and the GUI read
// these; no backend name is spelled anywhere else. Each field cites the ggml function it mirrors
// in llama.cpp v0.5.0 (de3ff815) and, where it differs, v0.4.0 (80fb11ac).
#pragma once

#include "units.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace headroom {

// The backend a plan prices. Auto: the first GPU's (or the CPU when there is none).
enum class Backend { Auto, Cpu, Cuda, Hip, Metal, Vulkan, Sycl, Rpc };

// Which ops with a weight in host memory a device takes over (the backend's offload_op): the
// scheduler then copies that weight into the device's compute buffer for the split
// (ggml-backend.cpp ggml_backend_sched_backend_id_from_cur, ggml_backend_sched_split_graph).
enum class OffloadOps {
    None,       // never (the CPU; an RPC device: ggml_backend_rpc_device_offload_op is false)
    BatchRows,  // any op whose batch (get_op_batch_size: MUL_MAT ne[1], MUL_MAT_ID and ROPE
                // ne[2], GET_ROWS 0, else the rows) reaches offload_min_batch
    MatMulOnly, // MUL_MAT and MUL_MAT_ID only, by the same batch
};

// A buffer type as ggml-alloc packs it (ggml_backend_buft_get_alignment, _get_max_size).
struct BufferTraits {
    Bytes alignment = 32; // TENSOR_ALIGNMENT unless the backend says otherwise
    Bytes max_size = 0;   // 0: no maximum (SIZE_MAX); else the compute buffer is chunked
    Bytes alloc_pad = 0;  // bytes a buffer of this type asks for beyond its size
};

struct BackendTraits {
    Backend id = Backend::Cpu;
    std::string_view name;        // the CLI, JSON and hardware-profile spelling: "cuda"
    std::string_view aliases;     // other spellings accepted on input, space separated
    std::string_view display;     // what a person reads: "CUDA"
    std::string_view buffer_name; // llama.cpp's device and buffer prefix: "CUDA" -> CUDA0
    std::string_view host_buffer; // its pinned host buffer type, "" when it has none
    std::string_view speed_class; // the speed model's class (policy/speed_constants.h)
    BufferTraits device;          // the device buffer type (weights, KV, compute)
    BufferTraits host;            // the pinned host buffer type, which the CPU's compute and
                                  // output buffers use beside this device (llama_context ctor)
    OffloadOps offload = OffloadOps::None;
    std::uint32_t offload_min_batch = 32; // GGML_OP_OFFLOAD_MIN_BATCH, default 32
    // ggml_backend_cuda_buffer_type_get_alloc_size: a quantized tensor whose rows are not a
    // multiple of this many elements is given one partial row more (MATRIX_ROW_PADDING). 0: none.
    std::uint32_t quantized_row_padding = 0;
    // ggml_cuda_flash_attn_ext_get_alloc_size: FLASH_ATTN_EXT's allocation also holds F16 copies
    // of a quantized K and V when the tile or MMA kernel runs it (a micro-batch, as reserved).
    bool flash_attn_f16_copies = false;
    // ggml_vk_graph_optimize reorders each split before ggml-alloc packs it.
    bool reorders_graph = false;
    // The largest tensor an op of this backend may touch (0: no limit), where the device's own
    // limit is not known to the plan; an op over it runs on the CPU (BufferTraits aside).
    Bytes max_op_tensor = 0;
    // Async compute and events (the device's get_props caps), which pipeline parallelism needs.
    bool async_events = true;
    // A GPU the plan can hold layers on (the CPU and an unknown RPC backend are not priced so).
    bool gpu = true;
    // Unified memory: the device's buffers come out of host RAM (Metal on Apple Silicon).
    bool unified_memory = false;
    // Memory the backend's runtime takes before any buffer (driver context, BLAS workspace,
    // pipelines): an estimate, with its basis.
    Bytes runtime_overhead = 0;
    std::string_view overhead_basis;
    // Whether Headroom's device figures for this backend were checked against llama.cpp's own
    // allocations on a real device (docs/accuracy-*.md); otherwise a plan says which terms are
    // derived.
    bool measured = false;
};

const BackendTraits& cpuBackend();
const BackendTraits& cudaBackend();
const BackendTraits& hipBackend();
const BackendTraits& metalBackend();
const BackendTraits& vulkanBackend();
const BackendTraits& syclBackend();
const BackendTraits& rpcBackend();

// Every backend, the CPU first.
std::span<const BackendTraits* const> allBackends();
// The traits of `b`; Auto reads as the CPU (resolve it first).
const BackendTraits& traitsOf(Backend b);
// A backend by its name or an alias ("cuda", "rocm" or "hip", ...), case-insensitive.
std::optional<Backend> backendFromName(std::string_view name);
// The names accepted on input, comma separated, for error messages ("cpu, cuda, rocm, ...").
std::string_view backendNamesForHelp();
const char* backendName(Backend b); // "auto", or the traits' name

} // namespace headroom
