// headroom-cli plan: every context rung of one model on one machine, as a table or JSON.
#include "commands.h"
#include "plan_args.h"
#include "plan_format.h"
#include "plan_json.h"
#include "planner.h"
#include "planner/moe_curve.h"
#include "text_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sys/stat.h>

namespace headroom::cli {

namespace {

struct PlanCommand {
    ModelFlags model;
    HardwareFlags hardware;
    OptionFlags options;
    bool json = false;
    bool moe_curve = false;
};

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

CommandRegistrar
    reg("plan", "price every context rung of a model on a machine and choose the launch",
        [](CLI::App& sub) -> std::function<int()> {
            auto cmd = std::make_shared<PlanCommand>();
            addModelFlags(sub, cmd->model);
            addHardwareFlags(sub, cmd->hardware);
            addOptionFlags(sub, cmd->options);
            sub.add_flag("--json", cmd->json, "print the plan as JSON (schema headroom.plan/1)");
            sub.add_flag("--moe-curve", cmd->moe_curve,
                         "price -ngl all --n-cpu-moe 0..n_layer at the chosen context (or -c): "
                         "VRAM, host RAM, decode and prefill per value (JSON: "
                         "headroom.moe-curve/1)");
            sub.footer(
                "Exit codes: 0 plan made (a refused rung is still an answer), 2 bad arguments, "
                "3 unreadable model file, 4 probe failed.");
            return [cmd]() -> int {
                if (cmd->moe_curve) return runMoeCurve(*cmd);
                auto plan = buildPlan(cmd->model, cmd->hardware, cmd->options);
                if (!plan) {
                    const Error& e = plan.error();
                    return fail("plan",
                                e.details.empty() ? e.message : e.message + " (" + e.details + ")",
                                exitCodeFor(e));
                }
                if (cmd->json)
                    std::cout << dumpJson(planToJson(*plan)) << "\n";
                else
                    std::cout << formatPlanTable(*plan);
                return kExitOk;
            };
        });

} // namespace

Result<Plan> buildPlan(const ModelFlags& mf, const HardwareFlags& hf, const OptionFlags& of) {
    auto options = resolveOptions(of);
    if (!options) return options.error();
    auto hw = resolveHardware(hf);
    if (!hw) return hw.error();
    auto model = resolveModel(mf);
    if (!model) return model.error();
    if (!of.mmproj.empty() && of.mmproj != "on") {
        // Only the size is read, but it must be a projector file: a directory or device has a
        // size that means nothing.
        struct stat st {};
        if (::stat(of.mmproj.c_str(), &st) != 0)
            return makeError(ErrorCode::IoError,
                             "--mmproj: cannot read '" + of.mmproj + "': " + std::strerror(errno));
        if (!S_ISREG(st.st_mode))
            return makeError(ErrorCode::IoError, "--mmproj: '" + of.mmproj + "' is " +
                                                     fileKindName(st.st_mode) +
                                                     ", not a projector .gguf file");
        options->mmproj_bytes = static_cast<Bytes>(st.st_size);
    } else if (of.mmproj == "on" && model->mmproj_bytes == 0) {
        return makeError(ErrorCode::InvalidArgument,
                         "--mmproj on: model '" + model->id + "' has no projector in the catalog",
                         "give the projector file: --mmproj FILE.gguf");
    }
    return makePlan(*model, *hw, *options);
}

} // namespace headroom::cli
