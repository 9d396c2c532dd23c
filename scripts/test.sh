#!/bin/sh
# One command: install dependencies, configure, prove the dependencies (check_deps.sh), build,
# lint (lint.sh: source lists, clang-tidy on changed files), run every test — unit and
# integration suites (QtTest via ctest), the GUI offscreen, the fuzz run, packaging checks, and
# the validation against llama.cpp — then the core, CLI and probe suites again under ASan + UBSan,
# and finally check that no test changed the work tree.
set -eu
cd "$(dirname "$0")/.."
before=$(git status --porcelain)
sh scripts/deps.sh
sh scripts/build.sh
sh scripts/lint.sh build
export QT_QPA_PLATFORM=offscreen
ctest --preset default -j2 --timeout 1800
# Memory and UB checks on the code that parses untrusted input and does the arithmetic. Leak
# checking stays on; tests/lsan.supp only names third-party drivers (tests/CMakeLists.txt passes
# it to these tests and the programs they start).
mkdir -p build-asan
cmake --preset asan -DHEADROOM_BUILD_GUI=OFF >build-asan/configure.log 2>&1 || {
  cat build-asan/configure.log
  sh scripts/check_deps.sh --configure-failed build-asan/configure.log build-asan
  exit 1
}
sh scripts/check_deps.sh build-asan
cmake --build --preset asan -j"$(nproc)"
ctest --preset asan -j2 -L "core|cli|probe" --timeout 900
# Tests write only under build*/ and temporary directories (README, the test command, step 6).
after=$(git status --porcelain)
if [ "$before" != "$after" ]; then
  echo "test.sh: the tests changed the work tree:" >&2
  git status --short >&2
  exit 1
fi
echo "test.sh: all passed"
