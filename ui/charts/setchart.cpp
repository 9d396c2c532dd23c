#include "setchart.h"

#include "chartstyle.h"
#include "setmodel.h"

#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCharts/QStackedBarSeries>
#include <QtCharts/QValueAxis>

#include <QEvent>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>

namespace headroom::ui {

namespace {

// One colour per member, in the members' order, readable on light and dark palettes; a set holds
// at most kMaxSetModels of them.
QColor memberColor(int member) {
    static const QColor colors[] = {QColor(0x4c, 0x72, 0xb0), QColor(0xdd, 0x84, 0x52),
                                    QColor(0x55, 0xa8, 0x68), QColor(0x81, 0x72, 0xb3),
                                    QColor(0xda, 0x8b, 0xc3), QColor(0x93, 0x78, 0x60),
                                    QColor(0xcc, 0xb9, 0x74), QColor(0x64, 0xb5, 0xcd)};
    return colors[size_t(member) % std::size(colors)];
}

QColor freeColor() {
    QColor c(0x8c, 0x8c, 0x8c);
    c.setAlpha(60);
    return c;
}

} // namespace

SetChart::SetChart(SetMemoryModel* model, QWidget* parent) : QWidget(parent), m_model(model) {
    setObjectName(QStringLiteral("setChart"));
    m_chart = new QChart;
    styleChart(m_chart);
    m_chart->setTitle(tr("Loaded together, per device"));
    m_budget = new QLineSeries(m_chart);
    m_budget->setName(tr("Usable"));
    styleBudget(m_budget);
    m_chart->addSeries(m_budget);
    m_x = new QBarCategoryAxis(m_chart);
    m_y = new QValueAxis(m_chart);
    m_y->setTitleText(tr("GiB"));
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_y, Qt::AlignLeft);
    styleAxis(m_x);
    styleAxis(m_y);
    m_budget->attachAxis(m_x);
    m_budget->attachAxis(m_y);
    m_view = new QChartView(m_chart, this);
    m_view->setObjectName(QStringLiteral("setChartView"));
    m_view->setAccessibleName(tr("Memory of the models loaded together, per device"));
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumHeight(220);
    m_chart->legend()->hide();
    m_legend = new QLabel(this);
    m_legend->setObjectName(QStringLiteral("setLegend"));
    m_legend->setAccessibleName(tr("Legend of the set's chart"));
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("setSummary"));
    m_summary->setAccessibleName(tr("What the models loaded together get"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_legend);
    layout->addWidget(m_summary);
    connect(m_model, &QAbstractItemModel::modelReset, this, &SetChart::rebuild);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &SetChart::refresh);
    rebuild();
}

void SetChart::rebuild() {
    // Another set may have another number of members: its bars are a new series (bound to the
    // model by bindBarSets, whose connections end with the old series).
    const int segments = m_model->columnCount() > 0 ? m_model->memberCount() + 1 : 0;
    if (!m_bars || m_bars->count() != segments) {
        if (m_bars) {
            m_chart->removeSeries(m_bars);
            delete m_bars;
            m_bars = nullptr;
        }
        if (segments > 0) {
            m_bars = new QStackedBarSeries(m_chart);
            bindBarSets(m_bars, m_model, 0, m_model->freeColumn());
            m_chart->addSeries(m_bars);
            m_bars->attachAxis(m_x);
            m_bars->attachAxis(m_y);
        }
    }
    refresh();
}

void SetChart::refresh() {
    const int rows = m_model->rowCount();
    if (m_bars) {
        const QList<QBarSet*> sets = m_bars->barSets();
        for (int s = 0; s < sets.size(); ++s) {
            const QColor c = s == m_model->freeColumn() ? freeColor() : memberColor(s);
            if (sets[s]->color() != c) sets[s]->setColor(c);
            sets[s]->setBorderColor(c);
        }
    }
    QStringList names;
    QList<QPointF> budget;
    double top = 0;
    for (int r = 0; r < rows; ++r) {
        names << m_model->poolName(r);
        const double usable = m_model->index(r, m_model->usableColumn()).data().toDouble();
        budget << QPointF(r - 0.5, usable) << QPointF(r + 0.5, usable);
        double used = 0;
        for (int m = 0; m < m_model->memberCount(); ++m)
            used += m_model->index(r, m).data().toDouble();
        top = std::max({top, usable, used});
    }
    if (m_x->categories() != names) {
        m_x->clear();
        m_x->append(names);
    }
    if (m_budget->points() != budget) m_budget->replace(budget);
    applyNiceAxis(m_y, top);
    // Non-breaking inside an entry, so the label wraps between entries, never inside one.
    QStringList items;
    auto entry = [&items](const QString& swatch, const QString& name) {
        items << swatch + QStringLiteral("&nbsp;") +
                     name.toHtmlEscaped().replace(QLatin1Char(' '), QStringLiteral("&nbsp;"));
    };
    for (int m = 0; m < m_model->memberCount(); ++m)
        entry(QStringLiteral("<span style=\"color:%1\">■</span>").arg(memberColor(m).name()),
              m_model->memberName(m));
    if (m_model->memberCount() > 0) {
        entry(QStringLiteral("<span style=\"color:#b0b0b0\">■</span>"), tr("Free"));
        entry(QStringLiteral("<span style=\"color:#c0392b\"><b>- - -</b></span>"), tr("Usable"));
    }
    const QString html = items.join(QStringLiteral(" &nbsp; "));
    if (m_legend->text() != html) m_legend->setText(html);
}

QString SetChart::legendText() const {
    return m_legend->text();
}

void SetChart::setSummary(const QString& text) {
    if (m_summary->text() != text) m_summary->setText(text);
}

QString SetChart::summary() const {
    return m_summary->text();
}

void SetChart::changeEvent(QEvent* e) {
    QWidget::changeEvent(e);
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::ApplicationPaletteChange) {
        styleChart(m_chart);
        styleAxis(m_x);
        styleAxis(m_y);
        styleBudget(m_budget);
        refresh();
    }
}

QStringList SetChart::categories() const {
    return m_x->categories();
}

QStringList SetChart::segmentLabels() const {
    QStringList out;
    if (m_bars)
        for (const QBarSet* s : m_bars->barSets())
            out << s->label();
    return out;
}

QList<qreal> SetChart::segmentValues(int segment) const {
    QList<qreal> out;
    if (!m_bars || segment < 0 || segment >= m_bars->count()) return out;
    const QBarSet* s = m_bars->barSets()[segment];
    for (int i = 0; i < s->count(); ++i)
        out << s->at(i);
    return out;
}

QList<QPointF> SetChart::budgetPoints() const {
    return m_budget->points();
}

} // namespace headroom::ui
