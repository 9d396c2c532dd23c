// Dense transformer families and everything shape derivation reads besides the cache: tensor
// groups, parameter count, quant label, vocabulary, trained context, errors and the
// conservative fallback for architectures without rules.
#include "core/shape_test_util.h"
#include "gguf/gguf_reader.h"
#include "gguf/gguf_writer.h"
#include "planner.h"

#include <QtCore/QDir>
#include <QtCore/QTemporaryDir>

using namespace headroom;
using namespace headroom::test;

class TestShapeDense : public QObject {
    Q_OBJECT
private slots:
    void denseFamiliesCacheKvHeadsTimesHeadSize_data() {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<uint>("ctx");
        QTest::addColumn<uint>("embd");
        QTest::addColumn<uint>("layers");
        QTest::addColumn<uint>("heads");
        QTest::addColumn<uint>("kv_heads");
        QTest::addColumn<uint>("head_dim");
        QTest::addColumn<uint>("expected_k");
        // meta-llama/Llama-3.1-8B-Instruct: 32 layers, 4096, 32 heads, 8 KV, 128 -> 8 x 128.
        QTest::newRow("llama-3.1-8b")
            << "llama" << 131072u << 4096u << 32u << 32u << 8u << 128u << 1024u;
        // mistralai/Mistral-Small-3.1-24B-Instruct-2503: 40 layers, 5120, 32 heads, 8 KV, 128.
        QTest::newRow("mistral-small-3.1")
            << "mistral3" << 131072u << 5120u << 40u << 32u << 8u << 128u << 1024u;
        // Qwen/Qwen2.5-7B-Instruct: 28 layers, 3584, 28 heads, 4 KV, 128 -> 512.
        QTest::newRow("qwen2.5-7b")
            << "qwen2" << 32768u << 3584u << 28u << 28u << 4u << 128u << 512u;
        // Qwen/Qwen3-8B: 36 layers, 4096, 32 heads, 8 KV, head_dim 128 -> 1024.
        QTest::newRow("qwen3-8b") << "qwen3" << 40960u << 4096u << 36u << 32u << 8u << 128u
                                  << 1024u;
        // CohereForAI/c4ai-command-r-v01: 40 layers, 8192, 64 heads, 64 KV (no GQA), 128 -> 8192.
        QTest::newRow("command-r-35b")
            << "command-r" << 131072u << 8192u << 40u << 64u << 64u << 128u << 8192u;
        // ibm-granite/granite-3.3-8b-instruct: 40 layers, 4096, 32 heads, 8 KV, 128 -> 1024.
        QTest::newRow("granite-3.3-8b")
            << "granite" << 131072u << 4096u << 40u << 32u << 8u << 128u << 1024u;
    }
    void denseFamiliesCacheKvHeadsTimesHeadSize() {
        QFETCH(QString, arch);
        QFETCH(uint, ctx);
        QFETCH(uint, embd);
        QFETCH(uint, layers);
        QFETCH(uint, heads);
        QFETCH(uint, kv_heads);
        QFETCH(uint, head_dim);
        QFETCH(uint, expected_k);
        auto s = Header(arch.toStdString())
                     .transformer(ctx, embd, layers, heads, kv_heads, head_dim)
                     .shape();
        QVERIFY(!s.conservative);
        QCOMPARE(s.nLayer(), layers);
        QCOMPARE(countKind(s, AttentionKind::Full), int(layers));
        QCOMPARE(s.n_ctx_train, std::uint64_t{ctx});
        QCOMPARE(s.n_swa, 0u);
        for (const auto& l : s.layers) {
            QCOMPARE(l.n_embd_k_gqa, expected_k);
            QCOMPARE(l.n_embd_v_gqa, expected_k);
            QCOMPARE(l.n_head_kv, kv_heads);
        }
    }

    // Per-layer head_count_kv arrays (e.g. Nemotron/DeciLM-style variable GQA) give each layer
    // its own width: llama_hparams::n_embd_k_gqa(il) = head size x n_head_kv(il).
    void perLayerKvHeadArraysGiveEachLayerItsWidth() {
        auto s = Header("llama")
                     .transformer(8192, 4096, 3, 32, 8, 128)
                     .arr("attention.head_count_kv", {8, 4, 2})
                     .shape();
        QCOMPARE(s.layers[0].n_embd_k_gqa, 1024u); // 8 x 128
        QCOMPARE(s.layers[1].n_embd_k_gqa, 512u);  // 4 x 128
        QCOMPARE(s.layers[2].n_embd_v_gqa, 256u);  // 2 x 128
    }

