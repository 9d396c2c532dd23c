// The Vulkan validation (ctest validation_vulkan, run by run.sh next to this file): loads small
// sparse replicas with the Vulkan build of llama.cpp that node-llama-cpp@3.21.1 ships (release
// v0.4.0) on Mesa's lavapipe, through vk_load (llama.h's C API, so -ts, --n-cpu-moe and unified KV
// are reachable), measures every buffer in exact bytes (buffer_shim.c), and compares each device's
// and the host's terms with `headroom-cli plan --backend vulkan`.
// Usage: node validate_vulkan.js HEADROOM_CLI BACKEND_DIR VK_LOAD SHIMS WORK_DIR ACCURACY_MD
//        [NODE_LLAMA_CPP_VERSION LLAMA_VERSION HOW_RUN] (default 3.21.1, v0.4.0, ctest `validation_vulkan`)
// Exit 0: every exact term exact and no device total low by more than 1 %; 1 otherwise.
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { MODELS } = require('../models.js');
const { writeGguf } = require('../gguf.js');

const [, , cli, backendDir, vkLoad, shims, workDir, outMd, nlcVersion = '3.21.1', llamaVersion = 'v0.4.0',
  testName = 'ctest `validation_vulkan`'] = process.argv;
const MIB = 1024 * 1024;
// Documented tolerances (docs/accuracy-vulkan.md), not knobs: weights, KV, recurrent state and
// output to the byte; no device total below llama.cpp's by more than 1 % (an out-of-memory the plan
// would not warn of) — both fail the test. Compute is an estimate whose goal is within 5 % or
// 16 MiB; settings outside it are reported.
const COMPUTE_TOL = 0.05;
const COMPUTE_ABS = 16 * MIB;
const UNDER_TOL = 0.01;

// One child per (model, placement): the model is loaded once and the contexts are created one
// after the other. Settings: ctx,ub,fa,cache,np,unified. Sized for ~10 minutes on 2 busy cores:
// lavapipe copies every offloaded weight into real memory, so device weights stay under ~1.3 GiB.
const base = '4096,512,1,f16,1,0';
const CASES = [
  { model: 'falcon-h1-0.5b', ngl: 99, settings: [base, '4096,512,0,f16,1,0', '8192,256,0,f16,1,0', '16384,512,1,q8_0,1,0', '8192,2048,1,f16,1,0', '8192,512,1,f16,2,0', '8192,512,1,f16,2,1'] },
  { model: 'falcon-h1-0.5b', ngl: 20, settings: [base, '8192,512,0,f16,1,0'] },
  { model: 'falcon-h1-0.5b', ngl: 99, devices: '0,0', ts: '1,1', settings: [base, '8192,512,0,f16,1,0'] },
  { model: 'falcon-h1-0.5b', ngl: 99, devices: '0,0', ts: '3,1', settings: [base] },
  { model: 'falcon-h1-0.5b', ngl: 20, devices: '0,0', ts: '1,1', settings: [base] },
  { model: 'lfm2-1.2b', ngl: 99, settings: [base, '4096,512,0,f16,1,0', '16384,512,0,f16,1,0', '8192,2048,1,f16,1,0'] },
  { model: 'lfm2-1.2b', ngl: 8, settings: [base, '8192,512,0,f16,1,0'] },
  { model: 'phi-3.5-mini', ngl: 8, settings: [base, '16384,512,0,f16,1,0', '8192,2048,1,f16,1,0', '8192,512,1,q8_0,1,0'] },
  { model: 'olmoe-1b-7b', ngl: 99, ncmoe: 16, settings: [base, '4096,512,0,f16,1,0', '4096,2048,1,f16,1,0'] },
  { model: 'olmoe-1b-7b', ngl: 99, ncmoe: 14, settings: [base] },
  // The chunking cases on a large vocabulary and 32 heads: scores of exactly 1 GiB without flash
  // attention (16K), logits of 1002 MiB beside the layer peak (ub 2048). -ngl 3: the output and
  // two blocks on the device (974 MiB), the host's 1.9 GiB KV cache is the largest resident part.
  { model: 'llama-3.1-8b', ngl: 3, settings: ['16384,512,0,f16,1,0', '4096,2048,1,f16,1,0', '8192,512,0,f16,1,0'] },
  // One load per further validated family, a few blocks offloaded at the default context: every
  // exact term per device and the scheduler replay on its graph.
  { model: 'qwen3-8b', ngl: 3, settings: [base] },
  { model: 'gemma-2-9b', ngl: 3, settings: [base] },
  { model: 'deepseek-v2-lite', ngl: 3, settings: [base] },
  { model: 'granite-4.0-h-tiny', ngl: 6, settings: [base] },
  { model: 'mamba2-2.7b', ngl: 8, settings: [base] },
  { model: 'gpt-oss-20b', ngl: 3, settings: [base] },
  { model: 'qwen3-30b-a3b', ngl: 2, settings: [base] },
  { model: 'gemma-3-27b', ngl: 2, settings: [base] },
  { model: 'qwen2.5-7b', ngl: 3, settings: [base] },
  { model: 'granite-3.1-8b', ngl: 3, settings: [base] },
  { model: 'command-r7b', ngl: 3, settings: [base] },
  { model: 'aya-23-8b', ngl: 3, settings: [base] },
  { model: 'mistral-small-3.1-24b', ngl: 2, settings: [base] },
  { model: 'glm-4.5-air', ngl: 2, settings: [base] },
  { model: 'llama-4-scout', ngl: 2, settings: [base] },
  { model: 'ernie-4.5-21b-a3b', ngl: 2, settings: [base] },
  { model: 'nemotron-nano-9b-v2', ngl: 3, settings: [base] },
  // The three hybrid families last: Jamba (Mamba-1 blocks, whose ssm_a ggml-vulkan cannot scan, so
  // it stays on the CPU) with the offloaded MoE block's experts on the CPU, Gemma 3n (per-layer
  // embedding parts on block 0's and the output layer's devices) and Qwen3-Next (gated delta-net
  // and attention blocks, experts on the CPU).
  { model: 'jamba-v0.1', ngl: 3, ncmoe: 32, settings: [base] },
  { model: 'gemma-3n-e2b', ngl: 3, settings: [base] },
  { model: 'qwen3-next-80b-a3b', ngl: 3, ncmoe: 48, settings: [base] },
  // Tensor overrides (-ot, common/arg.cpp): the routed experts of both offloaded blocks on the CPU,
  // and a dense model's FFN projections of both offloaded blocks (their norms stay on the device).
  { model: 'qwen3-30b-a3b', ngl: 3, ot: 'blk\\.4[67]\\.ffn_(up|down|gate)_exps\\.weight=CPU', settings: [base] },
  { model: 'qwen3-8b', ngl: 3, ot: 'blk\\.3[45]\\.ffn_(up|down|gate)\\.weight=CPU', settings: [base] },
];

