#include "verify/verify_run.h"

#include "launch/launch_config.h"
#include "verify/server_run.h"

namespace headroom {

Result<std::string> resolveLlamaServer(const std::string& server) {
    const std::string given = server.empty() ? std::string("llama-server") : server;
    std::string program = findProgram(given);
    if (program.empty())
        return makeError(ErrorCode::IoError,
                         "cannot run '" + given + "': " +
                             (given.find('/') != std::string::npos
                                  ? "no such executable file"
                                  : "not found in PATH (give --llama-server PATH)"));
    return program;
}

Result<VerifyRun> verifyOnLlamaServer(const Plan& plan, const std::string& model_path,
                                      const std::string& server, int timeout_s,
                                      const std::function<void(const std::string&)>& on_start) {
    auto resolved = resolveLlamaServer(server);
    if (!resolved) return resolved.error();
    const std::string program = *resolved;
    if (!plan.launch || plan.decision.rung_index < 0 ||
        plan.decision.rung_index >= static_cast<int>(plan.rungs.size()))
        return makeError(ErrorCode::InvalidArgument,
                         "the plan refuses every context on this machine, so there is no launch "
                         "to verify (see `headroom-cli plan`)");
    const Rung& rung = plan.rungs[static_cast<std::size_t>(plan.decision.rung_index)];

    // The plan's launch, plus what only this run needs: a private port on loopback, no warm-up
    // decode (it computes nothing the buffers depend on), and the log level that prints
    // llama.cpp's buffer lines (info, -lv 4 in llama-server's common/log.h levels).
    const int port = ephemeralLoopbackPort();
    if (port == 0) return makeError(ErrorCode::ProbeFailed, "no free TCP port on 127.0.0.1");
    VerifyRun out;
    out.program = program;
    out.args = {"-m", model_path};
    for (const auto& a : llamaServerArgs(*plan.launch))
        out.args.push_back(a);
    for (const char* a : {"--host", "127.0.0.1", "--port"})
        out.args.emplace_back(a);
    out.args.push_back(std::to_string(port));
    for (const char* a : {"--no-warmup", "-lv", "4"})
        out.args.emplace_back(a);

    if (on_start) on_start(program);
    const ServerRun r =
        runUntilLoaded(program, out.args, timeout_s * 1000, [](const std::string& log) {
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
        return makeError(ErrorCode::IoError, "cannot run '" + program + "': " + r.why);
    case ServerRun::Status::TimedOut:
        if (log.buffer_lines == 0)
            return makeError(ErrorCode::ProbeFailed,
                             "'" + program + "' did not load the model within " +
                                 std::to_string(timeout_s) + " s (stopped)" + tail());
        break; // loaded but never said it listens: the buffers are still what it allocated
    case ServerRun::Status::Exited:
        return makeError(ErrorCode::ProbeFailed,
                         "'" + program + "' exited before the model was loaded (" +
                             (r.signal ? "signal " + std::to_string(r.signal)
                                       : "exit code " + std::to_string(r.exit_code)) +
                             ")" + tail());
    case ServerRun::Status::Ready:
        break;
    }
    if (log.buffer_lines == 0)
        return makeError(ErrorCode::ProbeFailed,
                         "'" + program +
                             "' printed no buffer lines (\"... model buffer size = ... MiB\"): "
                             "not a llama.cpp llama-server, or one that logs differently");
    out.report = compareWithPlan(plan, rung, log, model_path);
    return out;
}

} // namespace headroom
