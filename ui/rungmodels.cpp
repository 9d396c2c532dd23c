#include "rungmodels.h"

namespace headroom::ui {

namespace {

QString provenanceOf(const Plan& plan) {
    return QStringLiteral("priced from the %1 of %2")
        .arg(plan.model.source == ShapeSource::GgufHeader ? QStringLiteral("GGUF header")
             : plan.model.source == ShapeSource::Catalog  ? QStringLiteral("catalog entry")
                                                          : QStringLiteral("generated shape"),
             qs(plan.model.name.empty() ? plan.model.id : plan.model.name));
}

bool isChosen(const Plan& plan, int row) {
    return !plan.decision.refused && plan.decision.rung_index == row;
}

// Same rows and devices: a new plan can be shown by changing values only.
bool samePlanLayout(const Plan& a, const Plan& b) {
    return a.rungs.front().devices.size() == b.rungs.front().devices.size() &&
           a.hardware.uma == b.hardware.uma;
}

} // namespace

QString rungLabel(const Plan& plan, int row) {
    const Rung& r = plan.rungs[static_cast<size_t>(row)];
    QString label = tokensText(r.context);
    if (isChosen(plan, row)) return QStringLiteral("▸") + label;
    if (r.verdict == Verdict::Refused) return label + QStringLiteral("✕");
    return label;
}

// ---- RungMemoryModel -------------------------------------------------------------------------

RungMemoryModel::RungMemoryModel(int device, QObject* parent)
    : PlanRungModel(parent), m_device(device) {}

void PlanRungModel::setPlan(const Plan& plan) {
    // Same rungs, new numbers (an option changed): update in place, so the chart mappers only
    // move bars instead of rebuilding every bar set — the difference between a frame and two.
    if (plan.rungs.size() == m_plan.rungs.size() && !plan.rungs.empty() &&
        samePlanLayout(plan, m_plan)) {
        m_plan = plan;
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
        Q_EMIT headerDataChanged(Qt::Vertical, 0, rowCount() - 1);
        return;
    }
    beginResetModel();
    m_plan = plan;
    endResetModel();
}

void RungMemoryModel::setDevice(int device) {
    beginResetModel();
    m_device = device;
    endResetModel();
}

QString RungMemoryModel::deviceName() const {
    if (m_device == kHost)
        return m_plan.hardware.uma ? tr("Unified pool (host side)") : tr("Host RAM");
    if (!m_plan.rungs.empty() && m_device < int(m_plan.rungs.front().devices.size()))
        return qs(m_plan.rungs.front().devices[size_t(m_device)].name);
    if (m_device < int(m_plan.hardware.gpus.size()))
        return qs(m_plan.hardware.gpus[size_t(m_device)].name);
    return tr("GPU%1").arg(m_device);
}

QString RungMemoryModel::columnName(int column) {
    switch (column) {
    case Label:
        return tr("Context");
    case Weights:
        return tr("Weights");
    case Experts:
        return tr("Experts");
    case Kv:
        return tr("KV cache");
    case RecurrentState:
        return tr("Recurrent state");
    case Compute:
        return tr("Compute");
    case Output:
        return tr("Output");
    case Overhead:
        return tr("Overhead");
    case Mmproj:
        return tr("mmproj");
    case Draft:
        return tr("Draft model");
    case Budget:
        return tr("Budget");
    case Used:
        return tr("Used");
    case Index:
        return tr("Index");
    }
    return {};
}

int RungMemoryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_plan.rungs.size());
}

int RungMemoryModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

