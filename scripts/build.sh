#!/bin/sh
# Configures (preset "default": build/, RelWithDebInfo, Ninja) and builds everything.
set -eu
cd "$(dirname "$0")/.."
cmake --preset default >/dev/null
cmake --build --preset default -j"$(nproc)"
