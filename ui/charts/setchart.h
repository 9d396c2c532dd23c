// The memory of several models loaded together, per device: one stacked bar per device (then
// host RAM) with a segment per member and a faint one for what the set leaves free, and the
// usable budget as a dashed step over each bar, with what the set says under it (which context
// each model gets, or which does not fit and why). A view of a SetMemoryModel (ui/setmodel.h);
// the charts panel shows it on a tab of its own.
#pragma once

#include <QList>
#include <QPointF>
#include <QStringList>
#include <QWidget>

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QStackedBarSeries;
class QBarCategoryAxis;
class QValueAxis;
QT_END_NAMESPACE

namespace headroom::ui {

class SetMemoryModel;

class SetChart : public QWidget {
    Q_OBJECT
public:
    explicit SetChart(SetMemoryModel* model, QWidget* parent = nullptr);

    QChartView* view() const { return m_view; }
    SetMemoryModel* model() const { return m_model; }
    // What the chart shows, for tests that must not reach into Qt Charts: the bars' categories,
    // the segments' labels (members, then "Free") and values (GiB per category), and the budget
    // line's points.
    QStringList categories() const;
    QStringList segmentLabels() const;
    QList<qreal> segmentValues(int segment) const;
    QList<QPointF> budgetPoints() const;
    // The legend under the chart (a wrapping label: the chart's own legend would set the
    // panel's minimum width to all the members' names in one row).
    QString legendText() const;
    void setSummary(const QString& text);
    QString summary() const;

protected:
    void changeEvent(QEvent* e) override;

private:
    void rebuild();
    void refresh();

    SetMemoryModel* m_model;
    QChartView* m_view;
    QLabel* m_legend;
    QLabel* m_summary;
    QChart* m_chart;
    QStackedBarSeries* m_bars = nullptr;
    QLineSeries* m_budget;
    QBarCategoryAxis* m_x;
    QValueAxis* m_y;
};

} // namespace headroom::ui
