// Weight placement when a plan spills weights to host RAM (docs/sources.md, Hermes): which
// tensors an `-ot` (--override-tensor) rule pins to the CPU so the spill costs the least speed.
#pragma once

#include "model_shape.h"
#include "units.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom::policy {

// MoE: every routed-expert tensor to the host. Per token only n_expert_used experts are read, so
// host bandwidth carries a small share of the bytes; Hermes measured ~1.75× the decode speed of
// a plain layer cut at equal host bytes. Exactly the tensors of llama.cpp's --cpu-moe
// (v0.5.0 common/common.h LLM_FFN_EXPS_REGEX, "\\.ffn_(up|down|gate|gate_up)_(ch|)exps"): the
// fused gate_up banks, the chunked *_chexps banks (src/llama-arch.cpp LLM_TENSOR_FFN_*_CHEXPS)
// and, since -ot matches with regex_search, the experts' .bias tensors too. Not a knob.
inline constexpr const char* kMoeExpertsToCpuOverride =
    R"(\.ffn_(up|down|gate|gate_up)_(ch|)exps=CPU)";

// Recurrent blocks whose FFN weights move to the host to cover `spill_bytes`, ascending. FFN
// bytes of a block are its LayerShape::ffn_bytes + experts_bytes.
//  * all recurrent blocks when spill_bytes is nullopt (amount unknown) or when any recurrent
//    block's FFN bytes are 0 (unknown);
//  * otherwise the fewest lowest-index blocks whose FFN bytes reach spill_bytes (a block is added
//    only while the covered bytes are still short); all of them when even all fall short
//    (llama.cpp's own fit spills the rest). spill_bytes 0 → none.
// Full-attention (and sliding-window, MLA, MTP) blocks are never listed: their FFNs run next to
// the KV cache every token, a recurrent block's state is small.
std::vector<std::uint32_t> recurrentSpillBlocks(const ModelShape& model,
                                                std::optional<Bytes> spill_bytes);

// `blk\.(i1|i2|…)\.ffn_.*\.weight=CPU` for the given blocks; "" when the list is empty.
std::string hybridFfnOverride(const std::vector<std::uint32_t>& blocks);

struct SpillOverride {
    std::string override_tensor;                   // the -ot value ("" = none)
    std::vector<std::uint32_t> ffn_blocks_to_host; // hybrid only
};

// The -ot rule for a plan: none unless weights spill, never on unified memory (host and GPU are
// the same memory there; pinning measured far slower). MoE → kMoeExpertsToCpuOverride (checked
// first: a hybrid MoE moves its experts); hybrid (has recurrent blocks) → hybridFfnOverride of
// recurrentSpillBlocks; dense → none (llama.cpp's back-to-front layer cut, -ngl, is the only
// axis).
SpillOverride spillOverride(const ModelShape& model, bool weights_spill, bool uma,
                            std::optional<Bytes> spill_bytes);

} // namespace headroom::policy
