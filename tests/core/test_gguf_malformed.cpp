// Hostile GGUF input: a generated corpus covering every class of damage the reader must refuse.
// Each case must come back as an Error whose message names the byte offset of the problem; none
// may crash, hang or allocate more than the file could hold (the asan preset runs this too).
#include "gguf/gguf_reader.h"
#include "gguf/gguf_writer.h"

#include <QtTest>

#include <cstring>
#include <random>

using namespace headroom;

namespace {

std::span<const std::uint8_t> asBytes(const std::string& s) {
    return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// Little-endian byte builder for headers the writer would never produce.
struct Bytes_ {
    std::string s;
    Bytes_& raw(std::string_view v) {
        s.append(v);
        return *this;
    }
    template <typename T>
    Bytes_& num(T v) {
        char b[sizeof(T)];
        std::memcpy(b, &v, sizeof(T));
        s.append(b, sizeof(T));
        return *this;
    }
    Bytes_& str(std::string_view v) { return num<std::uint64_t>(v.size()).raw(v); }
    Bytes_& header(std::uint64_t n_tensors, std::uint64_t n_kv, std::uint32_t version = 3) {
        return raw("GGUF").num<std::uint32_t>(version).num(n_tensors).num(n_kv);
    }
    Bytes_& kvU32(std::string_view key, std::uint32_t v) {
        return str(key).num<std::uint32_t>(4).num(v);
    }
    Bytes_& tensor(std::string_view name, std::vector<std::uint64_t> dims, std::uint32_t type,
                   std::uint64_t offset) {
        str(name).num<std::uint32_t>(static_cast<std::uint32_t>(dims.size()));
        for (auto d : dims)
            num(d);
        return num(type).num(offset);
    }
    // Pads to 32 and appends `data` zero bytes.
    Bytes_& data(std::size_t n) {
        s.resize((s.size() + 31) / 32 * 32, '\0');
        s.resize(s.size() + n, '\0');
        return *this;
    }
};

// A small valid file with a bit of everything: scalars, a string, arrays of numbers, strings
// and arrays, and two tensors.
std::string smallValidFile() {
    GgufWriter w;
    w.set("general.architecture", GgufValue::string("llama"));
    w.set("llama.context_length", GgufValue::u32(4096));
    w.set("llama.rope.freq_base", GgufValue::f32(10000.0f));
    w.set("tokenizer.ggml.tokens", GgufValue::array(GgufArray::ofStrings({"<s>", "a", "bc"})));
    w.set("tokenizer.ggml.scores", GgufValue::array(GgufArray::ofFloat32({0, -1, -2})));
    w.set("x.nested", GgufValue::array(GgufArray::ofArrays({GgufArray::ofUInt8({1, 2})})));
    w.addTensor("token_embd.weight", {32, 3}, GgmlType::Q8_0);
    w.addTensor("output_norm.weight", {32}, GgmlType::F32);
    std::string bytes = w.header();
    bytes.resize(w.fileSize(), '\0');
    return bytes;
}

// Parses and returns the error; fails the test if the input was accepted.
Error mustFail(const std::string& bytes) {
    auto r = parseGguf(asBytes(bytes), "case.gguf");
    if (r.has_value()) return Error{ErrorCode::InvalidArgument, "ACCEPTED", ""};
    return r.error();
}

} // namespace

#define EXPECT_ERROR(bytes, code_, offset_, needle)                                                \
    do {                                                                                           \
        const Error e_ = mustFail(bytes);                                                          \
        QVERIFY2(e_.message != "ACCEPTED", "malformed input was accepted");                        \
        QVERIFY2(e_.message.find("at byte offset " + std::to_string(offset_) + ")") !=             \
                     std::string::npos,                                                            \
                 e_.message.c_str());                                                              \
        QVERIFY2(e_.message.find(needle) != std::string::npos, e_.message.c_str());                \
        QCOMPARE(e_.code, code_);                                                                  \
    } while (0)

class TestGgufMalformed : public QObject {
    Q_OBJECT
private slots:
    void theSmallValidFileParses() {
        const std::string f = smallValidFile();
        const auto r = parseGguf(asBytes(f));
        QVERIFY2(r.has_value(), r ? "" : r.error().message.c_str());
        QCOMPARE(r->tensors.size(), std::size_t{2});
    }

