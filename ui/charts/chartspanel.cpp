#include "chartspanel.h"

#include "rungmodels.h"

#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QCategoryAxis>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QStackedBarSeries>
#include <QtCharts/QVBarModelMapper>
#include <QtCharts/QVXYModelMapper>
#include <QtCharts/QValueAxis>

#include <QApplication>
#include <QCursor>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QPainter>
#include <QPalette>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QToolTip>
#include <QVBoxLayout>

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
    }
    return Qt::gray;
}

bool isDark(const QPalette& p) {
    return p.color(QPalette::Window).lightness() < 128;
}

void styleChart(QChart* chart) {
    chart->setTheme(isDark(QApplication::palette()) ? QChart::ChartThemeDark
                                                    : QChart::ChartThemeLight);
    chart->setBackgroundBrush(QApplication::palette().color(QPalette::Base));
    chart->setBackgroundRoundness(0);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->legend()->setLabelColor(QApplication::palette().color(QPalette::Text));
    chart->setTitleBrush(QApplication::palette().color(QPalette::Text));
    QFont f = chart->titleFont();
    f.setBold(true);
    chart->setTitleFont(f);
}

void styleAxis(QAbstractAxis* axis) {
    const QPalette p = QApplication::palette();
    axis->setLabelsColor(p.color(QPalette::Text));
    axis->setTitleBrush(p.color(QPalette::Text));
    axis->setGridLineColor(p.color(QPalette::Mid));
}

