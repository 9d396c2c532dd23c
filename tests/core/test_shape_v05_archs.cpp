// Architectures llama.cpp v0.5.0 (de3ff815) added: which layers cache what, derived from each
// src/models/<arch>.cpp load_arch_hparams and llama_model::create_memory (src/llama-model.cpp),
// and for the sparse-attention models the extra indexer-key cache of llama_kv_cache_dsa
// (src/llama-kv-cache-dsa.cpp), priced to the byte.
#include "core/shape_test_util.h"
#include "pricing.h"

using namespace headroom;
using namespace headroom::test;

Q_DECLARE_METATYPE(headroom::LlamaVersion)

namespace {

// DeepSeek-V3.2-Exp config.json: 61 layers + 1 MTP block, hidden 7168, 128 heads,
// kv_lora_rank 512, qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128,
// q_lora_rank 1536, index_n_heads 64, index_head_dim 128, index_topk 2048, 256 experts (top 8)
// of 2048, one shared, 163840 context. The converter (conversion/deepseek.py) writes
// head_count_kv 1, key_length = kv_lora_rank + rope = 576, value_length 512,
// key_length_mla = 128 + 64 = 192, value_length_mla 128, block_count 61 + nextn.
Header deepseek32(std::uint32_t nextn) {
    Header h("deepseek32");
    h.transformer(163840, 7168, 61 + nextn, 128, 1, 576)
        .u32("attention.value_length", 512)
        .u32("attention.q_lora_rank", 1536)
        .u32("attention.kv_lora_rank", 512)
        .u32("attention.key_length_mla", 192)
        .u32("attention.value_length_mla", 128)
        .u32("attention.indexer.head_count", 64)
        .u32("attention.indexer.key_length", 128)
        .u32("attention.indexer.top_k", 2048)
        .u32("expert_count", 256)
        .u32("expert_used_count", 8)
        .u32("expert_shared_count", 1)
        .u32("expert_feed_forward_length", 2048);
    if (nextn) h.u32("nextn_predict_layers", nextn);
    return h;
}

// GLM-5 config.json: 78 layers + 1 MTP block, hidden 6144, 64 heads, kv_lora_rank 512,
// qk_rope_head_dim 64, qk_nope_head_dim 192, v_head_dim 256, q_lora_rank 2048, index_n_heads 32,
// index_head_dim 128, index_topk 2048, 256 experts (top 8), one shared, 202752 context.
Header glmDsa(std::uint32_t ctx) {
    Header h("glm-dsa");
    h.transformer(ctx, 6144, 79, 64, 1, 576)
        .u32("attention.value_length", 512)
        .u32("attention.q_lora_rank", 2048)
        .u32("attention.kv_lora_rank", 512)
        .u32("attention.key_length_mla", 256)
        .u32("attention.value_length_mla", 256)
        .u32("attention.indexer.head_count", 32)
        .u32("attention.indexer.key_length", 128)
        .u32("attention.indexer.top_k", 2048)
        .u32("expert_count", 256)
        .u32("expert_used_count", 8)
        .u32("expert_shared_count", 1)
        .u32("nextn_predict_layers", 1);
    return h;
}

// A small DeepSeek-V4 file (the sizes of the llama-server check below): hidden 256, 4 blocks,
// 8 heads, 1 KV head of 128, window 128, indexer 4 heads of 64 (top-k 64).
Header deepseek4(const std::vector<std::uint32_t>& ratios) {
    Header h("deepseek4");
    h.transformer(1048576, 256, 4, 8, 1, 128)
        .u32("attention.sliding_window", 128)
        .u32("attention.indexer.head_count", 4)
        .u32("attention.indexer.key_length", 64)
        .u32("attention.indexer.top_k", 64)
        .arr("attention.compress_ratios", ratios);
    return h;
}

int countIndexed(const ModelShape& s) {
    int n = 0;
    for (const auto& l : s.layers)
        n += l.n_embd_indexer_k > 0 ? 1 : 0;
    return n;
}

// Kimi-Linear-48B-A3B config.json: 27 layers, hidden 2304, 32 heads, linear_attn_config
// head_dim 128, short_conv_kernel_size 4, full_attn_layers [4, 8, 12, 16, 20, 24, 27] (1-based),
// MLA kv_lora_rank 512 + qk_rope 64. conversion/kimi_linear.py writes head_count_kv 1 for the
// MLA layers and 0 for the KDA layers, key_length 576.
Header kimiLinear(const std::string& arch = "kimi-linear") {
    std::vector<std::uint32_t> kv(27, 0);
    for (std::uint32_t one_based : {4u, 8u, 12u, 16u, 20u, 24u, 27u})
        kv[one_based - 1] = 1;
    Header h(arch);
    h.transformer(1048576, 2304, 27, 32, 1, 576)
        .arr("attention.head_count_kv", kv)
        .u32("attention.value_length", 512)
        .u32("attention.kv_lora_rank", 512)
        .u32("attention.key_length_mla", 192)
        .u32("attention.value_length_mla", 128)
        .u32("ssm.conv_kernel", 4)
        .u32("kda.head_dim", 128);
    return h;
}

} // namespace

class TestShapeV05Archs : public QObject {
    Q_OBJECT
private slots:
    // llama_kv_cache_dsa: kv_mla (the MLA latent, K only) plus kv_lid, a llama_kv_cache built
    // from hparams with n_head_kv 1 and n_embd_head_k_full = indexer_head_size (128), K only
    // because the model is MLA. (Checked once against llama-server v0.5.0 on the CPU with a
    // 2-layer deepseek32 file of these head sizes, -c 4096 -np 1: "main KV cache" K 9.00 MiB
    // and "indexer KV cache" K 2.00 MiB, i.e. 2 x 4 718 592 and 2 x 1 048 576.)
    void deepseekV32CachesTheMlaLatentAndA128WideIndexerKeyPerLayer() {
        auto s = deepseek32(0).shape();
        QVERIFY(!s.conservative);
        QCOMPARE(countKind(s, AttentionKind::Mla), 61);
        QCOMPARE(countIndexed(s), 61);
        QCOMPARE(s.layers[0].n_embd_k_gqa, 576u); // 576 x 1 KV head
        QCOMPARE(s.layers[0].n_embd_v_gqa, 0u);   // MLA: no V cache
        QCOMPARE(s.layers[0].n_embd_indexer_k, 128u);

        ResolvedOptions o; // f16 K and V, one sequence, flash attention
        const ContextPrice p = priceContext(s, o, 4096);
        // Per layer: latent 576 x 2 B x 4096 cells = 4 718 592; indexer 128 x 2 B x 4096
        // = 1 048 576; together 5 767 168 as K, nothing as V.
        QCOMPARE(p.layers[0].kv_k, Bytes{5767168});
        QCOMPARE(p.layers[0].kv_v, Bytes{0});
        // 61 layers x 5 767 168 = 351 797 248.
        QCOMPARE(p.kvTotal(), Bytes{351797248});

        o.type_k = GgmlType::Q8_0;
        // q8_0: 576 = 18 blocks x 34 B = 612 B, 128 = 4 blocks x 34 B = 136 B per cell;
        // (612 + 136) x 4096 = 3 063 808 per layer.
        QCOMPARE(priceContext(s, o, 4096).layers[0].kv_k, Bytes{3063808});
    }

