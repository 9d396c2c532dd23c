#include "verifypanel.h"

#include "core/verify/verify_run.h"

#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace headroom::ui {

namespace {

VerifyOutcome verifyOnWorker(const Plan& plan, const std::string& model,
                             const std::string& server) {
    auto run = verifyOnLlamaServer(plan, model, server, kGuiVerifyTimeoutS);
    if (!run) return {false, QString::fromStdString(run.error().message)};
    return {true, QString::fromStdString(formatVerifyReport(run->report))};
}

} // namespace

VerifyPanel::VerifyPanel(QWidget* parent) : QWidget(parent) {
    m_server = new QLineEdit;
    m_server->setObjectName(QStringLiteral("verifyServer"));
    m_server->setPlaceholderText(tr("llama-server (from PATH), or its path"));
    m_server->setAccessibleName(tr("llama-server to verify with"));
    m_button = new QPushButton(tr("Verify on my llama.cpp"));
    m_button->setObjectName(QStringLiteral("verifyButton"));
    m_button->setAccessibleName(tr("Verify on my llama.cpp"));
    m_button->setToolTip(tr("Load the chosen launch in your llama-server just long enough to "
                            "read its buffers, and compare them with the plan"));
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("verifyStatus"));
    m_status->setWordWrap(true);
    m_report = new QPlainTextEdit;
    m_report->setObjectName(QStringLiteral("verifyReport"));
    m_report->setReadOnly(true);
    m_report->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_report->setAccessibleName(tr("Verification report"));
    m_report->hide();

    auto* row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_server, 1);
    row->addWidget(m_button);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(row);
    layout->addWidget(m_status);
    layout->addWidget(m_report);

    connect(m_button, &QPushButton::clicked, this, &VerifyPanel::start);
    connect(&m_watcher, &QFutureWatcher<VerifyOutcome>::finished, this, &VerifyPanel::onDone);
    updateEnabled();
}

void VerifyPanel::setPlan(const Plan& plan) {
    m_plan = plan;
    m_has_plan = true;
    // A local model's id is its file path (ModelShape::id); a catalog model has no file to load.
    const QString id = QString::fromStdString(plan.model.id);
    m_model_path = QFileInfo(id).isFile() ? id : QString();
    if (!isRunning()) {
        // A report is about the plan it was made for.
        m_status->clear();
        m_report->hide();
    }
    updateEnabled();
}

void VerifyPanel::clear() {
    m_has_plan = false;
    m_model_path.clear();
    updateEnabled();
}

void VerifyPanel::setServer(const QString& server) {
    m_server->setText(server);
}

bool VerifyPanel::isRunning() const {
    return m_watcher.isRunning();
}

QString VerifyPanel::reportText() const {
    return m_report->toPlainText();
}

void VerifyPanel::start() {
    if (isRunning() || !m_has_plan || m_model_path.isEmpty()) return;
    m_status->setText(
        tr("Loading the model in llama-server (at most %1 s)…").arg(kGuiVerifyTimeoutS));
    m_report->hide();
    // The worker gets copies: the plan may change while the load runs.
    m_watcher.setFuture(QtConcurrent::run(verifyOnWorker, m_plan, m_model_path.toStdString(),
                                          m_server->text().trimmed().toStdString()));
    updateEnabled();
}

void VerifyPanel::onDone() {
    const VerifyOutcome out = m_watcher.result();
    updateEnabled();
    if (!out.ok) {
        m_status->setText(out.text);
        Q_EMIT failed(out.text);
        return;
    }
    m_status->setText(tr("Planned against what your llama.cpp allocated, per device:"));
    m_report->setPlainText(out.text);
    m_report->show();
    Q_EMIT finished(out.text);
}

void VerifyPanel::updateEnabled() {
    const bool can = m_has_plan && !m_model_path.isEmpty() && !isRunning();
    m_button->setEnabled(can);
    if (!m_has_plan)
        m_status->setText(tr("Pick a model to verify its plan on your llama.cpp."));
    else if (m_model_path.isEmpty())
        m_status->setText(
            tr("Verification loads a local GGUF file; this model is a catalog entry."));
}

} // namespace headroom::ui
