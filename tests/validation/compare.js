// Compares Headroom's prediction (headroom-cli plan --json) with the measured buffers in
// measured.json and writes the accuracy table (run.sh: BUILD_DIR/validation/accuracy.md, copied
// to docs/accuracy.md by the README's step). Exit: 0 all within tolerance, 1 a mismatch,
// 77 (ctest SKIP) when headroom-cli has no `plan` command yet.
// Usage: node compare.js HEADROOM_CLI MEASURED_JSON WORK_DIR ACCURACY_MD [LLAMA_VERSION [TEST_NAME]]
// LLAMA_VERSION is the llama.cpp release measured.json was taken with (default v0.4.0, the one
// node-llama-cpp 3.21.1 ships); the plans are priced for that release (headroom-cli --llama-version).
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const [, , cli, measuredPath, workDir, outMd, llamaVersion = 'v0.4.0', testName = 'validation_llama_cpp'] = process.argv;
// Documented tolerances (docs/accuracy.md), not knobs: exact terms must match to the byte and the
// total of the five terms within ±2 % — both fail the test. The compute buffer is replayed
// (core/compute_skeleton.cpp) where the architecture has a graph skeleton, else estimated with a
// margin (plan.resolved.compute_margin_pct); its goal is ±1 % (issue 10): misses are marked in the
// table, and a miss beyond ±20 % — a regression — fails the test, as does any compute prediction
// below the measured buffer (issue 10: never low).
const EXACT = ['kv', 'recurrent_state', 'output'];
const COMPUTE_TOL = 0.01;
const COMPUTE_FAIL = 0.20;
const TOTAL_TOL = 0.02;
const MIB = 1024 * 1024;
const LOG_ROUND = 0.0051 * MIB; // llama.cpp's MiB log lines carry two decimals

const probe = spawnSync(cli, ['plan', '--help'], { encoding: 'utf8' });
if (probe.error || probe.status !== 0) {
  console.log(`headroom-cli has no working 'plan' command yet (${probe.error ? probe.error.message : 'exit ' + probe.status}); comparison skipped`);
  process.exit(77);
}

