#include "mainwindow.h"

#include "catalogmodel.h"
#include "charts/chartspanel.h"
#include "exportpanel.h"
#include "hardwarejson.h"
#include "hardwarepanel.h"
#include "modelpicker.h"
#include "optionspanel.h"
#include "proberunner.h"
#include "setpanel.h"
#include "verifypanel.h"
#include "whypanel.h"

#include "core/catalog.h"
#include "core/catalog_update.h"
#include "core/launch/llama_defaults.h"
#include "core/launch/llama_version.h"
#include "core/policy/speed.h"
#include "core/remote/remote_gguf.h"
#include "core/text_file.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QInputDialog>
#include <QJsonDocument>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <limits>

namespace headroom::ui {

namespace {

QVariantMap optionsToMap(const PlanOptions& o) {
    QVariantMap m;
    m[QStringLiteral("context")] = o.context ? QVariant(qulonglong(*o.context)) : QVariant();
    m[QStringLiteral("ctk")] = QString::fromLatin1(ggmlTypeName(o.cache_type_k).data());
    m[QStringLiteral("ctv")] = QString::fromLatin1(ggmlTypeName(o.cache_type_v).data());
    m[QStringLiteral("fa")] = int(o.flash_attn);
    m[QStringLiteral("ub")] = o.n_ubatch;
    m[QStringLiteral("ub_set")] = o.ubatch_set;
    m[QStringLiteral("np")] = o.n_parallel;
    m[QStringLiteral("kvu")] = o.kv_unified;
    m[QStringLiteral("swa_full")] = o.swa_full;
    m[QStringLiteral("mtp")] = int(o.mtp);
    m[QStringLiteral("mmproj")] = o.mmproj;
    m[QStringLiteral("reserve")] = qulonglong(o.extra_reserve);
    m[QStringLiteral("llama_version")] = QString::fromLatin1(llamaVersionName(o.llama_version));
    return m;
}

PlanOptions optionsFromMap(const QVariantMap& m) {
    PlanOptions o;
    if (m.value(QStringLiteral("context")).isValid())
        o.context = m.value(QStringLiteral("context")).toUInt();
    if (auto t = parseCacheType(
            m.value(QStringLiteral("ctk"), QStringLiteral("f16")).toString().toStdString()))
        o.cache_type_k = *t;
    if (auto t = parseCacheType(
            m.value(QStringLiteral("ctv"), QStringLiteral("f16")).toString().toStdString()))
        o.cache_type_v = *t;
    const int fa = m.value(QStringLiteral("fa"), 0).toInt();
    o.flash_attn = fa == int(FlashAttn::On)    ? FlashAttn::On
                   : fa == int(FlashAttn::Off) ? FlashAttn::Off
                                               : FlashAttn::Auto;
    const uint ub = m.value(QStringLiteral("ub"), 512).toUInt();
    if (ub >= 1 && ub <= 65536) o.n_ubatch = ub;
    o.ubatch_set = m.value(QStringLiteral("ub_set"), false).toBool();
    const uint np = m.value(QStringLiteral("np"), 1).toUInt();
    if (np >= 1 && np <= 256) o.n_parallel = np;
    o.kv_unified = m.value(QStringLiteral("kvu")).toBool();
    o.swa_full = m.value(QStringLiteral("swa_full")).toBool();
    const int mtp = m.value(QStringLiteral("mtp"), 0).toInt();
    o.mtp = mtp == int(MtpMode::On)    ? MtpMode::On
            : mtp == int(MtpMode::Off) ? MtpMode::Off
                                       : MtpMode::Auto;
    o.mmproj = m.value(QStringLiteral("mmproj")).toBool();
    o.extra_reserve = std::min<Bytes>(m.value(QStringLiteral("reserve")).toULongLong(), 1024 * GiB);
    // A build this version of Headroom no longer knows falls back to the default.
    if (auto v =
            parseLlamaVersion(m.value(QStringLiteral("llama_version")).toString().toStdString()))
        o.llama_version = *v;
    return o;
}

// What the growth policy would do for the launch window of `plan` (Plan::growth, the same
// decision the CLI prints): the next rung a running session grows to and the gates it must pass
// on the way.
QString growthText(const Plan& plan) {
    if (!plan.growth) return {};
    const SessionGrowth& g = *plan.growth;
    const QString gates =
        QObject::tr("gates: the session fills 85 % of %1 (%2 tokens), the server is idle, %1 is "
                    "below the trained %3, decode stays ≥ %4 tok/s (estimate %5)")
            .arg(tokensText(g.window))
            .arg(g.occupancy_tokens)
            .arg(tokensText(plan.model.n_ctx_train))
            .arg(policy::kFloorTokS, 0, 'f', 0)
            .arg(g.decode_tok_s, 0, 'f', 1);
    if (g.next_window)
        return QObject::tr("Growth: a running session would grow to %1 (%2; the re-fit passes: "
                           "needs %3 of %4).")
            .arg(tokensText(*g.next_window), gates, bytesText(g.needed_bytes),
                 signedBytesText(g.available_bytes));
    return QObject::tr("Growth: the session stays at %1 — %2.")
        .arg(tokensText(g.window), qs(g.reason));
}

std::vector<ModelShape> catalogShapes(const Catalog& catalog) {
    std::vector<ModelShape> out;
    for (const CatalogEntry& e : catalog.entries()) {
        const CatalogQuant& def = e.defaultQuant();
        for (const CatalogQuant& q : e.quants) {
            ModelShape s = catalogShape(e, q);
            // Every quant of the entry: the model list shows them as one row with a quant
            // selector. The default quant keeps the bare id (what `--model ID` plans).
            if (&q != &def) s.id = e.id + ":" + q.name;
            out.push_back(std::move(s));
        }
    }
    return out;
}

} // namespace

MainWindow::MainWindow(const MainWindowConfig& config, QWidget* parent)
    : QMainWindow(parent), m_config(config) {
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Headroom"));
    setAcceptDrops(true);
    m_controller = new PlanController(this);
    m_controller->setObjectName(QStringLiteral("planController"));
    if (config.plan_function) m_controller->setPlanFunction(config.plan_function);

    m_hardware = new HardwarePanel;
    if (!config.probe_program.isEmpty())
        m_hardware->probeRunner()->setCommand(config.probe_program, config.probe_arguments);
    if (!config.probe_program.isEmpty())
        m_hardware->liveRunner()->setCommand(config.probe_program, config.probe_arguments);
    m_picker = new ModelPicker;
    if (config.plan_function) m_picker->catalogModel()->setPlanFunction(config.plan_function);
    m_options = new OptionsPanel;
    m_charts = new ChartsPanel;
    m_why = new WhyPanel;
    m_export = new ExportPanel;
    m_verify = new VerifyPanel;
    m_set = new SetPanel;
    m_charts->addSetChart(m_set->chart());

    buildLayout();
    connectPanels();

    buildMenus();
    connect(m_picker, &ModelPicker::recentFilesChanged, this, &MainWindow::rebuildRecentMenu);
    loadCatalog();
    restoreState();
    if (config.probe_on_start) m_hardware->startProbe();
}

MainWindow::~MainWindow() = default;

// The hardware across the top; the picker and the models loaded together on the left; the
// options, the error banner, the charts and, below them, the why, export and verify panels on the
// right.
void MainWindow::buildLayout() {
    m_banner = new QLabel;
    m_banner->setObjectName(QStringLiteral("errorBanner"));
    m_banner->setAccessibleName(tr("Error"));
    m_banner->setWordWrap(true);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->setStyleSheet(
        QStringLiteral("QLabel#errorBanner { background: rgba(192,57,43,40); border: 1px solid "
                       "rgba(192,57,43,160); border-radius: 3px; padding: 4px; }"));
    m_banner->hide();

    auto* right = new QWidget;
    auto* rl = new QVBoxLayout(right);
    rl->setContentsMargins(0, 0, 0, 0);
    rl->addWidget(m_options);
    rl->addWidget(m_banner);
    m_right_splitter = new QSplitter(Qt::Vertical);
    m_right_splitter->setObjectName(QStringLiteral("rightSplitter"));
    m_right_splitter->setChildrenCollapsible(false);
    m_right_splitter->addWidget(m_charts);
    auto* bottom = new QWidget;
    auto* bl = new QVBoxLayout(bottom);
    bl->setContentsMargins(0, 0, 0, 0);
    bl->addWidget(m_why);
    bl->addWidget(m_export);
    bl->addWidget(m_verify);
    bl->addStretch(1);
    // The verdict, its numbers, the remedies and the export scroll when the window is short
    // (1366×768, 200 %): cut-off remedy rows would hide the fix the user is looking for.
    auto* bottomScroll = new QScrollArea;
    bottomScroll->setObjectName(QStringLiteral("whyScroll"));
    bottomScroll->setWidgetResizable(true);
    bottomScroll->setFrameShape(QFrame::NoFrame);
    bottomScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Always there: a scroll bar that appears on demand narrows the wrapped labels after their
    // height was settled, and their last line would be cut.
    bottomScroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    bottomScroll->setWidget(bottom);
    // Not a stop of its own: Tab walks its buttons and the area scrolls to each one.
    bottomScroll->setFocusPolicy(Qt::NoFocus);
    m_right_splitter->addWidget(bottomScroll);
    m_right_splitter->setStretchFactor(0, 3);
    m_right_splitter->setStretchFactor(1, 2);
    rl->addWidget(m_right_splitter, 1);

    m_splitter = new QSplitter(Qt::Horizontal);
    m_splitter->setObjectName(QStringLiteral("mainSplitter"));
    m_splitter->setChildrenCollapsible(false);
    // The picker above, the models loaded together below it: a set is made of picked models.
    m_left_splitter = new QSplitter(Qt::Vertical);
    m_left_splitter->setObjectName(QStringLiteral("leftSplitter"));
    m_left_splitter->setChildrenCollapsible(false);
    m_left_splitter->addWidget(m_picker);
    m_left_splitter->addWidget(m_set);
    m_left_splitter->setStretchFactor(0, 3);
    m_left_splitter->setStretchFactor(1, 1);
    m_splitter->addWidget(m_left_splitter);
    m_splitter->addWidget(right);
    m_splitter->setStretchFactor(0, 2);
    m_splitter->setStretchFactor(1, 5);
    m_splitter->setSizes({480, 1000});

    auto* central = new QWidget;
    auto* cl = new QVBoxLayout(central);
    cl->setContentsMargins(6, 6, 6, 6);
    cl->addWidget(m_hardware);
    cl->addWidget(m_splitter, 1);
    setCentralWidget(central);
    statusBar()->setObjectName(QStringLiteral("statusBar"));
}

// Inputs to the controller, the controller to the views, and every error into the window.
void MainWindow::connectPanels() {
    // Inputs -> controller.
    connect(m_hardware, &HardwarePanel::snapshotChanged, m_controller,
            &PlanController::setHardware);
    connect(m_options, &OptionsPanel::optionsEdited, m_controller, &PlanController::setOptions);
    // An entry that does not read (shown inline in the options panel): no chart, reason or
    // launch may stay on screen as if it answered what is typed now.
    connect(m_options, &OptionsPanel::optionsInvalid, this, [this](const QString& message) {
        m_charts->showMessage(tr("Not planned: %1").arg(message));
        m_why->clear(tr("No plan: %1").arg(message));
        m_export->clear();
        m_verify->clear();
    });
    connect(m_picker, &ModelPicker::modelSelected, this, &MainWindow::onModelSelected);
    connect(m_why, &WhyPanel::remedyChosen, this, [this](const PlanOptions& o) {
        m_options->setOptions(o);
        m_controller->setOptions(o);
        statusBar()->showMessage(tr("Remedy applied"), 4000);
    });
    connect(m_why, &WhyPanel::quantChosen, this, [this](const QString& ref, const PlanOptions& o) {
        // "id:QUANT" names a catalog quant (the default quant carries the bare id); a path names
        // a GGUF beside the opened one. Every quant of a model is in its row.
        CatalogModel* cm = m_picker->catalogModel();
        QString id;
        if (cm->rowOfId(ref) >= 0) id = ref;
        const std::string key = ref.toStdString();
        if (id.isEmpty() && key.find(':') != std::string::npos) {
            const int row = cm->rowOfId(qs(key.substr(0, key.find(':'))));
            if (row >= 0)
                for (const ModelShape& q : cm->quantsAt(row))
                    if (q.quant == key.substr(key.find(':') + 1)) id = qs(q.id);
        }
        m_options->setOptions(o);
        {
            const QSignalBlocker block(m_controller);
            m_controller->setOptions(o);
        }
        if (id.isEmpty() || !m_picker->selectModelId(id)) {
            showError(tr("The smaller quant %1 is not in the model list").arg(ref));
            return;
        }
        statusBar()->showMessage(tr("Switched to %1").arg(id), 4000);
    });
    // The fit column follows the machine and options (computed on a worker thread).
    // Debounced: a slider drag re-prices the whole catalog once, after the drag, and the worker
    // never competes with the repaint of the plan the user is looking at.
    m_fit_timer.setSingleShot(true);
    m_fit_timer.setInterval(kFitRefreshDelayMs);
    connect(&m_fit_timer, &QTimer::timeout, this, [this] {
        m_picker->catalogModel()->refreshFits(m_controller->hardware(), m_controller->options());
        // The selected model's quants side by side, with the variant policy's recommendation.
        if (m_controller->hasHardware()) {
            m_picker->refreshComparison(m_controller->hardware(), m_controller->options());
            m_set->setInputs(m_controller->hardware(), m_controller->options());
        }
    });
    connect(m_controller, &PlanController::hardwareChanged, &m_fit_timer,
            qOverload<>(&QTimer::start));
    connect(m_controller, &PlanController::optionsChanged, &m_fit_timer,
            qOverload<>(&QTimer::start));
    connect(m_picker->catalogModel(), &CatalogModel::fitsNeeded, this, [this] {
        if (m_controller->hasHardware()) m_fit_timer.start();
    });
    // The selected model is what "Add to the set" adds.
    connect(m_controller, &PlanController::modelChanged, m_set,
            [this] { m_set->setCandidate(m_controller->model()); });
    // Controller -> views.
    connect(m_controller, &PlanController::planChanged, this, &MainWindow::onPlan);
    connect(m_controller, &PlanController::planFailed, this, [this](const QString& message) {
        showError(tr("Cannot plan: %1").arg(message));
        m_charts->showMessage(tr("Cannot plan these inputs: %1").arg(message));
        m_why->clear(tr("No plan: %1").arg(message));
        m_export->clear();
        m_verify->clear();
    });
    connect(m_charts, &ChartsPanel::rungActivated, m_why, &WhyPanel::selectRung);
    connect(m_why, &WhyPanel::rungShown, m_export, &ExportPanel::setRung);
    // Errors are shown in the window, never only on stderr.
    connect(m_hardware, &HardwarePanel::errorOccurred, this,
            [this](const QString& m) { statusBar()->showMessage(m, 10000); });
    connect(m_hardware->probeRunner(), &ProbeRunner::failed, this, [this] {
        // Nothing to plan for: fall back to the first preset so the window still answers, and say
        // so.
        if (m_controller->hardware().gpus.empty() && m_controller->hardware().ram_total == 0) {
            statusBar()->showMessage(tr("Probe failed: enter figures by hand or pick a preset"));
        }
    });
    connect(m_picker, &ModelPicker::errorOccurred, this,
            [this](const QString& m) { statusBar()->showMessage(m, 10000); });
    connect(m_picker, &ModelPicker::scanFinished, this, [this](int models, int bad) {
        statusBar()->showMessage(
            tr("Scan finished: %1 model(s) added, %2 unreadable").arg(models).arg(bad), 8000);
    });
    connect(m_export, &ExportPanel::errorOccurred, this, &MainWindow::showError);
    connect(m_export, &ExportPanel::saved, this,
            [this](const QString& p) { statusBar()->showMessage(tr("Saved %1").arg(p), 5000); });
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open GGUF…"), m_picker, &ModelPicker::promptOpenFile);
    open->setObjectName(QStringLiteral("actionOpenGguf"));
    open->setShortcut(QKeySequence::Open);
    QAction* url = file->addAction(tr("Open &URL…"), m_picker, &ModelPicker::promptOpenUrl);
    url->setObjectName(QStringLiteral("actionOpenUrl"));
    m_recent_menu = file->addMenu(tr("Open &Recent"));
    m_recent_menu->setObjectName(QStringLiteral("recentMenu"));
    QAction* scan = file->addAction(tr("&Scan Folder…"), m_picker, &ModelPicker::promptScanFolder);
    scan->setObjectName(QStringLiteral("actionScanFolder"));
    scan->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    QMenu* catalog = file->addMenu(tr("Catalo&g"));
    catalog->setObjectName(QStringLiteral("catalogMenu"));
    catalog
        ->addAction(tr("Update from &File…"), this,
                    [this] {
                        updateCatalogFrom(
                            QFileDialog::getOpenFileName(this, tr("Update the catalog"), {},
                                                         tr("Catalog (*.json);;All files (*)")));
                    })
        ->setObjectName(QStringLiteral("actionUpdateCatalogFile"));
    catalog
        ->addAction(tr("Update from &URL…"), this,
                    [this] {
                        updateCatalogFrom(QInputDialog::getText(
                            this, tr("Update the catalog"), tr("Catalog address (https://…):")));
                    })
        ->setObjectName(QStringLiteral("actionUpdateCatalogUrl"));
    catalog->addAction(tr("&Restore Built-in Catalog"), this, &MainWindow::restoreBuiltinCatalog)
        ->setObjectName(QStringLiteral("actionRestoreCatalog"));
    file->addSeparator();
    QAction* chart = file->addAction(tr("Save &Chart As…"), this, &MainWindow::saveChart);
    chart->setObjectName(QStringLiteral("actionSaveChart"));
    chart->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    QAction* probe = file->addAction(tr("&Probe Hardware"), m_hardware, &HardwarePanel::startProbe);
    probe->setObjectName(QStringLiteral("actionProbe"));
    probe->setShortcut(QKeySequence(Qt::Key_F5));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setObjectName(QStringLiteral("actionQuit"));
    quit->setShortcut(QKeySequence::Quit);
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* about = help->addAction(tr("&About Headroom"), this, &MainWindow::about);
    about->setObjectName(QStringLiteral("actionAbout"));
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt)
        ->setObjectName(QStringLiteral("actionAboutQt"));
    rebuildRecentMenu({});
}

