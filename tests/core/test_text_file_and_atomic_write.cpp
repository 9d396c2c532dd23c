// The one reader for text files the program loads (core/text_file.h) and the one writer for
// output files (core/atomic_write.h), on the file-system objects a hostile path can name.
#include "atomic_write.h"
#include "text_file.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace headroom;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

mode_t modeOf(const std::string& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 ? st.st_mode : 0;
}

} // namespace

class TestTextFileAndAtomicWrite : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    std::string p(const std::string& name) { return tmp_.path().toStdString() + "/" + name; }

private slots:
    void nonRegularFilesAreRefusedSayingWhatTheyAre_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("says");
        QTest::newRow("FIFO") << "fifo"
                              << "FIFO";
        QTest::newRow("directory") << "dir"
                                   << "directory";
        QTest::newRow("character device") << "dev"
                                          << "character device";
    }
    void nonRegularFilesAreRefusedSayingWhatTheyAre() {
        QFETCH(QString, kind);
        QFETCH(QString, says);
        std::string path = p("obj-" + kind.toStdString());
        if (kind == "fifo") QCOMPARE(::mkfifo(path.c_str(), 0600), 0);
        if (kind == "dir") fs::create_directories(path);
        if (kind == "dev") fs::create_symlink("/dev/zero", path);
        const auto r = readRegularTextFile(path);
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::IoError);
        QVERIFY(r.error().message.find(path) != std::string::npos);
        QVERIFY2(r.error().message.find(says.toStdString()) != std::string::npos,
                 r.error().message.c_str());
    }

    void aFileOverTheCapIsRefused() {
        const std::string path = p("big");
        std::ofstream(path) << std::string(101, 'x');
        QVERIFY(readRegularTextFile(path, 101).has_value()); // at the cap: read
        const auto r = readRegularTextFile(path, 100);       // one byte over: refused
        QVERIFY(!r);
        QVERIFY(r.error().message.find("too large") != std::string::npos);
    }

    void everyJsonExceptionBecomesAParseErrorWithAPosition_data() {
        QTest::addColumn<QByteArray>("text"); // bytes: the UTF-8 case must stay invalid
        QTest::addColumn<QString>("where");
        QTest::newRow("syntax") << QByteArray("{\n  \"a\": ,}") << "line 2";
        QTest::newRow("number beyond double")
            << QByteArray("{\"a\":\n 1e400}") << "line 2, column 2";
        QTest::newRow("invalid UTF-8") << QByteArray("\"\xff\"") << "line 1";
        QTest::newRow("nesting") << QByteArray(300, '[') << "nested more than 256";
        QTest::newRow("empty") << QByteArray() << "line 1";
    }
    void everyJsonExceptionBecomesAParseErrorWithAPosition() {
        QFETCH(QByteArray, text);
        QFETCH(QString, where);
        const auto r = parseJsonDocument(text.toStdString(), "'f.json'");
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::ParseError);
        QVERIFY(r.error().message.find("'f.json'") != std::string::npos);
        QVERIFY2(r.error().details.find(where.toStdString()) != std::string::npos,
                 r.error().details.c_str());
    }

    void invalidUtf8IsReplacedOnOutput() {
        const nlohmann::json j = {{"name", std::string("a\xff"
                                                       "b")}};
        // U+FFFD (EF BF BD) stands in for the bad byte.
        QCOMPARE(dumpJson(j, -1), std::string("{\"name\":\"a\xEF\xBF\xBD"
                                              "b\"}"));
    }

    void noClobberIsDecidedByTheKernel() {
        const std::string path = p("out.txt");
        QVERIFY(writeFileAtomically(path, "one", false).has_value());
        const auto again = writeFileAtomically(path, "two", false);
        QVERIFY(!again);
        QCOMPARE(again.error().code, ErrorCode::InvalidArgument);
        QCOMPARE(slurp(path), std::string("one"));
        QVERIFY(writeFileAtomically(path, "three", true).has_value());
        QCOMPARE(slurp(path), std::string("three"));
    }

    void forceKeepsTheModeAndANewFileHonoursTheUmask() {
        const std::string path = p("mode.txt");
        std::ofstream(path) << "x";
        QCOMPARE(::chmod(path.c_str(), 0640), 0);
        QVERIFY(writeFileAtomically(path, "y", true).has_value());
        QCOMPARE(modeOf(path) & 07777, mode_t{0640});
        const mode_t old = ::umask(027);
        const auto made = writeFileAtomically(p("new.txt"), "z", false, 0666);
        ::umask(old);
        QVERIFY(made.has_value());
        QCOMPARE(modeOf(p("new.txt")) & 07777, mode_t{0640}); // 0666 & ~027
    }

    // The kind of target is the user's argument (exit 2), not unreadable input.
    void devicesFifosAndDirectoriesAreNeverReplaced() {
        const std::string fifo = p("w-fifo");
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        const std::string dir = p("w-dir");
        fs::create_directories(dir);
        const std::string devlink = p("w-devlink");
        fs::create_symlink("/dev/null", devlink);
        for (const std::string& t : {fifo, dir, devlink, std::string("/dev/null")}) {
            const mode_t before = modeOf(t);
            const auto r = writeFileAtomically(t, "data", true);
            QVERIFY2(!r, t.c_str());
            QCOMPARE(r.error().code, ErrorCode::InvalidArgument);
            QCOMPARE(modeOf(t), before);
        }
        QVERIFY(S_ISCHR(modeOf("/dev/null")));
    }

    void aDanglingSymlinkNeedsForceAndIsReplacedItself() {
        const std::string link = p("dangle");
        const std::string pointee = p("dangle-target");
        fs::create_symlink(pointee, link);
        QVERIFY(!writeFileAtomically(link, "a", false));
        QVERIFY(S_ISLNK(modeOf(link)));
        QVERIFY(writeFileAtomically(link, "a", true).has_value());
        QVERIFY(S_ISREG(modeOf(link)));
        QVERIFY(!fs::exists(pointee));
    }

    // A link to a file is never written through: without --force it is an existing file; with
    // it the link itself is replaced (its target's permission bits kept) and the target keeps
    // every byte, so a link planted in a shared folder cannot aim a write anywhere.
    void aSymlinkToAFileIsReplacedItselfAndItsTargetIsNeverWritten() {
        const std::string target = p("link-target");
        const std::string link = p("link");
        std::ofstream(target) << "precious";
        QCOMPARE(::chmod(target.c_str(), 0600), 0);
        fs::create_symlink(target, link);
        const auto kept = writeFileAtomically(link, "new", false);
        QVERIFY(!kept);
        QCOMPARE(kept.error().code, ErrorCode::InvalidArgument);
        QVERIFY(S_ISLNK(modeOf(link)));
        QVERIFY(writeFileAtomically(link, "new", true).has_value());
        QVERIFY(S_ISREG(modeOf(link)));
        QCOMPARE(slurp(link), std::string("new"));
        QCOMPARE(modeOf(link) & 07777, mode_t{0600});
        QCOMPARE(slurp(target), std::string("precious"));
    }

    // A path the OS will not let us write (its directory missing, or a file) is unwritable
    // (IoError, exit 3), named in the message; only the wrong kind of target is a bad argument.
    void anOutputPathInAMissingDirectoryIsUnwritableNamingIt() {
        const std::string file = p("plain-file");
        std::ofstream(file) << "x";
        for (const std::string& t : {p("no-such-dir/out.json"), file + "/out.json"}) {
            const auto r = writeFileAtomically(t, "data", true);
            QVERIFY2(!r, t.c_str());
            QCOMPARE(r.error().code, ErrorCode::IoError);
            QVERIFY2(r.error().message.find(t) != std::string::npos, r.error().message.c_str());
        }
    }

    void noTemporaryFileIsLeftBehind() {
        const std::string path = p("clean.txt");
        QVERIFY(writeFileAtomically(path, "1", false).has_value());
        QVERIFY(!writeFileAtomically(path, "2", false));
        int temps = 0;
        for (const auto& e : fs::directory_iterator(tmp_.path().toStdString()))
            temps += e.path().filename().string().rfind(".clean.txt", 0) == 0;
        QCOMPARE(temps, 0);
    }
};

QTEST_APPLESS_MAIN(TestTextFileAndAtomicWrite)
#include "test_text_file_and_atomic_write.moc"
