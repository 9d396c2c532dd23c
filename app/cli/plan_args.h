// The flags that describe a plan (model, hardware, launch options), shared by `plan`, `export`
// and `catalog` so every command reads them the same way. Flags mirror llama.cpp's.
#pragma once

#include "hardware.h"
#include "launch/placement_flags.h"
#include "model_set.h"
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
    std::string free; // live free memory per GPU ("5.5GiB" or "20GiB,11GiB"): narrows the launch
    std::string rpc;  // --rpc host:port[,…]: llama.cpp RPC servers, probed (issue 15)
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
    std::string reserve;             // extra reserve SIZE
    std::string backend;             // cpu|cuda|vulkan|metal
    std::string latency;             // text|voice
    std::string rope_scaling;        // --rope-scaling none|linear|yarn
    std::string rope_scale;          // --rope-scale N
    std::uint32_t yarn_orig_ctx = 0; // --yarn-orig-ctx N
    std::string llama_version;       // v0.5.0 (default) | v0.4.0
    std::string llama_build;         // an older mainline build's graph (6699 or b6699)
    std::string load_mode;           // --load-mode auto|none|mmap|mlock|mmap+mlock|dio
    bool mlock = false;              // --mlock (llama.cpp <= v0.4.0 spelling of --load-mode mlock)
    bool no_mmap = false;            // --no-mmap (ditto, --load-mode none)
    std::string program;             // --program llama-server (default) | library
    bool backend_sampling = false;   // -bs/--backend-sampling
    bool no_kv_offload = false;      // -nkvo/--no-kv-offload
    bool no_op_offload = false;      // --no-op-offload
    // The user's placement ("what if"), as llama.cpp takes it: -ngl, --n-cpu-moe, --cpu-moe, -ot,
    // -ts, -sm (read by readPlacementFlags, as the GUI's placement fields are).
    PlacementFlags placement;
    // Speculative decoding (llama.cpp v0.5.0's spellings): -md a GGUF, hf: reference or catalog
    // id; -ngld, -ctkd, -ctvd, --spec-draft-n-max; --spec-type none|draft-simple|draft-mtp.
    std::string draft_model;
    std::string draft_gpu_layers;
    std::string draft_cache_type_k;
    std::string draft_cache_type_v;
    std::uint32_t draft_n_max = 0; // 0: llama.cpp's default (3)
    std::string spec_type;
};

struct ModelFlags {
    std::string path;     // MODEL.gguf (positional)
    std::string model_id; // --model CATALOG_ID[:QUANT]
};

void addHardwareFlags(CLI::App& app, HardwareFlags& f);
void addOptionFlags(CLI::App& app, OptionFlags& f);
void addModelFlags(CLI::App& app, ModelFlags& f);

// The draft model -md names, as a plan prices it (a GGUF path or hf: reference, else a catalog
// id); a URL is refused: llama-server has no flag that downloads a draft from one.
Result<ModelShape> resolveDraftModel(const std::string& ref);

// Which exit code an Error maps to: bad arguments 2, unreadable input 3, probe failure 4.
int exitCodeFor(const Error& e);

Result<HardwareSnapshot> resolveHardware(const HardwareFlags& f);
Result<PlanOptions> resolveOptions(const OptionFlags& f);
Result<ModelShape> resolveModel(const ModelFlags& f);

// Resolves all three and plans; the single path every command takes to a Plan.
Result<Plan> buildPlan(const ModelFlags& mf, const HardwareFlags& hf, const OptionFlags& of);
// Several models on the same hardware and options, priced together (planModelSet).
Result<ModelSet> buildModelSet(const std::vector<ModelFlags>& models, const HardwareFlags& hf,
                               const OptionFlags& of);

} // namespace headroom::cli