void MainWindow::rebuildRecentMenu(const QStringList& files) {
    m_recent_menu->clear();
    for (const QString& f : files) {
        QAction* a = m_recent_menu->addAction(QFileInfo(f).fileName(), this,
                                              [this, f] { openModelFile(f); });
        a->setToolTip(f);
    }
    m_recent_menu->setEnabled(!files.isEmpty());
}

void MainWindow::loadCatalog() {
    auto in_use = loadCatalogInUse();
    if (!in_use) {
        const Error& e = in_use.error();
        showError(
            tr("The catalog could not be read: %1%2. Open a GGUF file instead.")
                .arg(qs(e.message), e.details.empty() ? QString() : " (" + qs(e.details) + ")"));
        return;
    }
    applyCatalog(in_use->catalog);
}

// The catalog's models replace the list's catalog rows; opened files stay, and so does the
// selection when its model is still there.
void MainWindow::applyCatalog(const Catalog& catalog) {
    CatalogModel* cm = m_picker->catalogModel();
    const QString selected = m_picker->selectedId();
    std::vector<ModelShape> opened;
    for (int row = 0; row < cm->rowCount(); ++row)
        if (cm->modelAt(row).source != ShapeSource::Catalog) opened.push_back(cm->modelAt(row));
    std::vector<ModelShape> shapes = catalogShapes(catalog);
    m_draft_pool.clear();
    for (const ModelShape& m : shapes)
        if (m.id.find(':') == std::string::npos)
            m_draft_pool.push_back(std::make_shared<const ModelShape>(m));
    cm->setModels(std::move(shapes));
    for (const ModelShape& m : opened)
        cm->addModel(m);
    if (!selected.isEmpty()) m_picker->selectModelId(selected);
    m_fit_timer.start();
}

