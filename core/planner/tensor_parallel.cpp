// -sm tensor (llama.cpp v0.5.0's LLAMA_SPLIT_MODE_TENSOR): one Meta device over every GPU, each
// offloaded layer's matrices and KV split over all of them (docs/llama-cpp/split-mode-tensor.md,
// measured over two and three loopback RPC devices).
#include "planner/planner_internal.h"

#include <numeric>

namespace headroom::detail {

std::vector<std::int64_t> tensorShares(std::int64_t ne, std::int64_t granularity,
                                       const std::vector<double>& ts, std::size_t n,
                                       std::size_t rotation) {
    // llama_meta_device_get_split_state (src/llama-model.cpp): the proportions rotated by the
    // layer, scanned in float; each boundary rounded down to the granularity; the last chunk takes
    // the rest. No -ts (or all zero): equal chunks in integer arithmetic.
    std::vector<std::int64_t> share(n, 0);
    if (n == 0) return share;
    std::vector<float> scan(n, 0.0f);
    for (std::size_t j = 0; j < n; ++j) {
        const std::size_t k = (j + rotation) % n;
        scan[j] = (k < ts.size() ? static_cast<float>(ts[k]) : 0.0f) + (j > 0 ? scan[j - 1] : 0.0f);
    }
    const std::int64_t g = std::max<std::int64_t>(1, granularity);
    std::int64_t low = 0;
    std::size_t j = 0;
    for (; j + 1 < n; ++j) {
        // The ternary's type is float in llama.cpp (int64 and float operands): the equal split
        // goes through float too, then truncates back.
        const std::int64_t equal =
            ne * static_cast<std::int64_t>(j + 1) / static_cast<std::int64_t>(n);
        const float v = scan.back() == 0.0f ? static_cast<float>(equal)
                                            : static_cast<float>(ne) * scan[j] / scan.back();
        std::int64_t high = static_cast<std::int64_t>(v);
        if (high % g != 0) high -= high % g;
        share[(j + rotation) % n] = high - low;
        low = high;
    }
    share[(j + rotation) % n] = ne - low;
    return share;
}

namespace {

// get_split_granularity's regular-attention case: Q rows (and the output projection's columns)
// in whole GQA groups, at least a power-of-two multiple of attn_output's block.
std::int64_t queryGranularity(const LayerShape& l, std::uint32_t block, std::size_t n) {
    const std::int64_t head_k = l.n_head_kv ? l.n_embd_k_gqa / l.n_head_kv : 0;
    const std::int64_t n_gqa = l.n_head_kv ? l.n_head / l.n_head_kv : 1;
    const std::int64_t n_embd_q = n_gqa * head_k;
    std::int64_t bp = block;
    while (bp < 128 && bp * static_cast<std::int64_t>(n) < n_embd_q)
        bp *= 2;
    return n_embd_q > 0 ? std::lcm(n_embd_q, bp) : bp;
}

// The block sizes a granularity is made from: the tensor's own type's, or, where the shape does
// not know it (a catalog shape), both of the common ones (32: legacy and MXFP4 quants, Q8_0;
// 256: K- and IQ-quants), each device then priced at the larger of its two shares.
std::vector<std::uint32_t> blocksOf(std::uint32_t known) {
    if (known > 0) return {known};
    return {32, 256};
}

// bytes x share / ne, exact for the shares llama.cpp makes (each a multiple of the rows' blocks).
Bytes part(Bytes bytes, std::int64_t share, std::int64_t ne) {
    if (ne <= 0 || share <= 0) return 0;
    return static_cast<Bytes>(static_cast<unsigned __int128>(bytes) *
                              static_cast<unsigned __int128>(share) /
                              static_cast<unsigned __int128>(ne));
}

// Each device's share of ne elements: the larger over the candidate blocks.
std::vector<std::int64_t> sharesOf(std::int64_t ne, const std::vector<std::int64_t>& granularities,
                                   const std::vector<double>& ts, std::size_t n,
                                   std::size_t rotation) {
    std::vector<std::int64_t> most(n, 0);
    for (std::int64_t g : granularities) {
        const auto s = tensorShares(ne, g, ts, n, rotation);
        for (std::size_t j = 0; j < n; ++j)
            most[j] = std::max(most[j], s[j]);
    }
    return most;
}

} // namespace

void spreadTensorParallel(Assignment& a, const ModelShape& model, const ContextPrice& price,
                          const ResolvedOptions& opt, const std::vector<double>& ts,
                          const std::vector<int>& layer_dev, int out_dev) {
    const std::size_t n = a.devices.size();
    if (n < 2) return; // one device: the Meta device is that device
    // What one device would hold for the Meta-placed layers (assign() put them all on device 0).
    const Terms whole = a.devices[0];
    std::vector<Bytes> weights(n, 0), experts(n, 0), kv_k(n, 0), kv_v(n, 0);
    Bytes placed = 0; // of whole.weights, what the split layers and the output account for
    std::size_t swa_seen = 0, full_seen = 0;
    for (std::size_t il = 0; il < model.layers.size() && il < layer_dev.size(); ++il) {
        const LayerShape& l = model.layers[il];
        // get_il_eff: the layer's rank among all earlier layers of its kind (SWA or not;
        // recurrent layers are refused under -sm tensor), those left on the CPU included.
        const std::size_t rotation = (l.isSwa() ? swa_seen++ : full_seen++) % n;
        if (layer_dev[il] != 0) continue;
        const LayerPrice& lp = price.layers[il];
        Bytes attn_split = 0, ffn_split = 0, exp_split = 0;
        if (!l.matrices.empty()) {
            for (const LayerShape::Matrix& m : l.matrices) {
                if (m.split == LayerShape::Split::Attention)
                    attn_split = satAdd(attn_split, m.bytes);
                if (m.split == LayerShape::Split::Ffn) ffn_split = satAdd(ffn_split, m.bytes);
                if (m.split == LayerShape::Split::Experts) exp_split = satAdd(exp_split, m.bytes);
            }
        } else {
            // A catalog shape's attention and FFN bytes are its projections alone (norms are in
            // the model's other bytes); a MoE block's FFN is its shared experts and router,
            // mirrored, and its routed experts are split.
            attn_split = satSub(satSub(lp.weights, lp.experts), lp.ffn);
            ffn_split = lp.experts > 0 ? 0 : lp.ffn;
            exp_split = lp.experts;
        }
        const Bytes mirrored = satSub(lp.weights, satAdd(satAdd(attn_split, ffn_split), exp_split));
        placed = satAdd(placed, lp.weights);
        std::vector<std::int64_t> g_q, g_kv, g_ffn;
        const std::int64_t n_gqa =
            l.n_head_kv ? std::max<std::int64_t>(1, l.n_head / l.n_head_kv) : 1;
        for (std::uint32_t b : blocksOf(l.attn_output_block)) {
            g_q.push_back(queryGranularity(l, b, n));
            g_kv.push_back(g_q.back() / n_gqa);
        }
        for (std::uint32_t b : blocksOf(l.ffn_down_block))
            g_ffn.push_back(std::lcm<std::int64_t>(b, 128));
        const std::int64_t head_k = l.n_head_kv ? l.n_embd_k_gqa / l.n_head_kv : 0;
        const std::int64_t ne_q = static_cast<std::int64_t>(l.n_head) * head_k;
        const auto q = sharesOf(ne_q, g_q, ts, n, rotation);
        const auto k = sharesOf(l.n_embd_k_gqa, g_kv, ts, n, rotation);
        const auto v = sharesOf(l.n_embd_v_gqa, g_kv, ts, n, rotation);
        const auto f = sharesOf(model.n_ff, g_ffn, ts, n, rotation);
        const auto e = sharesOf(model.n_ff_exp, g_ffn, ts, n, rotation);
        for (std::size_t j = 0; j < n; ++j) {
            const Bytes x = part(exp_split, e[j], model.n_ff_exp);
            weights[j] = satAdd(weights[j], satAdd(satAdd(mirrored, part(attn_split, q[j], ne_q)),
                                                   satAdd(part(ffn_split, f[j], model.n_ff), x)));
            experts[j] = satAdd(experts[j], x);
            if (opt.kv_offload) {
                kv_k[j] = satAdd(kv_k[j], part(lp.kv_k, k[j], l.n_embd_k_gqa));
                kv_v[j] = satAdd(kv_v[j], part(lp.kv_v, v[j], l.n_embd_v_gqa));
            }
        }
    }
    if (out_dev == 0) {
        // output.weight split by vocabulary rows (granularity 1, rotated by n_layer); output_norm
        // mirrored; a tied head is token_embd.weight, which is mirrored.
        const Bytes norm = 4 * static_cast<Bytes>(model.n_embd);
        const Bytes split = model.output_tied_to_embd ? 0 : satSub(price.output_weights, norm);
        const auto s = tensorShares(model.n_vocab, 1, ts, n, model.layers.size() % n);
        for (std::size_t j = 0; j < n; ++j)
            weights[j] = satAdd(weights[j], satAdd(satSub(price.output_weights, split),
                                                   part(split, s[j], model.n_vocab)));
        placed = satAdd(placed, price.output_weights);
    }
    // The rest on the Meta device (rope factors, tensors made with block 0's number) is mirrored.
    const Bytes rest = satSub(whole.weights, placed);
    // The all-reduce fallback's scratch (ggml_backend_meta_graph_compute): ceil(log2 n) buffers per
    // device of the largest PARTIAL node, a block's output rows ([n_embd, n_ubatch] f32; a MoE
    // block's down projection keeps n_expert_used of them). Allocated at the first decode, outside
    // every logged buffer: a runtime cost.
    std::size_t steps = 0;
    while ((std::size_t{1} << steps) < n)
        ++steps;
    const Bytes rows = model.isMoe() ? std::max<Bytes>(1, model.moe.n_expert_used) : 1;
    const Bytes scratch = satMul(
        satMul(4 * static_cast<Bytes>(model.n_embd), price.geometry.n_ubatch), satMul(rows, steps));
    for (std::size_t j = 0; j < n; ++j) {
        Terms& t = a.devices[j];
        t.weights = satAdd(weights[j], rest);
        t.experts = experts[j];
        t.kv_k = kv_k[j];
        t.kv_v = kv_v[j];
        // Compute: ggml-alloc plans the unsplit graph on the Meta buffer type and allocates that
        // size on every device (ggml_backend_meta_buffer_type_alloc_buffer).
        t.compute = whole.compute;
        t.overhead = satAdd(t.overhead, scratch);
    }
}

} // namespace headroom::detail
