// Drives the RPC loopback validation (run.sh): a sparse GGUF replica, two ggml-rpc-server on
// 127.0.0.1, `headroom-cli plan --rpc … --json`, then llama-server launched with the plan's own
// arguments; llama.cpp's buffer log lines are compared with the plan per device.
// Usage: node rpc_validate.js LLAMA_BIN_DIR HEADROOM_CLI WORK_DIR
'use strict';
const fs = require('fs');
const net = require('net');
const path = require('path');
const { spawn, execFileSync } = require('child_process');
const { MODELS } = require('../models.js');
const { writeGguf } = require('../gguf.js');

const [, , binDir, cli, workDir] = process.argv;
const MiB = 1024 * 1024;

// The replica: Llama-3.1-8B's layout (tensors/llama-3.1-8b.json, models.js) scaled down so the two
// CPU rpc-servers hold it in well under 1 GiB (rpc-server allocates real memory for what it is
// sent): hidden 1024, FFN 2816, 16 heads of 64, 4 KV heads, vocab 32000, 6 blocks.
function writeReplica(file) {
  const m = MODELS.find((x) => x.id === 'llama-3.1-8b');
  const layers = 6;
  const kv = { ...m.kv };
  kv['general.name'] = ['str', 'Llama-RPC-replica'];
  kv['llama.embedding_length'] = ['u32', 1024];
  kv['llama.feed_forward_length'] = ['u32', 2816];
  kv['llama.vocab_size'] = ['u32', 32000];
  kv['llama.block_count'] = ['u32', layers];
  kv['llama.attention.head_count'] = ['u32', 16];
  kv['llama.attention.head_count_kv'] = ['u32', 4];
  kv['llama.rope.dimension_count'] = ['u32', 64];
  // Each dimension of the 8B layout mapped to the replica's: 4096 hidden, 14336 FFN, 128256
  // vocab, 1024 = 8 KV heads x 128, 64 rope frequencies (head_dim / 2).
  const dims = { 4096: 1024, 14336: 2816, 128256: 32000, 1024: 256, 64: 32 };
  const tensors = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'tensors', 'llama-3.1-8b.json'), 'utf8'))
    .filter(([n]) => { const b = /^blk\.(\d+)\./.exec(n); return !b || Number(b[1]) < layers; })
    .map(([n, ne]) => [n, ne.map((d) => dims[d] ?? d)]);
  writeGguf(file, { kv }, tensors);
}

