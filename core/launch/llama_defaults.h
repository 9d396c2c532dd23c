// llama.cpp's own defaults for the settings Headroom prices, named once. A launch leaves a flag
// out only when llama.cpp would use exactly this value without it; nothing else in core/ spells
// these numbers. Not knobs: they describe llama.cpp (docs/sources.md pins the commit).
#pragma once

#include "ggml_type.h"

#include <cstdint>

namespace headroom::llama {

// common/common.h `common_params`: int32_t n_batch = 2048 (-b, logical batch).
inline constexpr std::uint32_t kDefaultBatch = 2048;
// common/common.h `common_params`: int32_t n_ubatch = 512 (-ub, physical micro-batch).
inline constexpr std::uint32_t kDefaultUbatch = 512;
// common/common.h `common_params`: cache_type_k / cache_type_v = GGML_TYPE_F16 (-ctk, -ctv).
inline constexpr GgmlType kDefaultCacheType = GgmlType::F16;
// tools/server/server.cpp: llama-server without -np runs this many slots on one unified cache
// (n_parallel = -1 resolves to 4 and kv_unified to true), so a launch always pins -np.
inline constexpr std::uint32_t kServerAutoSlots = 4;
// src/llama-context.cpp llama_context::llama_context: each sequence's share of a split KV cache
// is padded to this many tokens (n_ctx_seq = GGML_PAD(n_ctx / n_seq, 256)).
inline constexpr std::uint32_t kSeqCtxPad = 256;
// common/arg.cpp --fit-target: the per-device margin fit keeps free, in MiB, when not given.
inline constexpr std::uint32_t kDefaultFitTargetMiB = 1024;
// common/common.h `common_params_speculative_draft`: int32_t n_max = 3 (--spec-draft-n-max, the
// tokens a draft model proposes per step).
inline constexpr std::uint32_t kDefaultDraftMax = 3;
// common/speculative.cpp SPEC_VOCAB_MAX_SIZE_DIFFERENCE: the most tokens a draft's vocabulary may
// differ from the target's by (common_speculative_are_compatible refuses the pair beyond it).
inline constexpr std::uint32_t kDraftVocabSizeMaxDiff = 128;

} // namespace headroom::llama