    // create_memory, LLM_ARCH_DEEPSEEK32 with n_layer_nextn > 0: the main DSA cache filters
    // il < n_layer() for both caches; the MTP context is a plain llama_kv_cache of the nextn
    // block, which runs dense MLA (no indexer).
    void deepseekV32MtpBlockIsCachedByTheDraftContextWithoutAnIndexer() {
        auto s = deepseek32(1).shape();
        QCOMPARE(s.nLayer(), 62u);
        const auto& mtp = s.layers[61];
        QVERIFY(mtp.is_mtp);
        QVERIFY(!mtp.in_main_cache);
        QCOMPARE(mtp.attention, AttentionKind::Mla);
        QCOMPARE(mtp.n_embd_indexer_k, 0u);
        QCOMPARE(countIndexed(s), 61);

        ResolvedOptions o;
        QCOMPARE(priceContext(s, o, 4096).layers[61].kv_k, Bytes{0}); // MTP off: not cached
        o.mtp = true;
        // MTP on: the draft context's latent only, 576 x 2 B x 4096 = 4 718 592; the trunk's
        // cache is not duplicated.
        const ContextPrice p = priceContext(s, o, 4096);
        QCOMPARE(p.layers[61].kv_k, Bytes{4718592});
        QCOMPARE(p.mtp_kv_k, Bytes{0});
    }

    void deepseekV32WithoutMlaHeadSizesIsRefusedAsLlamaCppDoes() {
        Header h = deepseek32(0);
        ShapeInput in = h.input();
        in.meta.erase("deepseek32.attention.key_length_mla");
        auto r = shapeFromInput(in);
        QVERIFY(!r);
        QVERIFY(r.error().message.find("requires MLA") != std::string::npos);
    }

    void deepseekV32WithoutIndexerKeyLengthIsRefused() {
        ShapeInput in = deepseek32(0).input();
        in.meta.erase("deepseek32.attention.indexer.key_length");
        QVERIFY(!shapeFromInput(in));
    }

    // glm-dsa.cpp load_arch_hparams: n_ctx_train < 1048576 (GLM-5, 5.1) fills
    // is_indexer_full with 1: all 78 trunk layers index; the MTP block (il 78) never does.
    void glm5IndexesEveryTrunkLayer() {
        auto s = glmDsa(202752).shape();
        QCOMPARE(countKind(s, AttentionKind::Mla), 79);
        QCOMPARE(countIndexed(s), 78);
        QVERIFY(!s.layers[78].in_main_cache);
        ResolvedOptions o;
        // Per layer at 8192 cells, f16: (576 + 128) x 2 B x 8192 = 11 534 336; x 78.
        const ContextPrice p = priceContext(s, o, 8192);
        QCOMPARE(p.layers[5].kv_k, Bytes{11534336});
        QCOMPARE(p.kvTotal(), Bytes{11534336} * 78);
    }

    // GLM-5.2 (n_ctx_train >= 1048576) without indexer.types: GLM_5_2_DEFAULT_INDEXER_TYPES,
    // 1 for layers 0 and 1 and for every 4th from 2 (2, 6, ..., 74): 2 + 19 = 21 of 78.
    void glm52UsesItsDefaultIndexerTableWithoutIndexerTypes() {
        auto s = glmDsa(1048576).shape();
        QCOMPARE(countIndexed(s), 21);
        QCOMPARE(s.layers[0].n_embd_indexer_k, 128u);
        QCOMPARE(s.layers[1].n_embd_indexer_k, 128u);
        QCOMPARE(s.layers[2].n_embd_indexer_k, 128u);
        QCOMPARE(s.layers[3].n_embd_indexer_k, 0u);
        QCOMPARE(s.layers[74].n_embd_indexer_k, 128u);
        QCOMPARE(s.layers[77].n_embd_indexer_k, 0u);
        ResolvedOptions o;
        // 78 latent rows of 576 + 21 indexer rows of 128, f16, 8192 cells:
        // (78 x 576 + 21 x 128) x 2 x 8192 = (44928 + 2688) x 16384 = 780 140 544.
        QCOMPARE(priceContext(s, o, 8192).kvTotal(), Bytes{780140544});
    }

    // get_key_or_arr(indexer.types, is_indexer_full_impl, n_layer()): the file's flags win.
    void glmDsaIndexerTypesArraySelectsTheIndexedLayers() {
        std::vector<bool> types(78, false);
        types[10] = types[20] = types[30] = true;
        auto s = glmDsa(1048576).bools("attention.indexer.types", types).shape();
        QCOMPARE(countIndexed(s), 3);
        QCOMPARE(s.layers[20].n_embd_indexer_k, 128u);
        QCOMPARE(s.layers[0].n_embd_indexer_k, 0u);
    }

    // hy-v4.cpp / create_memory LLM_ARCH_HY_V4: indexer.top_k 0 (an all-full-attention
    // checkpoint) gives a plain MLA cache; with top_k the indexer.types flags pick the layers.
    void hyV4IndexesOnlyTheLayersItsIndexerTypesFlag() {
        auto hyV4 = [] {
            Header h("hy_v4");
            h.transformer(262144, 4096, 4, 32, 1, 576)
                .u32("attention.q_lora_rank", 1024)
                .u32("attention.kv_lora_rank", 512)
                .u32("attention.key_length_mla", 192)
                .u32("attention.value_length_mla", 128)
                .u32("expert_shared_count", 1);
            return h;
        };
        auto dense = hyV4().shape();
        QCOMPARE(countKind(dense, AttentionKind::Mla), 4);
        QCOMPARE(countIndexed(dense), 0);

        Header sparse = hyV4();
        sparse.u32("attention.indexer.head_count", 32)
            .u32("attention.indexer.key_length", 128)
            .u32("attention.indexer.top_k", 1024);
        // No indexer.types: every flag stays 0 and layer 0 has no indexer -> refused.
        QVERIFY(!shapeFromInput(sparse.input()));
        auto s = sparse.bools("attention.indexer.types", {true, false, true, false}).shape();
        QCOMPARE(countIndexed(s), 2);
        ResolvedOptions o;
        // Layer 0: (576 + 128) x 2 B x 4096 = 5 767 168; layer 1: 576 x 2 x 4096 = 4 718 592.
        const ContextPrice p = priceContext(s, o, 4096);
        QCOMPARE(p.layers[0].kv_k, Bytes{5767168});
        QCOMPARE(p.layers[1].kv_k, Bytes{4718592});
    }

