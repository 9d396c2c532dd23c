// File > Open URL… in the model picker: an hf: reference or https:// address is read off the GUI
// thread from a loopback server (tests/common/gguf_http_server.py), added, selected and
// remembered as typed; an unreachable hub is an error in the picker, not a hang.
#include "common/gguf_http_server.h"
#include "modelpicker.h"

#include "core/gguf/gguf_writer.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

using namespace headroom;
using namespace headroom::ui;

namespace {

// A 2-layer Llama-style header with Q8_0 weights; the data is a sparse hole.
bool writeTinyLlama(const QString& path) {
    GgufWriter w;
    w.set("general.architecture", GgufValue::string("llama"));
    w.set("general.name", GgufValue::string("Tiny"));
    w.set("llama.context_length", GgufValue::u32(8192));
    w.set("llama.embedding_length", GgufValue::u32(1024));
    w.set("llama.block_count", GgufValue::u32(2));
    w.set("llama.feed_forward_length", GgufValue::u32(2816));
    w.set("llama.attention.head_count", GgufValue::u32(8));
    w.set("llama.attention.head_count_kv", GgufValue::u32(2));
    w.set("tokenizer.ggml.tokens",
          GgufValue::array(GgufArray::ofStrings(std::vector<std::string>(1000, "t"))));
    w.addTensor("token_embd.weight", {1024, 1000}, GgmlType::Q8_0);
    for (int il = 0; il < 2; ++il) {
        const std::string b = "blk." + std::to_string(il) + ".";
        w.addTensor(b + "attn_norm.weight", {1024}, GgmlType::F32);
        w.addTensor(b + "attn_q.weight", {1024, 1024}, GgmlType::Q8_0);
        w.addTensor(b + "attn_k.weight", {1024, 256}, GgmlType::Q8_0);
        w.addTensor(b + "attn_v.weight", {1024, 256}, GgmlType::Q8_0);
        w.addTensor(b + "attn_output.weight", {1024, 1024}, GgmlType::Q8_0);
        w.addTensor(b + "ffn_norm.weight", {1024}, GgmlType::F32);
        w.addTensor(b + "ffn_gate.weight", {1024, 2816}, GgmlType::Q8_0);
        w.addTensor(b + "ffn_up.weight", {1024, 2816}, GgmlType::Q8_0);
        w.addTensor(b + "ffn_down.weight", {2816, 1024}, GgmlType::Q8_0);
    }
    w.addTensor("output_norm.weight", {1024}, GgmlType::F32);
    return w.write(path.toStdString()).has_value();
}

} // namespace

class TestModelPickerRemote : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QVERIFY(QDir().mkpath(dir_.filePath("www/acme/tiny-GGUF")));
        QVERIFY(writeTinyLlama(dir_.filePath("www/acme/tiny-GGUF/tiny-Q8_0.gguf")));
        qputenv("XDG_CACHE_HOME", dir_.filePath("cache").toUtf8());
        qunsetenv("HF_TOKEN");
    }

    void anHfReferenceIsAddedSelectedAndRememberedAsTyped() {
        test::Server s;
        QVERIFY(s.start(dir_.filePath("www"), "normal", dir_.filePath("stats.json")));
        qputenv("HF_ENDPOINT", s.base().toUtf8());
        ModelPicker picker;
        const QString ref = QStringLiteral("hf:acme/tiny-GGUF:Q8_0");
        picker.openFile(ref);
        QTRY_VERIFY_WITH_TIMEOUT(!picker.isLoading(), 20000);
        QVERIFY2(picker.errorText().isEmpty(), qPrintable(picker.errorText()));
        // The model's id is the file's address on the hub (resolve/main), the recent entry the
        // reference as typed.
        QCOMPARE(picker.selectedId(), s.base() + "/acme/tiny-GGUF/resolve/main/tiny-Q8_0.gguf");
        QCOMPARE(picker.recentFiles().value(0), ref);
        QVERIFY(s.stats().value("head", 0) >= 1);
    }

    void anUnreachableHubIsAnErrorWithinTenSeconds() {
        // Port 9 (discard) has no listener on the loopback address of a test machine.
        qputenv("HF_ENDPOINT", "http://127.0.0.1:9");
        ModelPicker picker;
        QElapsedTimer t;
        t.start();
        picker.openFile(QStringLiteral("hf:acme/other-GGUF"));
        QTRY_VERIFY_WITH_TIMEOUT(!picker.isLoading(), 20000);
        QVERIFY2(t.elapsed() < 10000, qPrintable(QString::number(t.elapsed())));
        QVERIFY2(picker.errorText().contains(QStringLiteral("hf:acme/other-GGUF")),
                 qPrintable(picker.errorText()));
        QVERIFY(picker.recentFiles().isEmpty());
    }

private:
    QTemporaryDir dir_;
};

QTEST_MAIN(TestModelPickerRemote)
#include "test_modelpicker_remote.moc"