namespace {

// One cell of a device's memory (a RungMemoryModel column) on one rung; the budget is signed.
SignedBytes deviceCell(const Rung& r, int device, int column) {
    if (column == RungMemoryModel::Budget) {
        if (device == RungMemoryModel::kHost) return r.host_budget_bytes;
        if (device >= 0 && device < int(r.devices.size()))
            return r.devices[size_t(device)].budget_bytes;
        return 0;
    }
    const Terms* t = device == RungMemoryModel::kHost ? &r.host
                     : device >= 0 && device < int(r.devices.size())
                         ? &r.devices[size_t(device)].terms
                         : nullptr;
    if (!t) return 0;
    using C = RungMemoryModel;
    switch (column) {
    case C::Weights:
        return toSigned(satSub(t->weights, t->experts));
    case C::Experts:
        return toSigned(t->experts);
    case C::Kv:
        return toSigned(t->kv());
    case C::RecurrentState:
        return toSigned(t->recurrent_state);
    case C::Compute:
        return toSigned(t->compute);
    case C::Output:
        return toSigned(t->output);
    case C::Overhead:
        return toSigned(t->overhead);
    case C::Mmproj:
        return toSigned(t->mmproj);
    case C::Draft:
        return toSigned(t->draft);
    case C::Used:
        return toSigned(t->total());
    }
    return 0;
}

} // namespace

SignedBytes RungMemoryModel::cellBytes(int row, int column) const {
    if (row < 0 || row >= rowCount()) return 0;
    return deviceCell(m_plan.rungs[size_t(row)], m_device, column);
}

QVariant RungMemoryModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row(), col = index.column();
    const Rung& r = m_plan.rungs[size_t(row)];
    switch (role) {
    case Qt::DisplayRole:
        if (col == Label) return rungLabel(m_plan, row);
        if (col == Index) return double(row);
        return toGiB(cellBytes(row, col));
    case BytesRole:
    case SortRole:
        if (col == Label) return qulonglong(r.context);
        if (col == Index) return row;
        return qlonglong(cellBytes(row, col));
    case ContextRole:
        return qulonglong(r.context);
    case VerdictRole:
        return QString::fromLatin1(verdictName(r.verdict));
    case ChosenRole:
        return isChosen(m_plan, row);
    case Qt::ToolTipRole: {
        if (col == Label)
            return tr("%1 tokens (requested %2): %3")
                .arg(r.context)
                .arg(r.requested_context)
                .arg(QString::fromLatin1(verdictName(r.verdict)));
        const SignedBytes b = cellBytes(row, col);
        QString where = deviceName();
        QString source;
        if (col == Budget) {
            if (m_device == kHost)
                source = tr("host RAM from %1").arg(qs(m_plan.hardware.ram_provenance));
            else if (m_device < int(m_plan.budget.devices.size()))
                source = tr("usable after a %1 margin; figure from %2")
                             .arg(bytesText(m_plan.budget.devices[size_t(m_device)].margin),
                                  qs(m_plan.budget.devices[size_t(m_device)].provenance));
        } else {
            source = provenanceOf(m_plan);
        }
        const QString amount = b < 0 ? signedBytesText(b) : exactBytesText(Bytes(b));
        return tr("%1 at %2 on %3: %4\n%5")
            .arg(columnName(col), tokensText(r.context), where, amount, source);
    }
    }
    return {};
}

QVariant RungMemoryModel::headerData(int section, Qt::Orientation o, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (o == Qt::Horizontal) return columnName(section);
    if (section >= 0 && section < rowCount()) return rungLabel(m_plan, section);
    return {};
}

// ---- SpeedModel ------------------------------------------------------------------------------

SpeedModel::SpeedModel(QObject* parent) : PlanRungModel(parent) {}

int SpeedModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_plan.rungs.size());
}

int SpeedModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SpeedModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Rung& r = m_plan.rungs[size_t(index.row())];
    if (role == Qt::DisplayRole || role == SortRole) {
        switch (index.column()) {
        case X:
            return double(index.row());
        case Decode:
            return r.speed.decode_tok_s;
        case Prefill:
            return r.speed.prefill_tok_s;
        case Label:
            return rungLabel(m_plan, index.row());
        case DecodeLow:
            return r.speed.decode_low;
        case DecodeHigh:
            return r.speed.decode_high;
        }
    }
    if (role == ContextRole) return qulonglong(r.context);
    if (role == ChosenRole) return isChosen(m_plan, index.row());
    if (role == Qt::ToolTipRole)
        return tr("%1 (%2), estimates:\n%3")
            .arg(tokensText(r.context), QString::fromLatin1(speedClassName(r.speed.decode_class)),
                 speedDetailText(r.speed));
    return {};
}

QVariant SpeedModel::headerData(int section, Qt::Orientation o, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (o == Qt::Vertical)
        return section >= 0 && section < rowCount() ? rungLabel(m_plan, section) : QVariant();
    switch (section) {
    case X:
        return tr("Rung");
    case Decode:
        return tr("Decode tok/s");
    case Prefill:
        return tr("Prefill tok/s");
    case Label:
        return tr("Context");
    case DecodeLow:
        return tr("Decode low");
    case DecodeHigh:
        return tr("Decode high");
    }
    return {};
}

// ---- ExpertSplitModel ------------------------------------------------------------------------

ExpertSplitModel::ExpertSplitModel(QObject* parent) : PlanRungModel(parent) {}

bool ExpertSplitModel::applicable() const {
    for (const Rung& r : m_plan.rungs)
        if (r.expert_split.applicable) return true;
    return false;
}

int ExpertSplitModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_plan.rungs.size());
}

int ExpertSplitModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

SignedBytes ExpertSplitModel::cellBytes(int row, int column) const {
    if (row < 0 || row >= rowCount()) return 0;
    const ExpertSplit& s = m_plan.rungs[size_t(row)].expert_split;
    switch (column) {
    case ExpertSlots:
        return toSigned(satMul(s.expert_slots, s.bytes_per_expert));
    case KvPages:
        return toSigned(satMul(s.pages, s.bytes_per_page));
    case Budget:
        return s.budget_bytes;
    }
    return 0;
}

QVariant ExpertSplitModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row(), col = index.column();
    const Rung& r = m_plan.rungs[size_t(row)];
    const ExpertSplit& s = r.expert_split;
    switch (role) {
    case Qt::DisplayRole:
        if (col == Label) return rungLabel(m_plan, row);
        if (col == Index) return double(row);
        return toGiB(cellBytes(row, col));
    case BytesRole:
    case SortRole:
        if (col == Index) return row;
        return col == Label ? QVariant(qulonglong(r.context))
                            : QVariant(qlonglong(cellBytes(row, col)));
    case ContextRole:
        return qulonglong(r.context);
    case ChosenRole:
        return isChosen(m_plan, row);
    case Qt::ToolTipRole:
        if (!s.applicable)
            return tr("No expert split at %1 (dense model or CPU only)").arg(tokensText(r.context));
        if (col == ExpertSlots)
            return tr("%1 expert slots of %2 on the GPU × %3 each = %4")
                .arg(s.expert_slots)
                .arg(s.total_experts)
                .arg(bytesText(s.bytes_per_expert), exactBytesText(Bytes(cellBytes(row, col))));
        if (col == KvPages)
            return tr("%1 KV pages × %2 each = %3")
                .arg(s.pages)
                .arg(bytesText(s.bytes_per_page), exactBytesText(Bytes(cellBytes(row, col))));
        if (col == Budget)
            return tr("GPU room for experts + KV after weights and compute: %1")
                .arg(signedBytesText(s.budget_bytes));
        return tokensText(r.context);
    }
    return {};
}

QVariant ExpertSplitModel::headerData(int section, Qt::Orientation o, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (o == Qt::Vertical)
        return section >= 0 && section < rowCount() ? rungLabel(m_plan, section) : QVariant();
    switch (section) {
    case Label:
        return tr("Context");
    case ExpertSlots:
        return tr("Expert cache");
    case KvPages:
        return tr("KV pages");
    case Budget:
        return tr("Budget");
    case Index:
        return tr("Index");
    }
    return {};
}