// File ▸ Catalog ▸ Update…: the document is read, checked whole and installed off the GUI
// thread (a URL may take seconds); the list changes only once the new catalog loaded.
void MainWindow::updateCatalogFrom(const QString& source) {
    if (source.trimmed().isEmpty()) return;
    statusBar()->showMessage(tr("Updating the catalog from %1…").arg(source));
    struct Outcome {
        QString error;
        CatalogUpdateSummary summary;
        std::optional<Catalog> catalog;
    };
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, source] {
        watcher->deleteLater();
        const Outcome o = watcher->result();
        if (!o.error.isEmpty()) {
            showError(tr("The catalog was not updated: %1. The catalog in use is unchanged.")
                          .arg(o.error));
            return;
        }
        clearError();
        applyCatalog(*o.catalog);
        statusBar()->showMessage(
            tr("Catalog updated from %1: %2 models (%3 new, %4 replacing built-in ones)")
                .arg(source)
                .arg(o.summary.models)
                .arg(o.summary.added)
                .arg(o.summary.replaced),
            10000);
    });
    const std::string src = source.toStdString();
    watcher->setFuture(QtConcurrent::run([src]() -> Outcome {
        Outcome o;
        auto full = [](const Error& e) {
            return qs(e.details.empty() ? e.message : e.message + " (" + e.details + ")");
        };
        auto text =
            remote::readDocument(src, kMaxTextFileBytes, remote::remoteOptionsFromEnvironment());
        if (!text) return o.error = full(text.error()), o;
        auto shipped = loadBuiltinCatalog();
        if (!shipped) return o.error = full(shipped.error()), o;
        auto installed = installCatalogUpdate(*text, src, *shipped);
        if (!installed) return o.error = full(installed.error()), o;
        auto in_use = loadCatalogInUse();
        if (!in_use) return o.error = full(in_use.error()), o;
        o.summary = *installed;
        o.catalog = std::move(in_use->catalog);
        return o;
    }));
}

