#include "whypanel.h"

#include "launch/llama_version.h"
#include "planner.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>

namespace headroom::ui {

namespace {

QString deviceWord(const Plan& plan, const Refusal& f) {
    if (f.device >= 0) {
        const Rung& any = plan.rungs.front();
        if (f.device < int(any.devices.size())) return qs(any.devices[size_t(f.device)].name);
        return QStringLiteral("GPU%1").arg(f.device);
    }
    switch (f.budget) {
    case BudgetName::Vram:
        return QObject::tr("VRAM");
    case BudgetName::VramRam:
        return QObject::tr("VRAM + RAM");
    case BudgetName::UmaPool:
    case BudgetName::OsFloor:
        return QObject::tr("the unified pool");
    case BudgetName::Ram:
        return QObject::tr("RAM");
    case BudgetName::ExpertPool:
        return QObject::tr("the expert pool");
    case BudgetName::KvLatency:
        return QObject::tr("the KV restore budget");
    case BudgetName::TrainedContext:
        return QObject::tr("the trained context");
    case BudgetName::MemoryUnknown:
        return QObject::tr("live memory");
    }
    return {};
}

// A context refusal compares token counts (the rung against the model's trained context), not
// bytes: core puts them in needed_tokens / available_tokens and they must read as tokens.
bool countsTokens(const Refusal& f) {
    return f.code == RefusalCode::ContextTooLong || f.budget == BudgetName::TrainedContext;
}

// A wrapped label whose size hints are the height WhyPanel::fitHeight settled for its current
// width: QLabel's own hints lay a selectable (text-document) label out again at several widths
// each time a layout asks — every option change, after every new text (bench_ui_latency). The
// width hints ask for little: the panel's width comes from its scroll area, never from its text.
class FittedLabel : public QLabel {
public:
    using QLabel::QLabel;
    QSize sizeHint() const override {
        return {fontMetrics().averageCharWidth() * 40, minimumHeight()};
    }
    QSize minimumSizeHint() const override {
        return {fontMetrics().averageCharWidth() * 8, minimumHeight()};
    }
};

} // namespace

QString refusalNumbersText(const Refusal& f) {
    if (countsTokens(f))
        return QObject::tr("needed %1 tokens, available %2 tokens, shortfall %3 tokens")
            .arg(tokensText(f.needed_tokens), tokensText(f.available_tokens),
                 tokensText(f.needed_tokens > f.available_tokens
                                ? f.needed_tokens - f.available_tokens
                                : 0));
    return QObject::tr("needed %1, available %2, shortfall %3")
        .arg(bytesText(f.needed_bytes), signedBytesText(f.available_bytes),
             signedBytesText(f.shortfall_bytes));
}

QString rungSentence(const Plan& plan, int row) {
    if (row < 0 || row >= int(plan.rungs.size())) return {};
    const Rung& r = plan.rungs[size_t(row)];
    const QString ctx = tokensText(r.context);
    if (r.verdict == Verdict::Refused && r.refusal) {
        const Refusal& f = *r.refusal;
        // The user's own placement (-ngl, -ts, -ot…) puts more on one GPU than it has.
        if (f.code == RefusalCode::DeviceOvercommitted && f.shortfall_bytes > 0)
            return QObject::tr("%1 is refused: your placement overcommits %2 by %3 (needs %4, "
                               "has %5).")
                .arg(ctx, QObject::tr("GPU%1 (%2)").arg(f.device).arg(deviceWord(plan, f)),
                     bytesText(Bytes(f.shortfall_bytes)), bytesText(f.needed_bytes),
                     signedBytesText(f.available_bytes));
        if (f.shortfall_bytes > 0 && f.code != RefusalCode::ContextTooLong &&
            f.code != RefusalCode::KvSpillUnsupported)
            return QObject::tr("%1 is refused: %2 is %3 short (needs %4, has %5).")
                .arg(ctx, deviceWord(plan, f), bytesText(Bytes(f.shortfall_bytes)),
                     bytesText(f.needed_bytes), signedBytesText(f.available_bytes));
        if (!f.message.empty()) return QObject::tr("%1 is refused: %2").arg(ctx, qs(f.message));
        return QObject::tr("%1 is refused (%2).")
            .arg(ctx, QString::fromLatin1(refusalCodeName(f.code)));
    }
    if (r.verdict == Verdict::Refused) return QObject::tr("%1 is refused.").arg(ctx);
    QStringList where;
    for (const DeviceUse& d : r.devices)
        where << QObject::tr("%1 holds %2 of %3")
                     .arg(qs(d.name), bytesText(d.bytes), signedBytesText(d.budget_bytes));
    if (r.host_bytes)
        where << QObject::tr("RAM %1 of %2")
                     .arg(bytesText(r.host_bytes), signedBytesText(r.host_budget_bytes));
    const bool chosen = !plan.decision.refused && plan.decision.rung_index == row;
    if (r.verdict == Verdict::Spilled)
        return QObject::tr("%1 runs with %2 spilled to RAM%3: %4.")
            .arg(ctx, bytesText(r.placement.spill_bytes),
                 chosen ? QObject::tr(" (the launch window)") : QString(),
                 where.join(QStringLiteral(", ")));
    return QObject::tr("%1 fits resident%2: %3.")
        .arg(ctx, chosen ? QObject::tr(" (the launch window)") : QString(),
             where.join(QStringLiteral(", ")));
}

WhyPanel::WhyPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("whyPanel"));
    m_rungs = new QComboBox;
    m_rungs->setObjectName(QStringLiteral("whyRungCombo"));
    m_rungs->setAccessibleName(tr("Rung to explain"));
    m_rungs->setToolTip(tr("The rung explained below; click a bar in the charts to pick one"));
    m_rungs->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_sentence = new FittedLabel;
    m_sentence->setObjectName(QStringLiteral("whySentence"));
    m_sentence->setAccessibleName(tr("Verdict"));
    m_sentence->setWordWrap(true);
    m_sentence->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont f = m_sentence->font();
    f.setPointSizeF(f.pointSizeF() * 1.1);
    f.setBold(true);
    m_sentence->setFont(f);
    m_numbers = new FittedLabel;
    m_numbers->setObjectName(QStringLiteral("whyNumbers"));
    m_numbers->setAccessibleName(tr("Numbers behind the verdict"));
    m_numbers->setWordWrap(true);
    m_numbers->setTextFormat(Qt::RichText);
    m_numbers->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_remedy_box = new QWidget;
    m_remedy_box->setObjectName(QStringLiteral("remedyBox"));
    m_remedy_layout = new QVBoxLayout(m_remedy_box);
    m_remedy_layout->setSpacing(0);
    m_remedy_layout->setContentsMargins(0, 0, 0, 0);

    m_mtp = new FittedLabel;
    m_mtp->setObjectName(QStringLiteral("whyMtp"));
    m_mtp->setAccessibleName(tr("Multi-token prediction"));
    m_mtp->setWordWrap(true);
    m_mtp->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_mtp->hide();
    m_mtp_button = new QPushButton;
    m_mtp_button->setObjectName(QStringLiteral("mtpCompareButton"));
    m_mtp_button->setAccessibleName(tr("Compare with MTP switched the other way"));
    m_mtp_button->hide();
    connect(m_mtp_button, &QPushButton::clicked, this, [this] {
        PlanOptions o = m_plan.options;
        o.mtp = m_plan.mtp ? MtpMode::Off : MtpMode::Auto;
        Q_EMIT remedyChosen(o);
    });
    m_growth = new FittedLabel;
    m_growth->setObjectName(QStringLiteral("whyGrowth"));
    m_growth->setAccessibleName(tr("Growth of the launch window"));
    m_growth->setWordWrap(true);
    m_growth->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_growth->hide();
    auto* mtpRow = new QHBoxLayout;
    mtpRow->addWidget(m_mtp, 1);
    mtpRow->addWidget(m_mtp_button);

    auto* top = new QHBoxLayout;
    auto* label = new QLabel(tr("&Why:"));
    label->setBuddy(m_rungs);
    top->addWidget(label);
    top->addWidget(m_rungs);
    top->addWidget(m_sentence, 1);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(3);
    outer->addLayout(top);
    outer->addWidget(m_numbers);
    outer->addWidget(m_growth);
    outer->addLayout(mtpRow);
    outer->addWidget(m_remedy_box);

    // Wrapped labels in a layout get the height their size hint asked for at some earlier
    // width; each keeps its minimum height at what its current width needs, so its last line
    // is never cut (the panel scrolls instead). That minimum height is the whole answer, so the
    // labels do not also ask the layouts for height-for-width: a wrapped label that does makes
    // every relayout of the window lay out its text again at several widths, the largest cost of
    // an option change after the plan itself (bench_ui_latency).
    m_rungs->installEventFilter(this);
    for (QLabel* l : {m_sentence, m_numbers, m_mtp, m_growth}) {
        l->installEventFilter(this);
        fitHeight(l);
    }

    connect(m_rungs, &QComboBox::activated, this, [this](int i) {
        m_row = i;
        render();
    });
    clear(tr("Pick a model to see whether it fits."));
}