const measured = JSON.parse(fs.readFileSync(measuredPath, 'utf8'));
const rows = [];
const computeHow = {}; // architecture -> plan.resolved.compute ('replayed' or 'estimate') and margin
let computeLow = 0;
let failures = 0;
let computeMisses = 0;
const pct = (p, m) => (m === 0 ? (p === 0 ? 0 : Infinity) : ((p - m) / m) * 100);
for (const [id, m] of Object.entries(measured.models)) {
  const gguf = path.join(workDir, m.gguf);
  for (const c of m.contexts) {
    if (c.error) { rows.push({ id, arch: m.architecture, s: c.setting, note: `llama.cpp refused: ${c.error}` }); continue; }
    const s = c.setting;
    const args = ['plan', gguf, '--backend', 'cpu', '--vram', '0', '--ram', '64GiB', '-c', String(s.ctx),
      '-ctk', s.ctk, '-ctv', s.ctv, '-fa', s.fa ? 'on' : 'off', '-b', String(s.ub), '-ub', String(s.ub), '-np', String(s.np), '--mtp', 'off',
      // node-llama-cpp's AddonContext is llama.cpp's library with default context parameters: a
      // whole ubatch of output rows (headroom-cli --program).
      '--program', 'library',
      // Price the measured build: e.g. the nextn layout of GLM-4.5 differs between v0.4.0 and
      // v0.5.0 (LlamaProfile::filtersNextn).
      '--llama-version', llamaVersion, '--json'];
    if (s.swa_full) args.push('--swa-full');
    const r = spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
    let plan = null;
    try { plan = JSON.parse(r.stdout); } catch (e) { /* reported below */ }
    const rung = plan && plan.rungs ? plan.rungs.find((x) => x.context === c.n_ctx) : null;
    if (plan && plan.resolved) computeHow[m.architecture] = plan.resolved;
    if (!rung) {
      failures++;
      rows.push({ id, arch: m.architecture, s, note: `no rung with context ${c.n_ctx} (exit ${r.status}: ${(r.stderr || '').trim().slice(0, 200)})` });
      continue;
    }
    // Weights: the data bytes of the file, unless llama.cpp skipped some tensors (an MTP block
    // without load_mtp: TENSOR_SKIP), which the model buffer log line then shows; that line is
    // rounded to 0.01 MiB, so it is compared within its rounding.
    const logged = (m.model_buffers || []).reduce((a, b) => a + b.mib, 0) * MIB;
    const fromLog = m.model_buffers && m.model_buffers.length > 0 && Math.abs(logged - m.weights_bytes) > LOG_ROUND;
    const meas = { weights: fromLog ? Math.round(logged) : m.weights_bytes, ...c.bytes };
    const terms = {};
    let predTotal = 0;
    let measTotal = 0;
    for (const t of ['weights', 'kv', 'recurrent_state', 'compute', 'output']) {
      const p = Number(rung.bytes[t] || 0);
      const q = Number(meas[t] || 0);
      predTotal += p; measTotal += q;
      let ok = true;
      if (EXACT.includes(t)) ok = p === q;
      if (t === 'weights') ok = fromLog ? Math.abs(p - q) <= LOG_ROUND : p === q;
      let fails = !ok;
      if (t === 'compute') {
        ok = Math.abs(pct(p, q)) <= COMPUTE_TOL * 100;
        if (p < q) computeLow++;
        fails = !(Math.abs(pct(p, q)) <= COMPUTE_FAIL * 100) || p < q;
        if (!ok) computeMisses++;
      }
      if (fails) failures++;
      terms[t] = { p, q, err: pct(p, q), ok };
    }
    const totalOk = Math.abs(pct(predTotal, measTotal)) <= TOTAL_TOL * 100;
    if (!totalOk) failures++;
    terms.total = { p: predTotal, q: measTotal, err: pct(predTotal, measTotal), ok: totalOk };
    rows.push({ id, arch: m.architecture, s, n_ctx: c.n_ctx, terms });
  }
}

const fmt = (v) => v.toLocaleString('en-US');
const fe = (e) => (Number.isFinite(e) ? `${e >= 0 ? '+' : ''}${e.toFixed(2)} %` : 'n/a');
let md = `# Accuracy against llama.cpp\n\n`;
md += `Generated by \`tests/validation/run.sh\` (ctest \`${testName}\`). Ground truth: ${measured.engine}.\n`;
md += `Each model is a GGUF with the real hyperparameters and tensor layout of one model per family\n`;
md += `(tensor data left as a hole); llama.cpp loads it and the buffers it allocates are measured in\n`;
md += `exact bytes. Predicted: \`headroom-cli plan FILE --backend cpu --vram 0 --ram 64GiB ... --program library --llama-version ${llamaVersion} --json\`,\n`;
md += `rung whose context equals llama.cpp's n_ctx.\n\n`;
md += `Tolerances: weights, KV, recurrent state and output must match to the byte (weights within the\n0.01 MiB log rounding where llama.cpp skips tensors of the file, e.g. an MTP block) and the\n`;
md += `total (weights + kv + recurrent_state + compute + output) within ±${TOTAL_TOL * 100} % — the test fails otherwise.\n`;
md += `Compute: goal ±${COMPUTE_TOL * 100} %; settings outside it are marked ✗ below; beyond ±${COMPUTE_FAIL * 100} % the test fails.\n`;
md += `Not measurable through node-llama-cpp's addon: \`kv_unified\` (no option; llama.cpp's default, off, is measured)\n`;
md += `and MTP drafting (the addon never loads MTP tensors nor creates a draft context), so plans use \`--mtp off\`.\n\n`;
md += `Result: ${failures === 0 ? 'every exact term and total within tolerance' : `**${failures} failing term(s)**`}; `;
md += `compute within its ±${COMPUTE_TOL * 100} % goal in ${rows.length - computeMisses} of ${rows.length} settings `;
md += `(outside it: ${computeMisses}, marked ✗); predicted below the measured buffer in ${computeLow}.\n\n`;
md += `Compute is replayed (core/compute_skeleton.cpp, core/compute_graph.cpp): llama.cpp's buffer is the\n`;
md += `high-water mark of ggml-alloc packing the reserved graph, so Headroom builds each architecture family's\n`;
md += `graph skeleton in llama.cpp's build order (shapes, types, views, inputs and outputs) and replays ggml-alloc's\n`;
md += `allocator on it (best-fit free blocks, in-place reuse, sources freed after their last consumer).\n`;
const replayed = Object.keys(computeHow).filter((a) => computeHow[a].compute === 'replayed');
const estimated = Object.keys(computeHow).filter((a) => computeHow[a].compute !== 'replayed');
md += `Replayed here: ${replayed.length} of ${Object.keys(computeHow).length} families (${replayed.join(', ') || 'none'}).\n`;
md += `An architecture without a skeleton keeps the closed-form estimate of core/pricing.cpp (the tensors alive at\n`;
md += `the two usual peaks, no fragmentation) plus a margin that covers its worst error on these settings\n`;
md += `(kComputeEstimateMarginPct in core/pricing.h; the plan's resolved.compute_margin_pct and notes show it)`;
md += estimated.length === 0
  ? `; none of the validated families needs it.\n`
  : `; here ${estimated.join(', ')}, at +${computeHow[estimated[0]].compute_margin_pct} %.\n`;
