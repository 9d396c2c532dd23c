#include "catalogmodel.h"

#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <memory>

#include <QColor>
#include <QGuiApplication>
#include <QPalette>

namespace headroom::ui {

FitSummary summarizeFit(const PlanFunction& plan, const ModelShape& model,
                        const HardwareSnapshot& hw, const PlanOptions& options) {
    FitSummary f;
    f.known = true;
    Result<Plan> p = plan ? plan(model, hw, options)
                          : Result<Plan>(makeError(ErrorCode::Unsupported, "no planner"));
    if (!p) {
        f.error = qs(p.error().message);
        return f;
    }
    for (const Rung& r : p->rungs)
        if (r.verdict != Verdict::Refused)
            f.largest_context = std::max(f.largest_context, r.context);
    f.standing = standingOf(*p);
    const Decision& d = p->decision;
    if (!d.refused && d.rung_index >= 0 && d.rung_index < int(p->rungs.size())) {
        f.verdict = p->rungs[size_t(d.rung_index)].verdict;
        f.chosen_context = p->rungs[size_t(d.rung_index)].context;
    } else {
        f.verdict = Verdict::Refused;
    }
    return f;
}

CatalogModel::CatalogModel(QObject* parent)
    : QAbstractTableModel(parent), m_plan_function(defaultPlanFunction()) {}

CatalogModel::~CatalogModel() {
    if (m_watcher) m_watcher->waitForFinished();
}

namespace {

// Largest file first: the variant policy reads its candidates best first, and a larger file of
// the same model is the higher-quality quant.
void sortQuants(std::vector<ModelShape>& quants) {
    std::stable_sort(quants.begin(), quants.end(), [](const ModelShape& a, const ModelShape& b) {
        return a.file_bytes > b.file_bytes;
    });
}

std::string catalogBase(const std::string& id) {
    return id.substr(0, id.find(':'));
}

} // namespace

void CatalogModel::setModels(std::vector<ModelShape> models) {
    beginResetModel();
    m_rows.clear();
    for (ModelShape& m : models) {
        const QString key = qs(m.source == ShapeSource::Catalog ? catalogBase(m.id) : m.id);
        Row* row = nullptr;
        for (Row& r : m_rows)
            if (r.key == key) row = &r;
        if (!row) {
            m_rows.push_back(Row{key, {}, 0});
            row = &m_rows.back();
        }
        row->quants.push_back(std::move(m));
    }
    for (Row& r : m_rows) {
        sortQuants(r.quants);
        for (size_t i = 0; i < r.quants.size(); ++i)
            if (qs(r.quants[i].id) == r.key) r.current = int(i);
    }
    m_fits.assign(m_rows.size(), FitSummary{});
    m_rank.clear();
    ++m_generation;
    endResetModel();
}

int CatalogModel::addModel(const ModelShape& model) {
    // A pass already running prices the old list: drop its result, and ask for a new pass so
    // the new row's fit column is filled without waiting for an option change.
    ++m_generation;
    const int existing = rowOfId(qs(model.id));
    if (existing >= 0) {
        Row& r = m_rows[size_t(existing)];
        const int q = quantIndexOfId(existing, qs(model.id));
        // The file read again keeps the siblings it knows (it was opened itself, or a sibling
        // of a file opened before: then it gets the others of the row as its siblings).
        ModelShape m = model;
        if (m.siblings.empty())
            for (const ModelShape& o : r.quants)
                if (o.id != m.id) {
                    ModelShape bare = o;
                    bare.siblings.clear();
                    m.siblings.push_back({o.quant, o.id, o.file_bytes,
                                          std::make_shared<const ModelShape>(std::move(bare))});
                }
        r.quants[size_t(q)] = std::move(m);
        r.current = q;
        m_fits[size_t(existing)] = FitSummary{};
        Q_EMIT dataChanged(index(existing, 0), index(existing, ColumnCount - 1));
        Q_EMIT fitsNeeded();
        return existing;
    }
    // The opened file and the other quants beside it, each a full shape whose siblings are the
    // rest, so the smaller-quant remedy works from whichever quant is current.
    std::vector<ModelShape> quants{model};
    for (const QuantSibling& s : model.siblings)
        if (s.shape) quants.push_back(*s.shape);
    for (ModelShape& q : quants) {
        if (q.id == model.id) continue;
        q.siblings.clear();
        for (const ModelShape& o : quants)
            if (o.id != q.id) {
                ModelShape bare = o;
                bare.siblings.clear();
                q.siblings.push_back({o.quant, o.id, o.file_bytes,
                                      std::make_shared<const ModelShape>(std::move(bare))});
            }
    }
    sortQuants(quants);
    Row r{qs(model.id), std::move(quants), 0};
    r.current = 0;
    for (size_t i = 0; i < r.quants.size(); ++i)
        if (r.quants[i].id == model.id) r.current = int(i);
    const int row = rowCount();
    beginInsertRows({}, row, row);
    m_rows.push_back(std::move(r));
    m_fits.push_back(FitSummary{});
    endInsertRows();
    Q_EMIT fitsNeeded();
    return row;
}

const ModelShape& CatalogModel::modelAt(int row) const {
    const Row& r = m_rows[size_t(row)];
    return r.quants[size_t(r.current)];
}

int CatalogModel::rowOfId(const QString& id) const {
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (quantIndexOfId(int(i), id) >= 0) return int(i);
    return -1;
}

int CatalogModel::quantIndexOfId(int row, const QString& id) const {
    if (row < 0 || row >= rowCount()) return -1;
    const std::string key = id.toStdString();
    const auto& quants = m_rows[size_t(row)].quants;
    for (size_t i = 0; i < quants.size(); ++i)
        if (quants[i].id == key) return int(i);
    return -1;
}

bool CatalogModel::setCurrentQuant(int row, int quant) {
    if (row < 0 || row >= rowCount()) return false;
    Row& r = m_rows[size_t(row)];
    if (quant < 0 || quant >= int(r.quants.size())) return false;
    if (r.current == quant) return true;
    ++m_generation;
    r.current = quant;
    m_fits[size_t(row)] = FitSummary{};
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
    Q_EMIT fitsNeeded();
    return true;
}

bool CatalogModel::fitsPending() const {
    return m_watcher && m_watcher->isRunning();
}

void CatalogModel::refreshFits(const HardwareSnapshot& hw, const PlanOptions& options) {
    if (m_rows.empty()) return;
    const quint64 generation = ++m_generation;
    // The column prices each model at its own launch decision, not at the user's exact -c.
    PlanOptions opts = options;
    opts.context.reset();
    opts.requested_window.reset();
    auto* watcher = new QFutureWatcher<std::vector<FitSummary>>(this);
    connect(watcher, &QFutureWatcher<std::vector<FitSummary>>::finished, this,
            [this, watcher, generation] {
                watcher->deleteLater();
                if (m_watcher == watcher) m_watcher = nullptr;
                if (generation != m_generation) return; // inputs changed since: a newer run follows
                std::vector<FitSummary> fits = watcher->result();
                if (fits.size() != m_fits.size()) return;
                m_fits = std::move(fits);
                rankFits();
                Q_EMIT dataChanged(index(0, Fit), index(rowCount() - 1, Fit));
                Q_EMIT fitsUpdated();
            });
    m_watcher = watcher;
    std::vector<ModelShape> models;
    models.reserve(m_rows.size());
    for (int row = 0; row < rowCount(); ++row)
        models.push_back(modelAt(row));
    watcher->setFuture(
        QtConcurrent::run([models = std::move(models), fn = m_plan_function, hw, opts]() {
            std::vector<FitSummary> out;
            out.reserve(models.size());
            for (const ModelShape& m : models)
                out.push_back(summarizeFit(fn, m, hw, opts));
            return out;
        }));
}

void CatalogModel::rankFits() {
    std::vector<size_t> order;
    for (size_t i = 0; i < m_fits.size(); ++i)
        if (m_fits[i].known && m_fits[i].error.isEmpty()) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [this](size_t a, size_t b) {
        return ranksAbove(m_fits[a].standing, m_fits[b].standing);
    });
    m_rank.assign(m_fits.size(), 0);
    qulonglong rank = order.size();
    for (size_t k = 0; k < order.size(); ++k) {
        if (k > 0 && ranksAbove(m_fits[order[k - 1]].standing, m_fits[order[k]].standing)) --rank;
        m_rank[order[k]] = rank;
    }
}

int CatalogModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int CatalogModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

Qt::ItemFlags CatalogModel::flags(const QModelIndex& index) const {
    if (!index.isValid()) return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
}

namespace {

std::uint64_t paramsOf(const ModelShape& m) {
    return m.n_params;
}

QString paramsText(std::uint64_t n) {
    if (n == 0) return QStringLiteral("?");
    if (n >= 1'000'000'000ULL)
        return QStringLiteral("%1B").arg(double(n) / 1e9, 0, 'f', n >= 10'000'000'000ULL ? 0 : 1);
    return QStringLiteral("%1M").arg(double(n) / 1e6, 0, 'f', 0);
}

Bytes sizeOf(const ModelShape& m) {
    return m.file_bytes ? m.file_bytes : m.weightBytes();
}

} // namespace

QVariant CatalogModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ModelShape& m = modelAt(index.row());
    const Row& row = m_rows[size_t(index.row())];
    const FitSummary& f = m_fits[size_t(index.row())];
    const int col = index.column();
    if (role == Qt::DisplayRole) {
        switch (col) {
        case Name:
            return qs(m.name.empty() ? m.id : m.name);
        case Architecture:
            return qs(m.architecture);
        case Params:
            return paramsText(paramsOf(m));
        case Quant:
            // The current quant, and how many there are to choose from.
            return row.quants.size() > 1
                       ? tr("%1 (+%2)").arg(qs(m.quant)).arg(row.quants.size() - 1)
                       : qs(m.quant);
        case Size:
            return bytesText(sizeOf(m));
        case NativeContext:
            return m.n_ctx_train ? tokensText(m.n_ctx_train) : QStringLiteral("?");
        case Fit:
            if (!f.known) return tr("…");
            if (!f.error.isEmpty()) return tr("error");
            if (f.largest_context == 0) return tr("no fit");
            return tr("%1 %2").arg(f.verdict == Verdict::Resident  ? tr("ok")
                                   : f.verdict == Verdict::Spilled ? tr("spill")
                                                                   : tr("—"),
                                   tokensText(f.largest_context));
        }
    }
    if (role == SortRole || role == BytesRole) {
        switch (col) {
        case Name:
            return qs(m.name.empty() ? m.id : m.name).toLower();
        case Architecture:
            return qs(m.architecture);
        case Params:
            return qulonglong(paramsOf(m));
        case Quant:
            return qs(m.quant);
        case Size:
            return qulonglong(sizeOf(m));
        case NativeContext:
            return qulonglong(m.n_ctx_train);
        case Fit:
            // A row re-priced since the last ranking (a quant changed) is unranked until the
            // refresh that follows.
            return f.known && f.error.isEmpty() && size_t(index.row()) < m_rank.size()
                       ? m_rank[size_t(index.row())]
                       : qulonglong(0);
        }
    }
    if (role == VerdictRole && col == Fit && f.known && f.error.isEmpty())
        return QString::fromLatin1(verdictName(f.largest_context ? f.verdict : Verdict::Refused));
    if (role == Qt::ForegroundRole && col == Fit && f.known) {
        if (!f.error.isEmpty() || f.largest_context == 0) return QColor(0xc0, 0x39, 0x2b);
        if (f.verdict == Verdict::Resident) return QColor(0x2e, 0x8b, 0x57);
        return QColor(0xd3, 0x84, 0x00);
    }
    if (role == Qt::ToolTipRole) {
        if (col == Fit) {
            if (!f.known) return tr("Being priced for this machine…");
            if (!f.error.isEmpty()) return tr("Cannot be priced: %1").arg(f.error);
            if (f.largest_context == 0)
                return tr("No context fits this machine with these options");
            return tr("Launch at %1 (%2); largest context that runs: %3")
                .arg(tokensText(f.chosen_context), QString::fromLatin1(verdictName(f.verdict)),
                     tokensText(f.largest_context));
        }
        if (col == Quant && row.quants.size() > 1) {
            QStringList all;
            for (const ModelShape& q : row.quants)
                all << QStringLiteral("%1 (%2)").arg(qs(q.quant), bytesText(sizeOf(q)));
            return tr("%1 quants: %2 — choose one below the list")
                .arg(row.quants.size())
                .arg(all.join(QStringLiteral(", ")));
        }
        return tr("%1\nsource: %2%3")
            .arg(qs(m.id), QString::fromLatin1(shapeSourceName(m.source)),
                 m.conservative ? tr("\nunknown architecture: priced conservatively") : QString());
    }
    return {};
}

QVariant CatalogModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole && section == Fit)
        return tr("Verdict at the launch decision and the largest context that runs on this "
                  "machine. Sorted by this column, best first: %1")
            .arg(QString::fromLatin1(kRankingBasis));
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case Name:
        return tr("Model");
    case Architecture:
        return tr("Arch");
    case Params:
        return tr("Params");
    case Quant:
        return tr("Quant");
    case Size:
        return tr("Size");
    case NativeContext:
        return tr("Native ctx");
    case Fit:
        return tr("Fits");
    }
    return {};
}

} // namespace headroom::ui
