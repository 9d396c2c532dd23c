// ModelShape: what the planner needs to know about a model, per layer, independent of where it
// came from (a GGUF header or the built-in catalog). Every byte figure is what llama.cpp would
// load or allocate; element counts are per token and per sequence.
#pragma once

#include "ggml_type.h"
#include "units.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace headroom {

// How one block's attention keeps its history. Mirrors llama.cpp's layer predicates:
// llama_hparams::has_kv(il), is_swa(il), is_recurrent(il) and is_mla().
enum class AttentionKind {
    Full,          // KV cache grows with the whole context
    SlidingWindow, // KV cache holds the window (+ ubatch) only, unless --swa-full
    Mla,           // multi-head latent attention: one K-only latent row (kv_lora_rank + rope dims)
    Recurrent,     // SSM / linear attention: constant-size state per sequence, no KV cache
    None,          // no cache of its own (e.g. Gemma 3n layers that reuse another layer's KV)
};

const char* attentionKindName(AttentionKind kind);

struct LayerShape {
    AttentionKind attention = AttentionKind::Full;
    std::uint32_t n_head = 0;    // query heads (compute estimate only)
    std::uint32_t n_head_kv = 0; // KV heads (informational; the cache uses the two below)
    // Elements per token of this layer's K and V rows: llama_hparams::n_embd_k_gqa(il) and
    // n_embd_v_gqa(il). For MLA, k is kv_lora_rank + rope dims and there is no V cache.
    std::uint32_t n_embd_k_gqa = 0;
    std::uint32_t n_embd_v_gqa = 0;
    // Elements per token of this layer's sparse-attention indexer key (DeepSeek-V3.2 DSA,
    // GLM-5): llama_kv_cache_dsa (src/llama-kv-cache-dsa.cpp) keeps a second llama_kv_cache over
    // the layers its filter_lid accepts, with one key head of indexer_head_size and no V (the
    // model is MLA). Priced with type_k over the same cells as the layer's K. 0 = no indexer.
    std::uint32_t n_embd_indexer_k = 0;
    // The indexer cache's V row, type_v over the same cells: only where the model is not MLA
    // (MiniMax-M3's llama_kv_cache_msa, src/llama-kv-cache-msa.cpp: n_head_kv 1 and the model's
    // value head size, has_v = !is_mla). 0 = none.
    std::uint32_t n_embd_indexer_v = 0;
    // DeepSeek-V4 (llama_kv_cache_dsv4, src/llama-kv-cache-dsv4.cpp): besides its raw K row the
    // layer keeps its history compressed, one K row per compress_ratio tokens (4: CSA, 128: HCA)
    // of n_embd_comp_k elements, in a cache of pad256(max(1, ceil(n_ctx_seq / ratio))) cells per
    // stream; a CSA layer adds lightning-indexer keys (n_embd_comp_indexer_k) over the same
    // compressed cells. All in type_k, K only. 0 = none.
    std::uint32_t compress_ratio = 0;
    // V row elements of this nextn block in an MTP draft context whose cache is a plain one over
    // the model's own hparams while the main cache keeps K only (DeepSeek-V4: create_memory's
    // LLM_ARCH_DEEPSEEK4 branch, LLAMA_CONTEXT_TYPE_MTP, llama_kv_cache_iswa without
    // dsv4_make_k_only). 0 = the draft context caches the block as the main cache does.
    std::uint32_t n_embd_v_gqa_draft = 0;
    std::uint32_t n_embd_comp_k = 0;
    std::uint32_t n_embd_comp_indexer_k = 0;
    // The layer's caches keep one stream per sequence even with --kv-unified (llama_kv_cache_dsv4
    // builds its caches with unified = false whatever the context asks).
    bool stream_per_sequence = false;
    // Recurrent state elements per sequence: llama_hparams::n_embd_r() (conv/shift state) and
    // n_embd_s() (SSM/WKV state). Allocated in f32 by llama_memory_recurrent.
    std::uint64_t recurrent_r = 0;
    std::uint64_t recurrent_s = 0;
    // Weight bytes of this block, split the way placement moves them.
    Bytes attn_bytes = 0; // attention / SSM projections and norms
    Bytes ffn_bytes = 0;  // dense FFN, or the shared expert(s) of a MoE block
    // The part of ffn_bytes in the FFN's three projections (ffn_up / ffn_gate / ffn_down, or their
    // _shexp in a MoE block): what a -ot naming them moves, while ffn_norm, the router and biases
    // stay. 0 = not known (a catalog shape): taken as ffn_bytes.
    Bytes ffn_matrix_bytes = 0;
    Bytes experts_bytes = 0; // routed experts (ffn_*_exps) of this block, all experts together
    // The block's weights of two or more dimensions as the file stores them (ne[0] the input
    // width, ne[1] the output's, all experts of a routed one together), with their bytes: what a
    // copy of each to another backend takes (op offload). Empty for a catalog shape.
    // What -sm tensor does with a matrix (llama_meta_device_get_split_state): attention and dense
    // FFN projections and routed-expert banks are split over the devices, anything else (router,
    // shared experts, SSM tensors) is mirrored.
    enum class Split : std::uint8_t { Mirrored, Attention, Ffn, Experts };
    struct Matrix {
        std::uint64_t in = 0;
        std::uint64_t out = 0;
        Bytes bytes = 0;
        bool experts = false; // routed experts (experts_bytes)
        Split split = Split::Mirrored;
    };
    std::vector<Matrix> matrices;
    // ggml block sizes of attn_output's and ffn_down's (or ffn_down_exps's) types: -sm tensor
    // splits attention and FFN at granularities made from them (get_split_granularity). 0 = not
    // known (a catalog shape).
    std::uint32_t attn_output_block = 0;
    std::uint32_t ffn_down_block = 0;
    // The block's ssm_a (LLM_TENSOR_SSM_A, the weight ggml_ssm_scan reads), part of attn_bytes: a
    // backend that cannot run the block's scan keeps it in host memory (vulkan_pricing.cpp).
    Bytes ssm_a_bytes = 0;
    bool is_mtp = false; // a next-token-prediction block (nextn): cached but weights skipped
    // False for an MTP block whose KV llama.cpp leaves out of the main context's cache (the
    // hybrid Qwen3-Next family filters it; an MTP draft context allocates it when MTP is on).
    // True for every other block (GLM-4.5's main cache does cover its nextn block).
    bool in_main_cache = true;

