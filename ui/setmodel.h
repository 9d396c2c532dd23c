// Memory of several models loaded together (core/model_set.h): one row per device in llama.cpp's
// order, then host RAM; one column per member — the bytes its launched rung holds there — then
// what the set leaves free and what the machine lets a plan use. GiB (double) under DisplayRole
// for the chart, exact bytes under BytesRole, like the rung models.
#pragma once

#include "metatypes.h"

#include "core/model_set.h"

#include <QAbstractTableModel>

namespace headroom::ui {

class SetMemoryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;

    // Resets the model: the members, and so the columns, may differ.
    void setSet(const ModelSet& set);
    void clear();
    const ModelSet& set() const { return m_set; }

    int memberCount() const { return int(m_set.plans.size()); }
    int freeColumn() const { return memberCount(); }
    int usableColumn() const { return memberCount() + 1; }
    // The member's display name (its model's name, else its id).
    QString memberName(int member) const;
    QString poolName(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    // Bytes of a cell: a member's use, the free bytes (0 when the pool is over-committed) or the
    // usable budget (negative when nothing is usable).
    SignedBytes cellBytes(int row, int column) const;

private:
    const SetUse& pool(int row) const;

    ModelSet m_set;
};

} // namespace headroom::ui
