// The built-in catalog: it loads, every entry builds a shape whose KV dims match a hand
// derivation from the cited config, the weight split adds up to the cited file sizes, and
// malformed documents are refused naming the entry and the field.
#include "catalog.h"
#include "common/catalog_fixture.h"
#include "resources.h"

#include <QtTest>

// (No raw string literals in this file: moc 6.4 stops parsing at them.)

#include <nlohmann/json.hpp>

using namespace headroom;
using nlohmann::json;

namespace {

Catalog builtin() {
    auto c = loadBuiltinCatalog();
    if (!c)
        qFatal("builtin catalog: %s (%s)", c.error().message.c_str(), c.error().details.c_str());
    return *c;
}

ModelShape shapeOf(const Catalog& c, const std::string& id) {
    auto s = c.shape(id);
    if (!s) qFatal("shape %s: %s", id.c_str(), s.error().message.c_str());
    return *s;
}

// A small valid entry the malformed-document tests break one field at a time.
json entry(const std::string& id = "tiny") {
    return headroom::test::tinyCatalogEntry(id);
}

std::string doc(const std::vector<json>& entries) {
    return headroom::test::catalogDocument(entries);
}

// Loads a one-entry document strictly and returns the error text ("" when it loaded).
std::string errorOf(const json& e) {
    auto r = loadCatalog(doc({e}));
    return r ? std::string() : r.error().message;
}

} // namespace

class TestCatalog : public QObject {
    Q_OBJECT
private slots:
    void shippedCatalogLoadsWithNoRejectedEntries() {
        auto path = findResource("catalog.json");
        QVERIFY(path.has_value());
        auto text = readTextFile(*path);
        QVERIFY(text.has_value());
        auto lenient = loadCatalogLenient(*text);
        QVERIFY(lenient.has_value());
        for (const auto& r : lenient->rejected)
            qWarning("rejected %s.%s: %s", r.id.c_str(), r.field.c_str(), r.reason.c_str());
        QCOMPARE(lenient->rejected.size(), std::size_t(0));
        // At least 40 popular models, each with cited hyperparameters and file sizes.
        QVERIFY(lenient->catalog.size() >= 40);
    }

    void everyEntryBuildsAShapeForEveryQuant() {
        const Catalog c = builtin();
        for (const auto& e : c.entries())
            for (const auto& q : e.quants) {
                auto s = c.shape(e.id, q.name);
                QVERIFY2(s.has_value(), e.id.c_str());
                QCOMPARE(s->nLayer(), e.n_layer);
                QCOMPARE(s->quant, q.name);
                QCOMPARE(s->file_bytes, q.file_bytes);
                QVERIFY(s->source == ShapeSource::Catalog);
            }
    }

    void llama31EightBHasEightKvHeadsOf128OnAll32Layers() {
        // config.json: num_hidden_layers 32, num_key_value_heads 8, head_dim 4096/32 = 128.
        // Per layer K = V = 8 × 128 = 1024 elements per token; no SWA, no recurrence.
        const ModelShape s = shapeOf(builtin(), "llama-3.1-8b-instruct");
        QCOMPARE(s.nLayer(), 32u);
        for (const auto& l : s.layers) {
            QVERIFY(l.attention == AttentionKind::Full);
            QCOMPARE(l.n_embd_k_gqa, 1024u);
            QCOMPARE(l.n_embd_v_gqa, 1024u);
        }
        QCOMPARE(s.n_ctx_train, std::uint64_t(131072));
        QVERIFY(!s.isMoe());
    }

    void qwen3ThirtyBA3BIsFortyEightMoeLayersWithFourKvHeads() {
        // config.json: 48 layers, num_key_value_heads 4, head_dim 128 → K = V = 4 × 128 = 512.
        // 128 routed experts, 8 per token, every layer MoE (no leading dense block).
        const ModelShape s = shapeOf(builtin(), "qwen3-30b-a3b");
        QCOMPARE(s.nLayer(), 48u);
        for (const auto& l : s.layers) {
            QVERIFY(l.attention == AttentionKind::Full);
            QCOMPARE(l.n_embd_k_gqa, 512u);
            QCOMPARE(l.n_embd_v_gqa, 512u);
            QVERIFY(l.experts_bytes > 0);
        }
        QCOMPARE(s.moe.n_expert, 128u);
        QCOMPARE(s.moe.n_expert_used, 8u);
        QCOMPARE(s.nMoeLayers(), 48u);
    }

