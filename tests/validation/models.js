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
  {
    id: 'qwen2.5-7b',
    // https://huggingface.co/Qwen/Qwen2.5-7B-Instruct/blob/main/config.json: hidden 3584,
    // intermediate 18944, 28 layers, 28 heads, 4 KV heads, vocab 152064, max_position 32768,
    // rope_theta 1e6, rms 1e-6, untied embeddings; q/k/v carry biases.
    kv: base('qwen2', {
      name: 'Qwen2.5-7B', vocab: 152064, ctx: 32768, embd: 3584, layers: 28, ff: 18944,
      heads: 28, kvHeads: 4, rmsEps: 1e-6, ropeBase: 1e6,
    }),
    keep: ['^output\\.weight$', '^blk\\.\\d+\\.attn_[qkv]\\.bias$'],
  },
  {
    id: 'qwen3-8b',
    // https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json: hidden 4096, intermediate 12288,
    // 36 layers, 32 heads, 8 KV heads, head_dim 128, vocab 151936, max_position 40960,
    // rope_theta 1e6, rms 1e-6, untied embeddings.
    kv: base('qwen3', {
      name: 'Qwen3-8B', vocab: 151936, ctx: 40960, embd: 4096, layers: 36, ff: 12288,
      heads: 32, kvHeads: 8, rmsEps: 1e-6, ropeBase: 1e6, keyLen: 128, valLen: 128,
    }),
    keep: ['^output\\.weight$'],
  },
  {
    id: 'phi-3.5-mini',
    // https://huggingface.co/microsoft/Phi-3.5-mini-instruct/blob/main/config.json: hidden 3072,
    // intermediate 8192, 32 layers, 32 heads, 32 KV heads, vocab 32064, max_position 131072,
    // original 4096, longrope (the converter writes rope_factors_long/short), rms 1e-5.
    kv: base('phi3', {
      name: 'Phi-3.5-mini', vocab: 32064, ctx: 131072, embd: 3072, layers: 32, ff: 8192,
      heads: 32, kvHeads: 32, rmsEps: 1e-5, ropeBase: 10000, ropeDim: 96,
      extra: { '.rope.scaling.original_context_length': u32(4096) },
    }),
    keep: ['^output\\.weight$', '^rope_factors_(long|short)\\.weight$', '^blk\\.\\d+\\.attn_qkv\\.weight$'],
  },
  {
    id: 'gemma-2-9b',
    // https://huggingface.co/google/gemma-2-9b/blob/main/config.json: hidden 3584, intermediate
    // 14336, 42 layers, 16 heads, 8 KV heads, head_dim 256, vocab 256000, sliding_window 4096 on
    // alternating layers, max_position 8192, attn softcap 50, final softcap 30, tied embeddings.
    kv: base('gemma2', {
      name: 'Gemma-2-9B', vocab: 256000, ctx: 8192, embd: 3584, layers: 42, ff: 14336,
      heads: 16, kvHeads: 8, rmsEps: 1e-6, ropeBase: 10000, keyLen: 256, valLen: 256,
      extra: {
        '.attention.sliding_window': u32(4096), '.attn_logit_softcapping': f32(50),
        '.final_logit_softcapping': f32(30),
      },
    }),
    keep: [],
  },
  {
    id: 'granite-3.1-8b',
    // https://huggingface.co/ibm-granite/granite-3.1-8b-instruct/blob/main/config.json: hidden 4096,
    // intermediate 12800, 40 layers, 32 heads, 8 KV heads, vocab 49155, max_position 131072,
    // rope_theta 1e7, rms 1e-5, embedding_multiplier 12, residual_multiplier 0.22,
    // attention_multiplier 0.0078125, logits_scaling 16, tied embeddings.
    kv: base('granite', {
      name: 'Granite-3.1-8B', vocab: 49155, ctx: 131072, embd: 4096, layers: 40, ff: 12800,
      heads: 32, kvHeads: 8, rmsEps: 1e-5, ropeBase: 1e7,
      extra: {
        '.logit_scale': f32(16), '.residual_scale': f32(0.22), '.embedding_scale': f32(12),
        '.attention.scale': f32(0.0078125),
      },
    }),
    keep: [],
  },
  {
    id: 'command-r7b',
    // https://huggingface.co/CohereForAI/c4ai-command-r7b-12-2024/blob/main/config.json: hidden 4096,
    // intermediate 14336, 32 layers, 32 heads, 8 KV heads, vocab 256000, sliding_window 4096 with
    // sliding_window_pattern 4 (every 4th layer global), max_position 8192, rope_theta 50000,
    // logit_scale 0.25, layer_norm_eps 1e-5, tied embeddings.
    kv: base('cohere2', {
      name: 'Command-R7B', vocab: 256000, ctx: 8192, embd: 4096, layers: 32, ff: 14336,
      heads: 32, kvHeads: 8, normEps: 1e-5, ropeBase: 50000,
      extra: { '.attention.sliding_window': u32(4096), '.logit_scale': f32(0.25) },
    }),
    keep: [],
  },
  {
    id: 'aya-23-8b',
    // https://huggingface.co/CohereForAI/aya-23-8B/blob/main/config.json (architecture
    // CohereForCausalLM = llama.cpp command-r): hidden 4096, intermediate 14336, 32 layers, 32 heads,
    // 8 KV heads, vocab 256000, max_position 8192, rope_theta 10000, logit_scale 0.0625,
    // layer_norm_eps 1e-5, tied embeddings.
    kv: base('command-r', {
      name: 'Aya-23-8B', vocab: 256000, ctx: 8192, embd: 4096, layers: 32, ff: 14336,
      heads: 32, kvHeads: 8, normEps: 1e-5, ropeBase: 10000,
      extra: { '.logit_scale': f32(0.0625) },
    }),
    keep: [],
  },
  {
    id: 'olmoe-1b-7b',
    // https://huggingface.co/allenai/OLMoE-1B-7B-0924/blob/main/config.json: hidden 2048,
    // intermediate 1024, 16 layers, 16 heads, 16 KV heads, 64 experts, 8 active, vocab 50304,
    // max_position 4096, rope_theta 10000, rms 1e-5, q/k norms, untied embeddings.
    kv: base('olmoe', {
      name: 'OLMoE-1B-7B', vocab: 50304, ctx: 4096, embd: 2048, layers: 16, ff: 1024,
      heads: 16, kvHeads: 16, rmsEps: 1e-5, ropeBase: 10000,
      extra: { '.expert_feed_forward_length': u32(1024), '.expert_count': u32(64), '.expert_used_count': u32(8) },
    }),
    keep: ['^output\\.weight$'],
  },
  {
    id: 'mistral-small-3.1-24b',
    // https://huggingface.co/mistralai/Mistral-Small-3.1-24B-Instruct-2503/blob/main/config.json
    // (text_config): hidden 5120, intermediate 32768, 40 layers, 32 heads, 8 KV heads, head_dim 128,
    // vocab 131072, max_position 131072, rope_theta 1e9, rms 1e-5, untied embeddings.
    kv: base('mistral3', {
      name: 'Mistral-Small-3.1-24B', vocab: 131072, ctx: 131072, embd: 5120, layers: 40, ff: 32768,
      heads: 32, kvHeads: 8, rmsEps: 1e-5, ropeBase: 1e9, keyLen: 128, valLen: 128, ropeDim: 128,
    }),
    keep: ['^output\\.weight$'],
  },
  {
    id: 'glm-4.5-air',
    // https://huggingface.co/zai-org/GLM-4.5-Air/blob/main/config.json: hidden 4096, intermediate
    // 10944, moe_intermediate 1408, 46 layers + 1 NextN (MTP) layer, 96 heads, 8 KV heads,
    // head_dim 128, partial_rotary_factor 0.5 (rope dim 64), 128 routed experts, 8 active,
    // 1 shared, first_k_dense_replace 1, vocab 151552, max_position 131072, rope_theta 1e6,
    // rms 1e-5, attention_bias true, sigmoid gating with e_score_correction_bias, untied.
    kv: base('glm4moe', {
      name: 'GLM-4.5-Air', vocab: 151552, ctx: 131072, embd: 4096, layers: 47, ff: 10944,
      heads: 96, kvHeads: 8, rmsEps: 1e-5, ropeBase: 1e6, keyLen: 128, valLen: 128, ropeDim: 64,
      extra: {
        '.expert_feed_forward_length': u32(1408), '.expert_count': u32(128), '.expert_used_count': u32(8),
        '.expert_shared_count': u32(1), '.leading_dense_block_count': u32(1), '.nextn_predict_layers': u32(1),
        '.expert_weights_scale': f32(1.0), '.expert_weights_norm': bool(true), '.expert_gating_func': u32(2),
      },
    }),
    // llama.cpp's loader marks every GLM-4.5 tensor optional when it cannot find blk.0 / the MTP
    // probe in the file (mtp_only / trunk_only), so the real checkpoint's tensors are listed here.
    keep: [
      '^output\\.weight$',
      '^blk\\.\\d+\\.(attn_norm|attn_[qkv]|attn_output|post_attention_norm|ffn_gate_inp|ffn_(gate|up|down)(_exps|_shexp)?)\\.weight$',
      '^blk\\.\\d+\\.(attn_[qkv]|exp_probs_b)\\.bias$',
      '^blk\\.46\\.nextn\\.(eh_proj|enorm|hnorm|embed_tokens|shared_head_head|shared_head_norm)\\.weight$',
    ],
  },
  {
    id: 'llama-4-scout',
    // https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct/blob/main/config.json
    // (text_config): hidden 5120, intermediate_size 8192 (experts), intermediate_size_mlp 16384,
    // 48 layers, 40 heads, 8 KV heads, head_dim 128, 16 experts, 1 active + 1 shared,
    // interleave_moe_layer_step 1, vocab 202048, rope_theta 500000, rms 1e-5, attention_chunk_size
    // 8192 (llama.cpp's default chunked window; the converter writes no sliding_window), untied.
    kv: base('llama4', {
      name: 'Llama-4-Scout-17B-16E', vocab: 202048, ctx: 10485760, embd: 5120, layers: 48, ff: 16384,
      heads: 40, kvHeads: 8, rmsEps: 1e-5, ropeBase: 500000, ropeDim: 128,
      extra: {
        '.expert_feed_forward_length': u32(8192), '.expert_count': u32(16), '.expert_used_count': u32(1),
        '.interleave_moe_layer_step': u32(1),
      },
    }),
    keep: ['^output\\.weight$'],
  },
  {
    id: 'ernie-4.5-21b-a3b',
    // https://huggingface.co/baidu/ERNIE-4.5-21B-A3B-PT/blob/main/config.json: hidden 2560,
    // intermediate 12288, 28 layers, 20 heads, 4 KV heads, vocab 103424, moe_num_experts 64,
    // moe_k 6, moe_intermediate_size 1536, moe_num_shared_experts 2 (the converter writes
    // expert_shared_feed_forward_length = 2 x 1536), moe_layer_start_index 1, interval 1,
    // max_position 131072, rope_theta 500000, rms 1e-5, tied embeddings.
    kv: base('ernie4_5-moe', {
      name: 'ERNIE-4.5-21B-A3B', vocab: 103424, ctx: 131072, embd: 2560, layers: 28, ff: 12288,
      heads: 20, kvHeads: 4, rmsEps: 1e-5, ropeBase: 500000,
      extra: {
        '.expert_feed_forward_length': u32(1536), '.expert_shared_feed_forward_length': u32(3072),
        '.expert_count': u32(64), '.expert_used_count': u32(6), '.interleave_moe_layer_step': u32(1),
        '.leading_dense_block_count': u32(1),
      },
    }),
    keep: [],
  },
  {
    id: 'mamba2-2.7b',
    // https://huggingface.co/state-spaces/mamba2-2.7b/blob/main/config.json: d_model 2560,
    // n_layer 64, vocab 50277 padded to a multiple of 16 (50288), d_state 128, d_conv 4, expand 2
    // (d_inner 5120), headdim 64 (80 heads = time_step_rank), ngroups 1, tied embeddings.
    kv: base('mamba2', {
      name: 'Mamba2-2.7B', vocab: 50288, ctx: 1048576, embd: 2560, layers: 64, ff: 0,
      heads: 0, kvHeads: 0, rmsEps: 1e-5,
      extra: {
        '.ssm.conv_kernel': u32(4), '.ssm.inner_size': u32(5120), '.ssm.state_size': u32(128),
        '.ssm.time_step_rank': u32(80), '.ssm.group_count': u32(1),
      },
    }),
    keep: [],
  },
  {
    id: 'lfm2-1.2b',
    // https://huggingface.co/LiquidAI/LFM2-1.2B/blob/main/config.json: hidden 2048, 16 layers,
    // full attention at layers 2, 5, 8, 10, 12, 14 (the rest short convolutions, conv_L_cache 3),
    // 32 heads, 8 KV heads, block_ff_dim 12288 auto-adjusted to 8192, vocab 65536,
    // max_position 128000, rope_theta 1e6, norm_eps 1e-5, tied embeddings.
    kv: base('lfm2', {
      name: 'LFM2-1.2B', vocab: 65536, ctx: 128000, embd: 2048, layers: 16, ff: 8192,
      heads: 32, kvHeads: [0, 0, 8, 0, 0, 8, 0, 0, 8, 0, 8, 0, 8, 0, 8, 0], rmsEps: 1e-5, ropeBase: 1e6,
      extra: { '.shortconv.l_cache': u32(3) },
    }),
    keep: [],
  },
  {
    id: 'jamba-v0.1',
    // https://huggingface.co/ai21labs/Jamba-v0.1/blob/main/config.json: hidden 4096, intermediate
    // 14336, 32 layers, attention every 8th layer from 4 (attn_layer_period 8, offset 4), MoE every
    // 2nd layer from 1 (16 experts, 2 active), 32 heads, 8 KV heads, mamba d_state 16, d_conv 4,
    // expand 2 (d_inner 8192), dt_rank 256, vocab 65536, max_position 262144, rms 1e-6, untied.
    kv: base('jamba', {
      name: 'Jamba-v0.1', vocab: 65536, ctx: 262144, embd: 4096, layers: 32, ff: 14336,
      heads: 32, kvHeads: Array.from({ length: 32 }, (_, i) => (i % 8 === 4 ? 8 : 0)), rmsEps: 1e-6,
      extra: {
        '.expert_count': u32(16), '.expert_used_count': u32(2),
        '.ssm.conv_kernel': u32(4), '.ssm.inner_size': u32(8192), '.ssm.state_size': u32(16),
        '.ssm.time_step_rank': u32(256),
      },
    }),
    keep: ['^output\\.weight$', '^blk\\.\\d*[13579]\\.ffn_gate_inp\\.weight$'],
  },
  {
    id: 'falcon-h1-0.5b',
    // https://huggingface.co/tiiuae/Falcon-H1-0.5B-Instruct/blob/main/config.json: hidden 1024,
    // 36 layers, each with attention (8 heads, 2 KV heads, head_dim 64) and Mamba-2 in parallel
    // (24 heads x 64 = d_ssm 1536, d_state 128, 1 group, d_conv 4, conv bias), intermediate 2048,
    // vocab 32784, max_position 16384, rope_theta 1e11, rms 1e-5, untied.
    kv: base('falcon-h1', {
      name: 'Falcon-H1-0.5B', vocab: 32784, ctx: 16384, embd: 1024, layers: 36, ff: 2048,
      heads: 8, kvHeads: 2, rmsEps: 1e-5, ropeBase: 1e11, keyLen: 64, valLen: 64,
      extra: {
        '.ssm.conv_kernel': u32(4), '.ssm.inner_size': u32(1536), '.ssm.state_size': u32(128),
        '.ssm.time_step_rank': u32(24), '.ssm.group_count': u32(1),
      },
    }),
    keep: ['^output\\.weight$', '^blk\\.\\d+\\.ssm_conv1d\\.bias$'],
  },
  {
    id: 'granite-4.0-h-tiny',
    // https://huggingface.co/ibm-granite/granite-4.0-h-tiny/blob/main/config.json: hidden 1536,
    // 40 layers, attention at 5, 15, 25, 35 (12 heads, 4 KV heads, no rope), Mamba-2 elsewhere
    // (48 heads x 64 = d_inner 3072, d_state 128, 1 group, d_conv 4), 64 experts of 512, 6 active,
    // shared expert 1024, vocab 100352, max_position 131072, tied embeddings.
    kv: base('granitehybrid', {
      name: 'Granite-4.0-H-Tiny', vocab: 100352, ctx: 131072, embd: 1536, layers: 40, ff: 512,
      heads: 12, kvHeads: Array.from({ length: 40 }, (_, i) => (i % 10 === 5 ? 4 : 0)), rmsEps: 1e-5,
      extra: {
        '.expert_count': u32(64), '.expert_used_count': u32(6), '.expert_shared_feed_forward_length': u32(1024),
        '.ssm.conv_kernel': u32(4), '.ssm.inner_size': u32(3072), '.ssm.state_size': u32(128),
        '.ssm.time_step_rank': u32(48), '.ssm.group_count': u32(1),
        '.logit_scale': f32(6), '.residual_scale': f32(0.22), '.embedding_scale': f32(12),
        '.attention.scale': f32(0.0078125), '.rope.scaling.finetuned': bool(false),
      },
    }),
    keep: ['^blk\\.\\d+\\.ffn_gate_exps\\.weight$', '^blk\\.\\d+\\.ssm_conv1d\\.bias$'],
  },
  {
    id: 'nemotron-nano-9b-v2',
    // https://huggingface.co/nvidia/NVIDIA-Nemotron-Nano-9B-v2/blob/main/config.json: hidden 4480,
    // 56 layers, hybrid_override_pattern below (27 Mamba-2, 25 MLP, 4 attention), 40 heads, 8 KV
    // heads, head_dim 128, intermediate 15680 (squared ReLU, no gate), mamba 128 heads x 80
    // (d_inner 10240), d_state 128, 8 groups, d_conv 4, vocab 131072, max_position 131072,
    // rms 1e-5, untied. The converter writes per-layer head_count_kv and feed_forward_length.
    kv: (() => {
      const pattern = 'M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-';
      return base('nemotron_h', {
        name: 'NVIDIA-Nemotron-Nano-9B-v2', vocab: 131072, ctx: 131072, embd: 4480, layers: 56,
        ff: [...pattern].map((c) => (c === '-' ? 15680 : 0)), heads: 40,
        kvHeads: [...pattern].map((c) => (c === '*' ? 8 : 0)), rmsEps: 1e-5, normEps: 1e-5, keyLen: 128, valLen: 128,
        extra: {
          '.ssm.conv_kernel': u32(4), '.ssm.inner_size': u32(10240), '.ssm.state_size': u32(128),
          '.ssm.time_step_rank': u32(128), '.ssm.group_count': u32(8),
        },
      });
    })(),
    keep: ['^output\\.weight$', '^blk\\.\\d+\\.ssm_conv1d\\.bias$'],
  },
  {
    id: 'gemma-3n-e2b',
    // https://huggingface.co/google/gemma-3n-E2B-it/blob/main/config.json (text_config): hidden
    // 2048, 30 layers, 8 heads, 2 KV heads, head_dim 256, intermediate 8192, vocab 262400,
    // sliding_window 512 with 4 sliding : 1 full layers, num_kv_shared_layers 10 (the last 10
    // layers reuse the KV of earlier ones), hidden_size_per_layer_input 256, altup 4 inputs,
    // laurel_rank 64, max_position 32768, rope_theta 1e6 (local 10000), rms 1e-6, tied embeddings.
    kv: base('gemma3n', {
      name: 'Gemma-3n-E2B', vocab: 262400, ctx: 32768, embd: 2048, layers: 30, ff: Array(30).fill(8192),
      heads: 8, kvHeads: 2, rmsEps: 1e-6, ropeBase: 1e6, keyLen: 256, valLen: 256,
      extra: {
        '.attention.sliding_window': u32(512), '.rope.freq_base_swa': f32(10000),
        '.embedding_length_per_layer_input': u32(256), '.altup.active_idx': u32(0),
        '.altup.num_inputs': u32(4), '.attention.shared_kv_layers': u32(10),
      },
    }),
    keep: [],
  },
];

module.exports = { MODELS, u32, f32, str, bool, au32, ai32, base };
