// The machine a plan is made for: the probed hardware (a child process, never in this
// process), a preset, a saved profile, or figures typed by hand; plus a live free-memory
// indicator that re-plans when other programs take or release GPU memory.
#pragma once

#include "metatypes.h"

#include <QTimer>
#include <QWidget>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QFrame;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
QT_END_NAMESPACE

namespace headroom::ui {

class ProbeRunner;

// Poll interval of the live free-memory reading. Other programs load and unload models on the
// scale of seconds; a faster poll would spend more on the probe than it tells. Not a knob.
inline constexpr int kLivePollMs = 5000;
// A change in free memory smaller than this does not re-plan: allocator noise and the desktop
// move a few MiB all the time, and no rung boundary is that thin. Not a knob.
inline constexpr Bytes kLiveReplanThreshold = 128 * MiB;

class HardwarePanel : public QWidget {
    Q_OBJECT
public:
    explicit HardwarePanel(QWidget* parent = nullptr);

    ProbeRunner* probeRunner() const { return m_probe; }
    ProbeRunner* liveRunner() const { return m_live; }
    const HardwareSnapshot& snapshot() const { return m_snapshot; }
    // Shows `hw` in the fields and announces it.
    void setSnapshot(const HardwareSnapshot& hw);
    QString errorText() const;
    bool liveEnabled() const;
    void setLiveEnabled(bool on);

    void startProbe();
    Result<bool> loadProfile(const QString& path);
    Result<bool> saveProfile(const QString& path) const;
    // Built-in presets by id ("rtx-4090"); false when unknown.
    bool selectPreset(const QString& id);
    // One GPU by its full name (from core's GPU table), keeping the machine's RAM: the snapshot
    // `headroom-cli --gpu NAME --ram SIZE` makes; false when unknown.
    bool selectGpu(const QString& name);
    // What the preset combo shows: a preset's name, "Custom", "Probed: …" or "Profile: …".
    QString presetText() const;

Q_SIGNALS:
    void snapshotChanged(const headroom::HardwareSnapshot& hw);
    void errorOccurred(const QString& message);

private:
    void applyTypedFigures();
    void showError(const QString& message);
    void clearError();
    void onProbeFinished(const HardwareSnapshot& hw);
    void onLiveReading(const HardwareSnapshot& hw);
    void refreshLabels();
    void loadPresets();
    void setMachineSource(const QString& text);

    HardwareSnapshot m_snapshot;
    ProbeRunner* m_probe;
    ProbeRunner* m_live;
    QTimer m_live_timer;

    QLabel* m_summary;
    QLabel* m_live_label;
    QPushButton* m_probe_button;
    QProgressBar* m_progress;
    QComboBox* m_presets;
    QComboBox* m_gpu;
    std::vector<GpuDevice> m_gpu_choices;
    std::vector<std::string> m_gpu_models; // the GPU table's model name of each choice
    QLineEdit* m_vram;
    QLineEdit* m_ram;
    QCheckBox* m_uma;
    QCheckBox* m_live_check;
    QPushButton* m_save;
    QPushButton* m_load;
    QFrame* m_error_frame;
    QLabel* m_error;
    QPushButton* m_by_hand;
    std::vector<HardwareSnapshot> m_preset_snapshots;
};

} // namespace headroom::ui
