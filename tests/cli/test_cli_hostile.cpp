// headroom-cli against hostile input, one class at a time: arguments, hardware profiles,
// resource files, output files, model paths, probe environments and concurrent writers. Every
// case asserts the documented exit code (2 bad arguments, 3 unreadable input or unwritable file,
// 4 probe failed) and that the message names the input; every run is bounded by 5 s and, outside
// sanitizer builds, by 2 GiB of address space (RLIMIT_AS), and no run may end in a signal.
#include "common/catalog_fixture.h"
#include "gguf/gguf_reader.h"
#include "gguf/gguf_writer.h"
#include "probe/fake_tree.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace headroom;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

#if defined(__SANITIZE_ADDRESS__)
// ASan reserves terabytes of shadow address space and runs code several times slower: no
// address-space limit, and three times the time.
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
// The contract's bound on any single command (issue 13): 5 s, held by the release build. The
// ASan + UBSan debug build only bounds a hang: ranking the 129-model catalog there takes ~15 s.
constexpr int kLimitMs = kSanitized ? 60000 : 5000;
// 2 GiB of address space: the bound the issue sets for any input.
constexpr rlim_t kAddressSpace = rlim_t{2} * 1024 * 1024 * 1024;

struct Run {
    int code = -1; // -1: killed at the time limit; -2: ended by a signal
    QByteArray out, err;
    qint64 ms = 0;
};

QProcessEnvironment baseEnv() {
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    return env;
}

void configure(QProcess& p, int umaskValue) {
    p.setChildProcessModifier([umaskValue] {
        if (umaskValue >= 0) ::umask(static_cast<mode_t>(umaskValue));
        if (!kSanitized) {
            rlimit rl{kAddressSpace, kAddressSpace};
            ::setrlimit(RLIMIT_AS, &rl);
        }
    });
}

Run finish(QProcess& p, const QElapsedTimer& t) {
    Run r;
    if (!p.waitForFinished(kLimitMs)) {
        p.kill();
        p.waitForFinished();
        r.ms = t.elapsed();
        r.err = p.readAllStandardError();
        return r;
    }
    r.ms = t.elapsed();
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

Run runCli(const QStringList& args, const QProcessEnvironment& env = baseEnv(),
           int umaskValue = -1) {
    QProcess p;
    p.setProcessEnvironment(env);
    configure(p, umaskValue);
    QElapsedTimer t;
    t.start();
    p.start(QStringLiteral(HEADROOM_BIN_DIR "/headroom-cli"), args);
    return finish(p, t);
}

// For arguments that are not valid UTF-8 (QProcess passes QStrings as UTF-8): the shell builds
// them with printf. `script` sees the binary as $0.
Run runShell(const QString& script, const QProcessEnvironment& env = baseEnv()) {
    QProcess p;
    p.setProcessEnvironment(env);
    configure(p, -1);
    QElapsedTimer t;
    t.start();
    p.start("/bin/sh", {"-c", script, QStringLiteral(HEADROOM_BIN_DIR "/headroom-cli")});
    return finish(p, t);
}

std::string describe(const Run& r) {
    return "exit " + std::to_string(r.code) + " after " + std::to_string(r.ms) +
           " ms; stderr: " + r.err.toStdString();
}

void writeFile(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// A valid one-model catalog update (the fields core/catalog.cpp requires).
const std::string kCatalogUpdate =
    headroom::test::catalogDocument({headroom::test::tinyCatalogEntry()});

// A machine every plan can use: 24 GiB GPU, 64 GiB RAM.
const char* kProfile = R"({"schema": "headroom.hardware/1", "label": "test box",
  "devices": [{"name": "GPU0", "backend": "cuda", "total_bytes": 25769803776}],
  "ram": {"total_bytes": 68719476736}})";

// A tiny llama GGUF the planner accepts: 2 blocks, 256 embd, 4 heads (the shape tests' model).
GgufWriter tinyLlama() {
    GgufWriter w;
    w.set("general.architecture", GgufValue::string("llama"));
    w.set("llama.context_length", GgufValue::u32(8192));
    w.set("llama.embedding_length", GgufValue::u32(256));
    w.set("llama.block_count", GgufValue::u32(2));
    w.set("llama.attention.head_count", GgufValue::u32(4));
    w.set("llama.feed_forward_length", GgufValue::u32(1024));
    w.addTensor("token_embd.weight", {256, 1000}, GgmlType::F16);
    for (int b = 0; b < 2; ++b)
        w.addTensor("blk." + std::to_string(b) + ".attn_q.weight", {256, 256}, GgmlType::F16);
    return w;
}

} // namespace

