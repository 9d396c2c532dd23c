#!/bin/sh
# Configures (preset "default": build/, RelWithDebInfo, Ninja), proves that every package config
# configure found comes from scripts/packages.txt (scripts/check_deps.sh), and builds everything.
set -eu
cd "$(dirname "$0")/.."
cmake --preset default >/dev/null || {
  sh scripts/check_deps.sh --configure-failed build
  exit 1
}
sh scripts/check_deps.sh build
cmake --build --preset default -j"$(nproc)"
