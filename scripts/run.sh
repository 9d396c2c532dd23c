#!/bin/sh
# One command on a fresh Debian 12 machine: install dependencies, build, start Headroom.
# With a display: the desktop app. Without one: the CLI plan of a built-in model on the probed
# hardware (set HEADROOM_MODEL to pick another catalog id).
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
sh scripts/build.sh
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] || [ "${QT_QPA_PLATFORM:-}" = offscreen ]; then
  exec build/bin/headroom "$@"
fi
echo "No display: planning ${HEADROOM_MODEL:-gpt-oss-20b} on this machine (headroom-cli plan --probe)."
exec build/bin/headroom-cli plan --model "${HEADROOM_MODEL:-gpt-oss-20b}" --probe "$@"
