// PlanOptions: everything a user may change about a launch. Defaults are llama.cpp's own
// (llama-server with no flags), so an option left alone prices what the user would really get.
#pragma once

#include "backend/backend.h"
#include "ggml_type.h"
#include "launch/launch_config.h"
#include "launch/llama_defaults.h"
#include "units.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

struct ModelShape;

enum class MtpMode { Auto, On, Off };
// How a KV page restored from spill is paid for: the latency budget of the product using it.
enum class LatencyProfile { Text, Voice };

// The program that runs the model, since it decides how many rows of logits llama.cpp reserves
// (llama.cpp v0.5.0 src/llama-context.cpp, llama_context ctor: n_outputs_max = the context
// parameter, or n_batch when it is 0; llama_context::sched_reserve reserves the prompt graph with
// min(n_ubatch, n_outputs_max) output rows). Equal in v0.4.0 (node-llama-cpp 3.21.1's snapshot).
//   LlamaServer: llama-server, what every launch Headroom writes runs. tools/server/
//     server-context.cpp server_output_limits sets n_outputs_max = min(n_batch, n_parallel x
//     (1 + draft tokens)) (common/speculative.cpp common_speculative_get_output_limits).
//   Library: a program calling llama.cpp's C API with llama_context_default_params
//     (n_outputs_max = 0, so n_batch), as node-llama-cpp's AddonContext does: a whole ubatch of
//     output rows.
enum class Program { LlamaServer, Library };
const char* programName(Program p); // "llama-server", "library"
std::optional<Program> parseProgram(std::string_view text);

// The user's own placement ("what if"): llama.cpp's placement flags as typed. When any is given
// the planner prices exactly this placement instead of searching one, and the launch keeps them.
struct PinnedPlacement {
    std::optional<GpuLayers> gpu_layers;          // -ngl N|auto|all (auto: Headroom searches)
    std::optional<std::uint32_t> n_cpu_moe;       // --n-cpu-moe N
    bool cpu_moe = false;                         // --cpu-moe
    std::vector<TensorOverride> tensor_overrides; // -ot REGEX=DEV, …
    std::vector<double> tensor_split;             // -ts a,b,…
    std::optional<SplitMode> split_mode;          // -sm layer|row|none|tensor

    // True when the placement is the user's: any flag but a lone `-ngl auto`.
    bool pinsPlacement() const {
        return (gpu_layers && gpu_layers->kind != GpuLayers::Kind::Auto) || n_cpu_moe || cpu_moe ||
               !tensor_overrides.empty() || !tensor_split.empty() || split_mode;
    }
    bool operator==(const PinnedPlacement&) const = default;
};

// A separate draft model for speculative decoding (-md, llama.cpp v0.5.0 --spec-type
// draft-simple). llama-server loads it after the target with the target's options but these
// (common/speculative.cpp common_base_params_to_speculative) and gives it a context of its own
// with the target's n_ctx (common_speculative_init_result: cparams.n_ctx = llama_n_ctx(ctx_tgt)).
struct DraftModel {
    std::shared_ptr<const ModelShape> model;
    // What the launch loads: a GGUF path, an "hf:user/repo[:quant]" reference (-hfd), or a
    // catalog id (written as "<id>.gguf", a placeholder the export says to replace).
    std::string ref;
    std::optional<GpuLayers> gpu_layers;              // -ngld (nullopt: llama.cpp's default, all)
    GgmlType cache_type_k = llama::kDefaultCacheType; // -ctkd
    GgmlType cache_type_v = llama::kDefaultCacheType; // -ctvd
    std::uint32_t n_max = llama::kDefaultDraftMax;    // --spec-draft-n-max
};

struct PlanOptions {
    // -c: nullopt = plan the ladder and let the launch policy choose; 0 = the trained context.
    std::optional<std::uint32_t> context;
    GgmlType cache_type_k = GgmlType::F16;          // -ctk (llama.cpp default f16)
    GgmlType cache_type_v = GgmlType::F16;          // -ctv
    FlashAttn flash_attn = FlashAttn::Auto;         // -fa (llama.cpp default auto)
    std::uint32_t n_batch = llama::kDefaultBatch;   // -b
    std::uint32_t n_ubatch = llama::kDefaultUbatch; // -ub
    bool batch_set = false;            // -b given explicitly (written, and kept by the MTP posture)
    bool ubatch_set = false;           // -ub given explicitly, even equal to the default (ditto)
    std::uint32_t n_parallel = 1;      // -np: sequences the server holds at once
    bool kv_unified = false;           // -kvu: one KV buffer shared by all sequences
    bool swa_full = false;             // --swa-full: full-size cache for SWA layers
    MtpMode mtp = MtpMode::Auto;       // speculative decoding with the model's MTP head
    bool mmproj = false;               // load the multimodal projector
    std::optional<Bytes> mmproj_bytes; // --mmproj FILE size (overrides the model's figure)
    Bytes extra_reserve = 0;           // keep this much more free on GPU 0 (or the pool)
    // What the other models of a set hold beside this one (planModelSet, model_set.h): per
    // device in llama.cpp's order and in host RAM, kept out of this plan's budget.
    std::vector<Bytes> beside_device_bytes;
    Bytes beside_host_bytes = 0;
    Backend backend = Backend::Auto;
    LatencyProfile latency = LatencyProfile::Text; // KV spill restore budget
    // A window granted earlier (growth); the launch policy restores it when it still fits.
    std::optional<std::uint32_t> requested_window;
    PinnedPlacement pinned; // the user's -ngl/--n-cpu-moe/-ot/-ts/-sm
    // RoPE scaling (--rope-scaling, --rope-scale, --yarn-orig-ctx as llama.cpp takes them):
    // YaRN or linear scaling by N makes N × the original context usable (contextLimit()).
    std::optional<RopeScaling> rope_scaling; // nullopt: the model's own (not written)
    double rope_scale = 0;                   // 0: not given
    std::uint32_t yarn_orig_ctx = 0;         // 0: the model's original context
    // The llama.cpp build the launch is written for (launch/llama_version.h).
    LlamaVersion llama_version = kDefaultLlamaVersion;
    // --llama-build N: an older mainline build whose graph is priced where it is known to differ
    // (OlderBuildGraph); nullopt: the profile's own snapshot.
    std::optional<std::uint32_t> llama_build;
    std::optional<LoadMode> load_mode; // --load-mode, written as given
    // The program the plan is priced for (see Program); exports always write llama-server.
    Program program = Program::LlamaServer;
    // -bs/--backend-sampling: llama-server samples on the backend, and the output buffer holds
    // the sampler's logits, probabilities and candidates beside the logits (written as given).
    bool backend_sampling = false;
    // -nkvo/--no-kv-offload: every layer's KV cache and recurrent state in host memory, and the
    // attention that reads it with it (priced as given, written in the launch).
    bool kv_offload = true;
    // --no-op-offload: ops whose weights are in host memory stay on the CPU instead of being
    // run on a device with the weight copied over (llama_context_params::op_offload).
    bool op_offload = true;
    // -md: a draft model priced beside the target (DraftModel); nullopt = none.
    std::optional<DraftModel> draft;
};

} // namespace headroom
