// headroom-cli plan: every context rung of one model on one machine, as a table or JSON.
#include "commands.h"
#include "plan_args.h"
#include "plan_format.h"
#include "plan_json.h"
#include "planner.h"
#include "text_file.h"

#include <cerrno>
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
};

CommandRegistrar
    reg("plan", "price every context rung of a model on a machine and choose the launch",
        [](CLI::App& sub) -> std::function<int()> {
            auto cmd = std::make_shared<PlanCommand>();
            addModelFlags(sub, cmd->model);
            addHardwareFlags(sub, cmd->hardware);
            addOptionFlags(sub, cmd->options);
            sub.add_flag("--json", cmd->json, "print the plan as JSON (schema headroom.plan/1)");
            sub.footer(
                "Exit codes: 0 plan made (a refused rung is still an answer), 2 bad arguments, "
                "3 unreadable model file, 4 probe failed.");
            return [cmd]() -> int {
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