// n distinct free ports: every listener stays open until all are bound, so the kernel cannot
// hand out the same ephemeral port twice (closing one before asking for the next can).
async function freePorts(n) {
  const servers = [];
  for (let i = 0; i < n; ++i) {
    servers.push(await new Promise((resolve, reject) => {
      const s = net.createServer();
      s.on('error', reject);
      s.listen(0, '127.0.0.1', () => resolve(s));
    }));
  }
  const ports = servers.map((s) => s.address().port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}
async function freePort() { return (await freePorts(1))[0]; }

function connects(port) {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    c.on('connect', () => { c.destroy(); resolve(true); });
    c.on('error', () => resolve(false));
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const children = [];
function start(prog, args, log) {
  const out = fs.openSync(log, 'w');
  const env = { ...process.env, LD_LIBRARY_PATH: binDir };
  const c = spawn(path.join(binDir, prog), args, { env, stdio: ['ignore', out, out] });
  children.push(c);
  return c;
}
function stopAll() { for (const c of children) if (c.exitCode === null) c.kill('SIGKILL'); }
process.on('exit', stopAll);

// "RPC0[127.0.0.1:P] model buffer size =    51.59 MiB": the RPC buffer type's name is
// RPC<index on its server>[endpoint] (ggml-rpc.cpp ggml_backend_rpc_buffer_type), so the endpoint
// names the host; CPU_Mapped / CPU are the main host's.
function parseBuffers(text) {
  const out = {};
  const re = /(load_tensors|llama_kv_cache|sched_reserve|llama_context):\s+(\S+?)\s+(model|KV|compute|output) buffer size =\s+([\d.]+) MiB/g;
  let m;
  while ((m = re.exec(text))) {
    const ep = /\[(.+)\]$/.exec(m[2]);
    const dev = ep ? ep[1] : 'host';
    const kind = { model: 'weights', KV: 'kv', compute: 'compute', output: 'output' }[m[3]];
    out[dev] = out[dev] || {};
    out[dev][kind] = (out[dev][kind] || 0) + Number(m[4]);
  }
  return out;
}

async function main() {
  fs.mkdirSync(workDir, { recursive: true });
  const gguf = path.join(workDir, 'llama-rpc-replica.gguf');
  writeReplica(gguf);
  const ports = await freePorts(2);
  const endpoints = ports.map((p) => `127.0.0.1:${p}`);
  ports.forEach((p, i) => start('ggml-rpc-server', ['-H', '127.0.0.1', '-p', String(p)], path.join(workDir, `rpc-server-${i}.log`)));
  for (const p of ports) {
    let ok = false;
    for (let t = 0; t < 100 && !ok; ++t) { ok = await connects(p); if (!ok) await sleep(100); }
    if (!ok) throw new Error(`ggml-rpc-server on port ${p} did not start (see ${workDir})`);
  }
  // Issue 15's own command against the two real servers: DeepSeek-V3 from the catalog, the
  // main host probed. Whatever this machine's memory makes of the fit, the text must show each
  // host with its devices and the rpc-server line for each (one per host).
  {
    const text = execFileSync(cli, ['plan', '--model', 'deepseek-v3', '--rpc', endpoints.join(','), '--probe'], { encoding: 'utf8' });
    for (const ep of endpoints) {
      if (!text.includes(`  rpc ${ep}`)) throw new Error(`plan --model deepseek-v3: no per-host block for ${ep}:\n${text}`);
      const lines = text.split('\n').filter((l) => l.startsWith(`On ${ep}`) && l.includes('rpc-server'));
      if (lines.length !== 1) throw new Error(`plan --model deepseek-v3: ${lines.length} rpc-server lines for ${ep}:\n${text}`);
    }
    if (!/Per host and device at/.test(text)) throw new Error(`plan --model deepseek-v3: no per-host table:\n${text}`);
    fs.writeFileSync(path.join(workDir, 'deepseek-v3-plan.txt'), text);
    console.log(`plan --model deepseek-v3 --rpc ${endpoints.join(',')} --probe: per-host table and one rpc-server line per host`);
  }
  // Settings: every layer over the two hosts 3:1 (pipeline parallelism on: two RPC devices, full
  // offload), again with a doubled mask (-c 8192), two sequences and a halved ubatch, and a partial
  // offload (-ngl 4 of 7 with the output) split 1:2 at a longer context, so some layers stay on
  // the main host's CPU (pipeline parallelism off).
  const settings = [
    ['-c', '4096', '-np', '1', '-ngl', '99', '-ts', '3,1'],
    ['-c', '8192', '-np', '1', '-ngl', '99', '-ts', '3,1'],
    ['-c', '4096', '-np', '2', '-ngl', '99', '-ts', '3,1'],
    ['-c', '4096', '-np', '1', '-ub', '256', '-ngl', '99', '-ts', '3,1'],
    ['-c', '8192', '-np', '1', '-ngl', '4', '-ts', '1,2'],
    // Backend sampling (-bs): the output buffer holds the sampler's rows beside the logits.
    ['-c', '4096', '-np', '1', '-ngl', '99', '-ts', '3,1', '-bs'],
  ];
  let failures = 0;
  let low = 0;
  const rows = [];
  for (const s of settings) {
    const planText = execFileSync(cli, ['plan', gguf, '--vram', '0', '--ram', '16GiB', '--rpc', endpoints.join(','), ...s, '--json'], { encoding: 'utf8' });
    const plan = JSON.parse(planText);
    const argv = plan.launch.llama_server;
    const rpcAt = argv.indexOf('--rpc');
    if (rpcAt < 0 || argv[rpcAt + 1] !== endpoints.join(',') || !argv.includes('-ts'))
      throw new Error(`the plan's launch lacks --rpc ${endpoints.join(',')} or -ts: ${argv.join(' ')}`);
    if (plan.launch.rpc_servers.length !== 2 || plan.launch.rpc_servers[0].argv.join(' ') !== `ggml-rpc-server -H 127.0.0.1 -p ${ports[0]} -c`)
      throw new Error(`rpc-server launches: ${JSON.stringify(plan.launch.rpc_servers)}`);
    const rung = plan.rungs[plan.decision.rung_index];
    const port = await freePort();
    const log = path.join(workDir, `llama-server-${s.join('_')}.log`);
    // -lm none (no mmap): the main host's weights are then one allocation of exactly its tensors; mapped,
    // llama.cpp logs the file range they span (llama_model_loader::get_mapping_range), which takes
    // in the output layer lying between them in the file even when a device holds it.
    const srv = start('llama-server', ['-m', gguf, ...argv, '-lm', 'none', '--host', '127.0.0.1', '--port', String(port), '-lv', '4'], log);
    let text = '';
    for (let t = 0; t < 600; ++t) {
      text = fs.readFileSync(log, 'utf8');
      if (/model loaded|listening on/.test(text) || srv.exitCode !== null) break;
      await sleep(100);
    }
    srv.kill('SIGKILL');
    await new Promise((r) => (srv.exitCode !== null ? r() : srv.on('exit', r)));
    if (!/model loaded/.test(text)) throw new Error(`llama-server did not load the replica (see ${log})`);
    const got = parseBuffers(text);
    // The plan's devices are in llama.cpp's order (RPC first); each names its endpoint.
    const planned = {};
    if (rung.verdict === 'refused') throw new Error(`the plan refuses ${s.join(' ')}`);
    for (const d of rung.devices) planned[d.rpc_endpoint || 'host'] = d.terms;
    planned.host = rung.host;
    for (const dev of Object.keys(planned)) {
      const p = planned[dev];
      const g = got[dev] || {};
      // A device holding the output layer and no block (weights, no KV): llama-server reserves
      // its logits for -np rows (server_output_limits), which the plan prices exactly; a plan
      // back at a whole ubatch of rows (66.5 MiB more here) fails.
      const outputOnly = dev !== 'host' && p.weights > 0 && p.kv_k + p.kv_v === 0;
      for (const term of ['weights', 'kv', 'output', 'compute']) {
        const planMiB = (term === 'kv' ? p.kv_k + p.kv_v : p[term]) / MiB;
        const gotMiB = g[term] || 0;
        // Weights, KV and the output buffer: exact to the log's 0.01 MiB. Compute: an estimate
        // that must never be low (the plan at least llama.cpp's figure less its 0.01 MiB
        // rounding); its overestimate is reported (docs/accuracy-rpc.md), except on an
        // output-only device, where it must be within the rounding both ways.
        const exact = term !== 'compute' || outputOnly;
        const ok = term !== 'compute' ? Math.abs(planMiB - gotMiB) <= 0.005 + 1e-9
          : outputOnly ? Math.abs(planMiB - gotMiB) <= 0.01 + 1e-9
            : planMiB >= gotMiB - 0.01 - 1e-9;
        if (!ok) (exact ? failures++ : low++);
        const pct = `${(((planMiB - gotMiB) / (gotMiB || 1)) * 100).toFixed(1)} %`;
        rows.push(`${s.join(' ')} | ${dev} | ${term} | plan ${planMiB.toFixed(2)} MiB | llama.cpp ${gotMiB.toFixed(2)} MiB | ${exact ? (ok ? 'exact' : 'MISMATCH') : (ok ? pct : `LOW ${pct}`)}`);
      }
      // The device's total (weights + KV + compute + output), never low either.
      const planTotal = (p.weights + p.kv_k + p.kv_v + p.compute + p.output) / MiB;
      const gotTotal = (g.weights || 0) + (g.kv || 0) + (g.compute || 0) + (g.output || 0);
      const totalOk = planTotal >= gotTotal - 0.01 - 1e-9;
      if (!totalOk) low++;
      rows.push(`${s.join(' ')} | ${dev} | total | plan ${planTotal.toFixed(2)} MiB | llama.cpp ${gotTotal.toFixed(2)} MiB | ${totalOk ? '' : 'LOW '}${(((planTotal - gotTotal) / (gotTotal || 1)) * 100).toFixed(1)} %`);
    }
  }
  const md = ['setting | device | term | plan | llama.cpp | result', ...rows].join('\n');
  fs.writeFileSync(path.join(workDir, 'rpc-accuracy.md'), md + '\n');
  console.log(md);
  stopAll();
  if (failures || low) {
    console.error(`${failures} exact term(s) differ, ${low} compute or total figure(s) below llama.cpp's`);
    process.exit(1);
  }
  console.log('rpc validation: weights and KV match llama.cpp on every device; no compute or total is low');
}

main().catch((e) => { console.error(`rpc validation failed: ${e.message}`); stopAll(); process.exit(1); });
