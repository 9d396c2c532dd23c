// Plan options: the context target (a slider that snaps to the plan's ladder rungs, plus a free
// entry), K/V cache types, flash attention, ubatch, parallel sequences, MTP, a draft model, mmproj,
// an extra reserve, RoPE scaling (YaRN past the trained context), and the user's own placement as
// llama.cpp takes it (-ngl, --n-cpu-moe, --cpu-moe, -ot, -ts, -sm), read by the same
// readPlacementFlags as the CLI's, and the llama.cpp build the plan is priced and written for.
// Edits announce a whole PlanOptions; an entry that does not read announces optionsInvalid instead,
// with the message shown inline. The panel never plans by itself.
#pragma once

#include "metatypes.h"

#include <QWidget>

#include <memory>
#include <vector>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSlider;
class QSpinBox;
QT_END_NAMESPACE

namespace headroom::ui {

class OptionsPanel : public QWidget {
    Q_OBJECT
public:
    explicit OptionsPanel(QWidget* parent = nullptr);

    // Shows `options` without announcing them.
    void setOptions(const PlanOptions& options);
    const PlanOptions& options() const { return m_options; }
    // The ladder the slider snaps to (ascending token counts, from the latest plan).
    void setRungs(const std::vector<std::uint32_t>& rungs, std::uint64_t n_ctx_train);
    const std::vector<std::uint32_t>& rungs() const { return m_rungs; }
    QString errorText() const;
    // The draft models the combo offers for the current target (a catalog model each, smallest
    // first; MainWindow picks those llama.cpp would pair with it). A draft chosen earlier that is
    // not among them is dropped from the options, without announcing it.
    void setDraftCandidates(std::vector<std::shared_ptr<const ModelShape>> candidates);

Q_SIGNALS:
    void optionsEdited(const headroom::PlanOptions& options);
    // An entry does not read (a bad context or placement): no options to plan with; the text
    // names the field and the accepted forms. The window must not keep showing the last plan.
    void optionsInvalid(const QString& message);

protected:
    // The context label's fixed size follows its font (see setSliderLabel).
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    void emitEdited();
    void syncContextWidgets();
    void setSliderLabel(const QString& text);
    void onContextText();
    void onPlacementEdited();
    void syncPlacementWidgets();
    void syncDraftWidget();

    PlanOptions m_options;
    std::vector<std::uint32_t> m_rungs;
    std::vector<std::shared_ptr<const ModelShape>> m_draft_candidates;
    QSlider* m_slider;
    QLabel* m_slider_label;
    QLineEdit* m_context;
    QComboBox* m_ctk;
    QComboBox* m_ctv;
    QComboBox* m_fa;
    QComboBox* m_ubatch;
    QSpinBox* m_parallel;
    QCheckBox* m_kvu;
    QCheckBox* m_swa_full;
    QComboBox* m_mtp;
    QComboBox* m_draft; // -md: none, or one of m_draft_candidates
    QCheckBox* m_mmproj;
    QDoubleSpinBox* m_reserve;
    // Placement (llama.cpp's flags as typed; empty = not given).
    QLineEdit* m_ngl;
    QLineEdit* m_n_cpu_moe;
    QCheckBox* m_cpu_moe;
    QLineEdit* m_ot;
    QLineEdit* m_ts;
    QComboBox* m_sm;
    QComboBox* m_version; // --llama-version: the llama.cpp build the plan and launch are for
    // Why the current entries do not read (empty: they do).
    QString m_context_error;
    QString m_placement_error;
    QComboBox* m_rope;            // --rope-scaling: model's own, yarn, linear, none
    QDoubleSpinBox* m_rope_scale; // --rope-scale
    QSpinBox* m_yarn_orig;        // --yarn-orig-ctx (0: the model's)
    QLabel* m_error;
};

} // namespace headroom::ui