void WhyPanel::clear(const QString& message) {
    m_has_plan = false;
    m_plan = Plan{};
    m_row = -1;
    m_rungs->clear();
    m_sentence->setText(message);
    m_numbers->clear();
    for (QLabel* l : {m_sentence, m_numbers})
        fitHeight(l);
    m_mtp->hide();
    m_mtp_button->hide();
    m_growth->hide();
    setRemedyCount(0);
}

void WhyPanel::fitRungCombo() {
    const QSize hint = m_rungs->sizeHint();
    const QSize fixed(std::max(hint.width(), m_rungs->minimumWidth()), hint.height());
    if (m_rungs->minimumSize() != fixed || m_rungs->maximumSize() != fixed)
        m_rungs->setFixedSize(fixed);
}

bool WhyPanel::eventFilter(QObject* watched, QEvent* e) {
    // The combo's fixed size follows its font and style (a polish can change both); measured
    // once the combo has handled the change (it caches its size hint until then).
    if (watched == m_rungs && (e->type() == QEvent::Polish || e->type() == QEvent::FontChange ||
                               e->type() == QEvent::StyleChange))
        QMetaObject::invokeMethod(this, &WhyPanel::fitRungCombo, Qt::QueuedConnection);
    if (e->type() == QEvent::Resize)
        if (auto* l = qobject_cast<QLabel*>(watched)) fitHeight(l);
    // Another font or style lays the same text out at another height: measured again once the
    // label has taken the change.
    if (e->type() == QEvent::FontChange || e->type() == QEvent::StyleChange)
        if (auto* l = qobject_cast<QLabel*>(watched)) {
            l->setProperty("fittedFor", QVariant());
            QMetaObject::invokeMethod(
                this, [l] { fitHeight(l); }, Qt::QueuedConnection);
        }
    return QWidget::eventFilter(watched, e);
}

