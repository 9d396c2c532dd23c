// Pricing: the bytes llama.cpp allocates for one model at one context with one set of options,
// per layer and per global term, before anything is placed on a device. Exact where llama.cpp is
// deterministic (weights, KV cache, recurrent state, output buffer), and for the whole-graph
// compute buffer of architectures with a graph skeleton (compute_skeleton.h); the other compute
// terms and runtime overhead are estimates and are labelled so.
#pragma once

#include "launch/llama_version.h"
#include "model_shape.h"
#include "options.h"
#include "units.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace headroom {

// Parts of one block's weights that the user's -ot patterns keep in host memory, found by
// matching each pattern against the block's tensor names (std::regex_search, as llama.cpp's
// llama_model_loader does with tensor_buft_overrides).
struct BlockMoves {
    std::uint8_t expert_parts = 0; // of the 3 routed-expert banks (ffn_up/gate/down_exps)
    std::uint8_t ffn_parts = 0;    // of the 3 dense or shared-expert FFN matrices
    bool attn = false;             // the attention / SSM projections and norms
    // What a -ot REGEX=CUDA0 (a named GPU's buffer type) moves to that device instead.
    struct ToDevice {
        std::int32_t device = 0; // index in the plan's devices
        std::uint8_t expert_parts = 0;
        std::uint8_t ffn_parts = 0;
        bool attn = false;
        bool operator==(const ToDevice&) const = default;
    };
    std::vector<ToDevice> to_devices;
    bool any() const { return expert_parts || ffn_parts || attn || !to_devices.empty(); }
    bool operator==(const BlockMoves&) const = default;
};

// Options after llama.cpp's own resolution (auto flash attention, MTP posture, clamps).
struct ResolvedOptions {
    Backend backend = Backend::Cpu;
    bool flash_attn = true;
    GgmlType type_k = GgmlType::F16;
    GgmlType type_v = GgmlType::F16;
    std::uint32_t n_batch = llama::kDefaultBatch;
    std::uint32_t n_ubatch = llama::kDefaultUbatch;
    std::uint32_t n_seq = 1;
    // Which program reserves the graph (PlanOptions::program) and the tokens its speculative
    // decoding drafts per step (0: none; --spec-draft-n-max of an MTP launch): together they
    // decide the output rows llama-server reserves (ContextGeometry::n_outputs).
    Program program = Program::LlamaServer;
    std::uint32_t n_draft = 0;
    bool backend_sampling = false; // -bs: the output buffer holds the backend sampler's rows
    // --no-op-offload off: the scheduler may run an op whose weight is in host memory on a device
    // (ggml_backend_sched_new's op_offload, llama_context_params::op_offload, default true).
    bool op_offload = true;
    // -nkvo off: caches with their layer's device (llama_context_params::offload_kqv).
    bool kv_offload = true;
    bool kv_unified = false;
    bool swa_full = false;
    bool mtp = false;
    // Recurrent-state snapshots per sequence for MTP rollback (llama_cparams::n_rs_seq, see
    // recurrentSnapshots in launch/llama_version.h): the state is priced (1 + n_rs_seq) times.
    std::uint32_t n_rs_seq = 0;
    // The build priced: decides the nextn layout of ModelShape::nextn_default_filter models.
    LlamaVersion llama_version = kDefaultLlamaVersion;
    // --llama-build before PR #23764 with flash attention: the F32 KQ mask and its F16 cast
    // (OlderBuildGraph::kq_mask_f32_cast).
    bool kq_mask_f32_cast = false;
    // -ngl N counts the output layer (the snapshots), or not
    // (OlderBuildGraph::ngl_excludes_output).
    bool ngl_counts_output = true;
    Bytes mmproj_bytes = 0;               // 0: no projector loaded
    bool voice = false;                   // KV spill restore budget: voice (200 ms) instead of text
    PinnedPlacement pinned;               // the user's placement flags (priced instead of searched)
    std::vector<BlockMoves> pinned_moves; // per block, what pinned.tensor_overrides move
    // From the hardware profile's calibration when it was verified with this backend (issue 10):
    // compute buffers scaled up by what the user's llama.cpp measured, and its runtime overhead.
    double device_compute_factor = 1.0;
    double host_compute_factor = 1.0;
    Bytes device_overhead_bytes = 0; // 0: the built-in estimate (runtimeOverhead)
    // -md: the draft model and its context's options as llama-server resolves them
    // (draftPlanOptions, core/planner/draft_model.cpp); null without a draft.
    std::shared_ptr<const ModelShape> draft_model;
    std::shared_ptr<const ResolvedOptions> draft;
};

