// One llama-architecture model written as GGUF headers at several quants (GgufWriter: the data
// section is a sparse hole, so a 2 GiB "file" costs a few KiB of disk). The sibling-quant tests
// of core, CLI and GUI share it so they price the same files.
#pragma once

#include "gguf/gguf_writer.h"

#include <cstdint>
#include <string>

namespace headroom::test {

// The model: 8 blocks, 4096 wide, 32 heads of 128, 8 KV heads (K and V rows 1024 wide), FFN
// 14336, vocabulary 32000, trained to 8192 tokens. Parameters: per block
// attn 2×4096² + 2×4096×1024 = 41,943,040 and ffn 3×4096×14336 = 176,160,768 (218,103,808);
// 8 blocks 1,744,830,464; token_embd and output 2×4096×32000 = 262,144,000; total ≈ 2.01 B.
// Every matrix is of `type`; norms are F32. general.file_type is `ftype` (llama.h llama_ftype:
// 7 Q8_0, 18 Q6_K, 2 Q4_0).
inline GgufWriter quantOfTestModel(GgmlType type, std::uint32_t ftype,
                                   const std::string& name = "Sibling Test 2B") {
    GgufWriter g;
    g.set("general.architecture", GgufValue::string("llama"));
    g.set("general.name", GgufValue::string(name));
    g.set("general.file_type", GgufValue::u32(ftype));
    g.set("llama.context_length", GgufValue::u32(8192));
    g.set("llama.embedding_length", GgufValue::u32(4096));
    g.set("llama.block_count", GgufValue::u32(8));
    g.set("llama.feed_forward_length", GgufValue::u32(14336));
    g.set("llama.attention.head_count", GgufValue::u32(32));
    g.set("llama.attention.head_count_kv", GgufValue::u32(8));
    g.set("llama.vocab_size", GgufValue::u32(32000));
    g.addTensor("token_embd.weight", {4096, 32000}, type);
    for (int b = 0; b < 8; ++b) {
        const std::string blk = "blk." + std::to_string(b) + ".";
        g.addTensor(blk + "attn_norm.weight", {4096}, GgmlType::F32);
        g.addTensor(blk + "attn_q.weight", {4096, 4096}, type);
        g.addTensor(blk + "attn_k.weight", {4096, 1024}, type);
        g.addTensor(blk + "attn_v.weight", {4096, 1024}, type);
        g.addTensor(blk + "attn_output.weight", {4096, 4096}, type);
        g.addTensor(blk + "ffn_norm.weight", {4096}, GgmlType::F32);
        g.addTensor(blk + "ffn_gate.weight", {4096, 14336}, type);
        g.addTensor(blk + "ffn_up.weight", {4096, 14336}, type);
        g.addTensor(blk + "ffn_down.weight", {14336, 4096}, type);
    }
    g.addTensor("output_norm.weight", {4096}, GgmlType::F32);
    g.addTensor("output.weight", {4096, 32000}, type);
    return g;
}

} // namespace headroom::test
