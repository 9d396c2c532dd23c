// The main window: hardware across the top, the model picker on the left, and on the right the
// options, the charts, the why-refused panel and the export panel — all views of one Plan that
// PlanController re-makes whenever an input changes.
#pragma once

#include "plancontroller.h"

#include <QHash>
#include <QMainWindow>

#include <QTimer>
#include <memory>
#include <optional>
#include <vector>

QT_BEGIN_NAMESPACE
class QLabel;
class QMenu;
class QSplitter;
QT_END_NAMESPACE

namespace headroom {
class Catalog;
}

namespace headroom::ui {

class ChartsPanel;
class ExportPanel;
class VerifyPanel;
class HardwarePanel;
class ModelPicker;
class OptionsPanel;
class SetPanel;
class WhyPanel;

// Delay before the picker's fit column is re-priced after an input changes: long enough to
// coalesce a slider drag or typing, short enough to feel immediate. Not a knob.
inline constexpr int kFitRefreshDelayMs = 200;

struct MainWindowConfig {
    bool probe_on_start = true; // run the hardware probe when the window opens
    bool restore_state = true;  // read QSettings (tests start clean)
    QString probe_program;      // "" = ProbeRunner's default
    QStringList probe_arguments;
    PlanFunction plan_function; // empty = headroom::makePlan
    QString default_model_id = QStringLiteral("qwen3-30b-a3b");
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(const MainWindowConfig& config = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    PlanController* controller() const { return m_controller; }
    HardwarePanel* hardwarePanel() const { return m_hardware; }
    ModelPicker* modelPicker() const { return m_picker; }
    OptionsPanel* optionsPanel() const { return m_options; }
    ChartsPanel* chartsPanel() const { return m_charts; }
    WhyPanel* whyPanel() const { return m_why; }
    ExportPanel* exportPanel() const { return m_export; }
    SetPanel* setPanel() const { return m_set; }
    // The text of the window's error banner ("" when hidden).
    QString errorText() const;

    void openModelFile(const QString& path);
    void saveState() const;
    // Installs the catalog document at a path or http(s):// URL over the built-in catalog
    // (core/catalog_update.h), off the GUI thread; the list is replaced only when it loaded.
    void updateCatalogFrom(const QString& source);
    // Removes an installed catalog update and lists the built-in catalog again.
    void restoreBuiltinCatalog();

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    void buildLayout();
    void connectPanels();
    void buildMenus();
    void loadCatalog();
    void applyCatalog(const Catalog& catalog);
    void restoreState();
    void showError(const QString& message);
    void clearError();
    void onPlan(const Plan& plan);
    void onModelSelected(const ModelShape& model);
    void offerDrafts(const ModelShape& model);
    void rebuildRecentMenu(const QStringList& files);
    void about();
    void saveChart();

    MainWindowConfig m_config;
    PlanController* m_controller;
    HardwarePanel* m_hardware;
    ModelPicker* m_picker;
    OptionsPanel* m_options;
    ChartsPanel* m_charts;
    WhyPanel* m_why;
    ExportPanel* m_export;
    VerifyPanel* m_verify;
    SetPanel* m_set;
    QSplitter* m_splitter;
    QSplitter* m_left_splitter;
    QSplitter* m_right_splitter;
    QLabel* m_banner;
    QMenu* m_recent_menu = nullptr;
    QTimer m_fit_timer;
    QString m_error_status;
    // The context target chosen per model id (nullopt: Auto).
    QHash<QString, std::optional<std::uint32_t>> m_context_by_model;
    // The catalog's models at their default quant, the draft models the options may offer.
    std::vector<std::shared_ptr<const ModelShape>> m_draft_pool;
};

} // namespace headroom::ui