    void truncationAtEveryByteIsAnErrorNamingAnOffset() {
        const std::string f = smallValidFile();
        for (std::size_t n = 0; n < f.size(); ++n) {
            const Error e = mustFail(f.substr(0, n));
            const std::string ctx = "prefix of " + std::to_string(n) + " bytes: " + e.message;
            QVERIFY2(e.message != "ACCEPTED", ctx.c_str());
            QVERIFY2(e.message.find("at byte offset ") != std::string::npos, ctx.c_str());
            QVERIFY2(e.code == ErrorCode::Truncated, ctx.c_str());
            // The offset named lies within the bytes we handed over (or at their end).
            const auto at = e.details.substr(std::strlen("offset "));
            QVERIFY2(std::stoull(at) <= n, ctx.c_str());
        }
    }

    void wrongMagicIsRefusedAtByteZero() {
        std::string f = smallValidFile();
        f[0] = 'g';
        EXPECT_ERROR(f, ErrorCode::ParseError, 0, "not a GGUF file");
        EXPECT_ERROR(std::string("GG"), ErrorCode::Truncated, 0, "too short");
    }

    void unsupportedVersionsAreRefusedAtByteFour() {
        EXPECT_ERROR(Bytes_{}.header(0, 0, 1).s, ErrorCode::Unsupported, 4, "v1 is obsolete");
        EXPECT_ERROR(Bytes_{}.header(0, 0, 4).s, ErrorCode::Unsupported, 4, "version 4");
        // 3 stored big-endian reads as 0x03000000 little-endian
        EXPECT_ERROR(Bytes_{}.header(0, 0, 0x03000000).s, ErrorCode::Unsupported, 4, "big-endian");
    }

    void countsLargerThanTheFileAreRefusedBeforeAllocating() {
        // 2^60 keys cannot fit in 0 remaining bytes; the count sits at byte 16
        EXPECT_ERROR(Bytes_{}.header(0, 1ull << 60).s, ErrorCode::Truncated, 16, "metadata keys");
        EXPECT_ERROR(Bytes_{}.header(1ull << 60, 0).s, ErrorCode::Truncated, 8, "tensors");
        // A key whose length claims 2^62 bytes: the length is at byte 24
        EXPECT_ERROR(Bytes_{}.header(0, 1).num<std::uint64_t>(1ull << 62).raw("abcdefgh").s,
                     ErrorCode::Truncated, 24, "key 0 claims");
        // A string value claiming more than remains: value length at 24 + 8 + 1 + 4 = 37
        EXPECT_ERROR(
            Bytes_{}.header(0, 1).str("k").num<std::uint32_t>(8).num<std::uint64_t>(1000).s,
            ErrorCode::Truncated, 37, "claims 1000 bytes");
        // An array of 2^61 u32s: the element type is at 37, count at 41, elements from 49
        EXPECT_ERROR(Bytes_{}
                         .header(0, 1)
                         .str("k")
                         .num<std::uint32_t>(9)
                         .num<std::uint32_t>(4)
                         .num<std::uint64_t>(1ull << 61)
                         .num<std::uint32_t>(0)
                         .s,
                     ErrorCode::Truncated, 49, "claims 2305843009213693952 u32 elements");
        // A string array whose second element claims more than remains: elements start at
        // 49; first is 8 + 1 bytes, so the second's length sits at 58
        EXPECT_ERROR(Bytes_{}
                         .header(0, 1)
                         .str("k")
                         .num<std::uint32_t>(9)
                         .num<std::uint32_t>(8)
                         .num<std::uint64_t>(2)
                         .str("a")
                         .num<std::uint64_t>(1ull << 40)
                         .s,
                     ErrorCode::Truncated, 58, "string 1 of array 'k'");
        // Nested arrays claiming 2^50 children
        EXPECT_ERROR(Bytes_{}
                         .header(0, 1)
                         .str("k")
                         .num<std::uint32_t>(9)
                         .num<std::uint32_t>(9)
                         .num<std::uint64_t>(1ull << 50)
                         .s,
                     ErrorCode::Truncated, 49, "nested arrays");
    }

