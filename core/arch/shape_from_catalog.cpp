#include "arch/shape_from_catalog.h"

#include "arch/layer_rules.h"

#include <algorithm>
#include <memory>

namespace headroom {

Bytes catalogHeaderEstimate(const CatalogEntry& entry, Bytes file_bytes) {
    const Bytes est = satAdd(satMul(kHeaderBytesPerVocabToken, entry.n_vocab), kHeaderFixedBytes);
    return std::min(est, file_bytes / 2);
}

CatalogParamSplit catalogParamSplit(const CatalogEntry& e) {
    CatalogParamSplit s;
    const std::uint64_t d = e.n_embd;
    s.token_embd = static_cast<std::uint64_t>(e.n_vocab) * d;
    // A tied head is not in the file; llama.cpp duplicates token_embd at load (see header).
    s.output = e.tied_embeddings ? 0 : s.token_embd;
    const std::uint32_t n_trunk = e.nTrunk();
    const std::uint64_t n_mat_ffn = e.ffn_gated ? 3 : 2;
    for (std::uint32_t il = 0; il < e.n_layer; ++il) {
        std::uint64_t attn = 0, ffn = 0, experts = 0;
        const std::uint64_t nh = e.n_head[il];
        const bool recurrent = e.recurrent.matches(il, n_trunk);
        if (recurrent) {
            // Without a cited mixer size, price the mixer like a full attention block of the
            // same width: only the split moves, never the total.
            attn = e.mixer_params
                       ? e.mixer_params
                       : 2 * d * nh * e.head_dim_k + 2 * d * e.n_head_kv[il] * e.head_dim_k;
        } else if (e.isMla()) {
            const std::uint64_t q_in = e.q_lora_rank
                                           ? d * e.q_lora_rank + e.q_lora_rank * nh * e.head_dim_k
                                           : d * nh * e.head_dim_k;
            const std::uint64_t nope = e.head_dim_k > e.rope_dim ? e.head_dim_k - e.rope_dim : 0;
            attn = q_in + d * (e.kv_lora_rank + e.rope_dim) +
                   static_cast<std::uint64_t>(e.kv_lora_rank) * nh * (nope + e.head_dim_v) +
                   nh * e.head_dim_v * d;
        } else if (nh > 0) {
            const bool swa = e.swa.matches(il, n_trunk);
            const std::uint64_t hk = swa && e.swa_head_dim_k ? e.swa_head_dim_k : e.head_dim_k;
            const std::uint64_t hv = swa && e.swa_head_dim_v ? e.swa_head_dim_v : e.head_dim_v;
            const std::uint64_t nkv = swa && e.swa_n_head_kv ? *e.swa_n_head_kv : e.n_head_kv[il];
            attn = d * nh * hk + d * nkv * hk + d * nkv * hv + nh * hv * d;
        }
        const bool moe_layer = e.n_expert > 0 && il >= e.dense_lead;
        if (moe_layer) {
            experts = static_cast<std::uint64_t>(e.n_expert) * n_mat_ffn * d * e.n_ff_exp;
            ffn = static_cast<std::uint64_t>(e.n_expert_shared) * n_mat_ffn * d * e.n_ff_shexp +
                  d * e.n_expert; // router
        } else {
            ffn = n_mat_ffn * d * e.n_ff[il];
        }
        s.attn.push_back(attn);
        s.ffn.push_back(ffn);
        s.experts.push_back(experts);
    }
    return s;
}

CatalogParamSplit catalogTypedSplit(const CatalogEntry& e, FileType ftype) {
    CatalogParamSplit s;
    const std::int64_t d = e.n_embd;
    const std::uint32_t n_trunk = e.nTrunk();
    QuantModel m;
    m.n_layer = e.n_layer;
    m.n_expert = e.n_expert;
    const std::uint32_t kv0 = e.n_head_kv.empty() ? 0 : e.n_head_kv[0];
    m.n_gqa = kv0 > 0 && !e.n_head.empty() ? std::max<std::uint32_t>(1, e.n_head[0] / kv0) : 1;
    m.tied_embeddings = e.tied_embeddings;
    m.falcon = e.architecture == "falcon";
    // Bytes of `rows` rows of `ne0` elements as the mixture types them.
    auto typed = [&](TensorRole role, std::int64_t ne0, std::uint64_t rows, std::int32_t layer,
                     bool bank = false, std::int32_t v_index = 0, std::int32_t n_v = 0) {
        QuantTensor t{role, ne0, bank, layer, v_index, n_v};
        return satMul(ggmlRowBytes(quantizedType(ftype, m, t), static_cast<std::uint64_t>(ne0)),
                      rows);
    };
    // qs.n_attention_wv: the attn_v-like tensors, one a block with attention.
    std::int32_t n_attn_v = 0;
    for (std::uint32_t il = 0; il < e.n_layer; ++il)
        if (!e.recurrent.matches(il, n_trunk) && e.n_head[il] > 0) ++n_attn_v;
    s.token_embd = typed(TensorRole::TokenEmbd, d, e.n_vocab, 0);
    s.output = e.tied_embeddings ? 0 : typed(TensorRole::Output, d, e.n_vocab, 0);
    std::int32_t v_index = 0;
    for (std::uint32_t il = 0; il < e.n_layer; ++il) {
        const auto layer = static_cast<std::int32_t>(il);
        std::uint64_t attn = 0, ffn = 0, experts = 0;
        std::uint32_t attn_block = 0;
        const std::int64_t nh = e.n_head[il];
        if (e.recurrent.matches(il, n_trunk)) {
            // The mixer's matrices read the block's input: typed at the mixture's base.
            const std::uint64_t params =
                e.mixer_params ? e.mixer_params
                               : 2 * d * nh * e.head_dim_k + 2 * d * e.n_head_kv[il] * e.head_dim_k;
            attn = typed(TensorRole::Other, d, params / static_cast<std::uint64_t>(d), layer);
        } else if (e.isMla()) {
            const std::int64_t nope = e.head_dim_k > e.rope_dim ? e.head_dim_k - e.rope_dim : 0;
            if (e.q_lora_rank) {
                attn += typed(TensorRole::AttnQ, d, e.q_lora_rank, layer);
                attn += typed(TensorRole::AttnQ, e.q_lora_rank, nh * e.head_dim_k, layer);
            } else {
                attn += typed(TensorRole::AttnQ, d, nh * e.head_dim_k, layer);
            }
            attn += typed(TensorRole::Other, d, e.kv_lora_rank + e.rope_dim, layer);
            attn += typed(TensorRole::AttnKvB, e.kv_lora_rank, nh * (nope + e.head_dim_v), layer,
                          false, v_index++, n_attn_v);
            attn += typed(TensorRole::AttnOutput, nh * e.head_dim_v, d, layer);
        } else if (nh > 0) {
            const bool swa = e.swa.matches(il, n_trunk);
            const std::int64_t hk = swa && e.swa_head_dim_k ? e.swa_head_dim_k : e.head_dim_k;
            const std::int64_t hv = swa && e.swa_head_dim_v ? e.swa_head_dim_v : e.head_dim_v;
            const std::int64_t nkv = swa && e.swa_n_head_kv ? *e.swa_n_head_kv : e.n_head_kv[il];
            attn += typed(TensorRole::AttnQ, d, nh * hk, layer);
            attn += typed(TensorRole::AttnK, d, nkv * hk, layer);
            attn += typed(TensorRole::AttnV, d, nkv * hv, layer, false, v_index++, n_attn_v);
            attn += typed(TensorRole::AttnOutput, nh * hv, d, layer);
            attn_block =
                ggmlTypeInfo(
                    quantizedType(ftype, m, {TensorRole::AttnOutput, nh * hv, false, layer, 0, 0}))
                    .block_elems;
        }
        const bool moe_layer = e.n_expert > 0 && il >= e.dense_lead;
        auto projections = [&](std::int64_t width, std::uint64_t copies, bool bank) {
            std::uint64_t b = 0;
            if (width == 0 || copies == 0) return b;
            b += typed(TensorRole::FfnUp, d, width * copies, layer, bank);
            if (e.ffn_gated) b += typed(TensorRole::FfnGate, d, width * copies, layer, bank);
            b += typed(TensorRole::FfnDown, width, d * copies, layer, bank);
            return b;
        };
        const std::int64_t down_width = moe_layer ? e.n_ff_exp : e.n_ff[il];
        const std::uint32_t down_block =
            down_width > 0 ? ggmlTypeInfo(quantizedType(ftype, m,
                                                        {TensorRole::FfnDown, down_width, moe_layer,
                                                         layer, 0, 0}))
                                 .block_elems
                           : 0;
        if (moe_layer) {
            experts = projections(e.n_ff_exp, e.n_expert, true);
            ffn = projections(e.n_ff_shexp, e.n_expert_shared, false) +
                  typed(TensorRole::Unquantized, d, e.n_expert, layer); // the router
        } else {
            ffn = projections(e.n_ff[il], 1, false);
        }
        s.attn.push_back(attn);
        s.ffn.push_back(ffn);
        s.experts.push_back(experts);
        s.attn_output_block.push_back(attn_block);
        s.ffn_down_block.push_back(down_block);
    }
    return s;
}

namespace {

// Spreads `total` over weights proportionally; the remainder of the integer division goes to
// the first non-zero weight so the parts add up to `total` exactly.
std::vector<Bytes> apportion(Bytes total, const std::vector<std::uint64_t>& weights) {
    long double sum = 0;
    for (auto w : weights)
        sum += static_cast<long double>(w);
    std::vector<Bytes> out(weights.size(), 0);
    if (sum <= 0) return out;
    Bytes given = 0;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        out[i] = static_cast<Bytes>(static_cast<long double>(total) *
                                    static_cast<long double>(weights[i]) / sum);
        given += out[i];
    }
    for (std::size_t i = 0; i < weights.size(); ++i)
        if (weights[i] > 0) {
            out[i] += total - given;
            break;
        }
    return out;
}

ModelShape catalogShapeOnly(const CatalogEntry& e, const CatalogQuant& q);

} // namespace

