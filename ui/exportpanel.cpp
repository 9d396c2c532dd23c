#include "exportpanel.h"

#include "core/export/json_export.h"
#include "core/export/llama_server.h"
#include "core/export/llama_swap.h"
#include "core/export/ollama.h"
#include "core/export/rpc_server.h"
#include "core/resources.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

#include <algorithm>

namespace headroom::ui {

ExportPanel::ExportPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("exportPanel"));
    m_format = new QComboBox;
    m_format->setObjectName(QStringLiteral("exportFormatCombo"));
    m_format->setAccessibleName(tr("Export format"));
    m_format->setToolTip(tr("What to export for the chosen rung"));
    m_format->addItem(tr("llama-server command"), LlamaServerLine);
    m_format->addItem(tr("llama-server script"), LlamaServerScript);
    m_format->addItem(tr("llama-swap YAML"), LlamaSwapYaml);
    m_format->addItem(tr("Ollama Modelfile"), OllamaModelfile);
    m_format->addItem(tr("Plan JSON"), PlanJson);
    m_fit = new QComboBox;
    m_fit->setObjectName(QStringLiteral("exportFitCombo"));
    m_fit->setAccessibleName(tr("llama.cpp fit mode"));
    m_fit->setToolTip(
        tr("Pin: every planned placement flag and --fit off. Leave to fit: pin -c and the cache "
           "flags, let llama.cpp's --fit place layers."));
    m_fit->addItem(tr("pin placement"), int(FitMode::Pin));
    m_fit->addItem(tr("leave to --fit"), int(FitMode::LeaveToFit));
    m_text = new QPlainTextEdit;
    m_text->setObjectName(QStringLiteral("exportText"));
    m_text->setAccessibleName(tr("Exported configuration"));
    m_text->setReadOnly(true);
    // Read-only but walkable from the keyboard: a caret shows where focus is, and Shift+arrows
    // select part of the command.
    m_text->setTextInteractionFlags(Qt::TextSelectableByKeyboard | Qt::TextSelectableByMouse);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_text->setMaximumHeight(110);
    m_copy = new QPushButton(tr("Cop&y"));
    m_copy->setObjectName(QStringLiteral("copyExportButton"));
    m_copy->setAccessibleName(tr("Copy export"));
    m_copy->setToolTip(tr("Copy to the clipboard"));
    m_save = new QPushButton(style()->standardIcon(QStyle::SP_DialogSaveButton), tr("&Save…"));
    m_save->setObjectName(QStringLiteral("saveExportButton"));
    m_save->setAccessibleName(tr("Save export"));
    m_save->setToolTip(tr("Save to a file"));

    auto* row = new QHBoxLayout;
    auto* label = new QLabel(tr("&Export"));
    label->setBuddy(m_format);
    row->addWidget(label);
    row->addWidget(m_format);
    row->addWidget(m_fit);
    row->addStretch(1);
    row->addWidget(m_copy);
    row->addWidget(m_save);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(2);
    outer->addLayout(row);
    outer->addWidget(m_text);

    connect(m_format, &QComboBox::currentIndexChanged, this, &ExportPanel::render);
    connect(m_fit, &QComboBox::currentIndexChanged, this, &ExportPanel::render);
    connect(m_copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(text()); });
    connect(m_save, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save export"));
        if (path.isEmpty()) return;
        // The dialog already asked before replacing an existing file.
        if (auto ok = saveTo(path, true); !ok)
            Q_EMIT errorOccurred(qs(ok.error().message));
        else
            Q_EMIT saved(path);
    });
    clear();
}

void ExportPanel::setPlan(const Plan& plan) {
    m_plan = plan;
    m_has_plan = true;
    // A new plan starts at its launch window; the Why panel then reports the rung it shows.
    m_rung = -1;
    render();
}

void ExportPanel::setRung(int rung_index) {
    const int r = (rung_index >= 0 && rung_index < int(m_plan.rungs.size())) ? rung_index : -1;
    if (r == m_rung) return;
    m_rung = r;
    render();
}

void ExportPanel::clear() {
    m_has_plan = false;
    m_text->setPlainText(tr("# Pick a model: the launch for its chosen rung appears here."));
    m_copy->setEnabled(false);
    m_save->setEnabled(false);
}