void WhyPanel::fitHeight(QLabel* l) {
    // The height last measured for this text at this width (a resize that only changes the
    // height, or the same text again, measures nothing).
    const QString text = l->text();
    const int width = l->width();
    const QVariant last = l->property("fittedFor");
    int need = 0;
    if (!text.isEmpty() && last.toString() == text && l->property("fittedWidth").toInt() == width)
        need = l->property("fittedHeight").toInt();
    else if (!text.isEmpty())
        need = l->heightForWidth(width);
    l->setProperty("fittedFor", text);
    l->setProperty("fittedWidth", width);
    l->setProperty("fittedHeight", need);
    if (need != l->minimumHeight()) l->setMinimumHeight(need);
    // QLabel turns height-for-width back on with every setText; off again (see the constructor).
    QSizePolicy policy = l->sizePolicy();
    if (policy.hasHeightForWidth()) {
        policy.setHeightForWidth(false);
        l->setSizePolicy(policy);
    }
}

QString WhyPanel::growthText() const {
    return m_growth->isHidden() ? QString() : m_growth->text();
}

QString WhyPanel::mtpText() const {
    return m_mtp->isHidden() ? QString() : m_mtp->text();
}

void WhyPanel::renderMtp(const Rung& r) {
    if (!m_plan.mtp && !m_plan.model.mtpCapable()) {
        m_mtp->hide();
        m_mtp_button->hide();
        return;
    }
    QString text;
    if (!m_plan.mtp && !mtpDrafts(m_plan.model, m_plan.options.llama_version)) {
        // Nextn blocks this llama.cpp build cannot draft with: no comparison would turn MTP on.
        text = tr("MTP is off: llama.cpp %1 builds no MTP draft graph for %2, so its %3 "
                  "multi-token-prediction block(s) are not used.")
                   .arg(QString::fromLatin1(llamaVersionName(m_plan.options.llama_version)),
                        QString::fromStdString(m_plan.model.architecture))
                   .arg(m_plan.model.n_mtp_layers);
        m_mtp->setText(text);
        m_mtp->setToolTip(text);
        m_mtp->show();
        m_mtp_button->hide();
        return;
    }
    if (!m_plan.mtp) {
        // A head the planner left off (MTP off, or auto found it not worth its memory).
        text = tr("MTP is off: the model's multi-token-prediction head is not loaded.");
        m_mtp_button->setText(tr("Compare with MTP auto"));
    } else {
        text = tr("MTP is on (%1 posture: -ub %2).")
                   .arg(QString::fromLatin1(postureName(r.posture)))
                   .arg(r.n_ubatch);
        const Rung* off = nullptr;
        if (m_without_mtp)
            for (const Rung& o : m_without_mtp->rungs)
                if (o.requested_context == r.requested_context) off = &o;
        if (off) {
            auto delta = [](Bytes on, Bytes without) {
                return signedBytesText(toSigned(on) - toSigned(without));
            };
            text += QLatin1Char(' ') +
                    tr("At %1 it costs %2 more than without MTP (KV %3, compute %4, draft "
                       "context and head %5); decode ≈ %6 with it, %7 without "
                       "(%8 → %9).")
                        .arg(tokensText(r.context), delta(r.totals.total(), off->totals.total()),
                             delta(r.totals.kv(), off->totals.kv()),
                             delta(r.totals.compute, off->totals.compute),
                             delta(satAdd(r.totals.overhead, r.totals.weights),
                                   satAdd(off->totals.overhead, off->totals.weights)))
                        .arg(speedText(r.speed.decode_tok_s, r.speed.decode_low,
                                       r.speed.decode_high, 1),
                             speedText(off->speed.decode_tok_s, off->speed.decode_low,
                                       off->speed.decode_high, 1))
                        .arg(QString::fromLatin1(verdictName(off->verdict)),
                             QString::fromLatin1(verdictName(r.verdict)));
        }
        m_mtp_button->setText(tr("Compare with MTP off"));
    }
    m_mtp->setText(text);
    m_mtp->setToolTip(text);
    m_mtp->show();
    m_mtp_button->show();
}