class CliHostileTest : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    std::string dir_, fifo_, subdir_, profile_, model_;

    std::string path(const std::string& name) const { return dir_ + "/" + name; }

    // Replaces {dir}, {fifo}, {subdir}, {profile}, {model} in a case's arguments.
    QStringList expand(const QStringList& args) const {
        QStringList out;
        for (QString a : args) {
            a.replace("{dir}", QString::fromStdString(dir_));
            a.replace("{fifo}", QString::fromStdString(fifo_));
            a.replace("{subdir}", QString::fromStdString(subdir_));
            a.replace("{profile}", QString::fromStdString(profile_));
            a.replace("{model}", QString::fromStdString(model_));
            out << a;
        }
        return out;
    }

    static mode_t modeOf(const std::string& p) {
        struct stat st {};
        return ::lstat(p.c_str(), &st) == 0 ? st.st_mode : 0;
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        dir_ = tmp_.path().toStdString();
        fifo_ = path("fifo");
        QCOMPARE(::mkfifo(fifo_.c_str(), 0600), 0);
        subdir_ = path("subdir");
        fs::create_directories(subdir_);
        profile_ = path("box.json");
        writeFile(profile_, kProfile);
        model_ = path("tiny.gguf");
        QVERIFY(tinyLlama().write(model_).has_value());
        // Hostile profiles.
        writeFile(path("syntax.json"), "{\"ram\": {\"total_bytes\": 1024,}");
        writeFile(path("empty.json"), "");
        writeFile(path("empty.gguf"), "");
        writeFile(path("text.gguf"), "not a GGUF file at all\n");
        // A GGUF that ends inside its own header: the magic and version, then nothing.
        writeFile(path("truncated.gguf"), std::string("GGUF\x03\x00\x00\x00", 8));
        {
            // A projector as llama.cpp's converter writes one: general.architecture = clip.
            GgufWriter w;
            w.set("general.architecture", GgufValue::string("clip"));
            w.set("clip.has_vision_encoder", GgufValue::boolean(true));
            w.addTensor("v.patch_embd.weight", {16, 16, 3, 64}, GgmlType::F16);
            QVERIFY(w.write(path("mmproj.gguf")).has_value());
        }
        writeFile(path("overflow.json"), "{\"ram\": {\"total_bytes\": 1e400}}");
        writeFile(path("emptyram.json"), "{\"ram\": {}}");
        writeFile(path("typeerr.json"), "{\"ram\": {\"total_bytes\": \"lots\"}}");
        writeFile(path("negative.json"), "{\"ram\": {\"total_bytes\": -1}}");
        writeFile(path("deep.json"), std::string(100000, '[') + std::string(100000, ']'));
        std::string many = "{\"ram\": {\"total_bytes\": 1024}, \"devices\": [";
        // 17 devices: one more than llama.cpp's llama_max_devices() = 16.
        for (int i = 0; i < 17; ++i)
            many += std::string(i ? "," : "") + "{\"total_bytes\": 1125899906842624}";
        writeFile(path("many.json"), many + "]}");
        // An RPC host whose endpoint has no port (issue 15).
        writeFile(path("rpcport.json"), "{\"ram\": {\"total_bytes\": 1024}, \"rpc_hosts\": "
                                        "[{\"endpoint\": \"10.0.0.7\", \"devices\": "
                                        "[{\"total_bytes\": 1024}]}]}");
        // 17 MiB: past the 16 MiB cap on any text file (a sparse file; nothing is written).
        {
            const int fd = ::open(path("huge.json").c_str(), O_CREAT | O_WRONLY, 0644);
            QVERIFY(fd >= 0);
            QCOMPARE(::ftruncate(fd, 17 * 1024 * 1024), 0);
            ::close(fd);
        }
        fs::create_symlink("/dev/zero", path("zero.json"));
        fs::create_symlink(fifo_, path("fifo-link"));
        fs::create_symlink(subdir_, path("subdir-link"));
        // Split models: parts 1 and 3 of 3 (2 missing), and a pair whose part 2 claims 4 parts.
        for (int part : {1, 3}) {
            GgufWriter w = tinyLlama();
            w.set("split.no", GgufValue::u16(static_cast<std::uint16_t>(part - 1)));
            w.set("split.count", GgufValue::u16(3));
            QVERIFY(w.write(ggufSplitPath(path("split"), part, 3)).has_value());
        }
        for (int part : {1, 2}) {
            GgufWriter w = tinyLlama();
            w.set("split.no", GgufValue::u16(static_cast<std::uint16_t>(part - 1)));
            w.set("split.count", GgufValue::u16(part == 2 ? 4 : 2));
            QVERIFY(w.write(ggufSplitPath(path("odd"), part, 2)).has_value());
        }
    }

    // ---- arguments: exit 2, the message names the option --------------------------------------
    void badArgumentsAreRefusedNamingTheOption_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("named");
        const QStringList m{"plan", "--model", "qwen3-8b"};
        const QStringList hw{"--vram", "24GiB", "--ram", "64GiB"};
        QTest::newRow("empty --preset") << m + QStringList{"--preset", ""} << "--preset";
        QTest::newRow("empty --hardware") << m + QStringList{"--hardware", ""} << "--hardware";
        QTest::newRow("empty --vram") << m + QStringList{"--vram", "", "--ram", "8G"} << "--vram";
        QTest::newRow("trailing comma in --vram")
            << m + QStringList{"--vram", "24GiB,", "--ram", "64GiB"} << "--vram";
        QTest::newRow("leading comma in --vram")
            << m + QStringList{"--vram", ",24GiB", "--ram", "64GiB"} << "--vram";
        QTest::newRow("17 GPUs in --vram")
            << m + QStringList{"--vram", "1G,1G,1G,1G,1G,1G,1G,1G,1G,1G,1G,1G,1G,1G,1G,1G,1G",
                               "--ram", "64GiB"}
            << "--vram";
        QTest::newRow("--vram too large")
            << m + QStringList{"--vram", "99999999999999999999", "--ram", "64GiB"} << "larger than";
        QTest::newRow("empty -c") << m + hw + QStringList{"-c", ""} << "--ctx-size";
        QTest::newRow("-c too large")
            << m + hw + QStringList{"-c", "99999999999999999999"} << "larger than";
        QTest::newRow("empty -ctk") << m + hw + QStringList{"-ctk", ""} << "--cache-type-k";
        QTest::newRow("unknown -ctv") << m + hw + QStringList{"-ctv", "q9"} << "q9";
        QTest::newRow("empty --reserve") << m + hw + QStringList{"--reserve", ""} << "--reserve";
        QTest::newRow("empty --mmproj") << m + hw + QStringList{"--mmproj", ""} << "--mmproj";
        QTest::newRow("empty model path") << QStringList{"plan", ""} + hw << "MODEL";
        QTest::newRow("export --port abc")
            << QStringList{"export",   "--to",   "llama-server", "--model",
                           "qwen3-8b", "--port", "abc"} +
                   hw
            << "--port";
        QTest::newRow("export --port 99999")
            << QStringList{"export",   "--to",   "llama-server", "--model",
                           "qwen3-8b", "--port", "99999"} +
                   hw
            << "--port";
        QTest::newRow("export --port 0")
            << QStringList{"export", "--to", "llama-server", "--model", "qwen3-8b", "--port", "0"} +
                   hw
            << "--port";
        QTest::newRow("misspelt subcommand") << QStringList{"plna", "--model", "x"} << "'plan'";
        QTest::newRow("--rpc without a port")
            << m + hw + QStringList{"--rpc", "10.0.0.7"} << "--rpc";
        QTest::newRow("--rpc with an empty entry")
            << m + hw + QStringList{"--rpc", "10.0.0.7:50052,,10.0.0.8:50052"} << "--rpc";
        QTest::newRow("--rpc naming one server twice")
            << m + hw + QStringList{"--rpc", "10.0.0.7:50052,10.0.0.7:50052"} << "twice";
        QTest::newRow("--free not a size") << m + hw + QStringList{"--free", "lots"} << "--free";
        QTest::newRow("--free for two GPUs on one")
            << m + hw + QStringList{"--free", "8GiB,8GiB"} << "--free";
        QTest::newRow("--free above the GPU's total")
            << m + hw + QStringList{"--free", "25GiB"} << "--free";
        QTest::newRow("unknown --llama-version")
            << m + hw + QStringList{"--llama-version", "v9"} << "v9";
        QTest::newRow("--llama-build not a number")
            << m + hw + QStringList{"--llama-build", "latest"} << "--llama-build";
        QTest::newRow("--llama-build 0") << m + hw + QStringList{"--llama-build", "0"} << "'0'";
        QTest::newRow("--llama-build with its hash")
            << m + hw + QStringList{"--llama-build", "6699 (c08002a1)"} << "6699 (c08002a1)";
        QTest::newRow("--llama-build past the range")
            << m + hw + QStringList{"--llama-build", "99999999999"} << "99999999999";
        QTest::newRow("unknown --load-mode") << m + hw + QStringList{"-lm", "fast"} << "fast";
        QTest::newRow("--mlock with --load-mode")
            << m + hw + QStringList{"--mlock", "-lm", "mmap"} << "--load-mode";
        QTest::newRow("unknown --program")
            << m + hw + QStringList{"--program", "llama-cli"} << "--program";
        QTest::newRow("empty --program") << m + hw + QStringList{"--program", ""} << "--program";
        QTest::newRow("export of a library plan to llama-server")
            << QStringList{"export",   "--to",      "llama-server", "--model",
                           "qwen3-8b", "--program", "library"} +
                   hw
            << "--program library";
        QTest::newRow("verify of a library plan")
            << QStringList{"verify", "--model", "qwen3-8b", "--program", "library"} + hw
            << "--program library";
        QTest::newRow("-fitt not MiB") << m + hw + QStringList{"-fitt", "1GiB"} << "--fit-target";
        QTest::newRow("-fitc 0") << m + hw + QStringList{"-fitc", "0"} << "--fit-ctx";
        QTest::newRow("unknown --rope-scaling")
            << m + hw + QStringList{"--rope-scaling", "ntk"} << "--rope-scaling";
        QTest::newRow("--rope-scale not a number")
            << m + hw + QStringList{"--rope-scale", "x4"} << "--rope-scale";
        QTest::newRow("export two models to llama-server")
            << QStringList{"export",   "--to",    "llama-server", "--model",
                           "qwen3-8b", "--model", "qwen3-4b"} +
                   hw
            << "--to llama-server";
        QTest::newRow("catalog empty --fits-at")
            << QStringList{"catalog", "--fits-at", ""} + hw << "--fits-at";
        // std::regex's compiler recurses once per group: 20000 nested groups (40000 bytes)
        // overflowed the stack (a segfault) before patterns were bounded in length and nesting
        // (launch/tensor_pattern.h); 2000 (4000 bytes, under the length bound) are too deep.
        const QString deep20000 = QString("(").repeated(20000) + QString(")").repeated(20000);
        const QString deep2000 = QString("(").repeated(2000) + QString(")").repeated(2000);
        QTest::newRow("-ot nested 20000 deep")
            << m + hw + QStringList{"-ot", deep20000 + "=CPU"} << "too long";
        QTest::newRow("-ot nested 2000 deep")
            << m + hw + QStringList{"-ot", deep2000 + "=CPU"} << "nests groups too deep";
        // CLI11 2.1.2 took an empty argument that was no option's value for the name of an
        // option group (they are nameless) and never returned (found by fuzz_cli_args).
        QTest::newRow("empty argument after MODEL")
            << QStringList{"plan", "{model}", "", "-c", "1"} + hw << "argument 3 is empty";
        QTest::newRow("empty argument after a flag")
            << QStringList{"plan", "{model}", "--json", "", "-c", "1"} + hw
            << "argument 4 is empty";
        // "-=x" is no option to CLI11 (it fills MODEL), so the empty argument after it was
        // stray to CLI11 but not to the walk before it: blanks never reach CLI11 now.
        QTest::newRow("empty argument after a dash-equals MODEL")
            << QStringList{"plan", "-=x", "--model", "qwen3-8b", "", "-c", "1"} + hw
            << "not expected";
        QTest::newRow("empty argument to a command without arguments")
            << QStringList{"presets", "", "--json"} << "argument 2 is empty";
        QTest::newRow("-ot pattern past 4096 bytes")
            << m + hw + QStringList{"-ot", QString("a").repeated(5000) + "=CPU"} << "too long";
    }

    // A valid pattern that backtracks: std::regex_search's default matcher took minutes on one
    // tensor name ('(.|.)*z' against "blk.0.ffn_gate_exps.weight" is 2^26 paths); the planner
    // matches in polynomial mode, so the plan is made within the bound.
    void aBacktrackingTensorPatternIsPricedWithinTheBound_data() {
        QTest::addColumn<QString>("pattern");
        QTest::newRow("(.|.)*z") << "(.|.)*z";
        QTest::newRow("(.*.*.*.*)*z") << "(.*.*.*.*)*z";
        QTest::newRow("(a|a)*(a|a)*q") << "(a|a)*(a|a)*q";
    }
    void aBacktrackingTensorPatternIsPricedWithinTheBound() {
        QFETCH(QString, pattern);
        const Run r = runCli({"plan", "--model", "qwen3-30b-a3b", "--vram", "24GiB", "--ram",
                              "64GiB", "-ot", pattern + "=CPU"});
        QVERIFY2(r.code == 0, describe(r).c_str());
    }
    void badArgumentsAreRefusedNamingTheOption() {
        QFETCH(QStringList, args);
        QFETCH(QString, named);
        const Run r = runCli(expand(args));
        QVERIFY2(r.code == 2, describe(r).c_str());
        QVERIFY2(r.err.contains(named.toUtf8()), describe(r).c_str());
    }

    // ---- --rpc: a server that does not answer is a probe failure, exit 4 -----------------------
    void anUnreachableRpcServerIsAProbeFailureNamingIt() {
        // Port 1 (tcpmux) on the loopback address: nothing listens there, so connect() is refused.
        const Run r = runCli({"plan", "--model", "qwen3-8b", "--vram", "24GiB", "--ram", "64GiB",
                              "--rpc", "127.0.0.1:1"});
        QVERIFY2(r.code == 4, describe(r).c_str());
        QVERIFY2(r.err.contains("127.0.0.1:1 is not reachable"), describe(r).c_str());
    }

    // ---- hardware profiles: exit 3 in plan, export and catalog, naming the file ---------------
    void hostileProfilesAreUnreadableInputInEveryCommand_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("reason");
        for (const char* cmd : {"plan", "export", "catalog"}) {
            const auto row = [&](const char* name, const char* file, const char* reason) {
                QTest::newRow((std::string(cmd) + ": " + name).c_str()) << cmd << file << reason;
            };
            row("FIFO", "{fifo}", "FIFO");
            row("directory", "{subdir}", "directory");
            row("symlink to /dev/zero", "{dir}/zero.json", "character device");
            row("17 MiB file", "{dir}/huge.json", "too large");
            row("syntax error", "{dir}/syntax.json", "line 1");
            row("number beyond double", "{dir}/overflow.json", "1e400");
            row("\"ram\": {}", "{dir}/emptyram.json", "total_bytes");
            row("string for bytes", "{dir}/typeerr.json", "total_bytes");
            row("negative bytes", "{dir}/negative.json", "total_bytes");
            row("nested 100000 deep", "{dir}/deep.json", "nested");
            row("17 devices", "{dir}/many.json", "devices");
            row("RPC host without a port", "{dir}/rpcport.json", "rpc_hosts[0].endpoint");
            row("missing file", "{dir}/nope.json", "No such file");
            row("empty file", "{dir}/empty.json", "not valid JSON");
        }
    }
    void hostileProfilesAreUnreadableInputInEveryCommand() {
        QFETCH(QString, command);
        QFETCH(QString, file);
        QFETCH(QString, reason);
        QStringList args{command};
        if (command == "export")
            args << "--to"
                 << "json";
        if (command != "catalog")
            args << "--model"
                 << "qwen3-8b";
        args << "--hardware" << file;
        const Run r = runCli(expand(args));
        QVERIFY2(r.code == 3, describe(r).c_str());
        const QString shown = expand({file}).front();
        QVERIFY2(r.err.contains(shown.toUtf8()), describe(r).c_str());
        QVERIFY2(r.err.contains(reason.toUtf8()), describe(r).c_str());
    }

    // ---- catalog --update: exit 3 naming the file, and the update in use is kept ---------------
    void aHostileCatalogUpdateIsRefusedAndTheOldOneKept_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("reason");
        QTest::newRow("FIFO") << "{fifo}"
                              << "FIFO";
        QTest::newRow("directory") << "{subdir}"
                                   << "directory";
        QTest::newRow("symlink to /dev/zero") << "{dir}/zero.json"
                                              << "character device";
        QTest::newRow("17 MiB file") << "{dir}/huge.json"
                                     << "too large";
        QTest::newRow("syntax error") << "{dir}/syntax.json"
                                      << "not valid JSON";
        QTest::newRow("a profile, not a catalog") << "{dir}/emptyram.json"
                                                  << "schema";
        QTest::newRow("nested 100000 deep") << "{dir}/deep.json"
                                            << "nested";
        QTest::newRow("empty file") << "{dir}/empty.json"
                                    << "not valid JSON";
        QTest::newRow("missing file") << "{dir}/nope.json"
                                      << "No such file";
    }
    void aHostileCatalogUpdateIsRefusedAndTheOldOneKept() {
        QFETCH(QString, file);
        QFETCH(QString, reason);
        QTemporaryDir data;
        QVERIFY(data.isValid());
        QProcessEnvironment env = baseEnv();
        env.insert("XDG_DATA_HOME", data.path());
        // A good update first, one small model.
        const std::string good = data.filePath("good.json").toStdString();
        writeFile(good, kCatalogUpdate);
        QCOMPARE(runCli({"catalog", "--update", QString::fromStdString(good)}, env).code, 0);
        const std::string installed = data.filePath("headroom/catalog-update.json").toStdString();
        const std::string before = readFile(installed);

        const Run r = runCli(expand({"catalog", "--update", file}), env);
        QVERIFY2(r.code == 3, describe(r).c_str());
        QVERIFY2(r.err.contains(expand({file}).front().toUtf8()), describe(r).c_str());
        QVERIFY2(r.err.contains(reason.toUtf8()), describe(r).c_str());
        QCOMPARE(readFile(installed), before);
    }
    void aFifoWhereTheUpdateLivesIsAnErrorNeverAHang() {
        QTemporaryDir data;
        QVERIFY(data.isValid());
        QProcessEnvironment env = baseEnv();
        env.insert("XDG_DATA_HOME", data.path());
        QVERIFY(QDir().mkpath(data.filePath("headroom")));
        const std::string at = data.filePath("headroom/catalog-update.json").toStdString();
        QCOMPARE(::mkfifo(at.c_str(), 0600), 0);
        const Run listed = runCli({"catalog", "--vram", "24GiB", "--ram", "64GiB"}, env);
        QVERIFY2(listed.code == 3, describe(listed).c_str());
        QVERIFY2(listed.err.contains("catalog --reset"), describe(listed).c_str());
        const Run reset = runCli({"catalog", "--reset"}, env);
        QVERIFY2(reset.code == 3, describe(reset).c_str());
        QVERIFY(S_ISFIFO(modeOf(at)));
    }

    // ---- resource files ($HEADROOM_RESOURCES): exit 3 in every command that reads them --------
    void hostileResourceFilesAreUnreadableInput_data() {
        QTest::addColumn<QString>("file");    // catalog.json or presets.json
        QTest::addColumn<QString>("content"); // "" with kind "fifo" / "dir"
        QTest::addColumn<QString>("kind");    // text, fifo, dir
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("reason");
        const QStringList hw{"--vram", "24GiB", "--ram", "64GiB"};
        const QString badEntry = R"({"schema": "headroom.catalog/1", "models": [{"id": "x"}]})";
        QTest::newRow("bad catalog entry: plan")
            << "catalog.json" << badEntry << "text" << QStringList{"plan", "--model", "x"} + hw
            << "catalog entry";
        QTest::newRow("bad catalog entry: catalog")
            << "catalog.json" << badEntry << "text" << QStringList{"catalog"} + hw
            << "catalog entry";
        QTest::newRow("catalog number beyond double")
            << "catalog.json"
            << R"({"schema": "headroom.catalog/1", "models": [1e400]})"
            << "text" << QStringList{"catalog"} + hw << "1e400";
        QTest::newRow("catalog is a FIFO") << "catalog.json"
                                           << ""
                                           << "fifo" << QStringList{"catalog"} + hw << "FIFO";
        QTest::newRow("catalog is empty")
            << "catalog.json"
            << ""
            << "text" << QStringList{"catalog"} + hw << "not valid JSON";
        QTest::newRow("catalog is a directory")
            << "catalog.json"
            << ""
            << "dir" << QStringList{"plan", "--model", "x"} + hw << "directory";
        QTest::newRow("bad preset: plan --preset")
            << "presets.json"
            << R"({"presets": [{"id": "a", "source": "s", "ram": {}}]})"
            << "text" << QStringList{"plan", "--model", "qwen3-8b", "--preset", "a"}
            << "total_bytes";
        QTest::newRow("presets number beyond double: presets")
            << "presets.json"
            << R"({"presets": [{"id": "a", "ram": {"total_bytes": -1e999}}]})"
            << "text" << QStringList{"presets"} << "1e999";
    }
    void hostileResourceFilesAreUnreadableInput() {
        QFETCH(QString, file);
        QFETCH(QString, content);
        QFETCH(QString, kind);
        QFETCH(QStringList, args);
        QFETCH(QString, reason);
        QTemporaryDir res;
        QVERIFY(res.isValid());
        const std::string p = res.path().toStdString() + "/" + file.toStdString();
        if (kind == "fifo")
            QCOMPARE(::mkfifo(p.c_str(), 0600), 0);
        else if (kind == "dir")
            fs::create_directories(p);
        else
            writeFile(p, content.toStdString());
        auto env = baseEnv();
        env.insert("HEADROOM_RESOURCES", res.path());
        const Run r = runCli(args, env);
        QVERIFY2(r.code == 3, describe(r).c_str());
        QVERIFY2(r.err.contains(file.toUtf8()), describe(r).c_str());
        QVERIFY2(r.err.contains(reason.toUtf8()), describe(r).c_str());
    }

    // ---- output files: never a device, FIFO or directory; modes kept; umask honoured ---------
    // The output path is an argument: one that names a device, FIFO or directory (or a link to
    // one) is a bad argument (exit 2) in every command that writes a file, as the contract says
    // (issue 27: it was 3) — and it is never replaced, even with --force.
    void devicesFifosAndDirectoriesAreNeverReplaced_data() {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("kind");
        QTest::newRow("/dev/null") << "/dev/null"
                                   << "character device";
        QTest::newRow("FIFO") << "{fifo}"
                              << "FIFO";
        QTest::newRow("directory") << "{subdir}"
                                   << "directory";
        QTest::newRow("link to a FIFO") << "{dir}/fifo-link"
                                        << "symbolic link to a FIFO";
        QTest::newRow("link to a directory") << "{dir}/subdir-link"
                                             << "symbolic link to a directory";
    }
    void devicesFifosAndDirectoriesAreNeverReplaced() {
        QFETCH(QString, target);
        QFETCH(QString, kind);
        const std::string t = expand({target}).front().toStdString();
        const mode_t before = modeOf(t);
        for (const char* cmd : {"export", "probe", "verify"}) {
            QStringList args;
            if (QString(cmd) == "export")
                args = {"export",     "--to",      "json", "--model", "qwen3-8b",
                        "--hardware", "{profile}", "-o",   target,    "--force"};
            else if (QString(cmd) == "probe")
                args = {"probe", "--no-vulkan", "--no-nvml", "--save", target, "--force"};
            else // the target is refused before the server would run (/bin/true stands in)
                args = {"verify",         "{model}",   "--hardware",         "{profile}",
                        "--llama-server", "/bin/true", "--save-calibration", target};
            const Run r = runCli(expand(args));
            QVERIFY2(r.code == 2, (cmd + (": " + describe(r))).c_str());
            QVERIFY2(r.err.contains(QString::fromStdString(t).toUtf8()), describe(r).c_str());
            QVERIFY2(r.err.contains(kind.toUtf8()), describe(r).c_str());
            // Same kind of object as before (st_mode's type bits): nothing was replaced.
            QCOMPARE(modeOf(t) & S_IFMT, before & S_IFMT);
        }
    }

    void anExistingFileIsKeptWithoutForceAndItsModeKeptWithForce() {
        const std::string out = path("secret.json");
        writeFile(out, "old");
        QCOMPARE(::chmod(out.c_str(), 0600), 0);
        const QStringList base{"export",
                               "--to",
                               "json",
                               "--model",
                               "qwen3-8b",
                               "--hardware",
                               QString::fromStdString(profile_),
                               "-o",
                               QString::fromStdString(out)};
        const Run kept = runCli(base);
        QVERIFY2(kept.code == 2, describe(kept).c_str());
        QVERIFY(kept.err.contains("already exists"));
        std::ifstream in(out);
        std::string text((std::istreambuf_iterator<char>(in)), {});
        QCOMPARE(text, std::string("old"));
        const Run forced = runCli(base + QStringList{"--force"});
        QVERIFY2(forced.code == 0, describe(forced).c_str());
        // 0600 before, 0600 after: --force must not widen who can read the file.
        QCOMPARE(modeOf(out) & 07777, mode_t{0600});
        QCOMPARE(modeOf(out) & S_IFMT, mode_t{S_IFREG});
    }

    void aNewFileHonoursTheUmask_data() {
        QTest::addColumn<QString>("to");
        QTest::addColumn<int>("expected");
        // 0666 & ~077 = 0600 for data; 0777 & ~077 = 0700 for a launch script.
        QTest::newRow("json") << "json" << 0600;
        QTest::newRow("llama-server script") << "llama-server" << 0700;
    }
    void aNewFileHonoursTheUmask() {
        QFETCH(QString, to);
        QFETCH(int, expected);
        const std::string out = path("umask-" + to.toStdString());
        const Run r = runCli({"export", "--to", to, "--model", "qwen3-8b", "--hardware",
                              QString::fromStdString(profile_), "-o", QString::fromStdString(out)},
                             baseEnv(), 077);
        QVERIFY2(r.code == 0, describe(r).c_str());
        QCOMPARE(static_cast<int>(modeOf(out) & 07777), expected);
    }

    void aDanglingSymlinkIsReplacedOnlyWithForceAndNothingIsCreatedWhereItPoints() {
        const std::string link = path("dangling.json");
        const std::string pointee = path("pointee-never-created.json");
        fs::create_symlink(pointee, link);
        const QStringList args{"probe", "--no-vulkan", "--no-nvml", "--save",
                               QString::fromStdString(link)};
        const Run refused = runCli(args);
        QVERIFY2(refused.code == 2, describe(refused).c_str());
        QVERIFY(refused.err.contains("dangling.json"));
        QVERIFY(S_ISLNK(modeOf(link)));
        const Run forced = runCli(args + QStringList{"--force"});
        QVERIFY2(forced.code == 0, describe(forced).c_str());
        QVERIFY(S_ISREG(modeOf(link)));
        QVERIFY(!fs::exists(pointee));
    }

    // A symbolic link is never written through (issue 27: `export -o LINK --force` wrote the
    // file LINK pointed to): without --force it is an existing file (exit 2); with --force the
    // link itself is replaced by the new file and the file it pointed to keeps every byte.
    void aSymlinkIsReplacedItselfAndItsTargetIsNeverWritten_data() {
        QTest::addColumn<QString>("command");
        QTest::newRow("export -o") << "export";
        QTest::newRow("probe --save") << "probe";
    }
    void aSymlinkIsReplacedItselfAndItsTargetIsNeverWritten() {
        QFETCH(QString, command);
        const std::string real = path("real-" + command.toStdString() + ".json");
        const std::string link = path("link-" + command.toStdString() + ".json");
        writeFile(real, "precious");
        fs::create_symlink(real, link);
        const QString l = QString::fromStdString(link);
        const QStringList args =
            command == "export" ? QStringList{"export",
                                              "--to",
                                              "json",
                                              "--model",
                                              "qwen3-8b",
                                              "--hardware",
                                              QString::fromStdString(profile_),
                                              "-o",
                                              l}
                                : QStringList{"probe", "--no-vulkan", "--no-nvml", "--save", l};
        const Run refused = runCli(args);
        QVERIFY2(refused.code == 2, describe(refused).c_str());
        QVERIFY2(refused.err.contains("already exists"), describe(refused).c_str());
        QVERIFY(S_ISLNK(modeOf(link)));
        const Run forced = runCli(args + QStringList{"--force"});
        QVERIFY2(forced.code == 0, describe(forced).c_str());
        QVERIFY(S_ISREG(modeOf(link)));
        std::ifstream in(real);
        QCOMPARE(std::string((std::istreambuf_iterator<char>(in)), {}), std::string("precious"));
        if (command == "probe") {
            // The saved profile is a regular file now, and it loads back.
            const Run plan = runCli({"plan", "--model", "qwen3-8b", "--hardware", l, "--json"});
            QVERIFY2(plan.code == 0, describe(plan).c_str());
        }
    }

    // ---- concurrency: of 10 writers without --force exactly one wins ---------------------------
    void tenConcurrentSavesToOnePathHaveExactlyOneWinner() {
        const std::string out = path("race.json");
        std::vector<std::unique_ptr<QProcess>> procs;
        for (int i = 0; i < 10; ++i) {
            auto p = std::make_unique<QProcess>();
            configure(*p, -1);
            p->start(QStringLiteral(HEADROOM_BIN_DIR "/headroom-cli"),
                     {"probe", "--no-vulkan", "--no-nvml", "--json", "--save",
                      QString::fromStdString(out)});
            procs.push_back(std::move(p));
        }
        int winners = 0, refused = 0;
        for (auto& p : procs) {
            QVERIFY(p->waitForFinished(kLimitMs * 2));
            QCOMPARE(p->exitStatus(), QProcess::NormalExit);
            if (p->exitCode() == 0) ++winners;
            if (p->exitCode() == 2 && p->readAllStandardError().contains("already exists"))
                ++refused;
        }
        QCOMPARE(winners, 1);
        QCOMPARE(refused, 9);
        // No temporary file is left behind next to it.
        int entries = 0;
        for (const auto& e : fs::directory_iterator(dir_))
            entries += e.path().filename().string().rfind(".race.json", 0) == 0;
        QCOMPARE(entries, 0);
    }

    // ---- model paths ---------------------------------------------------------------------------
    void hostileModelPathsAreUnreadableInput_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<bool>("asMmproj"); // also refused as --mmproj FILE
        QTest::newRow("FIFO") << "{fifo}"
                              << "FIFO" << true;
        QTest::newRow("directory") << "{subdir}"
                                   << "directory" << true;
        QTest::newRow("missing") << "{dir}/none.gguf"
                                 << "No such file" << true;
        QTest::newRow("split part 2 of 3 missing") << "{dir}/split-00001-of-00003.gguf"
                                                   << "split-00002-of-00003.gguf" << false;
        QTest::newRow("split part says it is of 4") << "{dir}/odd-00001-of-00002.gguf"
                                                    << "odd-00002-of-00002.gguf" << false;
    }
    void hostileModelPathsAreUnreadableInput() {
        QFETCH(QString, model);
        QFETCH(QString, reason);
        QFETCH(bool, asMmproj);
        for (const char* cmd : {"plan", "export"}) {
            QStringList args{cmd, model, "--hardware", "{profile}"};
            if (QString(cmd) == "export")
                args << "--to"
                     << "json";
            const Run r = runCli(expand(args));
            QVERIFY2(r.code == 3, describe(r).c_str());
            QVERIFY2(r.err.contains(reason.toUtf8()), describe(r).c_str());
        }
        if (!asMmproj) return;
        const Run mmproj = runCli(
            expand({"plan", "--model", "qwen3-8b", "--hardware", "{profile}", "--mmproj", model}));
        QVERIFY2(mmproj.code == 3, describe(mmproj).c_str());
        QVERIFY2(mmproj.err.contains("--mmproj"), describe(mmproj).c_str());
        QVERIFY2(mmproj.err.contains(reason.toUtf8()), describe(mmproj).c_str());
    }

    // A --mmproj file is read as llama.cpp reads one (a GGUF header of a clip projector), never
    // only stat()ed: an empty, non-GGUF, truncated or non-projector file is unreadable input
    // (exit 3) naming the file and the problem, in plan and export alike.
    void aProjectorThatIsNotAGgufProjectorIsUnreadableInput_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("reason");
        QTest::newRow("empty") << "{dir}/empty.gguf"
                               << "0 bytes";
        QTest::newRow("not GGUF") << "{dir}/text.gguf"
                                  << "instead of 'GGUF'";
        QTest::newRow("truncated header") << "{dir}/truncated.gguf"
                                          << "truncated.gguf";
        QTest::newRow("a model, not a projector") << "{model}"
                                                  << "general.architecture = llama, not clip";
        QTest::newRow("symlink to /dev/zero") << "{dir}/zero.json"
                                              << "character device";
    }
    void aProjectorThatIsNotAGgufProjectorIsUnreadableInput() {
        QFETCH(QString, file);
        QFETCH(QString, reason);
        const QString shown = expand({file}).front();
        for (const char* cmd : {"plan", "export"}) {
            QStringList args{cmd,        "--model", "gemma-3-4b-it", "--hardware", "{profile}",
                             "--mmproj", file};
            if (QString(cmd) == "export")
                args << "--to"
                     << "json";
            const Run r = runCli(expand(args));
            QVERIFY2(r.code == 3, (cmd + (": " + describe(r))).c_str());
            QVERIFY2(r.err.contains("--mmproj"), describe(r).c_str());
            QVERIFY2(r.err.contains(QFileInfo(shown).fileName().toUtf8()), describe(r).c_str());
            QVERIFY2(r.err.contains(reason.toUtf8()), describe(r).c_str());
        }
    }

    void aProjectorFileIsChargedAtItsOwnSize() {
        const Run r = runCli(expand({"plan", "--model", "gemma-3-4b-it", "--hardware", "{profile}",
                                     "--mmproj", "{dir}/mmproj.gguf", "--json"}));
        QVERIFY2(r.code == 0, describe(r).c_str());
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY(!j.is_discarded());
        // Every rung charges the file's size: its header plus 16 x 16 x 3 x 64 F16 = 98304 B.
        const auto size = static_cast<std::uint64_t>(fs::file_size(path("mmproj.gguf")));
        QVERIFY(size > 98304);
        for (const auto& rung : j.at("rungs"))
            QCOMPARE(rung.at("bytes").at("mmproj").get<std::uint64_t>(), size);
    }

    // ---- invalid UTF-8 in what is printed: every --json output parses --------------------------
    void invalidUtf8NeverBreaksJsonOutput_data() {
        QTest::addColumn<QString>("script");
        QTest::addColumn<bool>("replaced"); // the bad byte reaches the output as U+FFFD
        // \377 is 0xff, never valid in UTF-8. The profile and model are copied under such names.
        const QString bad = QString::fromStdString(dir_) + "/bad$(printf '\\377')";
        const QString hw = "--hardware \"" + bad + ".json\"";
        QTest::newRow("plan --json")
            << "exec \"$0\" plan --model qwen3-8b " + hw + " --json" << true;
        QTest::newRow("export --to json")
            << "exec \"$0\" export --to json --model qwen3-8b " + hw << true;
        QTest::newRow("inspect --json")
            << "exec \"$0\" inspect \"" + bad + ".gguf\" --json" << true;
        QTest::newRow("catalog --json") << "exec \"$0\" catalog " + hw + " --json" << false;
        QTest::newRow("presets --json")
            << "HEADROOM_RESOURCES=\"" + bad + "\" exec \"$0\" presets --json" << false;
        QTest::newRow("probe --json (CPU name)")
            << "exec \"$0\" probe --json --no-vulkan --no-nvml --proc-root \"" +
                   QString::fromStdString(dir_) + "/badproc\" --sys-root \"" +
                   QString::fromStdString(dir_) + "/badsys\""
            << true;
    }
    void invalidUtf8NeverBreaksJsonOutput() {
        QFETCH(QString, script);
        QFETCH(bool, replaced);
        const std::string bad = dir_ + "/bad\xff";
        fs::copy_file(profile_, bad + ".json", fs::copy_options::overwrite_existing);
        fs::copy_file(model_, bad + ".gguf", fs::copy_options::overwrite_existing);
        fs::create_directories(bad);
        fs::copy_file(std::string(HEADROOM_SOURCE_DIR "/resources/presets.json"),
                      bad + "/presets.json", fs::copy_options::overwrite_existing);
        test::FakeTree::write(dir_ + "/badproc", "meminfo",
                              "MemTotal: 16777216 kB\nMemAvailable: 8388608 kB\n");
        test::FakeTree::write(dir_ + "/badproc", "cpuinfo",
                              "processor : 0\nmodel name : Bad\xff\xfe CPU\n");
        fs::create_directories(dir_ + "/badsys");
        const Run r = runShell(script);
        QVERIFY2(r.code == 0, describe(r).c_str());
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY2(!j.is_discarded(), r.out.left(400).constData());
        // U+FFFD in UTF-8 is EF BF BD.
        if (replaced) QVERIFY2(r.out.contains("\xEF\xBF\xBD"), r.out.left(400).constData());
    }

    // ---- probe environments --------------------------------------------------------------------
    // Older Vulkan loaders block reading an ICD manifest that is a FIFO (VK_ICD_FILENAMES); the
    // default probe of plan and catalog must stay bounded with it set, whatever the loader does.
    void aFifoAsVulkanIcdNeverHangsACommand_data() {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("probe --json") << QStringList{"probe", "--json"};
        QTest::newRow("plan probes by default") << QStringList{"plan", "--model", "qwen3-8b"};
        QTest::newRow("catalog probes by default") << QStringList{"catalog"};
    }
    void aFifoAsVulkanIcdNeverHangsACommand() {
        QFETCH(QStringList, args);
        auto env = baseEnv();
        env.insert("VK_ICD_FILENAMES", QString::fromStdString(fifo_));
        env.insert("VK_DRIVER_FILES", QString::fromStdString(fifo_));
        const Run r = runCli(args, env);
        QVERIFY2(r.code == 0, describe(r).c_str());
    }

    // A loader or driver that hangs for certain (its library's constructor never returns): the
    // probe answers after its 3 s limit, saying which source timed out.
    void aHangingLoaderOrDriverIsNamedAndCostsOnlyTheTimeLimit_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("says");
        QTest::newRow("Vulkan") << QStringList{"--vulkan-library", HEADROOM_HANG_LIB, "--no-nvml"}
                                << "Vulkan timed out";
        QTest::newRow("NVML") << QStringList{"--nvml-library", HEADROOM_HANG_LIB, "--no-vulkan"}
                              << "NVML timed out";
    }
    void aHangingLoaderOrDriverIsNamedAndCostsOnlyTheTimeLimit() {
        QFETCH(QStringList, args);
        QFETCH(QString, says);
        const Run r = runCli(QStringList{"probe", "--json"} + args);
        QVERIFY2(r.code == 0, describe(r).c_str());
        QVERIFY2(r.out.contains(says.toUtf8()), r.out.left(2000).constData());
        // The limit is 3 s (kIsolatedProbeTimeoutMs); the rest of the probe is milliseconds.
        QVERIFY2(r.ms >= 2900, std::to_string(r.ms).c_str());
    }

    // A FIFO (or a device) planted where the probe expects a /proc or /sys file (the
    // --proc-root/--sys-root seams) is refused unread: the probe used to block in open(2) for a
    // writer that never comes. Each run is bounded by runCli's QProcess timeout (kLimitMs): a
    // probe that blocks is killed and reported as code -1, never waited for. meminfo is what
    // RAM is read from, so without it the probe fails (exit 4) naming the file; cpuinfo and the
    // cgroup files only add detail, so the probe answers without them and says which it skipped.
    void aFifoInTheProbedTreeIsRefusedWithoutBlocking_data() {
        QTest::addColumn<QString>("file"); // relative to the fake root: proc/… or sys/…
        QTest::addColumn<QString>("kind"); // fifo or zero (a symlink to /dev/zero)
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("says");
        QTest::newRow("meminfo FIFO") << "proc/meminfo"
                                      << "fifo" << 4 << "meminfo: is a FIFO";
        QTest::newRow("meminfo /dev/zero") << "proc/meminfo"
                                           << "zero" << 4 << "meminfo: is a character device";
        QTest::newRow("cpuinfo FIFO") << "proc/cpuinfo"
                                      << "fifo" << 0 << "cpuinfo is a FIFO";
        QTest::newRow("self/cgroup FIFO") << "proc/self/cgroup"
                                          << "fifo" << 0 << "";
        QTest::newRow("cgroup v2 memory.max FIFO") << "sys/fs/cgroup/box/memory.max"
                                                   << "fifo" << 0 << "memory.max is a FIFO";
        QTest::newRow("cgroup v2 memory.current FIFO") << "sys/fs/cgroup/box/memory.current"
                                                       << "fifo" << 0 << "";
        QTest::newRow("cgroup.controllers FIFO") << "sys/fs/cgroup/cgroup.controllers"
                                                 << "fifo" << 0 << "";
    }
    void aFifoInTheProbedTreeIsRefusedWithoutBlocking() {
        QFETCH(QString, file);
        QFETCH(QString, kind);
        QFETCH(int, code);
        QFETCH(QString, says);
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const std::string r = root.path().toStdString();
        // A cgroup v2 box with a 4 GiB limit, every file regular to begin with.
        test::FakeTree::write(r + "/proc", "meminfo",
                              "MemTotal: 16777216 kB\nMemAvailable: 8388608 kB\n");
        test::FakeTree::write(r + "/proc", "cpuinfo", "processor : 0\nmodel name : Test\n");
        test::FakeTree::write(r + "/proc", "self/cgroup", "0::/box\n");
        test::FakeTree::write(r + "/sys", "fs/cgroup/cgroup.controllers", "cpu memory\n");
        test::FakeTree::write(r + "/sys", "fs/cgroup/box/memory.max", "4294967296\n");
        test::FakeTree::write(r + "/sys", "fs/cgroup/box/memory.current", "1073741824\n");
        const std::string target = r + "/" + file.toStdString();
        QVERIFY(fs::remove(target));
        if (kind == "fifo")
            QCOMPARE(::mkfifo(target.c_str(), 0600), 0);
        else
            fs::create_symlink("/dev/zero", target);
        const Run run = runCli({"probe", "--json", "--no-vulkan", "--no-nvml", "--proc-root",
                                QString::fromStdString(r + "/proc"), "--sys-root",
                                QString::fromStdString(r + "/sys")});
        QVERIFY2(run.code == code, describe(run).c_str());
        if (!says.isEmpty())
            QVERIFY2((run.out + run.err).contains(says.toUtf8()),
                     (describe(run) + " stdout: " + run.out.left(2000).toStdString()).c_str());
        if (code != 0) return;
        const json j = json::parse(run.out.toStdString(), nullptr, false);
        QVERIFY(!j.is_discarded());
        // An unread limit is never reported as "no memory limit".
        if (file.contains("memory.max")) QVERIFY(!run.out.contains("no memory limit"));
    }

    void implausibleProbeFiguresAreRefusedOrDroppedAndTheSavedProfileLoadsBack() {
        // MemTotal of 2^64-1 kB: the whole probe fails (exit 4), naming the figure.
        const std::string bigProc = dir_ + "/bigproc";
        test::FakeTree::write(bigProc, "meminfo", "MemTotal: 18446744073709551615 kB\n");
        test::FakeTree::write(bigProc, "cpuinfo", "processor : 0\n");
        fs::create_directories(dir_ + "/emptysys");
        const Run big = runCli({"probe", "--json", "--no-vulkan", "--no-nvml", "--proc-root",
                                QString::fromStdString(bigProc), "--sys-root",
                                QString::fromStdString(dir_ + "/emptysys")});
        QVERIFY2(big.code == 4, describe(big).c_str());
        QVERIFY2(big.err.contains("system RAM"), describe(big).c_str());
        // cpu MHz 1e300 on 8 AVX2 cores: 8 x 1e297 GHz x 32 FLOPs / 1000 = 2.56e296 TFLOPS, beyond
        // the 100000 TFLOPS limit: dropped with a note, and the saved profile loads back.
        const std::string fastProc = dir_ + "/fastproc";
        test::FakeTree::write(fastProc, "meminfo",
                              "MemTotal: 16777216 kB\nMemAvailable: 8388608 kB\n");
        test::FakeTree::write(fastProc, "cpuinfo",
                              "processor : 0\nmodel name : Fast\ncpu cores : 8\n"
                              "cpu MHz : 1e300\nflags : fpu avx2 fma\n");
        const std::string saved = path("fast-profile.json");
        const Run fast = runCli({"probe", "--json", "--no-vulkan", "--no-nvml", "--proc-root",
                                 QString::fromStdString(fastProc), "--sys-root",
                                 QString::fromStdString(dir_ + "/emptysys"), "--save",
                                 QString::fromStdString(saved)});
        QVERIFY2(fast.code == 0, describe(fast).c_str());
        const json j = json::parse(fast.out.toStdString(), nullptr, false);
        QVERIFY(!j.is_discarded());
        QCOMPARE(j.at("cpu").at("tflops").get<double>(), 0.0);
        QVERIFY(fast.out.contains("CPU TFLOPS read as"));
        const Run back = runCli(
            {"plan", "--model", "qwen3-8b", "--hardware", QString::fromStdString(saved), "--json"});
        QVERIFY2(back.code == 0, describe(back).c_str());
    }

    // ---- range: no byte count in a plan is negative or wrapped ---------------------------------
    // Every integer of the JSON that counts bytes (every key ending in _bytes, and the byte
    // terms under "bytes"/"terms"), budgets included: a card smaller than its margin has 0 bytes
    // of room, never -2 GiB (issue 27: --vram 100 printed a negative
    // fit_simulation.device_budget_bytes). Every number is also below 2^63.
    static void expectNoNegativeCount(const json& j) {
        std::function<void(const json&, const std::string&)> walk = [&](const json& v,
                                                                        const std::string& key) {
            if (v.is_object()) {
                for (auto it = v.begin(); it != v.end(); ++it)
                    walk(it.value(), it.key());
            } else if (v.is_array()) {
                for (const auto& e : v)
                    walk(e, key);
            } else if (v.is_number_integer()) {
                QVERIFY2(v.is_number_unsigned() || v.get<std::int64_t>() >= 0,
                         (key + " = " + v.dump()).c_str());
            } else if (v.is_number_float()) {
                QVERIFY2(v.get<double>() >= 0 || key.find("bytes") == std::string::npos,
                         (key + " = " + v.dump()).c_str());
            }
        };
        walk(j, "");
    }

    void noByteCountInAPlanIsNegative_data() {
        QTest::addColumn<QStringList>("args");
        const QStringList m{"--model", "qwen3-30b-a3b", "--json"};
        QTest::newRow("--vram 100") << QStringList{"plan", "--vram", "100", "--ram", "64GiB"} + m;
        QTest::newRow("--vram 1GiB") << QStringList{"plan", "--vram", "1GiB", "--ram", "64GiB"} + m;
        QTest::newRow("--vram 2GiB, 1 GiB RAM")
            << QStringList{"plan", "--vram", "2GiB", "--ram", "1GiB"} + m;
        QTest::newRow("--vram 100,24GiB")
            << QStringList{"plan", "--vram", "100,24GiB", "--ram", "64GiB"} + m;
        QTest::newRow("--reserve beyond the card")
            << QStringList{"plan", "--vram", "8GiB", "--ram", "64GiB", "--reserve", "20GiB"} + m;
        QTest::newRow("--free 1 byte")
            << QStringList{"plan", "--vram", "24GiB", "--ram", "64GiB", "--free", "1"} + m;
        QTest::newRow("--vram 100 pinned -ngl all")
            << QStringList{"plan", "--vram", "100", "--ram", "64GiB", "-ngl", "all"} + m;
        QTest::newRow("--vram 100 unified")
            << QStringList{"plan", "--vram", "100", "--ram", "64GiB", "--uma"} + m;
        QTest::newRow("export --vram 100")
            << QStringList{"export", "--to",  "json",    "--vram",       "100",
                           "--ram",  "64GiB", "--model", "qwen3-30b-a3b"};
        QStringList vram;
        for (int i = 0; i < 16; ++i)
            vram << "1048576GiB"; // 1 PiB, the largest size accepted: 16 x 2^50 = 2^54 at most
        QTest::newRow("16 GPUs of 1 PiB")
            << QStringList{"plan",       "--vram",  vram.join(','), "--ram",
                           "1048576GiB", "--model", "qwen3-8b",     "--json"};
    }
    void noByteCountInAPlanIsNegative() {
        QFETCH(QStringList, args);
        const Run r = runCli(args);
        // export refuses a plan that refuses every context (nothing to launch): exit 2, no JSON.
        if (args.front() == "export" && r.code == 2) return;
        QVERIFY2(r.code == 0, describe(r).c_str());
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY(!j.is_discarded());
        expectNoNegativeCount(j);
    }

    // ---- a card that is all margin beside plenty of RAM is planned, not refused ---------------
    // Issue 27: Qwen3-30B-A3B on 2 GiB of VRAM and 64 GiB of RAM was refused with "needs 21.7
    // GiB ... but only 64.00 GiB of vram+ram is usable". llama.cpp runs it with every layer in
    // RAM (-ngl 0), its 400 MiB CUDA runtime on the card; that is the plan, and its numbers fit.
    void aTwoGibCardBesideSixtyFourGibOfRamRunsTheModelFromRam() {
        const Run r = runCli(
            {"plan", "--model", "qwen3-30b-a3b", "--vram", "2GiB", "--ram", "64GiB", "--json"});
        QVERIFY2(r.code == 0, describe(r).c_str());
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY(!j.is_discarded());
        QCOMPARE(j.at("decision").at("refused").get<bool>(), false);
        const json& rung = j.at("rungs").at(j.at("decision").at("rung_index").get<std::size_t>());
        QCOMPARE(rung.at("verdict").get<std::string>(), std::string("spilled"));
        QCOMPARE(rung.at("placement").at("gpu_layers").get<int>(), 0);
        // 400 MiB = 419430400 B: the runtime, and all the card's budget holds.
        const json& gpu = rung.at("devices").at(0);
        QCOMPARE(gpu.at("bytes").get<std::uint64_t>(), std::uint64_t{419430400});
        QVERIFY(gpu.at("bytes").get<std::uint64_t>() <=
                gpu.at("budget_bytes").get<std::uint64_t>());
        const auto& argv = j.at("launch").at("llama_server");
        const auto ngl = std::find(argv.begin(), argv.end(), "-ngl");
        QVERIFY(ngl != argv.end() && std::next(ngl) != argv.end());
        QCOMPARE(std::next(ngl)->get<std::string>(), std::string("0"));
        // The card holds only the runtime because the launch keeps host-weight ops off it: with
        // op offload llama.cpp would also reserve a compute buffer there, so the flag the plan
        // was priced with is the one it writes.
        QVERIFY(std::find(argv.begin(), argv.end(), "--no-op-offload") != argv.end());
        QCOMPARE(j.at("options").at("op_offload").get<bool>(), false);
        // Asked for op offload anyway (the default), on a card with room for it, the flag is not
        // written.
        const Run roomy = runCli(
            {"plan", "--model", "qwen3-30b-a3b", "--vram", "24GiB", "--ram", "64GiB", "--json"});
        QVERIFY2(roomy.code == 0, describe(roomy).c_str());
        const json k = json::parse(roomy.out.toStdString(), nullptr, false);
        const auto& argv2 = k.at("launch").at("llama_server");
        QVERIFY(std::find(argv2.begin(), argv2.end(), "--no-op-offload") == argv2.end());
    }

    // A card that cannot hold even llama.cpp's runtime is refused as too small, and the refusal
    // quotes numbers that agree: it needs more than the budget has.
    void aCardTooSmallForTheRuntimeIsRefusedNamingIt() {
        const Run r = runCli(
            {"plan", "--model", "qwen3-30b-a3b", "--vram", "100", "--ram", "64GiB", "--json"});
        QVERIFY2(r.code == 0, describe(r).c_str());
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY(!j.is_discarded());
        QVERIFY(j.at("decision").at("refused").get<bool>());
        for (const auto& rung : j.at("rungs")) {
            const json& f = rung.at("refusal");
            QCOMPARE(f.at("code").get<std::string>(), std::string("device_too_small"));
            QCOMPARE(f.at("device").get<int>(), 0);
            const auto needed = f.at("needed_bytes").get<std::uint64_t>();
            const auto available = f.at("available_bytes").get<std::uint64_t>();
            QVERIFY(needed > available);
            QCOMPARE(f.at("shortfall_bytes").get<std::uint64_t>(), needed - available);
            QVERIFY(f.at("message").get<std::string>().find("is too small") != std::string::npos);
        }
    }
};

QTEST_APPLESS_MAIN(CliHostileTest)
#include "test_cli_hostile.moc"
