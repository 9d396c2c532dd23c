// Hand-built model shapes for tests: small enough to derive every number in a comment.
#pragma once

#include "model_shape.h"

namespace headroom::test {

// The architecture the tests' hand-built MTP models declare: llama.cpp drafts with nextn blocks
// only where the architecture's graph has an MTP branch (LlamaProfile::mtp_graph_archs), and
// GLM-4.5's is one. Its compute skeleton is llama's plus Q/K/V biases (compute_skeleton.cpp).
inline constexpr const char* kMtpArchitecture = "glm4moe";

// A dense full-attention model: every block has `n_head_kv` KV heads of `head_dim`.
inline ModelShape denseShape(std::uint32_t n_layer, std::uint32_t n_head, std::uint32_t n_head_kv,
                             std::uint32_t head_dim, std::uint32_t n_vocab, Bytes block_bytes,
                             std::uint64_t n_ctx_train) {
    ModelShape m;
    m.id = "test-dense";
    m.name = "Test dense";
    m.architecture = "llama";
    m.n_ctx_train = n_ctx_train;
    m.n_vocab = n_vocab;
    m.n_embd = n_head * head_dim;
    m.n_ff = 4 * m.n_embd;
    for (std::uint32_t i = 0; i < n_layer; ++i) {
        LayerShape l;
        l.attention = AttentionKind::Full;
        l.n_head = n_head;
        l.n_head_kv = n_head_kv;
        l.n_embd_k_gqa = n_head_kv * head_dim;
        l.n_embd_v_gqa = n_head_kv * head_dim;
        l.attn_bytes = block_bytes / 4;
        l.ffn_bytes = block_bytes - block_bytes / 4;
        m.layers.push_back(l);
    }
    return m;
}

// Llama-3.1-8B's attention geometry (config.json: 32 layers, 32 heads, 8 KV heads, head_dim 128,
// vocab 128256, 131072 context) with round weight sizes: 200 MiB per block, 500 MiB embeddings,
// 500 MiB output.
inline ModelShape llama8bLike();

// llama8bLike with one nextn (MTP) block appended, of an architecture llama.cpp drafts with.
inline ModelShape llama8bMtpLike() {
    ModelShape m = llama8bLike();
    LayerShape mtp = m.layers.back();
    mtp.is_mtp = true;
    m.layers.push_back(mtp);
    m.n_mtp_layers = 1;
    m.architecture = kMtpArchitecture;
    return m;
}

inline ModelShape llama8bLike() {
    ModelShape m = denseShape(32, 32, 8, 128, 128256, 200 * MiB, 131072);
    m.id = "llama8b-like";
    m.token_embd_bytes = 500 * MiB;
    m.output_bytes = 500 * MiB;
    return m;
}

} // namespace headroom::test