md += `A compute prediction below the measured buffer fails the test. \`tests/validation/peak.cpp\`\n`;
md += `dumps llama.cpp's own graphs (HEADROOM_GRAPH_DUMP) and the tensors alive at the peak, to compare.\n\n`;
md += `## Worst error per architecture and term\n\n| architecture | weights | kv | recurrent_state | compute | output | total |\n|---|---|---|---|---|---|---|\n`;
const byArch = {};
for (const r of rows) if (r.terms) (byArch[r.arch] = byArch[r.arch] || []).push(r);
for (const [arch, rs] of Object.entries(byArch)) {
  const cells = ['weights', 'kv', 'recurrent_state', 'compute', 'output', 'total'].map((t) => {
    const worst = rs.map((r) => r.terms[t]).reduce((a, b) => (Math.abs(b.err) > Math.abs(a.err) ? b : a));
    const bad = rs.some((r) => !r.terms[t].ok);
    return `${fe(worst.err)}${bad ? ' ✗' : ''}`;
  });
  md += `| ${arch} | ${cells.join(' | ')} |\n`;
}
md += `\n## Every setting (predicted / measured bytes, error)\n`;
let cur = null;
for (const r of rows) {
  if (r.id !== cur) {
    cur = r.id;
    md += `\n### ${r.id} (${r.arch})\n\n| -c | -ub | -np | -fa | -ctk/-ctv | swa_full | n_ctx | term | predicted | measured | error |\n|---|---|---|---|---|---|---|---|---|---|---|\n`;
  }
  const s = r.s;
  const head = `| ${s.ctx} | ${s.ub} | ${s.np} | ${s.fa ? 'on' : 'off'} | ${s.ctk}/${s.ctv} | ${s.swa_full ? 'yes' : 'no'}`;
  if (!r.terms) { md += `${head} | | ${r.note} | | | |\n`; continue; }
  for (const [t, v] of Object.entries(r.terms))
    md += `${head} | ${r.n_ctx} | ${t} | ${fmt(v.p)} | ${fmt(v.q)} | ${fe(v.err)}${v.ok ? '' : ' ✗'} |\n`;
}
fs.mkdirSync(path.dirname(outMd), { recursive: true });
fs.writeFileSync(outMd + '.tmp', md);
fs.renameSync(outMd + '.tmp', outMd);
console.log(`wrote ${outMd}: ${rows.length} settings, ${failures} failing term(s), ${computeMisses} compute setting(s) outside the ±${COMPUTE_TOL * 100} % goal, ${computeLow} low`);
process.exit(failures === 0 ? 0 : 1);
