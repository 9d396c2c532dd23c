#!/bin/sh
# The first command on a fresh Debian 12 machine: install what building and running the two
# programs needs (deps.sh app: no test, fuzz, lint or validation tools), configure the `app` preset
# (build-app/: Release, tests and benchmarks off, so a test build in build/ is left alone), prove
# the list complete for it (check_deps.sh --set app), build only headroom and headroom-cli, and
# start Headroom. With a display: the desktop app. Without one: the CLI plan of a built-in model
# on the probed hardware (set HEADROOM_MODEL to pick another catalog id).
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh app
mkdir -p build-app
cmake --preset app >build-app/configure.log 2>&1 || {
  cat build-app/configure.log
  sh scripts/check_deps.sh --set app --configure-failed build-app/configure.log build-app
  exit 1
}
sh scripts/check_deps.sh --set app build-app
cmake --build --preset app -j"$(nproc)"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] || [ "${QT_QPA_PLATFORM:-}" = offscreen ]; then
  exec build-app/bin/headroom "$@"
fi
echo "No display: planning ${HEADROOM_MODEL:-gpt-oss-20b} on this machine (headroom-cli plan --probe)."
exec build-app/bin/headroom-cli plan --model "${HEADROOM_MODEL:-gpt-oss-20b}" --probe "$@"
