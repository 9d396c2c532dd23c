#include "export/llama_server.h"

#include "export/shell.h"
#include "ggml_type.h"

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <optional>

namespace headroom {

namespace {

// llama-server's own defaults for the flags a plan prices (common/common.h `common_params`):
// a value equal to these need not be written. Not knobs: they describe llama.cpp.
inline constexpr std::uint32_t kLlamaDefaultBatch = 2048;
inline constexpr std::uint32_t kLlamaDefaultUbatch = 512;
// llama.cpp pads each sequence's share of a split KV cache to this many tokens
// (src/llama-context.cpp llama_context::llama_context: n_ctx_seq = GGML_PAD(n_ctx / n_seq, 256)).
inline constexpr std::uint32_t kSeqCtxPad = 256;

using Aliases = std::initializer_list<const char*>;
const Aliases kCtx = {"-c", "--ctx-size"};
const Aliases kNgl = {"-ngl", "--gpu-layers", "--n-gpu-layers"};
const Aliases kCtk = {"-ctk", "--cache-type-k"};
const Aliases kCtv = {"-ctv", "--cache-type-v"};
const Aliases kFa = {"-fa", "--flash-attn"};
const Aliases kBatch = {"-b", "--batch-size"};
const Aliases kUbatch = {"-ub", "--ubatch-size"};
const Aliases kParallel = {"-np", "--parallel"};
const Aliases kKvu = {"-kvu", "--kv-unified"};
const Aliases kNoKvu = {"-no-kvu", "--no-kv-unified"};
const Aliases kSwaFull = {"--swa-full"};
const Aliases kOt = {"-ot", "--override-tensor"};
const Aliases kNcmoe = {"--n-cpu-moe", "-ncmoe"}; // first name is the one written
const Aliases kCmoe = {"-cmoe", "--cpu-moe"};
const Aliases kTs = {"-ts", "--tensor-split"};
const Aliases kFit = {"-fit", "--fit"};
const Aliases kFitTarget = {"-fitt", "--fit-target"};
const Aliases kNkvo = {"-nkvo", "--no-kv-offload"};
const Aliases kMmproj = {"-mm", "--mmproj"};
const Aliases kModel = {"-m", "--model"};
const Aliases kPort = {"--port"};
const Aliases kHost = {"--host"};

bool isAlias(const std::string& w, Aliases names) {
    for (const char* n : names)
        if (w == n) return true;
    return false;
}

// Index of the first word naming the flag, or -1.
int findFlag(const std::vector<std::string>& args, Aliases names) {
    for (size_t i = 0; i < args.size(); ++i)
        if (isAlias(args[i], names)) return static_cast<int>(i);
    return -1;
}

std::optional<std::string> flagValue(const std::vector<std::string>& args, Aliases names) {
    const int i = findFlag(args, names);
    if (i < 0 || static_cast<size_t>(i) + 1 >= args.size()) return std::nullopt;
    return args[static_cast<size_t>(i) + 1];
}

// Removes every occurrence of the flag (and its value when it takes one).
void removeFlag(std::vector<std::string>& args, Aliases names, bool takesValue) {
    for (size_t i = 0; i < args.size();) {
        if (isAlias(args[i], names)) {
            const size_t n = takesValue && i + 1 < args.size() ? 2 : 1;
            args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
                       args.begin() + static_cast<std::ptrdiff_t>(i + n));
        } else {
            ++i;
        }
    }
}

Error conflict(const std::string& flag, const std::string& written, const std::string& priced) {
    return makeError(ErrorCode::InvalidArgument,
                     "the plan's launch arguments say " + flag + " " + written +
                         " but the chosen rung was priced with " + priced,
                     "an exported flag must come from the decision that was priced");
}

// Writes `flag value` when absent; an existing different value is a contradiction.
std::optional<Error> pinValue(std::vector<std::string>& args, Aliases names,
                              const std::string& value) {
    if (auto v = flagValue(args, names)) {
        if (*v != value) return conflict(*names.begin(), *v, value);
        return std::nullopt;
    }
    args.push_back(*names.begin());
    args.push_back(value);
    return std::nullopt;
}

bool hasMlaLayers(const ModelShape& m) {
    return std::any_of(m.layers.begin(), m.layers.end(),
                       [](const LayerShape& l) { return l.attention == AttentionKind::Mla; });
}

std::string mibCeil(Bytes b) {
    return std::to_string(ceilDiv(b, MiB));
}

} // namespace

