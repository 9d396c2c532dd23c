#include "plan_args.h"

#include "commands.h"
#include "ggml_type.h"
#include "probe/isolated.h"
#include "probe/probe.h"
#include "rpc_hosts.h"
#include "units.h"

#include <cstdlib>
#include <sstream>
#include <tuple>

namespace headroom::cli {

namespace {

Error badArg(const std::string& flag, const std::string& value, const std::string& accepted) {
    return makeError(ErrorCode::InvalidArgument, flag + " '" + value + "' is not valid",
                     "accepted: " + accepted);
}

std::string withDetails(const Error& e) {
    return e.details.empty() ? e.message : e.message + " (" + e.details + ")";
}

} // namespace

namespace {

// The machine given by sizes (--vram/--gpu/--ram) instead of a probe, preset or profile.
struct SizedHardware {
    std::vector<Bytes> vram;
    Bytes ram = 0;
};

// What the hardware flags say without any I/O: one source at most, and the sizes read. nullopt:
// the source is the probe, a preset or a profile (resolveHardware reads it).
Result<std::optional<SizedHardware>> readHardwareFlags(const HardwareFlags& f) {
    const int sources = (f.probe ? 1 : 0) + (f.preset.empty() ? 0 : 1) +
                        (f.hardware_file.empty() ? 0 : 1) +
                        ((f.vram.empty() && f.ram.empty() && f.gpu.empty()) ? 0 : 1);
    if (sources > 1)
        return makeError(ErrorCode::InvalidArgument, "give one hardware source",
                         "one of --probe, --preset ID, --hardware FILE, or --gpu/--vram/--ram");
    if (!f.preset.empty() || !f.hardware_file.empty() || (f.probe || sources == 0)) {
        if (f.uma) return makeError(ErrorCode::InvalidArgument, "--uma goes with --vram/--ram");
        return std::optional<SizedHardware>();
    }
    if (f.ram.empty())
        return makeError(ErrorCode::InvalidArgument,
                         f.gpu.empty() ? "--vram needs --ram too" : "--gpu needs --ram too",
                         "e.g. --vram 24GiB --ram 64GiB, or --gpu 'RTX 4090' --ram 64GiB");
    auto vram = parseSizeList(f.vram.empty() ? "0" : f.vram, kMaxDevices, "--vram");
    if (!vram) {
        const Error& e = vram.error();
        return makeError(ErrorCode::InvalidArgument, e.message, e.details);
    }
    auto ram = parseSize(f.ram);
    if (!ram) return makeError(ErrorCode::InvalidArgument, "--ram: " + withDetails(ram.error()));
    return std::optional<SizedHardware>(SizedHardware{*vram, *ram});
}

} // namespace

void addHardwareFlags(CLI::App& app, HardwareFlags& f) {
    auto* g = app.add_option_group("Hardware", "the machine to plan for (default: --probe)");
    g->add_flag("--probe", f.probe, "probe this machine (Vulkan, NVML, sysfs, /proc)");
    g->add_option("--preset", f.preset, "a built-in hardware preset (see 'headroom-cli presets')");
    g->add_option("--hardware", f.hardware_file,
                  "a saved hardware profile (JSON, see 'probe --save')");
    g->add_option("--vram", f.vram, "GPU memory per device, e.g. 24GiB or 24GiB,12GiB (0: no GPU)");
    g->add_option("--gpu", f.gpu,
                  "GPUs by name, e.g. 'RTX 4090' or 'RTX 3090,RTX 3090': memory, bandwidth and "
                  "compute from the GPU table (with --ram; --vram overrides the memory)");
    g->add_option("--ram", f.ram, "system RAM, e.g. 64GiB");
    g->add_flag("--uma", f.uma, "unified memory: the GPU shares system RAM (one pool)");
    g->add_option("--rpc", f.rpc,
                  "llama.cpp rpc-server hosts to offload to, host:port[,host:port...]: each is "
                  "probed and its devices come first, as llama-server --rpc puts them");
    g->add_option("--free", f.free,
                  "free GPU memory right now, per device (e.g. 5.5GiB or 20GiB,11GiB): the "
                  "launch narrows to what fits beside other programs, as with a live probe");
    addParseCheck(app, [&f]() -> std::optional<Error> {
        auto sized = readHardwareFlags(f);
        if (!sized) return sized.error();
        if (!f.rpc.empty())
            if (auto bad = checkRpcList(f.rpc)) return bad;
        if (f.free.empty()) return std::nullopt;
        auto free = parseSizeList(f.free, kMaxDevices, "--free");
        if (!free)
            return makeError(ErrorCode::InvalidArgument, free.error().message,
                             free.error().details);
        return std::nullopt;
    });
}

void addOptionFlags(CLI::App& app, OptionFlags& f) {
    auto* g = app.add_option_group("Launch options", "as llama-server takes them");
    g->add_option("-c,--ctx-size", f.ctx, "context size in tokens (e.g. 131072, 128K) or 'native'");
    g->add_option("--cache-type-k", f.cache_type_k,
                  std::string("K cache type: ") + std::string(cacheTypeNames()));
    g->add_option("--cache-type-v", f.cache_type_v,
                  std::string("V cache type: ") + std::string(cacheTypeNames()));
    g->add_option("--flash-attn", f.flash_attn, "flash attention: on, off or auto");
    f.batch_option = g->add_option("-b,--batch-size", f.batch, "logical batch size")
                         ->check(CLI::Range(1u, 1u << 20));
    f.ubatch_option = g->add_option("--ubatch-size", f.ubatch, "physical micro-batch size")
                          ->check(CLI::Range(1u, 1u << 20));
    g->add_option("--parallel", f.parallel, "sequences served at once")
        ->check(CLI::Range(1u, 256u));
    g->add_flag("--kv-unified", f.kv_unified, "one KV buffer shared by all sequences");
    g->add_flag("--swa-full", f.swa_full, "full-size cache for sliding-window layers");
    g->add_option("--mtp", f.mtp,
                  "speculative decoding with the model's MTP head: on, off or auto");
    g->add_option("--mmproj", f.mmproj,
                  "multimodal projector: a .gguf file, or 'on' for the catalog's");
    g->add_option("--reserve", f.reserve, "keep this much more GPU memory free, e.g. 1GiB");
    g->add_option("--backend", f.backend,
                  "llama.cpp backend: " + std::string(backendNamesForHelp()) +
                      " (default: from the hardware)");
    g->add_option("--latency", f.latency,
                  "KV spill latency budget: text (1500 ms) or voice (200 ms)");
    // common/arg.cpp: --rope-scaling {none,linear,yarn}, --rope-scale N, --yarn-orig-ctx N.
    g->add_option("--rope-scaling", f.rope_scaling,
                  "RoPE scaling past the trained context: none, linear or yarn");
    g->add_option("--rope-scale", f.rope_scale,
                  "RoPE context scaling factor: the usable context becomes N x the original");
    g->add_option("--yarn-orig-ctx", f.yarn_orig_ctx,
                  "YaRN: the model's original context (default: the model's own)");
    g->add_option("--llama-version", f.llama_version,
                  "the llama.cpp build to write the launch for: v0.5.0 (default, node-llama-cpp "
                  "3.22.1) or v0.4.0 (3.21.1)");
    g->add_option(
        "--llama-build", f.llama_build,
        "price the compute graph of an older mainline build N (as `llama-server "
        "--version` prints it) where it is known to differ; flags stay --llama-version's");
    g->add_option("--load-mode", f.load_mode,
                  "-lm: how llama.cpp reads the weights: auto, none, mmap, mlock, mmap+mlock, dio");
    g->add_flag("--mlock", f.mlock, "older spelling of --load-mode mlock (written as --load-mode)");
    g->add_flag("--no-mmap", f.no_mmap,
                "older spelling of --load-mode none (written as --load-mode)");
    g->add_option("--program", f.program,
                  "the program that runs the model, which decides the logits rows llama.cpp "
                  "reserves: llama-server (default; -np x (1 + draft tokens) rows, what every "
                  "launch Headroom writes runs) or library (llama.cpp's C API with default "
                  "context parameters, as node-llama-cpp: a whole ubatch of rows)");
    g->add_flag("--backend-sampling", f.backend_sampling,
                "-bs: llama-server samples on the backend (priced in the output buffer, written "
                "in the launch)");
    g->add_flag("--no-kv-offload", f.no_kv_offload,
                "KV cache and recurrent state in system RAM, the attention over it on the CPU");
    g->add_flag("--no-op-offload", f.no_op_offload,
                "keep ops whose weights are in system RAM on the CPU (no copies to the GPU)");
    auto* p = app.add_option_group(
        "Placement", "your own placement, priced as given instead of searched (llama.cpp's flags)");
    p->add_option("--gpu-layers,--n-gpu-layers", f.placement.gpu_layers,
                  "-ngl: layers on the GPUs: a number, auto (Headroom searches) or all");
    p->add_option("--n-cpu-moe", f.placement.n_cpu_moe,
                  "-ncmoe: keep the experts of the first N MoE blocks on the CPU");
    p->add_flag("--cpu-moe", f.placement.cpu_moe,
                "-cmoe: keep every MoE block's experts on the CPU");
    p->add_option("--override-tensor", f.placement.override_tensor,
                  "-ot: REGEX=CPU keeps matching tensors in system RAM, e.g. "
                  "'\\.ffn_(up|down|gate)_exps=CPU' (repeatable, comma-separated)")
        ->allow_extra_args(false);
    p->add_option("--tensor-split", f.placement.tensor_split,
                  "-ts: proportions of the layers per GPU, e.g. 3,1");
    p->add_option("--split-mode", f.placement.split_mode,
                  "-sm: layer (default), row, none or tensor (v0.5.0 tensor parallelism)");
    auto* s = app.add_option_group("Speculative decoding",
                                   "a draft model beside the target (llama.cpp v0.5.0's flags)");
    s->add_option("--model-draft,--spec-draft-model", f.draft_model,
                  "-md: the draft model: a GGUF file, an hf: reference or a catalog id "
                  "(priced beside the target at its context, written with --spec-type "
                  "draft-simple)");
    s->add_option("--gpu-layers-draft,--spec-draft-ngl", f.draft_gpu_layers,
                  "-ngld: the draft's layers on the GPUs: a number or all (default: all)");
    s->add_option("--cache-type-k-draft,--spec-draft-type-k", f.draft_cache_type_k,
                  "-ctkd: the draft's K cache type (default f16)");
    s->add_option("--cache-type-v-draft,--spec-draft-type-v", f.draft_cache_type_v,
                  "-ctvd: the draft's V cache type (default f16)");
    s->add_option("--spec-draft-n-max", f.draft_n_max,
                  "tokens the draft proposes per step (default 3)")
        ->check(CLI::Range(1u, 256u));
    s->add_option("--spec-type", f.spec_type,
                  "none, draft-simple (with -md) or draft-mtp (the model's MTP head, as --mtp on)");
    addParseCheck(app, [&f]() -> std::optional<Error> {
        auto options = resolveOptions(f);
        return options ? std::nullopt : std::optional<Error>(options.error());
    });
}

void addModelFlags(CLI::App& app, ModelFlags& f) {
    app.add_option("MODEL", f.path, "a GGUF file (first part of a split model)");
    app.add_option("--model", f.model_id,
                   "a catalog id, optionally with a quant: qwen3-30b-a3b:Q8_0");
}

int exitCodeFor(const Error& e) {
    switch (e.code) {
    case ErrorCode::InvalidArgument:
    case ErrorCode::NotFound:
        return kExitBadArguments;
    case ErrorCode::ProbeFailed:
        return kExitProbeFailed;
    default:
        return kExitUnreadableInput;
    }
}

namespace {

Result<HardwareSnapshot> resolveHardwareOnly(const HardwareFlags& f);
Result<HardwareSnapshot> resolveLocalHardware(const HardwareFlags& f);

} // namespace

// The machine, then the RPC hosts (--rpc) after probing them.
Result<HardwareSnapshot> resolveHardware(const HardwareFlags& f) {
    auto hw = resolveLocalHardware(f);
    if (!hw || f.rpc.empty()) return hw;
    if (auto ok = addRpcHosts(*hw, f.rpc); !ok) return ok.error();
    return hw;
}

namespace {

// The machine, with --free (when given) as each GPU's live free memory: one size per GPU, none
// above the device's total.
Result<HardwareSnapshot> resolveLocalHardware(const HardwareFlags& f) {
    auto hw = resolveHardwareOnly(f);
    if (!hw || f.free.empty()) return hw;
    auto sizes = parseSizeList(f.free, kMaxDevices, "--free");
    if (!sizes)
        return makeError(ErrorCode::InvalidArgument, sizes.error().message, sizes.error().details);
    if (sizes->size() != hw->gpus.size())
        return makeError(ErrorCode::InvalidArgument,
                         "--free gives " + std::to_string(sizes->size()) + " sizes for " +
                             std::to_string(hw->gpus.size()) + " GPUs",
                         "one free size per GPU, in device order, e.g. --free 20GiB,11GiB");
    for (size_t i = 0; i < sizes->size(); ++i) {
        if ((*sizes)[i] > hw->gpus[i].total_bytes)
            return makeError(ErrorCode::InvalidArgument,
                             "--free " + formatBytes((*sizes)[i]) + " is more than " +
                                 hw->gpus[i].name + "'s " + formatBytes(hw->gpus[i].total_bytes));
        hw->gpus[i].free_bytes = (*sizes)[i];
        hw->gpus[i].memory_provenance += " (free: --free)";
    }
    return hw;
}

Result<HardwareSnapshot> resolveHardwareOnly(const HardwareFlags& f) {
    auto sized = readHardwareFlags(f);
    if (!sized) return sized.error();
    if (!*sized) {
        probe::HardwareRequest req;
        if (!f.preset.empty()) {
            req.kind = probe::HardwareRequest::Kind::Preset;
            req.id_or_path = f.preset;
        } else if (!f.hardware_file.empty()) {
            req.kind = probe::HardwareRequest::Kind::ProfileFile;
            req.id_or_path = f.hardware_file;
        }
        // plan/export/catalog probe by default: a hanging Vulkan loader or driver must cost
        // seconds, not the command.
        req.probe.isolate_timeout_ms = probe::detail::kIsolatedProbeTimeoutMs;
        return probe::resolveHardware(req);
    }
    const SizedHardware& sizes = **sized;
    if (!f.gpu.empty()) {
        std::vector<std::string> names;
        std::stringstream gs(f.gpu);
        std::string part;
        while (std::getline(gs, part, ','))
            names.push_back(part);
        auto hw = snapshotFromGpuNames(names, f.vram.empty() ? std::vector<Bytes>{} : sizes.vram,
                                       sizes.ram);
        if (!hw) {
            Error e = hw.error();
            e.code = ErrorCode::InvalidArgument; // a typo in a flag: exit 2
            e.message = "--gpu: " + e.message;
            return e;
        }
        if (auto ok = validateSnapshot(*hw); !ok) return ok.error();
        return hw;
    }
    HardwareSnapshot hw = snapshotFromSizes(sizes.vram, sizes.ram, f.uma);
    if (auto ok = validateSnapshot(hw); !ok) return ok.error();
    return hw;
}

} // namespace

namespace {

// -md and the flags that go with it, and --spec-type. The draft's ModelShape is resolved with the
// model (resolveDraftModel), so `o.draft` leaves here without one.
std::optional<Error> readDraftFlags(const OptionFlags& f, PlanOptions& o) {
    if (!f.spec_type.empty() && f.spec_type != "none" && f.spec_type != "draft-simple" &&
        f.spec_type != "draft-mtp")
        return badArg("--spec-type", f.spec_type, "none, draft-simple, draft-mtp");
    const bool draft = !f.draft_model.empty();
    const bool draft_flags = !f.draft_gpu_layers.empty() || !f.draft_cache_type_k.empty() ||
                             !f.draft_cache_type_v.empty();
    if (!draft && (draft_flags || f.spec_type == "draft-simple"))
        return makeError(ErrorCode::InvalidArgument,
                         (draft_flags ? "-ngld, -ctkd and -ctvd" : "--spec-type draft-simple") +
                             std::string(" need a draft model"),
                         "give it with -md FILE.gguf (or a catalog id)");
    if (draft && (f.spec_type == "none" || f.spec_type == "draft-mtp"))
        return makeError(ErrorCode::InvalidArgument,
                         "-md with --spec-type " + f.spec_type +
                             ": the draft model would load "
                             "and never draft",
                         "use --spec-type draft-simple, or drop -md");
    if (f.spec_type == "draft-mtp") {
        if (o.mtp == MtpMode::Off)
            return makeError(ErrorCode::InvalidArgument, "--spec-type draft-mtp with --mtp off");
        o.mtp = MtpMode::On;
    }
    if (f.spec_type == "none") {
        if (o.mtp == MtpMode::On)
            return makeError(ErrorCode::InvalidArgument, "--spec-type none with --mtp on");
        o.mtp = MtpMode::Off;
    }
    // Only a draft model's n_max is priced: Headroom's MTP launches always draft
    // kMtpDraftTokens, so a value beside --mtp on would be dropped without a word.
    if (f.draft_n_max && !draft)
        return makeError(ErrorCode::InvalidArgument,
                         "--spec-draft-n-max is priced for a draft model only: give -md FILE.gguf",
                         "Headroom's MTP launches draft 3 tokens per step");
    if (!draft) return std::nullopt;
    DraftModel d;
    d.ref = f.draft_model;
    if (!f.draft_gpu_layers.empty()) {
        auto g = parseGpuLayers(f.draft_gpu_layers);
        if (!g || g->kind == GpuLayers::Kind::Auto)
            return badArg("-ngld/--gpu-layers-draft", f.draft_gpu_layers,
                          "a number of layers or all");
        d.gpu_layers = *g;
    }
    for (auto [flag, v, out] :
         {std::tuple{"-ctkd/--cache-type-k-draft", &f.draft_cache_type_k, &d.cache_type_k},
          std::tuple{"-ctvd/--cache-type-v-draft", &f.draft_cache_type_v, &d.cache_type_v}}) {
        if (v->empty()) continue;
        auto t = parseCacheType(*v);
        if (!t) return badArg(flag, *v, std::string(cacheTypeNames()));
        *out = *t;
    }
    if (f.draft_n_max) d.n_max = f.draft_n_max;
    o.draft = std::move(d);
    return std::nullopt;
}

} // namespace

Result<PlanOptions> resolveOptions(const OptionFlags& f) {
    PlanOptions o;
    if (!f.ctx.empty()) {
        if (f.ctx == "native") {
            o.context = 0;
        } else {
            auto t = parseTokens(f.ctx);
            if (!t)
                return makeError(ErrorCode::InvalidArgument,
                                 "-c/--ctx-size: " + withDetails(t.error()));
            o.context = static_cast<std::uint32_t>(*t);
        }
    }
    auto cacheType = [](const std::string& flag, const std::string& v,
                        GgmlType& out) -> std::optional<Error> {
        if (v.empty()) return std::nullopt;
        auto t = parseCacheType(v);
        if (!t) return badArg(flag, v, std::string(cacheTypeNames()));
        out = *t;
        return std::nullopt;
    };
    if (auto e = cacheType("-ctk/--cache-type-k", f.cache_type_k, o.cache_type_k)) return *e;
    if (auto e = cacheType("-ctv/--cache-type-v", f.cache_type_v, o.cache_type_v)) return *e;
    if (!f.flash_attn.empty()) {
        if (f.flash_attn == "on" || f.flash_attn == "1")
            o.flash_attn = FlashAttn::On;
        else if (f.flash_attn == "off" || f.flash_attn == "0")
            o.flash_attn = FlashAttn::Off;
        else if (f.flash_attn == "auto")
            o.flash_attn = FlashAttn::Auto;
        else
            return badArg("-fa/--flash-attn", f.flash_attn, "on, off, auto");
    }
    o.n_batch = f.batch;
    o.n_ubatch = f.ubatch;
    // Typed counts as set, even when equal to llama.cpp's default (`-ub 512` on an MTP model).
    o.batch_set = f.batch_option && f.batch_option->count() > 0;
    o.ubatch_set = f.ubatch_option && f.ubatch_option->count() > 0;
    o.n_parallel = f.parallel;
    o.kv_unified = f.kv_unified;
    o.swa_full = f.swa_full;
    if (!f.mtp.empty()) {
        if (f.mtp == "on")
            o.mtp = MtpMode::On;
        else if (f.mtp == "off")
            o.mtp = MtpMode::Off;
        else if (f.mtp == "auto")
            o.mtp = MtpMode::Auto;
        else
            return badArg("--mtp", f.mtp, "on, off, auto");
    }
    if (!f.reserve.empty()) {
        auto r = parseSize(f.reserve);
        if (!r)
            return makeError(ErrorCode::InvalidArgument, "--reserve: " + withDetails(r.error()));
        o.extra_reserve = *r;
    }
    if (!f.backend.empty()) {
        const auto b = backendFromName(f.backend);
        if (!b || *b == Backend::Rpc)
            return badArg("--backend", f.backend, std::string(backendNamesForHelp()));
        o.backend = *b;
    }
    if (!f.latency.empty()) {
        if (f.latency == "voice")
            o.latency = LatencyProfile::Voice;
        else if (f.latency == "text")
            o.latency = LatencyProfile::Text;
        else
            return badArg("--latency", f.latency, "text, voice");
    }
    if (!f.rope_scaling.empty()) {
        auto r = parseRopeScaling(f.rope_scaling);
        if (!r) return badArg("--rope-scaling", f.rope_scaling, "none, linear, yarn");
        o.rope_scaling = *r;
    }
    if (!f.rope_scale.empty()) {
        char* end = nullptr;
        const double v = std::strtod(f.rope_scale.c_str(), &end);
        if (end == f.rope_scale.c_str() || *end != '\0' || !(v > 0) || v > 1024)
            return badArg("--rope-scale", f.rope_scale, "a factor above 0, at most 1024");
        o.rope_scale = v;
    }
    o.yarn_orig_ctx = f.yarn_orig_ctx;
    if (!f.llama_version.empty()) {
        auto v = parseLlamaVersion(f.llama_version);
        if (!v) return v.error();
        o.llama_version = *v;
    }
    if (!f.llama_build.empty()) {
        auto b = parseLlamaBuild(f.llama_build);
        if (!b) return b.error();
        o.llama_build = *b;
    }
    if ((f.mlock || f.no_mmap) + !f.load_mode.empty() > 1 || (f.mlock && f.no_mmap))
        return makeError(ErrorCode::InvalidArgument,
                         "give one of --load-mode, --mlock or --no-mmap",
                         "llama.cpp keeps only the last one; --load-mode says it in one flag");
    if (!f.load_mode.empty()) {
        auto m = parseLoadMode(f.load_mode);
        if (!m) return m.error();
        o.load_mode = *m;
    }
    // llama.cpp v0.4.0 common/arg.cpp: --mlock sets LLAMA_LOAD_MODE_MLOCK, --no-mmap
    // LLAMA_LOAD_MODE_NONE; v0.5.0 accepts only --load-mode, so that is what the launch writes.
    if (f.mlock) o.load_mode = LoadMode::Mlock;
    if (f.no_mmap) o.load_mode = LoadMode::None;
    if (!f.program.empty()) {
        auto p = parseProgram(f.program);
        if (!p) return badArg("--program", f.program, "llama-server, library");
        o.program = *p;
    }
    o.backend_sampling = f.backend_sampling;
    o.kv_offload = !f.no_kv_offload;
    o.op_offload = !f.no_op_offload;
    if (!f.mmproj.empty()) o.mmproj = true; // the file's size is read by resolveModel
    auto pinned = readPlacementFlags(f.placement);
    if (!pinned) return pinned.error();
    o.pinned = *pinned;
    if (auto e = readDraftFlags(f, o)) return *e;
    return o;
}

} // namespace headroom::cli
