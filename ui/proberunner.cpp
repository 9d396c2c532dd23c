#include "proberunner.h"

#include "hardwarejson.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace headroom::ui {

ProbeRunner::ProbeRunner(QObject* parent) : QObject(parent) {
    const QString override_ = qEnvironmentVariable("HEADROOM_PROBE_COMMAND");
    if (!override_.isEmpty()) {
        QStringList parts = QProcess::splitCommand(override_);
        m_program = parts.takeFirst();
        m_arguments = parts;
    } else {
        m_program =
            QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("headroom-cli"));
        if (!QFileInfo::exists(m_program)) m_program = QStringLiteral("headroom-cli"); // on PATH
        m_arguments = {QStringLiteral("probe"), QStringLiteral("--json")};
    }
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &ProbeRunner::onTimeout);
}

ProbeRunner::~ProbeRunner() {
    cancel();
}

void ProbeRunner::setCommand(const QString& program, const QStringList& arguments) {
    m_program = program;
    m_arguments = arguments;
}

bool ProbeRunner::isRunning() const {
    return m_process != nullptr;
}

void ProbeRunner::start() {
    if (m_process) return;
    m_reported = false;
    m_process = new QProcess(this);
    m_process->setProgram(m_program);
    m_process->setArguments(m_arguments);
    connect(m_process, &QProcess::finished, this, &ProbeRunner::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, &ProbeRunner::onError);
    Q_EMIT started();
    m_timer.start(m_timeout_ms);
    m_process->start();
}

void ProbeRunner::cancel() {
    m_timer.stop();
    if (!m_process) return;
    m_process->disconnect(this);
    m_process->kill();
    m_process->waitForFinished(1000);
    m_process->deleteLater();
    m_process = nullptr;
}

void ProbeRunner::reset() {
    m_timer.stop();
    if (m_process) {
        m_process->disconnect(this);
        m_process->deleteLater();
        m_process = nullptr;
    }
}

void ProbeRunner::onTimeout() {
    if (!m_process) return;
    const QString prog = QFileInfo(m_program).fileName();
    cancel();
    Q_EMIT failed(tr("The hardware probe (%1) did not answer within %2 s and was stopped — a GPU "
                     "driver may be hanging. Enter your figures by hand or pick a preset.")
                      .arg(prog)
                      .arg(m_timeout_ms / 1000.0, 0, 'f', 0));
}

void ProbeRunner::onError(QProcess::ProcessError error) {
    if (error != QProcess::FailedToStart || !m_process) return;
    const QString why = m_process->errorString();
    reset();
    Q_EMIT failed(tr("Could not start the hardware probe %1: %2. Enter your figures by hand or "
                     "pick a preset.")
                      .arg(m_program, why));
}

void ProbeRunner::onFinished(int exitCode, QProcess::ExitStatus status) {
    if (!m_process) return;
    const QByteArray out = m_process->readAllStandardOutput();
    const QString err = QString::fromUtf8(m_process->readAllStandardError()).trimmed();
    const QString prog = QFileInfo(m_program).fileName();
    reset();
    if (status == QProcess::CrashExit) {
        Q_EMIT failed(tr("The hardware probe (%1) crashed. %2").arg(prog, err));
        return;
    }
    if (exitCode != 0) {
        QString detail = err.isEmpty() ? QString() : err.section(QLatin1Char('\n'), -1);
        Q_EMIT failed(
            tr("The hardware probe (%1) failed with exit code %2%3")
                .arg(prog)
                .arg(exitCode)
                .arg(detail.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + detail));
        return;
    }
    Result<HardwareSnapshot> hw = snapshotFromJson(out);
    if (!hw) {
        Q_EMIT failed(tr("The hardware probe (%1) answered with something unreadable: %2")
                          .arg(prog, qs(hw.error().message)));
        return;
    }
    if (hw->source.empty()) hw->source = "probe";
    Q_EMIT finished(*hw);
}

} // namespace headroom::ui
