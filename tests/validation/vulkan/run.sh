#!/bin/sh
# The Vulkan validation (ctest validation_vulkan, and validation_vulkan_v0.5.0 with 3.22.1):
#   tests/validation/vulkan/run.sh BUILD_DIR [NODE_LLAMA_CPP_VERSION]
#  1. installs node-llama-cpp@VERSION (3.21.1 = llama.cpp v0.4.0, the default, under
#     BUILD_DIR/validation-vulkan; 3.22.1 = v0.5.0 under BUILD_DIR/validation-vulkan-3.22.1) and
#     its Vulkan prebuilt
#  2. takes llama.h / ggml-backend.h of the same release from the git bundle node-llama-cpp
#     ships, and builds vk_load.c against the prebuilt libllama, and the LD_PRELOAD shims
#  3. loads small sparse replicas on Mesa's lavapipe over a grid of placements and contexts and
#     compares every buffer with `headroom-cli plan --backend vulkan` (validate_vulkan.js)
#  4. writes BUILD_DIR/validation-vulkan/accuracy-vulkan.md (accuracy-vulkan-v0.5.0.md under
#     validation-vulkan-3.22.1; never the source tree) and, like docs/speed-accuracy.md, fails
#     when the committed docs/ copy says otherwise
# Exit 0 pass, 1 mismatch or failure, 77 skipped: node/npm missing or npm cannot install the
# prebuilt. Once installed, every other problem (no lavapipe, a build or load failure) fails.
set -eu
build=$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
nlc=${2:-3.21.1}
case $nlc in
  3.21.1) dir=$build/validation-vulkan release=v0.4.0 test=validation_vulkan doc=accuracy-vulkan.md
          how='ctest `validation_vulkan`' ;;
  3.22.1) dir=$build/validation-vulkan-3.22.1 release=v0.5.0 test=validation_vulkan_v0.5.0
          doc=accuracy-vulkan-v0.5.0.md how='ctest `validation_vulkan_v0.5.0`' ;;
  *) echo "run.sh: no llama.cpp release known for node-llama-cpp $nlc"; exit 1 ;;
esac
mkdir -p "$dir"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "validation_vulkan skipped: node and npm are needed to run llama.cpp (node-llama-cpp)"; exit 77
fi
nm=$dir/node_modules
bins=$nm/@node-llama-cpp/linux-x64-vulkan/bins/linux-x64-vulkan
if [ ! -f "$nm/node-llama-cpp/package.json" ] || ! grep -q "\"version\": \"$nlc\"" "$nm/node-llama-cpp/package.json" \
   || [ ! -f "$bins/libllama.vulkan.$release.so" ]; then
  echo "installing node-llama-cpp@$nlc and @node-llama-cpp/linux-x64-vulkan@$nlc into $dir"
  [ -f "$dir/package.json" ] || echo '{"private":true}' > "$dir/package.json"
  (cd "$dir" && npm i -E --ignore-scripts --no-audit --no-fund --omit=optional \
      "node-llama-cpp@$nlc" "@node-llama-cpp/linux-x64-vulkan@$nlc") \
    || { echo "$test skipped: npm could not install node-llama-cpp@$nlc's Vulkan prebuilt"; exit 77; }
fi
# As in tests/validation/run.sh: an AMX host would load the sapphirerapids CPU variant, whose AMX
# buffer type takes quantized host weights into anonymous memory; measure the CPU side as other
# x86 CPUs run it.
for amx in "$bins"/libggml-cpu-sapphirerapids.so; do
  [ -f "$amx" ] && mv "$amx" "$(dirname "$amx")/amx-disabled-$(basename "$amx").off"
done

# The headers of the prebuilt's release, from the bundle node-llama-cpp ships with its source.
hdr=$dir/llama-src
if [ ! -f "$hdr/include/llama.h" ]; then
  rm -rf "$hdr.tmp"
  git clone -q --no-checkout "$nm/node-llama-cpp/llama/gitRelease.bundle" "$hdr.tmp"
  (cd "$hdr.tmp" && git checkout -q HEAD -- include ggml/include)
  mv "$hdr.tmp" "$hdr"
fi
gcc -O2 -o "$dir/vk_load" "$here/vk_load.c" -I"$hdr/include" -I"$hdr/ggml/include" -L"$bins" \
  -l:libllama.vulkan.$release.so -l:libggml.vulkan.$release.so -l:libggml-base.so -Wl,-rpath,"$bins"
gcc -O2 -shared -fPIC -o "$dir/shim.so" "$here/../shim.c" -ldl
gcc -O2 -shared -fPIC -o "$dir/vk_limits_shim.so" "$here/vk_limits_shim.c" -ldl
gcc -O2 -shared -fPIC -o "$dir/buffer_shim.so" "$here/buffer_shim.c" -ldl -lpthread

# Lavapipe only, whatever else the machine has: the committed table is lavapipe's, and a real GPU
# as device 0 would change it. mesa-vulkan-drivers (scripts/deps.sh) installs it; without it the
# test fails rather than skips, since the install above succeeded.
icd=$(ls /usr/share/vulkan/icd.d/lvp_icd.*.json 2>/dev/null | head -1)
if [ -z "$icd" ]; then
  echo "validation_vulkan: no lavapipe ICD in /usr/share/vulkan/icd.d (mesa-vulkan-drivers, scripts/deps.sh)"; exit 1
fi
export VK_DRIVER_FILES="$icd" VK_ICD_FILENAMES="$icd"

rc=0
node "$here/validate_vulkan.js" "$build/bin/headroom-cli" "$bins" "$dir/vk_load" \
  "$dir/shim.so $dir/vk_limits_shim.so $dir/buffer_shim.so" "$dir/work" "$dir/$doc" "$nlc" "$release" "$how" || rc=$?
if ! cmp -s "$dir/$doc" "$src/docs/$doc"; then
  echo "docs/$doc differs from this run ($dir/$doc); copy it over if the change is meant:"
  diff "$src/docs/$doc" "$dir/$doc" | head -40 || true
  rc=1
fi
exit $rc
