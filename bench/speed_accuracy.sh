#!/bin/sh
# Prints the speed model's accuracy on the published llama-bench rows (issue 11): median and worst
# predicted/measured ratio, share within x1.5 / x2 and share inside the shown range, per
# backend/GPU class, CPU-only and partial-offload group, for held-out and fit rows.
#
#   bench/speed_accuracy.sh [BUILD_DIR]          (needs: cmake --build BUILD --target test_speed_accuracy)
#   HEADROOM_SPEED_FIT=1 bench/speed_accuracy.sh  also prints a fresh fit and every row's ratio
#
# The numbers come from tests/core/test_speed_accuracy.cpp, which writes them to
# BUILD_DIR/docs/speed-accuracy.md (the committed docs/speed-accuracy.md is a copy).
set -eu
BUILD=${1:-build}
TEST="$BUILD/tests/test_speed_accuracy"
[ -x "$TEST" ] || { echo "missing $TEST: cmake --build $BUILD --target test_speed_accuracy" >&2; exit 2; }
if [ -n "${HEADROOM_SPEED_FIT:-}" ]; then
    "$TEST" theCommittedConstantsAreTodaysFit | grep -v '^\(PASS\|\*\*\*\|Config\)' || true
fi
"$TEST" writesTheAccuracyTableIntoTheBuildTree >/dev/null
# Everything up to the per-row listing: the four group tables.
sed -n '/^## Decode (tg), held-out rows/,/^## Held-out rows/p' "$BUILD/docs/speed-accuracy.md" | sed '$d'