void WhyPanel::setPlan(const Plan& plan, const Plan* without_mtp, const QString& growth) {
    m_plan = plan;
    m_growth_text = growth;
    m_without_mtp.reset();
    if (without_mtp) m_without_mtp = *without_mtp;
    m_has_plan = true;
    {
        // Refilled only when an entry differs: the combo sizes to its contents, so a refill
        // relays out the panel and, through the splitter, the window (bench_ui_latency).
        QStringList items;
        for (const Rung& r : plan.rungs)
            items << QStringLiteral("%1 — %2").arg(tokensText(r.context),
                                                   QString::fromLatin1(verdictName(r.verdict)));
        bool same = m_rungs->count() == items.size();
        for (int i = 0; same && i < items.size(); ++i)
            same = m_rungs->itemText(i) == items[i];
        if (!same) {
            const QSignalBlocker b(m_rungs);
            m_rungs->clear();
            m_rungs->addItems(items);
            // A fixed size, grown (never shrunk) to the widest entries shown: a combo whose width
            // follows its entries moves the splitters and resizes every widget in the window
            // each time a verdict changes.
            fitRungCombo();
        }
    }
    // The rung the user asked for (-c) is the interesting one; else the launch decision; else the
    // smallest refused rung (the first wall).
    int row = -1;
    if (plan.options.context && *plan.options.context > 0)
        for (size_t i = 0; i < plan.rungs.size(); ++i)
            if (plan.rungs[i].requested_context == *plan.options.context) row = int(i);
    if (row < 0 && !plan.decision.refused) row = plan.decision.rung_index;
    if (row < 0)
        for (size_t i = 0; i < plan.rungs.size() && row < 0; ++i)
            if (plan.rungs[i].verdict == Verdict::Refused) row = int(i);
    selectRung(row);
}

