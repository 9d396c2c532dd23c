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

// Small contexts check each term's formula cheaply; a few larger ones check the scaling. Every
// KV cache here stays under ~2.5 GiB (llama.cpp clears it, so it is resident), and the worst
// compute buffer (no flash attention) stays far below RAM.
function settingsFor(m) {
  const arch = m.kv['general.architecture'][1];
  const base = { ctx: 4096, ub: 512, np: 1, fa: true, ctk: 'f16', ctv: 'f16' };
  const s = [
    base,
    { ...base, fa: false },
    { ...base, ctk: 'q8_0', ctv: 'q8_0' },
    { ...base, ctk: 'q4_0', ctv: 'q4_0' },
    { ...base, ctx: 8192, ub: 2048 },
    { ...base, ctx: 8192, ub: 256, fa: false },
    { ...base, ctx: 8192, np: 4 },
    { ...base, ctx: 16384, ub: 1024, fa: false },
    { ...base, ctx: 32768, ctk: 'q8_0', ctv: 'q8_0' },
  ];
  if (m.kv[`${arch}.attention.sliding_window`]) s.push({ ...base, ctx: 8192, swa_full: true }, { ...base, ctx: 8192, np: 4, swa_full: true });
  return s;
}

const measured = fs.existsSync(outJson) ? JSON.parse(fs.readFileSync(outJson, 'utf8')) : { models: {} };
measured.engine = 'llama.cpp from node-llama-cpp@3.21.1 (release v0.4.0), CPU backend, via AddonModel/AddonContext';
measured.notes = [
  'bytes are exact (posix_memalign sizes matched to the 0.01 MiB log lines); *_mib are the log lines',
  'n_ubatch = n_batch = ub (the addon sets both); kv_unified is false (no option in 3.21.1)',
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
      timeout: 300000, maxBuffer: 64 << 20, encoding: 'utf8',
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
