// MoE and MLA families: expert counts, the K-only MLA latent, nextn (MTP) blocks, and the
// dense-first layers, checked against each model's config.json and the llama.cpp loaders.
#include "core/shape_test_util.h"

using namespace headroom;
using namespace headroom::test;

class TestShapeMoeMla : public QObject {
    Q_OBJECT
private slots:
    // deepseek-ai/DeepSeek-V2-Lite: 27 layers, hidden 2048, 16 heads, kv_lora_rank 512,
    // qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128, 64 routed experts (top-6) of
    // 1408, 2 shared, first_k_dense_replace 1, 163840 context. The MLA converter writes
    // head_count_kv 1, key_length 512 + 64 = 576, value_length 512, key_length_mla 192,
    // value_length_mla 128.
    void deepseekV2LiteCachesOneKOnlyLatentOf576() {
        auto s = Header("deepseek2")
                     .transformer(163840, 2048, 27, 16, 1, 576)
                     .u32("attention.value_length", 512)
                     .u32("attention.key_length_mla", 192)
                     .u32("attention.value_length_mla", 128)
                     .u32("attention.kv_lora_rank", 512)
                     .u32("rope.dimension_count", 64)
                     .u32("leading_dense_block_count", 1)
                     .u32("expert_count", 64)
                     .u32("expert_used_count", 6)
                     .u32("expert_shared_count", 2)
                     .u32("expert_feed_forward_length", 1408)
                     .shape();
        QCOMPARE(countKind(s, AttentionKind::Mla), 27);
        for (const auto& l : s.layers) {
            // K row = kv_lora_rank 512 + rope 64 = 576 x 1 KV head; no V cache at all.
            QCOMPARE(l.n_embd_k_gqa, 576u);
            QCOMPARE(l.n_embd_v_gqa, 0u);
            QVERIFY(layerHasKv(l));
        }
        QCOMPARE(s.moe.n_expert, 64u);
        QCOMPARE(s.moe.n_expert_used, 6u);
        QCOMPARE(s.moe.n_expert_shared, 2u);
        QCOMPARE(s.n_ff_exp, 1408u);
    }

    // An older DeepSeek-V2 conversion (no *_mla keys): llama.cpp treats it as plain MHA with
    // key_length 192 and value_length 128 over 16 KV heads: K 3072, V 2048 per layer.
    void deepseek2WithoutMlaKeysCachesFullHeads() {
        auto s = Header("deepseek2")
                     .transformer(163840, 2048, 27, 16, 16, 192)
                     .u32("attention.value_length", 128)
                     .u32("attention.kv_lora_rank", 512)
                     .shape();
        QCOMPARE(countKind(s, AttentionKind::Full), 27);
        QCOMPARE(s.layers[0].n_embd_k_gqa, 3072u); // 16 x 192
        QCOMPARE(s.layers[0].n_embd_v_gqa, 2048u); // 16 x 128
    }

    // zai-org/GLM-4.5-Air: 46 layers + 1 nextn block (block_count 47), hidden 4096, 96 heads,
    // 8 KV heads, head_dim 128, 128 experts (top-8) of 1408, 1 shared, first_k_dense_replace 1.
    // glm4moe takes create_memory's default branch: llama.cpp v0.5.0 filters the nextn block out
    // of the main cache (v0.4.0 did not: see test_shape_v05_archs' nextn test, per build); its
    // weights are skipped unless MTP is loaded (src/models/glm4-moe.cpp load_arch_tensors:
    // TENSOR_SKIP when !ml.load_mtp).
    void glm45AirNextnBlockIsLeftOutOfTheMainCache() {
        auto s = Header("glm4moe")
                     .transformer(131072, 4096, 47, 96, 8, 128)
                     .u32("nextn_predict_layers", 1)
                     .u32("leading_dense_block_count", 1)
                     .u32("expert_count", 128)
                     .u32("expert_used_count", 8)
                     .u32("expert_shared_count", 1)
                     .u32("expert_feed_forward_length", 1408)
                     .tensor("blk.46.nextn.eh_proj.weight", {8192, 4096}, GgmlType::Q8_0)
                     .tensor("blk.45.attn_q.weight", {4096, 12288}, GgmlType::Q8_0)
                     .shape();
        QCOMPARE(s.nLayer(), 47u);
        QCOMPARE(s.n_mtp_layers, 1u);
        QCOMPARE(countKind(s, AttentionKind::Full), 47);
        QVERIFY(s.layers[46].is_mtp);
        QVERIFY(!s.layers[46].in_main_cache);
        QVERIFY(s.nextn_default_filter);
        QCOMPARE(s.layers[46].n_embd_k_gqa, 1024u); // 8 x 128
        QVERIFY(!s.layers[45].is_mtp);
        // Q8_0: 34 bytes per 32 elements. eh_proj 8192 x 4096 = 33554432 elements
        // -> 1048576 blocks x 34 = 35651584 bytes on layer 46 (attention side, MTP).
        QCOMPARE(s.layers[46].attn_bytes, Bytes{35651584});
        // weightBytes() skips the MTP block: only attn_q of layer 45 counts:
        // 4096 x 12288 = 50331648 elements -> 1572864 blocks x 34 = 53477376.
        QCOMPARE(s.weightBytes(), Bytes{53477376});
        QCOMPARE(s.moe.n_expert_shared, 1u);
    }