    void unknownTypeIdsAreRefused() {
        // value type 13 at 24 + 8 + 1 = 33
        EXPECT_ERROR(Bytes_{}.header(0, 1).str("k").num<std::uint32_t>(13).num<std::uint8_t>(0).s,
                     ErrorCode::Unsupported, 33, "unknown value type 13");
        // array element type 99 at 37
        EXPECT_ERROR(Bytes_{}
                         .header(0, 1)
                         .str("k")
                         .num<std::uint32_t>(9)
                         .num<std::uint32_t>(99)
                         .num<std::uint64_t>(0)
                         .s,
                     ErrorCode::Unsupported, 37, "unknown element type 99");
        // ggml type 4 (removed Q4_2) for a tensor: name 8+1, n_dims 4, ne 8 -> type at 24+21=45
        EXPECT_ERROR(Bytes_{}.header(1, 0).tensor("t", {32}, 4, 0).data(128).s,
                     ErrorCode::Unsupported, 45, "unknown ggml type id 4");
        EXPECT_ERROR(Bytes_{}.header(1, 0).tensor("t", {32}, 1000, 0).data(128).s,
                     ErrorCode::Unsupported, 45, "unknown ggml type id 1000");
    }

    void absurdDimensionsAreRefused() {
        // n_dims at 24 + 9 = 33
        EXPECT_ERROR(Bytes_{}.header(1, 0).tensor("t", {1, 1, 1, 1, 1}, 0, 0).data(64).s,
                     ErrorCode::ParseError, 33, "has 5 dimensions");
        // zero second dimension at 33 + 4 + 8 = 45
        EXPECT_ERROR(Bytes_{}.header(1, 0).tensor("t", {32, 0}, 0, 0).data(64).s,
                     ErrorCode::ParseError, 45, "dimension 1 is zero");
        // -1 as ne[0] at 37
        EXPECT_ERROR(Bytes_{}.header(1, 0).tensor("t", {~0ull}, 0, 0).data(64).s,
                     ErrorCode::ParseError, 37, "is negative");
        // 2^32 x 2^32 overflows int64 at the second dimension (byte 45)
        EXPECT_ERROR(Bytes_{}.header(1, 0).tensor("t", {1ull << 32, 1ull << 32}, 0, 0).data(64).s,
                     ErrorCode::ParseError, 45, "more elements than fit");
        // a q8_0 row of 33 elements is not whole blocks of 32; type at 24 + 9 + 4 + 8 = 45
        EXPECT_ERROR(Bytes_{}.header(1, 0).tensor("t", {33}, 8, 0).data(64).s,
                     ErrorCode::ParseError, 45, "not a multiple of its block size 32");
        // 2^62 f32 elements fit int64 but their bytes (2^64) do not
        EXPECT_ERROR(Bytes_{}.header(1, 0).tensor("t", {1ull << 62}, 0, 0).data(64).s,
                     ErrorCode::ParseError, 45, "larger than a 64-bit byte count");
    }

    void invalidUtf8IsRefusedWhereItSits() {
        // key "a\xff": bad byte at 24 + 8 + 1 = 33
        EXPECT_ERROR(Bytes_{}.header(0, 1).kvU32("a\xff", 1).s, ErrorCode::ParseError, 33,
                     "key 0 is not valid UTF-8");
        // overlong '/' (C0 AF) in a string value: value bytes start at 24 + 9 + 4 + 8 = 45
        EXPECT_ERROR(Bytes_{}.header(0, 1).str("k").num<std::uint32_t>(8).str("\xc0\xaf").s,
                     ErrorCode::ParseError, 45, "not valid UTF-8");
        // UTF-16 surrogate U+D800 (ED A0 80) after "ab": at 45 + 2 = 47
        EXPECT_ERROR(Bytes_{}.header(0, 1).str("k").num<std::uint32_t>(8).str("ab\xed\xa0\x80").s,
                     ErrorCode::ParseError, 47, "not valid UTF-8");
        // truncated sequence in a tensor name: name bytes from 32
        EXPECT_ERROR(Bytes_{}.header(1, 0).tensor("\xe2\x82", {32}, 0, 0).data(128).s,
                     ErrorCode::ParseError, 32, "not valid UTF-8");
    }

    void duplicatesAreRefused() {
        // second key starts at 24 + (8 + 1 + 4 + 4) = 41
        EXPECT_ERROR(Bytes_{}.header(0, 2).kvU32("k", 1).kvU32("k", 2).s, ErrorCode::ParseError, 41,
                     "duplicate key 'k' (first at byte offset 24)");
        // second tensor info at 24 + (9 + 4 + 8 + 4 + 8) = 57
        EXPECT_ERROR(
            Bytes_{}.header(2, 0).tensor("t", {8}, 0, 0).tensor("t", {8}, 0, 32).data(64).s,
            ErrorCode::ParseError, 57, "duplicate tensor name 't'");
    }

