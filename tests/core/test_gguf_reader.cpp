// The GGUF reader against files made by GgufWriter: every value type round-trips, tensor
// geometry and placement come out as ggml computes them, split models join, projectors are
// recognised, and a 150k-token tokenizer is read without decoding its strings.
#include "gguf/gguf_reader.h"
#include "gguf/gguf_writer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace headroom;

namespace {

std::span<const std::uint8_t> asBytes(const std::string& s) {
    return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// A header and its data section in memory (the data is zeros; the reader never looks at it).
std::string wholeFile(const GgufWriter& w) {
    std::string bytes = w.header();
    bytes.resize(w.fileSize(), '\0');
    return bytes;
}

GgufWriter everyValueType() {
    GgufWriter w;
    w.set("t.u8", GgufValue::u8(250));
    w.set("t.i8", GgufValue::i8(-100));
    w.set("t.u16", GgufValue::u16(65000));
    w.set("t.i16", GgufValue::i16(-32000));
    w.set("t.u32", GgufValue::u32(4000000000u));
    w.set("t.i32", GgufValue::i32(-2000000000));
    w.set("t.u64", GgufValue::u64(18000000000000000000ull));
    w.set("t.i64", GgufValue::i64(-9000000000000000000ll));
    w.set("t.f32", GgufValue::f32(0.25f));
    w.set("t.f64", GgufValue::f64(-1e300));
    w.set("t.bool", GgufValue::boolean(true));
    w.set("t.string", GgufValue::string("héllo ✓"));
    w.set("t.empty_string", GgufValue::string(""));
    w.set("t.arr_u8", GgufValue::array(GgufArray::ofUInt8({1, 2, 255})));
    w.set("t.arr_i8", GgufValue::array(GgufArray::ofInt8({-1, 2})));
    w.set("t.arr_u16", GgufValue::array(GgufArray::ofUInt16({65535})));
    w.set("t.arr_i16", GgufValue::array(GgufArray::ofInt16({-5, 5})));
    w.set("t.arr_u32", GgufValue::array(GgufArray::ofUInt32({7, 8, 9})));
    w.set("t.arr_i32", GgufValue::array(GgufArray::ofInt32({-7, 0, 7})));
    w.set("t.arr_u64", GgufValue::array(GgufArray::ofUInt64({1ull << 40})));
    w.set("t.arr_i64", GgufValue::array(GgufArray::ofInt64({-(1ll << 40)})));
    w.set("t.arr_f32", GgufValue::array(GgufArray::ofFloat32({0.5f, -2.0f})));
    w.set("t.arr_f64", GgufValue::array(GgufArray::ofFloat64({3.25})));
    w.set("t.arr_bool", GgufValue::array(GgufArray::ofBool({true, false, true})));
    w.set("t.arr_str", GgufValue::array(GgufArray::ofStrings({"a", "", "ünï"})));
    w.set("t.arr_empty", GgufValue::array(GgufArray::ofInt32({})));
    w.set("t.arr_nested", GgufValue::array(GgufArray::ofArrays(
                              {GgufArray::ofInt32({1, 2}), GgufArray::ofStrings({"x", "yz"}),
                               GgufArray::ofArrays({GgufArray::ofFloat32({1.5f})})})));
    return w;
}

} // namespace

class TestGgufReader : public QObject {
    Q_OBJECT
private slots:
    void everyValueTypeRoundTripsThroughAFile() {
        QTemporaryDir dir;
        const GgufWriter w = everyValueType();
        const std::string path = (dir.path() + "/values.gguf").toStdString();
        QVERIFY(w.write(path).has_value());
        const auto f = readGgufFile(path);
        QVERIFY2(f.has_value(), f ? "" : f.error().message.c_str());
        QCOMPARE(f->version, 3u);
        QCOMPARE(f->metadata.size(), w.metadata().size());
        for (std::size_t i = 0; i < w.metadata().size(); ++i) {
            QCOMPARE(f->metadata[i].first, w.metadata()[i].first); // file order kept
            QVERIFY2(f->metadata[i].second == w.metadata()[i].second, f->metadata[i].first.c_str());
        }
    }