void MainWindow::restoreBuiltinCatalog() {
    auto removed = removeCatalogUpdate();
    if (!removed) {
        showError(tr("The catalog update was not removed: %1").arg(qs(removed.error().message)));
        return;
    }
    auto shipped = loadBuiltinCatalog();
    if (!shipped) {
        showError(
            tr("The built-in catalog could not be read: %1").arg(qs(shipped.error().message)));
        return;
    }
    clearError();
    applyCatalog(*shipped);
    statusBar()->showMessage(*removed ? tr("The built-in catalog is in use again")
                                      : tr("No catalog update was installed"),
                             8000);
}

// The draft models worth offering beside `model`: catalog models whose vocabulary llama.cpp
// would pair with it (common_speculative_are_compatible allows kDraftVocabSizeMaxDiff tokens
// apart) and with at most a quarter of its weights, since a draft pays off only when it is much
// faster than the target; smallest first.
void MainWindow::offerDrafts(const ModelShape& model) {
    std::vector<std::shared_ptr<const ModelShape>> offer;
    for (const auto& d : m_draft_pool) {
        if (d->id == model.id || model.n_vocab == 0 || d->n_vocab == 0) continue;
        const std::uint32_t apart =
            d->n_vocab > model.n_vocab ? d->n_vocab - model.n_vocab : model.n_vocab - d->n_vocab;
        if (apart <= llama::kDraftVocabSizeMaxDiff &&
            satMul(d->weightBytes(), 4) <= model.weightBytes())
            offer.push_back(d);
    }
    std::stable_sort(offer.begin(), offer.end(), [](const auto& a, const auto& b) {
        return a->weightBytes() < b->weightBytes();
    });
    if (offer.size() > 12) offer.resize(12);
    m_options->setDraftCandidates(std::move(offer));
    // A draft the new model cannot pair with was dropped by the panel: the plan drops it too.
    if (m_controller->options().draft.has_value() != m_options->options().draft.has_value()) {
        PlanOptions o = m_controller->options();
        o.draft = m_options->options().draft;
        const QSignalBlocker block(m_controller);
        m_controller->setOptions(o);
    }
}