// The context sizes llama.cpp derives from -c/-np/-kvu (llama_context constructor in
// src/llama-context.cpp): n_ctx padded to 256; without a unified cache each of the n_seq streams
// gets pad256(n_ctx / n_seq) cells and n_ctx becomes n_ctx_seq * n_seq.
struct ContextGeometry {
    std::uint32_t n_ctx = 0;     // what llama.cpp reports as n_ctx
    std::uint32_t n_ctx_seq = 0; // cells per stream of a full-attention layer
    std::uint32_t n_stream = 1;  // KV streams (1 when unified)
    std::uint32_t n_ubatch = 0;  // after clamping to n_batch and n_ctx
    std::uint32_t swa_cells = 0; // cells per stream of a sliding-window layer
    // Output rows of the reserved prompt graph: min(n_ubatch, n_outputs_max) (see Program).
    std::uint32_t n_outputs = 0;
};

ContextGeometry contextGeometry(const ModelShape& model, const ResolvedOptions& opt,
                                std::uint64_t requested_ctx);

struct LayerPrice {
    Bytes weights = 0;      // attention + dense/shared FFN + routed experts
    Bytes experts = 0;      // routed experts only
    Bytes ffn = 0;          // dense/shared FFN only (hybrid FFN placement moves these)
    Bytes ffn_matrices = 0; // of ffn, the three projections (what a -ot on them moves)
    Bytes kv_k = 0;
    Bytes kv_v = 0;
    Bytes state = 0;  // recurrent R + S
    bool mtp = false; // belongs to the MTP draft context
};

// The margin on the closed-form compute estimate of an architecture without a graph skeleton
// (pricing.cpp, priceContext): the estimate's worst error on the validated CPU settings was
// -17.67 % (docs/accuracy.md's settings priced by the closed form alone: Phi-3.5-mini, 4096
// context, flash attention), and a margin m keeps such an estimate above the buffer when
// (1 - 0.1767) (1 + m) >= 1, i.e. m >= 21.45 %; rounded up to a whole percent. With it the closed
// form alone prices every one of the 155 settings of both suites (v0.4.0 and v0.5.0) at or above
// the buffer (at least +0.45 %, at most +25.3 %).
inline constexpr std::uint32_t kComputeEstimateMarginPct = 22;

