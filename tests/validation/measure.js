// Loads one generated GGUF with the llama.cpp shipped in node-llama-cpp@3.21.1 (CPU backend)
// through the package's low-level addon (AddonModel/AddonContext map onto
// llama_model_load_from_file / llama_init_from_model; see llama/addon/AddonContext.cpp), creates
// one context per setting and reports every buffer llama.cpp allocates, in exact bytes.
//
// Run under LD_PRELOAD=shim.so with HEADROOM_ALLOC_LOG set (see run.sh).
// Usage: node measure.js NODE_MODULES MODEL.gguf SETTINGS_JSON  -> JSON lines on stdout.
//
// What the addon passes (AddonContext.cpp): n_ubatch = n_batch = batchSize; swa_full defaults to
// false; there is no kv_unified option, so llama.cpp's default (false) is what gets measured.
'use strict';
const fs = require('fs');
const path = require('path');

const [, , nodeModules, modelPath, settingsJson] = process.argv;
const settings = JSON.parse(settingsJson);
const allocLog = process.env.HEADROOM_ALLOC_LOG;
const MiB = 1024 * 1024;
const TYPE_ID = { f32: 0, f16: 1, q4_0: 2, q4_1: 3, q5_0: 6, q5_1: 7, q8_0: 8, bf16: 30 };

let logText = '';
function logger(level, message) { logText += message.endsWith('\n') ? message : message + '\n'; }

function readAllocs() {
  if (!fs.existsSync(allocLog)) return [];
  return fs.readFileSync(allocLog, 'utf8').trim().split('\n').filter(Boolean).map((l) => {
    const [size, rc] = l.split(' ').map(Number);
    return { size, ok: rc === 0 };
  });
}

// A log figure is rounded to 0.01 MiB; the exact size is the allocation that rounds to it.
function exact(mib, allocs, used) {
  for (let i = allocs.length - 1; i >= 0; --i) {
    if (used.has(i)) continue;
    if (Math.abs(allocs[i].size / MiB - mib) <= 0.0051) { used.add(i); return allocs[i].size; }
  }
  return null;
}

function parse(text, allocs) {
  const used = new Set();
  const out = { kv_buffers: [], rs_buffers: [], kv_caches: [], rs_caches: [] };
  let m;
  const reKvBuf = /llama_kv_cache: +(\S+) KV buffer size = +([\d.]+) MiB/g;
  while ((m = reKvBuf.exec(text))) out.kv_buffers.push({ buft: m[1], mib: +m[2], bytes: exact(+m[2], allocs, used) });
  const reKv = /llama_kv_cache: size = +([\d.]+) MiB \( *(\d+) cells, +(\d+) layers, +(\d+)\/(\d+) seqs\), K \((\w+)\): +([\d.]+) MiB, V \((\w+)\): +([\d.]+) MiB/g;
  while ((m = reKv.exec(text)))
    out.kv_caches.push({ mib: +m[1], cells: +m[2], layers: +m[3], seqs: `${m[4]}/${m[5]}`, k_type: m[6], k_mib: +m[7], v_type: m[8], v_mib: +m[9] });
  const reRsBuf = /llama_memory_recurrent: +(\S+) RS buffer size = +([\d.]+) MiB/g;
  while ((m = reRsBuf.exec(text))) out.rs_buffers.push({ buft: m[1], mib: +m[2], bytes: exact(+m[2], allocs, used) });
  const reRs = /llama_memory_recurrent: size = +([\d.]+) MiB \( *(\d+) cells, +(\d+) layers, +(\d+) seqs +(\d+) rs_seq\), R \((\w+)\): +([\d.]+) MiB, S \((\w+)\): +([\d.]+) MiB/g;
  while ((m = reRs.exec(text)))
    out.rs_caches.push({ mib: +m[1], cells: +m[2], layers: +m[3], r_mib: +m[7], s_mib: +m[9] });
  m = /llama_context: +(\S+) +output buffer size = +([\d.]+) MiB/.exec(text);
  out.output = m ? { buft: m[1], mib: +m[2], bytes: exact(+m[2], allocs, used) } : null;
  out.compute = [];
  const reCompute = /sched_reserve: +(\S+) compute buffer size = +([\d.]+) MiB/g;
  while ((m = reCompute.exec(text))) out.compute.push({ buft: m[1], mib: +m[2], bytes: exact(+m[2], allocs, used) });
  m = /llama_context: n_ctx += (\d+)/.exec(text); out.n_ctx = m ? +m[1] : null;
  m = /llama_context: n_ctx_seq += (\d+)/.exec(text); out.n_ctx_seq = m ? +m[1] : null;
  m = /llama_context: flash_attn += (\S+)/.exec(text); out.flash_attn = m ? m[1] : null;
  const sum = (a) => (a.some((x) => x.bytes === null) ? null : a.reduce((s, x) => s + x.bytes, 0));
  out.bytes = {
    kv: sum(out.kv_buffers),
    recurrent_state: sum(out.rs_buffers),
    compute: sum(out.compute),
    output: out.output ? out.output.bytes : 0,
  };
  return out;
}

async function main() {
  const { getLlama, LlamaLogLevel } = await import(require('url').pathToFileURL(path.join(nodeModules, 'node-llama-cpp', 'dist', 'index.js')).href);
  const llama = await getLlama({
    gpu: false, build: 'never', usePrebuiltBinaries: true, skipDownload: true, progressLogs: false,
    logLevel: LlamaLogLevel.debug, logger, maxThreads: 1,
  });
  const b = llama._bindings;
  const model = new b.AddonModel(modelPath, { addonExports: b, gpuLayers: 0, useMmap: true });
  const settle = () => new Promise((r) => setTimeout(r, 150)); // log lines reach JS asynchronously
  const loaded = await model.init();
  await settle();
  if (!loaded) throw new Error(`llama.cpp could not load ${modelPath}:\n${logText.slice(-3000)}`);
  const mm = [...logText.matchAll(/load_tensors: +(\S+) model buffer size = +([\d.]+) MiB/g)];
  const modelBuffers = mm.map((x) => ({ buft: x[1], mib: +x[2] }));
  console.log(JSON.stringify({ kind: 'model', model_buffers: modelBuffers }));
  for (const s of settings) {
    logText = '';
    fs.writeFileSync(allocLog, '');
    const opts = {
      contextSize: s.ctx, batchSize: s.ub, sequences: s.np, flashAttention: s.fa,
      kvCacheKeyType: TYPE_ID[s.ctk], kvCacheValueType: TYPE_ID[s.ctv], swaFullCache: !!s.swa_full, threads: 1,
    };
    let rec;
    try {
      const ctx = new b.AddonContext(model, opts);
      const ok = await ctx.init();
      await settle();
      const allocs = readAllocs();
      if (!ok) {
        rec = { setting: s, error: (logText.match(/.*(fail|error|requires).*$/gim) || ['init failed']).slice(-3).join(' | ') };
      } else {
        rec = { setting: s, ...parse(logText, allocs) };
      }
      await ctx.dispose();
    } catch (e) {
      rec = { setting: s, error: String(e && e.message ? e.message : e) };
    }
    console.log(JSON.stringify({ kind: 'context', ...rec }));
  }
  await model.dispose();
}

main().then(() => process.exit(0), (e) => { console.error(String(e && e.stack ? e.stack : e)); process.exit(1); });