void MainWindow::restoreState() {
    QSettings s;
    PlanOptions options;
    QString model = m_config.default_model_id;
    if (m_config.restore_state) {
        restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
        m_splitter->restoreState(s.value(QStringLiteral("window/splitter")).toByteArray());
        m_right_splitter->restoreState(
            s.value(QStringLiteral("window/rightSplitter")).toByteArray());
        m_left_splitter->restoreState(s.value(QStringLiteral("window/leftSplitter")).toByteArray());
        const CatalogModel* cm = m_picker->catalogModel();
        for (const QString& id : s.value(QStringLiteral("set/models")).toStringList()) {
            const int row = cm->rowOfId(id);
            const int quant = row >= 0 ? cm->quantIndexOfId(row, id) : -1;
            if (quant >= 0 && quant < int(cm->quantsAt(row).size()))
                m_set->addMember(cm->quantsAt(row)[size_t(quant)]);
        }
        options = optionsFromMap(s.value(QStringLiteral("plan/options")).toMap());
        model = s.value(QStringLiteral("plan/model"), model).toString();
        m_picker->setRecentFiles(s.value(QStringLiteral("models/recent")).toStringList());
        const QByteArray hw = s.value(QStringLiteral("hardware/snapshot")).toByteArray();
        if (!hw.isEmpty())
            if (auto snapshot = snapshotFromJson(hw)) m_hardware->setSnapshot(*snapshot);
        m_hardware->setLiveEnabled(s.value(QStringLiteral("hardware/live"), false).toBool());
    }
    if (!m_config.restore_state || s.value(QStringLiteral("window/geometry")).isNull()) {
        // The first size: roomy, but never larger than the screen (a 1366×768 laptop, 200 %).
        QSize size(1360, 860);
        if (const QScreen* screen = QGuiApplication::primaryScreen())
            size = size.boundedTo(screen->availableGeometry().size() * 0.92);
        resize(size);
    }
    m_options->setOptions(options);
    m_controller->setOptions(options);
    // A model opened from a file comes back by reading the file again (on a worker thread).
    if (!m_picker->selectModelId(model)) {
        if (QFileInfo(model).isFile())
            m_picker->openFile(model);
        else if (!m_picker->selectModelId(m_config.default_model_id) &&
                 m_picker->catalogModel()->rowCount() > 0)
            m_picker->view()->setCurrentIndex(m_picker->proxyModel()->index(0, 0));
    }
}

