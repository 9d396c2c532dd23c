// Drives the validation: writes each model's GGUF (sparse), measures it with llama.cpp across the
// settings below (measure.js, one child process per model under the LD_PRELOAD shim), and writes
// the numbers to measured.json. compare.js turns them into docs/accuracy.md.
// Usage: node validate.js NODE_MODULES WORK_DIR SHIM_SO OUT_JSON [model-id ...]
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { MODELS } = require('./models.js');
const { writeGguf } = require('./gguf.js');

const [, , nodeModules, workDir, shim, outJson, ...only] = process.argv;

// Bounded for CI (a 2-core, 24 GiB runner; the whole suite must finish in ~20 minutes): a few
// settings per model, chosen so every term's formula is covered — the base case, the attention
// peak without flash attention at two ubatch sizes, a quantized cache at a larger context, the
// ubatch scaling of the logits peak, several sequences (per-stream cells, output rows) and, for
// sliding-window models, the full SWA cache. Each child holds at most its KV cache plus one
// compute buffer resident (< ~4 GiB for every model here; the weights are a sparse hole).
function settingsFor(m) {
  const arch = m.kv['general.architecture'][1];
  const base = { ctx: 4096, ub: 512, np: 1, fa: true, ctk: 'f16', ctv: 'f16' };
  const s = [
    base,
    { ...base, fa: false },
    { ...base, ctx: 8192, ub: 256, fa: false },
    { ...base, ctx: 16384, ctk: 'q8_0', ctv: 'q8_0' },
    { ...base, ctx: 8192, ub: 2048 },
    { ...base, ctx: 8192, np: 4 },
  ];
  if (m.kv[`${arch}.attention.sliding_window`]) s.push({ ...base, ctx: 8192, swa_full: true });
  return s;
}

const measured = fs.existsSync(outJson) ? JSON.parse(fs.readFileSync(outJson, 'utf8')) : { models: {} };
// The engine is whatever node-llama-cpp release run.sh installed (3.21.1: llama.cpp v0.4.0,
// 3.22.1: v0.5.0), read from the package itself.
const nlcVersion = JSON.parse(fs.readFileSync(path.join(nodeModules, 'node-llama-cpp', 'package.json'), 'utf8')).version;
const llamaRelease = JSON.parse(fs.readFileSync(path.join(nodeModules, 'node-llama-cpp', 'llama', 'binariesGithubRelease.json'), 'utf8')).release;
measured.engine = `llama.cpp from node-llama-cpp@${nlcVersion} (release ${llamaRelease}), CPU backend, via AddonModel/AddonContext`;
measured.notes = [
  'bytes are exact (posix_memalign sizes matched to the 0.01 MiB log lines); *_mib are the log lines',
  `n_ubatch = n_batch = ub (the addon sets both); kv_unified is false (no option in ${nlcVersion})`,
  'weights: data bytes of the file (mmap, no repack: Q8_0/F32 only); model_buffers are the log lines',
];
fs.mkdirSync(workDir, { recursive: true });
for (const m of MODELS) {
  if (only.length && !only.includes(m.id)) continue;
  const tensors = JSON.parse(fs.readFileSync(path.join(__dirname, 'tensors', `${m.id}.json`), 'utf8'));
  const gguf = path.join(workDir, `${m.id}.gguf`);
  const w = writeGguf(gguf, { kv: m.kv }, tensors);
  if (process.env.HEADROOM_VALIDATION_REUSE === '1' && measured.models[m.id]) continue; // GGUF written, numbers kept
  const settings = settingsFor(m);
  const allocLog = path.join(workDir, `${m.id}.alloc.log`);
  process.stderr.write(`measuring ${m.id} (${settings.length} settings)\n`);
  let out = '';
  try {
    out = execFileSync(process.execPath, [path.join(__dirname, 'measure.js'), nodeModules, gguf, JSON.stringify(settings)], {
      env: { ...process.env, LD_PRELOAD: shim, HEADROOM_ALLOC_LOG: allocLog },
      timeout: 180000, maxBuffer: 64 << 20, encoding: 'utf8',
    });
  } catch (e) {
    out = e.stdout || '';
    process.stderr.write(`  ${m.id}: measure failed: ${(e.stderr || e.message).toString().slice(-800)}\n`);
  }
  const lines = out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const model = lines.find((l) => l.kind === 'model');
  measured.models[m.id] = {
    architecture: m.kv['general.architecture'][1],
    gguf: path.basename(gguf),
    file_bytes: w.fileBytes,
    weights_bytes: w.tensors.reduce((s, t) => s + t.nbytes, 0),
    model_buffers: model ? model.model_buffers : null,
    contexts: lines.filter((l) => l.kind === 'context').map(({ kind, ...rest }) => rest),
  };
  fs.writeFileSync(outJson + '.tmp', JSON.stringify(measured, null, 1));
  fs.renameSync(outJson + '.tmp', outJson);
  fs.rmSync(allocLog, { force: true });
}
