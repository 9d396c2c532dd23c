// Drives the draft-model validation (llama_server_run.sh draft): two sparse GGUF replicas of Llama-3.1-8B's layout
// that share one 32000-token SentencePiece vocabulary (a target and a smaller draft), `headroom-cli plan
// TARGET -md DRAFT --json`, then llama-server v0.5.0 launched with the plan's own arguments.
// llama-server logs the target's buffers, then "loading draft model", then the draft's
// (common_speculative_init_result); each part of the log is compared with the plan's terms for
// that model, per device.
// Usage: node draft_validate.js LLAMA_BIN_DIR HEADROOM_CLI WORK_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { writeLlamaReplica } = require('../replica.js');
const { finish, freePorts, freePort, stopAll, startRpcServers, loadOnce, parseBuffers, compareDevice } = require('../llama_server.js');

const [, , binDir, cli, workDir] = process.argv;

// What the plan says the target holds on a device: its terms less the draft's, which the plan
// books on the same device as one term of its own (Terms::draft).
function targetOnly(terms) {
  return { ...terms, total: terms.total - terms.draft, draft: 0 };
}

async function main() {
  fs.mkdirSync(workDir, { recursive: true });
  const target = path.join(workDir, 'llama-target-replica.gguf');
  const draft = path.join(workDir, 'llama-draft-replica.gguf');
  writeLlamaReplica(target, { name: 'Llama-target-replica', layers: 6, embd: 1024, ff: 2816, heads: 16, kvHeads: 4, vocab: true });
  writeLlamaReplica(draft, { name: 'Llama-draft-replica', layers: 2, embd: 512, ff: 1408, heads: 8, kvHeads: 2, vocab: true });
  const ports = await freePorts(2);
  const endpoints = ports.map((p) => `127.0.0.1:${p}`);
  await startRpcServers(binDir, ports, workDir);
  // Settings: CPU only (the case), with a longer context, two sequences and a q8_0 draft
  // cache; then over two RPC devices 3:1 with the whole draft offloaded, and with only one of
  // its three layers offloaded (-ngld 1), the rest in host memory.
  const cpu = ['--vram', '0', '--ram', '16GiB'];
  const rpc = [...cpu, '--rpc', endpoints.join(','), '-ngl', '99', '-ts', '3,1'];
  const settings = [
    [...cpu, '-c', '4096', '-np', '1'],
    [...cpu, '-c', '8192', '-np', '2', '-ctkd', 'q8_0', '-ctvd', 'q8_0'],
    [...cpu, '-c', '4096', '-np', '1', '--spec-draft-n-max', '8'],
    [...rpc, '-c', '4096', '-np', '1'],
    [...rpc, '-c', '4096', '-np', '1', '-ngld', '1'],
  ];
  let failures = 0;
  let low = 0;
  const rows = [];
  for (const s of settings) {
    const label = s.filter((w) => !w.startsWith('127.0.0.1')).join(' ');
    const plan = JSON.parse(execFileSync(cli, ['plan', target, '-md', draft, ...s, '--json'], { encoding: 'utf8' }));
    const argv = plan.launch.llama_server;
    const md = argv.indexOf('-md');
    if (md < 0 || argv[md + 1] !== draft || argv[argv.indexOf('--spec-type') + 1] !== 'draft-simple' || !argv.includes('-ngld'))
      throw new Error(`the plan's launch lacks -md ${draft} --spec-type draft-simple -ngld: ${argv.join(' ')}`);
    const rung = plan.rungs[plan.decision.rung_index];
    if (rung.verdict === 'refused' || !rung.draft) throw new Error(`the plan refuses ${label} or prices no draft`);
    const port = await freePort();
    const log = path.join(workDir, `llama-server-${rows.length}.log`);
    // -lm none (no mmap): each model's host weights are one allocation of exactly its tensors
    // (mapped, llama.cpp logs the file range they span). --no-warmup: the load is what is measured.
    const text = await loadOnce(binDir, ['-m', target, ...argv, '-lm', 'none', '--no-warmup', '--host', '127.0.0.1', '--port', String(port), '-lv', '4'], log);
    const at = text.indexOf('loading draft model');
    if (at < 0) throw new Error(`llama-server loaded no draft model (see ${log})`);
    const got = { target: parseBuffers(text.slice(0, at)), draft: parseBuffers(text.slice(at)) };
    const planned = { target: {}, draft: {} };
    rung.devices.forEach((d, i) => {
      planned.target[d.rpc_endpoint || 'host'] = targetOnly(d.terms);
      planned.draft[d.rpc_endpoint || 'host'] = rung.draft.devices[i];
    });
    planned.target.host = targetOnly(rung.host);
    planned.draft.host = rung.draft.host;
    for (const who of ['target', 'draft'])
      for (const dev of Object.keys(planned[who])) {
        const r = compareDevice(`${label} (${who})`, dev, planned[who][dev], got[who][dev] || {}, rows);
        failures += r.failures;
        low += r.low;
      }
  }
  finish(workDir, 'draft-accuracy.md', rows, failures, low, 'draft validation: the target\'s and the draft\'s weights, KV and output match llama.cpp on every device; no compute or total is low');
}

main().catch((e) => { console.error(`draft validation failed: ${e.message}`); stopAll(); process.exit(1); });
