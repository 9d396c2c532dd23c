// Hyperparameters of one real model per family, written as the GGUF keys llama.cpp's converter
// (convert_hf_to_gguf.py) emits for it. Each entry cites the Hugging Face config it is read from.
// Values are [gguf type, value]; the same spec feeds enumerate.cpp (tensor layout) and gguf.js.
//
// `keep`: regexes naming the optional tensors (TENSOR_NOT_REQUIRED in llama.cpp's
// load_tensors) the real checkpoint ships; every other optional tensor is absent, so the loader
// takes the path a real file takes (e.g. separate attn_q/k/v rather than a fused attn_qkv).
'use strict';

const u32 = (v) => ['u32', v];
const f32 = (v) => ['f32', v];
const str = (v) => ['str', v];
const bool = (v) => ['bool', v];
const au32 = (v) => ['arr_u32', v];
const ai32 = (v) => ['arr_i32', v];

function recurrentLayers(n, interval) {
  const out = [];
  for (let i = 0; i < n; ++i) if ((i + 1) % interval !== 0) out.push(i);
  return out;
}

function base(arch, h) {
  const kv = {
    'general.architecture': str(arch),
    'general.name': str(h.name),
    'tokenizer.ggml.model': str('no_vocab'),
    [`${arch}.vocab_size`]: u32(h.vocab),
    [`${arch}.context_length`]: u32(h.ctx),
    [`${arch}.embedding_length`]: u32(h.embd),
    [`${arch}.block_count`]: u32(h.layers),
    [`${arch}.attention.head_count`]: Array.isArray(h.heads) ? au32(h.heads) : u32(h.heads),
  };
  if (h.ff !== undefined) kv[`${arch}.feed_forward_length`] = Array.isArray(h.ff) ? au32(h.ff) : u32(h.ff);
  if (h.kvHeads !== undefined)
    kv[`${arch}.attention.head_count_kv`] = Array.isArray(h.kvHeads) ? au32(h.kvHeads) : u32(h.kvHeads);
  if (h.rmsEps !== undefined) kv[`${arch}.attention.layer_norm_rms_epsilon`] = f32(h.rmsEps);
  if (h.normEps !== undefined) kv[`${arch}.attention.layer_norm_epsilon`] = f32(h.normEps);
  if (h.ropeBase !== undefined) kv[`${arch}.rope.freq_base`] = f32(h.ropeBase);
  if (h.keyLen !== undefined) kv[`${arch}.attention.key_length`] = u32(h.keyLen);
  if (h.valLen !== undefined) kv[`${arch}.attention.value_length`] = u32(h.valLen);
  if (h.ropeDim !== undefined) kv[`${arch}.rope.dimension_count`] = u32(h.ropeDim);
  for (const [k, v] of Object.entries(h.extra || {})) kv[k.startsWith('.') ? arch + k : k] = v;
  return kv;
}