void MainWindow::saveState() const {
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/splitter"), m_splitter->saveState());
    s.setValue(QStringLiteral("window/rightSplitter"), m_right_splitter->saveState());
    s.setValue(QStringLiteral("window/leftSplitter"), m_left_splitter->saveState());
    // The set's catalog models (a model opened from a file is one session's).
    QStringList set;
    for (const QString& id : m_set->memberIds())
        if (m_picker->catalogModel()->rowOfId(id) >= 0) set << id;
    s.setValue(QStringLiteral("set/models"), set);
    s.setValue(QStringLiteral("plan/options"), optionsToMap(m_controller->options()));
    if (m_controller->model())
        s.setValue(QStringLiteral("plan/model"), qs(m_controller->model()->id));
    s.setValue(QStringLiteral("models/recent"), m_picker->recentFiles());
    s.setValue(
        QStringLiteral("hardware/snapshot"),
        QJsonDocument(snapshotToJson(m_controller->hardware())).toJson(QJsonDocument::Compact));
    s.setValue(QStringLiteral("hardware/live"), m_hardware->liveEnabled());
}

void MainWindow::closeEvent(QCloseEvent* e) {
    if (m_config.restore_state) saveState();
    e->accept();
}

void MainWindow::onModelSelected(const ModelShape& model) {
    offerDrafts(model);
    // A context target belongs to the model it was chosen for: 256K picked for one model must
    // not carry over and get the next one (trained to 32K) refused. Each model comes back with
    // its own target, or Auto when none was chosen for it.
    // Keyed by the model, not the quant ("qwen3-32b:Q3_K_M" is qwen3-32b): switching quant keeps
    // the target, so a smaller-quant remedy is applied at the context it was proven for.
    // (A file's id is its path, which may hold ':' itself.)
    // A row of the model list holds every quant of one model: its key is the model's.
    auto modelKey = [this](const ModelShape& m) {
        const CatalogModel* cm = m_picker->catalogModel();
        if (const int row = cm->rowOfId(qs(m.id)); row >= 0) return cm->rowKey(row);
        return m.source == ShapeSource::Catalog ? qs(m.id.substr(0, m.id.find(':'))) : qs(m.id);
    };
    if (const ModelShape* previous = m_controller->model()) {
        if (previous->id == model.id) return m_controller->setModel(model);
        if (modelKey(*previous) == modelKey(model)) return m_controller->setModel(model);
        m_context_by_model[modelKey(*previous)] = m_controller->options().context;
    }
    PlanOptions options = m_controller->options();
    const auto it = m_context_by_model.constFind(modelKey(model));
    options.context = it != m_context_by_model.cend() ? *it : std::nullopt;
    if (options.context != m_controller->options().context) {
        m_options->setOptions(options);
        // Options first, silently, so the new model is planned once, with its own target.
        const QSignalBlocker block(m_controller);
        m_controller->setOptions(options);
    }
    m_controller->setModel(model);
    m_fit_timer.start();
}

