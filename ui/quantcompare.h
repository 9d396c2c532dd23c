// The quants of one model side by side on this machine and these options: each quant's file
// size, the largest rung it holds resident, its decode speed at its launch window, and which one
// the variant policy (core/policy/variant.h, selectVariant) recommends.
#pragma once

#include "metatypes.h"
#include "plancontroller.h"

#include <QAbstractTableModel>

#include <vector>

namespace headroom::ui {

struct QuantComparison {
    QString quant;
    QString id; // what selectModelId / the quant combo switch to
    Bytes file_bytes = 0;
    QString error;                      // the planner could not price it
    std::uint32_t largest_resident = 0; // largest rung with every byte on the GPUs (0: none)
    std::uint32_t launch_context = 0;   // the launch window (0: refused)
    Verdict launch_verdict = Verdict::Refused;
    double decode_tok_s = 0; // at the launch window (0: refused)
    bool recommended = false;
};

struct QuantComparisonResult {
    std::vector<QuantComparison> rows;
    int recommended = -1;     // index into rows (-1: no quant fits, even spilled)
    QString reason;           // the variant policy's reason ("best-large-window", …)
    std::uint32_t window = 0; // the window the policy priced its choice at
};

// Prices every quant (`quants` ordered best first: largest file first) with `plan`. The fit
// options drop the user's exact -c, as the picker's fit column does: each quant is compared at
// its own launch decision. The recommendation is selectVariant's, with each candidate's need at
// a window the plan's total at that context and the budget the plan's own (usable VRAM, RAM).
QuantComparisonResult compareQuants(const PlanFunction& plan, const std::vector<ModelShape>& quants,
                                    const HardwareSnapshot& hw, const PlanOptions& options);

class QuantCompareModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Quant, Size, LargestResident, Decode, ColumnCount };

    explicit QuantCompareModel(QObject* parent = nullptr);

    void setComparison(QuantComparisonResult result);
    void clear();
    const QuantComparisonResult& comparison() const { return m_result; }
    // Which row shows the quant the model list has current (drawn bold).
    void setCurrentId(const QString& id);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    QuantComparisonResult m_result;
    QString m_current;
};

} // namespace headroom::ui
