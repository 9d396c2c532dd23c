// A catalog entry at one quant turned into the planner's ModelShape: the entry's dims and
// patterns give the layers (through the rules core/arch/layer_rules.h shares with the GGUF
// builder), the quant's file size gives the weights (split as catalog.h's header describes).
#pragma once

#include "arch/quant_types.h"
#include "catalog.h"
#include "model_shape.h"
#include "units.h"

#include <cstdint>
#include <vector>

namespace headroom {

// Builds the shape of one entry at one of its quants (no lookup by name).
ModelShape catalogShape(const CatalogEntry& entry, const CatalogQuant& quant);

// Bytes of a GGUF file that are header, not tensor data: the tokenizer vocabulary dominates
// (token strings, scores, types and BPE merges), plus tensor infos and alignment padding.
// kHeaderBytesPerVocabToken × n_vocab + kHeaderFixedBytes, never more than half the file.
// An estimate (no two tokenizers are alike); the weight split documents it.
inline constexpr Bytes kHeaderBytesPerVocabToken = 48; // ~token text + score + type + merge share
inline constexpr Bytes kHeaderFixedBytes = 1 * MiB;    // tensor infos, other metadata, padding
Bytes catalogHeaderEstimate(const CatalogEntry& entry, Bytes file_bytes);

// Parameter counts from the dims, used to split a file's bytes (see the top of catalog.h).
struct CatalogParamSplit {
    std::uint64_t token_embd = 0, output = 0;
    std::vector<std::uint64_t> attn, ffn, experts; // per layer
    // catalogTypedSplit only: per layer, the ggml block sizes of attn_output's and ffn_down's (or
    // ffn_down_exps's) types (LayerShape::attn_output_block, ffn_down_block); 0 = none.
    std::vector<std::uint32_t> attn_output_block, ffn_down_block;
};
CatalogParamSplit catalogParamSplit(const CatalogEntry& entry);

// The same parts in bytes, each tensor at the type llama-quantize gives it in a `ftype` file
// (arch/quant_types.h): what a file's size is split by when its quant is a standard mixture.
CatalogParamSplit catalogTypedSplit(const CatalogEntry& entry, FileType ftype);

} // namespace headroom
