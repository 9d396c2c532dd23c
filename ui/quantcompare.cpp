#include "quantcompare.h"

#include "core/policy/variant.h"

#include <QFont>

#include <limits>

namespace headroom::ui {

namespace {

Bytes sizeOf(const ModelShape& m) {
    return m.file_bytes ? m.file_bytes : m.weightBytes();
}

} // namespace

QuantComparisonResult compareQuants(const PlanFunction& plan, const std::vector<ModelShape>& quants,
                                    const HardwareSnapshot& hw, const PlanOptions& options) {
    QuantComparisonResult out;
    if (!plan) return out;
    PlanOptions fit = options;
    fit.context.reset();
    fit.requested_window.reset();
    std::optional<Plan> first;
    for (const ModelShape& m : quants) {
        QuantComparison c;
        c.quant = qs(m.quant.empty() ? m.id : m.quant);
        c.id = qs(m.id);
        c.file_bytes = sizeOf(m);
        auto p = plan(m, hw, fit);
        if (!p) {
            c.error = qs(p.error().message);
            out.rows.push_back(c);
            continue;
        }
        for (const Rung& r : p->rungs)
            if (r.verdict == Verdict::Resident)
                c.largest_resident = std::max(c.largest_resident, r.requested_context);
        const Decision& d = p->decision;
        if (!d.refused && d.rung_index >= 0 && d.rung_index < int(p->rungs.size())) {
            const Rung& r = p->rungs[size_t(d.rung_index)];
            c.launch_context = r.requested_context;
            c.launch_verdict = r.verdict;
            c.decode_tok_s = r.speed.decode_tok_s;
        }
        if (!first) first = std::move(*p);
        out.rows.push_back(c);
    }
    if (!first) return out;
    // The variant policy prices candidates at its own windows (the large target and the floor,
    // capped at the trained context): the plan's total for the rung at that context.
    std::vector<policy::VariantCandidate> candidates;
    candidates.reserve(quants.size());
    for (const ModelShape& m : quants)
        candidates.push_back({m.quant, sizeOf(m)});
    const auto need = [&](std::size_t i, std::uint32_t window) -> Bytes {
        PlanOptions o = options;
        o.context = window;
        o.requested_window.reset();
        auto p = plan(quants[i], hw, o);
        if (p)
            for (const Rung& r : p->rungs)
                if (r.requested_context == window) return r.totals.total();
        return std::numeric_limits<Bytes>::max(); // cannot be priced: never chosen
    };
    policy::VariantBudget budget;
    budget.usable_vram = first->budget.vramUsable();
    budget.ram_available = first->budget.ram_usable;
    budget.n_ctx_train = quants.front().n_ctx_train;
    auto choice = policy::selectVariant(candidates, need, budget);
    if (choice && *choice) {
        out.recommended = int((*choice)->index);
        out.rows[size_t(out.recommended)].recommended = true;
        out.reason = QString::fromLatin1(policy::variantReasonName((*choice)->reason));
        out.window = (*choice)->window;
    }
    return out;
}

QuantCompareModel::QuantCompareModel(QObject* parent) : QAbstractTableModel(parent) {}

void QuantCompareModel::setComparison(QuantComparisonResult result) {
    beginResetModel();
    m_result = std::move(result);
    endResetModel();
}

void QuantCompareModel::clear() {
    setComparison({});
}

void QuantCompareModel::setCurrentId(const QString& id) {
    if (m_current == id) return;
    m_current = id;
    if (rowCount() > 0) Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int QuantCompareModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_result.rows.size());
}

int QuantCompareModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant QuantCompareModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const QuantComparison& c = m_result.rows[size_t(index.row())];
    const int col = index.column();
    if (role == Qt::DisplayRole) {
        switch (col) {
        case Quant:
            return c.recommended ? tr("%1 ★").arg(c.quant) : c.quant;
        case Size:
            return bytesText(c.file_bytes);
        case LargestResident:
            if (!c.error.isEmpty()) return tr("error");
            return c.largest_resident ? tokensText(c.largest_resident) : tr("none");
        case Decode:
            if (!c.error.isEmpty() || !c.launch_context) return tr("—");
            return tr("%1 tok/s").arg(c.decode_tok_s, 0, 'f', c.decode_tok_s < 10 ? 1 : 0);
        }
    }
    if (role == BytesRole && col == Size) return qulonglong(c.file_bytes);
    if (role == ContextRole) {
        if (col == LargestResident) return qulonglong(c.largest_resident);
        if (col == Decode) return qulonglong(c.launch_context);
    }
    if (role == SortRole && col == Decode) return c.decode_tok_s;
    if (role == ChosenRole) return c.recommended;
    if (role == Qt::FontRole && c.id == m_current) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::ToolTipRole) {
        if (!c.error.isEmpty()) return tr("Cannot be priced: %1").arg(c.error);
        QString tip = tr("%1: %2 file; largest context with every byte on the GPU: %3; launch "
                         "at %4 (%5), decode %6 tok/s")
                          .arg(c.quant, exactBytesText(c.file_bytes),
                               c.largest_resident ? tokensText(c.largest_resident) : tr("none"),
                               c.launch_context ? tokensText(c.launch_context) : tr("none"),
                               QString::fromLatin1(verdictName(c.launch_verdict)))
                          .arg(c.decode_tok_s, 0, 'f', 1);
        if (c.recommended)
            tip += tr("\nRecommended (%1 at %2): the best quant this machine holds")
                       .arg(m_result.reason, tokensText(m_result.window));
        return tip;
    }
    return {};
}

QVariant QuantCompareModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Quant:
            return tr("★ marks the quant the variant policy recommends for this machine");
        case LargestResident:
            return tr("Largest context rung with every byte on the GPU");
        case Decode:
            return tr("Estimated decode speed at the launch window");
        }
        return {};
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case Quant:
        return tr("Quant");
    case Size:
        return tr("Size");
    case LargestResident:
        return tr("Resident to");
    case Decode:
        return tr("Decode");
    }
    return {};
}

} // namespace headroom::ui
