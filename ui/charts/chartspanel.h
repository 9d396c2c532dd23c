// The charts: memory per rung for each GPU and for host RAM (stacked by term, budget line), the
// MoE expert-cache vs KV split, and decode/prefill speed vs context. Every chart is a view of an
// item model from rungmodels.h through a model mapper; the panel owns the models, the charts
// never hold data of their own.
#pragma once

#include "metatypes.h"

#include <QWidget>

#include <vector>

QT_BEGIN_NAMESPACE
class QChartView;
class QTabWidget;
class QHBoxLayout;
QT_END_NAMESPACE

namespace headroom::ui {

class RungMemoryModel;
class SpeedModel;
class ExpertSplitModel;

class ChartsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ChartsPanel(QWidget* parent = nullptr);

    void setPlan(const Plan& plan);
    void clear();

    // One per GPU, then host RAM (last).
    int memoryModelCount() const { return int(m_memory_models.size()); }
    RungMemoryModel* memoryModel(int i) const { return m_memory_models[size_t(i)]; }
    SpeedModel* speedModel() const { return m_speed_model; }
    ExpertSplitModel* expertModel() const { return m_expert_model; }
    // The chart on the visible tab (what Save chart writes).
    QChartView* currentChartView() const;
    QList<QChartView*> chartViews() const;
    // The background the charts are drawn on (follows the palette).
    QColor chartBackground() const;

    // Writes the visible chart; the format follows the suffix (.png or .svg). Atomic.
    Result<bool> saveCurrentChart(const QString& path) const;

Q_SIGNALS:
    // A bar or point was clicked: the row of that rung.
    void rungActivated(int row);

protected:
    // Follows the system's light/dark palette while running.
    void changeEvent(QEvent* e) override;

private:
    void rebuildMemoryCharts(int devices);
    QChartView* makeMemoryChart(RungMemoryModel* model);

    QTabWidget* m_tabs = nullptr;
    QWidget* m_memory_page = nullptr;
    QHBoxLayout* m_memory_layout = nullptr;
    std::vector<RungMemoryModel*> m_memory_models;
    std::vector<QChartView*> m_memory_views;
    SpeedModel* m_speed_model = nullptr;
    ExpertSplitModel* m_expert_model = nullptr;
    QChartView* m_speed_view = nullptr;
    QChartView* m_expert_view = nullptr;
};

// Chart images for the docs and for users: PNG at the screen's device-pixel ratio, SVG as
// vectors. Both are written through QSaveFile (temporary file + rename).
Result<bool> saveChartPng(QChartView* view, const QString& path);
Result<bool> saveChartSvg(QChartView* view, const QString& path);

} // namespace headroom::ui
