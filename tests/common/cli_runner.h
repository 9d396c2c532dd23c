// Runs the built headroom-cli for the CLI contract tests: exit code, stdout and stderr.
#pragma once

#include <QByteArray>
#include <QProcess>
#include <QStringList>

namespace headroom::test {

struct CliRun {
    int code = -1; // -1: crashed or timed out
    QByteArray out, err;
};

inline CliRun runCli(const QStringList& args, int timeout_ms = 60000) {
    QProcess p;
    p.start(QStringLiteral(HEADROOM_BIN_DIR "/headroom-cli"), args);
    if (!p.waitForFinished(timeout_ms)) {
        p.kill();
        p.waitForFinished();
        return {-1, p.readAllStandardOutput(), p.readAllStandardError()};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

} // namespace headroom::test
