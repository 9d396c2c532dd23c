#include "plan_args.h"

#include "commands.h"
#include "ggml_type.h"
#include "probe/isolated.h"
#include "probe/probe.h"
#include "rpc_hosts.h"
#include "units.h"

#include <sstream>

namespace headroom::cli {

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
                  "llama.cpp backend: cpu, cuda, vulkan or metal (default: from the hardware)");
    g->add_option("--latency", f.latency,
                  "KV spill latency budget: text (1500 ms) or voice (200 ms)");
    auto* p = app.add_option_group(
        "Placement", "your own placement, priced as given instead of searched (llama.cpp's flags)");
    p->add_option("--gpu-layers,--n-gpu-layers", f.gpu_layers,
                  "-ngl: layers on the GPUs: a number, auto (Headroom searches) or all");
    p->add_option("--n-cpu-moe", f.n_cpu_moe,
                  "-ncmoe: keep the experts of the first N MoE blocks on the CPU");
    p->add_flag("--cpu-moe", f.cpu_moe, "-cmoe: keep every MoE block's experts on the CPU");
    p->add_option("--override-tensor", f.override_tensor,
                  "-ot: REGEX=CPU keeps matching tensors in system RAM, e.g. "
                  "'\\.ffn_(up|down|gate)_exps=CPU' (repeatable, comma-separated)")
        ->allow_extra_args(false);
    p->add_option("--tensor-split", f.tensor_split,
                  "-ts: proportions of the layers per GPU, e.g. 3,1");
    p->add_option("--split-mode", f.split_mode, "-sm: layer (default), row or none");
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

Error badArg(const std::string& flag, const std::string& value, const std::string& accepted) {
    return makeError(ErrorCode::InvalidArgument, flag + " '" + value + "' is not valid",
                     "accepted: " + accepted);
}

std::string withDetails(const Error& e) {
    return e.details.empty() ? e.message : e.message + " (" + e.details + ")";
}

} // namespace

namespace {

Result<HardwareSnapshot> resolveLocalHardware(const HardwareFlags& f);

} // namespace

Result<HardwareSnapshot> resolveHardware(const HardwareFlags& f) {
    auto hw = resolveLocalHardware(f);
    if (!hw || f.rpc.empty()) return hw;
    if (auto ok = addRpcHosts(*hw, f.rpc); !ok) return ok.error();
    return hw;
}

namespace {

Result<HardwareSnapshot> resolveLocalHardware(const HardwareFlags& f) {
    const int sources = (f.probe ? 1 : 0) + (f.preset.empty() ? 0 : 1) +
                        (f.hardware_file.empty() ? 0 : 1) +
                        ((f.vram.empty() && f.ram.empty() && f.gpu.empty()) ? 0 : 1);
    if (sources > 1)
        return makeError(ErrorCode::InvalidArgument, "give one hardware source",
                         "one of --probe, --preset ID, --hardware FILE, or --gpu/--vram/--ram");
    if (!f.preset.empty() || !f.hardware_file.empty() || (f.probe || sources == 0)) {
        if (f.uma) return makeError(ErrorCode::InvalidArgument, "--uma goes with --vram/--ram");
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
    {
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
        if (!ram)
            return makeError(ErrorCode::InvalidArgument, "--ram: " + withDetails(ram.error()));
        if (!f.gpu.empty()) {
            std::vector<std::string> names;
            std::stringstream gs(f.gpu);
            std::string part;
            while (std::getline(gs, part, ','))
                names.push_back(part);
            auto hw =
                snapshotFromGpuNames(names, f.vram.empty() ? std::vector<Bytes>{} : *vram, *ram);
            if (!hw) {
                Error e = hw.error();
                e.code = ErrorCode::InvalidArgument; // a typo in a flag: exit 2
                e.message = "--gpu: " + e.message;
                return e;
            }
            if (auto ok = validateSnapshot(*hw); !ok) return ok.error();
            return hw;
        }
        HardwareSnapshot hw = snapshotFromSizes(*vram, *ram, f.uma);
        if (auto ok = validateSnapshot(hw); !ok) return ok.error();
        return hw;
    }
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
        if (f.backend == "cpu")
            o.backend = Backend::Cpu;
        else if (f.backend == "cuda")
            o.backend = Backend::Cuda;
        else if (f.backend == "vulkan")
            o.backend = Backend::Vulkan;
        else if (f.backend == "metal")
            o.backend = Backend::Metal;
        else
            return badArg("--backend", f.backend, "cpu, cuda, vulkan, metal");
    }
    if (!f.latency.empty()) {
        if (f.latency == "voice")
            o.latency = LatencyProfile::Voice;
        else if (f.latency == "text")
            o.latency = LatencyProfile::Text;
        else
            return badArg("--latency", f.latency, "text, voice");
    }
    if (!f.mmproj.empty()) o.mmproj = true; // the file's size is read by resolveModel
    if (!f.gpu_layers.empty()) {
        auto g = parseGpuLayers(f.gpu_layers);
        if (!g) return g.error();
        o.pinned.gpu_layers = *g;
    }
    if (!f.n_cpu_moe.empty()) {
        auto n = parseGpuLayers(f.n_cpu_moe); // a plain count, the same grammar
        if (!n || n->kind != GpuLayers::Kind::Count)
            return badArg("--n-cpu-moe", f.n_cpu_moe, "a number of MoE blocks, 0 or more");
        o.pinned.n_cpu_moe = n->count;
    }
    o.pinned.cpu_moe = f.cpu_moe;
    if (o.pinned.cpu_moe && o.pinned.n_cpu_moe)
        return makeError(ErrorCode::InvalidArgument, "give --cpu-moe or --n-cpu-moe, not both");
    for (const auto& ot : f.override_tensor) {
        auto list = parseTensorOverrides(ot);
        if (!list) return list.error();
        o.pinned.tensor_overrides.insert(o.pinned.tensor_overrides.end(), list->begin(),
                                         list->end());
    }
    if (!f.tensor_split.empty()) {
        auto ts = parseTensorSplit(f.tensor_split);
        if (!ts) return ts.error();
        o.pinned.tensor_split = *ts;
    }
    if (!f.split_mode.empty()) {
        auto sm = parseSplitMode(f.split_mode);
        if (!sm) return badArg("-sm/--split-mode", f.split_mode, "layer, row, none");
        o.pinned.split_mode = *sm;
    }
    return o;
}

} // namespace headroom::cli