    void typedGettersConvertBetweenIntegerWidths() {
        const GgufWriter w = everyValueType();
        const std::string bytes = wholeFile(w);
        const auto f = parseGguf(asBytes(bytes));
        QVERIFY(f.has_value());
        QCOMPARE(*f->getUInt("t.u8"), 250ull);
        QCOMPARE(*f->getUInt("t.u32"), 4000000000ull);
        QCOMPARE(*f->getInt("t.i8"), -100ll);
        QVERIFY(!f->getUInt("t.i8").has_value()); // negative: no unsigned reading
        QVERIFY(!f->getInt("t.u64").has_value()); // 1.8e19 > INT64_MAX
        QCOMPARE(*f->getFloat("t.f32"), 0.25);
        QCOMPARE(*f->getFloat("t.u16"), 65000.0);  // integers read as floats
        QVERIFY(!f->getUInt("t.f32").has_value()); // floats do not read as integers
        QCOMPARE(*f->getBool("t.bool"), true);
        QCOMPARE(*f->getString("t.string"), std::string("héllo ✓"));
        QVERIFY(!f->getString("missing").has_value());
        QCOMPARE(*f->arrayLength("t.arr_str"), 3ull);
        QCOMPARE(f->getIntArray("t.arr_i32"), (std::vector<std::int64_t>{-7, 0, 7}));
        QCOMPARE(f->getIntArray("t.arr_u64"), (std::vector<std::int64_t>{1ll << 40}));
        QCOMPARE(f->getFloatArray("t.arr_f32"), (std::vector<double>{0.5, -2.0}));
        QCOMPARE(f->getStringArray("t.arr_str"), (std::vector<std::string>{"a", "", "ünï"}));
        QVERIFY(f->getIntArray("t.arr_str").empty()); // strings are not integers
        QCOMPARE(*f->getArray("t.arr_bool")->boolAt(1), false);
        QCOMPARE(*f->getArray("t.arr_str")->stringAt(2), std::string_view("ünï"));
        QVERIFY(!f->getArray("t.arr_str")->stringAt(3).has_value());
        QCOMPARE(*f->arrayLength("t.arr_empty"), 0ull);
    }

    void nestedArraysDecodeLevelByLevel() {
        const std::string bytes = wholeFile(everyValueType());
        const auto f = parseGguf(asBytes(bytes));
        QVERIFY(f.has_value());
        const auto outer = f->getArray("t.arr_nested")->arrays();
        QCOMPARE(outer.size(), std::size_t{3});
        QCOMPARE(outer[0].ints(), (std::vector<std::int64_t>{1, 2}));
        QCOMPARE(outer[1].strings(), (std::vector<std::string>{"x", "yz"}));
        const auto inner = outer[2].arrays();
        QCOMPARE(inner.size(), std::size_t{1});
        QCOMPARE(inner[0].floats(), (std::vector<double>{1.5}));
    }

    void arraysRememberWhereTheyStartInTheFile() {
        GgufWriter w;
        w.set("a", GgufValue::array(GgufArray::ofUInt32({5, 6})));
        const std::string bytes = wholeFile(w);
        const auto f = parseGguf(asBytes(bytes));
        QVERIFY(f.has_value());
        // 24 header bytes + key (8 + 1) + value type 4 + element type 4 + count 8 = 49
        QCOMPARE(f->getArray("a")->fileOffset(), 49ull);
        QCOMPARE(f->getArray("a")->raw(), std::string_view(bytes).substr(49, 8));
    }

    void versionTwoFilesReadLikeVersionThree() {
        GgufWriter w = everyValueType();
        w.setVersion(2);
        const std::string bytes = wholeFile(w);
        const auto f = parseGguf(asBytes(bytes));
        QVERIFY2(f.has_value(), f ? "" : f.error().message.c_str());
        QCOMPARE(f->version, 2u);
        QCOMPARE(*f->getString("t.string"), std::string("héllo ✓"));
    }

    void tensorBytesFollowEachTypesBlockGeometry() {
        // One tensor per known ggml type, each 2 rows of 256 x 2 elements (256 is a multiple of
        // every block size: 1, 32, 64, 128, 256).
        GgufWriter w;
        std::vector<GgmlTypeInfo> types;
        for (std::uint32_t id = 0; id < 64; ++id) {
            if (const auto t = ggmlTypeInfo(id)) {
                types.push_back(*t);
                w.addTensor("t" + std::to_string(id), {512, 2, 1}, t->type);
            }
        }
        QCOMPARE(types.size(), std::size_t{35}); // the table in core/ggml_type.cpp
        const std::string bytes = wholeFile(w);
        const auto f = parseGguf(asBytes(bytes));
        QVERIFY2(f.has_value(), f ? "" : f.error().message.c_str());
        QCOMPARE(f->tensors.size(), types.size());
        Bytes sum = 0;
        for (std::size_t i = 0; i < types.size(); ++i) {
            const auto& t = f->tensors[i];
            QCOMPARE(t.type, types[i].type);
            // bytes = (512 / block_elems) blocks x block_bytes per row x 2 rows
            const Bytes expect = Bytes{512} / types[i].block_elems * types[i].block_bytes * 2;
            QCOMPARE(t.bytes, expect);
            QCOMPARE(t.elements(), 1024ull);
            QCOMPARE(t.offset % 32, 0ull);
            QCOMPARE(t.file_offset, f->data_offset + t.offset);
            sum += expect;
        }
        QCOMPARE(f->tensor_bytes, sum);
        QCOMPARE(*f->findTensor("t8")->dims.data(), 512ull);
        QVERIFY(f->findTensor("nope") == nullptr);
    }

