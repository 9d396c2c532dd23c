// Runs the user's llama-server just long enough to load a model: started in a process group of
// its own with its output on a pipe, stopped (SIGTERM, then SIGKILL to the whole group) as soon
// as the log says it listens, when it exits, or at a hard time limit. It cannot outlive
// Headroom: the child asks the kernel to kill it when its parent dies (PR_SET_PDEATHSIG), and
// every path out of runUntilLoaded reaps it.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace headroom {

struct ServerRun {
    enum class Status {
        Ready,      // `ready` said the log shows a loaded server; stopped by us
        Exited,     // it ended on its own before that
        TimedOut,   // still loading at the limit; killed
        StartFailed // could not be started (exec failed)
    } status = Status::StartFailed;
    std::string log;    // stdout and stderr together (capped, see kMaxServerLogBytes)
    int exit_code = -1; // Exited: its exit status (-1 when killed by a signal)
    int signal = 0;     // Exited: the signal that ended it
    std::string why;    // StartFailed: the OS's reason
};

// 32 MiB of log is far more than any load prints (a few hundred KiB with -lv 4); beyond it the
// rest is read and dropped, so a server spewing garbage cannot exhaust memory. Not a knob.
inline constexpr std::size_t kMaxServerLogBytes = 32u << 20;
// After SIGTERM, llama-server prints its memory breakdown and exits within a second; two seconds
// more and the group is killed. Not a knob.
inline constexpr int kServerStopGraceMs = 2000;

// `ready` is asked after every chunk of output with the whole log so far.
ServerRun runUntilLoaded(const std::string& program, const std::vector<std::string>& args,
                         int timeout_ms, const std::function<bool(const std::string&)>& ready);

// The program to run: `given` when it has a '/', else looked up in $PATH. Empty when not found.
std::string findProgram(const std::string& given);

// A TCP port on 127.0.0.1 that was free a moment ago (bound with port 0, then released).
int ephemeralLoopbackPort();

} // namespace headroom
