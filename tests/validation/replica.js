// Sparse GGUF replicas of Llama-3.1-8B's layout (tensors/llama-3.1-8b.json, models.js) at smaller
// sizes: small enough that the programs that allocate what they load (ggml-rpc-server, a draft's
// second context) stay well under 1 GiB, with the real model's tensor names, shapes' structure and
// hyperparameter keys. The tensor data is never written (a sparse file).
'use strict';
const fs = require('fs');
const path = require('path');
const { MODELS } = require('./models.js');
const { writeGguf } = require('./gguf.js');

// d: { name, layers, embd, ff, heads, kvHeads }, head size 64 (embd / heads), vocab 32000.
function writeLlamaReplica(file, d) {
  const m = MODELS.find((x) => x.id === 'llama-3.1-8b');
  const headDim = d.embd / d.heads;
  const kv = { ...m.kv };
  kv['general.name'] = ['str', d.name];
  kv['llama.embedding_length'] = ['u32', d.embd];
  kv['llama.feed_forward_length'] = ['u32', d.ff];
  kv['llama.vocab_size'] = ['u32', 32000];
  kv['llama.block_count'] = ['u32', d.layers];
  kv['llama.attention.head_count'] = ['u32', d.heads];
  kv['llama.attention.head_count_kv'] = ['u32', d.kvHeads];
  kv['llama.rope.dimension_count'] = ['u32', headDim];
  // Each dimension of the 8B layout mapped to the replica's: 4096 hidden, 14336 FFN, 128256
  // vocab, 1024 = 8 KV heads x 128, 64 rope frequencies (head_dim / 2).
  const dims = { 4096: d.embd, 14336: d.ff, 128256: 32000, 1024: d.kvHeads * headDim, 64: headDim / 2 };
  const tensors = JSON.parse(fs.readFileSync(path.join(__dirname, 'tensors', 'llama-3.1-8b.json'), 'utf8'))
    .filter(([n]) => { const b = /^blk\.(\d+)\./.exec(n); return !b || Number(b[1]) < d.layers; })
    .map(([n, ne]) => [n, ne.map((x) => dims[x] ?? x)]);
  writeGguf(file, { kv }, tensors);
}

module.exports = { writeLlamaReplica };
