// What every chart of the window shares: the palette-following style, the GiB axis with "nice"
// steps, the budget line's pen, and bar sets bound to an item model's columns. The header names
// Qt Charts' classes only, so widgets outside ui/charts/ can include a chart's header without
// including Qt Charts.
#pragma once

#include <QtGlobal>

QT_BEGIN_NAMESPACE
class QAbstractAxis;
class QAbstractBarSeries;
class QAbstractItemModel;
class QChart;
class QLineSeries;
class QPalette;
class QValueAxis;
QT_END_NAMESPACE

namespace headroom::ui {

// The step of a "nice" GiB axis: the smallest of 1, 2, 2.5 and 5 × 10^n that covers `top` in at
// most `max_ticks` steps (22.1 GiB -> 5, 189 GiB -> 50, 0.3 GiB -> 0.1).
double niceTickStep(double top, int max_ticks = 5);

bool isDark(const QPalette& p);
// The application palette's theme, background and text colours on a chart and its legend.
void styleChart(QChart* chart);
void styleAxis(QAbstractAxis* axis);
// The budget line: red, dashed, 2 px.
void styleBudget(QLineSeries* line);
// Sets a GiB axis to 0..a multiple of a nice step, changing nothing when the range is the same
// (an unchanged axis costs no relayout).
void applyNiceAxis(QValueAxis* axis, double top);
// An axis range is set only when it differs: setting the same range still relays the chart out.
void setRangeIfChanged(QValueAxis* axis, double min, double max);
// The bars of `series` as a view of model columns first..last (one set per column, one value per
// row), kept in step with the model's resets and changes.
void bindBarSets(QAbstractBarSeries* series, QAbstractItemModel* model, int first, int last);

} // namespace headroom::ui
