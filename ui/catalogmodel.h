// The model picker's table: one row per model as people think of them — a catalog entry or an
// opened GGUF file with the other quants beside it — holding every quant of that model, one of
// them current; with a column saying whether the current quant fits the machine and options and
// the largest context that does. The fit column is computed off the GUI thread and filled in as
// it arrives.
#pragma once

#include "core/model_ranking.h"
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
    ModelStanding standing;            // what the Fit column sorts by (core/model_ranking.h)
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

    // Catalog shapes, one per quant: the quants of one entry ("id" and "id:QUANT") share a row,
    // its current quant the one with the bare id (what `--model ID` plans).
    void setModels(std::vector<ModelShape> models);
    // Adds one model — an opened GGUF — with its sibling quants (ModelShape::siblings) in one
    // row; a model already in a row (one of its quants, by id) replaces that quant and makes it
    // current. Returns its row.
    int addModel(const ModelShape& model);
    // The current quant of the row.
    const ModelShape& modelAt(int row) const;
    // The row holding a quant with this id (-1: none).
    int rowOfId(const QString& id) const;

    // Every quant of the row, largest file first (the variant policy's "best first").
    const std::vector<ModelShape>& quantsAt(int row) const { return m_rows[size_t(row)].quants; }
    int currentQuant(int row) const { return m_rows[size_t(row)].current; }
    // Makes quant `index` of the row current; its fit is re-priced (fitsNeeded). False when out
    // of range.
    bool setCurrentQuant(int row, int index);
    // The quant of the row with this id (-1: none).
    int quantIndexOfId(int row, const QString& id) const;
    // What stays the same across the row's quants: the catalog id, or the path the row was
    // opened with. Settings that belong to a model (its context target) are kept under it.
    QString rowKey(int row) const { return m_rows[size_t(row)].key; }

    void setPlanFunction(PlanFunction f) { m_plan_function = std::move(f); }
    const PlanFunction& planFunction() const { return m_plan_function; }
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
    struct Row {
        QString key;
        std::vector<ModelShape> quants;
        int current = 0;
    };
    std::vector<Row> m_rows;
    std::vector<FitSummary> m_fits;
    // Per row, higher ranks better under ranksAbove() (equal standings share one); 0 = unranked.
    // The Fit column sorts by it, so "best for this machine" is the CLI's catalog order.
    std::vector<qulonglong> m_rank;
    void rankFits();
    PlanFunction m_plan_function;
    quint64 m_generation = 0;
    QFutureWatcher<std::vector<FitSummary>>* m_watcher = nullptr;
};

} // namespace headroom::ui
