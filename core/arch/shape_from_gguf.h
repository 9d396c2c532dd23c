// Turning a GGUF header into the planner's ModelShape, the way llama.cpp would allocate it.
//
// The derivation mirrors three places of llama.cpp (tag v0.4.0, pinned in docs/sources.md; the
// architectures that first appear in v0.5.0 follow that snapshot, see docs/sources.md):
//   * src/llama-model.cpp  llama_model_base::load_hparams: the generic keys (block count, heads,
//     head dims, SWA head dims, per-layer arrays) every architecture reads;
//   * src/models/<arch>.cpp  llama_model_<arch>::load_arch_hparams: per-architecture defaults and
//     keys (SWA pattern and window, recurrent layers, MLA, shared-KV layers);
//   * src/llama-model.cpp  llama_model::create_memory and the llama_kv_cache /
//     llama_kv_cache_iswa / llama_memory_hybrid / llama_memory_recurrent constructors: which
//     layers get a K/V row, a window-sized row or a recurrent state, and which get nothing.
// Per-layer K/V widths are llama_hparams::n_embd_k_gqa(il) / n_embd_v_gqa(il) and recurrent
// state widths are n_embd_r() / n_embd_s() (src/llama-hparams.cpp).
//
// The input is a small view of a GGUF header (ShapeInput: metadata values + tensor infos) so the
// logic is testable without files; shapeFromGgufFile() opens a (possibly split) GGUF and adapts it.
// Integer keys are accepted in any integer width (llama.cpp insists on the converter's u32).
//
// What the pricing does with the per-layer fields (llama.cpp src/llama-kv-cache.cpp
// llama_kv_cache constructor, llama-kv-cache-iswa.cpp, llama-memory-recurrent.cpp):
//   * every layer with layerHasKv() and in_main_cache: K = row(type_k, n_embd_k_gqa) per cell;
//     V = row(type_v, n_embd_v_gqa) per cell, except without flash attention (V transposed)
//     when the widths differ between layers: then every V row is max(n_embd_v_gqa) wide;
//     no V at all for Mla. Per stream, Full layers hold n_ctx_seq cells and SlidingWindow layers
//     pad256(min(n_ctx_seq, n_swa x (kv_unified ? n_seq_max : 1) + n_ubatch)) (--swa-full:
//     n_ctx_seq); without --kv-unified there are n_seq_max streams of n_ctx / n_seq_max cells.
//   * a layer with n_embd_indexer_k (DSA: deepseek32, glm-dsa, hy_v4) adds a K-only row of that
//     width in type_k over the same cells (src/llama-kv-cache-dsa.cpp llama_kv_cache_dsa ctor).
//   * every layer with layerHasRecurrentState(): (recurrent_r + recurrent_s) x 4 bytes (f32)
//     per sequence row.
//   * is_mtp blocks: weights only with MTP on; KV in the main cache when in_main_cache, else
//     only in the MTP draft context.
// Checked against validate's measured llama.cpp caches (llama-3.1-8b, qwen3-30b-a3b,
// gemma-3-27b, gpt-oss-20b, qwen3-next-80b-a3b, deepseek-v2-lite): every K, V and state
// figure matched to the 0.01 MiB the log prints.
#pragma once

#include "gguf/gguf_value.h"
#include "model_shape.h"
#include "result.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace headroom {

// One tensor of the file: name, dims (ne0 first, as ggml orders them), type and data bytes.
struct GgufTensorDesc {
    std::string name;
    std::vector<std::uint64_t> dims;
    GgmlType type = GgmlType::F32;
    Bytes bytes = 0;
};

struct ShapeInput {
    std::string id; // file path (or a test label)
    std::map<std::string, GgufValue> meta;
    std::vector<GgufTensorDesc> tensors; // every part of a split model together
    Bytes file_bytes = 0;                // all parts on disk, headers included
};

// Derives the shape. Errors (ParseError) where llama.cpp itself would refuse the file: no
// general.architecture, a required key missing, a per-layer array of the wrong length, a key of
// the wrong type. An architecture this table does not know still yields a shape, priced as
// every layer full attention, with `conservative = true` and a note.
Result<ModelShape> shapeFromInput(const ShapeInput& input);

struct GgufModel;

// The adapter from the reader: metadata of part 1, tensors of every part found.
ShapeInput shapeInputFromGguf(const GgufModel& model);
// Refuses a multimodal projector (Unsupported); a split model with parts missing still gets a
// shape, with a note naming them (its tensor bytes cover the parts present only).
Result<ModelShape> shapeFromGguf(const GgufModel& model);

// Opens MODEL.gguf (the first part of a split model is enough: the others are found next to it)
// and derives the shape from its header. IoError / ParseError / Truncated from the reader.
Result<ModelShape> shapeFromGgufFile(const std::string& path);

// Architectures with exact, source-cited rules (GGUF general.architecture names).
const std::vector<std::string>& supportedArchitectures();
bool isSupportedArchitecture(const std::string& arch);

// general.file_type (llama.h enum llama_ftype) as llama.cpp's quantize tool names it:
// 15 -> "Q4_K_M", 38 -> "MXFP4_MOE". "" for ids it never had.
std::string fileTypeName(std::uint32_t ftype);

// How the pricing reads a layer: a layer may carry both a KV row and a recurrent state
// (Falcon-H1 runs attention and Mamba-2 side by side in every block: kind Full plus
// recurrent_r/recurrent_s). KV is charged when the kind is Full, SlidingWindow or Mla
// (n_embd_v_gqa is 0 for Mla: no V cache); recurrent state whenever recurrent_r + recurrent_s > 0.
bool layerHasKv(const LayerShape& layer);
bool layerHasRecurrentState(const LayerShape& layer);

// "0-4 swa, 5 full, 6-10 swa, …" for people: runs of equal kinds, MTP blocks marked.
std::string describeLayerRuns(const ModelShape& shape);

} // namespace headroom
