// Loads one sparse GGUF replica (tests/validation's generator) with the Vulkan build of
// llama.cpp that node-llama-cpp@3.21.1 ships (@node-llama-cpp/linux-x64-vulkan), at one -ngl,
// and prints llama.cpp's buffer lines for each context setting as JSON lines. Dev tool for
// issue 10's Vulkan measurements on Mesa's lavapipe; see README.md next to it.
// Usage: GGML_VK_VISIBLE_DEVICES=0 LD_PRELOAD="shim.so vk_limits_shim.so" \
//          node measure_vulkan.js NODE_MODULES MODEL.gguf NGL SETTINGS_JSON
'use strict';
const path = require('path');

const [, , nodeModules, modelPath, ngl, settingsJson] = process.argv;
let logText = '';
function logger(level, message) { logText += message.endsWith('\n') ? message : message + '\n'; }
const settle = (ms) => new Promise((r) => setTimeout(r, ms)); // log lines reach JS asynchronously
const pick = () => logText.split('\n').filter((l) => /buffer size|n_ctx {2}|flash_attn|n_ubatch|offload/.test(l));

async function main() {
  const { getLlama, LlamaLogLevel } = await import(require('url').pathToFileURL(path.join(nodeModules, 'node-llama-cpp', 'dist', 'index.js')).href);
  const llama = await getLlama({
    gpu: 'vulkan', build: 'never', usePrebuiltBinaries: true, skipDownload: true, progressLogs: false,
    logLevel: LlamaLogLevel.debug, logger, maxThreads: 1,
  });
  const b = llama._bindings;
  const model = new b.AddonModel(modelPath, { addonExports: b, gpuLayers: Number(ngl), useMmap: true });
  if (!(await model.init())) throw new Error(`llama.cpp could not load ${modelPath}`);
  await settle(200);
  console.log(JSON.stringify({ kind: 'model', ngl: Number(ngl), lines: pick() }));
  for (const s of JSON.parse(settingsJson)) {
    logText = '';
    const ctx = new b.AddonContext(model, { contextSize: s.ctx, batchSize: s.ub, sequences: 1, flashAttention: s.fa, threads: 1 });
    const ok = await ctx.init();
    await settle(300);
    console.log(JSON.stringify({ kind: 'context', setting: s, ok, lines: pick() }));
    await ctx.dispose();
  }
  await model.dispose();
}

main().then(() => process.exit(0), (e) => { console.error(String(e && e.stack ? e.stack : e)); process.exit(1); });
