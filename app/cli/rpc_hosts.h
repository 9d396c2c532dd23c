// --rpc host:port[,host:port…]: llama.cpp RPC servers added to the machine a plan is for, each
// probed over llama.cpp's RPC protocol (issue 15).
#pragma once

#include "hardware.h"
#include "result.h"

#include <optional>
#include <string>

namespace headroom::cli {

// Probes every endpoint of `list` (as llama-server's --rpc takes it) and appends it to
// hw.rpc_hosts, in order, replacing a profile's entry for the same endpoint. Errors: a malformed
// list is InvalidArgument (exit 2); a server that is unreachable, silent or speaks another
// protocol version is ProbeFailed (exit 4), naming the endpoint.
Result<bool> addRpcHosts(HardwareSnapshot& hw, const std::string& list);

// The syntax of `list` only, without connecting (read with the command line): InvalidArgument
// naming --rpc when an endpoint is malformed.
std::optional<Error> checkRpcList(const std::string& list);

} // namespace headroom::cli