    // llama_hparams' per-layer predicates, written once: has_kv(il), is_recurrent(il), is_swa(il)
    // and is_mla() (a model-wide flag in llama.cpp; per layer here because the shape is).
    bool hasKv() const {
        return attention == AttentionKind::Full || attention == AttentionKind::SlidingWindow ||
               attention == AttentionKind::Mla;
    }
    bool isRecurrent() const { return attention == AttentionKind::Recurrent; }
    bool isSwa() const { return attention == AttentionKind::SlidingWindow; }
    bool isMla() const { return attention == AttentionKind::Mla; }
};

// Mamba-2 style SSM dimensions (llama_hparams ssm_d_conv, ssm_d_inner, ssm_d_state, ssm_n_group,
// ssm_dt_rank): the compute-graph skeletons need them (compute_skeleton.h); 0 when unknown.
struct SsmShape {
    std::uint32_t d_conv = 0;
    std::uint32_t d_inner = 0;
    std::uint32_t d_state = 0;
    std::uint32_t n_group = 0;
    std::uint32_t dt_rank = 0; // SSM heads
    // ssm_a is [d_state, d_inner] (Mamba-1: a state per inner channel) rather than Mamba-2's
    // [1, n_head]; llama_model_loader's weight_buft_supported tells the two apart by its ne[0].
    bool mamba1_scan = false;
};

