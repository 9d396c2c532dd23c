#!/bin/sh
# Regenerates tests/validation/tensors/*.json (the tensor layouts llama.cpp's loader expects for
# each model in models.js) with enumerate.cpp. Needs the llama.cpp source headers of the
# node-llama-cpp@3.21.1 build: enumerate.sh LLAMA_CPP_SRC NODE_MODULES_DIR [MODEL_ID ...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$1; nm=$2; shift 2
bins=$(ls -d "$nm"/@node-llama-cpp/linux-x64/bins/linux-x64)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -std=c++17 -O1 -rdynamic -o "$work/enumerate" "$here/enumerate.cpp" -I"$src/include" -I"$src/ggml/include" \
  -L"$bins" -l:libllama.v0.4.0.so -l:libggml.v0.4.0.so -l:libggml-base.so -Wl,-rpath,"$bins"
mkdir -p "$here/tensors"
for id in ${*:-$(node -e 'for (const m of require(process.argv[1]+"/models.js").MODELS) console.log(m.id)' "$here")}; do
  node -e 'const m = require(process.argv[1]+"/models.js").MODELS.find((x) => x.id === process.argv[2]);
           process.stdout.write(JSON.stringify({kv: m.kv, keep: m.keep || []}))' "$here" "$id" > "$work/spec.json"
  if "$work/enumerate" "$bins" < "$work/spec.json" > "$work/t.json"; then
    mv "$work/t.json" "$here/tensors/$id.json"; echo "$id: $(node -e 'console.log(require(process.argv[1]).length)' "$here/tensors/$id.json") tensors"
  else
    echo "$id: FAILED" >&2
  fi
done
