#include "setpanel.h"

#include "charts/setchart.h"
#include "setmodel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace headroom::ui {

namespace {

QString nameOf(const ModelShape& m) {
    return qs(m.name.empty() ? m.id : m.name);
}

} // namespace

QString setSummaryText(const ModelSet& set) {
    QString out = !set.fits      ? QObject::tr("The set does not fit together.")
                  : set.resident ? QObject::tr("The set fits together, every model resident.")
                                 : QObject::tr("The set fits together, with part of a model in "
                                               "system RAM.");
    for (size_t k = 0; k < set.plans.size(); ++k) {
        const Plan& p = set.plans[k];
        out += QStringLiteral("\n%1. %2: ").arg(k + 1).arg(nameOf(p.model));
        const Rung* launched = launchedRung(p);
        if (!launched) {
            out += QObject::tr("no launch beside the ones before it");
            continue;
        }
        const Rung& r = *launched;
        Bytes gpu = 0;
        for (const DeviceUse& d : r.devices)
            gpu += d.bytes;
        out += QObject::tr("-c %1, %2 (devices %3, RAM %4)")
                   .arg(r.requested_context)
                   .arg(QString::fromLatin1(verdictName(r.verdict)), bytesText(gpu),
                        bytesText(r.host_bytes));
    }
    if (!set.fits && !set.blocked_why.empty()) out += QStringLiteral("\n") + qs(set.blocked_why);
    return out;
}

SetPanel::SetPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("setPanel"));
    auto* title = new QLabel(tr("<b>Loaded together</b>"));
    title->setToolTip(tr("Models that stay loaded side by side (llama-swap groups, llama-server's "
                         "router), planned as one set on this machine"));
    m_add = new QPushButton(tr("Add to the set"));
    m_add->setObjectName(QStringLiteral("setAdd"));
    m_add->setToolTip(tr("Plan the selected model loaded beside the set's other models"));
    m_add->setAccessibleName(tr("Add the selected model to the models loaded together"));
    m_list = new QListWidget;
    m_list->setObjectName(QStringLiteral("setMembers"));
    m_list->setAccessibleName(tr("Models loaded together"));
    m_list->setMaximumHeight(fontMetrics().height() * 6);
    m_remove = new QPushButton(tr("Remove"));
    m_remove->setObjectName(QStringLiteral("setRemove"));
    m_remove->setAccessibleName(tr("Remove the chosen model from the set"));
    m_clear = new QPushButton(tr("Clear"));
    m_clear->setObjectName(QStringLiteral("setClear"));
    m_clear->setAccessibleName(tr("Remove every model from the set"));
    m_hint = new QLabel;
    m_hint->setObjectName(QStringLiteral("setHint"));
    m_hint->setWordWrap(true);
    m_model = new SetMemoryModel(this);
    m_chart = new SetChart(m_model, this);
    m_chart->hide();
    // Add above the list, Remove and Clear below it: side by side, or beside the title, they
    // would set the left column's minimum width above the picker's (the window's at 1024).
    auto* adding = new QHBoxLayout;
    adding->addWidget(m_add);
    adding->addStretch(1);
    auto* editing = new QHBoxLayout;
    editing->addWidget(m_remove);
    editing->addWidget(m_clear);
    editing->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(title);
    layout->addLayout(adding);
    layout->addWidget(m_list);
    layout->addLayout(editing);
    layout->addWidget(m_hint);

    connect(m_add, &QPushButton::clicked, this, [this] {
        if (m_candidate) addMember(*m_candidate);
    });
    connect(m_remove, &QPushButton::clicked, this, [this] { removeMember(m_list->currentRow()); });
    connect(m_clear, &QPushButton::clicked, this, &SetPanel::clearMembers);
    connect(m_list, &QListWidget::currentRowChanged, this, &SetPanel::syncButtons);
    replan();
}

SetPanel::~SetPanel() {
    // A set still being planned finishes on its worker thread before the panel goes.
    if (m_watcher) m_watcher->waitForFinished();
}

void SetPanel::setCandidate(const ModelShape* model) {
    if (model)
        m_candidate = *model;
    else
        m_candidate.reset();
    syncButtons();
}