// DeepSeek-2 style MLA sizes (llama_hparams n_lora_q, n_lora_kv, n_embd_head_k/v, n_rot) for the
// compute-graph skeletons; 0 when unknown.
struct MlaShape {
    std::uint32_t q_lora = 0;  // 0: Q projected directly
    std::uint32_t kv_lora = 0; // the latent (cached) width
    std::uint32_t head_k = 0;  // per-head Q/K width: no-RoPE part + RoPE part
    std::uint32_t head_v = 0;  // per-head V width
    std::uint32_t rope = 0;    // RoPE part of a head
};

struct MoeShape {
    std::uint32_t n_expert = 0;        // routed experts per MoE layer
    std::uint32_t n_expert_used = 0;   // experts active per token
    std::uint32_t n_expert_shared = 0; // always-active shared experts
    // Experts with a gate bank (ffn_gate_exps); without one llama.cpp's build_moe_ffn applies the
    // activation to the up projection alone (the compute-graph skeletons need to know).
    bool gated_experts = true;
};

// Where the numbers came from, shown next to every figure (catalog prior vs file header).
enum class ShapeSource { Catalog, GgufHeader, Generated };
const char* shapeSourceName(ShapeSource source);

struct ModelShape;

// Another quant of the same model: a catalog quant ("catalog-id:QUANT") or a GGUF file in the
// same folder (its path), with its own shape so a remedy prices its real size.
struct QuantSibling {
    std::string quant; // "Q3_K_M"
    std::string ref;   // what --model / the file picker takes to switch to it
    Bytes file_bytes = 0;
    std::shared_ptr<const ModelShape> shape;
};

struct ModelShape {
    std::string id;           // catalog id or file path
    std::string name;         // display name
    std::string architecture; // GGUF general.architecture
    std::string quant;        // "Q4_K_M", "MXFP4", … ("" when unknown)
    ShapeSource source = ShapeSource::Catalog;
    bool conservative = false; // unknown architecture: priced as all-full attention, marked so

    std::uint64_t n_ctx_train = 0; // trained context; 0 = unknown
    // RoPE scaling the file itself declares (<arch>.rope.scaling.type / .factor /
    // .original_context_length, read by llama_model::load_hparams); "" when it declares none.
    std::string rope_scaling_type;
    double rope_scaling_factor = 0;
    std::uint64_t rope_orig_ctx = 0; // llama.cpp's n_ctx_orig_yarn (0: n_ctx_train)
    // A YaRN extension the model card documents (catalog "yarn"): up to yarn_factor × yarn_orig_ctx
    // tokens with --rope-scaling yarn --rope-scale F --yarn-orig-ctx N. 0 = none documented.
    double yarn_factor = 0;
    std::uint64_t yarn_orig_ctx = 0;
    std::string yarn_source;
    std::uint32_t n_vocab = 0;
    std::uint32_t n_embd = 0;
    std::uint32_t n_ff = 0;     // dense FFN width (compute estimate)
    std::uint32_t n_ff_exp = 0; // expert FFN width (compute estimate)
    // The shared experts' FFN width all together (ffn_up_shexp's rows; Granite 4.0-H's
    // expert_shared_feed_forward_length); 0: n_ff_exp x n_expert_shared.
    std::uint32_t n_ff_shexp = 0;
    std::uint32_t n_swa = 0;    // sliding window in tokens (0 = none)
    std::uint64_t n_params = 0; // total parameters (speed estimate); 0 = derive from bytes
    std::vector<LayerShape> layers;
    MoeShape moe;
    SsmShape ssm;
    MlaShape mla;

