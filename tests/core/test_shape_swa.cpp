// Sliding-window families: which layers are SWA, their window and their K/V widths, checked
// against hand derivations from each model's published config.json and the llama.cpp rules in
// src/models/<arch>.cpp load_arch_hparams.
#include "core/shape_test_util.h"

using namespace headroom;
using namespace headroom::test;

class TestShapeSwa : public QObject {
    Q_OBJECT
private slots:
    // google/gemma-3-27b-it: 62 layers, hidden 5376, 32 heads, 16 KV heads, head_dim 128,
    // sliding_window 1024, sliding_window_pattern 6, 131072 context.
    void gemma3_27bHasFiveOfEverySixLayersSliding() {
        auto s = Header("gemma3")
                     .transformer(131072, 5376, 62, 32, 16, 128)
                     .u32("attention.sliding_window", 1024)
                     .shape();
        QCOMPARE(s.nLayer(), 62u);
        QCOMPARE(s.n_swa, 1024u);
        QVERIFY(!s.conservative);
        // set_swa_pattern(6): il % 6 < 5 is SWA, so layers 5, 11, ..., 59 are full:
        // floor(62 / 6) = 10 full layers, 62 - 10 = 52 SWA.
        QCOMPARE(countKind(s, AttentionKind::Full), 10);
        QCOMPARE(countKind(s, AttentionKind::SlidingWindow), 52);
        for (std::uint32_t il = 0; il < 62; ++il) {
            const bool full = il % 6 == 5;
            QCOMPARE(s.layers[il].attention,
                     full ? AttentionKind::Full : AttentionKind::SlidingWindow);
            // 16 KV heads x 128 = 2048 elements per token for K and for V on every layer.
            QCOMPARE(s.layers[il].n_embd_k_gqa, 2048u);
            QCOMPARE(s.layers[il].n_embd_v_gqa, 2048u);
        }
        // Layers 60, 61 are SWA (60 % 6 = 0, 61 % 6 = 1).
        QCOMPARE(s.layers[61].attention, AttentionKind::SlidingWindow);
    }

    // gemma3 without a sliding_window key (a conversion that dropped it): llama.cpp sets
    // swa_type NONE and every layer caches the full context.
    void gemma3WithoutWindowKeyIsAllFull() {
        auto s = Header("gemma3").transformer(32768, 1152, 26, 4, 1, 256).shape();
        QCOMPARE(countKind(s, AttentionKind::Full), 26);
        QCOMPARE(s.n_swa, 0u);
    }

    // A per-layer array under sliding_window_pattern is ignored by gemma3's loader
    // (get_key_or_arr into a scalar returns false for arrays), so the default period 6 holds.
    void gemma3IgnoresAnArrayPatternAndKeepsPeriodSix() {
        std::vector<bool> pattern(26, false); // would make every layer full if it were read
        auto s = Header("gemma3")
                     .transformer(32768, 1152, 26, 4, 1, 256)
                     .u32("attention.sliding_window", 512)
                     .bools("attention.sliding_window_pattern", pattern)
                     .shape();
        // 26 layers, period 6: full at 5, 11, 17, 23 -> 4 full, 22 SWA.
        QCOMPARE(countKind(s, AttentionKind::Full), 4);
        QCOMPARE(countKind(s, AttentionKind::SlidingWindow), 22);
    }

    // google/gemma-2-9b-it: 42 layers, hidden 3584, 16 heads, 8 KV heads, head_dim 256,
    // sliding_window 4096, 8192 context; every other layer local, starting with layer 0.
    void gemma2_9bAlternatesSlidingAndFull() {
        auto s = Header("gemma2")
                     .transformer(8192, 3584, 42, 16, 8, 256)
                     .u32("attention.sliding_window", 4096)
                     .shape();
        // set_swa_pattern(2): il % 2 < 1 -> even layers SWA; 21 SWA + 21 full.
        QCOMPARE(countKind(s, AttentionKind::SlidingWindow), 21);
        QCOMPARE(countKind(s, AttentionKind::Full), 21);
        QCOMPARE(s.layers[0].attention, AttentionKind::SlidingWindow);
        QCOMPARE(s.layers[1].attention, AttentionKind::Full);
        // 8 KV heads x 256 = 2048.
        QCOMPARE(s.layers[0].n_embd_k_gqa, 2048u);
        QCOMPARE(s.n_swa, 4096u);
    }

