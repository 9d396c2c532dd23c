#include "optionspanel.h"

#include "core/launch/llama_version.h"
#include "core/launch/placement_flags.h"
#include "core/units.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <algorithm>

namespace headroom::ui {

namespace {

template <typename W>
W* named(W* w, const char* name, const QString& accessible, const QString& tip) {
    w->setObjectName(QLatin1String(name));
    w->setAccessibleName(accessible);
    w->setToolTip(tip);
    return w;
}

// The cache types llama.cpp accepts (common/arg.cpp kv_cache_types), most useful first.
const char* const kCacheTypes[] = {"f16",  "q8_0",   "q4_0", "bf16", "f32",
                                   "q4_1", "iq4_nl", "q5_0", "q5_1"};
const std::uint32_t kUbatches[] = {64, 128, 256, 512, 1024, 2048, 4096};

QLabel* buddy(const QString& text, QWidget* w) {
    auto* l = new QLabel(text);
    l->setBuddy(w);
    return l;
}

} // namespace

OptionsPanel::OptionsPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("optionsPanel"));
    m_slider = named(new QSlider(Qt::Horizontal), "contextSlider", tr("Context target"),
                     tr("Context target: Auto lets the launch policy choose; every other stop is a "
                        "ladder rung"));
    m_slider->setTickPosition(QSlider::TicksBelow);
    m_slider->setPageStep(1);
    m_slider->setMinimumWidth(220);
    m_slider_label = new QLabel;
    m_slider_label->setObjectName(QStringLiteral("contextSliderLabel"));
    // Wide enough for "native" and "128K" from the start (see setSliderLabel).
    m_slider_label->setMinimumWidth(
        std::max(48, m_slider_label->fontMetrics().horizontalAdvance(QStringLiteral("0000K")) + 4));
    m_slider_label->installEventFilter(this);
    m_context = named(new QLineEdit, "contextEdit", tr("Exact context"),
                      tr("Any context: 131072, 128K, or 'auto'; 'native' is the trained context"));
    m_context->setMaximumWidth(90);
    m_ctk = named(new QComboBox, "cacheTypeKCombo", tr("K cache type"),
                  tr("-ctk: type of the K cache"));
    m_ctv = named(new QComboBox, "cacheTypeVCombo", tr("V cache type"),
                  tr("-ctv: type of the V cache (a quantized V cache needs flash attention)"));
    for (const char* t : kCacheTypes) {
        m_ctk->addItem(QLatin1String(t));
        m_ctv->addItem(QLatin1String(t));
    }
    m_fa = named(new QComboBox, "flashAttnCombo", tr("Flash attention"),
                 tr("-fa: flash attention (auto is llama.cpp's default)"));
    m_fa->addItems({tr("auto"), tr("on"), tr("off")});
    m_ubatch =
        named(new QComboBox, "ubatchCombo", tr("Micro-batch size"),
              tr("-ub: physical batch; the compute buffer grows with it, prefill speeds up"));
    for (std::uint32_t u : kUbatches)
        m_ubatch->addItem(QString::number(u), u);
    m_parallel =
        named(new QSpinBox, "parallelSpin", tr("Parallel sequences"),
              tr("-np: sequences the server holds at once (without -kvu each gets context / np)"));
    m_parallel->setRange(1, 256);
    m_kvu = named(new QCheckBox(tr("kvu")), "kvUnifiedCheck", tr("Unified KV buffer"),
                  tr("-kvu: one KV buffer shared by all sequences"));
    m_swa_full = named(new QCheckBox(tr("swa-full")), "swaFullCheck", tr("Full SWA cache"),
                       tr("--swa-full: full-size cache for sliding-window layers"));
    m_mtp = named(new QComboBox, "mtpCombo", tr("Multi-token prediction"),
                  tr("Speculative decoding with the model's MTP head (auto: when the model has one "
                     "and it fits)"));
    m_mtp->addItems({tr("auto"), tr("on"), tr("off")});
    m_draft = named(new QComboBox, "draftCombo", tr("Draft model"),
                    tr("-md: a small model of the same tokenizer that drafts tokens for this one "
                       "(priced beside it at its context, launched with --spec-type "
                       "draft-simple)"));
    m_draft->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_draft->setMinimumContentsLength(10);
    m_mmproj =
        named(new QCheckBox(tr("mmproj")), "mmprojCheck", tr("Load the multimodal projector"),
              tr("--mmproj: charge the vision projector"));
    m_reserve =
        named(new QDoubleSpinBox, "reserveSpin", tr("Extra reserve"),
              tr("Keep this much more free on GPU 0 (or the shared pool) for other programs"));
    m_reserve->setRange(0, 256);
    m_reserve->setSingleStep(0.5);
    m_reserve->setSuffix(tr(" GiB"));
    m_reserve->setDecimals(2);
    m_ngl =
        named(new QLineEdit, "gpuLayersEdit", tr("GPU layers"),
              tr("-ngl: layers on the GPUs: a number, all, or auto (empty: Headroom searches)"));
    m_ngl->setPlaceholderText(tr("auto"));
    m_ngl->setMaximumWidth(60);
    m_n_cpu_moe =
        named(new QLineEdit, "nCpuMoeEdit", tr("MoE blocks with experts on the CPU"),
              tr("--n-cpu-moe: keep the experts of the first N MoE blocks in system RAM"));
    m_n_cpu_moe->setMaximumWidth(50);
    m_cpu_moe = named(new QCheckBox(tr("cpu-moe")), "cpuMoeCheck", tr("All experts on the CPU"),
                      tr("--cpu-moe: keep every MoE block's experts in system RAM"));
    m_ot = named(new QLineEdit, "overrideTensorEdit", tr("Tensor overrides"),
                 tr("-ot: REGEX=CPU keeps matching tensors in system RAM, comma-separated, e.g. "
                    "\\.ffn_(up|down|gate)_exps=CPU"));
    m_ot->setPlaceholderText(tr("REGEX=CPU"));
    m_ot->setMinimumWidth(160);
    m_ts = named(new QLineEdit, "tensorSplitEdit", tr("Tensor split"),
                 tr("-ts: proportions of the layers per GPU, e.g. 3,1 (empty: Headroom splits)"));
    m_ts->setMaximumWidth(70);
    m_sm = named(new QComboBox, "splitModeCombo", tr("Split mode"),
                 tr("-sm: how several GPUs share the model (default: layer, not written)"));
    m_sm->addItems({tr("default"), QStringLiteral("layer"), QStringLiteral("row"),
                    QStringLiteral("none"), QStringLiteral("tensor")});
    m_rope = named(new QComboBox, "ropeScalingCombo", tr("RoPE scaling"),
                   tr("--rope-scaling: YaRN (or linear) scaling makes scale × the original context "
                      "usable, past the trained context"));
    m_rope->addItems(
        {tr("model"), QStringLiteral("yarn"), QStringLiteral("linear"), QStringLiteral("none")});
    m_rope_scale = named(new QDoubleSpinBox, "ropeScaleSpin", tr("RoPE scale"),
                         tr("--rope-scale: the context scaling factor"));
    m_rope_scale->setRange(1, 64);
    m_rope_scale->setDecimals(1);
    m_rope_scale->setPrefix(QStringLiteral("×"));
    m_yarn_orig =
        named(new QSpinBox, "yarnOrigCtxSpin", tr("YaRN original context"),
              tr("--yarn-orig-ctx: the model's original context (0: the model's own figure)"));
    m_yarn_orig->setRange(0, 1 << 24);
    m_yarn_orig->setSingleStep(4096);
    m_error = new QLabel;
    m_error->setObjectName(QStringLiteral("optionsErrorLabel"));
    m_error->setStyleSheet(QStringLiteral("color: #c0392b"));
    // Its line stays reserved while hidden: an error that comes and goes would otherwise move the
    // charts below by a line each time, and every chart would lay itself out at the new size
    // (bench_ui_latency: cpu-moe with n-cpu-moe set, invalid and fixed in turn).
    {
        QSizePolicy policy = m_error->sizePolicy();
        policy.setRetainSizeWhenHidden(true);
        m_error->setSizePolicy(policy);
    }
    m_error->hide();

    // The build changes what is priced (where MTP blocks cache, rollback state) and which flags the
    // launch may use; the CLI's --llama-version. Items carry the version so the order is core's.
    m_version = named(new QComboBox, "llamaVersionCombo", tr("llama.cpp version"),
                      tr("--llama-version: the llama.cpp build the plan is priced for and the "
                         "launch is written for"));
    for (LlamaVersion v : allLlamaVersions())
        m_version->addItem(QString::fromLatin1(llamaVersionName(v)), int(v));
    auto* ctx = new QHBoxLayout;
    ctx->addWidget(buddy(tr("&Context"), m_slider));
    ctx->addWidget(m_slider, 1);
    ctx->addWidget(m_slider_label);
    ctx->addWidget(m_context);
    ctx->addWidget(buddy(tr("RoPE"), m_rope));
    ctx->addWidget(m_rope);
    ctx->addWidget(m_rope_scale);
    ctx->addWidget(m_yarn_orig);
    ctx->addWidget(buddy(tr("Draft"), m_draft));
    ctx->addWidget(m_draft);
    auto* row = new QHBoxLayout;
    row->addWidget(buddy(tr("&K"), m_ctk));
    row->addWidget(m_ctk);
    row->addWidget(buddy(tr("&V"), m_ctv));
    row->addWidget(m_ctv);
    row->addWidget(buddy(tr("F&A"), m_fa));
    row->addWidget(m_fa);
    row->addWidget(buddy(tr("u&b"), m_ubatch));
    row->addWidget(m_ubatch);
    row->addWidget(buddy(tr("&np"), m_parallel));
    row->addWidget(m_parallel);
    row->addWidget(m_kvu);
    row->addWidget(m_swa_full);
    row->addWidget(buddy(tr("&MTP"), m_mtp));
    row->addWidget(m_mtp);
    row->addWidget(m_mmproj);
    row->addWidget(buddy(tr("&Reserve"), m_reserve));
    row->addWidget(m_reserve);
    row->addStretch(1);
    auto* place = new QHBoxLayout;
    place->addWidget(buddy(tr("-n&gl"), m_ngl));
    place->addWidget(m_ngl);
    place->addWidget(buddy(tr("n-cpu-moe"), m_n_cpu_moe));
    place->addWidget(m_n_cpu_moe);
    place->addWidget(m_cpu_moe);
    place->addWidget(buddy(tr("-ot"), m_ot));
    place->addWidget(m_ot, 1);
    place->addWidget(buddy(tr("-ts"), m_ts));
    place->addWidget(m_ts);
    place->addWidget(buddy(tr("-sm"), m_sm));
    place->addWidget(m_sm);
    place->addWidget(buddy(tr("llama.cpp"), m_version));
    place->addWidget(m_version);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(2);
    outer->addLayout(ctx);
    outer->addLayout(row);
    outer->addLayout(place);
    outer->addWidget(m_error);

    connect(m_slider, &QSlider::valueChanged, this, [this](int v) {
        if (v == 0 || m_rungs.empty())
            m_options.context.reset();
        else
            m_options.context = m_rungs[size_t(std::min<int>(v - 1, int(m_rungs.size()) - 1))];
        m_context_error.clear(); // the slider rewrites the typed context
        syncContextWidgets();
        emitEdited();
    });
    connect(m_context, &QLineEdit::editingFinished, this, &OptionsPanel::onContextText);
    auto cacheType = [](QComboBox* c) { return *parseCacheType(c->currentText().toStdString()); };
    connect(m_ctk, &QComboBox::currentIndexChanged, this, [this, cacheType] {
        m_options.cache_type_k = cacheType(m_ctk);
        emitEdited();
    });
    connect(m_ctv, &QComboBox::currentIndexChanged, this, [this, cacheType] {
        m_options.cache_type_v = cacheType(m_ctv);
        emitEdited();
    });
    connect(m_fa, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_options.flash_attn = i == 1 ? FlashAttn::On : i == 2 ? FlashAttn::Off : FlashAttn::Auto;
        emitEdited();
    });
    connect(m_ubatch, &QComboBox::currentIndexChanged, this, [this] {
        m_options.n_ubatch = m_ubatch->currentData().toUInt();
        m_options.ubatch_set = true;
        emitEdited();
    });
    connect(m_parallel, &QSpinBox::valueChanged, this, [this](int v) {
        m_options.n_parallel = std::uint32_t(v);
        emitEdited();
    });
    connect(m_kvu, &QCheckBox::toggled, this, [this](bool on) {
        m_options.kv_unified = on;
        emitEdited();
    });
    connect(m_swa_full, &QCheckBox::toggled, this, [this](bool on) {
        m_options.swa_full = on;
        emitEdited();
    });
    connect(m_mtp, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_options.mtp = i == 1 ? MtpMode::On : i == 2 ? MtpMode::Off : MtpMode::Auto;
        emitEdited();
    });
    connect(m_version, &QComboBox::currentIndexChanged, this, [this] {
        m_options.llama_version = LlamaVersion(m_version->currentData().toInt());
        emitEdited();
    });
    connect(m_draft, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i <= 0 || size_t(i) > m_draft_candidates.size()) {
            m_options.draft.reset();
        } else {
            DraftModel d = m_options.draft.value_or(DraftModel{});
            d.model = m_draft_candidates[size_t(i - 1)];
            d.ref.clear(); // a catalog model: the launch names it <id>.gguf
            m_options.draft = d;
        }
        emitEdited();
    });
    connect(m_mmproj, &QCheckBox::toggled, this, [this](bool on) {
        m_options.mmproj = on;
        emitEdited();
    });
    connect(m_reserve, &QDoubleSpinBox::valueChanged, this, [this](double gib) {
        m_options.extra_reserve = Bytes(gib * double(GiB));
        emitEdited();
    });
    for (QLineEdit* e : {m_ngl, m_n_cpu_moe, m_ot, m_ts})
        connect(e, &QLineEdit::editingFinished, this, &OptionsPanel::onPlacementEdited);
    connect(m_cpu_moe, &QCheckBox::toggled, this, &OptionsPanel::onPlacementEdited);
    connect(m_sm, &QComboBox::currentIndexChanged, this, &OptionsPanel::onPlacementEdited);
    auto rope = [this] {
        const int i = m_rope->currentIndex();
        m_options.rope_scaling = i == 1   ? std::optional(RopeScaling::Yarn)
                                 : i == 2 ? std::optional(RopeScaling::Linear)
                                 : i == 3 ? std::optional(RopeScaling::None)
                                          : std::nullopt;
        const bool scaled = i == 1 || i == 2;
        m_options.rope_scale = scaled ? m_rope_scale->value() : 0;
        m_options.yarn_orig_ctx = i == 1 ? std::uint32_t(m_yarn_orig->value()) : 0;
        m_rope_scale->setEnabled(scaled);
        m_yarn_orig->setEnabled(i == 1);
        emitEdited();
    };
    connect(m_rope, &QComboBox::currentIndexChanged, this, rope);
    connect(m_rope_scale, &QDoubleSpinBox::valueChanged, this, rope);
    connect(m_yarn_orig, &QSpinBox::valueChanged, this, rope);
    setRungs({}, 0);
    setOptions(PlanOptions{});
}

