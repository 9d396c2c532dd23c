#!/bin/sh
# Runs one of the checks against the real llama-server: tests/validation/llama_server_run.sh NAME BUILD_DIR
#   NAME rpc     two ggml-rpc-server on 127.0.0.1, `plan --rpc`, llama-server as the plan says
#   NAME draft   a target and a draft replica planned with -md, on the CPU and over RPC
#   NAME router  two replicas planned together, exported as a router preset, loaded in router mode
# 1. builds llama.cpp's llama-server and ggml-rpc-server from the source node-llama-cpp@3.22.1 ships
#    (tools/llama_cpp_build.sh: once per version, cached outside the clone; later runs only check
#    the cache key)
# 2. runs NAME/NAME_validate.js, which compares llama.cpp's buffer log with the plan per device and
#    writes its table under BUILD_DIR/validation-NAME
# Exit 0 pass, 1 mismatch or failure, 77 skipped (no node, or llama.cpp could not be built: no
# cached build and no npm registry to fetch the source from).
set -eu
name=${1:?usage: llama_server_run.sh rpc|draft|router BUILD_DIR}
build=$(cd "${2:?usage: llama_server_run.sh rpc|draft|router BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
driver=$here/$name/${name}_validate.js
[ -f "$driver" ] || { echo "llama_server_run.sh: no check named '$name' ($driver)"; exit 1; }
dir=$build/validation-$name
mkdir -p "$dir"
command -v node >/dev/null 2>&1 || { echo "$name validation skipped: node is needed (GGUF writer, driver)"; exit 77; }
bin=$(sh "$root/tools/llama_cpp_build.sh" 3.22.1) || {
  echo "$name validation skipped: llama.cpp v0.5.0 binaries are not cached and could not be built (tools/llama_cpp_build.sh 3.22.1)"
  exit 77
}
exec node "$driver" "$bin" "$build/bin/headroom-cli" "$dir"
