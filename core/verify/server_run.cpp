#include "verify/server_run.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace headroom {

namespace {

using Clock = std::chrono::steady_clock;

int msLeft(Clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left < 0 ? 0 : static_cast<int>(left);
}

// Reads what is there (non-blocking fd) into `log` up to the cap; false at end of file.
bool drain(int fd, std::string& log) {
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n > 0) {
            const std::size_t room = kMaxServerLogBytes - std::min(log.size(), kMaxServerLogBytes);
            log.append(buf, std::min<std::size_t>(room, static_cast<std::size_t>(n)));
            continue;
        }
        if (n == 0) return false;
        if (errno == EINTR) continue;
        return true; // EAGAIN: nothing more for now
    }
}

// Waits for the child to exit for up to `ms`, reading its output meanwhile; true when reaped.
bool waitExit(pid_t pid, int fd, std::string& log, int ms, int& wstatus) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(ms);
    bool open = fd >= 0;
    for (;;) {
        const pid_t r = ::waitpid(pid, &wstatus, WNOHANG);
        if (r == pid) {
            if (open) drain(fd, log);
            return true;
        }
        const int left = msLeft(deadline);
        if (left == 0) return false;
        if (open) {
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, std::min(left, 50)) > 0) open = drain(fd, log);
        } else {
            ::usleep(20000);
        }
    }
}

} // namespace

std::string findProgram(const std::string& given) {
    auto runnable = [](const std::string& p) {
        struct stat st {};
        return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
    };
    if (given.find('/') != std::string::npos) return runnable(given) ? given : std::string();
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    std::size_t pos = 0;
    while (pos <= dirs.size()) {
        std::size_t end = dirs.find(':', pos);
        if (end == std::string::npos) end = dirs.size();
        std::string dir = dirs.substr(pos, end - pos);
        if (dir.empty()) dir = ".";
        std::string candidate = dir;
        candidate += '/';
        candidate += given;
        if (runnable(candidate)) return candidate;
        pos = end + 1;
    }
    return {};
}

int ephemeralLoopbackPort() {
    const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) return 0;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof a;
    int port = 0;
    if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    ::close(s);
    return port;
}

ServerRun runUntilLoaded(const std::string& program, const std::vector<std::string>& args,
                         int timeout_ms, const std::function<bool(const std::string&)>& ready) {
    ServerRun run;
    int out[2], status_pipe[2];
    if (::pipe2(out, O_CLOEXEC) != 0) {
        run.why = std::string("pipe: ") + std::strerror(errno);
        return run;
    }
    if (::pipe2(status_pipe, O_CLOEXEC) != 0) {
        run.why = std::string("pipe: ") + std::strerror(errno);
        ::close(out[0]);
        ::close(out[1]);
        return run;
    }
    std::vector<std::string> argv_store;
    argv_store.push_back(program);
    argv_store.insert(argv_store.end(), args.begin(), args.end());
    std::vector<char*> argv;
    argv.reserve(argv_store.size() + 1);
    for (auto& a : argv_store)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();

    const pid_t pid = ::fork();
    if (pid < 0) {
        run.why = std::string("fork: ") + std::strerror(errno);
        for (int fd : {out[0], out[1], status_pipe[0], status_pipe[1]})
            ::close(fd);
        return run;
    }
    if (pid == 0) {
        // Child: own process group (so the whole group can be stopped), killed with its parent,
        // output on the pipe, no stdin. Only async-signal-safe calls until exec.
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);
        const int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0) ::dup2(devnull, 0);
        ::dup2(out[1], 1);
        ::dup2(out[1], 2);
        ::execv(program.c_str(), argv.data());
        const int e = errno;
        (void)!::write(status_pipe[1], &e, sizeof e);
        ::_exit(127);
    }
    ::setpgid(pid, pid); // also from the parent, so the group exists before any kill below
    ::close(out[1]);
    ::close(status_pipe[1]);
    int exec_errno = 0;
    const bool exec_failed = ::read(status_pipe[0], &exec_errno, sizeof exec_errno) ==
                             static_cast<ssize_t>(sizeof exec_errno);
    ::close(status_pipe[0]);
    int wstatus = 0;
    if (exec_failed) {
        ::waitpid(pid, &wstatus, 0);
        ::close(out[0]);
        run.why = std::strerror(exec_errno);
        return run;
    }
    ::fcntl(out[0], F_SETFL, ::fcntl(out[0], F_GETFL) | O_NONBLOCK);

    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    bool open = true, reaped = false;
    run.status = ServerRun::Status::TimedOut;
    while (msLeft(deadline) > 0) {
        if (open) {
            pollfd p{out[0], POLLIN, 0};
            if (::poll(&p, 1, std::min(msLeft(deadline), 100)) > 0) {
                open = drain(out[0], run.log);
                if (ready(run.log)) {
                    run.status = ServerRun::Status::Ready;
                    break;
                }
            }
        } else {
            ::usleep(20000);
        }
        if (::waitpid(pid, &wstatus, WNOHANG) == pid) {
            if (open) drain(out[0], run.log);
            reaped = true;
            run.status = ready(run.log) ? ServerRun::Status::Ready : ServerRun::Status::Exited;
            break;
        }
    }
    if (!reaped) {
        // Ours to stop: SIGTERM lets llama-server print its memory breakdown; then the group.
        ::kill(-pid, SIGTERM);
        reaped = waitExit(pid, open ? out[0] : -1, run.log, kServerStopGraceMs, wstatus);
        ::kill(-pid, SIGKILL); // whatever of the group is left (a wrapper script's children)
        if (!reaped) ::waitpid(pid, &wstatus, 0);
    } else {
        ::kill(-pid, SIGKILL); // the leader exited; its group may not have
    }
    ::close(out[0]);
    if (run.status == ServerRun::Status::Exited) {
        if (WIFEXITED(wstatus)) run.exit_code = WEXITSTATUS(wstatus);
        if (WIFSIGNALED(wstatus)) run.signal = WTERMSIG(wstatus);
    }
    return run;
}

} // namespace headroom