const char* fitModeName(FitMode m) {
    switch (m) {
    case FitMode::Pin:
        return "pin";
    case FitMode::LeaveToFit:
        return "fit";
    }
    return "?";
}

Result<Rung> chosenRung(const Plan& plan) {
    const std::string who = plan.model.name.empty() ? plan.model.id : plan.model.name;
    if (plan.decision.refused) {
        std::string why;
        for (auto it = plan.rungs.rbegin(); it != plan.rungs.rend(); ++it)
            if (it->refusal) {
                why = it->refusal->message;
                break;
            }
        return makeError(ErrorCode::InvalidArgument,
                         "nothing to export: the plan refuses " + who + " on this hardware", why);
    }
    const int i = plan.decision.rung_index;
    if (i < 0 || static_cast<size_t>(i) >= plan.rungs.size())
        return makeError(ErrorCode::InvalidArgument,
                         "nothing to export: the plan for " + who + " has no chosen rung",
                         "decision.rung_index = " + std::to_string(i) + " of " +
                             std::to_string(plan.rungs.size()) + " rungs");
    const Rung& r = plan.rungs[static_cast<size_t>(i)];
    if (r.verdict == Verdict::Refused)
        return makeError(ErrorCode::InvalidArgument,
                         "nothing to export: the chosen rung (" + formatTokens(r.context) +
                             ") of " + who + " is refused",
                         r.refusal ? r.refusal->message : std::string());
    return r;
}

std::string launchModelPath(const Plan& plan, const std::string& override_path) {
    if (!override_path.empty()) return override_path;
    if (plan.model.source == ShapeSource::GgufHeader && !plan.model.id.empty())
        return plan.model.id;
    const std::string stem = plan.model.id.empty() ? std::string("MODEL") : plan.model.id;
    return stem + ".gguf";
}