    void gptOss20bAlternatesSlidingAndFullLayers() {
        // config.json layer_types: sliding_attention on even layers, full on odd; window 128.
        // llama.cpp openai-moe: set_swa_pattern(2) → il % 2 < 1 is SWA. 8 KV heads × 64 = 512.
        const ModelShape s = shapeOf(builtin(), "gpt-oss-20b");
        QCOMPARE(s.nLayer(), 24u);
        QCOMPARE(s.n_swa, 128u);
        for (std::uint32_t il = 0; il < 24; ++il) {
            const auto& l = s.layers[il];
            QVERIFY(l.attention ==
                    (il % 2 == 0 ? AttentionKind::SlidingWindow : AttentionKind::Full));
            QCOMPARE(l.n_embd_k_gqa, 512u);
            QCOMPARE(l.n_embd_v_gqa, 512u);
        }
        QCOMPARE(s.quant, std::string("MXFP4"));
        QCOMPARE(s.moe.n_expert, 32u);
    }

    void qwen3NextHasAttentionOnEveryFourthLayerAndRecurrentStateElsewhere() {
        // config.json: 48 layers, full_attention_interval 4 → layers 3, 7, …, 47 attend
        // (models/qwen3next.cpp: (il + 1) % 4 == 0), 2 KV heads × head_dim 256 = 512 for K and
        // V; the other 36 layers hold (4−1)×(4096+2×16×128) = 24576 conv and 128×4096 = 524288
        // SSM elements per sequence (llama_hparams::n_embd_r/n_embd_s).
        const ModelShape s = shapeOf(builtin(), "qwen3-next-80b-a3b-instruct");
        QCOMPARE(s.nLayer(), 48u);
        std::uint32_t full = 0;
        for (std::uint32_t il = 0; il < 48; ++il) {
            const auto& l = s.layers[il];
            if ((il + 1) % 4 == 0) {
                QVERIFY(l.attention == AttentionKind::Full);
                QCOMPARE(l.n_embd_k_gqa, 512u);
                QCOMPARE(l.n_embd_v_gqa, 512u);
                ++full;
            } else {
                QVERIFY(l.attention == AttentionKind::Recurrent);
                QCOMPARE(l.recurrent_r, std::uint64_t(24576));
                QCOMPARE(l.recurrent_s, std::uint64_t(524288));
            }
        }
        QCOMPARE(full, 12u);
        QCOMPARE(s.moe.n_expert, 512u);
        QCOMPARE(s.moe.n_expert_shared, 1u);
    }

    void gemma3TwentySevenBSlidesFiveLayersInSixWithAWindowOf1024() {
        // config.json text_config: 62 layers, sliding_window 1024, sliding_window_pattern 6 →
        // llama.cpp models/gemma3.cpp set_swa_pattern(6): il % 6 < 5 slides, so layers 5, 11,
        // …, 59 are global: (59 − 5) / 6 + 1 = 10 full layers and 62 − 10 = 52 sliding ones.
        // 16 KV heads × head_dim 128 = 2048 elements for K and for V on both kinds (Gemma 3
        // has no separate SWA head size). Projector: ggml-org mmproj-model-f16.gguf "858 MB".
        const ModelShape s = shapeOf(builtin(), "gemma-3-27b-it");
        QCOMPARE(s.nLayer(), 62u);
        QCOMPARE(s.n_swa, 1024u);
        std::uint32_t full = 0, swa = 0;
        for (std::uint32_t il = 0; il < 62; ++il) {
            const auto& l = s.layers[il];
            if (il % 6 == 5) {
                QVERIFY(l.attention == AttentionKind::Full);
                ++full;
            } else {
                QVERIFY(l.attention == AttentionKind::SlidingWindow);
                ++swa;
            }
            QCOMPARE(l.n_embd_k_gqa, 2048u);
            QCOMPARE(l.n_embd_v_gqa, 2048u);
        }
        QCOMPARE(full, 10u);
        QCOMPARE(swa, 52u);
        QCOMPARE(s.mmproj_bytes, Bytes(858000000));
        // Tied embeddings: the output head is the duplicated token_embd.
        QCOMPARE(s.output_bytes, s.token_embd_bytes);
    }

