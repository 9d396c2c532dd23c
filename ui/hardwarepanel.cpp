#include "hardwarepanel.h"
#include "hardwarejson.h"
#include "proberunner.h"

#include "core/atomic_write.h"
#include "core/gpu_specs.h"
#include "core/text_file.h"

#if __has_include("hardware_presets.h")
#include "hardware_presets.h"
#define HEADROOM_HAVE_PRESETS 1
#endif

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QStyle>

namespace headroom::ui {

namespace {

template <typename W>
W* named(W* w, const char* name, const QString& accessible, const QString& tip = {}) {
    w->setObjectName(QLatin1String(name));
    w->setAccessibleName(accessible);
    if (!tip.isEmpty()) w->setToolTip(tip);
    return w;
}

QString sizesText(const HardwareSnapshot& hw) {
    QStringList parts;
    for (const GpuDevice& g : hw.gpus)
        parts << bytesText(g.total_bytes).remove(QLatin1Char(' '));
    return parts.join(QLatin1Char(','));
}

std::optional<Bytes> liveFree(const HardwareSnapshot& hw) {
    if (hw.gpus.empty()) return hw.ram_available;
    Bytes sum = 0;
    for (const GpuDevice& g : hw.gpus) {
        if (!g.free_bytes) return std::nullopt;
        sum += *g.free_bytes;
    }
    return sum;
}

} // namespace

HardwarePanel::HardwarePanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("hardwarePanel"));
    m_probe = new ProbeRunner(this);
    m_probe->setObjectName(QStringLiteral("probeRunner"));
    m_live = new ProbeRunner(this);
    m_live->setObjectName(QStringLiteral("liveProbeRunner"));

    m_summary = named(new QLabel(tr("No machine yet")), "hardwareLabel", tr("Machine"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_summary->font();
    bold.setBold(true);
    m_summary->setFont(bold);
    m_live_label = named(
        new QLabel, "liveFreeLabel", tr("Live free memory"),
        tr("Free GPU memory right now, read by the probe every %1 s").arg(kLivePollMs / 1000));
    m_probe_button =
        named(new QPushButton(tr("&Probe")), "probeButton", tr("Probe this machine"),
              tr("Run the hardware probe (headroom-cli probe --json) in its own process"));
    m_progress = named(new QProgressBar, "probeProgress", tr("Probe progress"));
    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(80);
    m_progress->setTextVisible(false);
    m_progress->hide();
    m_presets =
        named(new QComboBox, "presetCombo", tr("Hardware preset"),
              tr("Plan for a machine you do not have: built-in presets with cited figures"));
    m_presets->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    // The preset and GPU combos give way before the figures do: at 1024 px the VRAM and RAM
    // fields must still show a whole size, and a combo's full name is in its popup and tooltip.
    m_presets->setMinimumContentsLength(8);
    m_vram = named(new QLineEdit, "vramEdit", tr("VRAM per GPU"),
                   tr("VRAM of each GPU, comma-separated: 24GiB or 24GiB,12GiB; 0 for CPU only"));
    m_vram->setPlaceholderText(tr("VRAM e.g. 24GiB,12GiB"));
    m_vram->setMaximumWidth(140);
    const int sizeWidth = m_vram->fontMetrics().horizontalAdvance(QStringLiteral("000.00GiB")) + 14;
    m_vram->setMinimumWidth(sizeWidth);
    m_gpu = named(new QComboBox, "gpuCombo", tr("GPU by name"),
                  tr("Pick a GPU by name: its VRAM, bandwidth and compute come with it (from the "
                     "cited presets); typed VRAM sizes still work"));
    m_gpu->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_gpu->setMinimumContentsLength(6);
    m_ram = named(new QLineEdit, "ramEdit", tr("System RAM"), tr("System RAM, e.g. 64GiB"));
    m_ram->setPlaceholderText(tr("RAM e.g. 64GiB"));
    m_ram->setMaximumWidth(100);
    m_ram->setMinimumWidth(sizeWidth);
    m_uma = named(new QCheckBox(tr("&UMA")), "umaCheck", tr("Unified memory"),
                  tr("GPU and CPU share one memory pool (APU, Apple Silicon, DGX Spark)"));
    m_live_check = named(
        new QCheckBox(tr("&Live")), "liveCheck", tr("Follow live free memory"),
        tr("Re-read free GPU memory every %1 s and re-plan when other programs take or release it")
            .arg(kLivePollMs / 1000));
    m_save = named(new QPushButton(style()->standardIcon(QStyle::SP_DialogSaveButton), QString()),
                   "saveProfileButton", tr("Save hardware profile"),
                   tr("Save these figures as a profile (JSON)"));
    m_load = named(new QPushButton(style()->standardIcon(QStyle::SP_DialogOpenButton), QString()),
                   "loadProfileButton", tr("Load hardware profile"),
                   tr("Load a saved hardware profile (JSON)"));

    m_error_frame = new QFrame;
    m_error_frame->setObjectName(QStringLiteral("probeErrorFrame"));
    m_error_frame->setFrameShape(QFrame::StyledPanel);
    m_error_frame->setStyleSheet(
        QStringLiteral("#probeErrorFrame { background: rgba(192,57,43,40); border: 1px solid "
                       "rgba(192,57,43,160); border-radius: 3px; }"));
    m_error = named(new QLabel, "probeErrorLabel", tr("Hardware problem"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_by_hand =
        named(new QPushButton(tr("Enter fi&gures by hand")), "enterByHandButton",
              tr("Enter figures by hand"), tr("Type VRAM and RAM sizes instead of probing"));
    auto* el = new QHBoxLayout(m_error_frame);
    el->setContentsMargins(6, 3, 6, 3);
    el->addWidget(m_error, 1);
    el->addWidget(m_by_hand);
    m_error_frame->hide();

    auto* row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(new QLabel(tr("Hardware:")));
    row->addWidget(m_summary, 1);
    row->addSpacing(8);
    row->addWidget(m_live_label);
    row->addWidget(m_live_check);
    row->addSpacing(8);
    row->addWidget(m_gpu);
    row->addWidget(m_vram);
    row->addWidget(m_ram);
    row->addWidget(m_uma);
    row->addWidget(m_progress);
    row->addWidget(m_probe_button);
    row->addWidget(m_presets);
    row->addWidget(m_load);
    row->addWidget(m_save);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(3);
    outer->addLayout(row);
    outer->addWidget(m_error_frame);

    connect(m_probe_button, &QPushButton::clicked, this, &HardwarePanel::startProbe);
    connect(m_probe, &ProbeRunner::started, this, [this] {
        m_progress->show();
        m_probe_button->setEnabled(false);
    });
    connect(m_probe, &ProbeRunner::finished, this, &HardwarePanel::onProbeFinished);
    connect(m_probe, &ProbeRunner::failed, this, [this](const QString& message) {
        m_progress->hide();
        m_probe_button->setEnabled(true);
        showError(message);
        if (m_snapshot.gpus.empty() && m_snapshot.ram_total == 0)
            m_summary->setText(tr("Not probed — enter figures or pick a preset"));
    });
    // editingFinished also fires when focus merely passes through a field (tabbing): only a
    // field the user changed makes a new machine, or the probed or preset label would be lost.
    auto typed = [this] {
        if (m_vram->isModified() || m_ram->isModified()) applyTypedFigures();
    };
    connect(m_vram, &QLineEdit::editingFinished, this, typed);
    connect(m_ram, &QLineEdit::editingFinished, this, typed);
    connect(m_uma, &QCheckBox::toggled, this, &HardwarePanel::applyTypedFigures);
    connect(m_by_hand, &QPushButton::clicked, this, [this] {
        m_vram->setFocus();
        m_vram->selectAll();
    });
    connect(m_presets, &QComboBox::activated, this, [this](int index) {
        const int i = index - 1;
        if (i >= 0 && i < int(m_preset_snapshots.size())) {
            clearError();
            setSnapshot(m_preset_snapshots[size_t(i)]);
        } else {
            setMachineSource(m_presets->itemText(0)); // the first item names what is in use
        }
    });
    connect(m_gpu, &QComboBox::activated, this, [this](int index) {
        if (index < 1 || index > int(m_gpu_choices.size())) return;
        selectGpu(QString::fromStdString(m_gpu_choices[size_t(index - 1)].name));
    });
    connect(m_save, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Save hardware profile"), QString(), tr("Hardware profile (*.json)"));
        if (path.isEmpty()) return;
        if (auto ok = saveProfile(path); !ok) showError(qs(ok.error().message));
    });
    connect(m_load, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Load hardware profile"), QString(), tr("Hardware profile (*.json)"));
        if (path.isEmpty()) return;
        if (auto ok = loadProfile(path); !ok) showError(qs(ok.error().message));
    });

    m_live_timer.setInterval(kLivePollMs);
    connect(&m_live_timer, &QTimer::timeout, m_live, &ProbeRunner::start);
    connect(m_live, &ProbeRunner::finished, this, &HardwarePanel::onLiveReading);
    connect(m_live, &ProbeRunner::failed, this, [this](const QString& message) {
        m_live_label->setText(tr("live: unavailable"));
        m_live_label->setToolTip(message);
    });
    connect(m_live_check, &QCheckBox::toggled, this, &HardwarePanel::setLiveEnabled);
    loadPresets();
    refreshLabels();
}

void HardwarePanel::loadPresets() {
    m_presets->clear();
    m_presets->addItem(tr("Preset…"));
    m_gpu->clear();
    m_gpu->addItem(tr("GPU…"));
#ifdef HEADROOM_HAVE_PRESETS
    auto presets = loadBuiltinPresets();
    if (!presets)
        m_presets->setToolTip(tr("Presets could not be read: %1").arg(qs(presets.error().message)));
    else
        for (const HardwarePreset& p : *presets) {
            m_presets->addItem(qs(p.hw.label.empty() ? p.id : p.hw.label), qs(p.id));
            m_presets->setItemData(m_presets->count() - 1, qs(p.citation), Qt::ToolTipRole);
            m_preset_snapshots.push_back(p.hw);
        }
#else
    m_presets->setEnabled(false);
    m_presets->setToolTip(tr("This build has no preset list"));
#endif
    // Every discrete GPU of core's GPU table, once each by name, with the memory, bandwidth and
    // compute the table knows — the cards `headroom-cli --gpu NAME` takes. A unified-memory GPU
    // is its machine, not a card to put in another one: those are presets.
    for (const GpuSpec& spec : gpuSpecs()) {
        if (spec.uma) continue;
        bool known = false;
        for (const GpuDevice& k : m_gpu_choices)
            known = known || k.name == spec.full_name;
        if (known) continue;
        auto hw = snapshotFromGpuNames({spec.model}, {}, 0);
        if (!hw || hw->gpus.size() != 1) continue;
        const GpuDevice& g = hw->gpus.front();
        m_gpu_choices.push_back(g);
        m_gpu_models.emplace_back(spec.model);
        m_gpu->addItem(QStringLiteral("%1 (%2)").arg(qs(g.name), bytesText(g.total_bytes)),
                       qs(g.name));
        m_gpu->setItemData(m_gpu->count() - 1,
                           tr("%1: %2, %3 GB/s, %4 FP16 TFLOPS (%5)")
                               .arg(qs(g.name), bytesText(g.total_bytes))
                               .arg(g.bandwidth_gbs)
                               .arg(g.fp16_tflops)
                               .arg(QString::fromLatin1(spec.source)),
                           Qt::ToolTipRole);
    }
}

bool HardwarePanel::selectPreset(const QString& id) {
    const int index = m_presets->findData(id);
    if (index < 1) return false;
    m_presets->setCurrentIndex(index);
    clearError();
    setSnapshot(m_preset_snapshots[size_t(index - 1)]);
    return true;
}

bool HardwarePanel::selectGpu(const QString& name) {
    int pick = -1;
    for (size_t i = 0; i < m_gpu_choices.size(); ++i)
        if (qs(m_gpu_choices[i].name) == name) pick = int(i);
    if (pick < 0) return false;
    if (m_snapshot.ram_total == 0) {
        // One card of that model; the RAM is still to be typed.
        m_snapshot.gpus = {m_gpu_choices[size_t(pick)]};
        m_snapshot.uma = false;
        m_snapshot.label.clear();
        m_snapshot.source = "user";
        showError(tr("Enter the system RAM too (e.g. 64GiB)"));
        refreshLabels();
        return true;
    }
    // One card of that model in a machine with this RAM, built as `headroom-cli --gpu NAME
    // --ram SIZE` builds it (snapshotFromGpuNames), so the window and the CLI plan alike.
    auto hw = snapshotFromGpuNames({m_gpu_models[size_t(pick)]}, {}, m_snapshot.ram_total);
    if (!hw) {
        showError(qs(hw.error().message));
        return false;
    }
    clearError();
    setSnapshot(*hw);
    setMachineSource(tr("Custom"));
    m_gpu->setCurrentIndex(m_gpu->findData(name));
    return true;
}

void HardwarePanel::setMachineSource(const QString& text) {
    // The combo's first item says where the machine in use came from when it is no preset:
    // "Custom" once figures are typed, the probed machine's name after a probe.
    m_presets->setItemText(0, text);
    m_presets->setItemData(0, text, Qt::ToolTipRole);
    m_presets->setCurrentIndex(0);
}

QString HardwarePanel::presetText() const {
    return m_presets->currentText();
}

void HardwarePanel::startProbe() {
    clearError();
    m_probe->start();
}

void HardwarePanel::onProbeFinished(const HardwareSnapshot& hw) {
    m_progress->hide();
    m_probe_button->setEnabled(true);
    clearError();
    setSnapshot(hw);
    setMachineSource(tr("Probed: %1").arg(m_summary->text()));
}

void HardwarePanel::setSnapshot(const HardwareSnapshot& hw) {
    m_snapshot = hw;
    refreshLabels();
    Q_EMIT snapshotChanged(m_snapshot);
}

void HardwarePanel::refreshLabels() {
    const HardwareSnapshot& hw = m_snapshot;
    QString label = qs(hw.label);
    if (label.isEmpty() && (hw.ram_total || !hw.gpus.empty())) {
        QStringList parts;
        for (const GpuDevice& g : hw.gpus)
            parts << QStringLiteral("%1 %2").arg(qs(g.name), bytesText(g.total_bytes));
        if (parts.isEmpty()) parts << tr("CPU only");
        label = parts.join(QStringLiteral(" + ")) + tr(" | RAM %1").arg(bytesText(hw.ram_total));
    }
    if (!label.isEmpty()) m_summary->setText(label);
    QStringList tip;
    tip << tr("Source: %1").arg(qs(hw.source.empty() ? std::string("—") : hw.source));
    for (const GpuDevice& g : hw.gpus)
        tip << tr("%1: %2 (%3)%4")
                   .arg(qs(g.name), bytesText(g.total_bytes), qs(g.memory_provenance),
                        g.bandwidth_gbs > 0 ? tr(", %1 GB/s").arg(g.bandwidth_gbs) : QString());
    tip << tr("RAM: %1 (%2)").arg(bytesText(hw.ram_total), qs(hw.ram_provenance));
    for (const auto& n : hw.notes)
        tip << qs(n);
    m_summary->setToolTip(tip.join(QLatin1Char('\n')));
    {
        // The GPU list names the card in use when it is one of the known ones.
        const int gpuIndex =
            hw.gpus.size() == 1 && !hw.uma ? m_gpu->findData(qs(hw.gpus.front().name)) : -1;
        m_gpu->setCurrentIndex(gpuIndex > 0 ? gpuIndex : 0);
    }
    {
        const QSignalBlocker b1(m_vram), b2(m_ram), b3(m_uma);
        m_vram->setText(hw.gpus.empty() ? QStringLiteral("0") : sizesText(hw));
        m_ram->setText(hw.ram_total ? bytesText(hw.ram_total).remove(QLatin1Char(' ')) : QString());
        m_uma->setChecked(hw.uma);
    }
    if (auto free = liveFree(hw)) {
        m_live_label->setText(tr("live free %1 %2")
                                  .arg(bytesText(*free), m_live_timer.isActive()
                                                             ? QStringLiteral("●")
                                                             : QStringLiteral("○")));
        m_live_label->setToolTip(
            tr("Free %1 right now; the plan uses capacity figures unless a reading is live")
                .arg(hw.gpus.empty() ? tr("RAM") : tr("GPU memory")));
    } else {
        m_live_label->setText(hw.gpus.empty() ? QString() : tr("live free: unknown"));
    }
}

void HardwarePanel::applyTypedFigures() {
    std::vector<Bytes> vram;
    const QString vt = m_vram->text().trimmed();
    if (!vt.isEmpty()) {
        for (const QString& part : vt.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            auto b = parseSize(part.trimmed().toStdString());
            if (!b) return showError(tr("VRAM: %1").arg(qs(b.error().message)));
            vram.push_back(*b);
        }
    }
    // Half-typed (VRAM given, RAM not yet): wait for the second figure instead of scolding.
    if (m_ram->text().trimmed().isEmpty()) return;
    auto ram = parseSize(m_ram->text().trimmed().toStdString());
    if (!ram) return showError(tr("RAM: %1").arg(qs(ram.error().message)));
    HardwareSnapshot hw = snapshotFromSizes(vram, *ram, m_uma->isChecked());
    // Keep what the probe knew about the same GPUs (names, bandwidth) when only sizes change.
    if (hw.gpus.size() == m_snapshot.gpus.size() && hw.uma == m_snapshot.uma) {
        for (size_t i = 0; i < hw.gpus.size(); ++i) {
            GpuDevice g = m_snapshot.gpus[i];
            if (g.total_bytes != hw.gpus[i].total_bytes) {
                g.total_bytes = hw.gpus[i].total_bytes;
                g.free_bytes.reset();
                g.memory_provenance = "user";
            }
            hw.gpus[i] = g;
        }
        if (m_snapshot.ram_total == *ram) {
            hw.ram_available = m_snapshot.ram_available;
            hw.ram_provenance = m_snapshot.ram_provenance;
        }
        hw.host_bandwidth_gbs = m_snapshot.host_bandwidth_gbs;
        hw.host_bandwidth_provenance = m_snapshot.host_bandwidth_provenance;
        hw.cpu_tflops = m_snapshot.cpu_tflops;
        hw.cpu_threads = m_snapshot.cpu_threads;
    }
    if (auto ok = validateSnapshot(hw); !ok) return showError(qs(ok.error().message));
    clearError();
    m_vram->setModified(false);
    m_ram->setModified(false);
    setSnapshot(hw);
    setMachineSource(tr("Custom"));
}

void HardwarePanel::onLiveReading(const HardwareSnapshot& live) {
    if (live.gpus.size() != m_snapshot.gpus.size()) return; // a different machine: ignore
    HardwareSnapshot next = m_snapshot;
    bool moved = false;
    auto differs = [](std::optional<Bytes> a, std::optional<Bytes> b) {
        if (a.has_value() != b.has_value()) return true;
        if (!a) return false;
        const Bytes d = *a > *b ? *a - *b : *b - *a;
        return d >= kLiveReplanThreshold;
    };
    for (size_t i = 0; i < next.gpus.size(); ++i) {
        if (next.gpus[i].total_bytes != live.gpus[i].total_bytes)
            return; // typed figures: keep them
        moved = moved || differs(next.gpus[i].free_bytes, live.gpus[i].free_bytes);
        next.gpus[i].free_bytes = live.gpus[i].free_bytes;
    }
    moved = moved || differs(next.ram_available, live.ram_available);
    next.ram_available = live.ram_available;
    if (moved) {
        setSnapshot(next);
    } else {
        m_snapshot = next; // small drift: shown, not re-planned
        refreshLabels();
    }
}

bool HardwarePanel::liveEnabled() const {
    return m_live_timer.isActive();
}

void HardwarePanel::setLiveEnabled(bool on) {
    {
        const QSignalBlocker b(m_live_check);
        m_live_check->setChecked(on);
    }
    if (on) {
        m_live_timer.start();
        m_live->start();
    } else {
        m_live_timer.stop();
        m_live->cancel();
    }
    refreshLabels();
}

QString HardwarePanel::errorText() const {
    return m_error_frame->isHidden() ? QString() : m_error->text();
}

void HardwarePanel::showError(const QString& message) {
    m_error->setText(message);
    m_error_frame->show();
    Q_EMIT errorOccurred(message);
}

void HardwarePanel::clearError() {
    m_error->clear();
    m_error_frame->hide();
}

Result<bool> HardwarePanel::loadProfile(const QString& path) {
    // The reader every named file goes through (core/text_file.h): a FIFO, device or directory is
    // refused unread (QFile::open on a FIFO waits for a writer), and the size is capped.
    auto text = readRegularTextFile(path.toStdString());
    if (!text) return text.error();
    auto hw = snapshotFromJson(QByteArray::fromStdString(*text));
    if (!hw) return makeError(hw.error().code, path.toStdString() + ": " + hw.error().message);
    hw->source = "file:" + path.toStdString();
    clearError();
    setSnapshot(*hw);
    setMachineSource(tr("Profile: %1").arg(QFileInfo(path).completeBaseName()));
    return true;
}

Result<bool> HardwarePanel::saveProfile(const QString& path) const {
    // Atomic, never through a symbolic link, never onto a directory, FIFO or device
    // (core/atomic_write.h); the file dialog has already asked before replacing a file.
    const QByteArray bytes =
        QJsonDocument(snapshotToJson(m_snapshot)).toJson(QJsonDocument::Indented);
    return writeFileAtomically(path.toStdString(), bytes.toStdString(), true);
}

} // namespace headroom::ui
