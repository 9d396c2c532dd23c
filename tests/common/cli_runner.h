// Runs the built headroom-cli as a script would, for every test that drives the CLI: exit code,
// stdout and stderr, optionally with its own environment (the probe tests point the Vulkan
// loader at one driver).
#pragma once

#include <QByteArray>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>

namespace headroom::test {

struct CliRun {
    int code = -1; // -1: crashed or timed out
    QByteArray out, err;
};

// 60 s only bounds a hang: every command the tests run finishes in well under a second.
inline CliRun runCli(const QStringList& args,
                     const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
                     int timeout_ms = 60000) {
    QProcess p;
    p.setProcessEnvironment(env);
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
