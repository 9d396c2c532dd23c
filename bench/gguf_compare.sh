#!/bin/sh
# Parses the same generated GGUF headers with Headroom's reader (bench_gguf) and with
# @huggingface/gguf (npm) in one run, and prints both side by side.
#
#   bench/gguf_compare.sh [BUILD_DIR] [ITERATIONS]
#
# BUILD_DIR defaults to ./build (bench_gguf must be built: cmake --build build --target
# bench_gguf). @huggingface/gguf is installed into BUILD_DIR/bench-npm on first use.
set -eu

HF_GGUF_VERSION=0.4.6 # pinned: numbers are only comparable run to run with the same version
BUILD=${1:-build}
ITER=${2:-20}
BENCH="$BUILD/bench/bench_gguf"
NPM_DIR="$BUILD/bench-npm"

[ -x "$BENCH" ] || { echo "missing $BENCH: cmake --build $BUILD --target bench_gguf" >&2; exit 2; }
command -v node >/dev/null || { echo "node is required" >&2; exit 2; }

installed=$(node -p "try{require('./$NPM_DIR/node_modules/@huggingface/gguf/package.json').version}catch(e){''}" 2>/dev/null || true)
if [ "$installed" != "$HF_GGUF_VERSION" ]; then
    mkdir -p "$NPM_DIR"
    npm i -E "@huggingface/gguf@$HF_GGUF_VERSION" --prefix "$NPM_DIR" --no-audit --no-fund >&2
fi

DATA=$(mktemp -d "${TMPDIR:-/tmp}/gguf_compare.XXXXXX")
trap 'rm -rf "$DATA"' EXIT INT TERM

# Ours: generates the files (sparse) and times them; one line per file:
# name, path, wall ms, cpu ms, wall ms with every array decoded.
"$BENCH" --dir "$DATA" --iterations "$ITER" --list > "$DATA/ours.tsv"

# Theirs: the same files, same warm-up + median-of-N protocol, wall and CPU time.
cat > "$DATA/theirs.mjs" <<'JS'
import { gguf } from "@huggingface/gguf";
import { readFileSync } from "node:fs";
const [tsv, iterArg] = process.argv.slice(2);
const iterations = Number(iterArg);
const median = (v) => v.sort((a, b) => a - b)[Math.floor(v.length / 2)];
for (const line of readFileSync(tsv, "utf8").trim().split("\n")) {
  const [name, path] = line.split("\t");
  const wall = [], cpu = [];
  let tensors = 0;
  for (let i = 0; i <= iterations; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await gguf(path, { allowLocalFile: true });
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    tensors = r.tensorInfos.length;
    if (i > 0) { wall.push(ms); cpu.push((c.user + c.system) / 1000); }
  }
  console.log([name, median(wall).toFixed(3), median(cpu).toFixed(3), tensors].join("\t"));
}
JS
NODE_PATH="$(cd "$NPM_DIR" && pwd)/node_modules"
ln -s "$NODE_PATH" "$DATA/node_modules"
node "$DATA/theirs.mjs" "$DATA/ours.tsv" "$ITER" > "$DATA/theirs.tsv"

echo "GGUF header parse, median of $ITER reads after a warm-up (page cache warm)"
echo "headroom: readGgufFile (arrays kept encoded, decoded on request)"
echo "hf:       @huggingface/gguf $HF_GGUF_VERSION gguf(path, {allowLocalFile: true}) under node $(node --version)"
printf '%-28s %12s %12s %12s %12s %9s %9s\n' file "headroom ms" "hf ms" "headroom cpu" "hf cpu" "x wall" "x cpu"
sort "$DATA/ours.tsv" > "$DATA/ours.sorted"
sort "$DATA/theirs.tsv" > "$DATA/theirs.sorted"
join -t "$(printf '\t')" "$DATA/ours.sorted" "$DATA/theirs.sorted" |
    awk -F'\t' '{ printf "%-28s %12.2f %12.2f %12.2f %12.2f %8.1fx %8.1fx\n", $1, $3, $6, $4, $7, $6/$3, $7/$4 }'
echo "x = hf time / headroom time. Wall times on a loaded machine mostly measure the scheduler;"
echo "CPU times are the steadier comparison."
