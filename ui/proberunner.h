// ProbeRunner: runs the hardware probe (`headroom-cli probe --json`) as a child process with a
// timeout, so a hanging GPU driver can never freeze the window, and turns its output into a
// HardwareSnapshot or a message saying what went wrong.
#pragma once

#include "metatypes.h"

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTimer>

namespace headroom::ui {

// A probe that answers in neither time is treated as hung; Vulkan instance creation plus NVML
// normally take well under a second, a driver stuck in the kernel never returns. Not a knob.
inline constexpr int kProbeTimeoutMs = 15000;

class ProbeRunner : public QObject {
    Q_OBJECT
public:
    explicit ProbeRunner(QObject* parent = nullptr);
    ~ProbeRunner() override;

    // The default is headroom-cli next to this executable; HEADROOM_PROBE_COMMAND (a program
    // path, arguments after spaces) overrides it.
    void setCommand(const QString& program, const QStringList& arguments);
    QString program() const { return m_program; }
    QStringList arguments() const { return m_arguments; }
    void setTimeoutMs(int ms) { m_timeout_ms = ms; }

    bool isRunning() const;
    // Starts a probe unless one is already running (then the running one answers).
    void start();
    void cancel();

Q_SIGNALS:
    void started();
    void finished(const headroom::HardwareSnapshot& hw);
    void failed(const QString& message);

private:
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    void onTimeout();
    void reset();

    QString m_program;
    QStringList m_arguments;
    int m_timeout_ms = kProbeTimeoutMs;
    QProcess* m_process = nullptr;
    QTimer m_timer;
    bool m_reported = false;
};

} // namespace headroom::ui
