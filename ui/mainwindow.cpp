#include "mainwindow.h"

#include "catalogmodel.h"
#include "charts/chartspanel.h"
#include "exportpanel.h"
#include "hardwarejson.h"
#include "hardwarepanel.h"
#include "modelpicker.h"
#include "optionspanel.h"
#include "proberunner.h"
#include "whypanel.h"

#include "core/catalog.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>

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
    return o;
}

std::vector<ModelShape> catalogShapes(const Catalog& catalog) {
    std::vector<ModelShape> out;
    for (const CatalogEntry& e : catalog.entries()) {
        const CatalogQuant& def = e.defaultQuant();
        for (const CatalogQuant& q : e.quants) {
            ModelShape s = catalogShape(e, q);
            // One row per quant; the default quant keeps the bare id (what `--model ID` plans).
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
    bl->addStretch(1);
    m_right_splitter->addWidget(bottom);
    m_right_splitter->setStretchFactor(0, 3);
    m_right_splitter->setStretchFactor(1, 2);
    rl->addWidget(m_right_splitter, 1);

    m_splitter = new QSplitter(Qt::Horizontal);
    m_splitter->setObjectName(QStringLiteral("mainSplitter"));
    m_splitter->setChildrenCollapsible(false);
    m_splitter->addWidget(m_picker);
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

    // Inputs -> controller.
    connect(m_hardware, &HardwarePanel::snapshotChanged, m_controller,
            &PlanController::setHardware);
    connect(m_options, &OptionsPanel::optionsEdited, m_controller, &PlanController::setOptions);
    connect(m_picker, &ModelPicker::modelSelected, m_controller, &PlanController::setModel);
    connect(m_why, &WhyPanel::remedyChosen, this, [this](const PlanOptions& o) {
        m_options->setOptions(o);
        m_controller->setOptions(o);
        statusBar()->showMessage(tr("Remedy applied"), 4000);
    });
    // The fit column follows the machine and options (computed on a worker thread).
    // Debounced: a slider drag re-prices the whole catalog once, after the drag, and the worker
    // never competes with the repaint of the plan the user is looking at.
    m_fit_timer.setSingleShot(true);
    m_fit_timer.setInterval(kFitRefreshDelayMs);
    connect(&m_fit_timer, &QTimer::timeout, this, [this] {
        m_picker->catalogModel()->refreshFits(m_controller->hardware(), m_controller->options());
    });
    connect(m_controller, &PlanController::hardwareChanged, &m_fit_timer,
            qOverload<>(&QTimer::start));
    connect(m_controller, &PlanController::optionsChanged, &m_fit_timer,
            qOverload<>(&QTimer::start));
    // Controller -> views.
    connect(m_controller, &PlanController::planChanged, this, &MainWindow::onPlan);
    connect(m_controller, &PlanController::planFailed, this, [this](const QString& message) {
        showError(tr("Cannot plan: %1").arg(message));
        m_charts->clear();
        m_why->clear(tr("No plan: %1").arg(message));
        m_export->clear();
    });
    connect(m_charts, &ChartsPanel::rungActivated, m_why, &WhyPanel::selectRung);
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

    buildMenus();
    connect(m_picker, &ModelPicker::recentFilesChanged, this, &MainWindow::rebuildRecentMenu);
    loadCatalog();
    restoreState();
    if (config.probe_on_start) m_hardware->startProbe();
}

MainWindow::~MainWindow() = default;

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
    auto catalog = loadBuiltinCatalog();
    if (!catalog) {
        showError(tr("The built-in catalog could not be read: %1. Open a GGUF file instead.")
                      .arg(qs(catalog.error().message)));
        return;
    }
    m_picker->catalogModel()->setModels(catalogShapes(*catalog));
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
        options = optionsFromMap(s.value(QStringLiteral("plan/options")).toMap());
        model = s.value(QStringLiteral("plan/model"), model).toString();
        m_picker->setRecentFiles(s.value(QStringLiteral("models/recent")).toStringList());
        const QByteArray hw = s.value(QStringLiteral("hardware/snapshot")).toByteArray();
        if (!hw.isEmpty())
            if (auto snapshot = snapshotFromJson(hw)) m_hardware->setSnapshot(*snapshot);
        m_hardware->setLiveEnabled(s.value(QStringLiteral("hardware/live"), false).toBool());
    } else {
        resize(1360, 860);
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

void MainWindow::onPlan(const Plan& plan) {
    clearError();
    std::vector<std::uint32_t> rungs;
    for (const Rung& r : plan.rungs)
        if (r.on_ladder) rungs.push_back(r.requested_context);
    m_options->setRungs(rungs, plan.model.n_ctx_train);
    m_charts->setPlan(plan);
    m_why->setPlan(plan);
    m_export->setPlan(plan);
    setWindowTitle(
        tr("%1 — Headroom").arg(qs(plan.model.name.empty() ? plan.model.id : plan.model.name)));
}

void MainWindow::showError(const QString& message) {
    m_banner->setText(message);
    m_banner->show();
    statusBar()->showMessage(message, 10000);
}

void MainWindow::clearError() {
    m_banner->clear();
    m_banner->hide();
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