void ExportPanel::setFormat(Format f) {
    m_format->setCurrentIndex(m_format->findData(int(f)));
}

QString ExportPanel::text() const {
    return m_text->toPlainText();
}

namespace {

// The rpc-server each RPC host must run before this llama-server starts (issue 15), as comment
// lines: they run on other machines. Read from the launch's own --rpc, so the panel never lists
// a host the line does not use.
QString rpcServerComments(const Plan& plan, const LaunchCommand& launch) {
    const auto at = std::find(launch.argv.begin(), launch.argv.end(), std::string("--rpc"));
    if (at == launch.argv.end() || at + 1 == launch.argv.end()) return {};
    LaunchConfig servers;
    std::size_t from = 0;
    const std::string& list = *(at + 1);
    while (from <= list.size()) {
        const std::size_t comma = std::min(list.find(',', from), list.size());
        servers.rpc_servers.push_back(list.substr(from, comma - from));
        from = comma + 1;
    }
    QString out;
    for (const RpcServerLaunch& l : rpcServerLaunches(plan.hardware, servers)) {
        QString line =
            QStringLiteral("# On %1%2:")
                .arg(qs(l.endpoint),
                     l.label.empty() ? QString() : QStringLiteral(" (%1)").arg(qs(l.label)));
        for (const std::string& a : l.argv)
            line += QLatin1Char(' ') + qs(a);
        out += line + QLatin1Char('\n');
    }
    return out;
}

} // namespace

void ExportPanel::render() {
    if (!m_has_plan) return;
    const auto format = Format(m_format->currentData().toInt());
    m_fit->setEnabled(format == LlamaServerLine || format == LlamaServerScript ||
                      format == LlamaSwapYaml);
    QString out;
    bool ok = true;
    if (format == PlanJson) {
        out = qs(planJsonText(m_plan));
    } else if (format == LlamaSwapYaml) {
        SwapModel model;
        model.plan = m_plan;
        model.launch.fit = FitMode(m_fit->currentData().toInt());
        model.launch.rung_index = m_rung;
        Result<std::string> yaml = llamaSwapYaml({model}, LlamaSwapOptions{});
        ok = yaml.has_value();
        out = ok ? qs(*yaml) : tr("# Nothing to export: %1").arg(qs(yaml.error().message));
    } else if (format == OllamaModelfile) {
        OllamaExportOptions oo;
        oo.rung_index = m_rung;
        Result<headroom::OllamaModelfile> mf = ollamaModelfile(m_plan, oo);
        ok = mf.has_value();
        out = ok ? qs(mf->text) : tr("# Nothing to export: %1").arg(qs(mf.error().message));
        if (ok && !mf->server_env.empty()) {
            out += tr("\n# Set for `ollama serve`:");
            for (const std::string& e : mf->server_env)
                out += QStringLiteral("\n# ") + qs(e);
        }
    } else {
        LaunchExportOptions o;
        o.fit = FitMode(m_fit->currentData().toInt());
        o.rung_index = m_rung;
        Result<LaunchCommand> launch = llamaServerLaunch(m_plan, o);
        if (!launch) {
            ok = false;
            out = tr("# Nothing to launch: %1").arg(qs(launch.error().message));
        } else {
            const QString servers = rpcServerComments(m_plan, *launch);
            out = qs(format == LlamaServerScript ? llamaServerScript(*launch)
                                                 : llamaServerCommandLine(*launch));
            // A script keeps its #! line first; the command line starts with the servers.
            if (!servers.isEmpty()) {
                const qsizetype body =
                    format == LlamaServerScript && out.startsWith(QLatin1String("#!"))
                        ? out.indexOf(QLatin1Char('\n')) + 1
                        : 0;
                out.insert(body, servers);
            }
            if (format == LlamaServerLine)
                for (const std::string& w : launch->warnings)
                    out += QStringLiteral("\n# ") + qs(w);
        }
    }
    m_text->setPlainText(out);
    m_copy->setEnabled(ok);
    m_save->setEnabled(ok);
}

Result<bool> ExportPanel::saveTo(const QString& path, bool overwrite) const {
    return writeFileAtomically(path.toStdString(), text().toStdString(), overwrite);
}

} // namespace headroom::ui
