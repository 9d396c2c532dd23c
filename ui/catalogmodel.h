// The model picker's table: catalog entries and opened GGUF files, with a column saying whether
// each fits the current machine and options and the largest context that does. The fit column
// is computed off the GUI thread (FitWorker) and filled in as it arrives.
#pragma once

#include "metatypes.h"
#include "plancontroller.h"

#include <QAbstractTableModel>
#include <QFutureWatcher>

#include <vector>

namespace headroom::ui {

struct FitSummary {
    bool known = false;                 // not computed yet
    QString error;                      // the planner could not price it
    Verdict verdict = Verdict::Refused; // of the rung the launch policy chose
    std::uint32_t chosen_context = 0;
    std::uint32_t largest_context = 0; // largest rung that is not refused (0: none)
};

// Prices one model for the fit column: the launch decision and the largest rung that runs.
FitSummary summarizeFit(const PlanFunction& plan, const ModelShape& model,
                        const HardwareSnapshot& hw, const PlanOptions& options);

class CatalogModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // The fit column comes second: it is the answer people open the window for.
    enum Column { Name, Fit, Quant, Size, Params, NativeContext, Architecture, ColumnCount };

    explicit CatalogModel(QObject* parent = nullptr);
    ~CatalogModel() override;

    void setModels(std::vector<ModelShape> models);
    // Adds (or replaces, by id) one model — an opened GGUF; returns its row.
    int addModel(const ModelShape& model);
    const ModelShape& modelAt(int row) const { return m_models[size_t(row)]; }
    int rowOfId(const QString& id) const;

    void setPlanFunction(PlanFunction f) { m_plan_function = std::move(f); }
    // Re-prices every row for this machine and options, off the GUI thread; stale runs are
    // dropped when a newer one starts.
    void refreshFits(const HardwareSnapshot& hw, const PlanOptions& options);
    bool fitsPending() const;
    const FitSummary& fitAt(int row) const { return m_fits[size_t(row)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

Q_SIGNALS:
    void fitsUpdated();
    // A model was added or replaced: its fit is unknown until the next refreshFits().
    void fitsNeeded();

private:
    std::vector<ModelShape> m_models;
    std::vector<FitSummary> m_fits;
    PlanFunction m_plan_function;
    quint64 m_generation = 0;
    QFutureWatcher<std::vector<FitSummary>>* m_watcher = nullptr;
};

} // namespace headroom::ui
