// llama-server launch export: the argument list of the rung a Plan chose, completed from that same
// Plan (the flag and its price travel together), with llama.cpp's automatic fitting either turned
// off or left exactly the freedom it is safe to give it, and the launch traps spelled out.
#pragma once

#include "plan.h"
#include "result.h"

#include <string>
#include <vector>

namespace headroom {

// How an exported launch treats llama.cpp's own fitting (`--fit`, on by default;
// common/fit.cpp common_params_fit_impl). Fit gives up ("already set by user, abort") as soon as
// -ngl, -ts or -ot/--n-cpu-moe are given, never changes an explicit -c, and assumes system RAM is
// unlimited (common/fit.h), so it cannot honour a plan's RAM budget.
enum class FitMode {
    Pin,        // every planned placement flag is written and `--fit off` says so
    LeaveToFit, // -c and the cache flags are pinned; placement is left to `--fit on` with
                // `--fit-target` set to the margins the plan kept free
};
const char* fitModeName(FitMode m);

struct LaunchExportOptions {
    std::string server_binary = "llama-server";
    // The GGUF to load. Empty: the plan's own file when the model came from a GGUF header, else a
    // placeholder named after the catalog id (and a comment saying to replace it).
    std::string model_path;
    std::string mmproj_path; // --mmproj FILE when the plan priced a projector
    FitMode fit = FitMode::Pin;
    std::string host; // --host, "" = llama-server's default (127.0.0.1)
    std::string port; // --port, "" = llama-server's default; "${PORT}" for llama-swap
    // Which rung to launch: an index into plan.rungs, or -1 for the plan's decision. Any rung
    // that is not refused exports (the GUI exports the rung the user looks at).
    int rung_index = -1;
};

struct LaunchCommand {
    std::vector<std::string> argv;     // argv[0] is the server binary
    std::vector<std::string> comments; // one line each, without the leading "# "
    std::vector<std::string> warnings; // the traps this launch walks near (also in comments)
    std::uint32_t context = 0;         // the rung's -c
    Verdict verdict = Verdict::Refused;
};

// The chosen rung of a plan (rung_index -1: the decision's), or an Error saying why there is
// nothing to launch (refused, no decision, no such rung).
Result<Rung> chosenRung(const Plan& plan, int rung_index = -1);

// The GGUF path the launch loads (see LaunchExportOptions::model_path).
std::string launchModelPath(const Plan& plan, const std::string& override_path);

// Formats the rung's LaunchConfig (launchFor) as a llama-server command with comments and the
// launch traps spelled out. Errors only when the rung is refused or does not exist; what
// llama.cpp would refuse outright was already refused by the planner (validateOptions).
Result<LaunchCommand> llamaServerLaunch(const Plan& plan, const LaunchExportOptions& options);

// A POSIX sh script: `#!/bin/sh`, the comments, then `exec` and the arguments one flag (with its
// value) per line, joined by backslash-newline continuations and shell-quoted.
std::string llamaServerScript(const LaunchCommand& launch);

// The same arguments on one shell-quoted line (for a clipboard).
std::string llamaServerCommandLine(const LaunchCommand& launch);

// argv split into lines of "flag value…" (a flag and the values that follow it, until the next
// word starting with '-'); the first line is argv[0]. Each line is shell-quoted.
std::vector<std::string> launchLines(const std::vector<std::string>& argv);

} // namespace headroom