QStringList categoriesFrom(const QAbstractItemModel* model, int column) {
    QStringList out;
    for (int r = 0; r < model->rowCount(); ++r)
        out << model->index(r, column).data().toString();
    return out;
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

void showToolTip(const QAbstractItemModel* model, int row, int column) {
    if (row < 0 || row >= model->rowCount()) return;
    QToolTip::showText(QCursor::pos(), model->index(row, column).data(Qt::ToolTipRole).toString());
}

void styleBudget(QLineSeries* line) {
    QPen pen(QColor(0xc0, 0x39, 0x2b));
    pen.setWidthF(2.0);
    pen.setStyle(Qt::DashLine);
    line->setPen(pen);
}

// Budget drawn over bars: a line series mapped from (Index, Budget).
QLineSeries* budgetLine(QAbstractItemModel* model, int indexColumn, int budgetColumn,
                        QChart* chart) {
    auto* line = new QLineSeries(chart);
    line->setName(QObject::tr("Budget"));
    styleBudget(line);
    line->setPointsVisible(true);
    auto* mapper = new QVXYModelMapper(line);
    mapper->setModel(model);
    mapper->setSeries(line);
    mapper->setXColumn(indexColumn);
    mapper->setYColumn(budgetColumn);
    QObject::connect(line, &QLineSeries::hovered, line,
                     [model, budgetColumn](const QPointF& p, bool on) {
                         if (on) showToolTip(model, qRound(p.x()), budgetColumn);
                     });
    return line;
}

// Category axis below, GiB axis left, both attached to the bars and the budget line drawn over
// them: the frame every memory chart shares.
std::pair<QBarCategoryAxis*, QValueAxis*> attachGiBAxes(QChart* chart, QAbstractSeries* bars,
                                                        QLineSeries* budget,
                                                        const QString& labelFormat) {
    auto* x = new QBarCategoryAxis(chart);
    auto* y = new QValueAxis(chart);
    y->setTitleText(QObject::tr("GiB"));
    y->setLabelFormat(labelFormat);
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

    m_memory_page = new QWidget(m_tabs);
    m_memory_layout = new QHBoxLayout(m_memory_page);
    m_memory_layout->setContentsMargins(0, 0, 0, 0);
    m_memory_layout->setSpacing(2);
    m_tabs->addTab(m_memory_page, tr("&Memory per rung"));

    m_speed_model = new SpeedModel(this);
    {
        auto* chart = new QChart;
        styleChart(chart);
        chart->setTitle(tr("Speed vs context"));
        auto* decode = new QLineSeries(chart);
        decode->setName(tr("Decode tok/s"));
        decode->setPointsVisible(true);
        auto* prefill = new QLineSeries(chart);
        prefill->setName(tr("Prefill tok/s"));
        prefill->setPointsVisible(true);
        for (auto [series, column] : {std::pair{decode, int(SpeedModel::Decode)},
                                      std::pair{prefill, int(SpeedModel::Prefill)}}) {
            auto* mapper = new QVXYModelMapper(series);
            mapper->setModel(m_speed_model);
            mapper->setSeries(series);
            mapper->setXColumn(SpeedModel::X);
            mapper->setYColumn(column);
            chart->addSeries(series);
            connect(series, &QLineSeries::hovered, this, [this, column](const QPointF& p, bool on) {
                if (on) showToolTip(m_speed_model, qRound(p.x()), column);
            });
            connect(series, &QLineSeries::clicked, this,
                    [this](const QPointF& p) { Q_EMIT rungActivated(qRound(p.x())); });
        }
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
        for (QAbstractAxis* a :
             {static_cast<QAbstractAxis*>(x), static_cast<QAbstractAxis*>(yDecode),
              static_cast<QAbstractAxis*>(yPrefill)})
            styleAxis(a);
        decode->attachAxis(x);
        decode->attachAxis(yDecode);
        chosen->attachAxis(x);
        chosen->attachAxis(yDecode);
        prefill->attachAxis(x);
        prefill->attachAxis(yPrefill);
        // Axes and the highlighted launch point follow the model (read from it, never stored).
        auto speedAxes = [this, x, yDecode, yPrefill, chosen] {
            for (const QString& l : x->categoriesLabels())
                x->remove(l);
            chosen->clear();
            const int n = m_speed_model->rowCount();
            for (int r = 0; r < n; ++r) {
                x->append(m_speed_model->index(r, SpeedModel::Label).data().toString(), r);
                if (m_speed_model->index(r, 0).data(ChosenRole).toBool())
                    chosen->append(r,
                                   m_speed_model->index(r, SpeedModel::Decode).data().toDouble());
            }
            x->setRange(-0.25, std::max(0.25, n - 0.75));
            yDecode->setRange(
                0, std::max(1.0, columnMax(m_speed_model, {SpeedModel::Decode}, false) * 1.1));
            yPrefill->setRange(
                0, std::max(1.0, columnMax(m_speed_model, {SpeedModel::Prefill}, false) * 1.1));
        };
        connect(m_speed_model, &QAbstractItemModel::modelReset, chart, speedAxes);
        connect(m_speed_model, &QAbstractItemModel::dataChanged, chart, speedAxes);
        m_speed_view = new QChartView(chart, m_tabs);
        m_speed_view->setObjectName(QStringLiteral("speedChart"));
        m_speed_view->setAccessibleName(tr("Speed vs context chart"));
        m_speed_view->setRenderHint(QPainter::Antialiasing);
        m_tabs->addTab(m_speed_view, tr("&Speed"));
    }

    m_expert_model = new ExpertSplitModel(this);
    {
        auto* chart = new QChart;
        styleChart(chart);
        chart->setTitle(tr("MoE: expert cache vs KV on the GPU"));
        auto* series = new QStackedBarSeries(chart);
        auto* mapper = new QVBarModelMapper(series);
        mapper->setModel(m_expert_model);
        mapper->setSeries(series);
        mapper->setFirstBarSetColumn(ExpertSplitModel::ExpertSlots);
        mapper->setLastBarSetColumn(ExpertSplitModel::KvPages);
        chart->addSeries(series);
        auto* budget =
            budgetLine(m_expert_model, ExpertSplitModel::Index, ExpertSplitModel::Budget, chart);
        chart->addSeries(budget);
        auto [x, y] = attachGiBAxes(chart, series, budget, QStringLiteral("%.1f"));
        connect(series, &QStackedBarSeries::barsetsAdded, chart, [series] {
            const QList<QBarSet*> sets = series->barSets();
            if (sets.size() > 0) sets[0]->setColor(termColor(RungMemoryModel::Experts));
            if (sets.size() > 1) sets[1]->setColor(termColor(RungMemoryModel::Kv));
        });
        connect(series, &QStackedBarSeries::hovered, this,
                [this, series](bool on, int row, QBarSet* set) {
                    if (on)
                        showToolTip(m_expert_model, row,
                                    ExpertSplitModel::ExpertSlots +
                                        int(series->barSets().indexOf(set)));
                });
        connect(series, &QStackedBarSeries::clicked, this,
                [this](int row, QBarSet*) { Q_EMIT rungActivated(row); });
        auto expertAxes = [this, x, y] {
            x->setCategories(categoriesFrom(m_expert_model, ExpertSplitModel::Label));
            const double top = std::max(
                columnMax(m_expert_model,
                          {ExpertSplitModel::ExpertSlots, ExpertSplitModel::KvPages}, true),
                columnMax(m_expert_model, {ExpertSplitModel::Budget}, false));
            y->setRange(0, std::max(1.0, top * 1.08));
        };
        connect(m_expert_model, &QAbstractItemModel::modelReset, chart, expertAxes);
        connect(m_expert_model, &QAbstractItemModel::dataChanged, chart, expertAxes);
        m_expert_view = new QChartView(chart, m_tabs);
        m_expert_view->setObjectName(QStringLiteral("expertChart"));
        m_expert_view->setAccessibleName(tr("Expert cache versus KV chart"));
        m_expert_view->setRenderHint(QPainter::Antialiasing);
        m_tabs->addTab(m_expert_view, tr("E&xperts vs KV"));
    }
    rebuildMemoryCharts(0);
}

QChartView* ChartsPanel::makeMemoryChart(RungMemoryModel* model) {
    auto* chart = new QChart;
    styleChart(chart);
    auto* series = new QStackedBarSeries(chart);
    series->setBarWidth(0.7);
    auto* mapper = new QVBarModelMapper(series);
    mapper->setModel(model);
    mapper->setSeries(series);
    mapper->setFirstBarSetColumn(RungMemoryModel::Weights);
    mapper->setLastBarSetColumn(RungMemoryModel::Mmproj);
    chart->addSeries(series);
    auto* budget = budgetLine(model, RungMemoryModel::Index, RungMemoryModel::Budget, chart);
    chart->addSeries(budget);
    auto [x, y] = attachGiBAxes(chart, series, budget, QStringLiteral("%.0f"));
    auto recolor = [series] {
        const QList<QBarSet*> sets = series->barSets();
        for (int i = 0; i < sets.size(); ++i) {
            sets[i]->setColor(termColor(RungMemoryModel::Weights + i));
            sets[i]->setBorderColor(termColor(RungMemoryModel::Weights + i).darker(115));
        }
    };
    connect(series, &QStackedBarSeries::barsetsAdded, chart, recolor);
    connect(series, &QStackedBarSeries::hovered, this,
            [model, series](bool on, int row, QBarSet* set) {
                if (on)
                    showToolTip(model, row,
                                RungMemoryModel::Weights + int(series->barSets().indexOf(set)));
            });
    connect(series, &QStackedBarSeries::clicked, this,
            [this](int row, QBarSet*) { Q_EMIT rungActivated(row); });
    auto relabel = [model, chart, x, y] {
        chart->setTitle(model->deviceName());
        x->setCategories(categoriesFrom(model, RungMemoryModel::Label));
        QList<int> terms;
        for (int c = RungMemoryModel::Weights; c <= RungMemoryModel::Mmproj; ++c)
            terms << c;
        const double top = std::max(columnMax(model, terms, true),
                                    columnMax(model, {RungMemoryModel::Budget}, false));
        y->setRange(0, std::max(1.0, top * 1.08));
        y->applyNiceNumbers();
    };
    connect(model, &QAbstractItemModel::modelReset, chart, relabel);
    connect(model, &QAbstractItemModel::dataChanged, chart, relabel);
    // Terms that are zero on every rung (no experts in a dense model, no recurrent state
    // without SSM layers) stay out of the legend so the ones that matter fit.
    auto legendFilter = [model, chart, series] {
        const QList<QBarSet*> sets = series->barSets();
        for (int i = 0; i < sets.size(); ++i) {
            bool any = false;
            for (int r = 0; r < model->rowCount() && !any; ++r)
                any = model->cellBytes(r, RungMemoryModel::Weights + i) != 0;
            for (QLegendMarker* m : chart->legend()->markers(series))
                if (m->label() == sets[i]->label()) m->setVisible(any);
        }
    };
    connect(model, &QAbstractItemModel::modelReset, chart, legendFilter);
    connect(model, &QAbstractItemModel::dataChanged, chart, legendFilter);
    relabel();
    auto* view = new QChartView(chart, m_memory_page);
    view->setRenderHint(QPainter::Antialiasing);
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
        // Every memory chart uses the same colours: one legend (on the first) is enough.
        view->chart()->legend()->setVisible(i == 0);
        view->setObjectName(device == RungMemoryModel::kHost
                                ? QStringLiteral("hostMemoryChart")
                                : QStringLiteral("gpu%1MemoryChart").arg(i));
        view->setAccessibleName(device == RungMemoryModel::kHost
                                    ? tr("Host RAM per rung chart")
                                    : tr("GPU %1 memory per rung chart").arg(i));
        // The host chart only matters when something lands in RAM; GPUs get more width.
        m_memory_layout->addWidget(view, device == RungMemoryModel::kHost ? 2 : 3);
        m_memory_views.push_back(view);
    }
}

