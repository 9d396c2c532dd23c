#!/bin/sh
# The RPC loopback validation (issue 15): tests/validation/rpc/run.sh BUILD_DIR
#  1. builds llama.cpp's llama-server and ggml-rpc-server from the source node-llama-cpp@3.22.1
#     ships (tools/llama_cpp_build.sh: once per version, cached outside the clone; a later run only
#     checks the cache key)
#  2. starts two ggml-rpc-server on 127.0.0.1 (ephemeral ports), probes them with
#     `headroom-cli plan --rpc`, and loads a sparse GGUF replica with llama-server launched exactly
#     as the plan says (--rpc, -ngl, -ts), then compares llama.cpp's per-device buffers with the plan
# Exit 0 pass, 1 mismatch or failure, 77 skipped (no node, or llama.cpp could not be built: no
# cached build and no npm registry to fetch the source from).
set -eu
build=$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
dir=$build/validation-rpc
mkdir -p "$dir"
command -v node >/dev/null 2>&1 || { echo "rpc validation skipped: node is needed (GGUF writer, driver)"; exit 77; }
bin=$(sh "$root/tools/llama_cpp_build.sh" 3.22.1) || {
  echo "rpc validation skipped: llama.cpp v0.5.0 binaries are not cached and could not be built (tools/llama_cpp_build.sh 3.22.1)"
  exit 77
}
exec node "$here/rpc_validate.js" "$bin" "$build/bin/headroom-cli" "$dir"
