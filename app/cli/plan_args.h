// The flags that describe a plan (model, hardware, launch options), shared by `plan`, `export`
// and `catalog` so every command reads them the same way. Flags mirror llama.cpp's.
#pragma once

#include "hardware.h"
#include "model_shape.h"
#include "options.h"
#include "plan.h"
#include "result.h"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace headroom::cli {

struct HardwareFlags {
    bool probe = false;
    std::string preset;
    std::string hardware_file;
    std::string vram; // "24GiB" or "24GiB,12GiB"
    std::string gpu;  // "RTX 4090" or "RTX 3090,RTX 3090": from the GPU table
    std::string ram;
    bool uma = false;
    std::string rpc; // --rpc host:port[,…]: llama.cpp RPC servers, probed (issue 15)
};

struct OptionFlags {
    std::string ctx;          // -c N | native
    std::string cache_type_k; // -ctk
    std::string cache_type_v; // -ctv
    std::string flash_attn;   // -fa on|off|auto
    std::uint32_t batch = llama::kDefaultBatch;
    std::uint32_t ubatch = llama::kDefaultUbatch;
    // Set by addOptionFlags: whether -b / -ub were typed (an explicit value is kept even when it
    // equals llama.cpp's default).
    CLI::Option* batch_option = nullptr;
    CLI::Option* ubatch_option = nullptr;
    std::uint32_t parallel = 1;
    bool kv_unified = false;
    bool swa_full = false;
    std::string mtp; // on|off|auto
    std::string mmproj;
    std::string reserve; // extra reserve SIZE
    std::string backend; // cpu|cuda|vulkan|metal
    std::string latency; // text|voice
    // The user's placement ("what if"), as llama.cpp takes it.
    std::string gpu_layers;                   // -ngl N|auto|all
    std::string n_cpu_moe;                    // --n-cpu-moe N
    bool cpu_moe = false;                     // --cpu-moe
    std::vector<std::string> override_tensor; // -ot REGEX=DEV[,…], repeatable
    std::string tensor_split;                 // -ts a,b,…
    std::string split_mode;                   // -sm layer|row|none
};

struct ModelFlags {
    std::string path;     // MODEL.gguf (positional)
    std::string model_id; // --model CATALOG_ID[:QUANT]
};

void addHardwareFlags(CLI::App& app, HardwareFlags& f);
void addOptionFlags(CLI::App& app, OptionFlags& f);
void addModelFlags(CLI::App& app, ModelFlags& f);

// Which exit code an Error maps to: bad arguments 2, unreadable input 3, probe failure 4.
int exitCodeFor(const Error& e);

Result<HardwareSnapshot> resolveHardware(const HardwareFlags& f);
Result<PlanOptions> resolveOptions(const OptionFlags& f);
Result<ModelShape> resolveModel(const ModelFlags& f);

// Resolves all three and plans; the single path every command takes to a Plan.
Result<Plan> buildPlan(const ModelFlags& mf, const HardwareFlags& hf, const OptionFlags& of);

} // namespace headroom::cli
