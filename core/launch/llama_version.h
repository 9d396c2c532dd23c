// Which llama.cpp build a plan is for. The launch line Headroom writes must run on the user's
// llama.cpp, and a few behaviours that change a plan moved between releases; each difference is
// a field of LlamaProfile with the source it was read from. Both releases are read from the
// squashed source node-llama-cpp ships (llama/gitRelease.bundle):
//   v0.4.0: node-llama-cpp 3.21.1, snapshot 80fb11ac (2026-09-12)
//   v0.5.0: node-llama-cpp 3.22.1, snapshot de3ff815 (2026-09-28)
// tests/fixtures/llama-server-help/<version>.txt is each build's `llama-server --help`, and
// tests/core/test_llama_version.cpp checks every flag an exporter writes against it.
#pragma once

#include "result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

enum class LlamaVersion { V0_4_0, V0_5_0 };

// The build a plan targets when the user names none: the newest one Headroom has read.
inline constexpr LlamaVersion kDefaultLlamaVersion = LlamaVersion::V0_5_0;

const char* llamaVersionName(LlamaVersion v); // "v0.5.0"
// "v0.5.0", "0.5.0", "v0.4.0", "0.4.0"; an error lists the accepted names.
Result<LlamaVersion> parseLlamaVersion(std::string_view text);
std::vector<LlamaVersion> allLlamaVersions();

// --load-mode MODE (common/arg.cpp, both versions): how llama.cpp reads the weights.
enum class LoadMode { Auto, None, Mmap, Mlock, MmapMlock, DirectIo };
const char* loadModeName(LoadMode m); // llama.cpp's spelling: auto, none, mmap, mlock, …
Result<LoadMode> parseLoadMode(std::string_view text);

struct LlamaProfile {
    LlamaVersion version;
    const char* node_llama_cpp; // the npm release that bundles it
    const char* snapshot;       // the squashed commit in its gitRelease.bundle

    // common/arg.cpp: v0.4.0 still parses --mlock, --mmap/--no-mmap and -dio/--direct-io,
    // -ndio/--no-direct-io (each "DEPRECATED in favor of `--load-mode`"); v0.5.0 removed them,
    // and an unknown flag stops llama-server at start-up. Headroom writes --load-mode for both.
    std::vector<std::string> removed_flags;

    // common/fit.cpp common_params_fit_impl, context left unset (-c 0 / no -c): fit resolves it to
    // the trained context times this many sequences before measuring. v0.4.0: n_streams (1 with
    // --kv-unified, else n_seq_max); v0.5.0: n_seq_max even with a unified cache.
    bool fit_unset_ctx_counts_every_sequence;

    // tools/server/server.cpp (main, both versions): -np defaults to -1 ("auto", common/arg.cpp
    // `params.n_parallel = -1; // auto by default` for LLAMA_EXAMPLE_SERVER), which resolves to
    // 4 slots on one unified KV cache. Headroom always writes -np, so this only explains a line
    // written by hand.
    std::uint32_t server_auto_slots;
    bool server_auto_kv_unified;

    // common/common.h common_params: fit_params = true, fit_params_target = 1024 MiB per
    // device (-fitt), fit_params_min_ctx = 4096 (-fitc). Equal in both versions.
    std::uint32_t fit_target_mib;
    std::uint32_t fit_min_ctx;

    // src/llama-model.cpp llama_model::create_memory, default branch (a non-hybrid,
    // non-recurrent architecture): whether the main cache leaves the nextn (MTP) blocks out
    // (filter il < n_layer()) and the MTP draft context caches them alone (il >= n_layer()).
    // v0.5.0 (de3ff815) filters every such architecture with n_layer_nextn > 0, a trunk and no
    // router layer; v0.4.0 (80fb11ac) filtered only step35, hy_v3, glm-dsa, mimo2 and
    // deepseek32, so the others' main cache held the nextn blocks and their MTP context, with
    // no filter, cached every layer again.
    bool nextn_filtered_everywhere;
    std::vector<std::string> nextn_filtered_archs; // used when !nextn_filtered_everywhere

    // src/llama-arch.cpp llm_arch_supports_rs_rollback: the architectures whose recurrent state
    // keeps n_rs_seq snapshots per sequence for a partial rollback (llama_context ctor clamps
    // n_rs_seq to 0 for the rest). common/common.h common_params_speculative::need_n_rs_seq
    // asks for draft.n_max of them with --spec-type draft-mtp (both versions); v0.5.0 added
    // kimi-k3 to v0.4.0's list.
    std::vector<std::string> rs_rollback_archs;

    // The architectures whose graph builder has an LLM_GRAPH_TYPE_DECODER_MTP branch (src/models/
    // *.cpp, build_graph), the graph llama-server's MTP draft context (--spec-type draft-mtp,
    // LLAMA_CONTEXT_TYPE_MTP) runs. Any other architecture builds its whole trunk there over a
    // cache that create_memory filtered to the nextn blocks, or loads no nextn tensors at all
    // (qwen4exp), so drafting with its nextn blocks does not run. Equal in both versions.
    std::vector<std::string> mtp_graph_archs;