    void emptyKeysAndOverlongNamesAreRefused() {
        EXPECT_ERROR(Bytes_{}.header(0, 1).kvU32("", 1).s, ErrorCode::ParseError, 24,
                     "key 0 is empty");
        EXPECT_ERROR(Bytes_{}.header(1, 0).tensor(std::string(64, 'n'), {8}, 0, 0).data(64).s,
                     ErrorCode::ParseError, 24, "at most 63");
    }

    void badAlignmentIsRefused() {
        EXPECT_ERROR(Bytes_{}.header(0, 1).kvU32("general.alignment", 48).s, ErrorCode::ParseError,
                     24, "not a power of two");
        EXPECT_ERROR(Bytes_{}.header(0, 1).kvU32("general.alignment", 0).s, ErrorCode::ParseError,
                     24, "not a power of two");
        EXPECT_ERROR(Bytes_{}
                         .header(0, 1)
                         .str("general.alignment")
                         .num<std::uint32_t>(10)
                         .num<std::uint64_t>(32)
                         .s,
                     ErrorCode::ParseError, 24, "must be a u32 but is a u64");
    }

    void misplacedTensorDataIsRefused() {
        // offset field of the only tensor: 24 + 9 + 4 + 8 + 4 = 49
        EXPECT_ERROR(Bytes_{}.header(1, 0).tensor("t", {8}, 0, 16).data(64).s,
                     ErrorCode::ParseError, 49, "not a multiple of the alignment 32");
        EXPECT_ERROR(Bytes_{}.header(1, 0).tensor("t", {8}, 0, 64).data(128).s,
                     ErrorCode::ParseError, 49, "expected 0");
        // 8 f32 = 32 bytes of data, only 16 present after the 64-byte header
        EXPECT_ERROR(Bytes_{}.header(1, 0).tensor("t", {8}, 0, 0).data(16).s, ErrorCode::Truncated,
                     49, "extends past the end");
        // A tensor that claims 2^40 bytes at the end of a tiny file
        EXPECT_ERROR(Bytes_{}.header(1, 0).tensor("t", {1ull << 38}, 0, 0).data(32).s,
                     ErrorCode::Truncated, 49, "extends past the end");
    }

    void nestingBeyondTheLimitIsRefused() {
        GgufArray a = GgufArray::ofUInt8({1});
        for (int i = 0; i < 12; ++i)
            a = GgufArray::ofArrays({a});
        GgufWriter w;
        w.set("deep", GgufValue::array(a));
        const Error e = mustFail(w.header());
        QVERIFY2(e.message.find("nests arrays more than 8 deep") != std::string::npos,
                 e.message.c_str());
        QCOMPARE(e.code, ErrorCode::Unsupported);
    }

    void randomByteDamageNeverCrashes() {
        // Deterministic mutations of the small file: flip, overwrite with extremes, splice.
        // Each must either parse or give an Error naming an offset; ASan catches the rest.
        const std::string base = smallValidFile();
        std::mt19937_64 rng(20240611);
        int accepted = 0, refused = 0;
        for (int round = 0; round < 20000; ++round) {
            std::string f = base;
            const int edits = 1 + static_cast<int>(rng() % 4);
            for (int k = 0; k < edits; ++k) {
                const std::size_t at = rng() % f.size();
                switch (rng() % 4) {
                case 0:
                    f[at] = static_cast<char>(f[at] ^ (1 << (rng() % 8)));
                    break;
                case 1:
                    f[at] = static_cast<char>(0xff);
                    break;
                case 2:
                    f[at] = static_cast<char>(rng());
                    break;
                case 3:
                    f.resize(at);
                    break;
                }
                if (f.empty()) break;
            }
            const auto r = parseGguf(asBytes(f), "mutant");
            if (r.has_value()) {
                ++accepted;
                QVERIFY(r->tensor_bytes <= f.size());
            } else {
                ++refused;
                QVERIFY2(r.error().message.find("at byte offset ") != std::string::npos,
                         r.error().message.c_str());
            }
        }
        QVERIFY(refused > 0);
        QCOMPARE(accepted + refused, 20000);
    }
};

QTEST_APPLESS_MAIN(TestGgufMalformed)
#include "test_gguf_malformed.moc"
