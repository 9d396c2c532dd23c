// headroom-cli verify: load the plan on the user's own llama.cpp and compare. Runs llama-server
// with the plan's launch (LaunchConfig argv) just long enough to load the model, reads the
// buffer lines it prints per device (core/verify/server_log.h), prints planned against measured
// term by term, and with --save-calibration keeps the difference in a hardware profile that later
// plans price with and show ("verified on this machine, llama.cpp build …").
#include "commands.h"
#include "hardware_json.h"
#include "launch/launch_config.h"
#include "plan_args.h"
#include "text_file.h"
#include "verify/server_run.h"
#include "verify/verify.h"

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
    const std::string given = c.server.empty() ? std::string("llama-server") : c.server;
    const std::string program = findProgram(given);
    if (program.empty())
        return fail(cmd,
                    "cannot run '" + given + "': " +
                        (given.find('/') != std::string::npos
                             ? "no such executable file"
                             : "not found in PATH (give --llama-server PATH)"),
                    kExitUnreadableInput);

    auto plan = buildPlan(c.model, c.hardware, c.options);
    if (!plan) {
        const Error& e = plan.error();
        return fail(cmd, e.details.empty() ? e.message : e.message + " (" + e.details + ")",
                    exitCodeFor(e));
    }
    if (!plan->launch || plan->decision.rung_index < 0 ||
        plan->decision.rung_index >= static_cast<int>(plan->rungs.size()))
        return fail(cmd,
                    "the plan refuses every context on this machine, so there is no launch to "
                    "verify (see `headroom-cli plan`)",
                    kExitBadArguments);
    const Rung& rung = plan->rungs[static_cast<std::size_t>(plan->decision.rung_index)];

    // The plan's launch, plus what only this run needs: a private port on loopback, no warm-up
    // decode (it computes nothing the buffers depend on), and the log level that prints
    // llama.cpp's buffer lines (info, -lv 4 in llama-server's common/log.h levels).
    const int port = ephemeralLoopbackPort();
    if (port == 0) return fail(cmd, "no free TCP port on 127.0.0.1", kExitProbeFailed);
    std::vector<std::string> args = {"-m", c.model.path};
    for (const auto& a : llamaServerArgs(*plan->launch))
        args.push_back(a);
    for (const char* a : {"--host", "127.0.0.1", "--port"})
        args.emplace_back(a);
    args.push_back(std::to_string(port));
    for (const char* a : {"--no-warmup", "-lv", "4"})
        args.emplace_back(a);

    if (!c.json) std::cerr << "running " << program << " (at most " << c.timeout_s << " s)\n";
    const ServerRun r =
        runUntilLoaded(program, args, c.timeout_s * 1000, [](const std::string& log) {
            return log.find("server is listening") != std::string::npos ||
                   log.find("listening on") != std::string::npos;
        });
    const ServerLog log = parseServerLog(r.log);
    auto tail = [&]() {
        std::string t;
        for (const auto& e : log.errors)
            t += "\n  " + e;
        return t;
    };
    switch (r.status) {
    case ServerRun::Status::StartFailed:
        return fail(cmd, "cannot run '" + program + "': " + r.why, kExitUnreadableInput);
    case ServerRun::Status::TimedOut:
        if (log.buffer_lines == 0)
            return fail(cmd,
                        "'" + program + "' did not load the model within " +
                            std::to_string(c.timeout_s) + " s (stopped)" + tail(),
                        kExitProbeFailed);
        break; // loaded but never said it listens: the buffers are still what it allocated
    case ServerRun::Status::Exited:
        return fail(cmd,
                    "'" + program + "' exited before the model was loaded (" +
                        (r.signal ? "signal " + std::to_string(r.signal)
                                  : "exit code " + std::to_string(r.exit_code)) +
                        ")" + tail(),
                    kExitProbeFailed);
    case ServerRun::Status::Ready:
        break;
    }
    if (log.buffer_lines == 0)
        return fail(cmd,
                    "'" + program +
                        "' printed no buffer lines (\"... model buffer size = ... MiB\"): not a "
                        "llama.cpp llama-server, or one that logs differently",
                    kExitProbeFailed);

    const VerifyReport report = compareWithPlan(*plan, rung, log, c.model.path);
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
            return fail(cmd, "--save-calibration: " + ok.error().message, kExitUnreadableInput);
    }
    std::vector<std::string> argv = {program};
    argv.insert(argv.end(), args.begin(), args.end());
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
