// The charts: memory per rung for each GPU and for host RAM (stacked by term, budget line), the
// MoE expert-cache vs KV split, decode/prefill speed vs context and the MoE offload curve
// (decode with its range and GPU GiB per --n-cpu-moe value). Every chart is a view of an
// item model from rungmodels.h through a model mapper (bars: bindBarSets); the panel owns the
// models, the charts never hold data of their own.
#pragma once

#include "chartstyle.h"
#include "metatypes.h"

#include <QWidget>

#include <functional>
#include <vector>

QT_BEGIN_NAMESPACE
class QAbstractItemModel;
class QChartView;
class QTabWidget;
class QTableView;
class QHBoxLayout;
class QLabel;
QT_END_NAMESPACE

namespace headroom::ui {

class RungMemoryModel;
class SetChart;

class SpeedModel;
class ExpertSplitModel;
class RungTableModel;
class MoeCurveModel;

class ChartsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ChartsPanel(QWidget* parent = nullptr);

    void setPlan(const Plan& plan);
    // The chart of the models loaded together (ui/setpanel.h) on a tab of its own, enabled while
    // the set has two models or more and brought to the front when a set first appears.
    void addSetChart(SetChart* chart);
    void clear();
    // No plan: the charts give way to `message` (the reason) until the next setPlan().
    void showMessage(const QString& message);
    QString message() const;

    // One per GPU, then host RAM (last).
    int memoryModelCount() const { return int(m_memory_models.size()); }
    RungMemoryModel* memoryModel(int i) const { return m_memory_models[size_t(i)]; }
    SpeedModel* speedModel() const { return m_speed_model; }
    ExpertSplitModel* expertModel() const { return m_expert_model; }
    // The --n-cpu-moe curve of the plan (empty for a dense model).
    MoeCurveModel* moeCurveModel() const { return m_moe_model; }
    RungTableModel* tableModel() const { return m_table_model; }
    QTableView* table() const { return m_table; }
    // The chart on the visible tab (what Save chart writes).
    QChartView* currentChartView() const;
    QList<QChartView*> chartViews() const;
    // The background the charts are drawn on (follows the palette).
    QColor chartBackground() const;

    // The shared legend of the memory charts: every term drawn on any of them, then "Budget" and
    // the key to the verdict marks ("Launch window", "Refused (faded)").
    QStringList legendEntries() const;
    // The points of the budget line drawn on memory chart `chart` (empty when it has none): what a
    // reader sees of the budget, for tests that must not reach into Qt Charts themselves.
    QList<QPointF> budgetLinePoints(int chart) const;
    // What memory chart `chart` shows of the verdicts: its category labels, the rows whose bars
    // are drawn faded (refused) and the launch-window marker's points (empty when none).
    QStringList categoryLabels(int chart) const;
    QList<int> fadedRows(int chart) const;
    QList<QPointF> launchMarkerPoints(int chart) const;
    // The value the hovered bar or point shows ("" when nothing is hovered).
    QString hoverText() const { return m_hover_text; }
    // What hovering a cell of one of the panel's models shows (public for tests: the charts'
    // hover signals call it with the hovered row and column).
    void showHover(const QAbstractItemModel* model, int row, int column, bool on);

    // Writes the visible chart; the format follows the suffix (.png or .svg). Atomic.
    Result<bool> saveCurrentChart(const QString& path) const;

Q_SIGNALS:
    // A bar or point was clicked: the row of that rung.
    void rungActivated(int row);

protected:
    // Follows the system's light/dark palette while running.
    void changeEvent(QEvent* e) override;
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    void buildSpeedTab();
    void buildMoeTab();
    void buildExpertTab();
    void rebuildMemoryCharts(int devices);
    QChartView* makeMemoryChart(RungMemoryModel* model);
    void updateLegend();
    // Calls `update` (a chart's axes) on each change of `model` while `*view` is the current tab,
    // and once when it becomes current after changes.
    void whileShown(QAbstractItemModel* model, QObject* chart, QChartView* const* view,
                    const std::function<void()>& update);

    QTabWidget* m_tabs = nullptr;
    QWidget* m_memory_page = nullptr;
    QHBoxLayout* m_memory_layout = nullptr;
    QLabel* m_legend = nullptr;
    QLabel* m_message = nullptr;
    QString m_hover_text;
    std::vector<RungMemoryModel*> m_memory_models;
    std::vector<QChartView*> m_memory_views;
    SpeedModel* m_speed_model = nullptr;
    ExpertSplitModel* m_expert_model = nullptr;
    QChartView* m_speed_view = nullptr;
    QChartView* m_expert_view = nullptr;
    MoeCurveModel* m_moe_model = nullptr;
    QChartView* m_moe_view = nullptr;
    RungTableModel* m_table_model = nullptr;
    SetChart* m_set_chart = nullptr;
    QTableView* m_table = nullptr;
};

// The selected cells of a table as tab-separated text: a header line, then one line per row of
// the selection (in the view's order), what a spreadsheet expects on paste.
QString selectionAsTsv(const QTableView* view);

// Chart images for the docs and for users: PNG at the screen's device-pixel ratio, SVG as
// vectors. Both are written through QSaveFile (temporary file + rename).
Result<bool> saveChartPng(QChartView* view, const QString& path);
Result<bool> saveChartSvg(QChartView* view, const QString& path);

} // namespace headroom::ui
