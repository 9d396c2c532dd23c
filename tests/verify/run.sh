#!/bin/sh
# `headroom-cli verify` against the real engine: tests/verify/run.sh BUILD_DIR
#  1. llama-server from the llama.cpp source node-llama-cpp@3.22.1 ships, built once and cached
#     by tools/llama_cpp_build.sh (CPU backend, offline once the package is fetched)
#  2. a sparse replica of Llama-3.1-8B (tests/validation's generator) under BUILD_DIR/verify
#  3. test_cli_verify's real-server case with both
# Exit 0 pass, 1 failure, 77 skipped (no node/npm to fetch the source or write the replica).
set -eu
build=$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "verify test skipped: node and npm are needed for llama.cpp's source and the replica"; exit 77
fi
bin=$(sh "$here/../../tools/llama_cpp_build.sh" 3.22.1)
dir=$build/verify
mkdir -p "$dir"
node "$here/make_replica.js" llama-3.1-8b "$dir/llama-3.1-8b.gguf"
HEADROOM_LLAMA_SERVER=$bin/llama-server HEADROOM_VERIFY_GGUF=$dir/llama-3.1-8b.gguf \
  "$build/tests/test_cli_verify" aRealLlamaServerAgreesOnWeightsKvAndOutput
