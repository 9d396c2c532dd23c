// Item models over a Plan's rungs: what the charts map and the tables show. Each owns a copy of
// the Plan (setPlan resets the model); numeric columns give GiB (double) under DisplayRole, for
// the chart mappers, and exact bytes under BytesRole; tooltips say where a number came from.
#pragma once

#include "core/planner/moe_curve.h"
#include "metatypes.h"

#include <QAbstractTableModel>

namespace headroom::ui {

// "64K", with "▸" on the chosen rung and "✕" on a refused one: the rung as tables and lists name
// it. (The charts' axes show the bare context and draw the verdict on the bars: a category label
// that changes with the verdict relays the chart out.)
QString rungLabel(const Plan& plan, int row);

// The plan every rung model shows, and the one way a new plan arrives: with the same rungs (an
// option changed) the cells update in place, so chart mappers move bars instead of rebuilding
// every bar set — the difference between a frame and two; otherwise the model resets.
class PlanRungModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;
    void setPlan(const Plan& plan);

protected:
    Plan m_plan;
};

// Memory of one device (or of host RAM) by term, one row per rung.
class RungMemoryModel : public PlanRungModel {
    Q_OBJECT
public:
    enum Column {
        Label,
        Weights, // dense weights (routed experts are their own column)
        Experts,
        Kv,
        RecurrentState,
        Compute,
        Output,
        Overhead,
        Mmproj,
        Draft, // the draft model (-md), all of its terms
        Budget,
        Used,
        Index, // the row as a number: the x of budget lines drawn over the bars
        ColumnCount,
        LastTerm = Draft // the last column that is a term of Terms::total()
    };
    static constexpr int kHost = -1;

    explicit RungMemoryModel(int device = kHost, QObject* parent = nullptr);

    void setDevice(int device);
    int device() const { return m_device; }
    QString deviceName() const;
    static QString columnName(int column);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    // Bytes of a cell (budget is signed: an over-committed device is negative).
    SignedBytes cellBytes(int row, int column) const;

private:
    int m_device;
};

// Decode and prefill speed per rung (priced at the rung's context depth), with the decode range.
// X is the rung's index so rungs sit evenly spaced.
class SpeedModel : public PlanRungModel {
    Q_OBJECT
public:
    enum Column { X, Decode, Prefill, Label, DecodeLow, DecodeHigh, ColumnCount };
    explicit SpeedModel(QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
};

// MoE: the GPU room left after weights and compute, split between expert slots and KV pages.
class ExpertSplitModel : public PlanRungModel {
    Q_OBJECT
public:
    enum Column { Label, ExpertSlots, KvPages, Budget, Index, ColumnCount };
    explicit ExpertSplitModel(QObject* parent = nullptr);
    // Any rung where the split applies (a MoE model on a GPU).
    bool applicable() const;
    SignedBytes cellBytes(int row, int column) const;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
};

// The MoE offload curve (issue 11): one row per --n-cpu-moe value (0 … n_layer) at the plan's
// launch context, from planner/moe_curve.h: decode with its range, prefill, and the GPU bytes.
// Not applicable (no rows) for a dense model, a plan without rungs or a machine without a GPU.
// Pricing the curve plans the model n_layer + 1 times, so setPlan() only stores the plan and
// refresh() prices it: the panel refreshes while the curve is on screen, not on every keystroke.
class MoeCurveModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NCpuMoe, Decode, DecodeLow, DecodeHigh, Prefill, GpuGiB, ColumnCount };
    explicit MoeCurveModel(QObject* parent = nullptr);
    void setPlan(const Plan& plan);
    void refresh(); // prices the stored plan's curve when it changed since the last refresh
    bool applicable() const { return m_applicable; }
    std::uint32_t context() const { return m_curve.context; }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    Plan m_plan;
    bool m_applicable = false;
    bool m_stale = false;
    MoeCurve m_curve;
};

// The numbers behind the charts, one row per rung: context, verdict, every term of every device
// (GPUs, then host RAM) with its total and budget, and the speed. Terms that are zero on every
// rung of a device are left out. Cells show GiB with two decimals; SortRole and BytesRole give
// the raw values, so a sort orders by the exact figure.
class RungTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit RungTableModel(QObject* parent = nullptr);
    void setPlan(const Plan& plan);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    enum class Kind { Context, Verdict, Bytes, Decode, Prefill };
    struct Column {
        Kind kind;
        int device = 0; // RungMemoryModel::kHost for host RAM
        int term = 0;   // a RungMemoryModel::Column
        QString header;
    };
    SignedBytes bytesAt(int row, const Column& c) const;
    Plan m_plan;
    std::vector<Column> m_columns;
};

} // namespace headroom::ui
