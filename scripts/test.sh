#!/bin/sh
# One command: install dependencies, build, run every test — unit and integration suites
# (QtTest via ctest), the GUI offscreen, the fuzz run, packaging checks, and the validation
# against llama.cpp — then the core and CLI suites again under ASan + UBSan.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
sh scripts/build.sh
export QT_QPA_PLATFORM=offscreen
ctest --preset default -j2 --timeout 1800
# Memory and UB checks on the code that parses untrusted input and does the arithmetic.
cmake --preset asan -DHEADROOM_BUILD_GUI=OFF >/dev/null
cmake --build --preset asan -j"$(nproc)"
ctest --preset asan -j2 -L "core|cli|probe" --timeout 900
