// The per-layer rules both shape builders share, written once: which layers of a periodic
// pattern slide (or are recurrent), and what a layer's cache row or state is once its kind is
// known. shape_from_gguf.cpp reads the pattern and dims from a GGUF header, shape_from_catalog.cpp
// from a catalog entry; both end here, so a GGUF and the catalog entry of the same model get the
// same layers.
#pragma once

#include "model_shape.h"

#include <cstdint>

namespace headroom {

// llama_hparams::set_swa_pattern (src/llama-hparams.cpp): with a period of n layers, every
// layer of the trunk slides except the period's dense one, the last of each period (or, with
// dense_first, the first); n == 0 makes every layer slide. Recurrent layers given by an interval
// follow the same rule (llama_model_qwen3next::load_arch_hparams: layer il is recurrent unless
// (il + 1) % full_attention_interval == 0, i.e. unless it is the last of its period). Blocks past
// the trunk (MTP / nextn) are never in a pattern.
bool periodicPatternLayer(std::uint32_t il, std::uint32_t n_pattern, bool dense_first,
                          std::uint32_t n_trunk);

// What one layer caches, decided by the builder (llama_model::create_memory's filters and
// llama_hparams::has_kv / is_recr / is_swa / is_mla).
struct LayerMemory {
    bool kv = false;        // the layer has a K/V row in some cache
    bool recurrent = false; // the layer has a recurrent state
    bool mla = false;       // the row is MLA's latent (no V)
    bool swa = false;       // the row is a sliding window's
    std::uint32_t n_head_kv = 0;
    // This layer's head sizes: the SWA ones on a sliding layer (llama_hparams::n_embd_head_k(il)
    // picks n_embd_head_k_swa when is_swa(il)).
    std::uint32_t head_k = 0, head_v = 0;
    // llama_hparams::n_embd_r() / n_embd_s(): the state's conv/shift and SSM/WKV elements.
    std::uint64_t state_r = 0, state_s = 0;
};

// Sets the layer's kind (SWA before MLA before full, an MLA layer that slides having no V;
// recurrent when it has a state but no row;
// none without either) and its row widths (llama_hparams::n_embd_k_gqa(il) = head_k x n_head_kv,
// n_embd_v_gqa(il) likewise, 0 for MLA) and state. A layer with both (Falcon-H1) keeps its
// attention kind and gets the state too.
void setLayerMemory(LayerShape& layer, const LayerMemory& memory);

} // namespace headroom