    void deepSeekV2LiteCachesOneLatentRowPerLayerAndLeadsWithADenseBlock() {
        // config.json: kv_lora_rank 512 + qk_rope_head_dim 64 = 576 K elements per token and
        // layer, no V (llama-kv-cache.cpp: has_v = !is_mla), one latent "head". 27 layers,
        // first_k_dense_replace 1 → layer 0 is a dense FFN (intermediate_size 10944), layers
        // 1..26 route 6 of 64 experts plus 2 shared: 26 MoE layers.
        const ModelShape s = shapeOf(builtin(), "deepseek-v2-lite-chat");
        QCOMPARE(s.nLayer(), 27u);
        for (const auto& l : s.layers) {
            QVERIFY(l.attention == AttentionKind::Mla);
            QCOMPARE(l.n_head_kv, 1u);
            QCOMPARE(l.n_embd_k_gqa, 576u);
            QCOMPARE(l.n_embd_v_gqa, 0u);
        }
        QCOMPARE(s.layers[0].experts_bytes, Bytes(0));
        QVERIFY(s.layers[0].ffn_bytes > 0);
        for (std::uint32_t il = 1; il < 27; ++il)
            QVERIFY(s.layers[il].experts_bytes > 0);
        QCOMPARE(s.nMoeLayers(), 26u);
        QCOMPARE(s.moe.n_expert, 64u);
        QCOMPARE(s.moe.n_expert_used, 6u);
        QCOMPARE(s.moe.n_expert_shared, 2u);
        QCOMPARE(s.n_ff_exp, 1408u);
        // Default Q4_K_M: mradermacher listing "10.4 GB" = 10 400 000 000 ± 50 000 000 bytes.
        QCOMPARE(s.file_bytes, Bytes(10400000000ull));
    }

    void nemotronNanoHybridHasMambaStateOnMLayersAndKvOnlyOnFourAttentionLayers() {
        // config.json hybrid_override_pattern
        // "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-": 56 layers, 27 'M'
        // (Mamba-2, recurrent), 4 '*' (attention at 14, 21, 30, 39), 25 '-' (MLP only).
        // llama.cpp models/nemotron-h.cpp: recurrent iff n_head_kv == 0 and n_ff == 0.
        // Attention: 8 KV heads × 128 = 1024 for K and V. Mamba-2 state per sequence
        // (llama_hparams::n_embd_r/n_embd_s): d_inner = 128 heads × 80 = 10240, 8 groups,
        // state 128, conv 4 → r = (4 − 1) × (10240 + 2 × 8 × 128) = 36864,
        // s = 128 × 10240 = 1310720. MLP layers cache nothing.
        const std::string pattern = "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-";
        const ModelShape s = shapeOf(builtin(), "nvidia-nemotron-nano-9b-v2");
        QCOMPARE(s.nLayer(), 56u);
        QCOMPARE(pattern.size(), std::size_t(56));
        std::uint32_t recurrent = 0, attention = 0, none = 0;
        for (std::uint32_t il = 0; il < 56; ++il) {
            const auto& l = s.layers[il];
            switch (pattern[il]) {
            case 'M':
                QVERIFY(l.attention == AttentionKind::Recurrent);
                QCOMPARE(l.recurrent_r, std::uint64_t(36864));
                QCOMPARE(l.recurrent_s, std::uint64_t(1310720));
                ++recurrent;
                break;
            case '*':
                QVERIFY(l.attention == AttentionKind::Full);
                QCOMPARE(l.n_embd_k_gqa, 1024u);
                QCOMPARE(l.n_embd_v_gqa, 1024u);
                ++attention;
                break;
            default:
                QVERIFY(l.attention == AttentionKind::None);
                QCOMPARE(l.n_embd_k_gqa, 0u);
                QVERIFY(l.ffn_bytes > 0);
                ++none;
            }
        }
        QCOMPARE(recurrent, 27u);
        QCOMPARE(attention, 4u);
        QCOMPARE(none, 25u);
        QVERIFY(s.layers[14].attention == AttentionKind::Full);
        QVERIFY(s.layers[39].attention == AttentionKind::Full);
    }

    void gemma2SlidesOnEvenLayersWithAWindowOf4096() {
        // llama.cpp models/gemma2.cpp: n_swa 4096, set_swa_pattern(2) → il % 2 < 1 slides.
        // gemma-2-9b-it: 42 layers, 8 KV heads × head_dim 256 = 2048 per layer.
        const ModelShape s = shapeOf(builtin(), "gemma-2-9b-it");
        QCOMPARE(s.nLayer(), 42u);
        QCOMPARE(s.n_swa, 4096u);
        for (std::uint32_t il = 0; il < 42; ++il) {
            QVERIFY(s.layers[il].attention ==
                    (il % 2 == 0 ? AttentionKind::SlidingWindow : AttentionKind::Full));
            QCOMPARE(s.layers[il].n_embd_k_gqa, 2048u);
        }
    }