void MainWindow::onPlan(const Plan& plan) {
    clearError();
    std::vector<std::uint32_t> rungs;
    for (const Rung& r : plan.rungs)
        if (r.on_ladder) rungs.push_back(r.requested_context);
    m_options->setRungs(rungs, plan.model.n_ctx_train);
    m_charts->setPlan(plan);
    // MTP costs memory: the why panel shows how much by comparing with the same inputs without.
    std::optional<Plan> withoutMtp;
    if (plan.mtp) {
        PlanOptions off = plan.options;
        off.mtp = MtpMode::Off;
        if (auto p = m_controller->planWith(off)) withoutMtp = std::move(*p);
    }
    m_why->setPlan(plan, withoutMtp ? &*withoutMtp : nullptr, growthText(plan));
    m_export->setPlan(plan);
    m_verify->setPlan(plan);
    setWindowTitle(
        tr("%1 — Headroom").arg(qs(plan.model.name.empty() ? plan.model.id : plan.model.name)));
}

void MainWindow::showError(const QString& message) {
    m_banner->setText(message);
    m_banner->show();
    m_error_status = message;
    statusBar()->showMessage(message, 10000);
}

void MainWindow::clearError() {
    m_banner->clear();
    m_banner->hide();
    // The error's status-bar copy goes with it: a fixed problem must not linger below.
    if (!m_error_status.isEmpty() && statusBar()->currentMessage() == m_error_status)
        statusBar()->clearMessage();
    m_error_status.clear();
}

