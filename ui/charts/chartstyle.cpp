#include "chartstyle.h"

#include <QtCharts/QAbstractBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>

#include <QAbstractItemModel>
#include <QApplication>
#include <QPalette>
#include <QPen>

#include <algorithm>
#include <cmath>

namespace headroom::ui {

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

void styleBudget(QLineSeries* line) {
    QPen pen(QColor(0xc0, 0x39, 0x2b));
    pen.setWidthF(2.0);
    pen.setStyle(Qt::DashLine);
    line->setPen(pen);
}

void applyNiceAxis(QValueAxis* axis, double top) {
    const double step = niceTickStep(top);
    const double max = std::max(1.0, std::ceil(top / step - 1e-9)) * step;
    if (axis->tickType() != QValueAxis::TicksDynamic) {
        axis->setTickType(QValueAxis::TicksDynamic);
        axis->setTickAnchor(0);
    }
    if (axis->tickInterval() != step) {
        axis->setTickInterval(step);
        // Decimals the step needs: 0.25 two, 0.5 one, 2.5 one, 5 or 50 none.
        const int e = int(std::floor(std::log10(step) + 1e-9));
        const double mantissa = step / std::pow(10.0, e);
        const int decimals = std::max(0, -e) + (std::abs(mantissa - 2.5) < 1e-9 && e <= 0 ? 1 : 0);
        axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
    }
    if (axis->min() != 0 || axis->max() != max) axis->setRange(0, max);
}

void setRangeIfChanged(QValueAxis* axis, double min, double max) {
    if (axis->min() != min || axis->max() != max) axis->setRange(min, max);
}

// In place of QVBarModelMapper: the mapper deletes and recreates every bar set (with its
// legend markers and bar items) on each model reset, which a plan with another number of rungs
// causes; here the sets live as long as the chart and only values that differ are written.
void bindBarSets(QAbstractBarSeries* series, QAbstractItemModel* model, int first, int last) {
    QList<QBarSet*> sets;
    for (int c = first; c <= last; ++c)
        sets << new QBarSet(model->headerData(c, Qt::Horizontal).toString());
    series->append(sets);
    auto sync = [series, model, first, last] {
        const QList<QBarSet*> bars = series->barSets();
        const int rows = model->rowCount();
        for (int c = first; c <= last && c - first < bars.size(); ++c) {
            QBarSet* set = bars[c - first];
            const QString label = model->headerData(c, Qt::Horizontal).toString();
            if (set->label() != label) set->setLabel(label);
            QList<qreal> values;
            values.reserve(rows);
            for (int r = 0; r < rows; ++r)
                values << model->index(r, c).data().toReal();
            if (set->count() == rows) {
                for (int r = 0; r < rows; ++r)
                    if (set->at(r) != values[r]) set->replace(r, values[r]);
                continue;
            }
            if (set->count() > 0) set->remove(0, set->count());
            set->append(values);
        }
    };
    QObject::connect(model, &QAbstractItemModel::modelReset, series, sync);
    QObject::connect(model, &QAbstractItemModel::dataChanged, series, sync);
    QObject::connect(model, &QAbstractItemModel::headerDataChanged, series, sync);
    sync();
}

double niceTickStep(double top, int max_ticks) {
    if (!(top > 0) || max_ticks < 1) return 1;
    const double raw = top / max_ticks;
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0})
        if (m * decade >= raw * (1 - 1e-12)) return m * decade;
    return 10 * decade;
}

} // namespace headroom::ui
