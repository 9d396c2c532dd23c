// One verification end to end, shared by `headroom-cli verify` and the GUI's "Verify on my
// llama.cpp": the plan's launch run on the user's llama-server just long enough to load
// (server_run.h), its buffer lines read (server_log.h) and compared with the plan (verify.h).
#pragma once

#include "plan.h"
#include "result.h"
#include "verify/verify.h"

#include <functional>
#include <string>
#include <vector>

namespace headroom {

struct VerifyRun {
    VerifyReport report;
    std::string program;           // the llama-server that ran (resolved path)
    std::vector<std::string> args; // its arguments (without the program)
};

// The llama-server to run: `server` when it has a '/', else looked up in PATH (empty:
// llama-server); IoError naming it when there is none.
Result<std::string> resolveLlamaServer(const std::string& server);

// `server`: as resolveLlamaServer takes it. `model_path`: a local
// GGUF. `on_start` (optional) is told the program before it runs. Errors carry the code the CLI
// exits with (exitCodeFor): InvalidArgument (no launch to verify), IoError (the program cannot
// be run), ProbeFailed (no free port, or it did not load the model / printed no buffer lines).
Result<VerifyRun> verifyOnLlamaServer(const Plan& plan, const std::string& model_path,
                                      const std::string& server, int timeout_s,
                                      const std::function<void(const std::string&)>& on_start = {});

} // namespace headroom