    // gemma2 files from early converters carry no window: llama.cpp defaults it to 4096.
    void gemma2DefaultsTheWindowTo4096() {
        auto s = Header("gemma2").transformer(8192, 2304, 26, 8, 4, 256).shape();
        QCOMPARE(s.n_swa, 4096u);
        QCOMPARE(countKind(s, AttentionKind::SlidingWindow), 13); // 26 / 2
    }

    // google/gemma-3n-E4B-it: 35 layers, hidden 2048, 8 heads, 2 KV heads, head_dim 256,
    // sliding_window 512, 4 local : 1 global, num_kv_shared_layers 15 (35 - 15 = 20).
    void gemma3nE4bSharesKvFromLayerTwenty() {
        auto s = Header("gemma3n")
                     .transformer(32768, 2048, 35, 8, 2, 256)
                     .u32("attention.sliding_window", 512)
                     .shape();
        // Layers 0-19 own a cache: period 5, il % 5 < 4 SWA -> full at 4, 9, 14, 19 (4 full),
        // 16 SWA. Layers 20-34 (15 of them) reuse layer 18/19's cache: None, zero width.
        QCOMPARE(countKind(s, AttentionKind::Full), 4);
        QCOMPARE(countKind(s, AttentionKind::SlidingWindow), 16);
        QCOMPARE(countKind(s, AttentionKind::None), 15);
        for (std::uint32_t il = 20; il < 35; ++il) {
            QCOMPARE(s.layers[il].attention, AttentionKind::None);
            QCOMPARE(s.layers[il].n_embd_k_gqa, 0u);
            QCOMPARE(s.layers[il].n_embd_v_gqa, 0u);
            QVERIFY(!layerHasKv(s.layers[il]));
        }
        // 2 KV heads x 256 = 512 on the caching layers.
        QCOMPARE(s.layers[19].attention, AttentionKind::Full);
        QCOMPARE(s.layers[19].n_embd_k_gqa, 512u);
        QCOMPARE(s.layers[18].attention, AttentionKind::SlidingWindow);
    }

    // gemma3n needs the window: llama.cpp reads it as required.
    void gemma3nWithoutWindowIsRefused() {
        auto r = shapeFromInput(Header("gemma3n").transformer(32768, 2048, 35, 8, 2, 256).input());
        QVERIFY(!r);
        QVERIFY(r.error().message.find("gemma3n.attention.sliding_window") != std::string::npos);
    }

    // openai/gpt-oss-20b: 24 layers, hidden 2880, 64 heads, 8 KV heads, head_dim 64,
    // sliding_window 128, alternating sliding/full starting with sliding; 32 experts, top-4.
    void gptOss20bAlternatesWithWindow128() {
        auto s = Header("gpt-oss")
                     .transformer(131072, 2880, 24, 64, 8, 64)
                     .u32("attention.sliding_window", 128)
                     .u32("expert_count", 32)
                     .u32("expert_used_count", 4)
                     .u32("expert_feed_forward_length", 2880)
                     .shape();
        // Period 2: 12 SWA (even), 12 full (odd); 8 x 64 = 512 wide rows.
        QCOMPARE(countKind(s, AttentionKind::SlidingWindow), 12);
        QCOMPARE(countKind(s, AttentionKind::Full), 12);
        QCOMPARE(s.layers[0].attention, AttentionKind::SlidingWindow);
        QCOMPARE(s.layers[23].attention, AttentionKind::Full);
        QCOMPARE(s.layers[23].n_embd_k_gqa, 512u);
        QCOMPARE(s.layers[23].n_embd_v_gqa, 512u);
        QCOMPARE(s.n_swa, 128u);
        QCOMPARE(s.moe.n_expert, 32u);
        QCOMPARE(s.moe.n_expert_used, 4u);
        QCOMPARE(s.n_ff_exp, 2880u);
    }