void WhyPanel::selectRung(int row) {
    m_row = (row >= 0 && row < int(m_plan.rungs.size())) ? row : (m_plan.rungs.empty() ? -1 : 0);
    render();
}

QString WhyPanel::sentence() const {
    return m_sentence->text();
}

QString WhyPanel::numbersText() const {
    return m_numbers->text();
}

void WhyPanel::setRemedyCount(size_t n) {
    // Buttons are kept and relabelled from plan to plan, surplus ones hidden rather than
    // deleted: a new style-sheeted button is polished and laid out from scratch, several
    // milliseconds each time a refusal gains or loses a remedy (bench_ui_latency).
    while (m_remedy_buttons.size() < n) {
        const size_t i = m_remedy_buttons.size();
        auto* b = new QPushButton(m_remedy_box);
        b->setObjectName(QStringLiteral("remedyButton%1").arg(i));
        b->setFlat(true);
        b->setStyleSheet(QStringLiteral("text-align: left; padding: 3px 6px;"));
        // A flat, style-sheeted button sizes to the cap height: leave room for descenders and
        // underscores ("q4_0") so they are not cut.
        b->setMinimumHeight(b->fontMetrics().height() + 8);
        b->setCursor(Qt::PointingHandCursor);
        connect(b, &QPushButton::clicked, this, [this, i] {
            if (m_has_plan && m_row >= 0 && m_plan.rungs[size_t(m_row)].refusal &&
                i < m_plan.rungs[size_t(m_row)].refusal->remedies.size()) {
                const Remedy& r = m_plan.rungs[size_t(m_row)].refusal->remedies[i];
                // A smaller quant switches the model; every other remedy changes options.
                if (!r.model_ref.empty())
                    Q_EMIT quantChosen(qs(r.model_ref), r.options);
                else
                    Q_EMIT remedyChosen(r.options);
            }
        });
        m_remedy_layout->addWidget(b);
        m_remedy_buttons.push_back(b);
    }
    for (size_t i = 0; i < m_remedy_buttons.size(); ++i)
        if (m_remedy_buttons[i]->isVisibleTo(m_remedy_box) != (i < n))
            m_remedy_buttons[i]->setVisible(i < n);
    m_remedy_shown = n;
}