// ---- RungTableModel --------------------------------------------------------------------------

RungTableModel::RungTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RungTableModel::setPlan(const Plan& plan) {
    std::vector<Column> columns;
    columns.push_back({Kind::Context, 0, 0, tr("Context")});
    columns.push_back({Kind::Verdict, 0, 0, tr("Verdict")});
    const int gpus = plan.rungs.empty() ? 0 : int(plan.rungs.front().devices.size());
    for (int i = 0; i <= gpus; ++i) {
        const int device = i < gpus ? i : RungMemoryModel::kHost;
        const QString name = device == RungMemoryModel::kHost
                                 ? (plan.hardware.uma ? tr("Pool") : tr("RAM"))
                                 : qs(plan.rungs.front().devices[size_t(i)].name);
        for (int t = RungMemoryModel::Weights; t <= RungMemoryModel::LastTerm; ++t) {
            bool any = false;
            for (const Rung& r : plan.rungs)
                any = any || deviceCell(r, device, t) != 0;
            if (any)
                columns.push_back(
                    {Kind::Bytes, device, t,
                     QStringLiteral("%1 %2").arg(name, RungMemoryModel::columnName(t))});
        }
        for (int t : {int(RungMemoryModel::Used), int(RungMemoryModel::Budget)})
            columns.push_back({Kind::Bytes, device, t,
                               QStringLiteral("%1 %2").arg(name, RungMemoryModel::columnName(t))});
    }
    columns.push_back({Kind::Decode, 0, 0, tr("Decode tok/s")});
    columns.push_back({Kind::Prefill, 0, 0, tr("Prefill tok/s")});
    const bool sameShape =
        columns.size() == m_columns.size() && plan.rungs.size() == m_plan.rungs.size() &&
        std::equal(columns.begin(), columns.end(), m_columns.begin(),
                   [](const Column& a, const Column& b) { return a.header == b.header; });
    if (sameShape && !plan.rungs.empty()) {
        // Same rows and columns: values only, so the view keeps its sort and selection.
        m_plan = plan;
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
        return;
    }
    beginResetModel();
    m_plan = plan;
    m_columns = std::move(columns);
    endResetModel();
}

int RungTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_plan.rungs.size());
}

int RungTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_columns.size());
}

SignedBytes RungTableModel::bytesAt(int row, const Column& c) const {
    return deviceCell(m_plan.rungs[size_t(row)], c.device, c.term);
}

QVariant RungTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Rung& r = m_plan.rungs[size_t(index.row())];
    const Column& c = m_columns[size_t(index.column())];
    switch (role) {
    case Qt::DisplayRole:
        switch (c.kind) {
        case Kind::Context:
            return rungLabel(m_plan, index.row());
        case Kind::Verdict:
            return QString::fromLatin1(verdictName(r.verdict));
        case Kind::Bytes:
            return QString::number(toGiB(bytesAt(index.row(), c)), 'f', 2);
        // The column header says tok/s; the cell shows the estimate and its range.
        case Kind::Decode:
            return speedText(r.speed.decode_tok_s, r.speed.decode_low, r.speed.decode_high, 1)
                .remove(QStringLiteral(" tok/s"));
        case Kind::Prefill:
            return speedText(r.speed.prefill_tok_s, r.speed.prefill_low, r.speed.prefill_high, 0)
                .remove(QStringLiteral(" tok/s"));
        }
        return {};
    case SortRole:
    case BytesRole:
        switch (c.kind) {
        case Kind::Context:
            return qulonglong(r.context);
        case Kind::Verdict:
            return int(r.verdict);
        case Kind::Bytes:
            return qlonglong(bytesAt(index.row(), c));
        case Kind::Decode:
            return r.speed.decode_tok_s;
        case Kind::Prefill:
            return r.speed.prefill_tok_s;
        }
        return {};
    case Qt::TextAlignmentRole:
        return c.kind == Kind::Context || c.kind == Kind::Verdict
                   ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                   : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::ToolTipRole:
        if (c.kind == Kind::Bytes) {
            const SignedBytes b = bytesAt(index.row(), c);
            return tr("%1 at %2: %3")
                .arg(c.header, tokensText(r.context),
                     b < 0 ? signedBytesText(b) : exactBytesText(Bytes(b)));
        }
        if (c.kind == Kind::Decode || c.kind == Kind::Prefill) return speedDetailText(r.speed);
        return {};
    case ContextRole:
        return qulonglong(r.context);
    case ChosenRole:
        return isChosen(m_plan, index.row());
    }
    return {};
}

