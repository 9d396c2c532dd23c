// What the drivers that run the real llama-server (and ggml-rpc-server) share: starting the
// programs with their logs in files, free ports, waiting for a load, and reading llama.cpp's
// buffer log lines per device. Used by rpc/rpc_validate.js and draft/draft_validate.js.
'use strict';
const fs = require('fs');
const net = require('net');
const path = require('path');
const { spawn } = require('child_process');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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

// The programs started, killed when the driver exits however it exits.
const children = [];
function start(binDir, prog, args, log, extraEnv = {}) {
  const out = fs.openSync(log, 'w');
  const env = { ...process.env, ...extraEnv, LD_LIBRARY_PATH: binDir };
  const c = spawn(path.join(binDir, prog), args, { env, stdio: ['ignore', out, out] });
  children.push(c);
  return c;
}
function stopAll() { for (const c of children) if (c.exitCode === null) c.kill('SIGKILL'); }
process.on('exit', stopAll);

// Starts ggml-rpc-server on each port and waits until each accepts connections. `extraEnv`, e.g.
// GGML_RPC_DEBUG=1 (ggml-rpc.cpp LOG_DBG), goes to the servers only.
async function startRpcServers(binDir, ports, workDir, extraEnv = {}) {
  ports.forEach((p, i) => start(binDir, 'ggml-rpc-server', ['-H', '127.0.0.1', '-p', String(p)], path.join(workDir, `rpc-server-${i}.log`), extraEnv));
  for (const p of ports) {
    let ok = false;
    for (let t = 0; t < 100 && !ok; ++t) { ok = await connects(p); if (!ok) await sleep(100); }
    if (!ok) throw new Error(`ggml-rpc-server on port ${p} did not start (see ${workDir})`);
  }
}

// llama-server with `args`, until it has loaded (or stopped): its whole log, the server killed.
// Bounded: 60 s of polling at most.
async function loadOnce(binDir, args, log) {
  const srv = start(binDir, 'llama-server', args, log);
  let text = '';
  for (let t = 0; t < 600; ++t) {
    text = fs.readFileSync(log, 'utf8');
    if (/model loaded|listening on/.test(text) || srv.exitCode !== null) break;
    await sleep(100);
  }
  srv.kill('SIGKILL');
  await new Promise((r) => (srv.exitCode !== null ? r() : srv.on('exit', r)));
  if (!/model loaded/.test(text)) throw new Error(`llama-server did not load (see ${log})`);
  return text;
}

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

const MiB = 1024 * 1024;

// One device's (or host RAM's) planned terms `p` (a plan JSON terms object) against what llama.cpp
// logged there `g` (parseBuffers), one row per term into `rows`. Weights, KV and the output
// buffer must match to the log's 0.01 MiB; compute is an estimate that must never be low (at
// least llama.cpp's figure less its 0.01 MiB rounding) and its overestimate is reported, except
// on a device holding the output layer and no block (weights, no KV), where llama-server reserves
// its logits for -np rows (server_output_limits), priced exactly: within the rounding both ways.
// The device's total (weights + KV + compute + output) must not be low either.
function compareDevice(setting, dev, p, g, rows) {
  let failures = 0;
  let low = 0;
  const outputOnly = dev !== 'host' && p.weights > 0 && p.kv_k + p.kv_v === 0;
  for (const term of ['weights', 'kv', 'output', 'compute']) {
    const planMiB = (term === 'kv' ? p.kv_k + p.kv_v : p[term]) / MiB;
    const gotMiB = g[term] || 0;
    const exact = term !== 'compute' || outputOnly;
    const ok = term !== 'compute' ? Math.abs(planMiB - gotMiB) <= 0.005 + 1e-9
      : outputOnly ? Math.abs(planMiB - gotMiB) <= 0.01 + 1e-9
        : planMiB >= gotMiB - 0.01 - 1e-9;
    if (!ok) (exact ? failures++ : low++);
    const pct = `${(((planMiB - gotMiB) / (gotMiB || 1)) * 100).toFixed(1)} %`;
    rows.push(`${setting} | ${dev} | ${term} | plan ${planMiB.toFixed(2)} MiB | llama.cpp ${gotMiB.toFixed(2)} MiB | ${exact ? (ok ? 'exact' : 'MISMATCH') : (ok ? pct : `LOW ${pct}`)}`);
  }
  const planTotal = (p.weights + p.kv_k + p.kv_v + p.compute + p.output) / MiB;
  const gotTotal = (g.weights || 0) + (g.kv || 0) + (g.compute || 0) + (g.output || 0);
  const totalOk = planTotal >= gotTotal - 0.01 - 1e-9;
  if (!totalOk) low++;
  rows.push(`${setting} | ${dev} | total | plan ${planTotal.toFixed(2)} MiB | llama.cpp ${gotTotal.toFixed(2)} MiB | ${totalOk ? '' : 'LOW '}${(((planTotal - gotTotal) / (gotTotal || 1)) * 100).toFixed(1)} %`);
  return { failures, low };
}

// The end of every check: the table of `rows` printed and written to WORK_DIR/`file`, the
// programs stopped, and the exit status: 1 when a figure that must be exact differs or one that
// must not be low is, with the counts; else `passed` is printed.
function finish(workDir, file, rows, failures, low, passed) {
  const table = ['setting | device | term | plan | llama.cpp | result', ...rows].join('\n');
  fs.writeFileSync(path.join(workDir, file), table + '\n');
  console.log(table);
  stopAll();
  if (failures || low) {
    console.error(`${failures} exact term(s) differ, ${low} compute or total figure(s) below llama.cpp's`);
    process.exit(1);
  }
  console.log(passed);
}

// The buffers a ggml-rpc-server started with GGML_RPC_DEBUG=1 allocated, in bytes and in order,
// from its log past `from` (a character offset): ggml-rpc.cpp rpc_server::alloc_buffer logs
// "[alloc_buffer] device: D, size: N -> remote_ptr: P, remote_size: N" for each.
function rpcAllocations(log, from) {
  const text = fs.readFileSync(log, 'utf8').slice(from);
  return [...text.matchAll(/\[alloc_buffer\] device: \d+, size: (\d+) -> remote_ptr/g)].map((m) => Number(m[1]));
}

module.exports = { rpcAllocations, finish, compareDevice, sleep, freePorts, freePort, start, stopAll, startRpcServers, loadOnce, parseBuffers };
