#include "modelpicker.h"

#include "core/remote/remote_gguf.h"

#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace headroom::ui {

namespace {

bool isGguf(const QUrl& url) {
    return url.isLocalFile() &&
           url.toLocalFile().endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive);
}

} // namespace

ModelPicker::ModelPicker(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("modelPicker"));
    setAcceptDrops(true);
    m_catalog = new CatalogModel(this);
    m_catalog->setObjectName(QStringLiteral("catalogModel"));
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setObjectName(QStringLiteral("catalogProxy"));
    m_proxy->setSourceModel(m_catalog);
    m_proxy->setSortRole(SortRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setDynamicSortFilter(true);

    m_search = new QLineEdit;
    m_search->setObjectName(QStringLiteral("modelSearch"));
    m_search->setAccessibleName(tr("Filter models"));
    m_search->setPlaceholderText(tr("Filter models (name, arch, quant)…"));
    m_search->setClearButtonEnabled(true);
    m_search->setToolTip(tr("Shows rows where any column contains the text"));
    m_view = new QTableView;
    m_view->setObjectName(QStringLiteral("modelTable"));
    m_view->setAccessibleName(tr("Models"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(CatalogModel::Name, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(CatalogModel::Name, QHeaderView::Interactive);
    m_view->horizontalHeader()->resizeSection(
        CatalogModel::Name,
        m_view->fontMetrics().horizontalAdvance(QStringLiteral("Llama 3.3 70B Instruct  ")));
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setTabKeyNavigation(false);

    // One row per model: its quants are chosen here, and compared side by side below.
    m_quant = new QComboBox;
    m_quant->setObjectName(QStringLiteral("quantCombo"));
    m_quant->setAccessibleName(tr("Quant"));
    m_quant->setToolTip(tr("The quant of the selected model to plan; ★ marks the one the variant "
                           "policy recommends for this machine"));
    m_quant->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_quant->setMinimumContentsLength(12);
    m_quant_label = new QLabel(tr("&Quant:"));
    m_quant_label->setBuddy(m_quant);
    m_compare_model = new QuantCompareModel(this);
    m_compare_model->setObjectName(QStringLiteral("quantCompareModel"));
    m_compare = new QTableView;
    m_compare->setObjectName(QStringLiteral("quantCompareTable"));
    m_compare->setAccessibleName(tr("Quants compared"));
    m_compare->setModel(m_compare_model);
    m_compare->setSelectionMode(QAbstractItemView::NoSelection);
    m_compare->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // A read-only summary of what the quant combo chooses from: the combo is the keyboard stop.
    m_compare->setFocusPolicy(Qt::NoFocus);
    m_compare->setWordWrap(false);
    m_compare->verticalHeader()->hide();
    m_compare->verticalHeader()->setDefaultSectionSize(m_compare->fontMetrics().height() + 6);
    m_compare->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    // Room for five quants and the header; a model with more scrolls. It never takes the model
    // list's room: the list is what grows with the window.
    m_compare->setMaximumHeight((m_compare->fontMetrics().height() + 6) * 7);
    m_compare->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);

    m_open = new QPushButton(tr("&Open GGUF…"));
    m_open->setObjectName(QStringLiteral("openGgufButton"));
    m_open->setAccessibleName(tr("Open GGUF file"));
    m_open->setToolTip(tr("Read a model's GGUF header (the file's tensors are never loaded); you "
                          "can also drop .gguf files here"));
    m_scan = new QPushButton(tr("Scan fol&der…"));
    m_scan->setObjectName(QStringLiteral("scanFolderButton"));
    m_scan->setAccessibleName(tr("Scan folder for models"));
    m_scan->setToolTip(tr("Find every .gguf model below a folder and add it to the list"));
    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("scanProgress"));
    m_progress->setAccessibleName(tr("Scan progress"));
    m_progress->hide();
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName(QStringLiteral("cancelScanButton"));
    m_cancel->setAccessibleName(tr("Cancel scan"));
    m_cancel->hide();
    m_error = new QLabel;
    m_error->setObjectName(QStringLiteral("modelErrorLabel"));
    m_error->setAccessibleName(tr("Model error"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #c0392b"));
    m_error->hide();

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_open);
    buttons->addWidget(m_scan);
    auto* scanRow = new QHBoxLayout;
    scanRow->addWidget(m_progress, 1);
    scanRow->addWidget(m_cancel);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* searchRow = new QHBoxLayout;
    auto* searchLabel = new QLabel(tr("F&ilter:"));
    searchLabel->setBuddy(m_search);
    searchRow->addWidget(searchLabel);
    searchRow->addWidget(m_search, 1);
    layout->addLayout(searchRow);
    layout->addWidget(m_view, 1);
    auto* quantRow = new QHBoxLayout;
    quantRow->addWidget(m_quant_label);
    quantRow->addWidget(m_quant, 1);
    layout->addLayout(quantRow);
    layout->addWidget(m_compare);
    layout->addWidget(m_error);
    layout->addLayout(scanRow);
    layout->addLayout(buttons);

    connect(m_search, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ModelPicker::onCurrentChanged);
    connect(m_quant, &QComboBox::activated, this, [this](int index) { selectQuant(index); });
    connect(m_open, &QPushButton::clicked, this, &ModelPicker::promptOpenFile);
    connect(m_scan, &QPushButton::clicked, this, &ModelPicker::promptScanFolder);
    connect(m_cancel, &QPushButton::clicked, this, &ModelPicker::cancelScan);
}

ModelPicker::~ModelPicker() {
    if (m_compare_watcher) m_compare_watcher->waitForFinished();
    if (m_scan_watcher) {
        m_scan_watcher->cancel();
        m_scan_watcher->waitForFinished();
    }
}

int ModelPicker::selectedRow() const {
    const QModelIndex cur = m_view->currentIndex();
    if (!cur.isValid()) return -1;
    const int row = m_proxy->mapToSource(cur).row();
    return row >= 0 && row < m_catalog->rowCount() ? row : -1;
}

void ModelPicker::onCurrentChanged() {
    const int row = selectedRow();
    if (row < 0) return;
    syncQuantCombo();
    Q_EMIT modelSelected(m_catalog->modelAt(row));
}

void ModelPicker::syncQuantCombo() {
    const int row = selectedRow();
    const QSignalBlocker block(m_quant);
    m_quant->clear();
    if (row < 0) return;
    if (row != m_compared_row) m_compare_model->clear();
    const QuantComparisonResult& cmp = m_compare_model->comparison();
    const auto& quants = m_catalog->quantsAt(row);
    for (size_t i = 0; i < quants.size(); ++i) {
        const ModelShape& q = quants[i];
        const bool recommended = row == m_compared_row && cmp.recommended == int(i);
        m_quant->addItem(QStringLiteral("%1  %2%3")
                             .arg(qs(q.quant.empty() ? q.id : q.quant),
                                  bytesText(q.file_bytes ? q.file_bytes : q.weightBytes()),
                                  recommended ? tr("  ★ recommended") : QString()),
                         qs(q.id));
    }
    m_quant->setCurrentIndex(m_catalog->currentQuant(row));
    m_quant->setEnabled(quants.size() > 1);
    m_compare_model->setCurrentId(qs(m_catalog->modelAt(row).id));
}

bool ModelPicker::selectQuant(int index) {
    const int row = selectedRow();
    if (row < 0 || !m_catalog->setCurrentQuant(row, index)) return false;
    syncQuantCombo();
    Q_EMIT modelSelected(m_catalog->modelAt(row));
    return true;
}

void ModelPicker::refreshComparison(const HardwareSnapshot& hw, const PlanOptions& options) {
    const int row = selectedRow();
    const quint64 generation = ++m_compare_generation;
    if (row < 0) {
        m_compared_row = -1;
        m_compare_model->clear();
        return;
    }
    // Off the GUI thread, like the fit column: a model with five quants is about fifteen plans
    // (each quant at its launch decision, and at the variant policy's windows), and no input's
    // repaint should wait for them. A result for an older selection or older inputs is dropped.
    auto* watcher = new QFutureWatcher<QuantComparisonResult>(this);
    connect(watcher, &QFutureWatcher<QuantComparisonResult>::finished, this,
            [this, watcher, generation, row] {
                watcher->deleteLater();
                if (m_compare_watcher == watcher) m_compare_watcher = nullptr;
                if (generation != m_compare_generation || selectedRow() != row) return;
                m_compared_row = row;
                m_compare_model->setComparison(watcher->result());
                syncQuantCombo();
                Q_EMIT comparisonUpdated();
            });
    m_compare_watcher = watcher;
    watcher->setFuture(
        QtConcurrent::run([fn = m_catalog->planFunction(), quants = m_catalog->quantsAt(row), hw,
                           options] { return compareQuants(fn, quants, hw, options); }));
}

bool ModelPicker::selectModelId(const QString& id) {
    const int row = m_catalog->rowOfId(id);
    if (row < 0) return false;
    // The id may name another quant of the model than the current one.
    const bool quantChanged = m_catalog->currentQuant(row) != m_catalog->quantIndexOfId(row, id);
    m_catalog->setCurrentQuant(row, m_catalog->quantIndexOfId(row, id));
    const QModelIndex p = m_proxy->mapFromSource(m_catalog->index(row, 0));
    if (!p.isValid()) {
        m_search->clear();
        return selectModelId(id);
    }
    if (m_view->currentIndex().row() == p.row()) {
        if (quantChanged) syncQuantCombo();
        Q_EMIT modelSelected(m_catalog->modelAt(row));
    } else {
        m_view->setCurrentIndex(p);
    }
    m_view->scrollTo(p);
    return true;
}

QString ModelPicker::selectedId() const {
    const QModelIndex cur = m_view->currentIndex();
    if (!cur.isValid()) return {};
    return qs(m_catalog->modelAt(m_proxy->mapToSource(cur).row()).id);
}

void ModelPicker::showError(const QString& message) {
    m_error->setText(message);
    m_error->setVisible(!message.isEmpty());
    if (!message.isEmpty()) Q_EMIT errorOccurred(message);
}

QString ModelPicker::errorText() const {
    return m_error->isHidden() ? QString() : m_error->text();
}

bool ModelPicker::isLoading() const {
    return m_loading > 0;
}

void ModelPicker::openFile(const QString& path) {
    ++m_loading;
    showError({});
    auto* watcher = new QFutureWatcher<Result<ModelShape>>(this);
    connect(watcher, &QFutureWatcher<Result<ModelShape>>::finished, this, [this, watcher, path] {
        watcher->deleteLater();
        --m_loading;
        const Result<ModelShape> r = watcher->result();
        // A URL or hf: reference is kept as typed; a file by its absolute path.
        const bool is_remote = remote::isRemoteModelRef(path.toStdString());
        if (!r) {
            showError(
                tr("Cannot open %1: %2")
                    .arg(is_remote ? path : QFileInfo(path).fileName(), qs(r.error().message)));
            return;
        }
        m_catalog->addModel(*r);
        rememberRecent(is_remote ? path : QFileInfo(path).absoluteFilePath());
        selectModelId(qs(r->id));
    });
    watcher->setFuture(QtConcurrent::run([path] { return loadModelFile(path); }));
}

void ModelPicker::promptOpenFile() {
    const QString start =
        m_recent.isEmpty() ? QString() : QFileInfo(m_recent.front()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open GGUF model"), start,
                                                      tr("GGUF models (*.gguf);;All files (*)"));
    if (!path.isEmpty()) openFile(path);
}

void ModelPicker::promptOpenUrl() {
    const QString ref =
        QInputDialog::getText(this, tr("Open URL"),
                              tr("An https:// GGUF address or hf:OWNER/REPO[:QUANT] (only the "
                                 "header is read):"))
            .trimmed();
    if (ref.isEmpty()) return;
    if (!remote::isRemoteModelRef(ref.toStdString())) {
        showError(tr("%1 is neither an http(s):// address nor hf:OWNER/REPO").arg(ref));
        return;
    }
    openFile(ref);
}

void ModelPicker::promptScanFolder() {
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Scan a folder for GGUF models"));
    if (!dir.isEmpty()) scanFolder(dir);
}

bool ModelPicker::isScanning() const {
    return m_scan_watcher != nullptr;
}

void ModelPicker::scanFolder(const QString& folder) {
    if (m_scan_watcher) return;
    showError({});
    m_scan_models = 0;
    m_scan_errors.clear();
    m_scan_watcher = new QFutureWatcher<ScanItem>(this);
    m_progress->setRange(0, 0);
    m_progress->setFormat(tr("Scanning %1… %v/%m").arg(QFileInfo(folder).fileName()));
    m_progress->show();
    m_cancel->show();
    m_scan->setEnabled(false);
    connect(m_scan_watcher, &QFutureWatcher<ScanItem>::progressRangeChanged, m_progress,
            &QProgressBar::setRange);
    connect(m_scan_watcher, &QFutureWatcher<ScanItem>::progressValueChanged, m_progress,
            &QProgressBar::setValue);
    connect(m_scan_watcher, &QFutureWatcher<ScanItem>::resultReadyAt, this, [this](int i) {
        const ScanItem item = m_scan_watcher->resultAt(i);
        if (item.model) {
            m_catalog->addModel(*item.model);
            ++m_scan_models;
        } else {
            m_scan_errors << QStringLiteral("%1: %2").arg(QFileInfo(item.path).fileName(),
                                                          item.error);
        }
    });
    connect(m_scan_watcher, &QFutureWatcher<ScanItem>::finished, this, [this] {
        const bool cancelled = m_scan_watcher->isCanceled();
        m_scan_watcher->deleteLater();
        m_scan_watcher = nullptr;
        m_progress->hide();
        m_cancel->hide();
        m_scan->setEnabled(true);
        if (!m_scan_errors.isEmpty())
            showError(tr("%1 file(s) could not be read%2:\n%3")
                          .arg(m_scan_errors.size())
                          .arg(cancelled ? tr(" (scan cancelled)") : QString())
                          .arg(m_scan_errors.mid(0, 5).join(QLatin1Char('\n'))));
        Q_EMIT scanFinished(m_scan_models, int(m_scan_errors.size()));
    });
    m_scan_watcher->setFuture(ui::scanFolder(folder));
}

void ModelPicker::cancelScan() {
    if (m_scan_watcher) m_scan_watcher->cancel();
}

void ModelPicker::setRecentFiles(const QStringList& files) {
    m_recent = files.mid(0, kMaxRecentFiles);
    Q_EMIT recentFilesChanged(m_recent);
}

void ModelPicker::rememberRecent(const QString& path) {
    QStringList r = m_recent;
    r.removeAll(path);
    r.prepend(path);
    setRecentFiles(r);
}

void ModelPicker::dragEnterEvent(QDragEnterEvent* e) {
    for (const QUrl& u : e->mimeData()->urls())
        if (isGguf(u)) {
            e->acceptProposedAction();
            return;
        }
}

void ModelPicker::dropEvent(QDropEvent* e) {
    for (const QUrl& u : e->mimeData()->urls())
        if (isGguf(u)) openFile(u.toLocalFile());
    e->acceptProposedAction();
}

} // namespace headroom::ui