const MODELS = [
  {
    id: 'llama-3.1-8b',
    // meta-llama/Llama-3.1-8B config.json: hidden 4096, intermediate 14336, 32 layers, 32 heads,
    // 8 KV heads, vocab 128256, rope_theta 500000, max_position_embeddings 131072,
    // rope_scaling llama3 (the converter writes rope_freqs.weight).
    kv: base('llama', {
      name: 'Llama-3.1-8B', vocab: 128256, ctx: 131072, embd: 4096, layers: 32, ff: 14336,
      heads: 32, kvHeads: 8, rmsEps: 1e-5, ropeBase: 500000, ropeDim: 128,
    }),
    keep: ['^output\\.weight$', '^rope_freqs\\.weight$'],
  },
  {
    id: 'qwen3-30b-a3b',
    // Qwen/Qwen3-30B-A3B config.json: hidden 2048, 48 layers, 32 heads, 4 KV heads, head_dim 128,
    // moe_intermediate_size 768, 128 experts, 8 active, vocab 151936, max_position 40960, rope_theta 1e6.
    kv: base('qwen3moe', {
      name: 'Qwen3-30B-A3B', vocab: 151936, ctx: 40960, embd: 2048, layers: 48, ff: 6144,
      heads: 32, kvHeads: 4, rmsEps: 1e-6, ropeBase: 1e6, keyLen: 128, valLen: 128,
      extra: { '.expert_feed_forward_length': u32(768), '.expert_count': u32(128), '.expert_used_count': u32(8) },
    }),
    keep: ['^output\\.weight$'],
  },
  {
    id: 'gemma-3-27b',
    // google/gemma-3-27b-it config.json (text_config): hidden 5376, intermediate 21504, 62 layers,
    // 32 heads, 16 KV heads, head_dim 128, vocab 262208, sliding_window 1024, sliding_window_pattern 6,
    // max_position 131072, rope_theta 1e6 (local 10000), rope_scaling linear factor 8. Tied embeddings.
    kv: base('gemma3', {
      name: 'Gemma-3-27B', vocab: 262208, ctx: 131072, embd: 5376, layers: 62, ff: 21504,
      heads: 32, kvHeads: 16, rmsEps: 1e-6, ropeBase: 1e6, keyLen: 128, valLen: 128,
      extra: { '.attention.sliding_window': u32(1024), '.rope.scaling.type': str('linear'), '.rope.scaling.factor': f32(8) },
    }),
    keep: [], // tied embeddings: no output.weight
  },
  {
    id: 'gpt-oss-20b',
    // openai/gpt-oss-20b config.json: hidden 2880, 24 layers, 64 heads, 8 KV heads, head_dim 64,
    // 32 experts, 4 active, intermediate 2880, vocab 201088, sliding_window 128 on alternating
    // layers, max_position 131072, rope_theta 150000, yarn factor 32 over 4096.
    kv: base('gpt-oss', {
      name: 'gpt-oss-20b', vocab: 201088, ctx: 131072, embd: 2880, layers: 24, ff: 2880,
      heads: 64, kvHeads: 8, rmsEps: 1e-5, ropeBase: 150000, keyLen: 64, valLen: 64,
      extra: {
        '.expert_feed_forward_length': u32(2880), '.expert_count': u32(32), '.expert_used_count': u32(4),
        '.attention.sliding_window': u32(128), '.rope.scaling.type': str('yarn'),
        '.rope.scaling.factor': f32(32), '.rope.scaling.original_context_length': u32(4096),
      },
    }),
    keep: ['^output\\.weight$'],
  },
  {
    id: 'qwen3-next-80b-a3b',
    // Qwen/Qwen3-Next-80B-A3B-Instruct config.json: hidden 2048, 48 layers, 16 heads, 2 KV heads,
    // head_dim 256, partial_rotary_factor 0.25 (rope dim 64), full_attention_interval 4,
    // linear_conv_kernel_dim 4, linear_key_head_dim 128, linear_num_key_heads 16,
    // linear_num_value_heads 32, linear_value_head_dim 128, 512 experts, 10 active,
    // moe_intermediate 512, shared_expert_intermediate 512, vocab 151936, max_position 262144.
    kv: base('qwen3next', {
      name: 'Qwen3-Next-80B-A3B', vocab: 151936, ctx: 262144, embd: 2048, layers: 48, ff: 5120,
      heads: 16, kvHeads: 2, rmsEps: 1e-6, ropeBase: 1e7, keyLen: 256, valLen: 256, ropeDim: 64,
      extra: {
        '.expert_feed_forward_length': u32(512), '.expert_shared_feed_forward_length': u32(512),
        '.expert_count': u32(512), '.expert_used_count': u32(10),
        '.ssm.conv_kernel': u32(4), '.ssm.state_size': u32(128), '.ssm.group_count': u32(16),
        '.ssm.time_step_rank': u32(32), '.ssm.inner_size': u32(4096), '.full_attention_interval': u32(4),
      },
    }),
    // Current converters split the linear-attention input projection into attn_qkv + attn_gate
    // (the fused ssm_in is the legacy layout); full-attention layers (every 4th) keep q/k/v.
    keep: ['^output\\.weight$', ...recurrentLayers(48, 4).map((i) => `^blk\\.${i}\\.attn_(qkv|gate)\\.weight$`)],
  },
  {
    id: 'deepseek-v2-lite',
    // deepseek-ai/DeepSeek-V2-Lite config.json: hidden 2048, 27 layers, 16 heads, q_lora_rank null,
    // kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128, 64 routed experts,
    // 6 active, 2 shared, moe_intermediate 1408, intermediate 10944, first_k_dense_replace 1,
    // vocab 102400, max_position 163840, yarn factor 40 over 4096.
    // The converter writes MLA as key_length = kv_lora_rank + rope = 576, value_length = 512.
    kv: base('deepseek2', {
      name: 'DeepSeek-V2-Lite', vocab: 102400, ctx: 163840, embd: 2048, layers: 27, ff: 10944,
      heads: 16, kvHeads: 1, rmsEps: 1e-6, ropeBase: 10000, keyLen: 576, valLen: 512, ropeDim: 64,
      extra: {
        '.attention.kv_lora_rank': u32(512), '.attention.key_length_mla': u32(192),
        '.attention.value_length_mla': u32(128), '.leading_dense_block_count': u32(1),
        '.expert_feed_forward_length': u32(1408), '.expert_count': u32(64), '.expert_used_count': u32(6),
        '.expert_shared_count': u32(2), '.expert_weights_scale': f32(1.0),
        '.rope.scaling.type': str('yarn'), '.rope.scaling.factor': f32(40),
        '.rope.scaling.original_context_length': u32(4096), '.rope.scaling.yarn_log_multiplier': f32(0.0707),
      },
    }),
    keep: ['^output\\.weight$'],
  },
];

module.exports = { MODELS, u32, f32, str, bool, au32, ai32, base };