    // A file that already scales RoPE declares it (llama_model::load_hparams reads
    // rope.scaling.type/.factor/.original_context_length); the shape keeps it, and
    // --rope-scaling yarn --rope-scale 2 then stretches the file's original context: 2 × 32768.
    void ropeScalingKeysAreReadAndSetTheYarnBase() {
        auto s = Header("qwen2")
                     .transformer(131072, 1024, 2, 8, 2, 128)
                     .raw("qwen2.rope.scaling.type", GgufValue::string("yarn"))
                     .raw("qwen2.rope.scaling.factor", GgufValue::f32(4.0F))
                     .u32("rope.scaling.original_context_length", 32768)
                     .shape();
        QCOMPARE(s.rope_scaling_type, std::string("yarn"));
        QCOMPARE(s.rope_scaling_factor, 4.0);
        QCOMPARE(s.rope_orig_ctx, std::uint64_t{32768});
        PlanOptions o;
        o.rope_scaling = RopeScaling::Yarn;
        o.rope_scale = 2;
        // 2 × 32768 = 65536 is below the 131072 the file trains to: the trained context stands.
        QCOMPARE(contextLimit(s, o), std::uint64_t{131072});
        o.rope_scale = 8;
        QCOMPARE(contextLimit(s, o), std::uint64_t{262144}); // 8 × 32768
        o.yarn_orig_ctx = 65536;
        QCOMPARE(contextLimit(s, o), std::uint64_t{524288}); // 8 × 65536, the flag wins
    }

    // A small llama with every tensor group, Q4_K blocks (256 elements, 144 bytes) and a tied
    // output head (no output.weight).
    void tensorsAreGroupedTheWayPlacementMovesThem() {
        const std::uint64_t e = 256, v = 1024, ff = 512;
        auto h = Header("llama").transformer(4096, 256, 2, 4, 2, 64);
        h.raw("general.file_type", GgufValue::u32(15))
            .raw("general.name", GgufValue::string("Tiny Llama"))
            .raw("tokenizer.ggml.tokens",
                 GgufValue::array(GgufArray::ofStrings(std::vector<std::string>(1000, "t"))))
            .u32("expert_count", 4)
            .u32("expert_used_count", 2);
        h.tensor("token_embd.weight", {e, v}, GgmlType::Q4_K)
            .tensor("output_norm.weight", {e}, GgmlType::F32)
            .tensor("rope_freqs.weight", {32}, GgmlType::F32);
        for (int il = 0; il < 2; ++il) {
            const std::string b = "blk." + std::to_string(il) + ".";
            h.tensor(b + "attn_norm.weight", {e}, GgmlType::F32)
                .tensor(b + "attn_q.weight", {e, e}, GgmlType::Q4_K)
                .tensor(b + "ffn_gate_inp.weight", {e, 4}, GgmlType::F32)
                .tensor(b + "ffn_up_exps.weight", {e, ff, 4}, GgmlType::Q4_K)
                .tensor(b + "ffn_down_exps.weight", {ff, e, 4}, GgmlType::Q4_K);
        }
        auto s = h.shape();
        // attn: norm 256 x 4 B = 1024 + attn_q 256 rows of one Q4_K block (144 B) = 36864
        //   -> 37888 per layer.
        QCOMPARE(s.layers[0].attn_bytes, Bytes{37888});
        // ffn (router only): 256 x 4 x 4 B = 4096.
        QCOMPARE(s.layers[0].ffn_bytes, Bytes{4096});
        // experts: up 256-wide rows: 512 x 4 rows x 144 B = 294912; down 512-wide rows
        //   (2 blocks = 288 B) x 256 x 4 = 294912 -> 589824.
        QCOMPARE(s.layers[1].experts_bytes, Bytes{589824});
        // The block's weights of two or more dimensions, each with its own bytes (what a copy of
        // it to a device takes): attn_q 256 -> 256 (36864), the router 256 -> 4 (4096), the up
        // and down experts (294912 each, routed).
        const auto& w = s.layers[0].matrices;
        QCOMPARE(w.size(), size_t{4});
        QCOMPARE(w[0].in, std::uint64_t{256});
        QCOMPARE(w[0].out, std::uint64_t{256});
        QCOMPARE(w[0].bytes, Bytes{36864});
        QVERIFY(!w[0].experts);
        QCOMPARE(w[1].out, std::uint64_t{4});
        QCOMPARE(w[1].bytes, Bytes{4096});
        QCOMPARE(w[2].in, std::uint64_t{256});
        QCOMPARE(w[2].out, std::uint64_t{512});
        QCOMPARE(w[2].bytes, Bytes{294912});
        QVERIFY(w[2].experts);
        QCOMPARE(w[3].in, std::uint64_t{512});
        QVERIFY(w[3].experts);
        // token_embd: 1024 rows x 144 B = 147456.
        QCOMPARE(s.token_embd_bytes, Bytes{147456});
        // output: norm 1024 B + the tied second copy of token_embd 147456 = 148480.
        QVERIFY(s.output_tied_to_embd);
        QCOMPARE(s.output_bytes, Bytes{148480});
        // other: rope_freqs 32 x 4 B = 128.
        QCOMPARE(s.other_bytes, Bytes{128});
        // Parameters: 256 x 1024 + 256 + 32 + 2 x (256 + 65536 + 1024 + 2 x 524288)
        //   = 262144 + 288 + 2 x 1115392 = 2493216.
        QCOMPARE(s.n_params, std::uint64_t{2493216});
        // One routed expert: 589824 x 2 layers / (2 MoE layers x 4 experts) = 147456.
        QCOMPARE(s.bytesPerExpert(), Bytes{147456});
        QCOMPARE(s.quant, std::string("Q4_K_M"));
        QCOMPARE(s.name, std::string("Tiny Llama"));
        QCOMPARE(s.n_vocab, 1000u); // the token list wins over token_embd's 1024 rows
    }