Result<LaunchCommand> llamaServerLaunch(const Plan& plan, const LaunchExportOptions& options) {
    auto rungOr = chosenRung(plan);
    if (!rungOr) return rungOr.error();
    const Rung& rung = *rungOr;
    const Placement& pl = rung.placement;
    const PlanOptions& po = plan.options;

    LaunchCommand out;
    out.context = rung.requested_context;
    out.verdict = rung.verdict;

    // llama.cpp refuses these outright; exporting them would hand the user a launch that dies.
    // src/llama-context.cpp llama_init_from_model.
    if (isQuantizedCacheType(po.cache_type_v) && !plan.flash_attn)
        return makeError(ErrorCode::InvalidArgument,
                         "a quantized V cache (" + std::string(ggmlTypeName(po.cache_type_v)) +
                             ") needs flash attention, which this plan has off",
                         "llama.cpp: \"quantized V cache requires flash_attn to be enabled\"");
    const bool mla = hasMlaLayers(plan.model);
    if (mla && po.cache_type_k != po.cache_type_v)
        return makeError(ErrorCode::InvalidArgument,
                         "MLA models need equal K and V cache types; the plan has -ctk " +
                             std::string(ggmlTypeName(po.cache_type_k)) + " and -ctv " +
                             std::string(ggmlTypeName(po.cache_type_v)),
                         "llama.cpp: \"model does not support different K and V cache types\"");

    // Start from the arguments the planner priced, then complete them from the same plan.
    std::vector<std::string> args = plan.launch_args;
    removeFlag(args, kModel, true); // the model path is ours to write, first
    // -c is what the user asks for; llama.cpp pads it to rung.context itself.
    if (auto e = pinValue(args, kCtx, std::to_string(rung.requested_context))) return *e;
    if (po.cache_type_k != GgmlType::F16 || findFlag(args, kCtk) >= 0)
        if (auto e = pinValue(args, kCtk, std::string(ggmlTypeName(po.cache_type_k)))) return *e;
    if (po.cache_type_v != GgmlType::F16 || findFlag(args, kCtv) >= 0)
        if (auto e = pinValue(args, kCtv, std::string(ggmlTypeName(po.cache_type_v)))) return *e;
    // Flash attention was resolved when pricing (it changes the compute buffer): write what was
    // priced rather than leave `auto` to resolve differently on the user's build.
    if (auto e = pinValue(args, kFa, plan.flash_attn ? "on" : "off")) return *e;
    if (auto b = flagValue(args, kBatch); !b && po.n_batch != kLlamaDefaultBatch) {
        args.push_back("-b");
        args.push_back(std::to_string(po.n_batch));
    }
    if (rung.n_ubatch != kLlamaDefaultUbatch || findFlag(args, kUbatch) >= 0)
        if (auto e = pinValue(args, kUbatch, std::to_string(rung.n_ubatch))) return *e;
    // llama-server's default is not one sequence: with no -np it runs 4 slots sharing one
    // unified cache (tools/server/server.cpp, n_parallel = -1 → 4, kv_unified = true). Always
    // write the number of sequences that was priced.
    if (auto e = pinValue(args, kParallel, std::to_string(po.n_parallel))) return *e;
    if (po.kv_unified) {
        if (findFlag(args, kKvu) < 0) args.push_back("-kvu");
    } else if (findFlag(args, kKvu) >= 0) {
        return conflict("-kvu", "(set)", "a KV cache split per sequence");
    }
    removeFlag(args, kNoKvu, false);
    if (po.swa_full && findFlag(args, kSwaFull) < 0) args.push_back("--swa-full");
    if (!pl.kv_offload && findFlag(args, kNkvo) < 0) args.push_back("-nkvo");

    // Placement: what llama.cpp's fit would otherwise decide.
    const bool cpuOnly = plan.backend == Backend::Cpu || plan.budget.devices.empty();
    const std::string ngl = std::to_string(cpuOnly ? 0u : pl.gpu_layers);
    if (auto e = pinValue(args, kNgl, ngl)) return *e;
    if (!pl.override_tensor.empty())
        if (auto e = pinValue(args, kOt, pl.override_tensor)) return *e;
    if (pl.n_cpu_moe > 0)
        if (auto e = pinValue(args, kNcmoe, std::to_string(pl.n_cpu_moe))) return *e;

    const std::string ctxText = formatTokens(rung.context) + " (" + std::to_string(rung.context) +
                                " tokens, " + verdictName(rung.verdict) + ")";
    out.comments.push_back(
        "Headroom plan: " + (plan.model.name.empty() ? plan.model.id : plan.model.name) + " at " +
        ctxText + (plan.hardware.label.empty() ? "" : " on " + plan.hardware.label));
    for (const auto& d : rung.devices)
        out.comments.push_back("  " + d.name + ": " + formatBytes(d.bytes) + " of " +
                               formatSignedBytes(d.budget_bytes) + " planned");
    if (rung.host_bytes > 0)
        out.comments.push_back("  system RAM: " + formatBytes(rung.host_bytes) + " of " +
                               formatSignedBytes(rung.host_budget_bytes) + " planned");

    if (options.fit == FitMode::Pin) {
        removeFlag(args, kFitTarget, true);
        if (auto f = flagValue(args, kFit); f && *f != "off") removeFlag(args, kFit, true);
        if (findFlag(args, kFit) < 0) {
            args.push_back("--fit");
            args.push_back("off");
        }
        out.comments.push_back(
            "fit: off. Every placement flag below (-c, -ngl" +
            std::string(pl.override_tensor.empty() ? "" : ", -ot") +
            (pl.n_cpu_moe ? ", --n-cpu-moe" : "") +
            ") was planned by Headroom. llama.cpp's --fit would give up once -ngl/-ot/"
            "--n-cpu-moe are set, never changes -c, and assumes system RAM is unlimited "
            "(common/fit.cpp), so it is turned off rather than left to half-apply.");
    } else {
        // Leave to fit exactly what it may change: the layer split and tensor overrides.
        removeFlag(args, kNgl, true);
        removeFlag(args, kOt, true);
        removeFlag(args, kNcmoe, true);
        removeFlag(args, kCmoe, false);
        removeFlag(args, kTs, true);
        removeFlag(args, kFit, true);
        removeFlag(args, kFitTarget, true);
        args.push_back("--fit");
        args.push_back("on");
        if (!plan.budget.devices.empty()) {
            std::string targets;
            for (size_t i = 0; i < plan.budget.devices.size(); ++i) {
                Bytes m = plan.budget.devices[i].margin;
                if (i == 0) m = satAdd(m, po.extra_reserve);
                targets += (i ? "," : "") + mibCeil(m);
            }
            args.push_back("--fit-target");
            args.push_back(targets);
        }
        out.comments.push_back(
            "fit: on. -c and the cache flags are pinned (fit never changes an explicit -c); "
            "llama.cpp places layers itself with --fit-target set to the margins this plan kept "
            "free. It may place differently from this plan (" +
            std::to_string(pl.gpu_layers) + " layers on GPU" +
            (pl.n_cpu_moe ? ", --n-cpu-moe " + std::to_string(pl.n_cpu_moe) : std::string()) +
            "), and it assumes system RAM is unlimited (common/fit.h), so it will not keep to "
            "the planned RAM budget.");
    }

    // Traps worth a line.
    if (po.n_parallel > 1 && !po.kv_unified) {
        const Bytes perSeq = padTo(rung.context / po.n_parallel, kSeqCtxPad);
        out.warnings.push_back("-np " + std::to_string(po.n_parallel) +
                               " without --kv-unified divides the context: each sequence gets " +
                               std::to_string(perSeq) + " tokens, not " +
                               std::to_string(rung.context) +
                               " (src/llama-context.cpp: n_ctx_seq = n_ctx / n_seq_max)");
    }
    if (isQuantizedCacheType(po.cache_type_v))
        out.warnings.push_back("a quantized V cache (-ctv " +
                               std::string(ggmlTypeName(po.cache_type_v)) +
                               ") needs flash attention: -fa on is pinned; a build or backend "
                               "without flash attention will refuse to load");
    if (mla)
        out.warnings.push_back("MLA model: llama.cpp refuses different K and V cache types; keep "
                               "-ctk and -ctv equal if you edit them");
    if (rung.verdict == Verdict::Spilled)
        out.warnings.push_back("spilled: " + formatBytes(pl.spill_bytes) +
                               " of weights stay in system RAM (slower decode), as planned");
    if (po.mmproj && options.mmproj_path.empty() && findFlag(args, kMmproj) < 0)
        out.warnings.push_back("the plan priced a multimodal projector; add --mmproj FILE");
    if (plan.mtp && std::find(args.begin(), args.end(), "--spec-type") == args.end())
        out.warnings.push_back("the plan priced MTP speculative decoding, but its launch "
                               "arguments carry no --spec-type");
    if (plan.model.source != ShapeSource::GgufHeader && options.model_path.empty())
        out.warnings.push_back("catalog model: replace " + launchModelPath(plan, {}) +
                               " with the path of your GGUF file");
    for (const auto& w : out.warnings)
        out.comments.push_back("warning: " + w);

    out.argv.push_back(options.server_binary);
    out.argv.push_back("-m");
    out.argv.push_back(launchModelPath(plan, options.model_path));
    if (po.mmproj && !options.mmproj_path.empty() && findFlag(args, kMmproj) < 0) {
        out.argv.push_back("--mmproj");
        out.argv.push_back(options.mmproj_path);
    }
    out.argv.insert(out.argv.end(), args.begin(), args.end());
    if (!options.host.empty()) {
        removeFlag(out.argv, kHost, true);
        out.argv.push_back("--host");
        out.argv.push_back(options.host);
    }
    if (!options.port.empty()) {
        removeFlag(out.argv, kPort, true);
        out.argv.push_back("--port");
        out.argv.push_back(options.port);
    }
    return out;
}

std::vector<std::string> launchLines(const std::vector<std::string>& argv) {
    std::vector<std::string> lines;
    std::vector<std::string> cur;
    auto flush = [&] {
        if (!cur.empty()) lines.push_back(shellJoin(cur));
        cur.clear();
    };
    for (size_t i = 0; i < argv.size(); ++i) {
        const bool isFlag = i > 0 && argv[i].size() > 1 && argv[i][0] == '-';
        if (i == 1 || isFlag) flush();
        cur.push_back(argv[i]);
    }
    flush();
    return lines;
}

std::string llamaServerScript(const LaunchCommand& launch) {
    std::string s = "#!/bin/sh\n";
    for (auto c : launch.comments) {
        std::replace(c.begin(), c.end(), '\n', ' '); // a name with a newline must stay a comment
        s += "# " + c + "\n";
    }
    const auto lines = launchLines(launch.argv);
    for (size_t i = 0; i < lines.size(); ++i) {
        s += i == 0 ? "exec " : "  ";
        s += lines[i];
        s += i + 1 < lines.size() ? " \\\n" : "\n";
    }
    return s;
}

std::string llamaServerCommandLine(const LaunchCommand& launch) {
    return shellJoin(launch.argv);
}

} // namespace headroom
