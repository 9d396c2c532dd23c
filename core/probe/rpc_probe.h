// Asks a running llama.cpp `rpc-server` what devices it serves and how much memory each has, by
// speaking ggml's RPC protocol over TCP (ggml/src/ggml-rpc/ggml-rpc.cpp at the llama.cpp commit
// pinned in docs/sources.md for v0.5.0):
//   request  = | command (1 byte) | payload size (u64 LE) | payload |
//   response = | payload size (u64 LE) | payload |
//   HELLO (14): 24 zero bytes of connection capabilities (plain TCP, no RDMA) -> major, minor,
//               patch, padding, 24 bytes of capabilities (rpc_msg_hello_rsp); the server only
//               accepts HELLO first and drops clients whose HELLO has another size;
//   DEVICE_COUNT (15): empty -> u32 device count (rpc_msg_device_count_rsp);
//   GET_DEVICE_MEMORY (11): u32 device -> u64 free, u64 total (rpc_msg_get_device_memory_rsp).
// llama.cpp's client refuses a server whose major differs or whose minor is newer
// (negotiate_hello); so does this probe, with a message that names both versions.
#pragma once

#include "result.h"
#include "units.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::probe {

// The RPC protocol a llama.cpp release speaks: RPC_PROTO_MAJOR/MINOR_VERSION in ggml-rpc.h. The
// framing and the commands used here are the same in both; only the version differs (7 added ops
// to GGML_OP_COUNT, which the protocol version tracks).
struct RpcProtocol {
    std::uint8_t major = 0, minor = 0;
    const char* release = ""; // the llama.cpp release that speaks it
};
inline constexpr RpcProtocol kRpcProtocolV050{7, 0, "llama.cpp v0.5.0"}; // node-llama-cpp 3.22.1
inline constexpr RpcProtocol kRpcProtocolV040{6, 0, "llama.cpp v0.4.0"}; // node-llama-cpp 3.21.1
// Command ids of the ggml_rpc protocol (enum rpc_cmd); HELLO is fixed at 14 across versions.
inline constexpr std::uint8_t kRpcCmdGetDeviceMemory = 11;
inline constexpr std::uint8_t kRpcCmdHello = 14;
inline constexpr std::uint8_t kRpcCmdDeviceCount = 15;
// RPC_CONN_CAPS_SIZE (transport.h): the capability block of HELLO.
inline constexpr std::size_t kRpcConnCapsSize = 24;
// More devices than any rpc-server serves (it takes one backend per -d device): a larger count
// is a broken or hostile peer, refused rather than looped over.
inline constexpr std::uint32_t kRpcMaxDevices = 64;
// How long one probe of one server may take, connect and all exchanges together.
inline constexpr std::chrono::milliseconds kRpcProbeTimeout{3000};

struct RpcEndpoint {
    std::string host; // as given: an IPv4/IPv6 literal or a name
    std::uint16_t port = 0;
    std::string text() const; // "host:port", IPv6 in brackets
};

struct RpcDeviceMemory {
    std::uint32_t index = 0;
    Bytes free_bytes = 0;
    Bytes total_bytes = 0;
};

struct RpcServerInfo {
    RpcEndpoint endpoint;
    std::uint8_t proto_major = 0, proto_minor = 0, proto_patch = 0;
    std::vector<RpcDeviceMemory> devices;
};

// "host:port" or "[v6]:port"; port 1-65535. Errors name the text and the accepted form.
Result<RpcEndpoint> parseRpcEndpoint(std::string_view text);
// A comma-separated list, as llama-server's --rpc takes it; empty entries are errors.
Result<std::vector<RpcEndpoint>> parseRpcEndpoints(std::string_view text);

// Connects, says HELLO, counts the devices and reads each one's memory. The server must speak
// `expected` (the protocol of the llama.cpp build being planned for), as llama-server of that
// build requires. Errors (ProbeFailed) say which step failed: unreachable, timed out, closed
// during the handshake, version mismatch, implausible answers.
Result<RpcServerInfo> probeRpcServer(const RpcEndpoint& endpoint,
                                     const RpcProtocol& expected = kRpcProtocolV050,
                                     std::chrono::milliseconds timeout = kRpcProbeTimeout);

} // namespace headroom::probe