    // CohereForAI/c4ai-command-r7b-12-2024 (cohere2): 32 layers, hidden 4096, 32 heads, 8 KV
    // heads, head 128, sliding_window 4096, sliding_window_pattern 4.
    void cohere2HasThreeSlidingPerFull() {
        auto s = Header("cohere2")
                     .transformer(131072, 4096, 32, 32, 8, 128)
                     .u32("attention.sliding_window", 4096)
                     .shape();
        // Period 4: full at 3, 7, ..., 31 -> 8 full, 24 SWA; 8 x 128 = 1024.
        QCOMPARE(countKind(s, AttentionKind::Full), 8);
        QCOMPARE(countKind(s, AttentionKind::SlidingWindow), 24);
        QCOMPARE(s.layers[3].attention, AttentionKind::Full);
        QCOMPARE(s.layers[3].n_embd_k_gqa, 1024u);
    }

    // meta-llama/Llama-4-Scout-17B-16E-Instruct: 48 layers, hidden 5120, 40 heads, 8 KV heads,
    // head 128, attention_chunk_size 8192, 16 experts, top-1, every layer MoE.
    void llama4ScoutChunksThreeOfEveryFourLayersAt8192() {
        auto s = Header("llama4")
                     .transformer(10485760, 5120, 48, 40, 8, 128)
                     .u32("expert_count", 16)
                     .u32("expert_used_count", 1)
                     .u32("interleave_moe_layer_step", 1)
                     .shape();
        // Chunked with a fixed 8192 window; period 4: full at 3, 7, ..., 47 -> 12 full, 36 SWA.
        QCOMPARE(s.n_swa, 8192u);
        QCOMPARE(countKind(s, AttentionKind::Full), 12);
        QCOMPARE(countKind(s, AttentionKind::SlidingWindow), 36);
        QCOMPARE(s.layers[47].n_embd_k_gqa, 1024u); // 8 x 128
    }

    // llama4 ignores the file's window value (always 8192) unless it is 0, which turns SWA off.
    void llama4WindowZeroMeansNoChunking() {
        auto s = Header("llama4")
                     .transformer(131072, 2048, 16, 16, 4, 128)
                     .u32("attention.sliding_window", 0)
                     .shape();
        QCOMPARE(countKind(s, AttentionKind::Full), 16);
        QCOMPARE(s.n_swa, 0u);
        auto t = Header("llama4")
                     .transformer(131072, 2048, 16, 16, 4, 128)
                     .u32("attention.sliding_window", 1234)
                     .shape();
        QCOMPARE(t.n_swa, 8192u);
    }

    // microsoft/Phi-3-mini-4k-instruct: 32 layers, hidden 3072, 32 heads (no GQA), head 96,
    // sliding_window 2047 in the config — which llama.cpp deliberately disables.
    void phi3SlidingWindowIsDisabled() {
        auto s = Header("phi3")
                     .transformer(4096, 3072, 32, 32, 32, 96)
                     .u32("attention.sliding_window", 2047)
                     .shape();
        QCOMPARE(countKind(s, AttentionKind::Full), 32);
        QCOMPARE(s.n_swa, 0u);
        // 32 heads x 96 = 3072.
        QCOMPARE(s.layers[0].n_embd_k_gqa, 3072u);
        QVERIFY(!s.notes.empty());
    }

    // SWA layers may use their own head sizes (key_length_swa / value_length_swa), as
    // llama_hparams::n_embd_head_k(il) picks n_embd_head_k_swa for is_swa(il).
    void separateSwaHeadSizesApplyToSwaLayersOnly() {
        auto s = Header("gemma3")
                     .transformer(131072, 2560, 12, 8, 4, 256)
                     .u32("attention.key_length_swa", 128)
                     .u32("attention.value_length_swa", 64)
                     .u32("attention.sliding_window", 1024)
                     .shape();
        // Layer 0 SWA: 4 x 128 = 512 (K), 4 x 64 = 256 (V); layer 5 full: 4 x 256 = 1024 both.
        QCOMPARE(s.layers[0].n_embd_k_gqa, 512u);
        QCOMPARE(s.layers[0].n_embd_v_gqa, 256u);
        QCOMPARE(s.layers[5].n_embd_k_gqa, 1024u);
        QCOMPARE(s.layers[5].n_embd_v_gqa, 1024u);
    }
};

QTEST_APPLESS_MAIN(TestShapeSwa)
#include "test_shape_swa.moc"