    void vocabFallsBackToVocabSizeThenEmbeddingRows() {
        auto a =
            Header("llama").transformer(4096, 256, 1, 4, 4, 64).u32("vocab_size", 32000).shape();
        QCOMPARE(a.n_vocab, 32000u);
        auto b = Header("llama")
                     .transformer(4096, 256, 1, 4, 4, 64)
                     .tensor("token_embd.weight", {256, 50000}, GgmlType::F16)
                     .shape();
        QCOMPARE(b.n_vocab, 50000u);
    }

    void fileTypesAreNamedLikeLlamaQuantize() {
        QCOMPARE(fileTypeName(15), std::string("Q4_K_M"));
        QCOMPARE(fileTypeName(7), std::string("Q8_0"));
        QCOMPARE(fileTypeName(38), std::string("MXFP4_MOE"));
        QCOMPARE(fileTypeName(32), std::string("BF16"));
        QCOMPARE(fileTypeName(4), std::string()); // removed Q4_1_SOME_F16
    }

    // Without general.file_type the label is guessed from the type holding most 2-D bytes.
    void missingFileTypeIsGuessedFromTheTensors() {
        auto s = Header("llama")
                     .transformer(4096, 256, 1, 4, 4, 64)
                     .tensor("blk.0.attn_q.weight", {256, 256}, GgmlType::Q8_0)
                     .tensor("blk.0.attn_norm.weight", {256}, GgmlType::F32)
                     .shape();
        QCOMPARE(s.quant, std::string("Q8_0 (guessed)"));
    }

    // Unknown architecture: still a shape, every layer full from the generic keys, marked.
    void unknownArchitectureIsPricedConservatively() {
        auto s = Header("futurenet")
                     .transformer(65536, 4096, 4, 32, 8, 128)
                     .arr("attention.head_count_kv", {8, 0, 8, 0})
                     .u32("attention.sliding_window", 512)
                     .shape();
        QVERIFY(s.conservative);
        QCOMPARE(countKind(s, AttentionKind::Full), 4);
        QCOMPARE(s.n_swa, 0u);
        // KV heads 8 -> 1024; layers with 0 KV heads priced with their 32 query heads: 4096.
        QCOMPARE(s.layers[0].n_embd_k_gqa, 1024u);
        QCOMPARE(s.layers[1].n_embd_k_gqa, 4096u);
        QVERIFY(!s.notes.empty());
        QVERIFY(s.notes.front().find("futurenet") != std::string::npos);
    }