ModelShape catalogShape(const CatalogEntry& e, const CatalogQuant& q) {
    ModelShape s = catalogShapeOnly(e, q);
    // The next smaller quant the catalog lists: the smaller-quant remedy prices that file.
    const CatalogQuant* next = nullptr;
    for (const auto& o : e.quants)
        if (o.file_bytes < q.file_bytes && (!next || o.file_bytes > next->file_bytes)) next = &o;
    if (next)
        s.siblings.push_back({next->name, e.id + ":" + next->name, next->file_bytes,
                              std::make_shared<const ModelShape>(catalogShapeOnly(e, *next))});
    return s;
}

namespace {

ModelShape catalogShapeOnly(const CatalogEntry& e, const CatalogQuant& q) {
    ModelShape s;
    s.id = e.id;
    s.name = e.name;
    s.architecture = e.architecture;
    s.quant = q.name;
    s.source = ShapeSource::Catalog;
    s.n_ctx_train = e.n_ctx_train;
    s.yarn_factor = e.yarn_factor;
    s.yarn_orig_ctx = e.yarn_orig_ctx;
    s.yarn_source = e.yarn_source;
    s.n_vocab = e.n_vocab;
    s.n_embd = e.n_embd;
    s.n_ff = *std::max_element(e.n_ff.begin(), e.n_ff.end());
    s.n_ff_exp = e.n_ff_exp;
    s.n_swa = e.swa.any ? e.sliding_window : 0;
    s.n_params = e.params_total;
    s.moe = {e.n_expert, e.n_expert_used, e.n_expert_shared};
    s.mmproj_bytes = e.mmproj_bytes;
    s.file_bytes = q.file_bytes;
    s.n_mtp_layers = e.nextn_layers;

    const std::uint32_t n_trunk = e.nTrunk();
    for (std::uint32_t il = 0; il < e.n_layer; ++il) {
        LayerShape l;
        l.n_head = e.n_head[il];
        l.n_head_kv = e.n_head_kv[il];
        l.is_mtp = il >= n_trunk;
        // Layer kind, in the order llama.cpp decides it: recurrent layers have no KV
        // (llama_memory_hybrid filters on is_recr), layers past n_layer_kv_from_start reuse
        // another layer's cache (llama_hparams::has_kv), n_head_kv == 0 means no attention,
        // MLA caches one latent row (llama_kv_cache with is_mla), SWA layers use SWA dims
        // (llama_hparams::n_embd_head_k(il) picks the _swa value when is_swa(il)).
        LayerMemory mem;
        mem.recurrent = e.recurrent.matches(il, n_trunk);
        mem.kv = !mem.recurrent && !(e.n_layer_kv_from_start && il >= *e.n_layer_kv_from_start) &&
                 l.n_head_kv != 0;
        mem.mla = e.isMla();
        mem.swa = !mem.mla && e.swa.matches(il, n_trunk);
        if (mem.recurrent) {
            l.n_head_kv = 0;
            mem.state_r = e.n_embd_r;
            mem.state_s = e.n_embd_s;
        } else if (mem.kv && mem.mla) {
            // DeepSeek-2 GGUFs store the latent cache as one KV head of
            // kv_lora_rank + n_rot (attention.key_length_mla, models/deepseek2.cpp).
            l.n_head_kv = 1;
            mem.head_k = e.kv_lora_rank + e.rope_dim;
        } else if (mem.kv && mem.swa) {
            l.n_head_kv = e.swa_n_head_kv ? *e.swa_n_head_kv : l.n_head_kv;
            mem.head_k = e.swa_head_dim_k ? e.swa_head_dim_k : e.head_dim_k;
            mem.head_v = e.swa_head_dim_v ? e.swa_head_dim_v : e.head_dim_v;
        } else {
            mem.head_k = e.head_dim_k;
            mem.head_v = e.head_dim_v;
        }
        mem.n_head_kv = l.n_head_kv;
        setLayerMemory(l, mem);
        s.layers.push_back(l);
    }

    // Weight bytes.
    const CatalogParamSplit p = catalogParamSplit(e);
    const Bytes header = catalogHeaderEstimate(e, q.file_bytes);
    if (q.groups) {
        const auto& g = *q.groups;
        s.token_embd_bytes = g.token_embd;
        s.output_bytes = g.output;
        s.other_bytes = g.other;
        const auto attn = apportion(g.attn, p.attn);
        const auto ffn = apportion(g.ffn, p.ffn);
        const auto exps = apportion(g.experts, p.experts);
        for (std::uint32_t il = 0; il < e.n_layer; ++il) {
            s.layers[il].attn_bytes = attn[il];
            s.layers[il].ffn_bytes = ffn[il];
            s.layers[il].experts_bytes = exps[il];
        }
        s.notes.push_back("weights: per-group sizes from the catalog; per-layer split by "
                          "parameter count");
    } else {
        // A standard mixture splits the file by each part's bytes at its tensors' types; any
        // other quant by parameter count.
        const auto ftype = fileTypeFromQuantName(q.name);
        const CatalogParamSplit by = ftype ? catalogTypedSplit(e, *ftype) : p;
        std::vector<std::uint64_t> w{by.token_embd, by.output};
        for (std::uint32_t il = 0; il < e.n_layer; ++il) {
            w.push_back(by.attn[il]);
            w.push_back(by.ffn[il]);
            w.push_back(by.experts[il]);
        }
        const auto parts = apportion(satSub(q.file_bytes, header), w);
        s.token_embd_bytes = parts[0];
        s.output_bytes = parts[1];
        for (std::uint32_t il = 0; il < e.n_layer; ++il) {
            s.layers[il].attn_bytes = parts[2 + 3 * il];
            s.layers[il].ffn_bytes = parts[3 + 3 * il];
            s.layers[il].experts_bytes = parts[4 + 3 * il];
            if (il < by.attn_output_block.size()) {
                s.layers[il].attn_output_block = by.attn_output_block[il];
                s.layers[il].ffn_down_block = by.ffn_down_block[il];
            }
        }
        s.notes.push_back(
            "weights: file size from the catalog (" + q.source + "), split over tensors " +
            (ftype ? "by their bytes at llama-quantize's " + q.name + " types (the mixture's rules)"
                   : std::string("by parameter count (an estimate)")));
    }
    if (e.tied_embeddings && s.output_bytes == 0) {
        // llama.cpp loads the tied token_embd a second time as the output head
        // (TENSOR_DUPLICATED), so it costs memory on the output's device too.
        s.output_bytes = s.token_embd_bytes;
        s.output_tied_to_embd = true;
        s.notes.push_back("output head is tied to token_embd; llama.cpp loads a duplicate");
    }
    if (q.file_bytes_precision > 0)
        s.notes.push_back("file size is rounded in its source (±" +
                          formatBytes(q.file_bytes_precision) + ")");
    if (e.nextn_layers > 0)
        s.notes.push_back(std::to_string(e.nextn_layers) +
                          " MTP (nextn) block(s) in the file; skipped unless MTP is on");
    return s;
}

} // namespace

} // namespace headroom
