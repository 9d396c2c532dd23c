// Model picker: the catalog and opened files as a sortable, filterable table with a fit column;
// Open GGUF…, drag and drop of .gguf files, recent files and a folder scan with progress and
// cancel. File work runs on worker threads; the window never waits for a disk.
#pragma once

#include "catalogmodel.h"
#include "modelloader.h"
#include "quantcompare.h"

#include <QFutureWatcher>
#include <QWidget>

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
QT_END_NAMESPACE

namespace headroom::ui {

// Recent files kept in the menu. Enough for a working set, short enough to scan by eye. Not a knob.
inline constexpr int kMaxRecentFiles = 10;

class ModelPicker : public QWidget {
    Q_OBJECT
public:
    explicit ModelPicker(QWidget* parent = nullptr);
    ~ModelPicker() override;

    CatalogModel* catalogModel() const { return m_catalog; }
    QSortFilterProxyModel* proxyModel() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QComboBox* quantCombo() const { return m_quant; }
    QuantCompareModel* comparisonModel() const { return m_compare_model; }

    // Makes quant `index` (of the selected model's quants, largest file first) current and
    // announces it like a row selection; false when out of range or nothing is selected.
    bool selectQuant(int index);
    // Prices every quant of the selected model on this machine and options, off the GUI
    // thread, and marks the one the variant policy recommends (comparisonUpdated when shown).
    void refreshComparison(const HardwareSnapshot& hw, const PlanOptions& options);

    // Selects the row with this id (catalog id or file path); false when absent.
    bool selectModelId(const QString& id);
    QString selectedId() const;

    // Opens a GGUF on a worker thread; the result is added, selected and remembered as recent.
    void openFile(const QString& path);
    bool isLoading() const;
    void scanFolder(const QString& folder);
    void cancelScan();
    bool isScanning() const;

    QStringList recentFiles() const { return m_recent; }
    void setRecentFiles(const QStringList& files);
    QString errorText() const;

    void promptOpenFile();
    // Asks for an https:// GGUF address or hf:OWNER/REPO[:QUANT] and opens it (header only).
    void promptOpenUrl();
    void promptScanFolder();

Q_SIGNALS:
    void modelSelected(const headroom::ModelShape& model);
    void recentFilesChanged(const QStringList& files);
    void errorOccurred(const QString& message);
    void scanFinished(int models, int unreadable);
    void comparisonUpdated();

protected:
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    void showError(const QString& message);
    void rememberRecent(const QString& path);
    void onCurrentChanged();
    int selectedRow() const;
    void syncQuantCombo();

    CatalogModel* m_catalog;
    QSortFilterProxyModel* m_proxy;
    QLineEdit* m_search;
    QTableView* m_view;
    QComboBox* m_quant;
    QLabel* m_quant_label;
    QuantCompareModel* m_compare_model;
    QTableView* m_compare;
    int m_compared_row = -1;
    quint64 m_compare_generation = 0;
    QFutureWatcher<QuantComparisonResult>* m_compare_watcher = nullptr;
    QPushButton* m_open;
    QPushButton* m_scan;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_error;
    QStringList m_recent;
    int m_loading = 0;
    QFutureWatcher<ScanItem>* m_scan_watcher = nullptr;
    int m_scan_models = 0;
    QStringList m_scan_errors;
};

} // namespace headroom::ui
