// Sparse GGUF replicas of Llama-3.1-8B's layout (tensors/llama-3.1-8b.json, models.js) at smaller
// sizes: small enough that the programs that allocate what they load (ggml-rpc-server, a draft's
// second context) stay well under 1 GiB, with the real model's tensor names, shapes' structure and
// hyperparameter keys. The tensor data is never written (a sparse file).
'use strict';
const fs = require('fs');
const path = require('path');
const { MODELS } = require('./models.js');
const { writeGguf } = require('./gguf.js');

// A SentencePiece vocabulary of n tokens (tokenizer.ggml.model "llama", llama.cpp's
// LLAMA_VOCAB_TYPE_SPM): <unk>, <s>, </s>, the 256 byte tokens <0x00>..<0xFF> (the loader looks the
// newline up as <0x0A>), then distinct plain pieces. Speculative decoding needs a real vocabulary:
// common_speculative_are_compatible compares the two models' vocab types and token texts, and
// llama_vocab asserts a type other than none.
function spmVocab(n) {
  const tokens = ['<unk>', '<s>', '</s>'];
  const types = [2, 3, 3]; // llama_token_type: UNKNOWN, CONTROL, CONTROL
  for (let b = 0; b < 256; ++b) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(6); // BYTE
  }
  while (tokens.length < n) {
    tokens.push(`piece${tokens.length}`);
    types.push(1); // NORMAL
  }
  return {
    'tokenizer.ggml.model': ['str', 'llama'],
    'tokenizer.ggml.tokens': ['arr_str', tokens],
    'tokenizer.ggml.scores': ['arr_f32', tokens.map(() => 0)],
    'tokenizer.ggml.token_type': ['arr_i32', types],
  };
}

// d: { name, layers, embd, ff, heads, kvHeads, vocab }, head size 64 (embd / heads), 32000
// tokens; `vocab` true writes them as an SPM vocabulary (spmVocab), else none (no_vocab).
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
  if (d.vocab) Object.assign(kv, spmVocab(32000));
  // Each dimension of the 8B layout mapped to the replica's: 4096 hidden, 14336 FFN, 128256
  // vocab, 1024 = 8 KV heads x 128, 64 rope frequencies (head_dim / 2).
  const dims = { 4096: d.embd, 14336: d.ff, 128256: 32000, 1024: d.kvHeads * headDim, 64: headDim / 2 };
  const tensors = JSON.parse(fs.readFileSync(path.join(__dirname, 'tensors', 'llama-3.1-8b.json'), 'utf8'))
    .filter(([n]) => { const b = /^blk\.(\d+)\./.exec(n); return !b || Number(b[1]) < d.layers; })
    .map(([n, ne]) => [n, ne.map((x) => dims[x] ?? x)]);
  writeGguf(file, { kv }, tensors);
}

module.exports = { writeLlamaReplica };