// llama.cpp's buffer log lines, by what they hold.
const KINDS = [
  [/load_tensors:\s+(\S+) model buffer size =\s+([\d.]+) MiB/, 'weights', 'model'],
  [/llama_context:\s+(\S+)\s+output buffer size =\s+([\d.]+) MiB/, 'output', 'context'],
  [/llama_kv_cache:\s+(\S+) KV buffer size =\s+([\d.]+) MiB/, 'kv', 'context'],
  [/llama_memory_recurrent:\s+(\S+) RS buffer size =\s+([\d.]+) MiB/, 'recurrent_state', 'context'],
  [/sched_reserve:\s+(\S+) compute buffer size =\s+([\d.]+) MiB/, 'compute', 'context'],
];

// The shim's allocations live at the end of a phase, per buffer type in allocation order.
function liveBuffers(logText, startMarker, endMarker) {
  const live = new Map();
  let on = false;
  for (const line of logText.split('\n')) {
    if (line === `M ${startMarker}`) { on = true; continue; }
    if (endMarker && line === `M ${endMarker}`) break;
    if (!on || !line) continue;
    const [op, id, type, size] = line.split(' ');
    if (op === 'A') { live.delete(id); live.set(id, { type, size: Number(size) }); } // the outer call's type wins
    else if (op === 'F') live.delete(id);
  }
  return [...live.values()];
}

