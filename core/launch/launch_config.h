// LaunchConfig: the llama-server command line as a typed value. The planner fills it (with the
// flags the user pinned kept as given), the plan carries it, and every exporter only formats it:
// no exporter parses argv. A field that is empty / nullopt is a flag left out, so llama.cpp's
// default (launch/llama_defaults.h) applies; a flag the user typed is written even when it equals
// that default.
#pragma once

#include "ggml_type.h"
#include "launch/llama_version.h"
#include "result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

// -fa on|off|auto (common/arg.cpp --flash-attn).
enum class FlashAttn { Auto, On, Off };
const char* flashAttnName(FlashAttn f);

// -sm layer|row|none|tensor (llama_split_mode): how several GPUs share the model. tensor is
// llama.cpp v0.5.0's tensor parallelism (LLAMA_SPLIT_MODE_TENSOR: every offloaded layer's
// matrices and KV split over all devices, ggml-backend-meta.cpp).
enum class SplitMode { Layer, Row, None, Tensor };
const char* splitModeName(SplitMode m);
std::optional<SplitMode> parseSplitMode(std::string_view text);

// --rope-scaling none|linear|yarn (common/arg.cpp --rope-scaling; llama_rope_scaling_type).
enum class RopeScaling { None, Linear, Yarn };
const char* ropeScalingName(RopeScaling r);
std::optional<RopeScaling> parseRopeScaling(std::string_view text);

// -ngl N|auto|all. Auto: Headroom searches the count (and writes the number it found).
struct GpuLayers {
    enum class Kind { Count, Auto, All };
    Kind kind = Kind::Auto;
    std::uint32_t count = 0; // Kind::Count only

    static GpuLayers of(std::uint32_t n) { return {Kind::Count, n}; }
    static GpuLayers all() { return {Kind::All, 0}; }
    static GpuLayers automatic() { return {Kind::Auto, 0}; }
    // llama.cpp's -ngl for a model of n_layer blocks (+1 for the output layer).
    std::uint32_t resolve(std::uint32_t n_layer) const;
    std::string text() const; // "30", "auto", "all"
    bool operator==(const GpuLayers&) const = default;
};
// "30", "auto", "all" (and llama.cpp's -1 = auto); an error names the accepted forms.
Result<GpuLayers> parseGpuLayers(std::string_view text);

// One -ot REGEX=DEV override (common/arg.cpp --override-tensor: the first '=' separates the
// pattern from the buffer type; matched with std::regex_search on each tensor name).
struct TensorOverride {
    std::string pattern;
    std::string device; // "CPU", "CUDA0", …
    std::string text() const { return pattern + "=" + device; }
    bool operator==(const TensorOverride&) const = default;
};
// A comma-separated list, as llama.cpp splits one -ot value. Checks each regex compiles.
Result<std::vector<TensorOverride>> parseTensorOverrides(std::string_view text);

// -ts a,b,…: non-negative proportions per GPU (llama.cpp also accepts '/' and ';').
Result<std::vector<double>> parseTensorSplit(std::string_view text);
std::string tensorSplitText(const std::vector<double>& split);

struct LaunchConfig {
    // Context and KV cache.
    std::uint32_t ctx_size = 0;             // -c, always written (0 = the trained context)
    std::optional<GgmlType> cache_type_k;   // -ctk
    std::optional<GgmlType> cache_type_v;   // -ctv
    FlashAttn flash_attn = FlashAttn::Auto; // -fa (written unless Auto)
    std::optional<std::uint32_t> n_batch;   // -b
    std::optional<std::uint32_t> n_ubatch;  // -ub
    std::uint32_t n_parallel = 1;           // -np, always written (llama-server's own is 4)
    bool kv_unified = false;                // -kvu
    bool swa_full = false;                  // --swa-full
    bool kv_offload = true;                 // false: -nkvo

    // Placement.
    std::optional<GpuLayers> gpu_layers;          // -ngl
    bool cpu_moe = false;                         // --cpu-moe (every MoE block's experts on CPU)
    std::uint32_t n_cpu_moe = 0;                  // --n-cpu-moe N (0: not written)
    std::vector<TensorOverride> tensor_overrides; // -ot, one flag per override
    std::vector<double> tensor_split;             // -ts (empty: by free memory at start-up)
    std::optional<SplitMode> split_mode;          // -sm
    std::vector<std::string> rpc_servers;         // --rpc host:port,… (RPC devices come first)

    // RoPE scaling past the trained context (common/arg.cpp: --rope-scaling sets
    // rope_scaling_type, --rope-scale N sets rope_freq_scale = 1/N, --yarn-orig-ctx N sets
    // yarn_orig_ctx; 0 there means the model's own original context).
    std::optional<RopeScaling> rope_scaling; // --rope-scaling
    double rope_scale = 0;                   // --rope-scale (0: not written)
    std::uint32_t yarn_orig_ctx = 0;         // --yarn-orig-ctx (0: not written)

    // Speculative decoding with the model's own MTP head.
    bool spec_draft_mtp = false;        // --spec-type draft-mtp
    std::uint32_t spec_draft_n_max = 0; // --spec-draft-n-max (0: not written)
    // ... or with a separate draft model (llama.cpp v0.5.0 common/arg.cpp; written with
    // --spec-type draft-simple, without which llama-server loads the draft and never drafts).
    std::string draft_model;                    // -md PATH, or -hfd REPO for "hf:REPO"
    std::optional<GpuLayers> draft_gpu_layers;  // -ngld
    std::optional<GgmlType> draft_cache_type_k; // -ctkd
    std::optional<GgmlType> draft_cache_type_v; // -ctvd
    // -bs/--backend-sampling (common/arg.cpp, both versions): sampling on the backend, priced in
    // the output buffer (pricing.cpp).
    bool backend_sampling = false;
    // --no-op-offload (common/arg.cpp, both versions; llama_context_params::op_offload).
    bool op_offload = true;

    // llama.cpp's automatic fitting (on by default in llama.cpp).
    std::optional<bool> fit;                   // --fit on|off
    std::vector<std::uint64_t> fit_target_mib; // --fit-target, per device
    std::optional<std::uint32_t> fit_min_ctx;  // --fit-ctx: the smallest -c fit may choose

    // --load-mode (both versions; v0.5.0 removed the --mlock/--no-mmap spellings it replaced).
    std::optional<LoadMode> load_mode;

    // Values llama.cpp uses, whether written or not.
    GgmlType typeK() const;
    GgmlType typeV() const;
    std::uint32_t batch() const;
    std::uint32_t ubatch() const;

    bool operator==(const LaunchConfig&) const = default;
};

// The llama-server arguments (without the program and -m), in a fixed order, llama.cpp's spelling.
std::vector<std::string> llamaServerArgs(const LaunchConfig& config);

// The inverse of llamaServerArgs: reads that argv (llama.cpp's spelling, the forms it writes)
// back into a LaunchConfig, so a test can check that what is exported says what was planned.
// An unknown flag or a bad value is an error naming it.
Result<LaunchConfig> parseLlamaServerArgs(const std::vector<std::string>& argv);

// The flags of `to` (each with its values) that `from` does not have with the same values: what
// a change applies, in llama.cpp's spelling. Flags `to` drops are not listed.
std::vector<std::string> changedArgs(const LaunchConfig& from, const LaunchConfig& to);

} // namespace headroom