    // dots3note.cpp / create_memory LLM_ARCH_DOTS3NOTE (llama_kv_cache_dsa_iswa): MLA on both
    // kinds, sliding layers window-sized with their own latent (key_length_swa = SWA
    // kv_lora_rank 256 + rope 64 = 320), indexer keys on the flagged full layers.
    // Dims illustrative: 6 layers, F S S F S S, window 1024.
    void dots3NoteSlidesItsMlaLayersAndIndexesTheFullOnes() {
        Header h("dots3note");
        h.transformer(131072, 2048, 6, 16, 1, 576)
            .u32("attention.value_length", 512)
            .u32("attention.key_length_swa", 320)
            .u32("attention.value_length_swa", 256)
            .u32("attention.q_lora_rank", 1024)
            .u32("attention.kv_lora_rank", 512)
            .u32("attention.key_length_mla", 192)
            .u32("attention.value_length_mla", 128)
            .u32("attention.kv_lora_rank_swa", 256)
            .u32("attention.key_length_mla_swa", 128)
            .u32("attention.value_length_mla_swa", 64)
            .u32("attention.sliding_window", 1024)
            .raw("dots3note.rope.freq_base_swa", GgufValue::f32(10000.0F))
            .bools("attention.sliding_window_pattern", {false, true, true, false, true, true})
            .u32("attention.indexer.head_count", 32)
            .u32("attention.indexer.key_length", 128)
            .u32("attention.indexer.top_k", 1024)
            .bools("attention.indexer.types", {true, false, false, true, false, false})
            .u32("expert_shared_count", 1)
            .u32("leading_dense_block_count", 1)
            .u32("expert_gating_func", 2);
        auto s = h.shape();
        QCOMPARE(countKind(s, AttentionKind::Mla), 2);
        QCOMPARE(countKind(s, AttentionKind::SlidingWindow), 4);
        QCOMPARE(countIndexed(s), 2);
        QCOMPARE(s.layers[1].n_embd_k_gqa, 320u);
        QCOMPARE(s.layers[1].n_embd_v_gqa, 0u); // MLA: no V on the sliding layers either
        ResolvedOptions o;
        const ContextPrice p = priceContext(s, o, 8192);
        // Full layers: (576 + 128) x 2 B x 8192 = 11 534 336. SWA layers: window cells
        // pad256(min(8192, 1024 + ubatch 512)) = 1536; 320 x 2 B x 1536 = 983 040, no V.
        QCOMPARE(p.layers[0].kv_k, Bytes{11534336});
        QCOMPARE(p.layers[1].kv_k, Bytes{983040});
        QCOMPARE(p.layers[1].kv_v, Bytes{0});
        // 2 x 11 534 336 + 4 x 983 040 = 27 000 832.
        QCOMPARE(p.kvTotal(), Bytes{27000832});
        // Without flash attention V stays absent (every layer's V width is 0).
        o.flash_attn = false;
        QCOMPARE(priceContext(s, o, 8192).kvTotal(), Bytes{27000832});
        // The indexer.types array is required (get_arr).
        ShapeInput in = h.input();
        in.meta.erase("dots3note.attention.indexer.types");
        QVERIFY(!shapeFromInput(in));
    }

    // minimax-m3.cpp / create_memory LLM_ARCH_MINIMAX_M3 (llama_kv_cache_msa): every layer a
    // plain GQA row; layers from leading_dense_block_count on also an indexer row with one key
    // head of 128 and, the model not being MLA, one value head of value_length (128).
    void minimaxM3IndexerCacheHasAKeyAndAValueHead() {
        Header h("minimax-m3");
        h.transformer(196608, 3072, 4, 48, 8, 128)
            .u32("leading_dense_block_count", 1)
            .u32("expert_shared_count", 0)
            .u32("expert_gating_func", 2)
            .u32("attention.indexer.head_count", 16)
            .u32("attention.indexer.key_length", 128)
            .u32("attention.indexer.top_k", 16)
            .u32("attention.indexer.block_size", 64)
            .u32("attention.indexer.local_blocks", 2);
        auto s = h.shape();
        QCOMPARE(countKind(s, AttentionKind::Full), 4);
        QCOMPARE(countIndexed(s), 3);
        QCOMPARE(s.layers[0].n_embd_indexer_k, 0u);
        QCOMPARE(s.layers[1].n_embd_indexer_v, 128u);
        ResolvedOptions o;
        const ContextPrice p = priceContext(s, o, 4096);
        // Layer 0: K = V = 8 x 128 x 2 B x 4096 = 8 388 608. Layer 1 adds 128 x 2 B x 4096
        // = 1 048 576 to each: 9 437 184.
        QCOMPARE(p.layers[0].kv_k, Bytes{8388608});
        QCOMPARE(p.layers[1].kv_k, Bytes{9437184});
        QCOMPARE(p.layers[1].kv_v, Bytes{9437184});
        // block_size 0 is refused (GGML_ASSERT in load_arch_hparams).
        QVERIFY(!shapeFromInput(Header(h).u32("attention.indexer.block_size", 0).input()));
    }

    // kimi-linear.cpp load_arch_hparams: KDA layers are those with head_count_kv 0; hybrid
    // memory with the default filters. (Checked once against llama-server v0.5.0 on the CPU:
    // a 2-layer file, 8 heads, KDA head 128, conv 4, -np 4, logged R 0.14 MiB and S 2.00 MiB,
    // i.e. 9216 and 131072 f32 per sequence: the formulas below.) n_embd_r (KDA) = 3 x (conv 4 - 1)
    // x n_head 32 x 128 = 36 864; n_embd_s = 128 x 128 x 32 = 524 288.
    void kimiLinearHasSevenMlaLayersAndTwentyKdaStates() {
        auto s = kimiLinear().shape();
        QCOMPARE(countKind(s, AttentionKind::Mla), 7);
        QCOMPARE(countKind(s, AttentionKind::Recurrent), 20);
        QCOMPARE(s.layers[3].attention, AttentionKind::Mla);
        QCOMPARE(s.layers[26].attention, AttentionKind::Mla);
        QCOMPARE(s.layers[3].n_embd_k_gqa, 576u);
        QCOMPARE(s.layers[0].recurrent_r, 36864ull);
        QCOMPARE(s.layers[0].recurrent_s, 524288ull);
        ResolvedOptions o;
        o.n_seq = 2;
        const ContextPrice p = priceContext(s, o, 8192);
        // State: (36 864 + 524 288) x 4 B (f32) x 2 sequences = 4 489 216 per KDA layer.
        QCOMPARE(p.layers[0].state, Bytes{4489216});
        // MLA latent: 576 x 2 B x 4096 cells x 2 streams = 9 437 184; no V.
        QCOMPARE(p.layers[3].kv_k, Bytes{9437184});
        QCOMPARE(p.layers[3].kv_v, Bytes{0});
    }

    void kimiK3AndBailingMoe3UseTheSameKdaLayout() {
        for (const char* arch : {"kimi-k3", "bailingmoe3"}) {
            auto s = kimiLinear(arch).shape();
            QVERIFY(!s.conservative);
            QCOMPARE(countKind(s, AttentionKind::Recurrent), 20);
            QCOMPARE(s.layers[0].recurrent_s, 524288ull);
        }
    }