void OptionsPanel::emitEdited() {
    // An entry that does not read holds every edit back: the options announced are always all
    // the fields as shown, never the last good placement under a bad one.
    const QString error = !m_context_error.isEmpty() ? m_context_error : m_placement_error;
    if (!error.isEmpty()) {
        m_error->setText(error);
        m_error->show();
        Q_EMIT optionsInvalid(error);
        return;
    }
    m_error->hide();
    Q_EMIT optionsEdited(m_options);
}

void OptionsPanel::onPlacementEdited() {
    PlacementFlags f;
    f.gpu_layers = m_ngl->text().trimmed().toStdString();
    f.n_cpu_moe = m_n_cpu_moe->text().trimmed().toStdString();
    f.cpu_moe = m_cpu_moe->isChecked();
    const QString ot = m_ot->text().trimmed();
    if (!ot.isEmpty()) f.override_tensor.push_back(ot.toStdString());
    f.tensor_split = m_ts->text().trimmed().toStdString();
    if (m_sm->currentIndex() > 0) f.split_mode = m_sm->currentText().toStdString();
    auto pinned = readPlacementFlags(f);
    if (!pinned) {
        const Error& e = pinned.error();
        m_placement_error = tr("Placement: %1").arg(qs(e.message));
        if (!e.details.empty()) m_placement_error += QStringLiteral(" (%1)").arg(qs(e.details));
    } else {
        m_placement_error.clear();
        if (!m_error->isHidden() || *pinned != m_options.pinned)
            m_options.pinned = *pinned;
        else
            return; // nothing changed (focus left a field without an edit)
    }
    emitEdited();
}

