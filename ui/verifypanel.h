// Verify panel: "Verify on my llama.cpp" runs the plan's launch on the user's llama-server just
// long enough to load (core/verify/verify_run.h, the same run as `headroom-cli verify`) on a
// worker thread, so the window stays responsive for the minutes a load can take, and shows each
// device's planned against measured terms.
#pragma once

#include "metatypes.h"

#include <QFutureWatcher>
#include <QWidget>

QT_BEGIN_NAMESPACE
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
QT_END_NAMESPACE

namespace headroom::ui {

// What one verification produced, made on the worker thread: the report or the reason there is
// none, as the CLI prints them.
struct VerifyOutcome {
    bool ok = false;
    QString text;
};

// A load that takes longer is stopped, as `headroom-cli verify` does by default. Not a knob.
inline constexpr int kGuiVerifyTimeoutS = 600;

class VerifyPanel : public QWidget {
    Q_OBJECT
public:
    explicit VerifyPanel(QWidget* parent = nullptr);

    // The plan to verify; its model must be a local GGUF file (a catalog entry has none to load).
    void setPlan(const Plan& plan);
    void clear();
    // The llama-server to run: a path, or a name looked up in PATH (default llama-server).
    void setServer(const QString& server);
    bool isRunning() const;
    QString reportText() const;
    // What the button does: starts a verification unless one is running or there is no plan.
    void start();

Q_SIGNALS:
    void finished(const QString& report);
    void failed(const QString& message);

private:
    void onDone();
    void updateEnabled();

    Plan m_plan;
    bool m_has_plan = false;
    QString m_model_path;
    QLineEdit* m_server;
    QPushButton* m_button;
    QLabel* m_status;
    QPlainTextEdit* m_report;
    QFutureWatcher<VerifyOutcome> m_watcher;
};

} // namespace headroom::ui