    // bailingmoe3 with one nextn block: the hybrid main cache's default filter (!is_recr) keeps
    // the MTP block, and the MTP draft context (create_memory: mtp_on_hybrid_qwen) is a plain
    // cache of that block only, not of the whole trunk.
    void bailingMoe3MtpDraftContextCachesOnlyTheNextnBlock() {
        Header h = kimiLinear("bailingmoe3");
        std::vector<std::uint32_t> kv(28, 0);
        for (std::uint32_t one_based : {4u, 8u, 12u, 16u, 20u, 24u, 27u, 28u})
            kv[one_based - 1] = 1;
        h.u32("block_count", 28).u32("nextn_predict_layers", 1).arr("attention.head_count_kv", kv);
        auto s = h.shape();
        QVERIFY(s.layers[27].is_mtp);
        QVERIFY(s.layers[27].in_main_cache);
        QCOMPARE(s.layers[27].attention, AttentionKind::Mla);
        ResolvedOptions o;
        o.mtp = true;
        const ContextPrice p = priceContext(s, o, 4096);
        // Main: 7 trunk MLA layers + the MTP block, 576 x 2 B x 4096 = 4 718 592 each. Draft
        // context: the MTP block once more, 4 718 592 (not 8 x 4 718 592).
        QCOMPARE(p.layers[27].kv_k, Bytes{4718592});
        QCOMPARE(p.mtp_kv_k, Bytes{4718592});
        QCOMPARE(p.mtp_kv_v, Bytes{0});
    }

    void kimiLinearWithoutKdaHeadDimIsRefused() {
        ShapeInput in = kimiLinear().input();
        in.meta.erase("kimi-linear.kda.head_dim");
        QVERIFY(!shapeFromInput(in));
    }

    // MiniMax-Text-01 config.json: 80 layers, hidden 6144, 64 heads, 8 KV heads, head_dim 128,
    // softmax attention on every 8th layer. minimax-01.cpp load_arch_hparams:
    // n_embd_head_la = key length 128; recurrent unless (il + 1) % 8 == 0 (default interval 8).
    // n_embd_s = 128 x 128 x 64 = 1 048 576, n_embd_r = 0 (no conv state).
    void minimax01HasTenSoftmaxLayersAndSeventyLightningStates() {
        Header h("minimax-01");
        h.transformer(1000000, 6144, 80, 64, 8, 128);
        auto s = h.shape();
        QCOMPARE(countKind(s, AttentionKind::Full), 10);
        QCOMPARE(countKind(s, AttentionKind::Recurrent), 70);
        QCOMPARE(s.layers[7].attention, AttentionKind::Full);
        QCOMPARE(s.layers[7].n_embd_k_gqa, 1024u); // 8 x 128
        QCOMPARE(s.layers[0].recurrent_s, 1048576ull);
        QCOMPARE(s.layers[0].recurrent_r, 0ull);
    }

    // plamo2.cpp load_arch_hparams: Mamba-2 keys, recurrent iff head_count_kv 0.
    // n_embd_r = (conv 4 - 1) x (inner 4096 + 2 x 1 group x state 64) = 12 672;
    // n_embd_s = 64 x 4096 = 262 144.
    void plamo2AlternatesMambaAndAttentionByKvHeads() {
        Header h("plamo2");
        h.transformer(32768, 2048, 4, 16, 4, 128)
            .arr("attention.head_count_kv", {0, 4, 0, 4})
            .u32("ssm.conv_kernel", 4)
            .u32("ssm.inner_size", 4096)
            .u32("ssm.state_size", 64)
            .u32("ssm.time_step_rank", 64)
            .u32("ssm.group_count", 1);
        auto s = h.shape();
        QCOMPARE(countKind(s, AttentionKind::Recurrent), 2);
        QCOMPARE(s.layers[1].attention, AttentionKind::Full);
        QCOMPARE(s.layers[1].n_embd_k_gqa, 512u);
        QCOMPARE(s.layers[0].recurrent_r, 12672ull);
        QCOMPARE(s.layers[0].recurrent_s, 262144ull);
    }

    // Sliding-window patterns of the new dense / MoE families (8 layers each, 4 KV heads of 128).
    void slidingWindowPatterns_data() {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<bool>("withWindow");
        QTest::addColumn<int>("swaLayers");
        QTest::addColumn<int>("firstFull");
        // cohere2moe.cpp: load_swa_pattern(4, dense_first): full at il % 4 == 0 -> 0, 4.
        QTest::newRow("cohere2moe") << "cohere2moe" << true << 6 << 0;
        // laguna.cpp: window given -> load_swa_pattern(4, dense_first) -> full at 0, 4.
        QTest::newRow("laguna-xs") << "laguna" << true << 6 << 0;
        // laguna.cpp: no window -> swa_type NONE, all full (M.1).
        QTest::newRow("laguna-m") << "laguna" << false << 0 << 0;
        // mellum.cpp: load_swa_pattern(4): full where il % 4 == 3 -> 3, 7.
        QTest::newRow("mellum") << "mellum" << true << 6 << 3;
        // plamo3.cpp: load_swa_pattern(8): only layer 7 full.
        QTest::newRow("plamo3") << "plamo3" << true << 7 << 7;
        QTest::newRow("plamo3-no-window") << "plamo3" << false << 0 << 0;
    }
    void slidingWindowPatterns() {
        QFETCH(QString, arch);
        QFETCH(bool, withWindow);
        QFETCH(int, swaLayers);
        QFETCH(int, firstFull);
        Header h(arch.toStdString());
        h.transformer(131072, 2048, 8, 16, 4, 128);
        if (withWindow) h.u32("attention.sliding_window", 1024);
        auto s = h.shape();
        QVERIFY(!s.conservative);
        QCOMPARE(countKind(s, AttentionKind::SlidingWindow), swaLayers);
        QCOMPARE(s.layers[static_cast<std::size_t>(firstFull)].attention, AttentionKind::Full);
        QCOMPARE(s.n_swa, withWindow ? 1024u : 0u);
    }

    // step35.cpp, mimo2.cpp, maple.cpp: window required and per-layer flags from the
    // sliding_window_pattern array (get_arr, required).
    void perLayerSwaFlags_data() {
        QTest::addColumn<QString>("arch");
        QTest::newRow("step35") << "step35";
        QTest::newRow("mimo2") << "mimo2";
        QTest::newRow("maple") << "maple";
    }
    void perLayerSwaFlags() {
        QFETCH(QString, arch);
        Header h(arch.toStdString());
        h.transformer(262144, 4096, 6, 32, 8, 128)
            .u32("attention.sliding_window", 512)
            .bools("attention.sliding_window_pattern", {false, true, true, false, true, true});
        auto s = h.shape();
        // Flags 0,1,1,0,1,1: four sliding layers, 0 and 3 full.
        QCOMPARE(countKind(s, AttentionKind::SlidingWindow), 4);
        QCOMPARE(s.layers[3].attention, AttentionKind::Full);
        // Without the array llama.cpp refuses the file (get_arr required).
        ShapeInput in = h.input();
        in.meta.erase(arch.toStdString() + ".attention.sliding_window_pattern");
        QVERIFY(!shapeFromInput(in));
    }

