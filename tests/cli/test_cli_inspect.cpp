// headroom-cli inspect, run as a user would: on generated GGUF headers (GgufWriter), on a
// corrupt file, on a split model with a part missing and with bad arguments; checks exit codes
// (0 ok, 2 bad arguments, 3 unreadable input) and what is printed.
#include "common/cli_runner.h"
#include "gguf/gguf_writer.h"

#include <nlohmann/json.hpp>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace headroom;
using headroom::test::runCli;
using Run = headroom::test::CliRun;

namespace {

// A 13-layer Gemma-3-style header: window 512, period 6 (full at 5 and 11), 4 heads, 1 KV head
// of 256, Q4_K weights, tied output. Tensors: token_embd 1024 x 4096 and one attn_q per layer.
GgufWriter gemmaLike() {
    GgufWriter w;
    w.set("general.architecture", GgufValue::string("gemma3"));
    w.set("general.name", GgufValue::string("Gemma Test"));
    w.set("general.file_type", GgufValue::u32(15));
    w.set("gemma3.context_length", GgufValue::u32(32768));
    w.set("gemma3.embedding_length", GgufValue::u32(1024));
    w.set("gemma3.block_count", GgufValue::u32(13));
    w.set("gemma3.attention.head_count", GgufValue::u32(4));
    w.set("gemma3.attention.head_count_kv", GgufValue::u32(1));
    w.set("gemma3.attention.key_length", GgufValue::u32(256));
    w.set("gemma3.attention.value_length", GgufValue::u32(256));
    w.set("gemma3.attention.sliding_window", GgufValue::u32(512));
    w.set("tokenizer.ggml.tokens",
          GgufValue::array(GgufArray::ofStrings(std::vector<std::string>(4096, "t"))));
    w.addTensor("token_embd.weight", {1024, 4096}, GgmlType::Q4_K);
    for (int il = 0; il < 13; ++il)
        w.addTensor("blk." + std::to_string(il) + ".attn_q.weight", {1024, 1024}, GgmlType::Q4_K);
    return w;
}

} // namespace

