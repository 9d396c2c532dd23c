// headroom-cli plan of remote models (https:// and hf:OWNER/REPO[:QUANT]): the GGUF header is
// read with HTTP range requests from a loopback server (tests/common/gguf_http_server.py)
// serving files written by GgufWriter, and the plan is the local file's plan; offline fails
// fast with exit 3; fetched headers are cached; a server that ignores Range is read no further
// than needed.
#include "common/catalog_fixture.h"
#include "common/gguf_http_server.h"
#include "gguf/gguf_writer.h"
#include "remote/remote_gguf.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <arpa/inet.h>
#include <memory>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace headroom;
using headroom::test::Server;

namespace {

struct Run {
    int code = -1;
    QString out, err;
    qint64 ms = 0;
};

// headroom-cli with HF_ENDPOINT and XDG_CACHE_HOME pointed at the test's server and folder.
Run runCli(const QStringList& args, const QMap<QString, QString>& env) {
    QProcess p;
    auto e = QProcessEnvironment::systemEnvironment();
    e.remove("HF_TOKEN");
    for (auto it = env.begin(); it != env.end(); ++it)
        e.insert(it.key(), it.value());
    p.setProcessEnvironment(e);
    QElapsedTimer t;
    t.start();
    p.start(QStringLiteral(HEADROOM_BIN_DIR "/headroom-cli"), args);
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        return {-1, {}, {}, t.elapsed()};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError()), t.elapsed()};
}

constexpr std::uint32_t kLayers = 4;
constexpr std::uint64_t kEmbd = 2048;
constexpr std::uint64_t kFf = 5632;
// 60000 tokens of 8-byte length + 6-8 characters: ~900 KB of header, more than the reader's
// first 512 KiB range, so the range has to grow at least once.
constexpr std::uint64_t kVocab = 60000;

// A Llama-style header: 4 layers of 2048, 16 heads (4 KV heads), `type` weights; the tensor
// data is a sparse hole, so the file is hundreds of MB on the wire and a few MB on disk.
GgufWriter llamaLike(GgmlType type, const std::string& name) {
    GgufWriter w;
    w.set("general.architecture", GgufValue::string("llama"));
    w.set("general.name", GgufValue::string(name));
    w.set("llama.context_length", GgufValue::u32(32768));
    w.set("llama.embedding_length", GgufValue::u32(kEmbd));
    w.set("llama.block_count", GgufValue::u32(kLayers));
    w.set("llama.feed_forward_length", GgufValue::u32(kFf));
    w.set("llama.attention.head_count", GgufValue::u32(16));
    w.set("llama.attention.head_count_kv", GgufValue::u32(4));
    std::vector<std::string> tokens;
    tokens.reserve(kVocab);
    for (std::uint64_t i = 0; i < kVocab; ++i)
        tokens.push_back("tok" + std::to_string(i));
    w.set("tokenizer.ggml.tokens", GgufValue::array(GgufArray::ofStrings(tokens)));
    w.addTensor("token_embd.weight", {kEmbd, kVocab}, type);
    for (std::uint32_t il = 0; il < kLayers; ++il) {
        const std::string b = "blk." + std::to_string(il) + ".";
        w.addTensor(b + "attn_norm.weight", {kEmbd}, GgmlType::F32);
        w.addTensor(b + "attn_q.weight", {kEmbd, kEmbd}, type);
        w.addTensor(b + "attn_k.weight", {kEmbd, 512}, type);
        w.addTensor(b + "attn_v.weight", {kEmbd, 512}, type);
        w.addTensor(b + "attn_output.weight", {kEmbd, kEmbd}, type);
        w.addTensor(b + "ffn_norm.weight", {kEmbd}, GgmlType::F32);
        w.addTensor(b + "ffn_gate.weight", {kEmbd, kFf}, type);
        w.addTensor(b + "ffn_up.weight", {kEmbd, kFf}, type);
        w.addTensor(b + "ffn_down.weight", {kFf, kEmbd}, type);
    }
    w.addTensor("output_norm.weight", {kEmbd}, GgmlType::F32);
    w.addTensor("output.weight", {kEmbd, kVocab}, type);
    return w;
}