void OptionsPanel::syncPlacementWidgets() {
    const PinnedPlacement& p = m_options.pinned;
    const QSignalBlocker b1(m_ngl), b2(m_n_cpu_moe), b3(m_cpu_moe), b4(m_ot), b5(m_ts), b6(m_sm);
    m_ngl->setText(p.gpu_layers && p.gpu_layers->kind != GpuLayers::Kind::Auto
                       ? qs(p.gpu_layers->text())
                       : QString());
    m_n_cpu_moe->setText(p.n_cpu_moe ? QString::number(*p.n_cpu_moe) : QString());
    m_cpu_moe->setChecked(p.cpu_moe);
    QStringList ot;
    for (const TensorOverride& o : p.tensor_overrides)
        ot << qs(o.text());
    m_ot->setText(ot.join(QLatin1Char(',')));
    m_ts->setText(qs(tensorSplitText(p.tensor_split)));
    m_sm->setCurrentIndex(p.split_mode ? int(*p.split_mode) + 1 : 0);
}

QString OptionsPanel::errorText() const {
    return m_error->isHidden() ? QString() : m_error->text();
}

void OptionsPanel::onContextText() {
    const QString t = m_context->text().trimmed().toLower();
    if (t.isEmpty() || t == QLatin1String("auto")) {
        m_options.context.reset();
    } else if (t == QLatin1String("native")) {
        m_options.context = 0;
    } else {
        auto n = parseTokens(t.toStdString());
        if (!n || *n > UINT32_MAX) {
            m_context_error = n ? tr("Context: %1 tokens is more than llama.cpp accepts").arg(t)
                                : tr("Context: %1").arg(qs(n.error().message));
            emitEdited();
            return;
        }
        if (m_context_error.isEmpty() && m_options.context && *m_options.context == *n) return;
        m_options.context = std::uint32_t(*n);
    }
    m_context_error.clear();
    syncContextWidgets();
    emitEdited();
}

