// headroom-cli verify: load the plan on the user's own llama.cpp and compare. Runs llama-server
// with the plan's launch (LaunchConfig argv) just long enough to load the model, reads the
// buffer lines it prints per device (core/verify/server_log.h), prints planned against measured
// term by term, and with --save-calibration keeps the difference in a hardware profile that later
// plans price with and show ("verified on this machine, llama.cpp build …").
#include "atomic_write.h"
#include "commands.h"
#include "hardware_json.h"
#include "plan_args.h"
#include "text_file.h"
#include "verify/verify_run.h"

#include <iostream>
#include <sys/stat.h>

namespace headroom::cli {

namespace {

// A real model from a local disk loads in seconds to a few minutes; ten minutes is a hang.
// Not a knob: --timeout overrides it for one run.
inline constexpr int kDefaultVerifyTimeoutS = 600;

struct VerifyCommand {
    ModelFlags model;
    HardwareFlags hardware;
    OptionFlags options;
    std::string server;
    std::string save_calibration;
    int timeout_s = kDefaultVerifyTimeoutS;
    bool json = false;
};

int run(const VerifyCommand& c) {
    const std::string cmd = "verify";
    if (c.timeout_s < 1 || c.timeout_s > 86400)
        return fail(cmd, "--timeout must be 1 to 86400 seconds", kExitBadArguments);
    if (c.model.path.empty() || c.model.path.find("://") != std::string::npos ||
        c.model.path.rfind("hf:", 0) == 0)
        return fail(cmd,
                    "verify loads the model in llama.cpp: give a local GGUF file (not --model "
                    "or a remote address)",
                    kExitBadArguments);
    if (auto program = resolveLlamaServer(c.server); !program)
        return fail(cmd, program.error().message, exitCodeFor(program.error()));
    // The profile is updated in place (--force): refuse a target that can never be written (a
    // directory, FIFO, device, a link to one) before the server runs for minutes.
    if (!c.save_calibration.empty())
        if (auto ok = checkOutputTarget(c.save_calibration, true); !ok)
            return fail(cmd, "--save-calibration: " + ok.error().message, exitCodeFor(ok.error()));

    auto plan = buildPlan(c.model, c.hardware, c.options);
    if (!plan) {
        const Error& e = plan.error();
        return fail(cmd, e.details.empty() ? e.message : e.message + " (" + e.details + ")",
                    exitCodeFor(e));
    }
    auto run = verifyOnLlamaServer(
        *plan, c.model.path, c.server, c.timeout_s, [&c](const std::string& program) {
            if (!c.json)
                std::cerr << "running " << program << " (at most " << c.timeout_s << " s)\n";
        });
    if (!run) return fail(cmd, run.error().message, exitCodeFor(run.error()));
    const VerifyReport& report = run->report;
    if (!c.save_calibration.empty()) {
        struct stat st {};
        HardwareSnapshot hw = plan->hardware;
        if (::stat(c.save_calibration.c_str(), &st) == 0) {
            auto existing = loadHardwareProfile(c.save_calibration);
            if (!existing)
                return fail(cmd, existing.error().message, exitCodeFor(existing.error()));
            hw = *existing;
        }
        hw.calibration = report.calibration;
        if (auto ok = saveHardwareProfile(c.save_calibration, hw, true); !ok)
            return fail(cmd, "--save-calibration: " + ok.error().message, exitCodeFor(ok.error()));
    }
    std::vector<std::string> argv = {run->program};
    argv.insert(argv.end(), run->args.begin(), run->args.end());
    if (c.json)
        std::cout << dumpJson(verifyReportToJson(report, argv)) << "\n";
    else
        std::cout << formatVerifyReport(report);
    return kExitOk;
}

CommandRegistrar reg(
    "verify", "load the plan in your llama-server and compare its buffers with the plan",
    [](CLI::App& sub) -> std::function<int()> {
        auto cmd = std::make_shared<VerifyCommand>();
        addModelFlags(sub, cmd->model);
        addHardwareFlags(sub, cmd->hardware);
        addOptionFlags(sub, cmd->options);
        // verify runs llama-server, so the plan is priced for it (--program).
        addParseCheck(sub, [cmd]() -> std::optional<Error> {
            if (cmd->options.program != "library") return std::nullopt;
            return makeError(ErrorCode::InvalidArgument,
                             "--program library prices llama.cpp's library, but verify runs "
                             "llama-server",
                             "drop --program (llama-server is the default)");
        });
        sub.add_option("--llama-server,--server", cmd->server,
                       "the llama-server to run (default: llama-server from PATH)");
        sub.add_option("--timeout", cmd->timeout_s,
                       "seconds the load may take before llama-server is stopped (default 600)");
        sub.add_option("--save-calibration", cmd->save_calibration,
                       "store the measured difference in this hardware profile (created from the "
                       "plan's hardware when missing); later plans with --hardware FILE use it");
        sub.add_flag("--json", cmd->json,
                     "print the comparison as JSON (schema headroom.verify/1)");
        sub.footer("Exit codes: 0 compared (differences are an answer), 2 bad arguments or a plan "
                   "with no launch, 3 the server or profile cannot be read or run, 4 the server "
                   "exited, hung past --timeout or printed no buffer lines.");
        return [cmd]() -> int { return run(*cmd); };
    });

} // namespace

} // namespace headroom::cli
