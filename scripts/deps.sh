#!/bin/sh
# Installs what Headroom needs to build and test on Debian 12, from Debian's archive only.
# Idempotent: packages already present are skipped, so repeated runs are quick.
set -eu

PACKAGES="
  build-essential cmake ninja-build pkg-config git
  qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev libgl-dev
  libvulkan-dev nlohmann-json3-dev libcli11-dev libyaml-cpp-dev
  clang libclang-rt-14-dev
  mesa-vulkan-drivers vulkan-tools xvfb xauth
  appstream desktop-file-utils dpkg-dev man-db file
  libcurl4-openssl-dev
"
# libcurl4-openssl-dev: remote models (plan https://... or hf:OWNER/REPO) read the GGUF header
# with HTTP range requests (core/remote/); python3 (Debian base) runs the tests' loopback server.
# node/npm run the llama.cpp ground truth (node-llama-cpp) in the validation suite; the image
# usually ships a newer Node.js than Debian's, which is kept when present.
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || PACKAGES="$PACKAGES nodejs npm"

missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "installing:$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
