// What llama.cpp's own `--fit` (on by default) would do with the user's flags, priced with
// Headroom's byte counts, so a plan can say where it and fit part ways. Mirrors
// common/fit.cpp common_params_fit_impl (llama.cpp v0.5.0; v0.4.0 differs only in the unset
// context, launch/llama_version.h):
//   step 1  full offload at the context; done when every device keeps its -fitt margin free;
//   step 2  -c unset: shrink the context by linear interpolation between -fitc and the unset
//           context, aligned down to 256 x KV streams; one device: done;
//           -c set: "context size set by user -> no change";
//   then    "n_gpu_layers already set by user" / "tensor_split already set by user" /
//           "tensor_buft_overrides already set by user" (-ngl, -ts, -ot, --n-cpu-moe): abort,
//           keeping the context step 2 chose;
//   step 3/4 the layers (dense: as many as fit; MoE: experts of the first blocks on the CPU).
// Fit measures free device memory and treats host memory as unlimited (common/fit.h), so what it
// leaves on the CPU is never checked against RAM: the simulation reports that overflow.
#pragma once

#include "hardware.h"
#include "model_shape.h"
#include "options.h"
#include "plan.h"
#include "result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

struct FitSettings {
    // -fitt per device in MiB (one value: every device); empty: llama.cpp's 1024.
    std::vector<std::uint64_t> target_mib;
    std::optional<std::uint32_t> min_ctx; // -fitc; nullopt: llama.cpp's 4096
};

struct FitSimulation {
    LlamaVersion version = kDefaultLlamaVersion;
    bool ctx_unset = false;      // the user gave no -c: fit chose the context
    std::uint32_t ctx_start = 0; // the context fit started from
    std::uint32_t context = 0;   // the context llama.cpp would run
    bool gave_up = false;        // fit stopped before placing layers
    std::string give_up_reason;  // llama.cpp's own words, e.g. "n_gpu_layers already set by user"
    bool changed_placement = false;
    std::uint32_t gpu_layers = 0; // -ngl it would run with
    std::uint32_t n_cpu_moe = 0;  // experts of the first N MoE blocks on the CPU
    std::vector<Bytes> device_bytes;
    std::vector<SignedBytes> device_targets; // free - margin, per device
    bool devices_fit = false;                // every device within its target
    Bytes host_bytes = 0;
    SignedBytes ram_usable = 0;
    SignedBytes host_over_ram = 0;  // > 0: fit's placement needs this much more RAM than there is
    std::vector<std::string> steps; // what fit does, in order, in words
    std::vector<std::string> differences; // where Headroom's plan differs, and why
};

// Simulates fit for the options a plan was made with (their -c, -np, -kvu and pinned placement)
// on `hw` (free memory where the snapshot has it, else the total), and compares with `plan`'s
// chosen rung when there is one.
Result<FitSimulation> simulateFit(const ModelShape& model, const HardwareSnapshot& hw,
                                  const PlanOptions& options, const FitSettings& settings,
                                  const Plan* plan = nullptr);

// The simulation as the "fit_simulation" object of the plan JSON (byte counts in bytes).
nlohmann::json fitSimulationJson(const FitSimulation& s);

} // namespace headroom
