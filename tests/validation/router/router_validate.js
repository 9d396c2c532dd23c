// Drives the router validation (llama_server_run.sh router): two sparse GGUF replicas planned together
// (`headroom-cli plan A B --json`, planModelSet) and exported as a router preset (`export --to
// router`); llama-server v0.5.0 in router mode (--models-preset, --models-max as the export says)
// then loads both (POST /models/load), each in a child server whose log the router forwards
// prefixed with the child's port. Each child's buffers are compared with its member's plan, and
// the two together with the set's host figure.
// Usage: node router_validate.js LLAMA_BIN_DIR HEADROOM_CLI WORK_DIR
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const { execFileSync } = require('child_process');
const { writeLlamaReplica } = require('../replica.js');
const { finish, sleep, freePort, start, stopAll, parseBuffers, compareDevice } = require('../llama_server.js');

const [, , binDir, cli, workDir] = process.argv;
const MiB = 1024 * 1024;

function post(port, route, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: route, method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => {
      let data = '';
      res.on('data', (c) => { data += c; });
      res.on('end', () => resolve({ status: res.statusCode, data }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

// The preset's sections: name -> the GGUF its `model` key loads; and the --models-max its `; run:`
// comment gives.
function readPreset(text) {
  const sections = {};
  let current = null;
  for (const line of text.split('\n')) {
    const s = /^\[(.+)\]$/.exec(line.trim());
    if (s) { current = s[1]; sections[current] = null; continue; }
    const m = /^model = (.+)$/.exec(line.trim());
    if (m && current) sections[current] = m[1];
  }
  const max = /--models-max (\d+)/.exec(text);
  return { sections, modelsMax: max ? Number(max[1]) : 0 };
}

// The router's log split by child: "[port] line" is what the child on `port` wrote.
function childLog(text, port) {
  const prefix = `[${String(port).padStart(5)}] `;
  return text.split('\n').filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length)).join('\n');
}

async function runSetting(flags, rows) {
  const models = [path.join(workDir, 'alpha.gguf'), path.join(workDir, 'beta.gguf')];
  const set = JSON.parse(execFileSync(cli, ['plan', ...models, ...flags, '--json'], { encoding: 'utf8' }));
  if (!set.fits) throw new Error(`the set does not fit with ${flags.join(' ')}: ${set.blocked_why}`);
  const preset = path.join(workDir, 'preset.ini');
  execFileSync(cli, ['export', '--to', 'router', ...models, ...flags, '-o', preset, '--force'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const { sections, modelsMax } = readPreset(fs.readFileSync(preset, 'utf8'));
  if (modelsMax !== 2) throw new Error(`the export says --models-max ${modelsMax} for two models that fit together`);
  // Verbosity 4 only, so that each child logs its buffers (a log setting, no memory).
  const logged = path.join(workDir, 'preset-lv4.ini');
  fs.writeFileSync(logged, fs.readFileSync(preset, 'utf8').replace(/^(\[.+\])$/gm, '$1\nlv = 4'));
  const port = await freePort();
  const log = path.join(workDir, `router-${rows.length}.log`);
  const router = start(binDir, 'llama-server', ['--models-preset', logged, '--models-max', String(modelsMax), '--host', '127.0.0.1', '--port', String(port)], log);
  let text = '';
  for (let t = 0; t < 100 && !/listening on/.test(text); ++t) { await sleep(100); text = fs.readFileSync(log, 'utf8'); }
  if (!/listening on/.test(text)) throw new Error(`the router did not start (see ${log})`);
  for (const name of Object.keys(sections)) {
    const r = await post(port, '/models/load', { model: name });
    if (r.status !== 200) throw new Error(`POST /models/load ${name}: ${r.status} ${r.data}`);
  }
  // Each child: "spawning server instance with name=N on port P", then "[P] … model loaded".
  const ports = {};
  for (let t = 0; t < 600; ++t) {
    text = fs.readFileSync(log, 'utf8');
    for (const m of text.matchAll(/spawning server instance with name=(\S+) on port (\d+)/g)) ports[m[1]] = Number(m[2]);
    const loaded = Object.keys(sections).every((n) => ports[n] && /model loaded/.test(childLog(text, ports[n])));
    if (loaded || router.exitCode !== null) break;
    await sleep(100);
  }
  router.kill('SIGKILL');
  await new Promise((r) => (router.exitCode !== null ? r() : router.on('exit', r)));
  let failures = 0;
  let low = 0;
  let measured = 0;
  const label = flags.filter((w) => !['--vram', '0', '--ram', '16GiB'].includes(w)).join(' ');
  for (const [name, file] of Object.entries(sections)) {
    const child = childLog(text, ports[name]);
    if (!/model loaded/.test(child)) throw new Error(`the router's child for ${name} did not load (see ${log})`);
    const plan = set.plans.find((p) => p.model.id === file);
    if (!plan) throw new Error(`no plan in the set for ${file}`);
    const rung = plan.rungs[plan.decision.rung_index];
    const got = parseBuffers(child).host || {};
    const r = compareDevice(`${label} (${name})`, 'host', rung.host, got, rows);
    failures += r.failures;
    low += r.low;
    measured += (got.weights || 0) + (got.kv || 0) + (got.compute || 0) + (got.output || 0);
  }
  // The set's host figure holds both children: never below what they allocated together.
  const setMiB = set.host.bytes / MiB;
  const ok = setMiB >= measured - 0.02 - 1e-9;
  if (!ok) low++;
  rows.push(`${label} (the set) | host | total | plan ${setMiB.toFixed(2)} MiB | llama.cpp ${measured.toFixed(2)} MiB | ${ok ? '' : 'LOW '}${(((setMiB - measured) / (measured || 1)) * 100).toFixed(1)} %`);
  return { failures, low };
}

async function main() {
  fs.mkdirSync(workDir, { recursive: true });
  writeLlamaReplica(path.join(workDir, 'alpha.gguf'), { name: 'Alpha', layers: 6, embd: 1024, ff: 2816, heads: 16, kvHeads: 4 });
  writeLlamaReplica(path.join(workDir, 'beta.gguf'), { name: 'Beta', layers: 2, embd: 512, ff: 1408, heads: 8, kvHeads: 2 });
  // -lm none (no mmap): each child's weights are one allocation of exactly its tensors.
  const settings = [
    ['--vram', '0', '--ram', '16GiB', '-c', '4096', '-np', '1', '--load-mode', 'none'],
    ['--vram', '0', '--ram', '16GiB', '-c', '8192', '-np', '2', '-ctk', 'q8_0', '-ctv', 'q8_0', '--load-mode', 'none'],
  ];
  const rows = [];
  let failures = 0;
  let low = 0;
  for (const s of settings) {
    const r = await runSetting(s, rows);
    failures += r.failures;
    low += r.low;
  }
  finish(workDir, 'router-accuracy.md', rows, failures, low, 'router validation: both models loaded together by the router use the weights, KV and output the set\'s plans say; no compute or total is low');
}

main().catch((e) => { console.error(`router validation failed: ${e.message}`); stopAll(); process.exit(1); });
