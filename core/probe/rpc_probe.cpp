#include "rpc_probe.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace headroom::probe {

namespace {

using Clock = std::chrono::steady_clock;

Error failed(std::string message, std::string details = {}) {
    return Error{ErrorCode::ProbeFailed, std::move(message), std::move(details)};
}

// Owns one socket; every wait is bounded by the probe's deadline, so a peer that accepts and then
// says nothing costs the timeout, never the command.
class Connection {
public:
    Connection(std::string name, const RpcProtocol& protocol, Clock::time_point deadline)
        : name_(std::move(name)), protocol_(protocol), deadline_(deadline) {}
    ~Connection() {
        if (fd_ >= 0) ::close(fd_);
    }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    Result<bool> connect(const RpcEndpoint& ep) {
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_NUMERICSERV;
        addrinfo* list = nullptr;
        const std::string port = std::to_string(ep.port);
        if (const int rc = ::getaddrinfo(ep.host.c_str(), port.c_str(), &hints, &list); rc != 0)
            return failed("rpc-server " + name_ + ": cannot resolve '" + ep.host + "'",
                          ::gai_strerror(rc));
        std::string last = "no address";
        for (addrinfo* ai = list; ai; ai = ai->ai_next) {
            fd_ = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                           ai->ai_protocol);
            if (fd_ < 0) continue;
            if (::connect(fd_, ai->ai_addr, ai->ai_addrlen) == 0) break;
            if (errno == EINPROGRESS) {
                auto ready = wait(POLLOUT);
                if (ready && *ready) {
                    int err = 0;
                    socklen_t len = sizeof err;
                    ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len);
                    if (err == 0) break;
                    last = std::strerror(err);
                } else {
                    last = ready ? "timed out" : ready.error().message;
                }
            } else {
                last = std::strerror(errno);
            }
            ::close(fd_);
            fd_ = -1;
        }
        ::freeaddrinfo(list);
        if (fd_ < 0) return failed("rpc-server " + name_ + " is not reachable: " + last);
        const int one = 1;
        ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        return true;
    }

    Result<bool> send(const void* data, std::size_t size) {
        const auto* p = static_cast<const std::uint8_t*>(data);
        while (size > 0) {
            const ssize_t n = ::send(fd_, p, size, MSG_NOSIGNAL);
            if (n > 0) {
                p += n;
                size -= static_cast<std::size_t>(n);
                continue;
            }
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
                auto ready = wait(POLLOUT);
                if (!ready) return ready.error();
                if (!*ready) return timedOut("sending");
                continue;
            }
            return failed("rpc-server " + name_ +
                              " closed the connection while Headroom was sending",
                          n < 0 ? std::strerror(errno) : "");
        }
        return true;
    }

    // Reads exactly `size` bytes; `step` names the exchange for the error message.
    Result<bool> receive(void* data, std::size_t size, const char* step) {
        auto* p = static_cast<std::uint8_t*>(data);
        while (size > 0) {
            const ssize_t n = ::recv(fd_, p, size, 0);
            if (n > 0) {
                p += n;
                size -= static_cast<std::size_t>(n);
                continue;
            }
            if (n == 0) return closed(step);
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                auto ready = wait(POLLIN);
                if (!ready) return ready.error();
                if (!*ready) return timedOut(step);
                continue;
            }
            return closed(step);
        }
        return true;
    }

    // One request/response exchange with a fixed-size answer. The size prefix is checked before
    // the payload is read, so a peer announcing a huge answer is refused, not buffered.
    Result<bool> exchange(std::uint8_t cmd, const void* in, std::uint64_t in_size, void* out,
                          std::uint64_t out_size, const char* step) {
        std::uint8_t head[9];
        head[0] = cmd;
        std::memcpy(head + 1, &in_size, sizeof in_size);
        if (auto r = send(head, sizeof head); !r) return r.error();
        if (in_size > 0)
            if (auto r = send(in, in_size); !r) return r.error();
        std::uint64_t announced = 0;
        if (auto r = receive(&announced, sizeof announced, step); !r) return r.error();
        if (announced != out_size)
            return failed("rpc-server " + name_ + " answered " + step + " with " +
                              std::to_string(announced) + " bytes where RPC protocol " +
                              std::to_string(protocol_.major) + ".x sends " +
                              std::to_string(out_size),
                          "a different llama.cpp build: use rpc-server from the same llama.cpp "
                          "release as llama-server");
        return receive(out, out_size, step);
    }

private:
    // true: ready; false: the deadline passed.
    Result<bool> wait(short events) {
        for (;;) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now());
            if (left.count() <= 0) return false;
            pollfd p{fd_, events, 0};
            const int rc = ::poll(&p, 1, static_cast<int>(left.count()));
            if (rc > 0) return true;
            if (rc == 0) return false;
            if (errno != EINTR)
                return failed("rpc-server " + name_ + ": waiting for the socket failed",
                              std::strerror(errno));
        }
    }
    Error timedOut(const char* step) const {
        return failed("rpc-server " + name_ + " did not answer " + step + " in time",
                      "is it an rpc-server, and is it busy with another client?");
    }
    Error closed(const char* step) const {
        return failed(
            "rpc-server " + name_ + " closed the connection during " + step,
            "rpc-server drops a client whose HELLO is of another protocol version: this one "
            "may speak an RPC protocol other than " +
                std::to_string(protocol_.major) + ".x (" + protocol_.release + ")");
    }

    std::string name_;
    RpcProtocol protocol_;
    Clock::time_point deadline_;
    int fd_ = -1;
};

} // namespace

