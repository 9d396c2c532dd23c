#!/bin/sh
# Installs what Headroom needs on Debian 12, from Debian's archive only. Every package has a reason
# and a set: `app` to build and run the two programs (headroom, headroom-cli), `package` to build
# the .deb besides, `test` for everything the test command runs on top. scripts/check_deps.sh
# reads the lists through --list. Idempotent: packages already present are skipped.
#   deps.sh [app|package|all]   install what the set needs and is missing (default: all)
#   deps.sh --list [SET]        print the set's packages, one a line (default: all)
# Each set includes the ones before it: package = app + packaging tools, all = every package.
set -eu
packageList() {
  sed 's/#.*//' <<'EOF_LIST' | awk -v want="$1" '
    NF { if (want == "all" || $2 == "app" || (want == "package" && $2 == "package")) print $1 }'
build-essential       app      # g++ 12, make and the C library headers
cmake                 app      # configure (presets need 3.25; Debian 12 ships 3.25)
ninja-build           app      # the presets' generator
pkg-config            app      # Qt 6's CMake configs look up some system libraries with it
qt6-base-dev          app      # Qt6 Core, Gui, Widgets, Concurrent, Test (and OpenGLWidgets)
qt6-base-dev-tools    app      # moc and rcc, run by AUTOMOC/AUTORCC
qt6-charts-dev        app      # Qt6Charts: the memory charts (ui/charts/)
libqt6opengl6-dev     app      # Qt6OpenGL: Qt6Charts' config requires it, qt6-charts-dev does not depend on it
qt6-svg-dev           app      # Qt6Svg: the SVG icon and chart export
libgl-dev             app      # OpenGL headers and libGL, required by Qt6Gui's config (WrapOpenGL)
libegl-dev            app      # EGL headers: Qt6Gui's FindOpenGL looks for them (found, so listed)
libglu1-mesa-dev      app      # libGLU.so: Qt6Gui's FindOpenGL looks for it too (found, so listed)
libvulkan-dev         app      # Vulkan headers (the probe's types) and the loader it dlopens
nlohmann-json3-dev    app      # JSON: catalog, presets, plan JSON
libcli11-dev          app      # the CLI's argument parser
libyaml-cpp-dev       app      # the llama-swap exporter writes YAML
libcurl4-openssl-dev  app      # remote models (plan https://... or hf:OWNER/REPO) read the GGUF header with HTTP ranges (core/remote/)
dpkg-dev              package  # dpkg-shlibdeps computes the .deb's Depends (CPack)
file                  package  # CPack's DEB generator runs file(1) on the installed binaries
git                   test     # the test command checks that tests leave the work tree clean
clang                 test     # the GGUF fuzzer is built with clang++ (libFuzzer)
libclang-rt-14-dev    test     # libFuzzer and the sanitizer runtimes for clang 14
clang-tidy            test     # the lint step of the test command (.clang-tidy)
mesa-vulkan-drivers   test     # lavapipe, a CPU Vulkan device, so the probe's Vulkan path runs everywhere
vulkan-tools          test     # vulkaninfo, to compare the probe with the loader by hand
xvfb                  test     # xvfb-run, to start the GUI on a machine without a display
xauth                 test     # needed by xvfb-run
appstream             test     # appstreamcli validates the AppStream metainfo
desktop-file-utils    test     # desktop-file-validate checks the .desktop entry
man-db                test     # man -l renders the man page in the packaging test
nodejs                test     # node runs the llama.cpp ground truth (node-llama-cpp) in the validation suite
python3               test     # the remote-model tests serve GGUF files over HTTP on loopback (tests/common/gguf_http_server.py)
EOF_LIST
}
if [ "${1:-}" = --list ]; then
  set_name=${2:-all}
else
  set_name=${1:-all}
fi
case $set_name in
app | package | all) ;;
*) echo "deps.sh: unknown set '$set_name' (app, package or all)" >&2; exit 2 ;;
esac
PACKAGES=$(packageList "$set_name")
if [ "${1:-}" = --list ]; then
  printf '%s\n' $PACKAGES
  exit 0
fi
# npm installs node-llama-cpp for the validation suite. A Node.js from elsewhere (NodeSource's
# nodejs package bundles npm) is kept when present; Debian's nodejs ships npm as its own package.
if [ "$set_name" = all ]; then
  command -v npm >/dev/null 2>&1 || PACKAGES="$PACKAGES npm"
fi

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
