#!/bin/sh
# The draft-model validation (issue 26): tests/validation/draft/run.sh BUILD_DIR
#  1. builds llama.cpp's llama-server and ggml-rpc-server from the source node-llama-cpp@3.22.1
#     ships (tools/llama_cpp_build.sh: once per version, cached outside the clone)
#  2. writes a target and a draft replica (sparse GGUFs), plans the target with -md, and loads
#     both with llama-server launched exactly as the plan says (-md, --spec-type draft-simple,
#     -ngld, the draft's cache types), on the CPU and over two loopback ggml-rpc-server; then
#     compares llama.cpp's buffers for each model with the plan, per device
# Exit 0 pass, 1 mismatch or failure, 77 skipped (no node, or llama.cpp could not be built: no
# cached build and no npm registry to fetch the source from).
set -eu
build=$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
dir=$build/validation-draft
mkdir -p "$dir"
command -v node >/dev/null 2>&1 || { echo "draft validation skipped: node is needed (GGUF writer, driver)"; exit 77; }
bin=$(sh "$root/tools/llama_cpp_build.sh" 3.22.1) || {
  echo "draft validation skipped: llama.cpp v0.5.0 binaries are not cached and could not be built (tools/llama_cpp_build.sh 3.22.1)"
  exit 77
}
exec node "$here/draft_validate.js" "$bin" "$build/bin/headroom-cli" "$dir"
