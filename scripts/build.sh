#!/bin/sh
# Configures (preset "default": build/, RelWithDebInfo, Ninja), proves that every package config
# configure found comes from the list in scripts/deps.sh (scripts/check_deps.sh), and builds everything.
set -eu
cd "$(dirname "$0")/.."
mkdir -p build
cmake --preset default >build/configure.log 2>&1 || {
  cat build/configure.log
  sh scripts/check_deps.sh --configure-failed build/configure.log build
  exit 1
}
sh scripts/check_deps.sh build
cmake --build --preset default -j"$(nproc)"