    // load_swa_pattern: an array of flags wins over the default period.
    void lagunaSwaArrayOverridesTheDefaultPeriod() {
        Header h("laguna");
        h.transformer(131072, 2048, 4, 16, 4, 128)
            .u32("attention.sliding_window", 512)
            .bools("attention.sliding_window_pattern", {true, true, true, false});
        auto s = h.shape();
        QCOMPARE(countKind(s, AttentionKind::SlidingWindow), 3);
        QCOMPARE(s.layers[3].attention, AttentionKind::Full);
    }

    // v0.5.0 create_memory default branch: with n_layer_nextn > 0 the main cache keeps
    // il < n_layer() and the MTP context il >= n_layer() (HY V3 has one nextn block).
    void hyV3MtpBlockLivesOnlyInTheDraftContext() {
        Header h("hy_v3");
        h.transformer(262144, 4096, 5, 32, 8, 128).u32("nextn_predict_layers", 1);
        auto s = h.shape();
        QCOMPARE(s.n_mtp_layers, 1u);
        QVERIFY(!s.layers[4].in_main_cache);
        QVERIFY(s.layers[3].in_main_cache);
        ResolvedOptions o;
        o.mtp = true;
        const ContextPrice p = priceContext(s, o, 4096);
        // Draft context: 8 x 128 = 1024 f16 = 2048 B per cell x 4096 = 8 388 608 each of K, V;
        // the trunk is not cached a second time.
        QCOMPARE(p.layers[4].kv_k, Bytes{8388608});
        QCOMPARE(p.mtp_kv_k, Bytes{0});
    }

    // The nextn layout is a llama.cpp version difference (LlamaProfile::filtersNextn).
    // create_memory's default branch, llama.cpp v0.5.0 (de3ff815) src/llama-model.cpp: every
    // non-hybrid architecture with n_layer_nextn > 0 keeps il < n_layer() in the main cache and
    // il >= n_layer() in the MTP context. v0.4.0 (80fb11ac), same function: that filter only for
    // step35, hy_v3, glm-dsa, mimo2 and deepseek32; the others' main cache holds the nextn
    // block and their MTP context, unfiltered, caches every layer again.
    // Each file: 4 trunk blocks + 1 nextn block, 8 KV heads of 128 = 1024 f16 = 2048 B per cell,
    // so one layer's K at 4096 cells is 2048 x 4096 = 8 388 608 B.
    // Measured with llama-server v0.5.0 (CPU build, -c 4096 -np 1 -fit off) on a sparse glm4moe
    // replica of GLM-4.5-Air's tensors (3 trunk blocks + the nextn block, 16 experts):
    // "llama_kv_cache: size = 48.00 MiB (4096 cells, 3 layers)" without MTP, and with
    // --spec-type draft-mtp a second cache "16.00 MiB (4096 cells, 1 layers)": 3 x 16 MiB in the
    // main cache and the nextn block alone in the draft context, as the v0.5.0 rows price it.
    void nextnBlockPlacementFollowsTheLlamaCppBuild_data() {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<LlamaVersion>("version");
        QTest::addColumn<bool>("mtp");
        QTest::addColumn<qulonglong>("nextn_k");  // the nextn block's K (main or draft cache)
        QTest::addColumn<qulonglong>("draft_k");  // the draft context's copy of other layers
        QTest::addColumn<qulonglong>("total_kv"); // K + V of everything
        const qulonglong layer = 8388608;
        // v0.5.0, MTP off: the nextn block is cached nowhere; 4 trunk layers x (K + V).
        QTest::newRow("glm4moe v0.5.0 off")
            << "glm4moe" << LlamaVersion::V0_5_0 << false << 0ull << 0ull << 4 * 2 * layer;
        // v0.5.0, MTP on: the draft context caches the nextn block alone: 5 x (K + V).
        QTest::newRow("glm4moe v0.5.0 on")
            << "glm4moe" << LlamaVersion::V0_5_0 << true << layer << 0ull << 5 * 2 * layer;
        // v0.4.0, MTP off: the main cache holds all 5 blocks (GLM-4.5-Air measured this way:
        // 47 x 16 MiB = 752 MiB at 4096 cells, tests/validation/measured.json).
        QTest::newRow("glm4moe v0.4.0 off")
            << "glm4moe" << LlamaVersion::V0_4_0 << false << layer << 0ull << 5 * 2 * layer;
        // v0.4.0, MTP on: the unfiltered draft context caches all 5 layers again: K 5 x layer,
        // total (5 main + 5 draft) x (K + V).
        QTest::newRow("glm4moe v0.4.0 on")
            << "glm4moe" << LlamaVersion::V0_4_0 << true << layer << 5 * layer << 10 * 2 * layer;
        // talkie is new in the v0.5.0 table but loads in v0.4.0 too, where it was not filtered.
        QTest::newRow("talkie v0.4.0 off")
            << "talkie" << LlamaVersion::V0_4_0 << false << layer << 0ull << 5 * 2 * layer;
        QTest::newRow("talkie v0.5.0 off")
            << "talkie" << LlamaVersion::V0_5_0 << false << 0ull << 0ull << 4 * 2 * layer;
        // hy_v3 was already filtered in v0.4.0: both builds cache it in the draft context only.
        QTest::newRow("hy_v3 v0.4.0 off")
            << "hy_v3" << LlamaVersion::V0_4_0 << false << 0ull << 0ull << 4 * 2 * layer;
        QTest::newRow("hy_v3 v0.4.0 on")
            << "hy_v3" << LlamaVersion::V0_4_0 << true << layer << 0ull << 5 * 2 * layer;
    }
    void nextnBlockPlacementFollowsTheLlamaCppBuild() {
        QFETCH(QString, arch);
        QFETCH(LlamaVersion, version);
        QFETCH(bool, mtp);
        QFETCH(qulonglong, nextn_k);
        QFETCH(qulonglong, draft_k);
        QFETCH(qulonglong, total_kv);
        Header h(arch.toStdString());
        h.transformer(131072, 4096, 5, 32, 8, 128).u32("nextn_predict_layers", 1);
        const ModelShape s = h.shape();
        QVERIFY(s.layers[4].is_mtp);
        QVERIFY(s.nextn_default_filter);
        QVERIFY(!s.layers[4].in_main_cache); // the v0.5.0 layout is the shape's own
        ResolvedOptions o;
        o.llama_version = version;
        o.mtp = mtp;
        const ContextPrice p = priceContext(s, o, 4096);
        QCOMPARE(p.layers[4].kv_k, Bytes{nextn_k});
        QCOMPARE(p.mtp_kv_k, Bytes{draft_k});
        QCOMPARE(p.kvTotal(), Bytes{total_kv});
    }

    // DeepSeek-V3.2 has a create_memory case of its own, the same in both builds: the nextn block
    // is never in the main cache, whatever version is priced.
    void deepseekV32NextnLayoutIsTheSameInBothBuilds() {
        const ModelShape s = deepseek32(1).shape();
        QVERIFY(!s.nextn_default_filter);
        ResolvedOptions o;
        o.llama_version = LlamaVersion::V0_4_0;
        QCOMPARE(priceContext(s, o, 4096).layers[61].kv_k, Bytes{0});
    }

