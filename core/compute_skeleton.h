// Per-architecture skeletons of the graph llama.cpp reserves (llama_context::graph_reserve: one
// micro-batch of n_ubatch tokens, n_outputs of them outputs), replayed through ggml-alloc
// (compute_graph.h) to price the compute buffer exactly. Architectures without a skeleton keep the
// closed-form estimate in pricing.cpp.
//
// The skeletons follow llama.cpp v0.4.0 (the validation suite's engine, node-llama-cpp 3.21.1),
// checked node by node against the graphs it reserves (tests/validation/peak.cpp,
// HEADROOM_GRAPH_DUMP) and exact to the byte on every validated setting of: llama, mistral3,
// qwen2, qwen3, granite, command-r, cohere2, gemma2, gemma3, phi3, qwen3moe, olmoe, glm4moe,
// ernie4_5-moe, gpt-oss, llama4, deepseek2 (MLA), mamba2, granitehybrid, nemotron_h, falcon-h1,
// lfm2, jamba (Mamba-1), qwen3next (gated delta net) and gemma3n (AltUp, LAUREL, shared KV)
// (docs/accuracy.md). In v0.5.0 (de3ff815) the attention path reads the same
// (src/llama-graph.cpp build_attn: Q, V, K expanded in that order, llama_mul_mat_hadamard with a
// quantized cache) and build_rs gathers states the same way; the other builders were not
// re-profiled node by node on v0.5.0, but every family's replay equals the buffers the v0.5.0
// suite measured (docs/accuracy-v0.5.0.md). A skeleton holds every node llama.cpp's graph has,
// those outside the compute buffer too (the caches' views and permutes, set_rows, build_rs's
// reshape, in-place clear and copies into views): ggml-alloc ignores them, but
// ggml_vk_graph_optimize counts them in its windows, so the Vulkan replay needs them (equal node
// for node to the scheduler's graphs on the Vulkan grid, tests/validation/vulkan/alloc_replay.cpp).
#pragma once

#include "compute_graph.h"
#include "ggml_type.h"
#include "model_shape.h"
#include "units.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

struct ComputeGraphParams {
    std::uint32_t n_ubatch = 0;  // tokens in the reserved micro-batch
    std::uint32_t n_outputs = 0; // rows the graph computes logits for (<= n_ubatch)
    std::uint32_t n_kv = 0;      // cells per stream of a full-attention layer
    std::uint32_t n_kv_swa = 0;  // cells per stream of a sliding-window layer
    std::uint32_t n_seqs = 1;    // sequences in the micro-batch (n_seq_max unless kv_unified)
    bool flash_attn = true;
    // A quantized K / V cache: llama.cpp rotates Q and K (V and the attention output) by a
    // Hadamard matrix (llama_kv_cache ctor attn_rot_k / attn_rot_v, llama_mul_mat_hadamard).
    bool quantized_k = false;
    bool quantized_v = false;
    // The cache types: what a copy of a cache view to another backend takes.
    GgmlType type_k = GgmlType::F16;
    GgmlType type_v = GgmlType::F16;
    // An older build's mask (OlderBuildGraph::kq_mask_f32_cast): an F32 input, cast to F16 for
    // flash attention.
    bool kq_mask_f32_cast = false;
};

// True when `architecture` has a skeleton.
bool hasComputeSkeleton(const ModelShape& model);

// The CPU backend's compute buffer for the whole graph (every layer and the output on one
// backend), or nullopt when the architecture has no skeleton.
std::optional<Bytes> replayedCompute(const ModelShape& model, const ComputeGraphParams& params);

// The skeleton's nodes in graph order (graph::describeNodes), empty without a skeleton: for tests
// and for comparing with llama.cpp's own graph (tests/validation/peak.cpp HEADROOM_GRAPH_DUMP).
// Where ggml_backend_sched puts the graph (compute_graph.h SchedPlacement), one entry per block
// of `model.layers`; the compute buffer of each backend (the devices, then the CPU), or nullopt
// when the architecture has no skeleton.
std::optional<std::vector<graph::BackendCompute>>
scheduledCompute(const ModelShape& model, const ComputeGraphParams& params,
                 const graph::SchedPlacement& placement);

std::vector<std::string> skeletonNodes(const ModelShape& model, const ComputeGraphParams& params);

} // namespace headroom
