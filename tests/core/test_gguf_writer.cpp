// GgufWriter on its own: byte layout of the header and the sparse data section. The round trip
// through the reader lives in test_gguf_reader.cpp.
#include "gguf/gguf_writer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <sys/stat.h>

using namespace headroom;

namespace {
std::uint64_t u64At(const std::string& s, std::size_t off) {
    std::uint64_t v = 0;
    std::memcpy(&v, s.data() + off, 8);
    return v;
}
std::uint32_t u32At(const std::string& s, std::size_t off) {
    std::uint32_t v = 0;
    std::memcpy(&v, s.data() + off, 4);
    return v;
}
} // namespace

class TestGgufWriter : public QObject {
    Q_OBJECT
private slots:
    void headerStartsWithMagicVersionAndCounts() {
        GgufWriter w;
        w.set("general.architecture", GgufValue::string("llama"));
        w.addTensor("token_embd.weight", {4096, 32000}, GgmlType::Q4_0);
        const std::string h = w.header();
        QCOMPARE(h.substr(0, 4), std::string("GGUF"));
        QCOMPARE(u32At(h, 4), 3u);
        QCOMPARE(u64At(h, 8), 1ull);  // one tensor
        QCOMPARE(u64At(h, 16), 1ull); // one key
        // key: u64 length 20 + "general.architecture" at byte 24, then u32 type 8 (string)
        QCOMPARE(u64At(h, 24), 20ull);
        QCOMPARE(u32At(h, 24 + 8 + 20), 8u);
    }

    void headerIsPaddedToTheDefaultAlignment() {
        GgufWriter w;
        w.addTensor("a", {32}, GgmlType::F32);
        // 24 fixed bytes + name (8 + 1) + n_dims 4 + ne 8 + type 4 + offset 8 = 57 -> padded to 64
        QCOMPARE(w.header().size(), std::size_t{64});
        QCOMPARE(w.dataOffset(), Bytes{64});
    }

    void tensorOffsetsArePaddedToTheAlignment() {
        GgufWriter w;
        w.setAlignment(64);
        w.addTensor("a", {10}, GgmlType::F32); // 40 bytes -> 64 with padding
        w.addTensor("b", {32, 2}, GgmlType::Q8_0);
        // b: one q8_0 block (34 bytes) per row x 2 rows = 68 bytes
        QCOMPARE(w.tensorOffset(0), 0ull);
        QCOMPARE(w.tensorOffset(1), 64ull);
        QCOMPARE(GgufWriter::tensorBytes(w.tensors()[1]), Bytes{68});
        // 68 padded to 64 -> 128; data = 64 + 128 = 192
        QCOMPARE(w.fileSize(), w.dataOffset() + 192);
    }

    void writeLeavesTheDataSectionAsAHole() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        GgufWriter w;
        // An 80B-class tensor: 8192 x 1048576 f16 = 16 GiB of data that must not hit the disk.
        w.addTensor("big", {8192, 1048576}, GgmlType::F16);
        const std::string path = (dir.path() + "/big.gguf").toStdString();
        const auto r = w.write(path);
        QVERIFY2(r.has_value(), r.has_value() ? "" : r.error().message.c_str());
        QCOMPARE(*r, w.fileSize());
        struct stat st {};
        QCOMPARE(::stat(path.c_str(), &st), 0);
        QCOMPARE(static_cast<Bytes>(st.st_size), w.fileSize());
        // st_blocks counts 512-byte units actually allocated; a hole costs (almost) none.
        QVERIFY(static_cast<Bytes>(st.st_blocks) * 512 < 1 * MiB);
    }

    void writeRefusesToReplaceAFileUnlessAsked() {
        QTemporaryDir dir;
        GgufWriter w;
        const std::string path = (dir.path() + "/x.gguf").toStdString();
        QVERIFY(w.write(path).has_value());
        QVERIFY(!w.write(path).has_value());
        QVERIFY(w.write(path, /*overwrite=*/true).has_value());
    }
};

QTEST_APPLESS_MAIN(TestGgufWriter)
#include "test_gguf_writer.moc"
