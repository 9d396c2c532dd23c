// Starts tests/common/gguf_http_server.py (Range, HEAD, ETag, the hub's api/models and
// resolve/main paths, a mode that ignores Range and one that stalls) on a free loopback port for
// the remote-model tests, and stops it with the test.
#pragma once

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace headroom::test {

class Server {
public:
    bool start(const QString& root, const QString& mode, const QString& stats,
               const QString& token = {}) {
        stats_ = stats;
        // The build defines where the script is (tests/CMakeLists.txt, per test target).
        const QString script = QStringLiteral(HEADROOM_GGUF_HTTP_SERVER);
        QStringList args = {script, "--root", root, "--mode", mode, "--stats", stats};
        if (!token.isEmpty()) args << "--token" << token;
        p_.start("python3", args);
        if (!p_.waitForStarted(10000)) return false;
        while (!p_.canReadLine())
            if (!p_.waitForReadyRead(10000)) return false;
        const QString line = QString::fromUtf8(p_.readLine()).trimmed();
        if (!line.startsWith("PORT ")) return false;
        port_ = line.mid(5).toInt();
        return port_ > 0;
    }
    void stop() {
        if (p_.state() != QProcess::NotRunning) {
            p_.kill();
            p_.waitForFinished();
        }
    }
    ~Server() { stop(); }
    QString base() const { return QStringLiteral("http://127.0.0.1:%1").arg(port_); }
    nlohmann::json stats() const {
        QFile f(stats_);
        if (!f.open(QIODevice::ReadOnly)) return {};
        return nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
    }

private:
    QProcess p_;
    QString stats_;
    int port_ = 0;
};

} // namespace headroom::test