    // Qwen/Qwen3-30B-A3B: 48 layers, hidden 2048, 32 heads, 4 KV heads, head_dim 128,
    // 128 experts (top-8) of 768, no shared expert, 40960 context.
    void qwen3Moe30bIsFullAttentionWithExperts() {
        auto s = Header("qwen3moe")
                     .transformer(40960, 2048, 48, 32, 4, 128)
                     .u32("expert_count", 128)
                     .u32("expert_used_count", 8)
                     .u32("expert_feed_forward_length", 768)
                     .shape();
        QCOMPARE(countKind(s, AttentionKind::Full), 48);
        QCOMPARE(s.layers[0].n_embd_k_gqa, 512u); // 4 x 128
        QCOMPARE(s.moe.n_expert, 128u);
        QCOMPARE(s.moe.n_expert_shared, 0u);
        QCOMPARE(s.n_ff_exp, 768u);
    }

    // allenai/OLMoE-1B-7B-0924: 16 layers, hidden 2048, 16 heads, no GQA (16 KV heads),
    // 64 experts (top-8), 4096 context. No key_length: head size 2048 / 16 = 128.
    void olmoeDerivesHeadSizeFromWidth() {
        auto s = Header("olmoe")
                     .u32("context_length", 4096)
                     .u32("embedding_length", 2048)
                     .u32("block_count", 16)
                     .u32("attention.head_count", 16)
                     .u32("attention.head_count_kv", 16)
                     .u32("expert_count", 64)
                     .u32("expert_used_count", 8)
                     .shape();
        QCOMPARE(s.layers[0].n_embd_k_gqa, 2048u); // 16 x 128
        QCOMPARE(s.moe.n_expert_used, 8u);
    }

    // baidu/ERNIE-4.5-21B-A3B: 28 layers, hidden 2560, 20 heads, 4 KV heads, head 128,
    // 64 experts (top-6), 2 shared, moe_layer_start_index 1, 131072 context.
    void ernie45MoeCachesFourHeadsOf128() {
        auto s = Header("ernie4_5-moe")
                     .transformer(131072, 2560, 28, 20, 4, 128)
                     .u32("expert_count", 64)
                     .u32("expert_used_count", 6)
                     .u32("expert_shared_count", 2)
                     .u32("expert_feed_forward_length", 1536)
                     .u32("interleave_moe_layer_step", 1)
                     .u32("leading_dense_block_count", 1)
                     .shape();
        QCOMPARE(countKind(s, AttentionKind::Full), 28);
        QCOMPARE(s.layers[27].n_embd_k_gqa, 512u); // 4 x 128
        QCOMPARE(s.moe.n_expert_shared, 2u);
    }

    // A MoE without expert_shared_count but with *_shexp tensors (Qwen2-MoE style) has one
    // shared expert; a per-layer expert_used_count array reports its maximum. Its width is its up
    // projection's rows (5632 here), whatever the routed experts' (the compute skeleton's shared
    // FFN).
    void sharedExpertIsInferredFromShexpTensors() {
        auto s = Header("qwen2moe")
                     .transformer(32768, 2048, 2, 16, 16, 128)
                     .u32("expert_count", 60)
                     .arr("expert_used_count", {4, 6})
                     .tensor("blk.0.ffn_up_shexp.weight", {2048, 5632}, GgmlType::Q4_K)
                     .shape();
        QCOMPARE(s.moe.n_expert_shared, 1u);
        QCOMPARE(s.moe.n_expert_used, 6u);
        QCOMPARE(s.n_ff_shexp, 5632u);
    }
};

QTEST_APPLESS_MAIN(TestShapeMoeMla)
#include "test_shape_moe_mla.moc"