    // Plain full-attention families: load_arch_hparams reads nothing that changes the cache.
    void plainArchitectures_data() {
        QTest::addColumn<QString>("arch");
        QTest::newRow("talkie") << "talkie";
        QTest::newRow("maincoder") << "maincoder";
        QTest::newRow("hunyuan-dense") << "hunyuan-dense";
        QTest::newRow("hy_v3") << "hy_v3";
    }
    void plainArchitectures() {
        QFETCH(QString, arch);
        Header h(arch.toStdString());
        h.transformer(32768, 2048, 4, 16, 4, 128);
        auto s = h.shape();
        QVERIFY(!s.conservative);
        QCOMPARE(countKind(s, AttentionKind::Full), 4);
        QCOMPARE(s.layers[0].n_embd_k_gqa, 512u); // 4 x 128
    }

    // nanbeige.cpp load_arch_hparams: num_loops 3 over 4 blocks -> 12 logical layers, each with
    // its own KV row (4 KV heads x 128 = 512); only the 4 physical blocks carry weights.
    void nanbeigeLoopsGiveEveryLogicalLayerItsOwnKv() {
        Header h("nanbeige");
        h.transformer(32768, 2048, 4, 16, 4, 128).u32("num_loops", 3);
        for (int il = 0; il < 4; ++il)
            h.tensor("blk." + std::to_string(il) + ".attn_q.weight", {2048, 2048}, GgmlType::F16);
        auto s = h.shape();
        QCOMPARE(s.nLayer(), 12u);
        QCOMPARE(countKind(s, AttentionKind::Full), 12);
        QCOMPARE(s.layers[11].n_embd_k_gqa, 512u);
        // 2048 x 2048 f16 = 8 388 608 B on block 0; its loop copies (4, 8) carry none.
        QCOMPARE(s.layers[0].attn_bytes, Bytes{8388608});
        QCOMPARE(s.layers[4].attn_bytes, Bytes{0});
        // num_loops 0 is refused (llama.cpp asserts n_loops >= 1).
        QVERIFY(!shapeFromInput(Header(h).u32("num_loops", 0).input()));
    }

    // llama_model_base::load_hparams: hunyuan-dense with expert_count <= 1 has no experts.
    void hunyuanDenseWithOneExpertIsDense() {
        Header h("hunyuan-dense");
        h.transformer(262144, 4096, 4, 32, 8, 128)
            .u32("expert_count", 1)
            .u32("expert_used_count", 1);
        auto s = h.shape();
        QVERIFY(!s.isMoe());
        QCOMPARE(s.moe.n_expert_used, 0u);
    }

    // mistral4 is llama_model_deepseek2 (models.h): MLA when both MLA head sizes are present.
    void mistral4IsMlaLikeDeepseek2() {
        Header h("mistral4");
        h.transformer(262144, 4096, 4, 32, 1, 576)
            .u32("attention.kv_lora_rank", 512)
            .u32("attention.q_lora_rank", 1024)
            .u32("attention.key_length_mla", 192)
            .u32("attention.value_length_mla", 128);
        auto s = h.shape();
        QCOMPARE(countKind(s, AttentionKind::Mla), 4);
        QCOMPARE(s.layers[0].n_embd_k_gqa, 576u);
        QCOMPARE(s.layers[0].n_embd_indexer_k, 0u);
    }