    // Where a Vulkan device puts the logits of a graph with recurrent state (priced in
    // core/planner/vulkan_pricing.cpp, unpackedLogitsFloor). build_rs (src/llama-graph.cpp) gathers
    // each layer's extra states, n_rs - n_seqs rows, zero at reserve: a zero-byte tensor.
    // ggml-alloc (ggml/src/ggml-alloc.c, both versions) frees it as a zero-byte free block
    // (ggml_dyn_tallocr_free_bytes: no neighbour, so ggml_dyn_tallocr_insert_block) that can end up
    // inside a larger free block, and from then on that block no longer merges with the one
    // after it (the merge checks only the next entry). Whether that happens depends on the node
    // order, which ggml_vk_graph_optimize (ggml/src/ggml-vulkan/ggml-vulkan.cpp) changes. v0.4.0
    // (80fb11ac) cost up to 16 MiB over a packed layout on the Falcon-H1 -ngl 99 settings of the
    // Vulkan grid (two unified sequences), inside the estimate's slack and margin. v0.5.0
    // (de3ff815) pulls more nodes forward (RMS_NORM + MUL with views between, UNARY + MUL,
    // ROPE/RMS_NORM + VIEW + SET_ROWS, the rms_norm_mul_add patterns). On Falcon-H1 at -ub 2048 the
    // device's compute buffer came out 64 MiB above the packed layout (measured: 344 113 168 B;
    // 276 955 136 B, the logits beside the final norm, with GGML_VK_DISABLE_GRAPH_OPTIMIZE=1). The
    // scheduled replay of a skeleton models both (the views and zero-byte rows in the graph,
    // v0.5.0's reorder) and prices that case to the byte; where no skeleton replays the graph,
    // v0.5.0 prices the logits above the layer peak, a bound.
    bool vulkan_logits_above_layer_peak_with_recurrent_state;

    bool accepts(std::string_view flag) const; // not one of removed_flags
    // The main cache leaves this architecture's nextn blocks out (see nextn_filtered_everywhere).
    bool filtersNextn(std::string_view arch) const;
    bool supportsRsRollback(std::string_view arch) const;
    bool buildsMtpGraph(std::string_view arch) const;
};

const LlamaProfile& llamaProfile(LlamaVersion v);

// The context llama.cpp's fit starts from when -c is left unset (see
// fit_unset_ctx_counts_every_sequence): n_ctx_train × the sequences it counts, saturated at
// UINT32_MAX as fit does.
// llama_memory_recurrent ctor (src/llama-memory-recurrent.cpp): mem_size x (1 + n_rs_seq) rows
// of R and S per layer. n_rs_seq is what common_context_params_to_llama (common/common.cpp) asks
// for, draft_n_max with MTP drafting (need_n_rs_seq), clamped to 0 by the llama_context ctor
// (src/llama-context.cpp) for an architecture without rollback. The MTP draft context itself
// gets n_rs_seq = 0 (common/common.cpp, cparams_dft.n_rs_seq = 0).
std::uint32_t recurrentSnapshots(const LlamaProfile& p, std::string_view arch, bool mtp,
                                 std::uint32_t draft_n_max);

std::uint32_t fitUnsetContext(const LlamaProfile& p, std::uint32_t n_ctx_train,
                              std::uint32_t n_seq_max, bool kv_unified);

// --llama-build N: a mainline build older than the snapshots above (the number `llama-server
// --version` prints), so that a plan can be held against that build's own load log. Where Headroom
// knows the build's graph or cache layout differs from the snapshots', the plan follows the older
// build; everything else (flags, the loader) stays the profile's. One field per known difference.
struct OlderBuildGraph {
    // src/llama-graph.cpp build_attn_inp_kv and its siblings before llama.cpp PR #23764 ("llama:
    // use f16 mask for FA to save VRAM", commit 031ddb2e0, 2026-05-29): the KQ mask was an F32
    // input and flash attention read ggml_cast(mask, F16), so a reserve allocated both, the F32 one
    // in the CPU's compute buffer (a graph input) and both on the device that runs the attention.
    // The snapshots make the mask F16 directly (build_attn_inp_kq_mask). The PR landed between tags
    // b9341 and b9518 (a downstream changelog's upstream window); builds inside that window are
    // priced the older, larger way, since a plan must not err low.
    bool kq_mask_f32_cast = false;
    // Before llama.cpp PR #14363 ("llama : add high-throughput mode", July 2025) the KV cache had
    // one stream that every sequence shared, as --kv-unified keeps them now: attention ran over
    // all n_ctx cells and the sliding-window cache held n_swa x n_seq + n_ubatch cells. The
    // per-sequence streams (llama_kv_cache's seq_to_stream) first ran in tag b5913: a b5913 run
    // fails on its `seq_id < seq_to_stream.size()` assertion where b5912 ran (llama.cpp issue
    // #14847, with the log).
    bool one_kv_stream = false;
    // llama_model::load_tensors before -ngl counted the output layer: i_gpu_start =
    // max(n_layer - n_gpu_layers, 0), so -ngl N <= n_layer put N repeating layers on the GPUs and
    // the output on the CPU (the snapshots: n_layer + 1 - n_gpu_layers, N - 1 layers and the
    // output). That source is quoted in public llama-model.cpp copies of 2025 (with the SWA-aware
    // layer lists), and the published partial-offload logs up to b4783 (llama.cpp issue #12213,
    // 2025-03-05) show it. The build that changed it is not known, so later builds are priced as
    // the snapshots place them.
    bool ngl_excludes_output = false;

    bool any() const { return kq_mask_f32_cast || one_kv_stream || ngl_excludes_output; }
};

// The first build known to have each snapshot-era graph (see OlderBuildGraph).
inline constexpr std::uint32_t kFirstBuildWithF16KqMask = 9518;
inline constexpr std::uint32_t kFirstBuildWithKvStreams = 5913;
inline constexpr std::uint32_t kLastBuildKnownNglExcludingOutput = 4783;

// The differences Headroom knows between build `build` and the snapshots' graph.
OlderBuildGraph olderBuildGraph(std::uint32_t build);
// --llama-build: a build number, 1 to 999999.
Result<std::uint32_t> parseLlamaBuild(std::string_view text);

} // namespace headroom