void OptionsPanel::setRungs(const std::vector<std::uint32_t>& rungs, std::uint64_t) {
    if (rungs == m_rungs && m_slider->maximum() == int(rungs.size())) return;
    m_rungs = rungs;
    const QSignalBlocker b(m_slider);
    m_slider->setRange(0, int(m_rungs.size()));
    syncContextWidgets();
}

void OptionsPanel::setSliderLabel(const QString& text) {
    // The label keeps a fixed size, grown (never shrunk) to the widest text it has shown: a
    // label whose size can change asks the whole window to lay out again on every slider step
    // (bench_ui_latency), a fixed one only repaints itself.
    m_slider_label->setText(text);
    const QSize hint = m_slider_label->sizeHint();
    const QSize fixed(std::max({48, hint.width(), m_slider_label->minimumWidth()}), hint.height());
    if (m_slider_label->minimumSize() != fixed || m_slider_label->maximumSize() != fixed)
        m_slider_label->setFixedSize(fixed);
}

bool OptionsPanel::eventFilter(QObject* watched, QEvent* e) {
    // Measured once the label has handled the change (it caches its size hint until then).
    if (watched == m_slider_label &&
        (e->type() == QEvent::FontChange || e->type() == QEvent::StyleChange ||
         e->type() == QEvent::Polish))
        QMetaObject::invokeMethod(
            this, [this] { setSliderLabel(m_slider_label->text()); }, Qt::QueuedConnection);
    return QWidget::eventFilter(watched, e);
}