    void customAlignmentMovesTheDataSection() {
        GgufWriter w;
        w.setAlignment(4096);
        w.addTensor("a", {32}, GgmlType::F32);  // 128 bytes -> padded to 4096
        w.addTensor("b", {64}, GgmlType::Q8_0); // 2 blocks x 34 = 68 bytes
        const std::string bytes = wholeFile(w);
        const auto f = parseGguf(asBytes(bytes));
        QVERIFY(f.has_value());
        QCOMPARE(f->alignment, 4096u);
        QCOMPARE(f->data_offset, Bytes{4096}); // header < 4096 bytes, padded up
        QCOMPARE(f->tensors[1].offset, 4096ull);
        QCOMPARE(f->tensors[1].bytes, Bytes{68});
        // file = 4096 header + 4096 (a padded) + 4096 (b padded)
        QCOMPARE(f->file_bytes, Bytes{3 * 4096});
    }

    void aFileWithoutTensorsHasNoPaddingRequirement() {
        GgufWriter w;
        w.set("general.architecture", GgufValue::string("llama"));
        const std::string bytes = w.header();
        const auto f = parseGguf(asBytes(bytes));
        QVERIFY(f.has_value());
        QCOMPARE(f->data_offset, Bytes{bytes.size()});
        QCOMPARE(f->tensor_bytes, Bytes{0});
    }

    void aLargeTokenizerIsCountedWithoutDecodingStrings() {
        // 150k tokens plus merges, like Qwen/Llama-3 class vocabularies.
        constexpr std::size_t kVocab = 150000;
        std::vector<std::string> tokens(kVocab), merges(kVocab - 256);
        for (std::size_t i = 0; i < kVocab; ++i)
            tokens[i] = "tok" + std::to_string(i);
        for (std::size_t i = 0; i < merges.size(); ++i)
            merges[i] = "t" + std::to_string(i) + " k" + std::to_string(i);
        std::vector<std::int32_t> types(kVocab, 1);
        std::vector<float> scores(kVocab, 0.0f);
        GgufWriter w;
        w.set("general.architecture", GgufValue::string("qwen2"));
        w.set("tokenizer.ggml.model", GgufValue::string("gpt2"));
        w.set("tokenizer.ggml.tokens", GgufValue::array(GgufArray::ofStrings(tokens)));
        w.set("tokenizer.ggml.token_type", GgufValue::array(GgufArray::ofInt32(types)));
        w.set("tokenizer.ggml.scores", GgufValue::array(GgufArray::ofFloat32(scores)));
        w.set("tokenizer.ggml.merges", GgufValue::array(GgufArray::ofStrings(merges)));
        w.addTensor("token_embd.weight", {1024, kVocab}, GgmlType::Q8_0);
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/vocab.gguf").toStdString();
        QVERIFY(w.write(path).has_value());
        const auto f = readGgufFile(path);
        QVERIFY2(f.has_value(), f ? "" : f.error().message.c_str());
        QCOMPARE(*f->arrayLength("tokenizer.ggml.tokens"), std::uint64_t{kVocab});
        QCOMPARE(*f->arrayLength("tokenizer.ggml.merges"), std::uint64_t{kVocab - 256});
        const GgufArray* toks = f->getArray("tokenizer.ggml.tokens");
        QCOMPARE(*toks->stringAt(149999), std::string_view("tok149999"));
        const auto views = toks->stringViews();
        QCOMPARE(views.size(), kVocab);
        QCOMPARE(views[12345], std::string_view("tok12345"));
        QCOMPARE(*f->getArray("tokenizer.ggml.token_type")->intAt(7), 1ll);
        // 1024 / 32 = 32 q8_0 blocks x 34 bytes = 1088 bytes per row x 150000 rows
        QCOMPARE(f->tensors[0].bytes, Bytes{1088} * kVocab);
    }

