// The type llama-quantize gives each tensor of a standard file type (llama.cpp v0.5.0 (de3ff815)
// src/llama-quant.cpp llama_tensor_get_type, llama_tensor_get_type_impl and
// tensor_type_fallback; the same rules in v0.4.0): a Q4_K_M file keeps its output head at Q6_K,
// half of its attn_v and ffn_down at Q6_K and the rest at Q4_K; an MXFP4_MOE file keeps every
// tensor but the expert banks at Q8_0. The catalog prices a quant's weights tensor by tensor
// with these (shape_from_catalog.cpp), so a GPU's share of a file is the share of its bytes, not
// of its parameters.
#pragma once

#include "ggml_type.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace headroom {

// llama_ftype: the quantization mixtures llama-quantize writes (include/llama.h).
enum class FileType : std::uint8_t {
    F16,
    BF16,
    Q8_0,
    Q6_K,
    Q5_K_M,
    Q5_K_S,
    Q5_0,
    Q5_1,
    Q4_K_M,
    Q4_K_S,
    Q4_0,
    Q4_1,
    Q3_K_L,
    Q3_K_M,
    Q3_K_S,
    Q2_K,
    IQ4_XS,
    IQ4_NL,
    MXFP4_MOE,
};

// A quant's name as catalogs and file names spell it ("Q4_K_M", "MXFP4"); nullopt for dynamic
// or unknown mixtures (UD-Q4_K_XL, IQ2_M, ...), which keep the parameter-count split.
std::optional<FileType> fileTypeFromQuantName(std::string_view name);

// tensor_get_category: what a tensor is by its name.
enum class TensorRole : std::uint8_t {
    TokenEmbd,
    Output,
    AttnQ,
    AttnK,
    AttnV,
    AttnQkv,
    AttnKvB,
    AttnOutput,
    FfnUp,
    FfnGate,
    FfnDown,
    Other,
    Unquantized, // tensor_allows_quantization false: norms, biases, the expert router
};

struct QuantModel {
    std::uint32_t n_layer = 0;  // n_layer_all (qs.n_ffn_down)
    std::uint32_t n_expert = 0; // hparams.n_expert
    std::uint32_t n_gqa = 1;    // n_head / n_head_kv
    bool tied_embeddings = false;
    bool falcon = false; // LLM_ARCH_FALCON's own rules
};

struct QuantTensor {
    TensorRole role = TensorRole::Other;
    std::int64_t ne0 = 0;          // row length (ggml ne[0])
    bool expert_bank = false;      // ne[2] > 1: a routed-expert bank
    std::int32_t layer = 0;        // its block (ffn_down's i_layer)
    std::int32_t attn_v_index = 0; // its place among attn_v-like tensors (qs.i_attention_wv)
    std::int32_t n_attn_v = 0;     // how many there are (qs.n_attention_wv)
};

// The type `t` gets in a file of type `ftype`; `source` is the type a tensor keeps when it is not
// quantized (F32 for norms, biases and routers).
GgmlType quantizedType(FileType ftype, const QuantModel& model, const QuantTensor& t,
                       GgmlType source = GgmlType::F32);

} // namespace headroom