std::string RpcEndpoint::text() const {
    return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
           std::to_string(port);
}

Result<RpcEndpoint> parseRpcEndpoint(std::string_view text) {
    auto bad = [&](const std::string& why) {
        return makeError(ErrorCode::InvalidArgument,
                         "--rpc: '" + std::string(text) + "' is not HOST:PORT (" + why + ")",
                         "e.g. 192.168.1.20:50052 or [::1]:50052; port 1-65535");
    };
    RpcEndpoint ep;
    std::string_view port;
    if (!text.empty() && text.front() == '[') {
        const auto close = text.find(']');
        if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
            return bad("an IPv6 address needs [ADDRESS]:PORT");
        ep.host = std::string(text.substr(1, close - 1));
        port = text.substr(close + 2);
    } else {
        const auto colon = text.rfind(':');
        if (colon == std::string_view::npos) return bad("no port");
        ep.host = std::string(text.substr(0, colon));
        if (ep.host.find(':') != std::string::npos) return bad("put an IPv6 address in brackets");
        port = text.substr(colon + 1);
    }
    if (ep.host.empty()) return bad("no host");
    for (const char c : ep.host)
        if (static_cast<unsigned char>(c) <= ' ' || c == '/' || c == ',')
            return bad("the host has a character no address has");
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value == 0 ||
        value > 65535)
        return bad("the port must be a number from 1 to 65535");
    ep.port = static_cast<std::uint16_t>(value);
    return ep;
}

Result<std::vector<RpcEndpoint>> parseRpcEndpoints(std::string_view text) {
    std::vector<RpcEndpoint> out;
    std::size_t start = 0;
    for (;;) {
        const auto comma = text.find(',', start);
        const auto item = text.substr(
            start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        auto ep = parseRpcEndpoint(item);
        if (!ep) return ep.error();
        // llama.cpp registers an endpoint once (ggml-rpc.cpp ggml_backend_rpc_add_server keeps a
        // map by endpoint), so a repeat adds no device: almost surely a typo for another port.
        for (const auto& seen : out)
            if (seen.text() == ep->text())
                return makeError(ErrorCode::InvalidArgument, "--rpc lists " + ep->text() + " twice",
                                 "llama.cpp would use that server once; give each host:port once");
        out.push_back(*ep);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

Result<RpcServerInfo> probeRpcServer(const RpcEndpoint& endpoint, const RpcProtocol& expected,
                                     std::chrono::milliseconds timeout) {
    RpcServerInfo info;
    info.endpoint = endpoint;
    Connection c(endpoint.text(), expected, Clock::now() + timeout);
    if (auto r = c.connect(endpoint); !r) return r.error();

    const std::uint8_t caps[kRpcConnCapsSize] = {}; // plain TCP: no RDMA capabilities offered
    std::uint8_t hello[4 + kRpcConnCapsSize] = {};
    if (auto r = c.exchange(kRpcCmdHello, caps, sizeof caps, hello, sizeof hello, "HELLO"); !r)
        return r.error();
    info.proto_major = hello[0];
    info.proto_minor = hello[1];
    info.proto_patch = hello[2];
    // negotiate_hello: a different major, or a newer minor, is refused.
    if (info.proto_major != expected.major || info.proto_minor > expected.minor)
        return failed("rpc-server " + endpoint.text() + " speaks RPC protocol " +
                          std::to_string(info.proto_major) + "." +
                          std::to_string(info.proto_minor) + "." +
                          std::to_string(info.proto_patch) + "; the plan is for " +
                          expected.release + ", which speaks " + std::to_string(expected.major) +
                          "." + std::to_string(expected.minor) + ".x",
                      "llama-server refuses such a server too: run rpc-server from the same "
                      "llama.cpp release as llama-server");

    std::uint32_t count = 0;
    if (auto r = c.exchange(kRpcCmdDeviceCount, nullptr, 0, &count, sizeof count, "DEVICE_COUNT");
        !r)
        return r.error();
    if (count == 0 || count > kRpcMaxDevices)
        return failed("rpc-server " + endpoint.text() + " reports " + std::to_string(count) +
                      " devices (expected 1 to " + std::to_string(kRpcMaxDevices) + ")");
    for (std::uint32_t d = 0; d < count; ++d) {
        std::uint64_t mem[2] = {0, 0}; // free, total
        if (auto r = c.exchange(kRpcCmdGetDeviceMemory, &d, sizeof d, mem, sizeof mem,
                                "GET_DEVICE_MEMORY");
            !r)
            return r.error();
        if (mem[1] == 0 || mem[0] > mem[1] || mem[1] > kMaxPlausibleBytes)
            return failed("rpc-server " + endpoint.text() + " device " + std::to_string(d) +
                          " reports implausible memory (free " + std::to_string(mem[0]) + " B of " +
                          std::to_string(mem[1]) + " B)");
        info.devices.push_back({d, mem[0], mem[1]});
    }
    return info;
}

} // namespace headroom::probe