QString MainWindow::errorText() const {
    return m_banner->isHidden() ? QString() : m_banner->text();
}

void MainWindow::openModelFile(const QString& path) {
    m_picker->openFile(path);
}

void MainWindow::saveChart() {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save chart"), QStringLiteral("headroom-chart.png"),
                                     tr("PNG image (*.png);;SVG drawing (*.svg)"));
    if (path.isEmpty()) return;
    if (auto ok = m_charts->saveCurrentChart(path); !ok)
        showError(qs(ok.error().message));
    else
        statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
}

void MainWindow::about() {
    QMessageBox::about(
        this, tr("About Headroom"),
        tr("<h3>Headroom %1</h3>"
           "<p>Plans how a local LLM fits your machine with llama.cpp: for every context rung it "
           "prices weights, KV cache, recurrent state, compute buffers and MoE experts per device, "
           "explains refusals with the numbers and the fixes, estimates speed and exports launch "
           "configurations.</p><p>Figures model llama.cpp as shipped in node-llama-cpp 3.21.1.</p>")
            .arg(QStringLiteral(HEADROOM_VERSION)));
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    for (const QUrl& u : e->mimeData()->urls())
        if (u.isLocalFile() &&
            u.toLocalFile().endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive)) {
            e->acceptProposedAction();
            return;
        }
}

void MainWindow::dropEvent(QDropEvent* e) {
    for (const QUrl& u : e->mimeData()->urls())
        if (u.isLocalFile() &&
            u.toLocalFile().endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive))
            openModelFile(u.toLocalFile());
    e->acceptProposedAction();
}

} // namespace headroom::ui