void WhyPanel::render() {
    if (!m_has_plan || m_row < 0) {
        setRemedyCount(0);
        if (m_has_plan) m_sentence->setText(tr("The plan has no rungs."));
        m_numbers->clear();
        for (QLabel* l : {m_sentence, m_numbers})
            fitHeight(l);
        m_mtp->hide();
        m_mtp_button->hide();
        m_growth->hide();
        return;
    }
    {
        const QSignalBlocker b(m_rungs);
        m_rungs->setCurrentIndex(m_row);
    }
    const Rung& r = m_plan.rungs[size_t(m_row)];
    Q_EMIT rungShown(m_row);
    m_sentence->setText(rungSentence(m_plan, m_row));
    renderMtp(r);
    const bool launch = !m_plan.decision.refused && m_plan.decision.rung_index == m_row;
    m_growth->setText(m_growth_text);
    m_growth->setVisible(launch && !m_growth_text.isEmpty());
    QString html;
    if (r.refusal) {
        const Refusal& f = *r.refusal;
        html += tr("Budget <b>%1</b>: %2.")
                    .arg(QString::fromLatin1(budgetName(f.budget)),
                         refusalNumbersText(f).toHtmlEscaped());
        QStringList terms;
        for (const TermLine& t : f.terms)
            terms << QStringLiteral("%1 %2").arg(qs(t.label).toHtmlEscaped(), bytesText(t.bytes));
        if (!terms.isEmpty())
            html += QStringLiteral("<br>") + tr("Terms: %1").arg(terms.join(QStringLiteral(" · ")));
        // Every reason that blocks the rung: fixing one alone does not make it run.
        if (f.reasons.size() > 1) {
            QStringList why;
            for (const BlockingReason& b : f.reasons)
                why << (b.message.empty() ? QString::fromLatin1(refusalCodeName(b.code))
                                          : qs(b.message).toHtmlEscaped());
            html += QStringLiteral("<br>") +
                    tr("%n reasons block it: %1", nullptr, int(f.reasons.size()))
                        .arg(why.join(QStringLiteral("; ")));
        }
        if (f.remedies.empty())
            html += QStringLiteral("<br>") + tr("No option change makes this rung run.");
    } else {
        const Terms& t = r.totals;
        html += tr("Weights %1 · KV %2 · state %3 · compute %4 · output %5 · overhead %6 · total "
                   "<b>%7</b>")
                    .arg(bytesText(t.weights), bytesText(t.kv()), bytesText(t.recurrent_state),
                         bytesText(t.compute), bytesText(t.output), bytesText(t.overhead),
                         bytesText(t.total()));
        if (r.draft)
            html += QStringLiteral("<br>") +
                    tr("Draft model %1 (-ngld %2): %3 of the total, in a context of its own")
                        .arg(qs(r.draft->model_id).toHtmlEscaped())
                        .arg(r.draft->gpu_layers)
                        .arg(bytesText(r.draft->total()));
        html +=
            QStringLiteral("<br>") +
            tr("-ngl %1 · --n-cpu-moe %2 · decode ≈ %3 · prefill ≈ %4 (estimates at this "
               "rung's depth, %5)")
                .arg(r.placement.gpu_layers)
                .arg(r.placement.n_cpu_moe)
                .arg(speedText(r.speed.decode_tok_s, r.speed.decode_low, r.speed.decode_high, 1),
                     speedText(r.speed.prefill_tok_s, r.speed.prefill_low, r.speed.prefill_high, 0),
                     tokensText(r.speed.depth));
        const SpeculativeSpeed& s = r.speed.speculative;
        if (!s.drafter.empty()) html += QStringLiteral("<br>") + speculativeText(s).toHtmlEscaped();
        m_numbers->setToolTip(speedDetailText(r.speed));
    }
    m_numbers->setText(html);
    for (QLabel* l : {m_sentence, m_numbers, m_mtp, m_growth})
        fitHeight(l); // new text, same width: its height may have changed
    setRemedyCount(r.refusal ? r.refusal->remedies.size() : 0);
    if (!r.refusal) return;
    for (size_t i = 0; i < r.refusal->remedies.size(); ++i) {
        const Remedy& remedy = r.refusal->remedies[i];
        // ✓ only where the planner, re-run with the remedy applied, runs the rung; otherwise
        // what it still lacks.
        const QString mark = remedy.fixes ? QStringLiteral(" ✓")
                             : remedy.still_lacks.empty()
                                 ? QString()
                                 : tr(" — still: %1").arg(qs(remedy.still_lacks));
        const QString text =
            remedy.saves_bytes > 0
                ? tr("→ %1 (saves %2)%3")
                      .arg(qs(remedy.label), bytesText(Bytes(remedy.saves_bytes)), mark)
                : tr("→ %1%2").arg(qs(remedy.label), mark);
        QPushButton* b = m_remedy_buttons[i];
        // '&' in a label would turn into a keyboard mnemonic.
        const QString shown = QString(text).replace(QLatin1Char('&'), QStringLiteral("&&"));
        if (b->text() != shown) b->setText(shown);
        b->setAccessibleName(tr("Apply remedy: %1").arg(qs(remedy.label)));
        // ✓ only where the planner says the change alone makes the rung run (Remedy::fixes).
        b->setToolTip(remedy.fixes
                          ? tr("Applies this change; re-planned with it, the rung runs")
                          : tr("Applies this change; re-planned with it, the rung still lacks: %1")
                                .arg(qs(remedy.still_lacks)));
    }
}

} // namespace headroom::ui