QVariant RungTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || section < 0 || section >= columnCount()) return {};
    if (role == Qt::DisplayRole) {
        const Column& c = m_columns[size_t(section)];
        return c.kind == Kind::Bytes ? tr("%1 (GiB)").arg(c.header) : c.header;
    }
    return {};
}

MoeCurveModel::MoeCurveModel(QObject* parent) : QAbstractTableModel(parent) {}

void MoeCurveModel::setPlan(const Plan& plan) {
    m_plan = plan;
    m_applicable = plan.model.isMoe() && !plan.rungs.empty() && !plan.hardware.gpus.empty() &&
                   plan.decision.context > 0;
    m_stale = true;
    if (!m_applicable && !m_curve.points.empty()) {
        beginResetModel();
        m_curve = {};
        endResetModel();
    }
}

void MoeCurveModel::refresh() {
    if (!m_stale) return;
    m_stale = false;
    MoeCurve curve;
    if (m_applicable) {
        // Priced at the plan's launch window, as the CLI's plan --moe-curve does without -c.
        PlanOptions o = m_plan.options;
        o.context = m_plan.decision.context;
        if (auto c = moeCurve(m_plan.model, m_plan.hardware, o)) curve = std::move(*c);
    }
    if (curve.points.size() == m_curve.points.size() && !curve.points.empty()) {
        m_curve = std::move(curve);
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_curve = std::move(curve);
    endResetModel();
}

int MoeCurveModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_curve.points.size());
}

int MoeCurveModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MoeCurveModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const MoeCurvePoint& p = m_curve.points[size_t(index.row())];
    if (role == Qt::DisplayRole || role == SortRole) {
        switch (index.column()) {
        case NCpuMoe:
            return double(p.n_cpu_moe);
        case Decode:
            return p.speed.decode_tok_s;
        case DecodeLow:
            return p.speed.decode_low;
        case DecodeHigh:
            return p.speed.decode_high;
        case Prefill:
            return p.speed.prefill_tok_s;
        case GpuGiB:
            return toGiB(SignedBytes(p.gpu_bytes));
        }
    }
    if (role == Qt::ToolTipRole)
        return tr("--n-cpu-moe %1 at %2 (%3): GPU %4, host RAM %5\n%6")
            .arg(p.n_cpu_moe)
            .arg(tokensText(m_curve.context), QString::fromLatin1(verdictName(p.verdict)),
                 bytesText(p.gpu_bytes), bytesText(p.host_bytes), speedDetailText(p.speed));
    return {};
}

QVariant MoeCurveModel::headerData(int section, Qt::Orientation o, int role) const {
    if (role != Qt::DisplayRole || o != Qt::Horizontal) return {};
    switch (section) {
    case NCpuMoe:
        return tr("--n-cpu-moe");
    case Decode:
        return tr("Decode tok/s");
    case DecodeLow:
        return tr("Decode low");
    case DecodeHigh:
        return tr("Decode high");
    case Prefill:
        return tr("Prefill tok/s");
    case GpuGiB:
        return tr("GPU GiB");
    }
    return {};
}

} // namespace headroom::ui
