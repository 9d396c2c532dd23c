#!/bin/sh
# Builds llama.cpp's llama-server, ggml-rpc-server and llama-fit-params (CPU backend, RPC on) from
# the source that the npm package node-llama-cpp ships (llama/gitRelease.bundle), offline, and
# prints the folder that holds the binaries. The tests that run the real engine (the RPC loopback
# validation, `verify`, the --help fixtures) call it.
#
#   tools/llama_cpp_build.sh 3.22.1     # node-llama-cpp version -> llama.cpp v0.5.0
#
# The result is cached outside the clone, keyed by the package version and the bundle's sha256:
#   ${HEADROOM_CACHE:-$HOME/.cache/headroom}/llama.cpp/<release>-<sha12>/bin
# so a machine builds each version once (tens of minutes on 2 cores) and every later run only
# checks the key. Exit 0 with the path on stdout; 1 with a message on stderr.
set -eu
version=${1:?usage: llama_cpp_build.sh NODE_LLAMA_CPP_VERSION}
cache=${HEADROOM_CACHE:-$HOME/.cache/headroom}
npm_dir=$cache/npm/node-llama-cpp-$version
mkdir -p "$npm_dir"

# 1. The package itself (npm pack: the tarball only, no install scripts, no prebuilt downloads).
if [ ! -f "$npm_dir/package/llama/gitRelease.bundle" ]; then
  echo "fetching node-llama-cpp@$version from the npm registry" >&2
  (cd "$npm_dir" && npm pack --silent "node-llama-cpp@$version" >/dev/null &&
    tar xzf "node-llama-cpp-$version.tgz" && rm -f "node-llama-cpp-$version.tgz")
fi
bundle=$npm_dir/package/llama/gitRelease.bundle
release=$(sed -n 's/.*"release": *"\([^"]*\)".*/\1/p' "$npm_dir/package/llama/binariesGithubRelease.json")
[ -n "$release" ] || { echo "no release name in node-llama-cpp@$version" >&2; exit 1; }
sha=$(sha256sum "$bundle" | cut -c1-12)
root=$cache/llama.cpp/$release-$sha
bin=$root/build/bin

if [ -x "$bin/llama-server" ] && [ -x "$bin/ggml-rpc-server" ] && [ -f "$root/.complete" ]; then
  echo "$bin"
  exit 0
fi

# One build at a time per version: two test suites (or two clones' CI runs) asking for the same
# build wait for the first instead of configuring and building in the same folder at once. The
# lock is the kernel's (flock, util-linux, essential in Debian), released when this shell exits.
mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
flock 9
if [ -x "$bin/llama-server" ] && [ -x "$bin/ggml-rpc-server" ] && [ -f "$root/.complete" ]; then
  echo "$bin"
  exit 0
fi

# 2. The source, from the bundle (a git bundle of one squashed commit).
if [ ! -d "$root/src/.git" ]; then
  rm -rf "$root/src"
  mkdir -p "$root"
  git clone --quiet "$bundle" "$root/src" 2>/dev/null
fi

# 3. The build: CPU only (the tests run it here), no tests, examples, web UI or TLS, portable
# instructions; ccache when the machine has it. Niced so a developer's machine stays usable.
launcher=""
command -v ccache >/dev/null 2>&1 && launcher="-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
echo "building llama.cpp $release ($sha) under $root (once per version)" >&2
# shellcheck disable=SC2086 # $launcher is two words or none
nice -n 10 cmake -S "$root/src" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DGGML_NATIVE=OFF -DGGML_RPC=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DLLAMA_BUILD_HTML=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_OPENSSL=OFF \
  $launcher >"$root/configure.log" 2>&1 || { echo "configure failed: $root/configure.log" >&2; exit 1; }
nice -n 10 cmake --build "$root/build" -j"$(nproc)" \
  --target llama-server ggml-rpc-server llama-fit-params >"$root/build.log" 2>&1 \
  || { echo "build failed: $root/build.log" >&2; exit 1; }
touch "$root/.complete"
echo "$bin"
