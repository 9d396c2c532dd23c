#!/bin/sh
# The router validation (issue 26): tests/validation/router/run.sh BUILD_DIR
#  1. builds llama.cpp's llama-server from the source node-llama-cpp@3.22.1 ships
#     (tools/llama_cpp_build.sh: once per version, cached outside the clone)
#  2. plans two replicas together (`plan A B`), exports them as a router preset, loads both with
#     llama-server in router mode and compares each child's buffers with its member's plan
# Exit 0 pass, 1 mismatch or failure, 77 skipped (no node, or llama.cpp could not be built: no
# cached build and no npm registry to fetch the source from).
set -eu
build=$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
dir=$build/validation-router
mkdir -p "$dir"
command -v node >/dev/null 2>&1 || { echo "router validation skipped: node is needed (GGUF writer, driver)"; exit 77; }
bin=$(sh "$root/tools/llama_cpp_build.sh" 3.22.1) || {
  echo "router validation skipped: llama.cpp v0.5.0 binaries are not cached and could not be built (tools/llama_cpp_build.sh 3.22.1)"
  exit 77
}
exec node "$here/router_validate.js" "$bin" "$build/bin/headroom-cli" "$dir"