// Exact bytes for each log line: the type's live buffers in allocation order, taken until their sum
// prints as the line's 0.01 MiB figure (llama.cpp allocates output, KV, recurrent state, compute
// in that order). A line no buffer sum matches keeps its logged figure and is flagged.
function exactBytes(lines, buffers) {
  const out = [];
  const byType = {};
  for (const b of buffers) (byType[b.type === 'Host_Mapped' ? 'CPU_Mapped' : b.type] = byType[b.type === 'Host_Mapped' ? 'CPU_Mapped' : b.type] || []).push(b.size);
  for (const l of lines) {
    const q = byType[l.type] || [];
    let sum = 0;
    let k = 0;
    // printf rounds an exact half (e.g. 272.125) to even, JavaScript's toFixed up: compare within
    // half a hundredth instead of as text.
    const prints = (b) => Math.abs(b / MIB - l.mib) <= 0.00501;
    while (k < q.length && !(sum > 0 && prints(sum))) sum += q[k++];
    if (sum > 0 && prints(sum)) {
      q.splice(0, k);
      out.push({ ...l, bytes: sum, exact: true });
    } else {
      out.push({ ...l, bytes: Math.round(l.mib * MIB), exact: false });
    }
  }
  return out;
}

function measureCase(c) {
  const gguf = path.join(workDir, `${c.model}.gguf`);
  const bufLog = path.join(workDir, 'buffers.log');
  fs.rmSync(bufLog, { force: true });
  const env = {
    ...process.env, LD_PRELOAD: shims, HEADROOM_BUFFER_LOG: bufLog,
    HEADROOM_VK_STORAGE_RANGE: '4294967295', GGML_VK_VISIBLE_DEVICES: c.devices || '0',
  };
  const r = spawnSync(vkLoad, [backendDir, gguf, String(c.ngl), String(c.ncmoe || 0), c.ts || '-', c.ot || '-', ...c.settings],
    { env, encoding: 'utf8', timeout: 240000, maxBuffer: 64 << 20 });
  if (r.status !== 0) return { error: `vk_load exit ${r.status} ${r.signal || ''}: ${(r.stderr || '').slice(-400)}` };
  const logText = fs.readFileSync(bufLog, 'utf8');
  const parsed = { model: [], contexts: c.settings.map(() => ({ lines: [], ok: false })) };
  let phase = 'model';
  let ci = -1;
  for (const line of r.stdout.split('\n')) {
    if (line.startsWith('S ')) { ci = Number(line.split(' ')[1]); phase = 'context'; continue; }
    if (line.startsWith('C ')) { parsed.contexts[ci].ok = line.endsWith('ok'); phase = 'after'; continue; }
    if (!line.startsWith('L ')) continue;
    for (const [re, kind, where] of KINDS) {
      const m = line.match(re);
      if (!m || where !== phase) continue;
      const entry = { type: m[1], kind, mib: Number(m[2]) };
      if (phase === 'model') parsed.model.push(entry); else parsed.contexts[ci].lines.push(entry);
    }
  }
  parsed.model = exactBytes(parsed.model, liveBuffers(logText, 'model', 'context 0'));
  parsed.contexts.forEach((ctx, i) => { ctx.lines = exactBytes(ctx.lines, liveBuffers(logText, `context ${i}`, `end ${i}`)); });
  return parsed;
}

// Buffer type -> 'dev0', 'dev1' or 'host'.
const where = (type) => (/^Vulkan\d+$/.test(type) ? `dev${type.slice(6)}` : 'host');

function planFor(c, s, nDev) {
  const [ctx, ub, fa, cache, np, unified] = s.split(',');
  const args = ['plan', path.join(workDir, `${c.model}.gguf`), '--backend', 'vulkan',
    '--vram', Array(nDev).fill('64GiB').join(','), '--ram', '64GiB', '-c', ctx, '-b', ub, '-ub', ub,
    '-fa', fa === '1' ? 'on' : 'off', '-ctk', cache, '-ctv', cache, '-np', np, '--mtp', 'off',
    '-ngl', String(c.ngl),
    // vk_load.c calls llama.cpp's library with llama_context_default_params (a whole ubatch of
    // output rows: headroom-cli --program), priced for the llama.cpp release that was loaded.
    '--program', 'library', '--llama-version', llamaVersion, '--json'];
  if (unified === '1') args.push('--kv-unified');
  if (c.ncmoe) args.push('--n-cpu-moe', String(c.ncmoe));
  if (c.ts) args.push('-ts', c.ts);
  if (c.ot) args.push('-ot', c.ot);
  const r = spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  try { return { plan: JSON.parse(r.stdout), args }; } catch (e) { return { error: `plan exit ${r.status}: ${(r.stderr || '').slice(0, 300)}`, args }; }
}

