#!/bin/sh
# Installs what Headroom needs to build and test on Debian 12, from Debian's archive only.
# The list below has a reason per package; scripts/check_deps.sh reads it through --list.
# Idempotent: packages already present are skipped, so repeated runs are quick.
#   deps.sh          install what is missing
#   deps.sh --list   print the list, one package a line
set -eu
packageList() {
  sed 's/#.*//' <<'EOF' | awk 'NF { print $1 }'
build-essential       # g++ 12, make and the C library headers
cmake                 # configure (presets need 3.25; Debian 12 ships 3.25)
ninja-build           # the presets' generator
pkg-config            # Qt 6's CMake configs look up some system libraries with it
git                   # the test command checks that tests leave the work tree clean
qt6-base-dev          # Qt6 Core, Gui, Widgets, Concurrent, Test (and OpenGLWidgets)
qt6-base-dev-tools    # moc and rcc, run by AUTOMOC/AUTORCC
qt6-charts-dev        # Qt6Charts: the memory charts (ui/charts/)
libqt6opengl6-dev     # Qt6OpenGL: Qt6Charts' config requires it, qt6-charts-dev does not depend on it
qt6-svg-dev           # Qt6Svg: the SVG icon and chart export
libgl-dev             # OpenGL headers and libGL, required by Qt6Gui's config (WrapOpenGL)
libegl-dev            # EGL headers: Qt6Gui's FindOpenGL looks for them (found, so listed)
libglu1-mesa-dev      # libGLU.so: Qt6Gui's FindOpenGL looks for it too (found, so listed)
libvulkan-dev         # Vulkan headers (the probe's types) and the loader it dlopens
nlohmann-json3-dev    # JSON: catalog, presets, plan JSON
libcli11-dev          # the CLI's argument parser
libyaml-cpp-dev       # the llama-swap exporter writes YAML
clang                 # the GGUF fuzzer is built with clang++ (libFuzzer)
libclang-rt-14-dev    # libFuzzer and the sanitizer runtimes for clang 14
clang-tidy            # the lint step of the test command (.clang-tidy)
mesa-vulkan-drivers   # lavapipe, a CPU Vulkan device, so the probe's Vulkan path runs everywhere
vulkan-tools          # vulkaninfo, to compare the probe with the loader by hand
xvfb                  # xvfb-run, to start the GUI on a machine without a display
xauth                 # needed by xvfb-run
appstream             # appstreamcli validates the AppStream metainfo
desktop-file-utils    # desktop-file-validate checks the .desktop entry
dpkg-dev              # dpkg-shlibdeps computes the .deb's Depends (CPack)
man-db                # man -l renders the man page in the packaging test
file                  # CPack's DEB generator runs file(1) on the installed binaries
libcurl4-openssl-dev  # remote models (plan https://... or hf:OWNER/REPO) read the GGUF header with HTTP ranges (core/remote/)
nodejs                # node runs the llama.cpp ground truth (node-llama-cpp) in the validation suite
python3               # the remote-model tests serve GGUF files over HTTP on loopback (tests/common/gguf_http_server.py)
EOF
}
PACKAGES=$(packageList)
if [ "${1:-}" = --list ]; then
  printf '%s\n' $PACKAGES
  exit 0
fi
# npm installs node-llama-cpp. A Node.js from elsewhere (NodeSource's nodejs package bundles
# npm) is kept when present; Debian's nodejs ships npm as its own package.
command -v npm >/dev/null 2>&1 || PACKAGES="$PACKAGES npm"

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
