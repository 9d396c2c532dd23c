// What llama.cpp says it allocated: the per-buffer lines llama-server prints while it loads a
// model, parsed into bytes per llama.cpp buffer name (CPU, CPU_Mapped, CUDA0, CUDA_Host, Vulkan0,
// Vulkan_Host, RPC0, …). The lines, as llama.cpp (v0.5.0 source) prints them:
//   model   src/llama-model.cpp   llama_model::load_tensors  "%12s model buffer size = %8.2f MiB"
//   KV      src/llama-kv-cache.cpp llama_kv_cache::llama_kv_cache  "%10s KV buffer size = …"
//   RS      src/llama-memory-recurrent.cpp llama_memory_recurrent::llama_memory_recurrent
//   output  src/llama-context.cpp llama_context::llama_context  "%10s  output buffer size = …"
//   compute src/llama-context.cpp llama_context::sched_reserve (older builds: the constructor)
// and, when the server exits cleanly, common/fit.cpp common_memory_breakdown_print's table
//   "| - CUDA0 (RTX 4090) | total = free + (self = model + context + compute) + unaccounted |"
// whose last column is memory the device lost to something other than llama.cpp's buffers.
// Every figure is MiB with two decimals, so a byte count read back is exact to ±0.005 MiB.
#pragma once

#include "units.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

// Half of the log's last digit (0.01 MiB): how far a logged figure may be from the bytes.
inline constexpr Bytes kLogRoundingBytes = MiB / 200 + 1;

struct LoggedBuffer {
    std::string name; // llama.cpp's buffer (type) name as printed: "CPU_Mapped", "Vulkan0", …
    Bytes model = 0, kv = 0, rs = 0, output = 0, compute = 0; // summed over repeated lines
};

struct LoggedDeviceMemory {
    std::string name; // "CUDA0"
    std::string desc; // "RTX 4090"
    SignedBytes unaccounted = 0;
};

struct ServerLog {
    std::vector<LoggedBuffer> buffers;         // in order of first appearance
    std::vector<LoggedDeviceMemory> breakdown; // the last table printed after the buffers
    std::string build;                         // "b1 (de3ff81)" ("" when the log never says)
    bool listening = false;                    // "server is listening" / "listening on"
    std::vector<std::string> errors;           // lines that say error / failed (the last few)
    std::size_t buffer_lines = 0;              // how many buffer lines were read

    const LoggedBuffer* find(std::string_view name) const;
};

ServerLog parseServerLog(std::string_view text);

// Whether a buffer name is host memory: the CPU's own buffers (CPU, CPU_Mapped, CPU_REPACK, …)
// and the pinned host buffers GPU backends allocate (CUDA_Host, Vulkan_Host, ROCm_Host).
bool isHostBuffer(std::string_view name);
// The device a buffer belongs to: "CUDA0_Split" -> "CUDA0"; host buffers -> "".
std::string deviceOfBuffer(std::string_view name);

} // namespace headroom