    void splitModelSumsItsPartsAndNamesTheMissingOne() {
        QTemporaryDir dir;
        const std::string stem = (dir.path() + "/big").toStdString();
        for (int i : {1, 3}) { // part 2 of 3 is missing
            GgufWriter w;
            if (i == 1) w.set("general.architecture", GgufValue::string("llama"));
            w.set("split.no", GgufValue::u16(static_cast<std::uint16_t>(i - 1)));
            w.set("split.count", GgufValue::u16(3));
            w.addTensor("blk." + std::to_string(i) + ".w", {4096, 1000}, GgmlType::F16);
            QVERIFY(w.write(ggufSplitPath(stem, i, 3)).has_value());
        }
        const auto m = openGgufModel(ggufSplitPath(stem, 3, 3)); // any part opens the model
        QVERIFY2(m.has_value(), m ? "" : m.error().message.c_str());
        QCOMPARE(m->parts.size(), std::size_t{2});
        QVERIFY(!m->complete);
        QCOMPARE(m->missing_parts, std::vector<std::string>{stem + "-00002-of-00003.gguf"});
        // two parts x 4096 x 1000 f16 elements x 2 bytes
        QCOMPARE(m->tensor_bytes, Bytes{2 * 4096 * 1000 * 2});
        QCOMPARE(m->tensor_count, std::size_t{2});
        QCOMPARE(m->architecture(), std::string("llama")); // from part 1
        QVERIFY(!m->is_projector);
    }

    void splitPartThatContradictsItsNameIsRefused() {
        QTemporaryDir dir;
        const std::string stem = (dir.path() + "/m").toStdString();
        GgufWriter w;
        w.set("split.no", GgufValue::u16(1)); // says part 2
        w.set("split.count", GgufValue::u16(2));
        QVERIFY(w.write(ggufSplitPath(stem, 1, 2)).has_value());
        const auto m = openGgufModel(ggufSplitPath(stem, 1, 2));
        QVERIFY(!m.has_value());
        QVERIFY(m.error().message.find("named as part 1") != std::string::npos);
    }

    void splitNamesParseOnlyInLlamaCppsPattern() {
        const auto s = parseGgufSplitName("/m/Qwen3-235B-Q4_K_M-00002-of-00005.gguf");
        QVERIFY(s.has_value());
        QCOMPARE(s->stem, std::string("/m/Qwen3-235B-Q4_K_M"));
        QCOMPARE(s->index, 2);
        QCOMPARE(s->count, 5);
        QVERIFY(!parseGgufSplitName("/m/model-00006-of-00005.gguf")); // index > count
        QVERIFY(!parseGgufSplitName("/m/model-0001-of-0005.gguf"));   // 4 digits
        QVERIFY(!parseGgufSplitName("/m/model.gguf"));
        QVERIFY(!parseGgufSplitName("/m/-00001-of-00002.gguf")); // no stem
    }

    void singleFileModelIsCompleteAndProjectorsAreRecognised() {
        QTemporaryDir dir;
        GgufWriter w;
        w.set("general.architecture", GgufValue::string("clip"));
        w.addTensor("v.patch_embd.weight", {14, 14, 3, 1024}, GgmlType::F16);
        const std::string path = (dir.path() + "/mmproj-f16.gguf").toStdString();
        QVERIFY(w.write(path).has_value());
        const auto m = openGgufModel(path);
        QVERIFY(m.has_value());
        QVERIFY(m->complete);
        QVERIFY(m->is_projector);
        // 14 * 14 * 3 * 1024 elements x 2 bytes
        QCOMPARE(m->tensor_bytes, Bytes{14 * 14 * 3 * 1024 * 2});
        QCOMPARE(m->file_bytes, w.fileSize());
    }

    void missingFileIsNotFoundAndADirectoryIsRefused() {
        QTemporaryDir dir;
        const auto a = readGgufFile((dir.path() + "/nope.gguf").toStdString());
        QVERIFY(!a.has_value());
        QCOMPARE(a.error().code, ErrorCode::NotFound);
        const auto b = readGgufFile(dir.path().toStdString());
        QVERIFY(!b.has_value());
        QCOMPARE(b.error().code, ErrorCode::IoError);
    }
};

QTEST_APPLESS_MAIN(TestGgufReader)
#include "test_gguf_reader.moc"
