// PlanOptions: everything a user may change about a launch. Defaults are llama.cpp's own
// (llama-server with no flags), so an option left alone prices what the user would really get.
#pragma once

#include "ggml_type.h"
#include "units.h"

#include <cstdint>
#include <optional>
#include <string>

namespace headroom {

enum class Backend { Auto, Cpu, Cuda, Vulkan, Metal };
enum class FlashAttn { Auto, On, Off };
enum class MtpMode { Auto, On, Off };
// How a KV page restored from spill is paid for: the latency budget of the product using it.
enum class LatencyProfile { Text, Voice };

const char* backendName(Backend b);
const char* flashAttnName(FlashAttn f);

struct PlanOptions {
    // -c: nullopt = plan the ladder and let the launch policy choose; 0 = the trained context.
    std::optional<std::uint32_t> context;
    GgmlType cache_type_k = GgmlType::F16;  // -ctk (llama.cpp default f16)
    GgmlType cache_type_v = GgmlType::F16;  // -ctv
    FlashAttn flash_attn = FlashAttn::Auto; // -fa (llama.cpp default auto)
    std::uint32_t n_batch = 2048;           // -b
    std::uint32_t n_ubatch = 512;           // -ub
    bool ubatch_set = false;                // -ub given explicitly (fixes the MTP posture's ub)
    std::uint32_t n_parallel = 1;           // -np: sequences the server holds at once
    bool kv_unified = false;                // -kvu: one KV buffer shared by all sequences
    bool swa_full = false;                  // --swa-full: full-size cache for SWA layers
    MtpMode mtp = MtpMode::Auto;            // speculative decoding with the model's MTP head
    bool mmproj = false;                    // load the multimodal projector
    std::optional<Bytes> mmproj_bytes;      // --mmproj FILE size (overrides the model's figure)
    Bytes extra_reserve = 0;                // keep this much more free on GPU 0 (or the pool)
    Backend backend = Backend::Auto;
    LatencyProfile latency = LatencyProfile::Text; // KV spill restore budget
    // A window granted earlier (growth); the launch policy restores it when it still fits.
    std::optional<std::uint32_t> requested_window;
};

} // namespace headroom