void ChartsPanel::setPlan(const Plan& plan) {
    const int devices = plan.rungs.empty() ? int(plan.hardware.gpus.size())
                                           : int(plan.rungs.front().devices.size());
    rebuildMemoryCharts(devices);
    for (RungMemoryModel* m : m_memory_models)
        m->setPlan(plan);
    m_speed_model->setPlan(plan);
    m_expert_model->setPlan(plan);
    m_tabs->setTabEnabled(m_tabs->indexOf(m_expert_view), m_expert_model->applicable());
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
        }
        for (QAbstractSeries* s : v->chart()->series())
            if (auto* bars = qobject_cast<QStackedBarSeries*>(s))
                for (QBarSet* set : bars->barSets())
                    if (i < colours.size()) set->setColor(colours[i++]);
    }
}

QColor ChartsPanel::chartBackground() const {
    return m_speed_view->chart()->backgroundBrush().color();
}

QChartView* ChartsPanel::currentChartView() const {
    QWidget* w = m_tabs->currentWidget();
    if (w == m_memory_page) return m_memory_views.empty() ? nullptr : m_memory_views.front();
    return qobject_cast<QChartView*>(w);
}

QList<QChartView*> ChartsPanel::chartViews() const {
    QList<QChartView*> out(m_memory_views.begin(), m_memory_views.end());
    out << m_speed_view << m_expert_view;
    return out;
}

