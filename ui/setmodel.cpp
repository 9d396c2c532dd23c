#include "setmodel.h"

#include <algorithm>

namespace headroom::ui {

void SetMemoryModel::setSet(const ModelSet& set) {
    beginResetModel();
    m_set = set;
    endResetModel();
}

void SetMemoryModel::clear() {
    setSet(ModelSet{});
}

QString SetMemoryModel::memberName(int member) const {
    if (member < 0 || member >= memberCount()) return {};
    const ModelShape& m = m_set.plans[size_t(member)].model;
    return qs(m.name.empty() ? m.id : m.name);
}

const SetUse& SetMemoryModel::pool(int row) const {
    return row < int(m_set.devices.size()) ? m_set.devices[size_t(row)] : m_set.host;
}

QString SetMemoryModel::poolName(int row) const {
    if (row < 0 || row >= rowCount()) return {};
    return qs(pool(row).name);
}

int SetMemoryModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || m_set.plans.empty()) return 0;
    return int(m_set.devices.size()) + 1;
}

int SetMemoryModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() || m_set.plans.empty() ? 0 : memberCount() + 2;
}

SignedBytes SetMemoryModel::cellBytes(int row, int column) const {
    if (row < 0 || row >= rowCount() || column < 0 || column >= columnCount()) return 0;
    const SetUse& p = pool(row);
    if (column == usableColumn()) return p.usable;
    if (column == freeColumn()) return std::max<SignedBytes>(0, p.usable - toSigned(p.bytes));
    const Rung* r = launchedRung(m_set.plans[size_t(column)]);
    if (!r) return 0;
    const bool host = row >= int(m_set.devices.size());
    if (host) return toSigned(r->host_bytes);
    return size_t(row) < r->devices.size() ? toSigned(r->devices[size_t(row)].bytes) : 0;
}

QVariant SetMemoryModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row(), col = index.column();
    const SignedBytes b = cellBytes(row, col);
    switch (role) {
    case Qt::DisplayRole:
        return toGiB(b);
    case BytesRole:
    case SortRole:
        return qlonglong(b);
    case Qt::ToolTipRole: {
        const SetUse& p = pool(row);
        if (col == usableColumn())
            return tr("%1: %2 usable by the set").arg(poolName(row), signedBytesText(b));
        if (col == freeColumn())
            return tr("%1: %2 of %3 used by the set, %4 free")
                .arg(poolName(row), bytesText(p.bytes), signedBytesText(p.usable),
                     bytesText(Bytes(b)));
        const Rung* r = launchedRung(m_set.plans[size_t(col)]);
        if (!r) return tr("%1 has no launch beside the others").arg(memberName(col));
        return tr("%1 at -c %2 (%3): %4 on %5")
            .arg(memberName(col))
            .arg(r->requested_context)
            .arg(QString::fromLatin1(verdictName(r->verdict)), bytesText(Bytes(b)), poolName(row));
    }
    default:
        return {};
    }
}

QVariant SetMemoryModel::headerData(int section, Qt::Orientation o, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (o == Qt::Vertical) return poolName(section);
    if (section == freeColumn()) return tr("Free");
    if (section == usableColumn()) return tr("Usable");
    return memberName(section);
}

} // namespace headroom::ui
