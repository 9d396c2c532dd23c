#include "chartspanel.h"

#include "rungmodels.h"
#include "setchart.h"
#include "setmodel.h"

#include "core/atomic_write.h"

#include <QtCharts/QAreaSeries>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QCategoryAxis>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QStackedBarSeries>
#include <QtCharts/QVXYModelMapper>
#include <QtCharts/QValueAxis>

#include <QAction>
#include <QApplication>
#include <QBuffer>
#include <QClipboard>
#include <QGuiApplication>
#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTableView>

#include <QCursor>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QPainter>
#include <QPalette>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

namespace headroom::ui {

namespace {

// One colour per term, the same on every chart, readable on light and dark palettes.
QColor termColor(int column) {
    switch (column) {
    case RungMemoryModel::Weights:
        return QColor(0x4c, 0x72, 0xb0);
    case RungMemoryModel::Experts:
        return QColor(0x81, 0x72, 0xb3);
    case RungMemoryModel::Kv:
        return QColor(0xdd, 0x84, 0x52);
    case RungMemoryModel::RecurrentState:
        return QColor(0xda, 0x8b, 0xc3);
    case RungMemoryModel::Compute:
        return QColor(0x55, 0xa8, 0x68);
    case RungMemoryModel::Output:
        return QColor(0x93, 0x78, 0x60);
    case RungMemoryModel::Overhead:
        return QColor(0x8c, 0x8c, 0x8c);
    case RungMemoryModel::Mmproj:
        return QColor(0xcc, 0xb9, 0x74);
    case RungMemoryModel::Draft:
        return QColor(0x64, 0xb5, 0xcd);
    }
    return Qt::gray;
}

// The rungs' contexts ("8K", "32K") as axis categories. Plain on purpose: the verdict marks of
// the models' labels ("▸8K", "32K✕") change whenever an option moves the launch window or a
// refusal, and new category strings make Qt Charts lay the whole chart out again (every axis
// label is a text document measured anew) — the costliest part of such an input
// (bench_ui_latency). The verdict is drawn on the bars instead (markVerdicts).
QStringList categoriesFrom(const QAbstractItemModel* model, int column) {
    QStringList out;
    for (int r = 0; r < model->rowCount(); ++r)
        out << tokensText(model->index(r, column).data(ContextRole).toULongLong());
    return out;
}

// Refused rungs' bars are drawn faded (the bar sets' selected colour) and the launch window
// gets a marker on top of its bar: both repaint the bars only, where a changed category label
// would relay the chart out. Touches only bars whose state differs.
void markVerdicts(QAbstractBarSeries* series, QScatterSeries* launch,
                  const QAbstractItemModel* model, int firstTerm, int lastTerm) {
    const int rows = model->rowCount();
    QList<QPointF> chosen;
    for (QBarSet* set : series->barSets()) {
        QColor faded = set->color();
        faded.setAlpha(70);
        if (set->selectedColor() != faded) set->setSelectedColor(faded);
    }
    for (int r = 0; r < rows; ++r) {
        const bool refused =
            model->index(r, 0).data(VerdictRole).toString() == QLatin1String("refused");
        for (QBarSet* set : series->barSets())
            if (r < set->count() && set->isBarSelected(r) != refused)
                set->setBarSelected(r, refused);
        if (model->index(r, 0).data(ChosenRole).toBool()) {
            double top = 0;
            for (int c = firstTerm; c <= lastTerm; ++c)
                top += std::max(0.0, model->index(r, c).data().toDouble());
            chosen << QPointF(r, top);
        }
    }
    if (launch->points() != chosen) launch->replace(chosen);
}

// A speed range as a translucent band behind its line (setTheme() resets it: re-applied on a
// palette change).
void styleRangeBand(QAreaSeries* band) {
    QColor fill(0x2e, 0x86, 0xc1);
    fill.setAlpha(50);
    band->setBrush(fill);
    band->setPen(Qt::NoPen);
}

double columnMax(const QAbstractItemModel* model, const QList<int>& columns, bool stacked) {
    double best = 0;
    for (int r = 0; r < model->rowCount(); ++r) {
        double sum = 0;
        for (int c : columns) {
            const double v = model->index(r, c).data().toDouble();
            sum = stacked ? sum + std::max(0.0, v) : std::max(sum, v);
        }
        best = std::max(best, sum);
    }
    return best;
}

// The budget of each rung as a horizontal step across that rung's slot (x from row - 0.5 to
// row + 0.5 on the category axis): a line even when the plan has a single rung, where a
// point-per-rung line would shrink to a dot. Replaced in place, so the chart keeps its items.
void fillBudgetSteps(QLineSeries* line, const QAbstractItemModel* model, int budgetColumn) {
    QList<QPointF> points;
    for (int r = 0; r < model->rowCount(); ++r) {
        const double v = model->index(r, budgetColumn).data().toDouble();
        points << QPointF(r - 0.5, v) << QPointF(r + 0.5, v);
    }
    if (points != line->points()) line->replace(points);
}

QLineSeries* budgetLine(QAbstractItemModel* model, int budgetColumn, QChart* chart) {
    auto* line = new QLineSeries(chart);
    line->setName(QObject::tr("Budget"));
    styleBudget(line);
    auto refill = [line, model, budgetColumn] { fillBudgetSteps(line, model, budgetColumn); };
    QObject::connect(model, &QAbstractItemModel::modelReset, line, refill);
    QObject::connect(model, &QAbstractItemModel::dataChanged, line, refill);
    refill();
    return line;
}

// QTabBar lays its tabs out again on every setTabEnabled, even an unchanged one, and asks the
// window for a relayout with them.
void setTabEnabledIfChanged(QTabWidget* tabs, int index, bool enabled) {
    if (tabs->isTabEnabled(index) != enabled) tabs->setTabEnabled(index, enabled);
}

// Category axis below, GiB axis left, both attached to the bars and the budget line drawn over
// them: the frame every memory chart shares.
std::pair<QBarCategoryAxis*, QValueAxis*> attachGiBAxes(QChart* chart, QAbstractSeries* bars,
                                                        QLineSeries* budget) {
    auto* x = new QBarCategoryAxis(chart);
    auto* y = new QValueAxis(chart);
    y->setTitleText(QObject::tr("GiB"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    styleAxis(x);
    styleAxis(y);
    for (QAbstractSeries* s : {bars, static_cast<QAbstractSeries*>(budget)}) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    return {x, y};
}

} // namespace

ChartsPanel::ChartsPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("chartsPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("chartTabs"));
    m_tabs->setAccessibleName(tr("Charts"));
    m_tabs->setDocumentMode(true);
    layout->addWidget(m_tabs);
    // Inputs that cannot be priced get their reason here, in place of empty charts with
    // meaningless 0..1 axes.
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("chartsMessage"));
    m_message->setAccessibleName(tr("Why there is no chart"));
    m_message->setWordWrap(true);
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->hide();
    layout->addWidget(m_message, 1);

    m_memory_page = new QWidget(m_tabs);
    auto* page = new QVBoxLayout(m_memory_page);
    page->setContentsMargins(0, 0, 0, 0);
    page->setSpacing(0);
    m_legend = new QLabel(m_memory_page);
    m_legend->setObjectName(QStringLiteral("memoryLegend"));
    m_legend->setAccessibleName(tr("Legend of the memory charts"));
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setContentsMargins(4, 2, 4, 0);
    page->addWidget(m_legend);
    m_memory_layout = new QHBoxLayout;
    m_memory_layout->setContentsMargins(0, 0, 0, 0);
    m_memory_layout->setSpacing(2);
    page->addLayout(m_memory_layout, 1);
    m_tabs->addTab(m_memory_page, tr("Memory per rung"));

    m_speed_model = new SpeedModel(this);
    buildSpeedTab();

    m_moe_model = new MoeCurveModel(this);
    buildMoeTab();

    m_expert_model = new ExpertSplitModel(this);
    buildExpertTab();
    m_table_model = new RungTableModel(this);
    m_table_model->setObjectName(QStringLiteral("rungTableModel"));
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(m_table_model);
    proxy->setSortRole(SortRole);
    m_table = new QTableView(m_tabs);
    m_table->setObjectName(QStringLiteral("rungTable"));
    m_table->setAccessibleName(tr("Numbers per rung"));
    m_table->setToolTip(tr("Every term per device, the verdict and the speed of each rung; "
                           "click a header to sort, Ctrl+C copies the selection as TSV"));
    m_table->setModel(proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    // Columns fit their contents while the table is shown (and when it comes up after changes):
    // ResizeToContents measured every cell of the table again on each plan, on a hidden tab too,
    // a millisecond of every option change (bench_ui_latency).
    {
        auto stale = std::make_shared<bool>(true);
        auto fit = [this, stale] {
            *stale = m_tabs->currentWidget() != m_table;
            if (!*stale) m_table->resizeColumnsToContents();
        };
        connect(m_table_model, &QAbstractItemModel::modelReset, m_table, fit);
        connect(m_table_model, &QAbstractItemModel::dataChanged, m_table, fit);
        connect(m_tabs, &QTabWidget::currentChanged, m_table, [this, stale] {
            if (*stale && m_tabs->currentWidget() == m_table) {
                *stale = false;
                m_table->resizeColumnsToContents();
            }
        });
    }
    m_table->setTabKeyNavigation(false);
    auto* copy = new QAction(tr("Copy as TSV"), m_table);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this,
            [this] { QGuiApplication::clipboard()->setText(selectionAsTsv(m_table)); });
    m_table->addAction(copy);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
    connect(m_table, &QTableView::activated, this, [this, proxy](const QModelIndex& i) {
        Q_EMIT rungActivated(proxy->mapToSource(i).row());
    });
    m_tabs->addTab(m_table, tr("Numbers &table"));
    rebuildMemoryCharts(0);
}

// Decode and prefill speed against context, with the decode range as a band.
void ChartsPanel::buildSpeedTab() {
    auto* chart = new QChart;
    styleChart(chart);
    chart->setTitle(tr("Speed vs context"));
    auto* decode = new QLineSeries(chart);
    decode->setName(tr("Decode tok/s"));
    decode->setPointsVisible(true);
    auto* prefill = new QLineSeries(chart);
    prefill->setName(tr("Prefill tok/s"));
    prefill->setPointsVisible(true);
    for (const auto& line : {std::pair{decode, int(SpeedModel::Decode)},
                             std::pair{prefill, int(SpeedModel::Prefill)}}) {
        // Named copies, not structured bindings: lambdas capture them below.
        QLineSeries* const series = line.first;
        const int column = line.second;
        auto* mapper = new QVXYModelMapper(series);
        mapper->setModel(m_speed_model);
        mapper->setSeries(series);
        mapper->setXColumn(SpeedModel::X);
        mapper->setYColumn(column);
        chart->addSeries(series);
        connect(series, &QLineSeries::hovered, this, [this, column](const QPointF& p, bool on) {
            showHover(m_speed_model, qRound(p.x()), column, on);
        });
        connect(series, &QLineSeries::clicked, this,
                [this](const QPointF& p) { Q_EMIT rungActivated(qRound(p.x())); });
    }
    // The decode range as a band behind the decode line (mapped like the lines).
    auto* low = new QLineSeries(chart);
    auto* high = new QLineSeries(chart);
    for (const auto& edge : {std::pair{low, int(SpeedModel::DecodeLow)},
                             std::pair{high, int(SpeedModel::DecodeHigh)}}) {
        auto* mapper = new QVXYModelMapper(edge.first);
        mapper->setModel(m_speed_model);
        mapper->setSeries(edge.first);
        mapper->setXColumn(SpeedModel::X);
        mapper->setYColumn(edge.second);
    }
    auto* band = new QAreaSeries(high, low);
    band->setName(tr("Decode range"));
    styleRangeBand(band);
    chart->addSeries(band);
    auto* chosen = new QScatterSeries(chart);
    chosen->setName(tr("Launch window"));
    chosen->setMarkerSize(14);
    chosen->setColor(QColor(0xf1, 0xc4, 0x0f));
    chart->addSeries(chosen);
    auto* x = new QCategoryAxis(chart);
    x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    x->setTitleText(tr("Context"));
    auto* yDecode = new QValueAxis(chart);
    yDecode->setTitleText(tr("decode tok/s"));
    yDecode->setLabelFormat(QStringLiteral("%.0f"));
    auto* yPrefill = new QValueAxis(chart);
    yPrefill->setTitleText(tr("prefill tok/s"));
    yPrefill->setLabelFormat(QStringLiteral("%.0f"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(yDecode, Qt::AlignLeft);
    chart->addAxis(yPrefill, Qt::AlignRight);
    for (QAbstractAxis* a : {static_cast<QAbstractAxis*>(x), static_cast<QAbstractAxis*>(yDecode),
                             static_cast<QAbstractAxis*>(yPrefill)})
        styleAxis(a);
    decode->attachAxis(x);
    decode->attachAxis(yDecode);
    band->attachAxis(x);
    band->attachAxis(yDecode);
    chosen->attachAxis(x);
    chosen->attachAxis(yDecode);
    prefill->attachAxis(x);
    prefill->attachAxis(yPrefill);
    // Axes and the highlighted launch point follow the model (read from it, never stored).
    // Each is touched only when it differs: a changed label or range relays the chart out
    // (every tick label measured again), even on a tab that is not shown.
    auto speedAxes = [this, x, yDecode, yPrefill, chosen] {
        const int n = m_speed_model->rowCount();
        QStringList labels;
        QList<QPointF> launch;
        for (int r = 0; r < n; ++r) {
            // Plain contexts, as on the memory charts: the launch window is the yellow point.
            labels << tokensText(
                m_speed_model->index(r, SpeedModel::Label).data(ContextRole).toULongLong());
            if (m_speed_model->index(r, 0).data(ChosenRole).toBool())
                launch << QPointF(r, m_speed_model->index(r, SpeedModel::Decode).data().toDouble());
        }
        if (x->categoriesLabels() != labels) {
            for (const QString& l : x->categoriesLabels())
                x->remove(l);
            for (int r = 0; r < n; ++r)
                x->append(labels[r], r);
        }
        if (chosen->points() != launch) chosen->replace(launch);
        setRangeIfChanged(x, -0.25, std::max(0.25, n - 0.75));
        // Nice ticks (as on the GiB axes), which also keep the range while an option moves
        // the lines a few percent: most changes cost this chart no relayout.
        applyNiceAxis(yDecode,
                      std::max(1.0, columnMax(m_speed_model,
                                              {SpeedModel::Decode, SpeedModel::DecodeHigh}, false) *
                                        1.05));
        applyNiceAxis(yPrefill,
                      std::max(1.0, columnMax(m_speed_model, {SpeedModel::Prefill}, false) * 1.1));
    };
    whileShown(m_speed_model, chart, &m_speed_view, speedAxes);
    m_speed_view = new QChartView(chart, m_tabs);
    m_speed_view->setObjectName(QStringLiteral("speedChart"));
    m_speed_view->setAccessibleName(tr("Speed vs context chart"));
    m_speed_view->setRenderHint(QPainter::Antialiasing);
    m_speed_view->viewport()->installEventFilter(this);
    m_speed_view->setFocusPolicy(Qt::NoFocus);
    m_tabs->addTab(m_speed_view, tr("Speed"));
}

// The MoE offload curve: decode (with its range as a band) and prefill against the number of
// blocks whose experts stay on the CPU, GPU GiB on the right, at the launch window.
void ChartsPanel::buildMoeTab() {
    auto* chart = new QChart;
    styleChart(chart);
    auto* low = new QLineSeries(chart);
    auto* high = new QLineSeries(chart);
    auto* decode = new QLineSeries(chart);
    decode->setName(tr("Decode tok/s"));
    decode->setPointsVisible(true);
    auto* gpu = new QLineSeries(chart);
    gpu->setName(tr("GPU GiB"));
    for (const auto& line : {std::pair{low, int(MoeCurveModel::DecodeLow)},
                             std::pair{high, int(MoeCurveModel::DecodeHigh)},
                             std::pair{decode, int(MoeCurveModel::Decode)},
                             std::pair{gpu, int(MoeCurveModel::GpuGiB)}}) {
        auto* mapper = new QVXYModelMapper(line.first);
        mapper->setModel(m_moe_model);
        mapper->setSeries(line.first);
        mapper->setXColumn(MoeCurveModel::NCpuMoe);
        mapper->setYColumn(line.second);
    }
    // The band is drawn from the mapped low/high lines (the area owns no data of its own).
    auto* band = new QAreaSeries(high, low);
    band->setName(tr("Decode range"));
    styleRangeBand(band);
    chart->addSeries(band);
    chart->addSeries(decode);
    chart->addSeries(gpu);
    for (QLineSeries* series : {decode, gpu}) {
        const int column =
            series == decode ? int(MoeCurveModel::Decode) : int(MoeCurveModel::GpuGiB);
        connect(series, &QLineSeries::hovered, this, [this, column](const QPointF& p, bool on) {
            showHover(m_moe_model, qRound(p.x()), column, on);
        });
    }
    auto* x = new QValueAxis(chart);
    x->setTitleText(tr("--n-cpu-moe (blocks whose experts stay in RAM)"));
    x->setLabelFormat(QStringLiteral("%.0f"));
    auto* yDecode = new QValueAxis(chart);
    yDecode->setTitleText(tr("decode tok/s"));
    yDecode->setLabelFormat(QStringLiteral("%.0f"));
    auto* yGpu = new QValueAxis(chart);
    yGpu->setTitleText(tr("GPU GiB"));
    yGpu->setLabelFormat(QStringLiteral("%.0f"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(yDecode, Qt::AlignLeft);
    chart->addAxis(yGpu, Qt::AlignRight);
    for (QAbstractAxis* a : {static_cast<QAbstractAxis*>(x), static_cast<QAbstractAxis*>(yDecode),
                             static_cast<QAbstractAxis*>(yGpu)})
        styleAxis(a);
    for (QAbstractSeries* series :
         {static_cast<QAbstractSeries*>(band), static_cast<QAbstractSeries*>(decode)}) {
        series->attachAxis(x);
        series->attachAxis(yDecode);
    }
    gpu->attachAxis(x);
    gpu->attachAxis(yGpu);
    auto moeAxes = [this, chart, x, yDecode, yGpu] {
        const int n = m_moe_model->rowCount();
        const QString title = tr("MoE offload curve at %1 (estimates, band = decode range)")
                                  .arg(tokensText(m_moe_model->context()));
        if (chart->title() != title) chart->setTitle(title);
        setRangeIfChanged(x, 0, std::max(1, n - 1));
        setRangeIfChanged(
            yDecode, 0,
            std::max(1.0, columnMax(m_moe_model, {MoeCurveModel::DecodeHigh}, false) * 1.05));
        setRangeIfChanged(
            yGpu, 0, std::max(1.0, columnMax(m_moe_model, {MoeCurveModel::GpuGiB}, false) * 1.1));
    };
    connect(m_moe_model, &QAbstractItemModel::modelReset, chart, moeAxes);
    connect(m_moe_model, &QAbstractItemModel::dataChanged, chart, moeAxes);
    m_moe_view = new QChartView(chart, m_tabs);
    m_moe_view->setObjectName(QStringLiteral("moeCurveChart"));
    m_moe_view->setAccessibleName(tr("MoE offload curve chart"));
    m_moe_view->setRenderHint(QPainter::Antialiasing);
    m_moe_view->viewport()->installEventFilter(this);
    m_moe_view->setFocusPolicy(Qt::NoFocus);
    m_tabs->addTab(m_moe_view, tr("MoE offload"));
    // The curve is priced when it comes on screen (see MoeCurveModel::refresh).
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        if (m_tabs->currentWidget() == m_moe_view) m_moe_model->refresh();
    });
}

// The expert cache against the KV cache of the launch window (MoE models only).
void ChartsPanel::buildExpertTab() {
    auto* chart = new QChart;
    styleChart(chart);
    chart->setTitle(tr("MoE: expert cache vs KV on the GPU"));
    auto* series = new QStackedBarSeries(chart);
    bindBarSets(series, m_expert_model, ExpertSplitModel::ExpertSlots, ExpertSplitModel::KvPages);
    chart->addSeries(series);
    auto* budget = budgetLine(m_expert_model, ExpertSplitModel::Budget, chart);
    chart->addSeries(budget);
    connect(budget, &QLineSeries::hovered, this, [this](const QPointF& p, bool on) {
        showHover(m_expert_model, qRound(p.x()), ExpertSplitModel::Budget, on);
    });
    const auto axes = attachGiBAxes(chart, series, budget);
    auto* const x = axes.first;
    auto* const y = axes.second;
    // Coloured once the chart holds the series (adding it applies the theme's colours).
    {
        const QList<QBarSet*> sets = series->barSets();
        sets[0]->setColor(termColor(RungMemoryModel::Experts));
        sets[1]->setColor(termColor(RungMemoryModel::Kv));
    }
    connect(series, &QStackedBarSeries::hovered, this,
            [this, series](bool on, int row, QBarSet* set) {
                showHover(m_expert_model, row,
                          ExpertSplitModel::ExpertSlots + int(series->barSets().indexOf(set)), on);
            });
    connect(series, &QStackedBarSeries::clicked, this,
            [this](int row, QBarSet*) { Q_EMIT rungActivated(row); });
    auto expertAxes = [this, x, y] {
        const QStringList categories = categoriesFrom(m_expert_model, ExpertSplitModel::Label);
        if (x->categories() != categories) x->setCategories(categories);
        const double top =
            std::max(columnMax(m_expert_model,
                               {ExpertSplitModel::ExpertSlots, ExpertSplitModel::KvPages}, true),
                     columnMax(m_expert_model, {ExpertSplitModel::Budget}, false));
        applyNiceAxis(y, top);
    };
    whileShown(m_expert_model, chart, &m_expert_view, expertAxes);
    m_expert_view = new QChartView(chart, m_tabs);
    m_expert_view->setObjectName(QStringLiteral("expertChart"));
    m_expert_view->setAccessibleName(tr("Expert cache versus KV chart"));
    // Axis-aligned bars and lines only: no antialiasing (see makeMemoryChart).
    m_expert_view->setRenderHint(QPainter::Antialiasing, false);
    m_expert_view->viewport()->installEventFilter(this);
    m_expert_view->setFocusPolicy(Qt::NoFocus);
    m_tabs->addTab(m_expert_view, tr("E&xperts vs KV"));
}

void ChartsPanel::whileShown(QAbstractItemModel* model, QObject* chart, QChartView* const* view,
                             const std::function<void()>& update) {
    // A chart on a tab that is not shown still lays its axes out again on every change of range
    // or labels (each tick label measured); its axes follow the model when its tab is current,
    // and catch up when the tab comes up.
    auto stale = std::make_shared<bool>(false);
    auto onChange = [this, stale, view, update] {
        if (m_tabs->currentWidget() != *view) {
            *stale = true;
            return;
        }
        *stale = false;
        update();
    };
    connect(model, &QAbstractItemModel::modelReset, chart, onChange);
    connect(model, &QAbstractItemModel::dataChanged, chart, onChange);
    connect(m_tabs, &QTabWidget::currentChanged, chart, [this, stale, view, update] {
        if (*stale && m_tabs->currentWidget() == *view) {
            *stale = false;
            update();
        }
    });
}

QString selectionAsTsv(const QTableView* view) {
    const QModelIndexList selected = view->selectionModel()->selectedIndexes();
    if (selected.isEmpty()) return {};
    // The selection's bounding rows and columns in view order (a sorted view copies sorted),
    // with a header line, so a paste into a spreadsheet keeps its labels.
    QList<int> rows, cols;
    for (const QModelIndex& i : selected) {
        if (!rows.contains(i.row())) rows << i.row();
        if (!cols.contains(i.column())) cols << i.column();
    }
    std::sort(rows.begin(), rows.end());
    std::sort(cols.begin(), cols.end());
    const QAbstractItemModel* m = view->model();
    QStringList lines;
    QStringList header;
    for (int c : cols)
        header << m->headerData(c, Qt::Horizontal).toString();
    lines << header.join(QLatin1Char('\t'));
    for (int r : rows) {
        QStringList cells;
        for (int c : cols)
            cells << (view->selectionModel()->isSelected(m->index(r, c))
                          ? m->index(r, c).data().toString()
                          : QString());
        lines << cells.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QChartView* ChartsPanel::makeMemoryChart(RungMemoryModel* model) {
    auto* chart = new QChart;
    styleChart(chart);
    auto* series = new QStackedBarSeries(chart);
    series->setBarWidth(0.7);
    bindBarSets(series, model, RungMemoryModel::Weights, RungMemoryModel::LastTerm);
    chart->addSeries(series);
    auto* budget = budgetLine(model, RungMemoryModel::Budget, chart);
    chart->addSeries(budget);
    connect(budget, &QLineSeries::hovered, this, [this, model](const QPointF& p, bool on) {
        showHover(model, qRound(p.x()), RungMemoryModel::Budget, on);
    });
    const auto axes = attachGiBAxes(chart, series, budget);
    auto* const x = axes.first;
    auto* const y = axes.second;
    // The launch window: a marker on top of its bar (the colour of the speed chart's).
    auto* launch = new QScatterSeries(chart);
    launch->setName(tr("Launch window"));
    launch->setMarkerShape(QScatterSeries::MarkerShapeRectangle); // crisp without antialiasing
    launch->setMarkerSize(11);
    launch->setColor(QColor(0xf1, 0xc4, 0x0f));
    launch->setBorderColor(QColor(0x7d, 0x66, 0x08));
    chart->addSeries(launch);
    launch->attachAxis(x);
    launch->attachAxis(y);
    connect(launch, &QScatterSeries::clicked, this,
            [this](const QPointF& p) { Q_EMIT rungActivated(qRound(p.x())); });
    auto recolor = [series] {
        const QList<QBarSet*> sets = series->barSets();
        for (int i = 0; i < sets.size(); ++i) {
            sets[i]->setColor(termColor(RungMemoryModel::Weights + i));
            sets[i]->setBorderColor(termColor(RungMemoryModel::Weights + i).darker(115));
        }
    };
    recolor();
    connect(series, &QStackedBarSeries::hovered, this,
            [this, model, series](bool on, int row, QBarSet* set) {
                showHover(model, row,
                          RungMemoryModel::Weights + int(series->barSets().indexOf(set)), on);
            });
    connect(series, &QStackedBarSeries::clicked, this,
            [this](int row, QBarSet*) { Q_EMIT rungActivated(row); });
    // Title, categories and the axis range change only when they differ: an unchanged axis
    // costs no relayout, so an option change that moves bars repaints one frame.
    auto relabel = [model, chart, x, y, series, launch] {
        if (chart->title() != model->deviceName()) chart->setTitle(model->deviceName());
        const QStringList categories = categoriesFrom(model, RungMemoryModel::Label);
        if (x->categories() != categories) x->setCategories(categories);
        markVerdicts(series, launch, model, RungMemoryModel::Weights, RungMemoryModel::LastTerm);
        QList<int> terms;
        for (int c = RungMemoryModel::Weights; c <= RungMemoryModel::LastTerm; ++c)
            terms << c;
        const double top = std::max(columnMax(model, terms, true),
                                    columnMax(model, {RungMemoryModel::Budget}, false));
        applyNiceAxis(y, top);
    };
    connect(model, &QAbstractItemModel::modelReset, chart, relabel);
    connect(model, &QAbstractItemModel::dataChanged, chart, relabel);
    // One legend for the row of memory charts (they share colours) is drawn above them by the
    // panel; a per-chart legend would not fit eight terms at 1024 px.
    chart->legend()->setVisible(false);
    relabel();
    auto* view = new QChartView(chart, m_memory_page);
    // Not a tab stop: a chart has nothing to do with focus and would show none. The numbers
    // table is the keyboard's way to the same rungs (Enter on a row picks it).
    view->setFocusPolicy(Qt::NoFocus);
    // No antialiasing: every shape here is axis-aligned (bars, grid, budget steps, the square
    // marker), and antialiased grid lines are stroked as paths, the largest part of repainting
    // these charts on each option change (bench_ui_latency). Text stays antialiased.
    view->setRenderHint(QPainter::Antialiasing, false);
    view->setMinimumSize(220, 220);
    return view;
}

void ChartsPanel::rebuildMemoryCharts(int devices) {
    const int wanted = devices + 1; // every GPU, then host RAM
    if (int(m_memory_models.size()) == wanted) return;
    for (QChartView* v : m_memory_views)
        delete v;
    for (RungMemoryModel* m : m_memory_models)
        delete m;
    m_memory_views.clear();
    m_memory_models.clear();
    for (int i = 0; i < wanted; ++i) {
        const int device = i < devices ? i : RungMemoryModel::kHost;
        auto* model = new RungMemoryModel(device, this);
        model->setObjectName(device == RungMemoryModel::kHost
                                 ? QStringLiteral("hostMemoryModel")
                                 : QStringLiteral("gpu%1MemoryModel").arg(i));
        m_memory_models.push_back(model);
        QChartView* view = makeMemoryChart(model);
        view->setObjectName(device == RungMemoryModel::kHost
                                ? QStringLiteral("hostMemoryChart")
                                : QStringLiteral("gpu%1MemoryChart").arg(i));
        view->setAccessibleName(device == RungMemoryModel::kHost
                                    ? tr("Host RAM per rung chart")
                                    : tr("GPU %1 memory per rung chart").arg(i));
        // The host chart only matters when something lands in RAM; GPUs get more width.
        view->viewport()->installEventFilter(this);
        m_memory_layout->addWidget(view, device == RungMemoryModel::kHost ? 2 : 3);
        m_memory_views.push_back(view);
    }
}

void ChartsPanel::showMessage(const QString& message) {
    // The charts stay as they are behind the message, hidden (never shown with it): emptied,
    // every chart would lay its axes out for no rungs and again for the next plan — an input
    // that is invalid one moment and fixed the next (bench_ui_latency) paid both.
    if (m_message->text() != message) m_message->setText(message);
    if (m_message->isHidden()) {
        m_tabs->hide();
        m_message->show();
    }
}

QString ChartsPanel::message() const {
    return m_message->isHidden() ? QString() : m_message->text();
}

void ChartsPanel::setPlan(const Plan& plan) {
    if (!m_message->isHidden()) {
        m_message->hide();
        m_tabs->show();
    }
    const int devices = plan.rungs.empty() ? int(plan.hardware.gpus.size())
                                           : int(plan.rungs.front().devices.size());
    rebuildMemoryCharts(devices);
    for (RungMemoryModel* m : m_memory_models)
        m->setPlan(plan);
    updateLegend();
    m_speed_model->setPlan(plan);
    m_expert_model->setPlan(plan);
    m_table_model->setPlan(plan);
    setTabEnabledIfChanged(m_tabs, m_tabs->indexOf(m_expert_view), m_expert_model->applicable());
    m_moe_model->setPlan(plan);
    setTabEnabledIfChanged(m_tabs, m_tabs->indexOf(m_moe_view), m_moe_model->applicable());
    if (m_tabs->currentWidget() == m_moe_view) m_moe_model->refresh();
}

void ChartsPanel::clear() {
    setPlan(Plan{});
}

void ChartsPanel::changeEvent(QEvent* e) {
    QWidget::changeEvent(e);
    if (e->type() != QEvent::PaletteChange && e->type() != QEvent::ApplicationPaletteChange) return;
    for (QChartView* v : chartViews()) {
        // setTheme() resets series colours: keep the term colours the legend promises.
        QList<QColor> colours;
        for (QAbstractSeries* s : v->chart()->series())
            if (auto* bars = qobject_cast<QStackedBarSeries*>(s))
                for (QBarSet* set : bars->barSets())
                    colours << set->color();
        styleChart(v->chart());
        for (QAbstractAxis* a : v->chart()->axes())
            styleAxis(a);
        int i = 0;
        for (QAbstractSeries* s : v->chart()->series()) {
            if (auto* line = qobject_cast<QLineSeries*>(s); line && line->name() == tr("Budget"))
                styleBudget(line);
            if (auto* chosen = qobject_cast<QScatterSeries*>(s))
                chosen->setColor(QColor(0xf1, 0xc4, 0x0f));
            if (auto* band = qobject_cast<QAreaSeries*>(s)) styleRangeBand(band);
        }
        for (QAbstractSeries* s : v->chart()->series())
            if (auto* bars = qobject_cast<QStackedBarSeries*>(s))
                for (QBarSet* set : bars->barSets())
                    if (i < colours.size()) set->setColor(colours[i++]);
    }
}

QStringList ChartsPanel::legendEntries() const {
    // Every term drawn on any memory chart (a term that is zero on every rung of every chart —
    // no experts in a dense model — is not drawn, so it is not listed), then the budget line.
    QStringList out;
    for (int c = RungMemoryModel::Weights; c <= RungMemoryModel::LastTerm; ++c) {
        bool drawn = false;
        for (const RungMemoryModel* m : m_memory_models)
            for (int r = 0; r < m->rowCount() && !drawn; ++r)
                drawn = m->cellBytes(r, c) > 0;
        if (drawn) out << RungMemoryModel::columnName(c);
    }
    bool anyRung = false;
    for (const RungMemoryModel* m : m_memory_models)
        anyRung = anyRung || m->rowCount() > 0;
    // The key to the verdict marks, listed whenever there are bars (always, not only while a
    // rung is refused or launched: a legend whose entries come and go relays the window out).
    if (anyRung) out << tr("Budget") << tr("Launch window") << tr("Refused (faded)");
    return out;
}

void ChartsPanel::updateLegend() {
    QStringList items;
    const QStringList entries = legendEntries();
    for (const QString& e : entries) {
        int column = -1;
        for (int c = RungMemoryModel::Weights; c <= RungMemoryModel::LastTerm; ++c)
            if (RungMemoryModel::columnName(c) == e) column = c;
        QString swatch =
            column >= 0
                ? QStringLiteral("<span style=\"color:%1\">■</span>").arg(termColor(column).name())
                : QStringLiteral("<span style=\"color:#c0392b\"><b>- - -</b></span>");
        if (e == tr("Launch window"))
            swatch = QStringLiteral("<span style=\"color:#f1c40f\">■</span>");
        else if (e == tr("Refused (faded)"))
            swatch = QStringLiteral("<span style=\"color:#c9d2e3\">■</span>");
        // Non-breaking inside an entry, so the label wraps between entries, never inside one.
        items << swatch + QStringLiteral("&nbsp;") +
                     e.toHtmlEscaped().replace(QLatin1Char(' '), QStringLiteral("&nbsp;"));
    }
    const QString html = items.join(QStringLiteral(" &nbsp; "));
    if (m_legend->text() != html) m_legend->setText(html);
}

bool ChartsPanel::eventFilter(QObject* watched, QEvent* e) {
    // QGraphicsView answers a tooltip event with the scene's item tooltips; the charts' items
    // have none, so the view would hide the value shown on hover a moment after it appeared.
    // While a bar or point is hovered, the tooltip event shows that value instead.
    if (e->type() == QEvent::ToolTip && !m_hover_text.isEmpty()) {
        for (QChartView* v : chartViews())
            if (v && watched == v->viewport()) {
                QToolTip::showText(static_cast<QHelpEvent*>(e)->globalPos(), m_hover_text,
                                   v->viewport());
                return true;
            }
    }
    return QWidget::eventFilter(watched, e);
}

void ChartsPanel::showHover(const QAbstractItemModel* model, int row, int column, bool on) {
    if (!on || row < 0 || row >= model->rowCount()) {
        m_hover_text.clear();
        QToolTip::hideText();
        return;
    }
    m_hover_text = model->index(row, column).data(Qt::ToolTipRole).toString();
    QToolTip::showText(QCursor::pos(), m_hover_text);
}

QColor ChartsPanel::chartBackground() const {
    return m_speed_view->chart()->backgroundBrush().color();
}

void ChartsPanel::addSetChart(SetChart* chart) {
    m_set_chart = chart;
    m_tabs->addTab(chart, tr("Loaded together"));
    chart->show();
    auto sync = [this] {
        const int index = m_tabs->indexOf(m_set_chart);
        const bool on = m_set_chart->model()->rowCount() > 0;
        const bool was_on = m_tabs->isTabEnabled(index);
        // Read before disabling: QTabWidget moves off a disabled current tab by itself, to the
        // next enabled one, where the memory charts are the place to come back to.
        const bool current = m_tabs->currentIndex() == index;
        setTabEnabledIfChanged(m_tabs, index, on);
        if (on && !was_on)
            m_tabs->setCurrentIndex(index);
        else if (!on && current)
            m_tabs->setCurrentIndex(0);
    };
    connect(chart->model(), &QAbstractItemModel::modelReset, this, sync);
    sync();
}

QChartView* ChartsPanel::currentChartView() const {
    QWidget* w = m_tabs->currentWidget();
    if (w == m_memory_page) return m_memory_views.empty() ? nullptr : m_memory_views.front();
    if (m_set_chart && w == m_set_chart) return m_set_chart->view();
    return qobject_cast<QChartView*>(w);
}

QList<QPointF> ChartsPanel::budgetLinePoints(int chart) const {
    if (chart < 0 || chart >= int(m_memory_views.size())) return {};
    for (QAbstractSeries* s : m_memory_views[size_t(chart)]->chart()->series())
        if (auto* line = qobject_cast<QLineSeries*>(s); line && line->name() == tr("Budget"))
            return line->points();
    return {};
}

QStringList ChartsPanel::categoryLabels(int chart) const {
    if (chart < 0 || chart >= int(m_memory_views.size())) return {};
    for (QAbstractAxis* a : m_memory_views[size_t(chart)]->chart()->axes(Qt::Horizontal))
        if (auto* x = qobject_cast<QBarCategoryAxis*>(a)) return x->categories();
    return {};
}

QList<int> ChartsPanel::fadedRows(int chart) const {
    if (chart < 0 || chart >= int(m_memory_views.size())) return {};
    for (QAbstractSeries* s : m_memory_views[size_t(chart)]->chart()->series())
        if (auto* bars = qobject_cast<QStackedBarSeries*>(s); bars && !bars->barSets().empty()) {
            QList<int> rows = bars->barSets().front()->selectedBars();
            std::sort(rows.begin(), rows.end());
            return rows;
        }
    return {};
}

QList<QPointF> ChartsPanel::launchMarkerPoints(int chart) const {
    if (chart < 0 || chart >= int(m_memory_views.size())) return {};
    for (QAbstractSeries* s : m_memory_views[size_t(chart)]->chart()->series())
        if (auto* marker = qobject_cast<QScatterSeries*>(s)) return marker->points();
    return {};
}

QList<QChartView*> ChartsPanel::chartViews() const {
    QList<QChartView*> out(m_memory_views.begin(), m_memory_views.end());
    out << m_speed_view << m_moe_view << m_expert_view;
    if (m_set_chart) out << m_set_chart->view();
    return out;
}

namespace {

// Every picture is rendered into memory and written the way every output file is (atomic, never
// through a symbolic link, never onto a directory, FIFO or device: core/atomic_write.h); the file
// dialog has already asked before replacing a file.
Result<bool> writePicture(const QString& path, const QByteArray& bytes) {
    return writeFileAtomically(path.toStdString(), bytes.toStdString(), true);
}

Result<bool> writePng(const QPixmap& pm, const QString& path) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    if (!buffer.open(QIODevice::WriteOnly) || !pm.save(&buffer, "PNG"))
        return makeError(ErrorCode::IoError, "cannot encode the chart for " + path.toStdString());
    return writePicture(path, bytes);
}

// Renders `draw` into an SVG document of `size` and writes it.
Result<bool> writeSvg(const QString& path, const QSize& size, const QRect& box,
                      const QString& title, const std::function<void(QPainter&)>& draw) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    if (!buffer.open(QIODevice::WriteOnly))
        return makeError(ErrorCode::IoError, "cannot encode the chart for " + path.toStdString());
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(size);
    svg.setViewBox(box);
    svg.setTitle(title);
    QPainter painter(&svg);
    draw(painter);
    painter.end();
    return writePicture(path, bytes);
}

} // namespace

Result<bool> ChartsPanel::saveCurrentChart(const QString& path) const {
    // Behind a message the charts still hold the last plan, which no longer answers the inputs.
    if (!m_message->isHidden())
        return makeError(ErrorCode::InvalidArgument,
                         "no chart to save: " + m_message->text().toStdString());
    QChartView* view = currentChartView();
    if (m_tabs->currentWidget() == m_memory_page) {
        // The memory tab holds several charts: save the whole row of them as one picture.
        if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive))
            return writeSvg(path, m_memory_page->size(), m_memory_page->rect(),
                            tr("Headroom memory per rung"), [this](QPainter& p) {
                                for (QChartView* v : m_memory_views) {
                                    p.save();
                                    p.translate(v->geometry().topLeft());
                                    v->render(&p, QRectF(QPointF(0, 0), v->size()), v->rect());
                                    p.restore();
                                }
                            });
        return writePng(m_memory_page->grab(), path);
    }
    if (!view) return makeError(ErrorCode::InvalidArgument, "no chart to save");
    return path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive) ? saveChartSvg(view, path)
                                                                     : saveChartPng(view, path);
}

Result<bool> saveChartPng(QChartView* view, const QString& path) {
    return writePng(view->grab(), path);
}

Result<bool> saveChartSvg(QChartView* view, const QString& path) {
    return writeSvg(path, view->size(), view->rect(), view->chart()->title(),
                    [view](QPainter& p) { view->render(&p); });
}

} // namespace headroom::ui