bool SetPanel::addMember(const ModelShape& model) {
    if (m_members.size() >= kMaxSetModels) return false;
    m_members.push_back(model);
    m_list->addItem(nameOf(model));
    m_list->setCurrentRow(m_list->count() - 1);
    replan();
    return true;
}

void SetPanel::removeMember(int index) {
    if (index < 0 || index >= memberCount()) return;
    m_members.erase(m_members.begin() + index);
    delete m_list->takeItem(index);
    replan();
}

void SetPanel::clearMembers() {
    m_members.clear();
    m_list->clear();
    replan();
}

QStringList SetPanel::memberIds() const {
    QStringList out;
    for (const ModelShape& m : m_members)
        out << qs(m.id);
    return out;
}

void SetPanel::setInputs(const HardwareSnapshot& hw, const PlanOptions& options) {
    m_hardware = hw;
    m_options = options;
    // The set chooses each member's context; a draft model and a projector file are one model's.
    m_options.context.reset();
    m_options.draft.reset();
    m_options.mmproj_bytes.reset();
    replan();
}

QString SetPanel::summaryText() const {
    return m_chart->summary();
}

void SetPanel::syncButtons() {
    m_add->setEnabled(m_candidate.has_value() && m_members.size() < kMaxSetModels);
    // An empty set is just the Add button: no list to walk into, nothing to remove.
    m_list->setVisible(!m_members.empty());
    m_remove->setVisible(!m_members.empty());
    m_clear->setVisible(!m_members.empty());
    m_remove->setEnabled(m_list->currentRow() >= 0);
    m_clear->setEnabled(!m_members.empty());
}

void SetPanel::replan() {
    syncButtons();
    const quint64 generation = ++m_generation;
    m_hint->setText(m_members.size() == 1 ? tr("Add another model to see what the two get "
                                               "together.")
                                          : QString());
    m_hint->setVisible(!m_hint->text().isEmpty());
    if (m_members.size() < 2 || !m_hardware) {
        showResult(makeError(ErrorCode::InvalidArgument, std::string()));
        return;
    }
    std::vector<SetMember> members;
    members.reserve(m_members.size());
    for (const ModelShape& m : m_members)
        members.push_back({m, m_options});
    m_chart->setSummary(tr("Planning the set…"));
    // Off the GUI thread: each context the set tries re-plans every member.
    auto* watcher = new QFutureWatcher<Result<ModelSet>>(this);
    connect(watcher, &QFutureWatcher<Result<ModelSet>>::finished, this,
            [this, watcher, generation] {
                watcher->deleteLater();
                if (m_watcher == watcher) m_watcher = nullptr;
                if (generation != m_generation) return;
                showResult(watcher->result());
            });
    m_watcher = watcher;
    watcher->setFuture(QtConcurrent::run(
        [members = std::move(members), hw = *m_hardware] { return planModelSet(members, hw); }));
}

void SetPanel::showResult(const Result<ModelSet>& result) {
    // The list names each member with what it gets (its row stays the member's).
    for (int k = 0; k < m_list->count(); ++k)
        m_list->item(k)->setText(nameOf(m_members[size_t(k)]));
    if (!result) {
        m_model->clear();
        m_chart->setSummary(result.error().message.empty()
                                ? QString()
                                : tr("Cannot plan the set: %1").arg(qs(result.error().message)));
    } else {
        m_model->setSet(*result);
        m_chart->setSummary(setSummaryText(*result));
        for (int k = 0; k < m_list->count() && k < int(result->plans.size()); ++k) {
            const Plan& p = result->plans[size_t(k)];
            const Rung* r = launchedRung(p);
            if (!r) {
                m_list->item(k)->setText(tr("%1 — does not fit").arg(nameOf(p.model)));
                continue;
            }
            m_list->item(k)->setText(tr("%1 — %2, %3")
                                         .arg(nameOf(p.model), tokensText(r->requested_context),
                                              QString::fromLatin1(verdictName(r->verdict))));
        }
    }
    Q_EMIT setShown();
}

} // namespace headroom::ui