void OptionsPanel::syncContextWidgets() {
    const QSignalBlocker b1(m_slider), b2(m_context);
    if (!m_options.context) {
        m_slider->setValue(0);
        setSliderLabel(tr("Auto"));
        m_context->setText(tr("auto"));
        return;
    }
    const std::uint32_t c = *m_options.context;
    if (c == 0) {
        setSliderLabel(tr("native"));
        m_context->setText(tr("native"));
        m_slider->setValue(int(m_rungs.size()));
        return;
    }
    // Snap the slider to the nearest rung at or below the target (the exact value stays typed).
    int pos = 0;
    for (size_t i = 0; i < m_rungs.size(); ++i)
        if (m_rungs[i] <= c) pos = int(i) + 1;
    if (pos == 0 && !m_rungs.empty()) pos = 1;
    m_slider->setValue(pos);
    setSliderLabel(tokensText(c));
    m_context->setText(QString::number(c));
}

void OptionsPanel::setOptions(const PlanOptions& options) {
    m_options = options;
    const QSignalBlocker b1(m_ctk), b2(m_ctv), b3(m_fa), b4(m_ubatch), b5(m_parallel), b6(m_kvu),
        b7(m_swa_full), b8(m_mtp), b9(m_mmproj), b10(m_reserve), b11(m_rope), b12(m_rope_scale),
        b13(m_yarn_orig), b14(m_version);
    const int rope = !options.rope_scaling                          ? 0
                     : *options.rope_scaling == RopeScaling::Yarn   ? 1
                     : *options.rope_scaling == RopeScaling::Linear ? 2
                                                                    : 3;
    m_rope->setCurrentIndex(rope);
    m_rope_scale->setValue(options.rope_scale > 0 ? options.rope_scale : 1);
    m_yarn_orig->setValue(int(std::min<std::uint32_t>(options.yarn_orig_ctx, 1 << 24)));
    m_rope_scale->setEnabled(rope == 1 || rope == 2);
    m_yarn_orig->setEnabled(rope == 1);
    m_ctk->setCurrentText(QString::fromLatin1(ggmlTypeName(options.cache_type_k).data()));
    m_ctv->setCurrentText(QString::fromLatin1(ggmlTypeName(options.cache_type_v).data()));
    m_fa->setCurrentIndex(options.flash_attn == FlashAttn::On    ? 1
                          : options.flash_attn == FlashAttn::Off ? 2
                                                                 : 0);
    const int ub = m_ubatch->findData(options.n_ubatch);
    if (ub >= 0)
        m_ubatch->setCurrentIndex(ub);
    else {
        m_ubatch->addItem(QString::number(options.n_ubatch), options.n_ubatch);
        m_ubatch->setCurrentIndex(m_ubatch->count() - 1);
    }
    m_parallel->setValue(int(options.n_parallel));
    m_kvu->setChecked(options.kv_unified);
    m_swa_full->setChecked(options.swa_full);
    m_mtp->setCurrentIndex(options.mtp == MtpMode::On ? 1 : options.mtp == MtpMode::Off ? 2 : 0);
    m_mmproj->setChecked(options.mmproj);
    syncDraftWidget();
    m_version->setCurrentIndex(m_version->findData(int(options.llama_version)));
    m_reserve->setValue(double(options.extra_reserve) / double(GiB));
    m_context_error.clear();
    m_placement_error.clear();
    m_error->hide();
    syncContextWidgets();
    syncPlacementWidgets();
}

void OptionsPanel::setDraftCandidates(std::vector<std::shared_ptr<const ModelShape>> candidates) {
    m_draft_candidates = std::move(candidates);
    const QSignalBlocker block(m_draft);
    m_draft->clear();
    m_draft->addItem(tr("none"));
    for (const auto& m : m_draft_candidates)
        m_draft->addItem(tr("%1 (%2)").arg(qs(m->name.empty() ? m->id : m->name),
                                           qs(formatBytes(m->weightBytes()))),
                         qs(m->id));
    syncDraftWidget();
}

void OptionsPanel::syncDraftWidget() {
    const QSignalBlocker block(m_draft);
    const int at = m_options.draft && m_options.draft->model
                       ? m_draft->findData(qs(m_options.draft->model->id))
                       : 0;
    // A draft this target cannot pair with (not offered) is not kept behind the user's back.
    if (at < 0) m_options.draft.reset();
    m_draft->setCurrentIndex(std::max(0, at));
}

} // namespace headroom::ui
