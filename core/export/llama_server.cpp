#include "export/llama_server.h"

#include "export/shell.h"
#include "ggml_type.h"
#include "launch/llama_defaults.h"
#include "planner.h"

#include <algorithm>

namespace headroom {

namespace {

bool isUrl(const std::string& s) {
    return s.rfind("https://", 0) == 0 || s.rfind("http://", 0) == 0;
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

Result<Rung> chosenRung(const Plan& plan, int rung_index) {
    const std::string who = plan.model.name.empty() ? plan.model.id : plan.model.name;
    if (rung_index >= 0) {
        // The rung the user is looking at: any rung that runs exports, whatever the decision.
        if (static_cast<size_t>(rung_index) >= plan.rungs.size())
            return makeError(ErrorCode::InvalidArgument,
                             "nothing to export: rung " + std::to_string(rung_index) + " of " +
                                 std::to_string(plan.rungs.size()) + " does not exist");
        const Rung& r = plan.rungs[static_cast<size_t>(rung_index)];
        if (r.verdict == Verdict::Refused)
            return makeError(ErrorCode::InvalidArgument,
                             "nothing to export: the " + formatTokens(r.context) + " rung of " +
                                 who + " is refused",
                             r.refusal ? r.refusal->message : std::string());
        return r;
    }
    if (plan.decision.refused) {
        std::string why;
        for (auto it = plan.rungs.rbegin(); it != plan.rungs.rend(); ++it)
            if (it->refusal) {
                why = it->refusal->message;
                break;
            }
        // A smaller rung that runs is the user's way out: name it rather than refuse the model.
        const Rung* runs = nullptr;
        for (const Rung& r : plan.rungs)
            if (r.verdict != Verdict::Refused && (!runs || r.context > runs->context)) runs = &r;
        if (runs)
            return makeError(ErrorCode::InvalidArgument,
                             "nothing to export: the requested context of " + who +
                                 " is refused; the " + formatTokens(runs->context) +
                                 " rung runs (choose it, or plan with -c " +
                                 std::to_string(runs->requested_context) + ")",
                             why);
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

namespace {

// The traps a launch walks near, one line each (also written as comments).
std::vector<std::string> launchWarnings(const Plan& plan, const LaunchExportOptions& options,
                                        const Rung& rung, const LaunchConfig& cfg) {
    std::vector<std::string> warnings;
    const Placement& pl = rung.placement;
    if (cfg.n_parallel > 1 && !cfg.kv_unified) {
        const Bytes perSeq = padTo(rung.context / cfg.n_parallel, llama::kSeqCtxPad);
        warnings.push_back("-np " + std::to_string(cfg.n_parallel) +
                           " without --kv-unified divides the context: each sequence gets " +
                           std::to_string(perSeq) + " tokens, not " + std::to_string(rung.context) +
                           " (src/llama-context.cpp: n_ctx_seq = n_ctx / n_seq_max)");
    }
    if (isQuantizedCacheType(cfg.typeV()))
        warnings.push_back("a quantized V cache (-ctv " + std::string(ggmlTypeName(cfg.typeV())) +
                           ") needs flash attention: -fa on is pinned; a build or backend "
                           "without flash attention will refuse to load");
    if (std::any_of(plan.model.layers.begin(), plan.model.layers.end(),
                    [](const LayerShape& l) { return l.isMla(); }))
        warnings.push_back("MLA model: llama.cpp refuses different K and V cache types; keep "
                           "-ctk and -ctv equal if you edit them");
    if (rung.verdict == Verdict::Spilled)
        warnings.push_back("spilled: " + formatBytes(pl.spill_bytes) +
                           " of weights stay in system RAM (slower decode), as planned");
    if (plan.options.mmproj && options.mmproj_path.empty())
        warnings.push_back("the plan priced a multimodal projector; add --mmproj FILE");
    if (plan.model.source != ShapeSource::GgufHeader && options.model_path.empty())
        warnings.push_back("catalog model: replace " + launchModelPath(plan, {}) +
                           " with the path of your GGUF file");
    if (plan.options.draft && plan.options.draft->model &&
        plan.options.draft->model->source != ShapeSource::GgufHeader)
        warnings.push_back("catalog draft model: replace -md " + cfg.draft_model +
                           " with the path of its GGUF file");
    return warnings;
}

} // namespace

Result<LaunchCommand> llamaServerLaunch(const Plan& plan, const LaunchExportOptions& options) {
    auto rungOr = chosenRung(plan, options.rung_index);
    if (!rungOr) return rungOr.error();
    const Rung& rung = *rungOr;
    auto configOr = launchFor(plan, rung);
    if (!configOr) return configOr.error();
    LaunchConfig cfg = *configOr;
    const Placement& pl = rung.placement;

    LaunchCommand out;
    out.context = rung.requested_context;
    out.verdict = rung.verdict;

    const std::string ctxText = formatTokens(rung.context) + " (" + std::to_string(rung.context) +
                                " tokens, " + verdictName(rung.verdict) + ")";
    out.comments.push_back(
        "Headroom plan: " + (plan.model.name.empty() ? plan.model.id : plan.model.name) + " at " +
        ctxText + (plan.hardware.label.empty() ? "" : " on " + plan.hardware.label));
    const LlamaProfile& profile = llamaProfile(plan.options.llama_version);
    out.comments.push_back(std::string("for llama.cpp ") + llamaVersionName(profile.version) +
                           " (node-llama-cpp " + profile.node_llama_cpp +
                           "); plan with "
                           "--llama-version for another build");
    for (const auto& d : rung.devices)
        out.comments.push_back("  " + d.name + ": " + formatBytes(d.bytes) + " of " +
                               formatSignedBytes(d.budget_bytes) + " planned");
    if (rung.host_bytes > 0)
        out.comments.push_back("  system RAM: " + formatBytes(rung.host_bytes) + " of " +
                               formatSignedBytes(rung.host_budget_bytes) + " planned");

    if (options.fit == FitMode::Pin) {
        // The planner already turned fit off wherever a GPU takes part; say why.
        if (cfg.fit == std::optional<bool>(false)) {
            std::string flags = "-c, -ngl";
            if (!cfg.tensor_overrides.empty()) flags += ", -ot";
            if (cfg.n_cpu_moe || cfg.cpu_moe) flags += ", --n-cpu-moe";
            if (!cfg.tensor_split.empty()) flags += ", -ts";
            out.comments.push_back(
                "fit: off. Every placement flag below (" + flags + ") was " +
                (pl.pinned ? std::string("given by you and priced by Headroom")
                           : std::string("planned by Headroom")) +
                ". llama.cpp's --fit would give up once -ngl/-ot/--n-cpu-moe are set, never "
                "changes -c, and assumes system RAM is unlimited (common/fit.cpp), so it is "
                "turned off rather than left to half-apply.");
        }
    } else {
        // Leave to fit exactly what it may change: the layer split and tensor overrides.
        cfg.gpu_layers.reset();
        cfg.cpu_moe = false;
        cfg.n_cpu_moe = 0;
        cfg.tensor_overrides.clear();
        cfg.tensor_split.clear();
        cfg.fit = true;
        cfg.fit_target_mib.clear();
        for (size_t i = 0; i < plan.budget.devices.size(); ++i) {
            Bytes m = plan.budget.devices[i].margin;
            if (i == 0) m = satAdd(m, plan.options.extra_reserve);
            cfg.fit_target_mib.push_back(ceilDiv(m, MiB));
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

    out.warnings = launchWarnings(plan, options, rung, cfg);
    for (const auto& w : out.warnings)
        out.comments.push_back("warning: " + w);

    out.argv.push_back(options.server_binary);
    const std::string model = launchModelPath(plan, options.model_path);
    const bool hf = model.rfind("hf:", 0) == 0;
    if (hf) {
        // common/arg.cpp -hf <user>/<model>[:quant]: llama.cpp downloads the file itself (the
        // same pick as Headroom's hf: reference, core/remote pickHfFiles).
        out.argv.push_back("-hf");
        out.argv.push_back(model.substr(3));
    } else {
        // A URL is never a -m path: -mu/--model-url downloads it (common/arg.cpp).
        out.argv.push_back(isUrl(model) ? "-mu" : "-m");
        out.argv.push_back(model);
    }
    if (plan.options.mmproj && !options.mmproj_path.empty()) {
        out.argv.push_back(isUrl(options.mmproj_path) ? "-mmu" : "--mmproj");
        out.argv.push_back(options.mmproj_path);
    } else if (hf && !plan.options.mmproj) {
        // -hf also fetches and loads the repository's projector unless told not to
        // (--mmproj-auto is on by default); the plan priced none.
        out.argv.push_back("--no-mmproj");
    }
    const auto args = llamaServerArgs(cfg);
    out.argv.insert(out.argv.end(), args.begin(), args.end());
    if (!options.host.empty()) {
        out.argv.push_back("--host");
        out.argv.push_back(options.host);
    }
    if (!options.port.empty()) {
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
