// Drives the RPC loopback validation (llama_server_run.sh rpc): a sparse GGUF replica, two ggml-rpc-server on
// 127.0.0.1, `headroom-cli plan --rpc … --json`, then llama-server launched with the plan's own
// arguments; llama.cpp's buffer log lines are compared with the plan per device.
// Usage: node rpc_validate.js LLAMA_BIN_DIR HEADROOM_CLI WORK_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { writeLlamaReplica } = require('../replica.js');
const { finish, freePorts, freePort, stopAll, startRpcServers, loadOnce, parseBuffers, compareDevice, rpcAllocations } = require('../llama_server.js');

const [, , binDir, cli, workDir] = process.argv;

// The replica: Llama-3.1-8B's layout (tensors/llama-3.1-8b.json, models.js) scaled down so the two
// CPU rpc-servers hold it in well under 1 GiB (rpc-server allocates real memory for what it is
// sent): hidden 1024, FFN 2816, 16 heads of 64, 4 KV heads, vocab 32000, 6 blocks.
const writeReplica = (file) => writeLlamaReplica(file, { name: 'Llama-RPC-replica', layers: 6, embd: 1024, ff: 2816, heads: 16, kvHeads: 4 });

async function main() {
  fs.mkdirSync(workDir, { recursive: true });
  const gguf = path.join(workDir, 'llama-rpc-replica.gguf');
  writeReplica(gguf);
  const ports = await freePorts(2);
  const endpoints = ports.map((p) => `127.0.0.1:${p}`);
  // GGML_RPC_DEBUG=1: each server logs every buffer it allocates, the only per-device figure
  // under -sm tensor (below).
  await startRpcServers(binDir, ports, workDir, { GGML_RPC_DEBUG: '1' });
  const rpcLogs = ports.map((_, i) => path.join(workDir, `rpc-server-${i}.log`));
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
    const text = await loadOnce(binDir, ['-m', gguf, ...argv, '-lm', 'none', '--host', '127.0.0.1', '--port', String(port), '-lv', '4'], log);
    const got = parseBuffers(text);
    // The plan's devices are in llama.cpp's order (RPC first); each names its endpoint.
    const planned = {};
    if (rung.verdict === 'refused') throw new Error(`the plan refuses ${s.join(' ')}`);
    for (const d of rung.devices) planned[d.rpc_endpoint || 'host'] = d.terms;
    planned.host = rung.host;
    for (const dev of Object.keys(planned)) {
      const r = compareDevice(s.join(' '), dev, planned[dev], got[dev] || {}, rows);
      failures += r.failures;
      low += r.low;
    }
  }
  // -sm tensor (v0.5.0's tensor parallelism, docs/llama-cpp/split-mode-tensor.md): the two servers
  // form one Meta device, and llama.cpp logs only its largest device's figure ("Meta() model
  // buffer size"). Each server's own allocations are the truth per device: the weights, then the
  // KV cache, then the compute buffer (the whole graph's, on every device), then the all-reduce
  // scratch allocated at the first graph (warm-up). Weights and KV must match to the byte, and
  // the compute buffer too at full offload (else it must not be low); each scratch buffer must fit
  // the plan's runtime overhead.
  // Host RAM is compared from llama.cpp's CPU lines as above. Equal split, 3:1, and a partial
  // offload (-ngl 4 of 7: three blocks on the CPU).
  const tensorSettings = [
    ['-c', '4096', '-np', '1', '-ngl', '99', '-sm', 'tensor'],
    ['-c', '8192', '-np', '1', '-ngl', '99', '-sm', 'tensor', '-ts', '3,1'],
    ['-c', '4096', '-np', '1', '-ngl', '4', '-sm', 'tensor', '-ts', '1,2'],
  ];
  for (const s of tensorSettings) {
    const setting = s.join(' ');
    const plan = JSON.parse(execFileSync(cli, ['plan', gguf, '--vram', '0', '--ram', '16GiB', '--rpc', endpoints.join(','), ...s, '--json'], { encoding: 'utf8' }));
    const argv = plan.launch.llama_server;
    if (argv[argv.indexOf('-sm') + 1] !== 'tensor') throw new Error(`the plan's launch lacks -sm tensor: ${argv.join(' ')}`);
    const rung = plan.rungs[plan.decision.rung_index];
    if (rung.verdict === 'refused') throw new Error(`the plan refuses ${setting}`);
    const from = rpcLogs.map((f) => fs.readFileSync(f, 'utf8').length);
    const port = await freePort();
    const log = path.join(workDir, `llama-server-${s.join('_')}.log`);
    const text = await loadOnce(binDir, ['-m', gguf, ...argv, '-lm', 'none', '--host', '127.0.0.1', '--port', String(port), '-lv', '4'], log);
    const host = parseBuffers(text.split('\n').filter((l) => !l.includes('Meta()')).join('\n')).host || {};
    const r = compareDevice(setting, 'host', rung.host, host, rows);
    failures += r.failures;
    low += r.low;
    rung.devices.forEach((d, i) => {
      const at = endpoints.indexOf(d.rpc_endpoint);
      if (at < 0) throw new Error(`${setting}: the plan's device ${d.name} names no server`);
      const a = rpcAllocations(rpcLogs[at], from[at]);
      if (a.length < 3) throw new Error(`${setting}: ${d.rpc_endpoint} allocated ${a.length} buffers (see ${rpcLogs[at]})`);
      const t = d.terms;
      const exact = [['weights', t.weights, a[0]], ['kv', t.kv_k + t.kv_v, a[1]]];
      for (const [term, plan_b, got_b] of exact) {
        const ok = plan_b === got_b;
        if (!ok) failures++;
        rows.push(`${setting} | ${d.rpc_endpoint} | ${term} | plan ${plan_b} B | rpc-server ${got_b} B | ${ok ? 'exact' : 'MISMATCH'}`);
      }
      // At full offload the device's compute is priced to the byte (the whole graph less the two
      // inputs the CPU keeps); with blocks on the CPU it is a bound that must not be low.
      const full = s[s.indexOf('-ngl') + 1] === '99';
      const okCompute = full ? t.compute === a[2] : t.compute >= a[2];
      if (!okCompute) (full ? failures++ : low++);
      rows.push(`${setting} | ${d.rpc_endpoint} | compute | plan ${t.compute} B | rpc-server ${a[2]} B | ${full ? (okCompute ? 'exact' : 'MISMATCH') : `${okCompute ? '' : 'LOW '}${(((t.compute - a[2]) / a[2]) * 100).toFixed(1)} %`}`);
      const scratch = Math.max(0, ...a.slice(3));
      const okScratch = t.overhead >= scratch;
      if (!okScratch) low++;
      rows.push(`${setting} | ${d.rpc_endpoint} | all-reduce scratch | plan ${t.overhead} B runtime | rpc-server at most ${scratch} B | ${okScratch ? 'within' : 'LOW'}`);
    });
  }
  finish(workDir, 'rpc-accuracy.md', rows, failures, low, 'rpc validation: weights and KV match llama.cpp on every device (under -sm tensor to the byte, from the servers\' own allocations); no compute or total is low');
}

main().catch((e) => { console.error(`rpc validation failed: ${e.message}`); stopAll(); process.exit(1); });