fs.mkdirSync(workDir, { recursive: true });
const written = new Set();
const rows = [];
let failures = 0;
let computeCases = 0;
let computeOk = 0;
// The replay alone: a device buffer's prediction less the margin every replayed device buffer
// carries (core/planner/vulkan_pricing.cpp kReplayMargin, 6 MiB), within 64 bytes of the measured
// one (lavapipe's 16-byte alignment against the plan's 32, a few tensors).
const REPLAY_MARGIN = 6 * MIB;
let replayExact = 0;
let underCount = 0;
let exactTerms = 0;
let exactTotal = 0;
// HEADROOM_VK_CASES=0,3 (local iterations): only those cases.
const only = (process.env.HEADROOM_VK_CASES || '').split(',').filter(Boolean).map(Number);
for (const [ci, c] of CASES.entries()) {
  if (only.length && !only.includes(ci)) continue;
  if (!written.has(c.model)) {
    const m = MODELS.find((x) => x.id === c.model);
    const tensors = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'tensors', `${c.model}.json`), 'utf8'));
    writeGguf(path.join(workDir, `${c.model}.gguf`), { kv: m.kv }, tensors);
    written.add(c.model);
  }
  const label = `${c.model} -ngl ${c.ngl}${c.ncmoe ? ` --n-cpu-moe ${c.ncmoe}` : ''}${c.ts ? ` -ts ${c.ts}` : ''}${c.ot ? ` -ot ${c.ot}` : ''}`;
  process.stderr.write(`measuring ${label} (${c.settings.length} contexts)\n`);
  const t0 = Date.now();
  const meas = measureCase(c);
  process.stderr.write(`  ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  if (meas.error) { failures++; rows.push({ label, note: meas.error }); continue; }
  const nDev = (c.devices || '0').split(',').length;
  c.settings.forEach((s, i) => {
    const ctx = meas.contexts[i];
    if (!ctx.ok) { failures++; rows.push({ label, s, note: 'llama.cpp could not create the context' }); return; }
    const { plan, error, args } = planFor(c, s, nDev);
    const rung = plan && plan.rungs ? plan.rungs.find((x) => x.context >= Number(s.split(',')[0])) || plan.rungs[plan.rungs.length - 1] : null;
    if (!rung) { failures++; rows.push({ label, s, note: error || 'no rung' }); return; }
    // measured[where][term]
    const m = {};
    for (const l of [...meas.model, ...ctx.lines]) {
      const w = where(l.type);
      m[w] = m[w] || {};
      m[w][l.kind] = (m[w][l.kind] || 0) + l.bytes;
      if (!l.exact) m[w].inexact = true;
    }
    const places = ['host', ...Array.from({ length: nDev }, (_, d) => `dev${d}`)];
    const cells = [];
    for (const w of places) {
      const p = w === 'host' ? rung.host : (rung.devices[Number(w.slice(3))] || {}).terms || {};
      const q = m[w] || {};
      for (const t of ['weights', 'kv', 'recurrent_state', 'output', 'compute']) {
        const pv = Number(p[t] || 0);
        const qv = Number(q[t] || 0);
        if (pv === 0 && qv === 0) continue;
        let ok;
        let note = '';
        if (t === 'compute') {
          computeCases++;
          ok = Math.abs(pv - qv) <= Math.max(COMPUTE_TOL * qv, COMPUTE_ABS);
          if (ok) computeOk++;
          const raw = w === 'host' ? pv : pv - REPLAY_MARGIN;
          if (Math.abs(raw - qv) <= 64) replayExact++;
        } else if (t === 'weights' && w === 'host' && (c.ngl < 99 || c.ncmoe || c.ot)) {
          // The CPU_Mapped buffer is the mapped file range from the first to the last host tensor
          // (llama_model::load_tensors maps one range per file): address space spanning the device
          // layers between them, not resident memory. Headroom prices the host tensors' bytes.
          ok = pv <= qv;
          note = ' (mapped range)';
        } else {
          exactTotal++;
          ok = pv === qv;
          if (ok) exactTerms++; else failures++;
        }
        cells.push({ w, t, pv, qv, ok, note: note + (q.inexact ? ' (log figure)' : '') });
      }
      if (w !== 'host') {
        // Device total without the runtime overhead, which llama.cpp's buffers do not include.
        const pt = ['weights', 'kv', 'recurrent_state', 'output', 'compute'].reduce((a, t) => a + Number(p[t] || 0), 0);
        const qt = ['weights', 'kv', 'recurrent_state', 'output', 'compute'].reduce((a, t) => a + Number(q[t] || 0), 0);
        const under = pt < qt * (1 - UNDER_TOL);
        if (under) { underCount++; failures++; }
        cells.push({ w, t: 'total', pv: pt, qv: qt, ok: !under, note: '' });
      }
    }
    rows.push({ label, s, args, cells });
  });
}

const pct = (p, q) => (q === 0 ? (p === 0 ? '0' : 'n/a') : `${p >= q ? '+' : ''}${(((p - q) / q) * 100).toFixed(2)} %`);
const fmt = (v) => v.toLocaleString('en-US');
const nSettings = rows.filter((r) => r.cells).length;
let md = '# Accuracy on llama.cpp\'s Vulkan backend (lavapipe)\n\n';
md += `Generated by \`tests/validation/vulkan/run.sh\` (${testName}). Ground truth: llama.cpp from\n`;
md += `node-llama-cpp@${nlcVersion}'s Vulkan prebuilt (release ${llamaVersion}) on Mesa's lavapipe, loaded through llama.h\n`;
md += '(`vk_load.c`), `GGML_VK_VISIBLE_DEVICES=0` (or `0,0`: two devices on one lavapipe), lavapipe\'s\n';
md += '`maxStorageBufferRange` raised to 4 GiB − 1 as a discrete GPU reports it. Every buffer in exact bytes\n';
md += '(`buffer_shim.c`). Predicted: `headroom-cli plan MODEL --backend vulkan --vram 64GiB[,64GiB] --ram 64GiB\n';
md += '-c CTX -b UB -ub UB -fa on|off -ctk/-ctv T -np N [--kv-unified] -ngl N [--n-cpu-moe N] [-ts a,b]\n';
md += '[-ot REGEX=CPU] (the same override vk_load hands llama.cpp, parsed as common/arg.cpp does)\n';
md += `--mtp off --program library --llama-version ${llamaVersion} --json\`.\n\n`;
md += 'Tolerances: weights, KV, recurrent state and output to the byte, and no device total (weights + KV +\n';
md += 'state + output + compute) below the measured one by more than 1 % — the test fails otherwise. Compute\n';
md += `is an estimate with the goal ±5 % or ±16 MiB; misses are marked ✗. Host weights under partial\n`;
md += 'offload are the mmap\'d file range llama.cpp maps (address space including device layers between host\n';
md += 'tensors); Headroom prices the host tensors\' bytes, checked as never above that range.\n\n';
md += `Result: ${nSettings} settings; exact terms ${exactTerms} of ${exactTotal} exact; compute within its goal in `;
md += `${computeOk} of ${computeCases} buffers; ${underCount} device totals low by more than 1 %; `;
md += `${failures === 0 ? 'pass' : `**${failures} failure(s)**`}.\n\n`;
md += `What Headroom prices for the Vulkan backend (core/planner/vulkan_pricing.cpp, each mechanism cited\n`;
md += `there and in core/compute_graph.cpp from llama.cpp's source): for the architectures with a graph\n`;
md += `skeleton (core/compute_skeleton.h; all of this grid) the reserved graph is replayed the way\n`;
md += `ggml_backend_sched runs it, per backend:\n`;
md += `- each op placed where its weights are (token rows on the CPU, graph inputs on the CPU, caches with\n`;
md += `  their block), a host weight's op offloaded to the first device when the micro-batch is 32 or more,\n`;
md += `  the rest expanded from its neighbours as the scheduler's passes do; under full offload (or a\n`;
md += `  micro-batch under 32) each block's weighted norms pinned to the block's device, as llama.cpp's\n`;
md += `  graph callback does;\n`;
md += `- the graph cut into splits; what a split reads from another backend is copied into its backend's\n`;
md += `  buffer (a host weight while its op runs, a host cache's K/V view, the hidden state, inputs), with\n`;
md += `  four kept copies of every input under pipeline parallelism; a copy keeps its source's layout, so\n`;
md += `  the first op reading it may reuse it in place, and a weight read twice (Gemma 3n's AltUp router)\n`;
md += `  is copied once and kept;\n`;
md += `- each Vulkan split reordered as ggml-vulkan does before allocation (ggml_vk_graph_optimize: the\n`;
md += `  next nodes that read nothing still pending run together, fusable chains kept adjacent);\n`;
md += `- one ggml-alloc pass over the copy with a buffer per backend, each packed in chunks of at most 1 GiB\n`;
md += `  (a tensor that fits no chunk opens a new one), the buffer the sum of its chunks;\n`;
md += `- pinned \`Vulkan_Host\` buffers (output, host compute) are 32 bytes larger than asked, per chunk;\n`;
md += `- the skeletons hold every node of llama.cpp's graph, those outside the buffer too (the caches'\n`;
md += `  views and permutes, set_rows into the cache, build_rs's reshape, in-place clear and copies into\n`;
md += `  views), so ${llamaVersion}'s reorder windows and ggml-alloc's free blocks come out as llama.cpp's,\n`;
md += `  the zero-size block build_rs's zero-byte extra-state rows leave included (Falcon-H1 at -ub 2048);\n`;
md += `  a host weight's copy takes the file's bytes for that tensor;\n`;
md += `- every replayed device buffer carries 6 MiB for what the replay does not model (on models and\n`;
md += `  settings this grid does not hold). Without it the replay is within 64 bytes of the measured\n`;
md += `  buffer on ${replayExact} of the ${computeCases} buffers; the largest gap is DeepSeek-V2-Lite -ngl 3, 128 B high.\n`;
md += `Weights go where llama.cpp's loader puts them: Mamba-1's ssm_a (Jamba) in host memory, since\n`;
md += `ggml-vulkan cannot run its scan; tensors created with block 0's number (Gemma 3n's per-layer\n`;
md += `projection) with block 0; what a -ot REGEX=CPU override names on the CPU (whole routed-expert\n`;
md += `banks replayed as --n-cpu-moe is, a block's three FFN projections with their matmuls on the CPU;\n`;
md += `other partial moves keep the closed form).\n`;
md += `Architectures without a skeleton keep the closed form with its chunk and op-offload terms and a\n`;
if (llamaVersion === 'v0.4.0') {
  md += `15 MiB margin. docs/accuracy-vulkan-v0.5.0.md is the same grid on llama.cpp v0.5.0, whose own\n`;
  md += `graph reorder the replay follows there.\n`;
} else {
  md += `15 MiB margin.\n`;
  md += `- ${llamaVersion}: each Vulkan split is reordered by ${llamaVersion}'s ggml_vk_graph_optimize, which\n`;
  md += `  also keeps RMS_NORM + MUL (+ ADD (+ MUL)) and (RMS_NORM + MUL +) ROPE or RMS_NORM + VIEW +\n`;
  md += `  SET_ROWS together where they start, pulls a MUL up to the RMS_NORM or UNARY it reads across\n`;
  md += `  views, and keeps a fused MoE router's sources allocated through it. On a dense model at full\n`;
  md += `  offload that leaves the final norm above a hole the logits do not fit (Llama-3.1-8B -ngl 99 at\n`;
  md += `  4K, measured once on lavapipe: 266.5 MiB against v0.4.0's 258.5, both replayed to the byte;\n`;
  md += `  tests/core/test_vulkan_pricing.cpp).\n`;
}
let cur = null;
for (const r of rows) {
  if (r.label !== cur) {
    cur = r.label;
    md += `\n## ${r.label}\n\n| ctx,ub,fa,cache,np,unified | where | term | predicted | measured | error |\n|---|---|---|---|---|---|\n`;
  }
  if (!r.cells) { md += `| ${r.s || ''} | | | ${r.note} | | |\n`; continue; }
  for (const x of r.cells)
    md += `| ${r.s} | ${x.w} | ${x.t} | ${fmt(x.pv)} | ${fmt(x.qv)} | ${pct(x.pv, x.qv)}${x.ok ? '' : ' ✗'}${x.note} |\n`;
}
fs.mkdirSync(path.dirname(outMd), { recursive: true });
fs.writeFileSync(outMd + '.tmp', md);
fs.renameSync(outMd + '.tmp', outMd);
fs.writeFileSync(path.join(workDir, 'rows.json'), JSON.stringify(rows, null, 1));
console.log(`wrote ${outMd}: ${nSettings} settings, exact ${exactTerms}/${exactTotal}, compute within goal ${computeOk}/${computeCases}, ${underCount} device totals low > 1 %, ${failures} failure(s)`);
process.exit(failures === 0 ? 0 : 1);