    void missingArchitectureIsAnError() {
        ShapeInput in;
        in.id = "x.gguf";
        auto r = shapeFromInput(in);
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::ParseError);
        QVERIFY(r.error().message.find("general.architecture") != std::string::npos);
    }

    void requiredKeysAndRangesAreChecked() {
        auto noCtx = shapeFromInput(
            Header("llama").u32("embedding_length", 4096).u32("block_count", 4).input());
        QVERIFY(!noCtx);
        QVERIFY(noCtx.error().message.find("llama.context_length") != std::string::npos);

        auto tooDeep =
            shapeFromInput(Header("llama").transformer(4096, 4096, 513, 32, 8, 128).input());
        QVERIFY(!tooDeep);
        QVERIFY(tooDeep.error().message.find("block_count") != std::string::npos);

        auto wrongType =
            shapeFromInput(Header("llama")
                               .transformer(4096, 4096, 4, 32, 8, 128)
                               .raw("llama.attention.head_count_kv", GgufValue::string("8"))
                               .input());
        QVERIFY(!wrongType);
        QVERIFY(wrongType.error().message.find("head_count_kv") != std::string::npos);

        auto shortArray = shapeFromInput(Header("llama")
                                             .transformer(4096, 4096, 4, 32, 8, 128)
                                             .arr("attention.head_count_kv", {8, 8})
                                             .input());
        QVERIFY(!shortArray);

        // 2^20 KV heads of 2^13 elements = 2^33 per token: wraps a uint32 in llama.cpp.
        auto absurd = shapeFromInput(
            Header("llama").transformer(4096, 4096, 2, 1u << 20, 1u << 20, 1u << 13).input());
        QVERIFY(!absurd);
        QVERIFY(absurd.error().message.find("layer 0") != std::string::npos);
    }

    void layerRunsAreCompressedForPeople() {
        auto s = Header("gemma3")
                     .transformer(131072, 1152, 13, 4, 1, 256)
                     .u32("attention.sliding_window", 512)
                     .shape();
        // Period 6 over 13 layers: full at 5 and 11.
        QCOMPARE(describeLayerRuns(s), std::string("0-4 swa, 5 full, 6-10 swa, 11 full, 12 swa"));
    }

    void supportedArchitecturesCoverTheBrief() {
        for (const char* a :
             {"llama",     "mistral3",      "qwen2",     "qwen3",     "qwen3moe",
              "qwen3next", "gemma2",        "gemma3",    "gemma3n",   "gpt-oss",
              "deepseek2", "glm4moe",       "phi3",      "command-r", "cohere2",
              "granite",   "granitehybrid", "falcon-h1", "jamba",     "mamba2",
              "lfm2",      "nemotron_h",    "olmoe",     "llama4",    "ernie4_5-moe"})
            QVERIFY2(isSupportedArchitecture(a), a);
        QVERIFY(!isSupportedArchitecture("futurenet"));
    }
    // The adapter: metadata from part 1, tensors from every part, file bytes summed; a missing
    // part is named in the notes.
    void splitModelJoinsPartsAndNamesTheMissingOne() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string stem = QDir(dir.path()).filePath("m").toStdString();
        for (int part = 1; part <= 2; ++part) {
            GgufWriter w;
            if (part == 1) {
                w.set("general.architecture", GgufValue::string("llama"));
                w.set("llama.context_length", GgufValue::u32(8192));
                w.set("llama.embedding_length", GgufValue::u32(256));
                w.set("llama.block_count", GgufValue::u32(2));
                w.set("llama.attention.head_count", GgufValue::u32(4));
            }
            w.set("split.no", GgufValue::u16(static_cast<std::uint16_t>(part - 1)));
            w.set("split.count", GgufValue::u16(3));
            // Each part carries one 256 x 256 F16 attn_q: 131072 bytes.
            w.addTensor("blk." + std::to_string(part - 1) + ".attn_q.weight", {256, 256},
                        GgmlType::F16);
            QVERIFY(w.write(ggufSplitPath(stem, part, 3)).has_value());
        }
        auto shape = shapeFromGgufFile(ggufSplitPath(stem, 1, 3));
        QVERIFY2(shape.has_value(), shape ? "" : shape.error().message.c_str());
        QCOMPARE(shape->layers[0].attn_bytes, Bytes{131072});
        QCOMPARE(shape->layers[1].attn_bytes, Bytes{131072});
        bool named = false;
        for (const auto& n : shape->notes)
            named = named || n.find("m-00003-of-00003.gguf") != std::string::npos;
        QVERIFY(named);
        QVERIFY(shape->file_bytes > Bytes{262144});
    }

    void projectorFileIsNotAModel() {
        QTemporaryDir dir;
        const std::string path = QDir(dir.path()).filePath("mmproj.gguf").toStdString();
        GgufWriter w;
        w.set("general.architecture", GgufValue::string("clip"));
        QVERIFY(w.write(path).has_value());
        auto shape = shapeFromGgufFile(path);
        QVERIFY(!shape);
        QCOMPARE(shape.error().code, ErrorCode::Unsupported);
        QVERIFY(shape.error().message.find("projector") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestShapeDense)
#include "test_shape_dense.moc"