    void weightTotalsEqualCitedFileSizeMinusHeaderEstimate() {
        // weightBytes = file − header − MTP blocks + tied output duplicate (catalog.h).
        const Catalog c = builtin();
        for (const auto& e : c.entries())
            for (const auto& q : e.quants) {
                const ModelShape s = *c.shape(e.id, q.name);
                Bytes mtp = 0;
                for (std::uint32_t il = 0; il < s.nLayer(); ++il)
                    if (s.layers[il].is_mtp) mtp += s.blockBytes(il);
                const Bytes dup = e.tied_embeddings ? s.token_embd_bytes : 0;
                const Bytes expect =
                    q.file_bytes - catalogHeaderEstimate(e, q.file_bytes) - mtp + dup;
                QVERIFY2(s.weightBytes() == expect, (e.id + ":" + q.name).c_str());
            }
    }

    void headerEstimateFollowsVocabulary() {
        // Llama 3.1 vocab 128256 × 48 B + 1 MiB = 6 156 288 + 1 048 576 = 7 204 864 bytes.
        const Catalog c = builtin();
        const CatalogEntry* e = c.find("llama-3.1-8b-instruct");
        QVERIFY(e);
        QCOMPARE(catalogHeaderEstimate(*e, e->quants[0].file_bytes), Bytes(7204864));
    }

    void quantIsSelectableWithAColonSuffix() {
        const Catalog c = builtin();
        auto s = c.shape("qwen3-30b-a3b:Q8_0");
        QVERIFY(s.has_value());
        QCOMPARE(s->quant, std::string("Q8_0"));
        // bartowski card: 32.48GB (decimal) = 32 480 000 000 bytes.
        QCOMPARE(s->file_bytes, Bytes(32480000000ull));
        auto lower = c.shape("qwen3-30b-a3b", "q8_0");
        QVERIFY(lower.has_value());
        // Default quant is Q4_K_M when listed: Qwen/Qwen3-30B-A3B-GGUF 18 556 685 824 bytes.
        QCOMPARE(c.shape("qwen3-30b-a3b")->file_bytes, Bytes(18556685824ull));
        QVERIFY(c.find("qwen3-30b-a3b:Q8_0") != nullptr);
    }

    void unknownIdOrQuantIsNotFoundAndNamesIt() {
        const Catalog c = builtin();
        auto a = c.shape("no-such-model");
        QVERIFY(!a);
        QVERIFY(a.error().code == ErrorCode::NotFound);
        QVERIFY(a.error().message.find("no-such-model") != std::string::npos);
        auto b = c.shape("qwen3-30b-a3b:Q1_X");
        QVERIFY(!b);
        QVERIFY(b.error().code == ErrorCode::NotFound);
        QVERIFY(b.error().message.find("Q1_X") != std::string::npos);
        QVERIFY(b.error().details.find("Q4_K_M") != std::string::npos);
    }

    void mlaLayersCacheOneLatentRowWithoutV() {
        // DeepSeek-V2-Lite-shaped entry: kv_lora_rank 512 + qk_rope_head_dim 64 = 576, V = 0.
        json e = entry("mla");
        e["architecture"] = "deepseek2";
        e["attention"] = {{"n_head", 16},      {"n_head_kv", 16},     {"head_dim_k", 192},
                          {"head_dim_v", 128}, {"kv_lora_rank", 512}, {"rope_dim", 64}};
        e["moe"] = {{"n_expert", 64},
                    {"n_expert_used", 6},
                    {"n_expert_shared", 2},
                    {"n_ff_exp", 1408},
                    {"dense_lead", 1}};
        auto c = loadCatalog(doc({e}));
        QVERIFY2(c.has_value(), c ? "" : c.error().message.c_str());
        const ModelShape s = *c->shape("mla");
        for (const auto& l : s.layers) {
            QVERIFY(l.attention == AttentionKind::Mla);
            QCOMPARE(l.n_embd_k_gqa, 576u);
            QCOMPARE(l.n_embd_v_gqa, 0u);
        }
        // dense_lead 1: layer 0 has no routed experts, layers 1..3 do.
        QCOMPARE(s.layers[0].experts_bytes, Bytes(0));
        QVERIFY(s.layers[1].experts_bytes > 0);
        QCOMPARE(s.nMoeLayers(), 3u);
    }

