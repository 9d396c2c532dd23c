// headroom-cli plan: every context rung of one model on one machine, as a table or JSON; or
// several models priced together (a set: planModelSet).
#include "commands.h"
#include "gguf/gguf_reader.h"
#include "plan_args.h"
#include "plan_format.h"
#include "plan_json.h"
#include "planner.h"
#include "planner/fit_simulation.h"
#include "planner/moe_curve.h"
#include "text_file.h"

#include <cstdio>
#include <iostream>
#include <sstream>

namespace headroom::cli {

namespace {

struct PlanCommand {
    // MODEL… and --model ID…: one model, or several priced together (a set).
    std::vector<std::string> paths;
    std::vector<std::string> ids;
    ModelFlags model; // the one model, when only one is given
    HardwareFlags hardware;
    OptionFlags options;
    bool json = false;
    std::string fit_target;    // -fitt MiB[,MiB…]
    std::uint32_t fit_ctx = 0; // -fitc N (0: llama.cpp's default)
    bool moe_curve = false;
};

std::string fitText(const FitSimulation& s) {
    std::string t = std::string("\nllama.cpp ") + llamaVersionName(s.version) +
                    " --fit with these flags (simulated, common/fit.cpp):\n";
    for (const auto& step : s.steps)
        t += "  - " + step + "\n";
    t += "  => -c " + std::to_string(s.context) + ", -ngl " + std::to_string(s.gpu_layers) +
         (s.n_cpu_moe ? ", experts of " + std::to_string(s.n_cpu_moe) + " blocks on the CPU"
                      : std::string()) +
         "\n";
    for (const auto& d : s.differences)
        t += "  differs: " + d + "\n";
    return t;
}

// -fitt: MiB per device ("1024" or "1024,2048"); empty = llama.cpp's default.
Result<std::vector<std::uint64_t>> readFitTarget(const std::string& text) {
    std::vector<std::uint64_t> mib;
    if (text.empty()) return mib;
    std::stringstream in(text);
    std::string part;
    while (std::getline(in, part, ',')) {
        auto n = parseGpuLayers(part); // a plain count, the same grammar
        if (!n || n->kind != GpuLayers::Kind::Count)
            return makeError(ErrorCode::InvalidArgument,
                             "-fitt/--fit-target '" + text + "' is not valid",
                             "accepted: MiB per device, e.g. 1024 or 1024,2048");
        mib.push_back(n->count);
    }
    return mib;
}

// The --moe-curve table: one line per --n-cpu-moe value.
std::string formatMoeCurve(const MoeCurve& c) {
    std::string s =
        "MoE offload curve at context " + std::to_string(c.context) +
        (c.context_chosen ? " (the plan's choice)" : "") +
        ", -ngl all; speeds are estimates (low-high)\n"
        "n-cpu-moe  verdict   GPU        host       decode tok/s        prefill tok/s\n";
    for (const auto& p : c.points) {
        char b[200];
        std::snprintf(b, sizeof b, "%9u  %-8s  %-9s  %-9s  %6.1f (%.1f-%.1f)  %7.0f (%.0f-%.0f)\n",
                      p.n_cpu_moe, verdictName(p.verdict), formatBytes(p.gpu_bytes).c_str(),
                      formatBytes(p.host_bytes).c_str(), p.speed.decode_tok_s, p.speed.decode_low,
                      p.speed.decode_high, p.speed.prefill_tok_s, p.speed.prefill_low,
                      p.speed.prefill_high);
        s += b;
    }
    return s;
}

int runMoeCurve(const PlanCommand& cmd) {
    auto options = resolveOptions(cmd.options);
    if (!options) return fail("plan", options.error().message, exitCodeFor(options.error()));
    auto hw = resolveHardware(cmd.hardware);
    if (!hw) return fail("plan", hw.error().message, exitCodeFor(hw.error()));
    auto model = resolveModel(cmd.model);
    if (!model) return fail("plan", model.error().message, exitCodeFor(model.error()));
    auto curve = moeCurve(*model, *hw, *options);
    if (!curve) {
        const Error& e = curve.error();
        return fail("plan", e.details.empty() ? e.message : e.message + " (" + e.details + ")",
                    exitCodeFor(e));
    }
    if (cmd.json)
        std::cout << dumpJson(moeCurveToJson(*model, *curve)) << "\n";
    else
        std::cout << formatMoeCurve(*curve);
    return kExitOk;
}

// Several models: the set's summary and every member's launch, or the set as JSON.
int runSet(const PlanCommand& cmd) {
    std::vector<ModelFlags> models;
    for (const auto& p : cmd.paths)
        models.push_back({p, ""});
    for (const auto& id : cmd.ids)
        models.push_back({"", id});
    auto set = buildModelSet(models, cmd.hardware, cmd.options);
    if (!set) {
        const Error& e = set.error();
        return fail("plan", e.details.empty() ? e.message : e.message + " (" + e.details + ")",
                    exitCodeFor(e));
    }
    if (cmd.json)
        std::cout << dumpJson(modelSetToJson(*set)) << "\n";
    else
        std::cout << formatModelSet(*set);
    return kExitOk;
}

CommandRegistrar
    reg("plan", "price every context rung of a model on a machine and choose the launch",
        [](CLI::App& sub) -> std::function<int()> {
            auto cmd = std::make_shared<PlanCommand>();
            sub.add_option("MODEL", cmd->paths,
                           "GGUF files (first part of a split model), https:// or hf: "
                           "references; several are priced together");
            sub.add_option("--model", cmd->ids,
                           "catalog ids, optionally with a quant: qwen3-30b-a3b:Q8_0 "
                           "(repeatable: several models are priced together, one llama-server "
                           "each)");
            addHardwareFlags(sub, cmd->hardware);
            addOptionFlags(sub, cmd->options);
            sub.add_flag("--json", cmd->json, "print the plan as JSON (schema headroom.plan/1)");
            sub.add_option("--fit-target", cmd->fit_target,
                           "-fitt: the margin llama.cpp's --fit keeps per device, MiB (default "
                           "1024), for the fit simulation");
            sub.add_option("--fit-ctx", cmd->fit_ctx,
                           "-fitc: the smallest context --fit may choose (default 4096)")
                ->check(CLI::Range(1u, 1u << 30));
            addParseCheck(sub, [cmd]() -> std::optional<Error> {
                auto t = readFitTarget(cmd->fit_target);
                return t ? std::nullopt : std::optional<Error>(t.error());
            });
            sub.add_flag("--moe-curve", cmd->moe_curve,
                         "price -ngl all --n-cpu-moe 0..n_layer at the chosen context (or -c): "
                         "VRAM, host RAM, decode and prefill per value (JSON: "
                         "headroom.moe-curve/1)");
            sub.footer(
                "Exit codes: 0 plan made (a refused rung is still an answer), 2 bad arguments, "
                "3 unreadable model file, 4 probe failed.");
            addParseCheck(sub, [cmd]() -> std::optional<Error> {
                if (cmd->paths.size() + cmd->ids.size() <= 1) return std::nullopt;
                if (cmd->paths.size() + cmd->ids.size() > kMaxSetModels)
                    return makeError(ErrorCode::InvalidArgument, "a set plans at most " +
                                                                     std::to_string(kMaxSetModels) +
                                                                     " models together");
                if (cmd->moe_curve)
                    return makeError(ErrorCode::InvalidArgument,
                                     "--moe-curve prices one model; give one");
                if (!cmd->fit_target.empty() || cmd->fit_ctx)
                    return makeError(ErrorCode::InvalidArgument,
                                     "--fit-target and --fit-ctx simulate one model's --fit; "
                                     "give one model");
                return std::nullopt;
            });
            return [cmd]() -> int {
                if (cmd->paths.size() + cmd->ids.size() > 1) return runSet(*cmd);
                if (!cmd->paths.empty()) cmd->model.path = cmd->paths.front();
                if (!cmd->ids.empty()) cmd->model.model_id = cmd->ids.front();
                if (cmd->moe_curve) return runMoeCurve(*cmd);
                auto plan = buildPlan(cmd->model, cmd->hardware, cmd->options);
                if (!plan) {
                    const Error& e = plan.error();
                    return fail("plan",
                                e.details.empty() ? e.message : e.message + " (" + e.details + ")",
                                exitCodeFor(e));
                }
                FitSettings fs;
                fs.target_mib = *readFitTarget(cmd->fit_target); // the parse check accepted it
                if (cmd->fit_ctx) fs.min_ctx = cmd->fit_ctx;
                auto fit = simulateFit(plan->model, plan->hardware, plan->options, fs, &*plan);
                if (cmd->json) {
                    auto j = planToJson(*plan);
                    if (fit) j["fit_simulation"] = fitSimulationJson(*fit);
                    std::cout << dumpJson(j) << "\n";
                } else {
                    std::cout << formatPlanTable(*plan);
                    if (fit) std::cout << fitText(*fit);
                }
                return kExitOk;
            };
        });

} // namespace

namespace {

// One model and its options as a plan takes them: the --mmproj file read and checked.
Result<SetMember> resolveMember(const ModelFlags& mf, const OptionFlags& of, PlanOptions options) {
    auto model = resolveModel(mf);
    if (!model) return model.error();
    if (!of.mmproj.empty() && of.mmproj != "on") {
        // The projector is read as llama.cpp's libmtmd reads it (tools/mtmd/clip.cpp
        // clip_model_loader: gguf_init_from_file, no tensor data): a GGUF header that parses, of a
        // projector (general.architecture = clip, as every mmproj file declares). A FIFO, device
        // or directory is refused unread; its file size is what the plan charges.
        auto projector = readGgufFile(of.mmproj);
        if (!projector) {
            const Error& e = projector.error();
            return makeError(ErrorCode::IoError, "--mmproj: " + e.message, e.details);
        }
        if (!projector->isProjector())
            return makeError(ErrorCode::IoError,
                             "--mmproj: '" + of.mmproj + "' is not a multimodal projector (" +
                                 (projector->architecture().empty()
                                      ? std::string("no general.architecture")
                                      : "general.architecture = " + projector->architecture()) +
                                 ", not clip)",
                             "give the mmproj-*.gguf file that belongs to the model");
        options.mmproj_bytes = projector->file_bytes;
    } else if (of.mmproj == "on" && model->mmproj_bytes == 0) {
        return makeError(ErrorCode::InvalidArgument,
                         "--mmproj on: model '" + model->id + "' has no projector in the catalog",
                         "give the projector file: --mmproj FILE.gguf");
    }
    if (options.draft) {
        auto draft = resolveDraftModel(options.draft->ref);
        if (!draft) return draft.error();
        // A catalog draft is written as "<id>.gguf", which the export says to replace.
        if (draft->source != ShapeSource::GgufHeader) options.draft->ref.clear();
        options.draft->model = std::make_shared<const ModelShape>(std::move(*draft));
    }
    return SetMember{std::move(*model), std::move(options)};
}

} // namespace

Result<Plan> buildPlan(const ModelFlags& mf, const HardwareFlags& hf, const OptionFlags& of) {
    auto options = resolveOptions(of);
    if (!options) return options.error();
    auto hw = resolveHardware(hf);
    if (!hw) return hw.error();
    auto member = resolveMember(mf, of, *options);
    if (!member) return member.error();
    return makePlan(member->model, *hw, member->options);
}

Result<ModelSet> buildModelSet(const std::vector<ModelFlags>& models, const HardwareFlags& hf,
                               const OptionFlags& of) {
    if (!of.mmproj.empty() && of.mmproj != "on")
        return makeError(ErrorCode::InvalidArgument,
                         "--mmproj FILE names one model's projector, but " +
                             std::to_string(models.size()) + " models are given",
                         "plan the model with its projector alone, or use --mmproj on");
    auto options = resolveOptions(of);
    if (!options) return options.error();
    if (options->draft)
        return makeError(ErrorCode::InvalidArgument,
                         "-md names one model's draft, but " + std::to_string(models.size()) +
                             " models are given",
                         "plan the model with its draft alone");
    auto hw = resolveHardware(hf);
    if (!hw) return hw.error();
    std::vector<SetMember> members;
    for (const ModelFlags& mf : models) {
        auto member = resolveMember(mf, of, *options);
        if (!member) return member.error();
        members.push_back(std::move(*member));
    }
    return planModelSet(members, *hw);
}

} // namespace headroom::cli