class TestCliInspect : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QVERIFY(QFile::exists(QStringLiteral(HEADROOM_BIN_DIR "/headroom-cli")));
        auto w = gemmaLike().write(path("gemma.gguf"));
        QVERIFY2(w.has_value(), w ? "" : w.error().message.c_str());
    }

    void textReportNamesArchitectureQuantAndLayerRuns() {
        const Run r = runCli({"inspect", QString::fromStdString(path("gemma.gguf"))});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("gemma3"), r.out.constData());
        QVERIFY(r.out.contains("Gemma Test"));
        QVERIFY(r.out.contains("Q4_K_M"));
        QVERIFY(r.out.contains("32768"));
        // Period 6 over 13 layers.
        QVERIFY(r.out.contains("0-4 swa, 5 full, 6-10 swa, 11 full, 12 swa"));
        QVERIFY(r.out.contains("13: 11 swa, 2 full"));
        QVERIFY(r.out.contains("512 tokens"));
        QVERIFY(r.out.contains("tied"));
        QVERIFY(!r.out.contains("warning"));
    }

    void jsonReportCarriesPerLayerFieldsAndGroupBytes() {
        const Run r = runCli({"inspect", QString::fromStdString(path("gemma.gguf")), "--json"});
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY(!j.is_discarded());
        QCOMPARE(j["schema"].get<std::string>(), std::string("headroom.inspect/1"));
        QCOMPARE(j["architecture"].get<std::string>(), std::string("gemma3"));
        QCOMPARE(j["n_layer"].get<int>(), 13);
        QCOMPARE(j["n_vocab"].get<int>(), 4096);
        QCOMPARE(j["layers"][5]["kind"].get<std::string>(), std::string("full"));
        QCOMPARE(j["layers"][0]["kind"].get<std::string>(), std::string("swa"));
        // 1 KV head x 256 = 256 elements per token.
        QCOMPARE(j["layers"][0]["n_embd_k_gqa"].get<int>(), 256);
        // token_embd: a 1024-wide Q4_K row is 4 blocks of 144 B = 576 B; x 4096 rows = 2359296.
        QCOMPARE(j["groups"]["token_embd"].get<std::uint64_t>(), std::uint64_t{2359296});
        QCOMPARE(j["groups"]["output_tied_to_embd"].get<bool>(), true);
        // attn_q: 576 B x 1024 rows = 589824 B per layer x 13 = 7667712.
        QCOMPARE(j["groups"]["attention"].get<std::uint64_t>(), std::uint64_t{7667712});
        QCOMPARE(j["conservative"].get<bool>(), false);
    }

    // A DeepSeek-V3.2 header (3 trunk blocks + 1 nextn; MLA latent 512 + 64; indexer of 64 heads
    // x 128, top-k 2048): inspect shows the indexer as the file declares it, the indexer key
    // width per layer, and where each llama.cpp build keeps the nextn block's KV (deepseek32 has
    // its own create_memory case: the draft context in both).
    void dsaIndexerFieldsAndTheMtpCachePerBuildAreShown() {
        GgufWriter w;
        const std::string a = "deepseek32.";
        w.set("general.architecture", GgufValue::string("deepseek32"));
        for (const auto& [k, v] : std::vector<std::pair<std::string, std::uint32_t>>{
                 {"context_length", 163840},
                 {"embedding_length", 1024},
                 {"block_count", 4},
                 {"nextn_predict_layers", 1},
                 {"attention.head_count", 8},
                 {"attention.head_count_kv", 1},
                 {"attention.key_length", 576},
                 {"attention.value_length", 512},
                 {"attention.q_lora_rank", 256},
                 {"attention.kv_lora_rank", 512},
                 {"attention.key_length_mla", 192},
                 {"attention.value_length_mla", 128},
                 {"attention.indexer.head_count", 64},
                 {"attention.indexer.key_length", 128},
                 {"attention.indexer.top_k", 2048},
                 {"expert_shared_count", 1}})
            w.set(a + k, GgufValue::u32(v));
        QVERIFY(w.write(path("dsa.gguf")).has_value());
        const Run r = runCli({"inspect", QString::fromStdString(path("dsa.gguf")), "--json"});
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY2(!j.is_discarded(), r.out.constData());
        QCOMPARE(j["indexer"]["n_head"].get<int>(), 64);
        QCOMPARE(j["indexer"]["head_size"].get<int>(), 128);
        QCOMPARE(j["indexer"]["top_k"].get<int>(), 2048);
        // The three trunk layers are indexed; the nextn block runs dense MLA (no indexer).
        QCOMPARE(j["indexer"]["n_indexed_layers"].get<int>(), 3);
        QCOMPARE(j["layers"][0]["n_embd_indexer_k"].get<int>(), 128);
        QCOMPARE(j["layers"][3]["n_embd_indexer_k"].get<int>(), 0);
        QCOMPARE(j["mtp_kv_cache"]["v0.5.0"].get<std::string>(), std::string("draft"));
        QCOMPARE(j["mtp_kv_cache"]["v0.4.0"].get<std::string>(), std::string("draft"));

        const Run t = runCli({"inspect", QString::fromStdString(path("dsa.gguf"))});
        QCOMPARE(t.code, 0);
        QVERIFY2(t.out.contains("64 heads x 128, top-k 2048; keys cached on 3 layers"),
                 t.out.constData());
        QVERIFY(t.out.contains("v0.5.0 draft context only"));
    }

    // glm4moe takes create_memory's default branch, whose nextn filter v0.5.0 added: v0.4.0 kept
    // the nextn block in the main cache.
    void theMtpCacheOfADefaultBranchModelDiffersPerBuild() {
        GgufWriter w;
        w.set("general.architecture", GgufValue::string("glm4moe"));
        for (const auto& [k, v] :
             std::vector<std::pair<std::string, std::uint32_t>>{{"context_length", 131072},
                                                                {"embedding_length", 1024},
                                                                {"block_count", 3},
                                                                {"nextn_predict_layers", 1},
                                                                {"attention.head_count", 8},
                                                                {"attention.head_count_kv", 2},
                                                                {"attention.key_length", 128},
                                                                {"attention.value_length", 128}})
            w.set("glm4moe." + k, GgufValue::u32(v));
        QVERIFY(w.write(path("glm.gguf")).has_value());
        const Run r = runCli({"inspect", QString::fromStdString(path("glm.gguf")), "--json"});
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY2(!j.is_discarded(), r.out.constData());
        QCOMPARE(j["mtp_kv_cache"]["v0.5.0"].get<std::string>(), std::string("draft"));
        QCOMPARE(j["mtp_kv_cache"]["v0.4.0"].get<std::string>(), std::string("main"));
        QCOMPARE(j["indexer"]["head_size"].get<int>(), 0);
    }

    void corruptFileExitsThreeNamingTheFile() {
        QFile f(QString::fromStdString(path("corrupt.gguf")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("GGUF\x03\x00\x00\x00garbage that is not a header");
        f.close();
        const Run r = runCli({"inspect", f.fileName()});
        QCOMPARE(r.code, 3);
        QVERIFY2(r.err.contains("corrupt.gguf"), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

    void missingFileExitsThree() {
        const Run r = runCli({"inspect", QString::fromStdString(path("nope.gguf"))});
        QCOMPARE(r.code, 3);
        QVERIFY(r.err.contains("nope.gguf"));
    }

    void headerWithoutRequiredKeyExitsThree() {
        GgufWriter w = gemmaLike();
        w.remove("gemma3.block_count");
        QVERIFY(w.write(path("nolayers.gguf")).has_value());
        const Run r = runCli({"inspect", QString::fromStdString(path("nolayers.gguf"))});
        QCOMPARE(r.code, 3);
        QVERIFY2(r.err.contains("gemma3.block_count"), r.err.constData());
    }

    void unknownArchitectureWarnsAboutConservativeShape() {
        GgufWriter w;
        w.set("general.architecture", GgufValue::string("futurenet"));
        w.set("futurenet.context_length", GgufValue::u32(4096));
        w.set("futurenet.embedding_length", GgufValue::u32(512));
        w.set("futurenet.block_count", GgufValue::u32(2));
        w.set("futurenet.attention.head_count", GgufValue::u32(8));
        QVERIFY(w.write(path("future.gguf")).has_value());
        const Run r = runCli({"inspect", QString::fromStdString(path("future.gguf"))});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("warning") && r.out.contains("conservative"), r.out.constData());
    }

    void splitModelNamesTheMissingPart() {
        GgufWriter w = gemmaLike();
        w.set("split.no", GgufValue::u16(0));
        w.set("split.count", GgufValue::u16(2));
        QVERIFY(w.write(path("big-00001-of-00002.gguf")).has_value());
        const Run r = runCli({"inspect", QString::fromStdString(path("big-00001-of-00002.gguf"))});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("1 of 2 found"), r.out.constData());
        QVERIFY(r.out.contains("big-00002-of-00002.gguf"));
        QVERIFY(r.out.contains("warning"));
    }

    void badArgumentsExitTwo() {
        QCOMPARE(runCli({"inspect"}).code, 2);
        QCOMPARE(runCli({"inspect", QString::fromStdString(path("gemma.gguf")), "--bogus"}).code,
                 2);
    }

    void helpExplainsTheCommand() {
        const Run r = runCli({"inspect", "--help"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("--json"));
    }

private:
    std::string path(const char* name) const {
        return QDir(dir_.path()).filePath(name).toStdString();
    }
    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestCliInspect)
#include "test_cli_inspect.moc"
