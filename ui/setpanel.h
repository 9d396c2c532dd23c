// Several models loaded together (llama-swap groups, llama-server's router): the models the user
// adds are planned as one set on this machine and options (planModelSet, core/model_set.h), off
// the GUI thread. The list shows each member's context and verdict; the set's chart (SetChart,
// shown by the charts panel) draws what the set holds on each device and says why a set does not
// fit.
#pragma once

#include "metatypes.h"

#include "core/model_set.h"
#include "core/result.h"

#include <QFutureWatcher>
#include <QWidget>

#include <optional>
#include <vector>

QT_BEGIN_NAMESPACE
class QLabel;
class QListWidget;
class QPushButton;
QT_END_NAMESPACE

namespace headroom::ui {

class SetChart;
class SetMemoryModel;

class SetPanel : public QWidget {
    Q_OBJECT
public:
    explicit SetPanel(QWidget* parent = nullptr);
    ~SetPanel() override;

    // The model "Add to the set" adds (the picker's selection); nullptr: nothing to add.
    void setCandidate(const ModelShape* model);
    // False when the set already holds kMaxSetModels models.
    bool addMember(const ModelShape& model);
    void removeMember(int index);
    void clearMembers();
    int memberCount() const { return int(m_members.size()); }
    QStringList memberIds() const;

    // The machine and the options every member is planned with (each member's context is the
    // set's choice; a draft model and a projector file belong to one model and are left out).
    void setInputs(const HardwareSnapshot& hw, const PlanOptions& options);

    SetMemoryModel* model() const { return m_model; }
    // The set's chart: a child of the panel (hidden) until a charts panel adopts it.
    SetChart* chart() const { return m_chart; }
    QString summaryText() const;
    // A set is being planned (its result not shown yet).
    bool isPlanning() const { return m_watcher != nullptr; }

Q_SIGNALS:
    // The result of the latest inputs is shown (a set, an error, or nothing to plan).
    void setShown();

private:
    void replan();
    void showResult(const Result<ModelSet>& result);
    void syncButtons();

    std::vector<ModelShape> m_members;
    std::optional<ModelShape> m_candidate;
    std::optional<HardwareSnapshot> m_hardware;
    PlanOptions m_options;
    quint64 m_generation = 0;
    QFutureWatcher<Result<ModelSet>>* m_watcher = nullptr;
    QListWidget* m_list;
    QPushButton* m_add;
    QPushButton* m_remove;
    QPushButton* m_clear;
    QLabel* m_hint;
    SetMemoryModel* m_model;
    SetChart* m_chart;
};

// What a planned set says: whether it fits (resident or with a spill), each member's context,
// verdict and bytes, and the blocked member's reason when it does not fit.
QString setSummaryText(const ModelSet& set);

} // namespace headroom::ui