    // Tensors outside the repeating blocks.
    Bytes token_embd_bytes = 0; // token_embd: llama.cpp keeps it on the CPU (input layer)
    // Per-layer token embeddings (Gemma 3n / Gemma 4 per_layer_token_embd): an input-layer
    // tensor (src/llama-arch.cpp LLM_TENSOR_LAYER_INPUT), so on the CPU with token_embd, never
    // offloaded whatever -ngl says.
    Bytes per_layer_embd_bytes = 0;
    Bytes output_bytes = 0; // output head + final norm: on the GPU once every layer is
    // No output.weight in the file: llama.cpp loads token_embd a second time for the output layer
    // (TENSOR_DUPLICATED), counted in output_bytes; it reuses the one copy when both land on the
    // same buffer (CPU only).
    bool output_tied_to_embd = false;
    Bytes other_bytes = 0; // everything else (per-layer embeddings, rope factors, …)
    // The part of other_bytes llama.cpp creates with block 0's number although the name has none
    // (Gemma 3n's per_layer_model_proj and per_layer_proj_norm: LLM_TENSOR_LAYER_REPEATING,
    // created as tn(..., 0) in src/models/gemma3n.cpp), so loaded on block 0's buffer type
    // (src/llama-model.cpp create_tensor: dev_layer.at(tn.bid)), not the output layer's.
    Bytes first_block_bytes = 0;
    // The rope frequency factors every block's ROPE reads (rope_freqs.weight, or Phi-3's
    // rope_factors_long/short.weight), part of other_bytes; 0 when the file has none. One tensor
    // for all blocks (created with TENSOR_DUPLICATED past block 0, src/llama-model.cpp
    // load_tensors), so the scheduler copies it to a device once.
    Bytes rope_factors_bytes = 0;
    // All of them together (Phi-3 has both): llama_model_loader loads each once per buffer type
    // that holds a block.
    Bytes rope_factors_all_bytes = 0;
    Bytes mtp_head_bytes = 0;       // an external MTP head file, charged when MTP is on
    Bytes mmproj_bytes = 0;         // the multimodal projector file, charged when mmproj is on
    Bytes file_bytes = 0;           // all GGUF parts on disk (header included)
    std::uint32_t n_mtp_layers = 0; // nextn_predict_layers (blocks flagged is_mtp)
    // The MTP draft context caches the nextn blocks only (create_memory filters il >= n_layer()
    // there), even where the main cache holds them too (Ling 3, bailingmoe3: its hybrid main
    // cache keeps every non-recurrent layer). False: the draft context caches every layer again.
    bool mtp_draft_nextn_only = false;
    // The nextn layout above is that of create_memory's default branch (a non-hybrid,
    // non-recurrent architecture with nextn blocks): v0.5.0's, where the main cache leaves them
    // out. A llama.cpp build whose profile does not filter this architecture
    // (LlamaProfile::filtersNextn, e.g. v0.4.0 for glm4moe) keeps them in the main cache and
    // caches every layer again in the MTP draft context; pricing applies that per version.
    bool nextn_default_filter = false;
    // The sparse-attention lightning indexer as the file declares it (attention.indexer.head_count,
    // .key_length, .top_k; read by each DSA architecture's load_arch_hparams): shown by
    // `inspect`; the cache it adds is LayerShape::n_embd_indexer_k. 0 = no indexer.
    std::uint32_t indexer_n_head = 0;
    std::uint32_t indexer_head_size = 0;
    std::uint32_t indexer_top_k = 0;
    std::vector<std::string> notes;     // caveats to show with the plan ("estimated from …")
    std::vector<QuantSibling> siblings; // other quants of this model (smaller-quant remedy)

    bool isMoe() const { return moe.n_expert > 0; }
    bool hasRecurrent() const;
    bool hasSwa() const;
    bool mtpCapable() const { return n_mtp_layers > 0 || mtp_head_bytes > 0; }
    std::uint32_t nLayer() const { return static_cast<std::uint32_t>(layers.size()); }
    std::uint32_t nMoeLayers() const;
    // Weights llama.cpp loads: blocks (minus skipped MTP weights) + embeddings + output + other.
    Bytes weightBytes() const;
    Bytes blockBytes(std::uint32_t il) const;
    Bytes expertBytesTotal() const;
    // Bytes one routed expert of one layer costs (its row of every *_exps bank).
    Bytes bytesPerExpert() const;
};

} // namespace headroom
