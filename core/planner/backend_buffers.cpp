// Rung pricing, device half: what a GPU backend (CUDA, ROCm, Metal, Vulkan, SYCL) does to the
// buffers assign() priced the way the CPU backend packs them, read from the backend's traits
// (core/backend/). Where the architecture has a graph skeleton, every backend's compute buffer is
// the skeleton replayed the way ggml_backend_sched places and allocates it (scheduled below,
// compute_graph.h replaySchedule) with the backend's buffer types, op offload and reorder; the
// closed-form mechanisms after it price the architectures without one. Measured on Mesa's
// lavapipe (docs/accuracy-vulkan.md, tests/validation/vulkan/) and against llama.cpp loads users
// published from real GPUs (docs/accuracy-gpu.md); each mechanism cited from llama.cpp v0.5.0
// (de3ff815), unchanged in v0.4.0 unless noted.
#include "compute_skeleton.h"
#include "launch/llama_version.h"
#include "planner/planner_internal.h"

#include <algorithm>

namespace headroom::detail {

namespace {

// llama_context::graph_get_cb (src/llama-context.cpp) pins each block's weighted norms to the
// block's backend under a micro-batch of fewer than this many tokens: llama.cpp's own constant,
// not a backend's offload threshold.
constexpr std::uint32_t kNormPinMaxBatch = 32;

// The error bound of what stays an estimate: device compute on the validation grid
// (docs/accuracy-vulkan.md) was at most 14.01 MiB above the closed form with the mechanisms below
// applied (Falcon-H1 with a q8_0 cache or two unified sequences: state and cache-conversion
// tensors the closed form does not list). Added to every Vulkan compute buffer so the plan is
// never low by it.
constexpr Bytes kComputeMargin = 15 * MiB;

// What the scheduled replay still misses, as an error bound: with ggml_vk_graph_optimize's reorder
// replayed (compute_graph.cpp), device buffers on the validation grid (docs/accuracy-vulkan.md) are
// within 0.1 MiB on 14 of 34 (every host buffer too) and at most 16 MiB low (Llama-3.1-8B at 8K
// without flash attention, LFM2 at ub 2048; Falcon-H1 -ngl 20 8.13 MiB, a quarter of that setting's
// 1 % of the device total): 6 MiB keeps every device total within 1 % of llama.cpp's, with room,
// and an exact replay well inside the estimate's 16 MiB goal.
constexpr Bytes kReplayMargin = 6 * MiB;

// How many ggml_backend_buft_alloc_buffer chunks a packed size of `b` takes in a buffer type of
// at most `max_size` bytes (0: one).
Bytes chunks(Bytes b, Bytes max_size) {
    return max_size == 0 ? 1 : std::max<Bytes>(1, ceilDiv(b, max_size));
}

// ggml-alloc's buffer of this type (alignment, chunking, CUDA's FLASH_ATTN_EXT copies).
graph::BufferType bufferType(const BufferTraits& b, bool fa_f16_copies) {
    return graph::BufferType{b.alignment, b.max_size, fa_f16_copies};
}

// The largest single host weight an offloaded op may copy into the device compute buffer: per
// block kept on the host, one routed-expert bank (experts / 3: up, gate, down), two thirds of the
// dense FFN (a fused gate_up is two of its three n_embd x n_ff matrices) or three quarters of the
// attention weights (a fused wqkv beside wo); the output head when it stays on the host.
Bytes largestHostWeight(const ModelShape& model, const ContextPrice& price,
                        const PlacementChoice& choice, const std::vector<int>& layer_dev,
                        int out_dev) {
    Bytes m = 0;
    for (size_t il = 0; il < price.layers.size(); ++il) {
        const LayerPrice& lp = price.layers[il];
        const bool host_block = layer_dev[il] < 0;
        const bool experts_host = host_block || il < choice.n_cpu_moe ||
                                  (il < choice.moves.size() && choice.moves[il].expert_parts > 0);
        const bool ffn_host = host_block || (il < choice.ffn_host.size() && choice.ffn_host[il]) ||
                              (il < choice.moves.size() && choice.moves[il].ffn_parts > 0);
        if (experts_host) m = std::max(m, lp.experts / 3);
        if (ffn_host) m = std::max(m, lp.ffn / 3 * 2);
        if (host_block || (il < choice.moves.size() && choice.moves[il].attn))
            m = std::max(m, satSub(satSub(lp.weights, lp.experts), lp.ffn) / 4 * 3);
    }
    if (out_dev < 0) m = std::max(m, model.output_bytes);
    return m;
}

// The compute buffers of every backend from the replayed graph (compute_skeleton.h
// scheduledCompute): llama_context's backends are the devices in order, then the CPU, whose
// compute buffer type beside a GPU is the first device's pinned host type (llama_context ctor:
// the CPU backend takes a GPU device's host buffer type). nullopt where the graph has no skeleton
// or the placement moves parts of blocks the scheduler replay does not tag (-ot moves other than
// whole expert banks, a host FFN).
std::optional<std::vector<graph::BackendCompute>>
scheduled(const ModelShape& model, const ContextPrice& price, const ResolvedOptions& opt,
          const PlacementChoice& choice, const DeviceLayout& layout, size_t n_dev,
          const BackendTraits& be) {
    if (opt.backend_sampling || !hasComputeSkeleton(model)) return std::nullopt;
    // A move of a block's three routed-expert banks together (-ot ...ffn_(up|down|gate)_exps=CPU)
    // is what --n-cpu-moe does to that block: replayed the same way. Any other part moved is not.
    // A move of the three FFN projections (-ot ...ffn_(up|down|gate)\.weight=CPU) puts their
    // matmuls with the CPU (SchedPlacement::ffn_backend).
    // A move to a named device is replayed the same way when it takes whole groups, one
    // destination a group.
    auto wholeParts = [](const BlockMoves& m) {
        auto whole = [](std::uint8_t parts) { return parts == 0 || parts >= 3; };
        int expert_dests = m.expert_parts > 0, ffn_dests = m.ffn_parts > 0;
        for (const BlockMoves::ToDevice& t : m.to_devices) {
            if (t.attn || !whole(t.expert_parts) || !whole(t.ffn_parts)) return false;
            expert_dests += t.expert_parts > 0;
            ffn_dests += t.ffn_parts > 0;
        }
        return !m.attn && whole(m.ffn_parts) && whole(m.expert_parts) && expert_dests <= 1 &&
               ffn_dests <= 1;
    };
    if (!std::all_of(choice.moves.begin(), choice.moves.end(), wholeParts) ||
        std::any_of(choice.ffn_host.begin(), choice.ffn_host.end(), [](bool b) { return b; }))
        return std::nullopt;
    const int cpu = static_cast<int>(n_dev);
    graph::SchedPlacement p;
    p.buffers.assign(n_dev, bufferType(be.device, be.flash_attn_f16_copies));
    p.buffers.push_back(bufferType(be.host, false));
    const size_t n_layer = model.layers.size();
    p.layer_backend.resize(n_layer);
    p.expert_backend.resize(n_layer);
    p.ffn_backend.resize(n_layer);
    p.dense_bytes.resize(n_layer + 1);
    p.expert_bytes.resize(n_layer + 1);
    for (size_t il = 0; il < n_layer; ++il) {
        const int d = il < layout.layer_dev.size() ? layout.layer_dev[il] : -1;
        p.layer_backend[il] = d < 0 ? cpu : d;
        const bool experts_moved = il < choice.moves.size() && choice.moves[il].expert_parts >= 3;
        p.expert_backend[il] = il < choice.n_cpu_moe || experts_moved ? cpu : p.layer_backend[il];
        const bool ffn_moved = il < choice.moves.size() && choice.moves[il].ffn_parts >= 3;
        p.ffn_backend[il] = ffn_moved ? cpu : p.layer_backend[il];
        if (il < choice.moves.size())
            for (const BlockMoves::ToDevice& t : choice.moves[il].to_devices) {
                if (t.expert_parts >= 3 && il >= choice.n_cpu_moe) p.expert_backend[il] = t.device;
                if (t.ffn_parts >= 3) p.ffn_backend[il] = t.device;
            }
        const LayerShape& l = model.layers[il];
        p.dense_bytes[il] = satAdd(l.attn_bytes, l.ffn_bytes);
        p.expert_bytes[il] = l.experts_bytes;
        if (!l.matrices.empty()) {
            p.matrices.resize(n_layer);
            for (const LayerShape::Matrix& w : l.matrices)
                p.matrices[il].push_back({static_cast<std::int64_t>(w.in),
                                          static_cast<std::int64_t>(w.out), w.bytes, w.experts});
        }
    }
    if (n_layer > 0) p.dense_bytes[0] = satAdd(p.dense_bytes[0], model.first_block_bytes);
    p.dense_bytes[n_layer] = model.output_bytes;
    p.output_backend = layout.out_dev < 0 ? cpu : layout.out_dev;
    p.n_expert = model.moe.n_expert;
    p.op_offload = be.offload != OffloadOps::None && opt.op_offload;
    p.offload_matmul_only = be.offload == OffloadOps::MatMulOnly;
    p.offload_min_batch = be.offload_min_batch;
    p.n_copies = layout.pipeline ? static_cast<int>(kSchedMaxCopies) : 1;
    p.kv_on_host = !opt.kv_offload;
    if (be.reorders_graph)
        p.vulkan_reorder = opt.llama_version == LlamaVersion::V0_4_0 ? graph::VulkanReorder::V0_4_0
                                                                     : graph::VulkanReorder::V0_5_0;
    // llama_context::graph_get_cb: the micro-batch threshold is llama.cpp's own 32, whatever the
    // backend's offload threshold.
    p.pin_norms = (!layout.host_has_layers && layout.out_dev >= 0) ||
                  price.geometry.n_ubatch < kNormPinMaxBatch;
    const ContextGeometry& g = price.geometry;
    ComputeGraphParams params{g.n_ubatch,
                              g.n_outputs,
                              g.n_ctx_seq,
                              g.swa_cells,
                              g.n_stream,
                              opt.flash_attn,
                              isQuantizedCacheType(opt.type_k),
                              isQuantizedCacheType(opt.type_v),
                              opt.type_k,
                              opt.type_v,
                              opt.kq_mask_f32_cast};
    auto r = scheduledCompute(model, params, p);
    if (!r || r->size() != n_dev + 1) return std::nullopt;
    // v0.5.0 on a device that refuses an op over its tensor limit (BackendTraits::max_op_tensor):
    // the attention scores without flash attention ([n_kv, n_ubatch, n_head] f32) or the logits
    // can pass it. Whether this device does (64-bit shader indexing lifts the limit) is not known
    // to the plan, so each buffer is the larger of the two placements: never low either way.
    if (be.max_op_tensor > 0 && opt.llama_version != LlamaVersion::V0_4_0) {
        std::uint32_t n_head = 0;
        for (const auto& l : model.layers)
            n_head = std::max(n_head, l.n_head);
        const Bytes scores = opt.flash_attn ? 0
                                            : satMul(satMul(4 * Bytes{g.n_ubatch}, g.n_ctx_seq),
                                                     static_cast<Bytes>(n_head));
        const Bytes logits = satMul(satMul(4, g.n_outputs), model.n_vocab);
        if (std::max(scores, logits) > be.max_op_tensor) {
            p.max_tensor_bytes.assign(n_dev, be.max_op_tensor);
            const auto limited = scheduledCompute(model, params, p);
            if (limited && limited->size() == r->size())
                for (size_t k = 0; k < r->size(); ++k)
                    if ((*limited)[k].bytes > (*r)[k].bytes) (*r)[k] = (*limited)[k];
        }
    }
    return r;
}

// The least a device's compute buffer holds when the logits may not pack beside the final norm
// (LlamaProfile::vulkan_logits_above_layer_peak_with_recurrent_state, which cites the mechanism):
// 0 when the profile packs them or the device lacks the output or a block with recurrent state.
// ggml_dyn_tallocr_alloc (ggml/src/ggml-alloc.c) takes the unbounded last free block for a tensor
// no other free block holds, and that block starts at or below the high-water mark so far. The
// logits tensor (result_output, [n_vocab, n_outputs] f32), the graph's last and largest node,
// therefore ends at most one layer peak above its own size; where below that depends on the
// reordered graph, so this prices the bound: the layer peak (the graph inputs and one block's
// peak, ContextPrice::estimateFor) plus the logits, plus `extra`, the copies the mechanisms above
// add to the same buffer. Only the closed form needs it: the scheduled replay of a skeleton holds
// the zero-byte rows and the reorder itself.
Bytes unpackedLogitsFloor(const ModelShape& model, const ContextPrice& price,
                          const ResolvedOptions& opt, const DeviceLayout& layout, size_t d,
                          Bytes extra, const BackendTraits& be) {
    if (!be.reorders_graph) return 0;
    if (!llamaProfile(opt.llama_version).vulkan_logits_above_layer_peak_with_recurrent_state)
        return 0;
    if (static_cast<int>(d) != layout.out_dev) return 0;
    bool recurrent = false;
    for (size_t il = 0; il < model.layers.size() && il < layout.layer_dev.size(); ++il) {
        const LayerShape& l = model.layers[il];
        recurrent = recurrent || (layout.layer_dev[il] == static_cast<int>(d) &&
                                  (l.isRecurrent() || l.recurrent_r > 0 || l.recurrent_s > 0));
    }
    if (!recurrent) return 0;
    const Bytes result = satMul(satMul(4, price.geometry.n_outputs), model.n_vocab);
    return satAdd(satAdd(price.estimateFor(true, false), result), extra);
}

} // namespace

// The backend resolved for the plan (launch_window.cpp resolve: --backend, else the first GPU's).
// RPC devices run their servers' own backends, priced as assign() does: a plan with any of them is
// left as it is.
bool devicePriced(const ResolvedOptions& opt, const MemoryBudget& budget) {
    const BackendTraits& be = traitsOf(opt.backend);
    return be.gpu && be.id != Backend::Rpc && !budget.devices.empty() &&
           std::all_of(budget.devices.begin(), budget.devices.end(),
                       [](const DeviceBudget& d) { return d.rpc_endpoint.empty(); });
}

namespace {

// The closed form: the CPU backend's packing assign() priced, with the backend's mechanisms added
// as estimates (architectures without a skeleton).
void priceClosedForm(Assignment& a, const ModelShape& model, const ContextPrice& price,
                     const ResolvedOptions& opt, const PlacementChoice& choice,
                     const DeviceLayout& layout, const BackendTraits& be) {
    const Bytes ub = price.geometry.n_ubatch;
    const bool op_offload =
        be.offload != OffloadOps::None && opt.op_offload && ub >= be.offload_min_batch;
    // Chunked compute buffers (ggml_dyn_tallocr_new_chunk), where the buffer type has a maximum.
    const Bytes chunk = be.device.max_size == 0 ? kMaxPlausibleBytes : be.device.max_size;
    bool host_weights = false; // weights besides the input layer in host memory
    for (int d : layout.layer_dev)
        host_weights = host_weights || d < 0;
    host_weights = host_weights || layout.out_dev < 0 || choice.n_cpu_moe > 0 ||
                   a.host.experts > 0 || satSub(a.host.weights, price.token_embd) > 0;

    // The attention scores without flash attention: [n_kv, n_ubatch, n_head] f32
    // (llm_graph_context::build_attn_mha, kq = ggml_mul_mat(k, q)).
    std::uint32_t n_head = 0;
    for (const auto& l : model.layers)
        if (l.hasKv()) n_head = std::max(n_head, l.n_head);
    const Bytes scores = opt.flash_attn ? 0
                                        : satMul(satMul(4 * ub, price.geometry.n_ctx_seq),
                                                 static_cast<Bytes>(n_head));
    // The widest block's K and V views over the whole cache (llama_kv_cache::get_k / get_v).
    Bytes kv_views = 0;
    {
        const Bytes cells = satMul(price.geometry.n_ctx_seq, price.geometry.n_stream);
        for (const auto& l : model.layers)
            if (l.hasKv())
                kv_views = std::max(
                    kv_views, satMul(cells, satAdd(ggmlRowBytes(opt.type_k, l.n_embd_k_gqa),
                                                   ggmlRowBytes(opt.type_v, l.n_embd_v_gqa))));
    }
    // ggml-cuda's FLASH_ATTN_EXT copies a K and V cache of another type than F16 to F16 in its own
    // allocation (BackendTraits::flash_attn_f16_copies): the widest layer's, live with the layer.
    Bytes fa_copies = 0;
    if (be.flash_attn_f16_copies && opt.flash_attn && ub > 2) {
        const Bytes cells = satMul(price.geometry.n_ctx_seq, price.geometry.n_stream);
        for (const auto& l : model.layers) {
            if (!l.hasKv()) continue;
            const Bytes k = opt.type_k != GgmlType::F16 ? l.n_embd_k_gqa : 0;
            const Bytes v = opt.type_v != GgmlType::F16 ? l.n_embd_v_gqa : 0;
            fa_copies = std::max(fa_copies, satMul(satMul(2, satAdd(k, v)), cells) + 256);
        }
    }

    for (size_t d = 0; d < a.devices.size(); ++d) {
        Terms& t = a.devices[d];
        if (t.compute == 0 && d == 0 && op_offload && host_weights) {
            // No layer of its own (-ngl 0) but the first device still runs every offloaded op:
            // a layer's activations (or the logits, when the output's product is offloaded too)
            // beside the host weight copied in for it.
            const Bytes runs =
                std::max(price.compute_layer, layout.out_dev < 0 ? price.compute_logits : Bytes{0});
            t.compute = satAdd(satAdd(runs, largestHostWeight(model, price, choice,
                                                              layout.layer_dev, layout.out_dev)),
                               kComputeMargin);
            continue;
        }
        if (t.compute == 0) continue;
        const bool holds_layers = layout.dev_has_layers[d];
        const bool holds_output = static_cast<int>(d) == layout.out_dev;
        const Bytes layer = holds_layers ? satAdd(price.compute_layer, fa_copies) : 0;
        const Bytes logits = holds_output ? price.compute_logits : 0;
        Bytes extra = 0;
        // Chunking. Without flash attention, scores larger than what a chunk holds beside the rest
        // of the layer peak are allocated in a chunk of their own and the softmax over them in
        // another (Llama-3.1-8B at 16K: 120 + 1024 + 1024 MiB measured): count them twice. The
        // logits then fit in a freed scores chunk when they are no larger.
        const bool doubled = scores > 0 && layer > chunk;
        const Bytes layer_peak = doubled ? satAdd(layer, scores) : layer;
        const Bytes packed = std::max(layer, logits);
        Bytes chunked = std::max(layer_peak, logits);
        if (!(doubled && logits <= scores) && layer_peak > 0 && logits > 0 &&
            satAdd(layer_peak, logits) > chunk) {
            // The layer and logits peaks do not fit one chunk together: the logits tensor
            // (result_output, [n_vocab, n_ubatch] f32, the output matmul of models/*.cpp) lands in
            // a chunk of its own above the larger of the layer peak and what lives beside the
            // logits (Llama-3.1-8B, ub 2048: 464 + 1002 MiB measured against a packed peak of
            // 1066).
            const Bytes result = satMul(satMul(4, price.geometry.n_outputs), model.n_vocab);
            chunked = satAdd(std::max(layer_peak, satSub(logits, result)), result);
        }
        extra = satAdd(extra, satSub(chunked, packed));
        // -nkvo with flash attention: the cache is in host memory and FLASH_ATTN_EXT, placed by
        // its neighbours, runs on the device, so each block's K and V views are copied in (the
        // scheduler's split inputs), the widest block's at most at once.
        if (!opt.kv_offload && opt.flash_attn && holds_layers) extra = satAdd(extra, kv_views);
        // Op offload: the first device (the scheduler tries backends in order) runs the ops whose
        // weights stay in host memory and holds a copy of the weight being used.
        if (d == 0 && op_offload && host_weights)
            extra = satAdd(
                extra, largestHostWeight(model, price, choice, layout.layer_dev, layout.out_dev));
        // The mechanisms above and their margin were measured on the closed form. A replayed
        // graph (ContextPrice::compute_graph) is the CPU backend's packing of the whole graph,
        // which on the device also holds what the CPU computes (token rows, inputs) and ignores
        // the chunks: take the larger of the two, so neither's blind spot prices the device low.
        if (price.replays(holds_layers, holds_output)) {
            const Bytes estimated =
                satAdd(satSub(t.compute, price.compute_graph), price.estimateFor(true, true));
            t.compute = std::max(t.compute, satAdd(satAdd(estimated, extra), kComputeMargin));
        } else {
            t.compute = satAdd(satAdd(t.compute, extra), kComputeMargin);
        }
        if (const Bytes floor = unpackedLogitsFloor(model, price, opt, layout, d, extra, be);
            floor > 0)
            t.compute = std::max(t.compute, satAdd(floor, kComputeMargin));
    }

    if (a.host.compute > 0) {
        Bytes host = a.host.compute;
        // -nkvo without flash attention: build_attn_mha sets the attention output to the CPU
        // ("all nodes between the KV store and the attention output are run on the CPU"), so the
        // scores [n_kv, n_ubatch, n_head] f32 and their softmax, in place, are the host's.
        if (!opt.kv_offload && !opt.flash_attn) host = satAdd(host, scores);
        // Recurrent or convolution blocks on the host (Falcon-H1, LFM2 measured) keep their
        // whole blocks there, attention included: priced as the CPU backend prices them.
        bool host_recurrent = false;
        for (size_t il = 0; il < model.layers.size(); ++il) {
            const LayerShape& l = model.layers[il];
            host_recurrent =
                host_recurrent || (layout.layer_dev[il] < 0 &&
                                   (l.isRecurrent() || l.recurrent_r > 0 || l.recurrent_s > 0));
        }
        if (op_offload && layout.host_has_layers && !host_recurrent) {
            // With op offload the host's attention-only blocks run on the device (measured on
            // Llama-3.1-8B and Phi-3.5-mini, with and without flash attention). The host keeps
            // the graph inputs it holds at full offload, writes its blocks' new K and V rows into
            // its own cache (the set_rows destination is a host view, so the op stays there and
            // its f32 sources are copied back: [n_embd_k_gqa + n_embd_v_gqa, n_ubatch]), plus the
            // margin.
            Bytes kv_rows = 0;
            for (size_t il = 0; il < model.layers.size(); ++il)
                if (layout.layer_dev[il] < 0 && model.layers[il].hasKv())
                    kv_rows = std::max<Bytes>(kv_rows, Bytes{model.layers[il].n_embd_k_gqa} +
                                                           model.layers[il].n_embd_v_gqa);
            const Bytes offloaded =
                satAdd(satAdd(price.compute_host, price.hostInputs(1, false, false)),
                       satAdd(satMul(satMul(4, ub), kv_rows), kComputeMargin));
            host = std::min(host, offloaded);
        }
        // Without flash attention the host holds up to two more [n_embd, n_ubatch] bytes per
        // token per input copy than the inputs priced (measured 1020-4092 B per token on the grid,
        // scaling with n_embd and the pipeline's copies; not yet traced to a tensor): bound.
        if (!opt.flash_attn) {
            const Bytes copies = layout.pipeline ? kSchedMaxCopies : 1;
            host = satAdd(host, satMul(copies, satMul(satMul(2, ub), model.n_embd)));
        }
        a.host.compute = satAdd(host, satMul(chunks(host, be.host.max_size), be.host.alloc_pad));
    }
    if (a.host.output > 0) a.host.output = satAdd(a.host.output, be.host.alloc_pad);
}

// Whether ggml-vulkan runs the model's ggml_ssm_scan (ggml-vulkan.cpp
// ggml_backend_vk_device_supports_op, GGML_OP_SSM_SCAN, the same in v0.4.0): Mamba-2's layout only
// (ssm_a's row stride one float), d_state 128 or 256, a head size that is a multiple of 16.
// llama_model_loader's weight_buft_supported asks that of a scan built on ssm_a
// (src/llama-model-loader.cpp), and select_weight_buft then takes the next buffer type in the
// block's list: ssm_a of a scan the device cannot run is loaded into host memory.
bool vulkanRunsScan(const SsmShape& ssm) {
    if (ssm.mamba1_scan) return false;
    if (ssm.d_state != 128 && ssm.d_state != 256) return false;
    return ssm.dt_rank > 0 && (ssm.d_inner / ssm.dt_rank) % 16 == 0;
}

} // namespace

void priceDeviceBuffers(Assignment& a, const ModelShape& model, const ContextPrice& price,
                        const ResolvedOptions& opt, const PlacementChoice& choice,
                        const DeviceLayout& layout) {
    const BackendTraits& be = traitsOf(opt.backend);
    // Jamba's Mamba-1 blocks (measured on lavapipe at -ngl 3: 512 KiB of ssm_a per offloaded
    // block in the CPU buffer).
    if (be.id == Backend::Vulkan && !vulkanRunsScan(model.ssm))
        for (size_t il = 0; il < model.layers.size() && il < layout.layer_dev.size(); ++il) {
            const int d = layout.layer_dev[il];
            const Bytes moved = model.layers[il].ssm_a_bytes;
            if (d < 0 || static_cast<size_t>(d) >= a.devices.size() || moved == 0) continue;
            a.devices[static_cast<size_t>(d)].weights =
                satSub(a.devices[static_cast<size_t>(d)].weights, moved);
            a.host.weights = satAdd(a.host.weights, moved);
        }
    const auto sched = scheduled(model, price, opt, choice, layout, a.devices.size(), be);
    if (!sched) {
        priceClosedForm(a, model, price, opt, choice, layout, be);
        return;
    }
    // The replay follows the targeted release's ggml_vk_graph_optimize (v0.4.0 or v0.5.0,
    // compute_graph.cpp vkGraphOptimize) over the graph llama.cpp builds, its cache views and
    // build_rs's zero-byte extra-state rows included (docs/accuracy-vulkan.md,
    // docs/accuracy-vulkan-v0.5.0.md), so the logits land where ggml-alloc puts them: no floor.
    for (size_t d = 0; d < a.devices.size(); ++d)
        if (a.devices[d].compute > 0 || (*sched)[d].bytes > 0)
            a.devices[d].compute = satAdd((*sched)[d].bytes, kReplayMargin);
    const graph::BackendCompute& host = sched->back();
    a.host.compute = satAdd(host.bytes, satMul(static_cast<Bytes>(host.chunks), be.host.alloc_pad));
    if (a.host.output > 0) a.host.output = satAdd(a.host.output, be.host.alloc_pad);
}

} // namespace headroom::detail