    // create_memory returns no cache for these (or they are encoder / speech stacks):
    // llama-server has nothing to plan.
    void nonGenerativeArchitecturesAreRefused_data() {
        QTest::addColumn<QString>("arch");
        QTest::newRow("bert") << "bert";
        QTest::newRow("nomic-bert") << "nomic-bert";
        QTest::newRow("t5") << "t5";
        QTest::newRow("llada") << "llada";
        QTest::newRow("qwen3tts") << "qwen3tts";
    }
    void nonGenerativeArchitecturesAreRefused() {
        QFETCH(QString, arch);
        Header h(arch.toStdString());
        h.transformer(512, 768, 12, 12, 12, 64);
        auto r = shapeFromInput(h.input());
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::Unsupported);
        QVERIFY(r.error().message.find("not a text-generation model") != std::string::npos);
    }

    // DeepSeek-V4, create_memory's LLM_ARCH_DEEPSEEK4 branch: llama_kv_cache_dsv4
    // (src/llama-kv-cache-dsv4.cpp). A small 4-layer file: 1 KV head of 128, window 128, indexer
    // keys of 64, compress_ratios [0, 4, 128, 4]. Measured with llama-server v0.5.0 (CPU,
    // -c 4096 -np 1 -fit off) on a sparse replica of exactly these sizes (tensors enumerated from
    // the v0.5.0 loader): raw SWA cache 0.75 MiB (768 cells, 4 layers, K only), CSA 0.50 MiB
    // (1024 cells, 2 layers), HCA 0.06 MiB (256 cells, 1 layer), indexer 0.25 MiB (1024 cells,
    // 2 layers); compressor state csa 0.03, hca 0.12, lid 0.02 MiB. With -np 2 -kvu every one
    // doubled (raw 1.50, CSA 1.00, HCA 0.12, indexer 0.50; states "streams = 2").
    void deepseekV4KeepsARawWindowCompressedCachesAndCompressorState() {
        const ModelShape s = deepseek4({0, 4, 128, 4}).shape();
        QVERIFY(!s.conservative);
        QCOMPARE(countKind(s, AttentionKind::SlidingWindow), 4);
        QCOMPARE(s.layers[0].n_embd_k_gqa, 128u);
        QCOMPARE(s.layers[0].n_embd_v_gqa, 0u); // dsv4_make_k_only: K only
        QCOMPARE(s.layers[1].compress_ratio, 4u);
        QCOMPARE(s.layers[1].n_embd_comp_indexer_k, 64u);
        QCOMPARE(s.layers[2].compress_ratio, 128u);
        QCOMPARE(s.layers[2].n_embd_comp_indexer_k, 0u);
        // Compressor state per sequence: CSA 32 x (128 + 64) = 6 144, HCA 256 x 128 = 32 768.
        QCOMPARE(s.layers[1].recurrent_s, 6144ull);
        QCOMPARE(s.layers[2].recurrent_s, 32768ull);
        QCOMPARE(s.layers[0].recurrent_s, 0ull);

        ResolvedOptions o; // f16, flash attention, one sequence, ub 512
        const ContextPrice p = priceContext(s, o, 4096);
        // Raw window: pad256(min(4096, 128 + 512)) = 768 cells x 128 x 2 B = 196 608.
        QCOMPARE(p.layers[0].kv_k, Bytes{196608});
        QCOMPARE(p.layers[0].kv_v, Bytes{0});
        // CSA: + pad256(ceil(4096 / 4)) = 1024 cells x (128 + 64) x 2 B = 393 216 -> 589 824.
        QCOMPARE(p.layers[1].kv_k, Bytes{589824});
        // HCA: + pad256(ceil(4096 / 128) = 32) = 256 cells x 256 B = 65 536 -> 262 144.
        QCOMPARE(p.layers[2].kv_k, Bytes{262144});
        // 196 608 + 2 x 589 824 + 262 144 = 1 638 400 = 1.5625 MiB, the measured
        // 0.75 + 0.50 + 0.0625 + 0.25 MiB.
        QCOMPARE(p.kvTotal(), Bytes{1638400});
        // State: 6 144 x 4 B = 24 576 (CSA), 32 768 x 4 B = 131 072 (HCA);
        // 2 x 24 576 + 131 072 = 180 224, the measured 0.03125 + 0.125 + 0.015625 MiB.
        QCOMPARE(p.stateTotal(), Bytes{180224});

        // --kv-unified with 2 sequences: n_ctx_seq stays 4096, yet llama_kv_cache_dsv4 keeps
        // one stream per sequence, so every cache doubles: 2 x 1 638 400 = 3 276 800 (measured
        // 1.50 + 1.00 + 0.125 + 0.50 MiB).
        o.n_seq = 2;
        o.kv_unified = true;
        QCOMPARE(priceContext(s, o, 4096).kvTotal(), Bytes{3276800});

        // MTP drafting on deepseek4 (rollback-capable, llm_arch_supports_rs_rollback) keeps
        // 1 + 3 state planes per stream: 4 x 180 224 = 720 896 for one sequence.
        o.n_seq = 1;
        o.kv_unified = false;
        o.n_rs_seq = 3;
        QCOMPARE(priceContext(s, o, 4096).stateTotal(), Bytes{720896});
    }

    // DeepSeek-V4 with one nextn block (5 blocks, compress_ratios [0, 4, 128, 4, 0]). The main
    // cache keeps its K-only window row like every block (llama_kv_cache_dsv4 ctor); the MTP
    // draft context (create_memory, LLM_ARCH_DEEPSEEK4 with LLAMA_CONTEXT_TYPE_MTP) is a
    // llama_kv_cache_iswa over the nextn block alone, with the model's own hparams: K and V.
    // Measured with llama-server v0.5.0 (CPU, -c 4096 -np 1 -fit off --spec-type draft-mtp) on a
    // sparse replica of these sizes (the 4-block file's tensors, blk.4 and its nextn eh_proj,
    // enorm, hnorm): raw window 0.94 MiB (768 cells, 5 layers, K only), CSA, HCA and indexer
    // caches as without the block, and the draft context's 0.38 MiB (768 cells, 1 layer, K 0.19
    // and V 0.19 MiB).
    void deepseekV4MtpContextCachesTheNextnBlockWithKAndV() {
        Header h("deepseek4");
        h.transformer(1048576, 256, 5, 8, 1, 128)
            .u32("attention.sliding_window", 128)
            .u32("attention.indexer.head_count", 4)
            .u32("attention.indexer.key_length", 64)
            .u32("attention.indexer.top_k", 64)
            .arr("attention.compress_ratios", {0, 4, 128, 4, 0})
            .u32("nextn_predict_layers", 1);
        const ModelShape s = h.shape();
        QCOMPARE(s.n_mtp_layers, 1u);
        QCOMPARE(s.layers[4].n_embd_v_gqa, 0u);         // K only in the main cache
        QCOMPARE(s.layers[4].n_embd_v_gqa_draft, 128u); // 1 KV head x value_length 128
        QCOMPARE(s.layers[3].n_embd_v_gqa_draft, 0u);   // trunk blocks are not in that cache

        ResolvedOptions o; // f16, flash attention, one sequence, ub 512
        o.mtp = true;
        const ContextPrice p = priceContext(s, o, 4096);
        // The window of the iswa cache: pad256(min(4096, 128 + 512)) = 768 cells; K and V rows
        // of 128 f16 each: 768 x 128 x 2 B = 196 608 apiece.
        QCOMPARE(p.mtp_kv_k, Bytes{196608});
        QCOMPARE(p.mtp_kv_v, Bytes{196608});
        // All caches: the 4-block file's 1 638 400 B (test above), the nextn block's K-only
        // window row in the main cache, 196 608, and the draft context's 2 x 196 608:
        // 2 228 224.
        QCOMPARE(p.kvTotal(), Bytes{2228224});
    }

    // Qwen4-Exp, create_memory's hybrid branch with needs_mem_idx: llama_memory_hybrid_idx
    // (src/llama-memory-hybrid-idx.cpp). A small file: 8 blocks, hidden 256, 2 KV heads of 128,
    // GDN conv 4 / inner 512 / state 64 / 4 groups, full attention every 4th layer (3 and 7),
    // indexer keys of 64, hyper-connections 4, and the PLE module on layer 0 (n-gram 3, 2 heads
    // per n-gram, conv kernel 4). Measured with llama-server v0.5.0 (CPU, -c 4096 -np 1) on a
    // sparse replica of these sizes without the PLE module (tensors enumerated from the v0.5.0
    // loader, 4 experts added): attention cache 8.00 MiB (2 layers), indexer KV cache 1.00 MiB
    // (2 layers, K only), recurrent R 0.07 MiB and S 0.75 MiB (6 x 3 072 and 6 x 32 768 f32):
    // the 9 437 184 B of KV below and 897 024 - 36 864 (the PLE row) = 860 160 B of state.
    void qwen4ExpCachesIndexerKeysOnAttentionLayersAndThePleHistory() {
        Header h("qwen4exp");
        h.transformer(262144, 256, 8, 8, 2, 128)
            .u32("ssm.conv_kernel", 4)
            .u32("ssm.inner_size", 512)
            .u32("ssm.state_size", 64)
            .u32("ssm.group_count", 4)
            .u32("ssm.time_step_rank", 8)
            .u32("hyper_connection.count", 4)
            .u32("hyper_connection.low_rank", 16)
            .u32("attention.indexer.head_count", 4)
            .u32("attention.indexer.key_length", 64)
            .u32("attention.indexer.top_k", 256)
            .arr("ple.layers", {0})
            .u32("ple.ngram_size", 3)
            .u32("ple.heads_per_ngram", 2)
            .u32("ple.conv_kernel", 4)
            .u32("embedding_length_per_layer_input", 64);
        const ModelShape s = h.shape();
        QVERIFY(!s.conservative);
        QCOMPARE(countKind(s, AttentionKind::Full), 2);
        QCOMPARE(countKind(s, AttentionKind::Recurrent), 6);
        QCOMPARE(s.layers[3].n_embd_indexer_k, 64u);
        QCOMPARE(s.layers[0].n_embd_indexer_k, 0u);
        // n_embd_r = (4 - 1) x (512 + 2 x 4 x 64) = 3 072; n_embd_s = 64 x 512 = 32 768. The PLE
        // row on layer 0: (4 - 1) x 3 x 4 x 256 = 9 216 more, 12 288 in all.
        QCOMPARE(s.layers[1].recurrent_r, 3072ull);
        QCOMPARE(s.layers[0].recurrent_r, 12288ull);
        QCOMPARE(s.layers[0].recurrent_s, 32768ull);

        ResolvedOptions o; // f16, flash attention, one sequence
        const ContextPrice p = priceContext(s, o, 4096);
        // Layer 3: K (256 + indexer 64) x 2 B x 4096 = 2 621 440; V 256 x 2 B x 4096 = 2 097 152.
        QCOMPARE(p.layers[3].kv_k, Bytes{2621440});
        QCOMPARE(p.layers[3].kv_v, Bytes{2097152});
        // 2 attention layers x (2 621 440 + 2 097 152) = 9 437 184.
        QCOMPARE(p.kvTotal(), Bytes{9437184});
        // State: (12 288 + 32 768) x 4 B = 180 224 on layer 0, (3 072 + 32 768) x 4 B = 143 360
        // on the other 5 linear layers: 180 224 + 716 800 = 897 024.
        QCOMPARE(p.stateTotal(), Bytes{897024});
    }

    void qwen4ExpWithOneHyperConnectionIsRefused() {
        Header h("qwen4exp");
        h.transformer(262144, 256, 4, 8, 2, 128)
            .u32("ssm.conv_kernel", 4)
            .u32("ssm.inner_size", 512)
            .u32("ssm.state_size", 64)
            .u32("ssm.group_count", 4)
            .u32("ssm.time_step_rank", 8)
            .u32("hyper_connection.count", 1)
            .u32("hyper_connection.low_rank", 16)
            .u32("attention.indexer.head_count", 4)
            .u32("attention.indexer.key_length", 64)
            .u32("attention.indexer.top_k", 256);
        auto r = shapeFromInput(h.input());
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("hyper_connection.count") != std::string::npos,
                 r.error().message.c_str());
    }

    void deepseekV4WithTooFewCompressRatiosIsRefused() {
        // 3 ratios for 4 blocks: load_arch_hparams throws "compress_ratios is shorter than
        // block_count".
        auto r = shapeFromInput(deepseek4({0, 4, 128}).input());
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("fewer than block_count") != std::string::npos,
                 r.error().message.c_str());
    }

    // Drafter files (src/models/eagle3.cpp, dflash.cpp: target_layers; gemma4-assistant: KV
    // shared with the target context) are loaded beside a target with -md and --spec-type;
    // alone they are refused by name, with the flags that load them.
    void drafterFilesAreRefusedByNameWithTheFlagsThatLoadThem_data() {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<QString>("spec_type");
        QTest::newRow("eagle3") << "eagle3"
                                << "draft-eagle3";
        QTest::newRow("dflash") << "dflash"
                                << "draft-dflash";
        QTest::newRow("gemma4-assistant") << "gemma4-assistant"
                                          << "draft-mtp";
    }
    void drafterFilesAreRefusedByNameWithTheFlagsThatLoadThem() {
        QFETCH(QString, arch);
        QFETCH(QString, spec_type);
        Header h(arch.toStdString());
        h.transformer(131072, 2048, 1, 16, 4, 128);
        auto r = shapeFromInput(h.input());
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::Unsupported);
        QVERIFY2(r.error().message.find("speculative-decoding drafter") != std::string::npos,
                 r.error().message.c_str());
        QVERIFY(r.error().message.find(arch.toStdString()) != std::string::npos);
        // The whole advice is in the message: the CLI prints the message only.
        QVERIFY2(r.error().message.find("--spec-type " + spec_type.toStdString()) !=
                     std::string::npos,
                 r.error().message.c_str());
        QVERIFY(r.error().message.find("plan the target model") != std::string::npos);
    }

    // per_layer_token_embd (Gemma 3n, Gemma 4) is LLM_TENSOR_LAYER_INPUT (src/llama-arch.cpp):
    // llama.cpp keeps it on the CPU with token_embd, so it is input-layer weight, not "other"
    // weight that follows the output layer onto the GPU.
    void perLayerTokenEmbeddingsArePricedWithTheInputLayer() {
        Header h("gemma3n");
        h.transformer(32768, 2048, 5, 8, 2, 256)
            .u32("attention.sliding_window", 512)
            .tensor("token_embd.weight", {2048, 1000}, GgmlType::F16)
            .tensor("per_layer_token_embd.weight", {256 * 5, 1000}, GgmlType::F16);
        auto s = h.shape();
        // 1280 x 1000 x 2 B = 2 560 000; token_embd 2048 x 1000 x 2 B = 4 096 000.
        QCOMPARE(s.per_layer_embd_bytes, Bytes{2560000});
        QCOMPARE(s.other_bytes, Bytes{0});
        QCOMPARE(s.token_embd_bytes, Bytes{4096000});
        ResolvedOptions o;
        // Input layer on the host: 4 096 000 + 2 560 000 = 6 656 000.
        QCOMPARE(priceContext(s, o, 4096).token_embd, Bytes{6656000});
        // Loaded weights: token_embd + the tied output copy (4 096 000) + the per-layer table.
        QCOMPARE(s.weightBytes(), Bytes{4096000} * 2 + 2560000);
    }

    // per_layer_model_proj and per_layer_proj_norm are LLM_TENSOR_LAYER_REPEATING tensors made
    // with block 0's number (src/models/gemma3n.cpp, tn(..., 0)): block 0's buffer, not the output
    // layer's. Counted in other_bytes, and apart as first_block_bytes; altup_proj (an output-layer
    // tensor) is not.
    void gemma3nPerLayerProjectionLoadsWithBlockZero() {
        Header h("gemma3n");
        h.transformer(32768, 2048, 5, 8, 2, 256)
            .u32("attention.sliding_window", 512)
            .tensor("token_embd.weight", {2048, 1000}, GgmlType::F16)
            .tensor("per_layer_model_proj.weight", {2048, 256 * 5}, GgmlType::F16)
            .tensor("per_layer_proj_norm.weight", {256}, GgmlType::F32)
            .tensor("altup_proj.weight", {2048, 2048, 3}, GgmlType::F16);
        auto s = h.shape();
        // 2048 x 1280 x 2 B = 5 242 880, + 256 x 4 B = 5 243 904; altup_proj 25 165 824.
        QCOMPARE(s.first_block_bytes, Bytes{5243904});
        QCOMPARE(s.other_bytes, Bytes{5243904} + 25165824);
    }

    void newArchitecturesAreListedAsSupported() {
        for (const char* a :
             {"deepseek32", "glm-dsa",  "kimi-linear", "kimi-k3",   "bailingmoe3", "minimax-01",
              "plamo2",     "plamo3",   "cohere2moe",  "step35",    "mimo2",       "maple",
              "mellum",     "laguna",   "talkie",      "maincoder", "hy_v3",       "hunyuan-dense",
              "hunyuan_vl", "mistral4", "hy_v4",       "nanbeige",  "deepseek4",   "qwen4exp"})
            QVERIFY2(isSupportedArchitecture(a), a);
        QVERIFY(!isSupportedArchitecture("bert"));
    }
};

QTEST_APPLESS_MAIN(TestShapeV05Archs)
#include "test_shape_v05_archs.moc"
