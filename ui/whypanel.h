// Why-refused panel: for one rung, the verdict in one sentence, then the numbers (needed,
// available, shortfall, the terms) and the remedies, each with what it saves. Clicking a remedy
// applies its options. Follows every new plan.
#pragma once

#include "metatypes.h"

#include <QWidget>

#include <optional>

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QVBoxLayout;
class QPushButton;
QT_END_NAMESPACE

namespace headroom::ui {

// The one-sentence verdict of a rung ("256K is refused: GPU0 is 3.10 GiB short …").
QString rungSentence(const Plan& plan, int row);
// "needed …, available …, shortfall …" of a refusal, in the refusal's own unit: tokens for a
// context past the trained context, bytes for every memory budget.
QString refusalNumbersText(const Refusal& f);

class WhyPanel : public QWidget {
    Q_OBJECT
public:
    explicit WhyPanel(QWidget* parent = nullptr);

    // `without_mtp`: the same inputs planned with MTP off, when `plan` runs MTP — what the MTP
    // line compares against (its cost in bytes, and the speed without it).
    // `growth`: what a session at the launch window would grow to, and its gates (shown with
    // the launch window).
    void setPlan(const Plan& plan, const Plan* without_mtp = nullptr, const QString& growth = {});
    void clear(const QString& message = {});
    // Shows rung `row` of the current plan; the default is the rung at the context target,
    // else the launch decision.
    void selectRung(int row);
    int selectedRung() const { return m_row; }
    QString sentence() const;
    QString numbersText() const;
    int remedyCount() const { return int(m_remedy_shown); }
    // The MTP line of the shown rung ("" for a model without an MTP head).
    QString mtpText() const;
    // The growth line ("" unless the launch window is shown).
    QString growthText() const;

Q_SIGNALS:
    void remedyChosen(const headroom::PlanOptions& options);
    // The smaller-quant remedy: switch to that model ("catalog-id:QUANT" or a file path).
    void quantChosen(const QString& model_ref, const headroom::PlanOptions& options);
    // The rung now explained (an index into the plan's rungs): the export follows it.
    void rungShown(int row);

protected:
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    void render();
    static void fitHeight(QLabel* l);
    // The rung combo at a fixed size, grown to its widest entries (see setPlan).
    void fitRungCombo();
    void setRemedyCount(size_t n);
    void renderMtp(const Rung& r);

    Plan m_plan;
    bool m_has_plan = false;
    int m_row = -1;
    QComboBox* m_rungs;
    QLabel* m_sentence;
    QLabel* m_numbers;
    QWidget* m_remedy_box;
    QVBoxLayout* m_remedy_layout;
    std::vector<QPushButton*> m_remedy_buttons;
    size_t m_remedy_shown = 0; // the first m_remedy_shown buttons are shown
    std::optional<Plan> m_without_mtp;
    QLabel* m_mtp;
    QLabel* m_growth;
    QString m_growth_text;
    QPushButton* m_mtp_button;
};

} // namespace headroom::ui
