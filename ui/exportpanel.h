// Export panel: the chosen rung as a llama-server command line or script, a llama-swap YAML
// entry, an Ollama Modelfile, or the whole plan as JSON — all from core/export, so the flags
// are the ones that were priced; copy to the clipboard or save (atomically, never replacing a
// file without asking).
#pragma once

#include "metatypes.h"

#include <QWidget>

QT_BEGIN_NAMESPACE
class QComboBox;
class QPlainTextEdit;
class QPushButton;
QT_END_NAMESPACE

namespace headroom::ui {

class ExportPanel : public QWidget {
    Q_OBJECT
public:
    enum Format { LlamaServerLine, LlamaServerScript, LlamaSwapYaml, OllamaModelfile, PlanJson };
    explicit ExportPanel(QWidget* parent = nullptr);

    void setPlan(const Plan& plan);
    // Exports rung `rung_index` of the plan (-1: the launch decision). Any rung that runs
    // exports; a refused one says why instead.
    void setRung(int rung_index);
    int rung() const { return m_rung; }
    void clear();
    void setFormat(Format f);
    QString text() const;
    // Writes the text to `path` atomically; refuses to replace a file unless `overwrite`.
    Result<bool> saveTo(const QString& path, bool overwrite) const;

Q_SIGNALS:
    void errorOccurred(const QString& message);
    void saved(const QString& path);

private:
    void render();

    Plan m_plan;
    bool m_has_plan = false;
    int m_rung = -1;
    QComboBox* m_format;
    QComboBox* m_fit;
    QPlainTextEdit* m_text;
    QPushButton* m_copy;
    QPushButton* m_save;
};

} // namespace headroom::ui