    void recurrentPeriodLeavesEveryFourthLayerFull() {
        // Qwen3-Next-shaped: full_attention_interval 4 → (il + 1) % 4 == 0 is attention
        // (models/qwen3next.cpp); others recurrent with conv state (4−1)×(4096+2×16×128) =
        // 24576 and SSM state 128 × 4096 = 524288 elements per sequence.
        json e = entry("hybrid");
        e["n_layer"] = 8;
        e["recurrent"] = {
            {"period", 4}, {"full_at", "end"}, {"n_embd_r", 24576}, {"n_embd_s", 524288}};
        auto c = loadCatalog(doc({e}));
        QVERIFY2(c.has_value(), c ? "" : c.error().message.c_str());
        const ModelShape s = *c->shape("hybrid");
        for (std::uint32_t il = 0; il < 8; ++il) {
            const auto& l = s.layers[il];
            if ((il + 1) % 4 == 0) {
                QVERIFY(l.attention == AttentionKind::Full);
                QCOMPARE(l.n_embd_k_gqa, 32u); // 2 KV heads × 16
            } else {
                QVERIFY(l.attention == AttentionKind::Recurrent);
                QCOMPARE(l.n_embd_k_gqa, 0u);
                QCOMPARE(l.recurrent_r, std::uint64_t(24576));
                QCOMPARE(l.recurrent_s, std::uint64_t(524288));
            }
        }
    }

    void swaLayersUseSwaDimsAndKvSharingLayersHaveNone() {
        // Period 5 with full at the end (Gemma 3n: set_swa_pattern(5)); SWA head dim 8 vs 16;
        // layers ≥ n_layer_kv_from_start (4) reuse earlier KV.
        json e = entry("swa");
        e["n_layer"] = 6;
        e["attention"]["sliding_window"] = 512;
        e["attention"]["swa"] = {{"period", 5}};
        e["attention"]["swa_head_dim_k"] = 8;
        e["attention"]["swa_head_dim_v"] = 8;
        e["attention"]["n_layer_kv_from_start"] = 4;
        auto c = loadCatalog(doc({e}));
        QVERIFY2(c.has_value(), c ? "" : c.error().message.c_str());
        const ModelShape s = *c->shape("swa");
        // il 0..3: il % 5 < 4 → SWA, K = 2 × 8 = 16; il 4, 5 ≥ 4 → no cache of their own.
        for (std::uint32_t il = 0; il < 4; ++il) {
            QVERIFY(s.layers[il].attention == AttentionKind::SlidingWindow);
            QCOMPARE(s.layers[il].n_embd_k_gqa, 16u);
        }
        QVERIFY(s.layers[4].attention == AttentionKind::None);
        QVERIFY(s.layers[5].attention == AttentionKind::None);
    }

    void mtpBlocksAreFlaggedAndLeftOutOfLoadedWeights() {
        json e = entry("mtp");
        e["nextn_layers"] = 1;
        auto c = loadCatalog(doc({e}));
        QVERIFY(c.has_value());
        const ModelShape s = *c->shape("mtp");
        QVERIFY(s.layers[3].is_mtp);
        QVERIFY(!s.layers[2].is_mtp);
        QCOMPARE(s.n_mtp_layers, 1u);
        // 10 000 000 − header (1000 × 48 + 1 MiB = 1 096 576) − block 3 = weights loaded.
        QCOMPARE(s.weightBytes(), Bytes(10000000 - 1096576) - s.blockBytes(3));
    }

    void groupsGivenAreUsedVerbatim() {
        json e = entry("groups");
        e["quants"][0]["groups"] = {
            {"token_embd", 1000}, {"output", 2000}, {"attn", 4000}, {"ffn", 8000}, {"other", 16}};
        auto c = loadCatalog(doc({e}));
        QVERIFY(c.has_value());
        const ModelShape s = *c->shape("groups");
        QCOMPARE(s.token_embd_bytes, Bytes(1000));
        QCOMPARE(s.output_bytes, Bytes(2000));
        // 4 identical layers: 4000 / 4 = 1000 attention bytes, 8000 / 4 = 2000 FFN bytes each.
        QCOMPARE(s.layers[2].attn_bytes, Bytes(1000));
        QCOMPARE(s.layers[2].ffn_bytes, Bytes(2000));
        QCOMPARE(s.weightBytes(), Bytes(1000 + 2000 + 4000 + 8000 + 16));
    }