struct ContextPrice {
    ContextGeometry geometry;
    std::vector<LayerPrice> layers; // one per ModelShape layer
    Bytes token_embd = 0;           // always in host memory (llama.cpp's input layer is the CPU)
    Bytes output_weights = 0;       // with the output layer's device
    Bytes other_weights = 0;        // placed with the output layer, but for:
    Bytes first_block_weights = 0;  // the part of other_weights on block 0's device
    // Compute buffer estimate, split the way llama.cpp's scheduler splits it: the graph part that
    // follows the layers, the logits part that follows the output layer, and the host inputs.
    Bytes compute_inputs = 0; // ubatch embeddings + KQ mask, live for the whole graph
    Bytes compute_layer = 0;  // peak inside one layer, on every device that holds layers
    Bytes compute_logits = 0; // logits + final norm, on the device of the output layer
    // A device holding the output layer and no block: the final norm and the logits of the
    // output rows, over one copy of the hidden state the last block sends it (output_hidden).
    Bytes compute_output_only = 0;
    Bytes output_hidden = 0; // the hidden rows crossing into the output layer's device, f32
    Bytes compute_host = 0;  // host-side inputs (token embeddings rows, positions)
    Bytes compute_mtp = 0;   // the MTP draft context's graph
    // The whole graph on one backend, replayed through ggml-alloc (compute_skeleton.h); 0 for an
    // architecture without a skeleton. computeFor(true, true) takes it instead of the estimate.
    Bytes compute_graph = 0;
    // Percent added to the closed-form compute terms (compute_layer, compute_logits,
    // compute_output_only): kComputeEstimateMarginPct without a skeleton, else 0.
    std::uint32_t compute_margin_pct = 0;
    Bytes mtp_kv_k = 0; // the MTP draft context's own copy of the cache (unfiltered archs)
    Bytes mtp_kv_v = 0;
    Bytes output = 0; // host output buffer (logits rows)
    Bytes mmproj = 0;
    // Pipeline parallelism's inputs (see pipelineHostCompute / pipelineDeviceCompute).
    Bytes kq_masks = 0;                // the KQ masks, one copy: [n_kv, ub] per mask kind
    bool layer_peak_has_masks = false; // compute_layer already counts one copy of kq_masks
    Bytes hidden_row = 0;              // [n_embd, ub] f32: the hidden state crossing into a device
    Bytes token_rows = 0;              // inp_tokens: [ub] i32, read on the CPU by get_rows
    Bytes position_rows = 0;           // inp_pos: [ub x 4] i32 at most, read by every block's rope
    Bytes output_id_rows = 0;          // inp_out_ids: [ub] i32 at most, read by the last block
    Bytes embd_input_row = 0; // inp_embd: [n_embd_inp, ub] f32, an input leaf no node reads
    // The draft model's bytes (-md) per device and in host memory, priced and placed once per
    // rung (priceDraft) and booked by assign() as Terms::draft beside the target's own terms.
    std::vector<Bytes> draft_devices;
    Bytes draft_host = 0;

    // ggml-alloc reuses memory as the graph runs, so a device pays its inputs plus the larger of
    // its peaks, not their sum.
    Bytes computeFor(bool holds_layers, bool holds_output) const;
    // The closed-form estimate computeFor falls back to without a replayed graph.
    Bytes estimateFor(bool holds_layers, bool holds_output) const;
    // True when computeFor(holds_layers, holds_output) is the replayed whole graph, which already
    // counts the graph inputs that hostInputs adds to an estimate.
    bool replays(bool holds_layers, bool holds_output) const {
        return holds_layers && holds_output && compute_graph > 0;
    }
    // The graph inputs the CPU backend holds when devices run part of the graph, with `copies`
    // of each read input (kSchedMaxCopies under pipeline parallelism, else 1), beyond what
    // computeFor(holds_layers, holds_output) counts.
    Bytes hostInputs(Bytes copies, bool holds_layers, bool holds_output) const;
    // What pipeline parallelism adds to a device's computeFor: the scheduler's input copies.
    Bytes pipelineDeviceExtra(bool holds_layers, bool holds_output) const;
    // kq_masks when the peak computeFor picks already counts one copy of them, else 0.
    Bytes masksInPeak(bool holds_layers, bool holds_output) const;
    Bytes kvTotal() const;
    Bytes stateTotal() const;
};

// GGML_SCHED_MAX_COPIES (llama.cpp v0.5.0 ggml/src/ggml-backend.cpp, default 4): how many copies
// of each input the scheduler keeps when llama_context asks it for pipeline parallelism
// (ggml_backend_sched_new: n_copies = parallel ? GGML_SCHED_MAX_COPIES : 1).
inline constexpr Bytes kSchedMaxCopies = 4;

// Bytes of one layer's K and V cache and recurrent state at a geometry (exact; see the .cpp).
ContextPrice priceContext(const ModelShape& model, const ResolvedOptions& opt,
                          std::uint64_t requested_ctx);

// KV bytes per token of context (averaged over the window-capped layers at this geometry); used by
// the KV spill planner's pages.
Bytes kvBytesPerToken(const ContextPrice& price);

} // namespace headroom
