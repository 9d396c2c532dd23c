#!/bin/sh
# Static checks run by the test command after the build:
#  1. every C/C++ source in the tree is named in a CMakeLists.txt (the source lists are explicit,
#     so a file that is in none would silently not be built or tested);
#  2. sources cite llama.cpp functions or docs/sources.md, never a file outside the repository
#     or a path on someone's machine;
#  3. clang-tidy (the repo's .clang-tidy) on the .cpp files that changed: against the merge base
#     with origin/main (or a local main) when this branch has commits of its own, otherwise those
#     of the last commit
#     (a clean clone of main lints what its last commit touched), plus uncommitted edits. With no
#     history to compare (a one-commit shallow clone) it lints nothing, and says so.
#   lint.sh [BUILD_DIR]   (default build; needs its compile_commands.json)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
fail=0

lists=$(git ls-files '*CMakeLists.txt' '*.cmake')
for f in $(git ls-files '*.cpp' '*.c' | grep -v '^tests/validation/'); do
  name=$(basename "$f")
  # Tests and benchmarks are listed by name (test_foo), everything else by file (foo.cpp).
  case $f in
  tests/* | bench/*) pattern="\\b${name%.*}\\b" ;;
  *) pattern="\\b$name\\b" ;;
  esac
  if ! cat $lists | grep -q -e "$pattern"; then
    echo "lint: $f is in no CMakeLists.txt (add it to its directory's list)" >&2
    fail=1
  fi
done

# The reference notes the project was planned from are not part of the repository; docs/sources.md
# is what code may cite. The published GPU logs quote users' command lines (their own paths)
# verbatim, as data.
outside='planning-core-spec|peers\.md|DESIGN\.md|\.\./shared/|/work/|/home/[a-z]|/Users/[A-Za-z]|spec §'
if git grep -n -I -E "$outside" -- core app ui tests bench packaging resources scripts \
  ':!scripts/lint.sh' ':!tests/validation/measured.json' \
  ':!tests/validation/gpu_logs/published.json' >&2; then
  echo "lint: the lines above cite something outside the repository; cite a llama.cpp function" \
    "or docs/sources.md instead" >&2
  fail=1
fi

head=$(git rev-parse HEAD)
range=""
for main in origin/main main; do
  if base=$(git merge-base HEAD "$main" 2>/dev/null) && [ "$base" != "$head" ]; then
    range=$base
    break
  fi
done
if [ -n "$range" ]; then
  :
elif git rev-parse -q --verify HEAD~1 >/dev/null; then
  range=HEAD~1
else
  range=""
fi
if [ -z "$range" ]; then
  echo "lint: no earlier commit to compare with; clang-tidy skipped"
else
  [ -f "$build/compile_commands.json" ] || { echo "lint: $build/compile_commands.json missing" >&2; exit 1; }
  files=""
  for f in $(git diff --name-only --diff-filter=d "$range" -- '*.cpp'); do
    # Only files the build compiles (not tests/validation's dev tools, not the fuzzer).
    grep -q "\"file\": \"$PWD/$f\"" "$build/compile_commands.json" && files="$files $f"
  done
  if [ -z "$files" ]; then
    echo "lint: no compiled .cpp changed since $(git rev-parse --short "$range"); clang-tidy skipped"
  else
    echo "lint: clang-tidy on$files"
    clang-tidy -p "$build" --quiet $files || fail=1
  fi
fi
[ "$fail" -eq 0 ] || exit 1
echo "lint: ok"