// The same model cut in three as gguf-split does: part 1 holds the metadata, every part its
// share of tensors and split.no / split.count.
std::vector<GgufWriter> splitInThree(const GgufWriter& whole) {
    std::vector<GgufWriter> parts(3);
    const auto& ts = whole.tensors();
    for (std::size_t i = 0; i < 3; ++i) {
        if (i == 0)
            for (const auto& [k, v] : whole.metadata())
                parts[i].set(k, v);
        parts[i].set("split.no", GgufValue::u16(static_cast<std::uint16_t>(i)));
        parts[i].set("split.count", GgufValue::u16(3));
        for (std::size_t t = i; t < ts.size(); t += 3)
            parts[i].addTensor(ts[t].name, ts[t].dims, ts[t].type);
    }
    return parts;
}

// A plan without where the model came from: what must be equal for a URL and a local file.
nlohmann::json planBody(const QString& json_text) {
    auto j = nlohmann::json::parse(json_text.toStdString(), nullptr, false);
    if (!j.is_object()) return {};
    j["model"].erase("id");
    j.erase("launch");
    return j;
}

const QStringList kMachine = {"--vram", "24GiB", "--ram", "64GiB", "--json"};

} // namespace

class TestCliRemote : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QVERIFY(QFile::exists(QStringLiteral(HEADROOM_BIN_DIR "/headroom-cli")));
        const QString files = dir_.filePath("www/direct");
        const QString repo = dir_.filePath("www/acme/tiny-GGUF");
        QVERIFY(QDir().mkpath(files));
        QVERIFY(QDir().mkpath(repo));
        auto write = [](const GgufWriter& w, const QString& path) {
            auto r = w.write(path.toStdString());
            return r.has_value();
        };
        QVERIFY(write(llamaLike(GgmlType::Q8_0, "Tiny"), files + "/model.gguf"));
        const auto parts = splitInThree(llamaLike(GgmlType::Q4_K, "Tiny split"));
        for (int i = 0; i < 3; ++i)
            QVERIFY(write(
                parts[i],
                files + QStringLiteral("/split-%1-of-00003.gguf").arg(i + 1, 5, 10, QChar('0'))));
        // A repository as the hub lays one out: three quants, a projector that is never picked.
        QVERIFY(write(llamaLike(GgmlType::Q4_K, "Tiny"), repo + "/tiny-Q4_K_M.gguf"));
        QVERIFY(write(llamaLike(GgmlType::Q4_K, "Tiny S"), repo + "/tiny-Q4_K_S.gguf"));
        QVERIFY(write(llamaLike(GgmlType::Q8_0, "Tiny"), repo + "/tiny-Q8_0.gguf"));
        GgufWriter proj;
        proj.set("general.architecture", GgufValue::string("clip"));
        QVERIFY(write(proj, repo + "/mmproj-tiny-Q8_0.gguf"));
    }

    void aUrlPlanEqualsTheLocalFilePlanAndReadsOnlyTheHeader() {
        Server s;
        QVERIFY(s.start(dir_.filePath("www"), "normal", dir_.filePath("stats-url.json")));
        const QString url = s.base() + "/files/direct/model.gguf";
        const auto env = cacheEnv("cache-url");
        const Run remote = runCli(QStringList{"plan", url} + kMachine, env);
        QVERIFY2(remote.code == 0, qPrintable(remote.err));
        const Run local =
            runCli(QStringList{"plan", dir_.filePath("www/direct/model.gguf")} + kMachine, env);
        QVERIFY2(local.code == 0, qPrintable(local.err));
        QCOMPARE(planBody(remote.out), planBody(local.out));
        QVERIFY(!planBody(remote.out).empty());
        // The progress line names the URL on stderr; stdout stays pure JSON.
        QVERIFY2(remote.err.contains("fetching the header of " + url), qPrintable(remote.err));
        const auto st = s.stats();
        // One HEAD, then ranges: the ~900 KB header needs more than the first 512 KiB range.
        QCOMPARE(st.value("head", 0), 1);
        QVERIFY2(st.value("ranged", 0) >= 2, st.dump().c_str());
        // Q8_0 token_embd alone is 2048 x 60000 x 34/32 B = 130.56 MB; the reader fetched the
        // header only, at most twice its ~0.9 MB after doubling ranges: below 4 MB.
        const auto file_size = QFileInfo(dir_.filePath("www/direct/model.gguf")).size();
        QVERIFY(file_size > 200'000'000);
        QVERIFY2(st.value("bytes_sent", std::int64_t{0}) < 4'000'000, st.dump().c_str());
    }

    void theSecondPlanOfAUrlUsesTheCachedHeader() {
        Server s;
        QVERIFY(s.start(dir_.filePath("www"), "normal", dir_.filePath("stats-cache.json")));
        const QString url = s.base() + "/files/direct/model.gguf";
        const auto env = cacheEnv("cache-twice");
        const Run first = runCli(QStringList{"plan", url} + kMachine, env);
        QVERIFY2(first.code == 0, qPrintable(first.err));
        const int gets_after_first = s.stats().value("get", 0);
        QVERIFY(gets_after_first >= 2);
        const Run second = runCli(QStringList{"plan", url} + kMachine, env);
        QVERIFY2(second.code == 0, qPrintable(second.err));
        // The second run validates with one HEAD (same ETag and size) and fetches nothing.
        QCOMPARE(s.stats().value("get", 0), gets_after_first);
        QCOMPARE(s.stats().value("head", 0), 2);
        QVERIFY2(second.err.contains("cached header"), qPrintable(second.err));
        QCOMPARE(planBody(second.out), planBody(first.out));
        // The cache holds one entry (written atomically: no temporary left behind).
        const QDir cache(dir_.filePath("cache-twice/headroom/headers"));
        QCOMPARE(cache.entryList(QDir::Files).size(), 1);
        // With the server gone, the cached header still plans, and says so.
        s.stop();
        const Run offline = runCli(QStringList{"plan", url} + kMachine, env);
        QVERIFY2(offline.code == 0, qPrintable(offline.err));
        QVERIFY2(offline.err.contains("cannot reach " + url), qPrintable(offline.err));
        QCOMPARE(planBody(offline.out), planBody(first.out));
    }

    void inspectAndExportTakeAnHfModelToo() {
        Server s;
        QVERIFY(s.start(dir_.filePath("www"), "normal", dir_.filePath("stats-inspect.json")));
        auto env = cacheEnv("cache-inspect");
        env["HF_ENDPOINT"] = s.base();
        const Run inspect = runCli({"inspect", "hf:acme/tiny-GGUF:Q8_0", "--json"}, env);
        QVERIFY2(inspect.code == 0, qPrintable(inspect.err));
        const auto j = nlohmann::json::parse(inspect.out.toStdString(), nullptr, false);
        QVERIFY2(j.is_object(), qPrintable(inspect.out));
        QVERIFY2(inspect.out.contains("\"llama\""), qPrintable(inspect.out));
        const Run ambiguous = runCli({"inspect", "hf:acme/tiny-GGUF:Q4_K"}, env);
        QCOMPARE(ambiguous.code, 2);
        const Run exported = runCli({"export", "--to", "json", "hf:acme/tiny-GGUF:Q8_0", "--vram",
                                     "24GiB", "--ram", "64GiB"},
                                    env);
        QVERIFY2(exported.code == 0, qPrintable(exported.err));
        QVERIFY(exported.out.contains("headroom.plan/1"));
    }

    void theHfPickerGroupsSplitSetsAndPrefersWholeNameComponents_data() {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QString>("quant");
        QTest::addColumn<QStringList>("picked"); // empty: refused
        const QStringList repo = {"README.md",
                                  "mmproj-model-f16.gguf",
                                  "model-IQ4_XS.gguf",
                                  "model-Q4_0.gguf",
                                  "Q8_0/model-Q8_0-00002-of-00002.gguf",
                                  "Q8_0/model-Q8_0-00001-of-00002.gguf",
                                  "model-Q4_K_M.gguf"};
        // The split set comes back whole, in part order, though listed out of order.
        QTest::newRow("split set") << repo << "q8_0"
                                   << QStringList{"Q8_0/model-Q8_0-00001-of-00002.gguf",
                                                  "Q8_0/model-Q8_0-00002-of-00002.gguf"};
        // "Q4_0" is a whole component of model-Q4_0 only (IQ4_XS does not contain it anyway).
        QTest::newRow("component") << repo << "Q4_0" << QStringList{"model-Q4_0.gguf"};
        // "XS" is no whole component, but a substring of one file: that one.
        QTest::newRow("substring") << repo << "xs" << QStringList{"model-IQ4_XS.gguf"};
        // "Q4" is a substring of three files and a component of none: refused.
        QTest::newRow("ambiguous") << repo << "Q4" << QStringList{};
        QTest::newRow("default Q4_K_M") << repo << "" << QStringList{"model-Q4_K_M.gguf"};
        QTest::newRow("only a projector") << QStringList{"mmproj-f16.gguf"} << "" << QStringList{};
        // No Q4_K_M and no Q4: the first GGUF by name, as llama.cpp's -hf falls back.
        QTest::newRow("first otherwise")
            << QStringList{"b-Q8_0.gguf", "a-F16.gguf"} << "" << QStringList{"a-F16.gguf"};
    }
    void theHfPickerGroupsSplitSetsAndPrefersWholeNameComponents() {
        QFETCH(QStringList, files);
        QFETCH(QString, quant);
        QFETCH(QStringList, picked);
        std::vector<std::string> list;
        for (const auto& f : files)
            list.push_back(f.toStdString());
        const auto r = remote::pickHfFiles(list, quant.toStdString(), "hf:o/r");
        if (picked.isEmpty()) {
            QVERIFY(!r);
            QCOMPARE(r.error().code, ErrorCode::InvalidArgument);
            return;
        }
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QStringList got;
        for (const auto& f : *r)
            got << QString::fromStdString(f);
        QCOMPARE(got, picked);
    }

    void hfReferencesParseOnlyAsOwnerSlashRepo_data() {
        QTest::addColumn<QString>("ref");
        QTest::addColumn<bool>("ok");
        QTest::newRow("repo") << "hf:Qwen/Qwen3-8B-GGUF" << true;
        QTest::newRow("repo and quant") << "hf:Qwen/Qwen3-8B-GGUF:Q8_0" << true;
        QTest::newRow("no owner") << "hf:Qwen3-8B-GGUF" << false;
        QTest::newRow("three parts") << "hf:a/b/c" << false;
        QTest::newRow("empty quant") << "hf:a/b:" << false;
        QTest::newRow("dot dot") << "hf:../b" << false;
        QTest::newRow("query chars") << "hf:a/b?x=1" << false;
    }
    void hfReferencesParseOnlyAsOwnerSlashRepo() {
        QFETCH(QString, ref);
        QFETCH(bool, ok);
        QCOMPARE(static_cast<bool>(remote::parseHfRef(ref.toStdString())), ok);
    }

    void aSplitModelOverAUrlPlansAsItsLocalParts() {
        Server s;
        QVERIFY(s.start(dir_.filePath("www"), "normal", dir_.filePath("stats-split.json")));
        const auto env = cacheEnv("cache-split");
        const Run remote = runCli(
            QStringList{"plan", s.base() + "/files/direct/split-00001-of-00003.gguf"} + kMachine,
            env);
        QVERIFY2(remote.code == 0, qPrintable(remote.err));
        const Run local = runCli(
            QStringList{"plan", dir_.filePath("www/direct/split-00001-of-00003.gguf")} + kMachine,
            env);
        QVERIFY2(local.code == 0, qPrintable(local.err));
        QCOMPARE(planBody(remote.out), planBody(local.out));
        // Every part's header was fetched: one HEAD per part.
        QCOMPARE(s.stats().value("head", 0), 3);
        QVERIFY2(remote.err.contains("part 3 of 3"), qPrintable(remote.err));
    }

    void hfQuantPicksTheFileNamedByIt_data() {
        QTest::addColumn<QString>("ref");
        QTest::addColumn<QString>("file");
        QTest::newRow("Q8_0 names one file") << "hf:acme/tiny-GGUF:Q8_0"
                                             << "tiny-Q8_0.gguf";
        QTest::newRow("lower case matches") << "hf:acme/tiny-GGUF:q4_k_s"
                                            << "tiny-Q4_K_S.gguf";
        // No quant: Q4_K_M first, as llama.cpp's -hf does.
        QTest::newRow("default is Q4_K_M") << "hf:acme/tiny-GGUF"
                                           << "tiny-Q4_K_M.gguf";
    }
    void hfQuantPicksTheFileNamedByIt() {
        QFETCH(QString, ref);
        QFETCH(QString, file);
        Server s;
        QVERIFY(s.start(dir_.filePath("www"), "normal", dir_.filePath("stats-hf.json")));
        auto env = cacheEnv("cache-hf");
        env["HF_ENDPOINT"] = s.base();
        const Run remote = runCli(QStringList{"plan", ref} + kMachine, env);
        QVERIFY2(remote.code == 0, qPrintable(remote.err));
        const Run local = runCli(
            QStringList{"plan", dir_.filePath("www/acme/tiny-GGUF/" + file)} + kMachine, env);
        QVERIFY2(local.code == 0, qPrintable(local.err));
        QCOMPARE(planBody(remote.out), planBody(local.out));
        QVERIFY2(remote.err.contains(" is " + file), qPrintable(remote.err));
    }

    void hfQuantThatMatchesSeveralFilesOrNoneExitsTwoListingTheFiles() {
        Server s;
        QVERIFY(s.start(dir_.filePath("www"), "normal", dir_.filePath("stats-hf2.json")));
        auto env = cacheEnv("cache-hf2");
        env["HF_ENDPOINT"] = s.base();
        // "Q4_K" is a substring of Q4_K_M and Q4_K_S and the whole name of neither.
        const Run several = runCli(QStringList{"plan", "hf:acme/tiny-GGUF:Q4_K"} + kMachine, env);
        QCOMPARE(several.code, 2);
        QVERIFY2(several.err.contains("tiny-Q4_K_M.gguf") &&
                     several.err.contains("tiny-Q4_K_S.gguf"),
                 qPrintable(several.err));
        QVERIFY(!several.err.contains("mmproj"));
        const Run none = runCli(QStringList{"plan", "hf:acme/tiny-GGUF:IQ2_XXS"} + kMachine, env);
        QCOMPARE(none.code, 2);
        QVERIFY2(none.err.contains("IQ2_XXS") && none.err.contains("tiny-Q8_0.gguf"),
                 qPrintable(none.err));
        const Run missing = runCli(QStringList{"plan", "hf:acme/absent"} + kMachine, env);
        QCOMPARE(missing.code, 3);
        QVERIFY2(missing.err.contains("hf:acme/absent"), qPrintable(missing.err));
        const Run malformed = runCli(QStringList{"plan", "hf:acme"} + kMachine, env);
        QCOMPARE(malformed.code, 2);
        QVERIFY2(malformed.err.contains("OWNER/REPO"), qPrintable(malformed.err));
    }

    void hfTokenIsSentAsABearerHeader() {
        Server s;
        QVERIFY(s.start(dir_.filePath("www"), "normal", dir_.filePath("stats-tok.json"), "sekrit"));
        auto env = cacheEnv("cache-tok");
        env["HF_ENDPOINT"] = s.base();
        const Run refused = runCli(QStringList{"plan", "hf:acme/tiny-GGUF:Q8_0"} + kMachine, env);
        QCOMPARE(refused.code, 3);
        QVERIFY2(refused.err.contains("401") && refused.err.contains("HF_TOKEN"),
                 qPrintable(refused.err));
        env["HF_TOKEN"] = "sekrit";
        const Run ok = runCli(QStringList{"plan", "hf:acme/tiny-GGUF:Q8_0"} + kMachine, env);
        QVERIFY2(ok.code == 0, qPrintable(ok.err));
    }

    void offlineFailsWithinTenSecondsNamingTheUrl_data() {
        QTest::addColumn<QString>("how");
        QTest::newRow("closed port") << "closed";
        QTest::newRow("server that never answers") << "stall";
    }
    void offlineFailsWithinTenSecondsNamingTheUrl() {
        QFETCH(QString, how);
        Server s;
        QString url;
        if (how == "closed") {
            // A loopback port that was free a moment ago and has no listener now.
            const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
            QVERIFY(fd >= 0);
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            socklen_t len = sizeof a;
            QVERIFY(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
            QVERIFY(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
            ::close(fd);
            url = QStringLiteral("http://127.0.0.1:%1/files/direct/model.gguf")
                      .arg(ntohs(a.sin_port));
        } else {
            QVERIFY(s.start(dir_.filePath("www"), "stall", dir_.filePath("stats-stall.json")));
            url = s.base() + "/files/direct/model.gguf";
        }
        const Run r = runCli(QStringList{"plan", url} + kMachine, cacheEnv("cache-offline"));
        QCOMPARE(r.code, 3);
        QVERIFY2(r.err.contains(url), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.ms < 10000, qPrintable(QString::number(r.ms) + " ms"));
    }

    void aServerThatIgnoresRangeIsReadOnlyAsFarAsTheHeader() {
        Server s;
        QVERIFY(s.start(dir_.filePath("www"), "norange", dir_.filePath("stats-norange.json")));
        const QString url = s.base() + "/files/direct/model.gguf";
        const auto env = cacheEnv("cache-norange");
        const Run remote = runCli(QStringList{"plan", url} + kMachine, env);
        QVERIFY2(remote.code == 0, qPrintable(remote.err));
        const Run local =
            runCli(QStringList{"plan", dir_.filePath("www/direct/model.gguf")} + kMachine, env);
        QCOMPARE(planBody(remote.out), planBody(local.out));
        QVERIFY2(remote.err.contains("ignores range requests"), qPrintable(remote.err));
        // Each 200 starts over at byte 0 and is cut at the range's end (512 KiB, then 1 MiB...):
        // a few MB plus what the sockets buffered, against a file of more than 200 MB.
        const auto sent = s.stats().value("bytes_sent", std::int64_t{0});
        QVERIFY2(sent < 20'000'000, qPrintable(QString::number(sent)));
    }

    void aHeaderPastTheCapIsRefusedWithExitThree() {
        // A header past the 64 MiB (67108864 B) the reader fetches from a remote file: one
        // array of 9 million strings, each an 8-byte zero length (72 MB), spelled by hand and
        // left as a sparse hole of zeros. Layout (gguf_wire.h): "GGUF" u32 3, u64 0 tensors,
        // u64 1 kv; key u64 len + "tokenizer.ggml.tokens", u32 type 9 (array), u32 8 (string),
        // u64 count.
        QByteArray head("GGUF");
        auto le = [&head](std::uint64_t v, int bytes) {
            for (int i = 0; i < bytes; ++i)
                head.append(static_cast<char>((v >> (8 * i)) & 0xff));
        };
        const QByteArray key("tokenizer.ggml.tokens");
        le(3, 4);
        le(0, 8);
        le(1, 8);
        le(static_cast<std::uint64_t>(key.size()), 8);
        head.append(key);
        le(9, 4);
        le(8, 4);
        le(9'000'000, 8);
        QFile huge(dir_.filePath("www/direct/huge.gguf"));
        QVERIFY(huge.open(QIODevice::WriteOnly));
        QCOMPARE(huge.write(head), head.size());
        QVERIFY(huge.resize(head.size() + 9'000'000LL * 8 + 4096));
        huge.close();
        Server s;
        QVERIFY(s.start(dir_.filePath("www"), "normal", dir_.filePath("stats-huge.json")));
        const QString url = s.base() + "/files/direct/huge.gguf";
        const Run r = runCli(QStringList{"plan", url} + kMachine, cacheEnv("cache-huge"));
        QCOMPARE(r.code, 3);
        QVERIFY2(r.err.contains(url) && r.err.contains("64.0 MiB"), qPrintable(r.err));
        // Ranges stop at the cap: 64 MiB = 67108864 bytes.
        QVERIFY(s.stats().value("bytes_sent", std::int64_t{0}) <= 67'108'864);
    }

    // catalog --update URL: a good document is installed; a URL that fails leaves the installed
    // update byte for byte as it was, with exit 3 naming the URL (or the scheme Headroom does not
    // read).
    void aCatalogUpdateUrlThatFailsKeepsTheUpdateInUse_data() {
        QTest::addColumn<QString>("file"); // served under /files/catalog/ ("" = a whole URL)
        QTest::addColumn<QString>("url");  // when file is ""
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("says");
        QTest::newRow("HTTP 404") << "missing.json"
                                  << "" << 3 << "404";
        // 16 MiB (16 777 216 B) is readDocument's cap for a catalog (catalog_update.cpp).
        QTest::newRow("a body past 16 MiB") << "big.json"
                                            << "" << 3 << "larger than 16 MiB";
        QTest::newRow("truncated JSON") << "truncated.json"
                                        << "" << 3 << "not valid JSON";
        QTest::newRow("a newer schema") << "newer.json"
                                        << "" << 3 << "newer than this Headroom";
        QTest::newRow("ftp://") << ""
                                << "ftp://127.0.0.1:9/catalog.json" << 3 << "ftp:// cannot be read";
        QTest::newRow("a server that never answers") << "stall"
                                                     << "" << 3 << "/files/catalog/";
    }
    void aCatalogUpdateUrlThatFailsKeepsTheUpdateInUse() {
        QFETCH(QString, file);
        QFETCH(QString, url);
        QFETCH(int, code);
        QFETCH(QString, says);
        const QString www = dir_.filePath("www/catalog");
        QVERIFY(QDir().mkpath(www));
        auto put = [&www](const char* name, const QByteArray& body) {
            QFile f(www + "/" + name);
            return f.open(QIODevice::WriteOnly) && f.write(body) == body.size();
        };
        QVERIFY(put("good.json", QByteArray::fromStdString(test::catalogDocument(
                                     {test::tinyCatalogEntry("tiny-from-url")}))));
        QVERIFY(put("big.json", QByteArray(16 * 1024 * 1024 + 1, ' ')));
        QVERIFY(put("truncated.json", "{\"schema\": \"headroom.catalog/1\", \"models\": ["));
        QVERIFY(put("newer.json", QByteArray::fromStdString(test::catalogDocument(
                                      {test::tinyCatalogEntry()}, "headroom.catalog/2"))));
        QTemporaryDir data;
        QVERIFY(data.isValid());
        auto env = cacheEnv("cache-catalog");
        env.insert("XDG_DATA_HOME", data.path());
        Server good;
        QVERIFY(good.start(dir_.filePath("www"), "normal", dir_.filePath("stats-catalog.json")));
        const Run installed =
            runCli({"catalog", "--update", good.base() + "/files/catalog/good.json"}, env);
        QVERIFY2(installed.code == 0, qPrintable(installed.err));
        QFile kept(data.filePath("headroom/catalog-update.json"));
        QVERIFY(kept.open(QIODevice::ReadOnly));
        const QByteArray before = kept.readAll();
        kept.close();
        QVERIFY(before.contains("tiny-from-url"));

        Server stall;
        if (file == "stall") {
            QVERIFY(stall.start(dir_.filePath("www"), "stall", dir_.filePath("stats-cstall.json")));
            url = stall.base() + "/files/catalog/good.json";
        } else if (!file.isEmpty()) {
            url = good.base() + "/files/catalog/" + file;
        }
        const Run r = runCli({"catalog", "--update", url}, env);
        QCOMPARE(r.code, code);
        QVERIFY2(r.err.contains(url) && r.err.contains(says), qPrintable(r.err));
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), before);
        // The update in use still plans: its model is in the catalog.
        const Run listed = runCli({"catalog", "--json", "--vram", "24GiB", "--ram", "64GiB"}, env);
        QVERIFY2(listed.code == 0 && listed.out.contains("tiny-from-url"), qPrintable(listed.err));
    }

private:
    QMap<QString, QString> cacheEnv(const QString& name) const {
        return {{"XDG_CACHE_HOME", dir_.filePath(name)}, {"HF_ENDPOINT", "http://127.0.0.1:9"}};
    }

    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestCliRemote)
#include "test_cli_remote.moc"