Result<bool> ChartsPanel::saveCurrentChart(const QString& path) const {
    QChartView* view = currentChartView();
    if (m_tabs->currentWidget() == m_memory_page) {
        // The memory tab holds several charts: save the whole row of them as one picture.
        if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
            QSaveFile file(path);
            if (!file.open(QIODevice::WriteOnly))
                return makeError(ErrorCode::IoError, "cannot write " + path.toStdString() + ": " +
                                                         file.errorString().toStdString());
            QSvgGenerator svg;
            svg.setOutputDevice(&file);
            svg.setSize(m_memory_page->size());
            svg.setViewBox(m_memory_page->rect());
            svg.setTitle(tr("Headroom memory per rung"));
            QPainter p(&svg);
            for (QChartView* v : m_memory_views) {
                p.save();
                p.translate(v->geometry().topLeft());
                v->render(&p, QRectF(QPointF(0, 0), v->size()), v->rect());
                p.restore();
            }
            p.end();
            if (!file.commit())
                return makeError(ErrorCode::IoError, "cannot write " + path.toStdString() + ": " +
                                                         file.errorString().toStdString());
            return true;
        }
        QSaveFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            return makeError(ErrorCode::IoError, "cannot write " + path.toStdString() + ": " +
                                                     file.errorString().toStdString());
        const QPixmap pm = m_memory_page->grab();
        if (!pm.save(&file, "PNG") || !file.commit())
            return makeError(ErrorCode::IoError, "cannot write " + path.toStdString() + ": " +
                                                     file.errorString().toStdString());
        return true;
    }
    if (!view) return makeError(ErrorCode::InvalidArgument, "no chart to save");
    return path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive) ? saveChartSvg(view, path)
                                                                     : saveChartPng(view, path);
}

Result<bool> saveChartPng(QChartView* view, const QString& path) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return makeError(ErrorCode::IoError, "cannot write " + path.toStdString() + ": " +
                                                 file.errorString().toStdString());
    const QPixmap pm = view->grab();
    if (!pm.save(&file, "PNG") || !file.commit())
        return makeError(ErrorCode::IoError, "cannot write " + path.toStdString() + ": " +
                                                 file.errorString().toStdString());
    return true;
}

Result<bool> saveChartSvg(QChartView* view, const QString& path) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return makeError(ErrorCode::IoError, "cannot write " + path.toStdString() + ": " +
                                                 file.errorString().toStdString());
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(view->size());
    svg.setViewBox(view->rect());
    svg.setTitle(view->chart()->title());
    QPainter painter(&svg);
    view->render(&painter);
    painter.end();
    if (!file.commit())
        return makeError(ErrorCode::IoError, "cannot write " + path.toStdString() + ": " +
                                                 file.errorString().toStdString());
    return true;
}

} // namespace headroom::ui