    void brokenJsonIsAParseError() {
        auto r = loadCatalog("{\"schema\": \"headroom.catalog/1\", \"models\": [");
        QVERIFY(!r);
        QVERIFY(r.error().code == ErrorCode::ParseError);
        auto s = loadCatalog("{\"schema\": \"headroom.catalog/9\", \"models\": []}");
        QVERIFY(!s);
        QVERIFY(s.error().code == ErrorCode::Unsupported);
    }

    void eachValidationRuleNamesEntryAndField_data() {
        QTest::addColumn<QString>("patch"); // JSON merge patch applied to the good entry
        QTest::addColumn<QString>("field");
        QTest::newRow("unknown field") << "{\"n_layers\": 4}"
                                       << "n_layers";
        QTest::newRow("missing field") << "{\"n_embd\": null}"
                                       << "n_embd";
        QTest::newRow("mistyped field") << "{\"n_vocab\": \"1000\"}"
                                        << "n_vocab";
        QTest::newRow("negative") << "{\"n_ff\": -1}"
                                  << "n_ff";
        QTest::newRow("zero layers") << "{\"n_layer\": 0}"
                                     << "n_layer";
        QTest::newRow("too many layers") << "{\"n_layer\": 1001}"
                                         << "n_layer";
        QTest::newRow("absurd size") << "{\"quants\": [{\"name\": \"Q8_0\", \"file_bytes\": "
                                        "1125899906842625, \"source\": \"https://x\"}]}"
                                     << "quants[0].file_bytes";
        QTest::newRow("quant without size")
            << "{\"quants\": [{\"name\": \"Q8_0\", \"source\": \"https://x\"}]}"
            << "quants[0].file_bytes";
        QTest::newRow("n_head_kv array length") << "{\"attention\": {\"n_head_kv\": [2, 2, 2]}}"
                                                << "attention.n_head_kv";
        QTest::newRow("more used experts than experts")
            << "{\"moe\": {\"n_expert\": 4, \"n_expert_used\": 8, \"n_ff_exp\": 32}}"
            << "moe.n_expert_used";
        QTest::newRow("unknown attention field") << "{\"attention\": {\"window\": 4}}"
                                                 << "attention.window";
        QTest::newRow("float where integer") << "{\"n_embd\": 64.5}"
                                             << "n_embd";
        QTest::newRow("no quants") << "{\"quants\": []}"
                                   << "quants";
    }
    void eachValidationRuleNamesEntryAndField() {
        QFETCH(QString, patch);
        QFETCH(QString, field);
        json e = entry("broken-one");
        e.merge_patch(json::parse(patch.toStdString()));
        const std::string err = errorOf(e);
        QVERIFY2(!err.empty(), "entry was accepted");
        QVERIFY2(err.find("broken-one") != std::string::npos, err.c_str());
        QVERIFY2(err.find(field.toStdString()) != std::string::npos, err.c_str());
    }

    void duplicateIdsAreRejected() {
        auto r = loadCatalog(doc({entry("twin"), entry("twin")}));
        QVERIFY(!r);
        QVERIFY(r.error().message.find("twin") != std::string::npos);
        QVERIFY(r.error().message.find("duplicate") != std::string::npos);
    }

    void lenientLoadKeepsGoodEntriesAndListsRejectedOnes() {
        json bad = entry("bad");
        bad["n_layer"] = 0;
        json worse = entry("worse");
        worse["moe"] = {{"n_expert", 2}, {"n_expert_used", 3}, {"n_ff_exp", 8}};
        auto r = loadCatalogLenient(doc({entry("good"), bad, worse, entry("good")}));
        QVERIFY(r.has_value());
        QCOMPARE(r->catalog.size(), std::size_t(1));
        QVERIFY(r->catalog.find("good") != nullptr);
        // bad (n_layer), worse (moe.n_expert_used), the second "good" (duplicate id).
        QCOMPARE(r->rejected.size(), std::size_t(3));
        QCOMPARE(r->rejected[0].id, std::string("bad"));
        QCOMPARE(r->rejected[0].field, std::string("n_layer"));
        QCOMPARE(r->rejected[1].field, std::string("moe.n_expert_used"));
        QCOMPARE(r->rejected[2].field, std::string("id"));
    }
};

QTEST_APPLESS_MAIN(TestCatalog)
#include "test_catalog.moc"
