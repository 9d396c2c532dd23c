// Core value types carried through Qt signals, QVariant and QtTest data columns.
#pragma once

#include "core/hardware.h"
#include "core/model_shape.h"
#include "core/options.h"
#include "core/plan.h"

#include <QMetaType>
#include <QString>

Q_DECLARE_METATYPE(headroom::Plan)
Q_DECLARE_METATYPE(headroom::HardwareSnapshot)
Q_DECLARE_METATYPE(headroom::ModelShape)
Q_DECLARE_METATYPE(headroom::PlanOptions)

namespace headroom::ui {

// Item-data roles shared by every model in ui/.
enum Roles {
    BytesRole = Qt::UserRole + 1, // exact bytes (qlonglong), for sorting, tests and tooltips
    ContextRole,                  // the rung's context in tokens
    VerdictRole,                  // "resident" | "spilled" | "refused"
    ChosenRole,                   // true on the rung the launch policy chose
    SortRole,                     // raw value for QSortFilterProxyModel
};

inline QString qs(const std::string& s) {
    return QString::fromStdString(s);
}
// "21.84 GiB" — the core's formatting, so the GUI and the CLI print the same figure.
QString bytesText(Bytes b);
QString signedBytesText(SignedBytes b);
QString tokensText(std::uint64_t tokens);
// "42 tok/s (31–55)": a speed estimate with the range it is expected in (issue 11: every speed
// the GUI shows carries its range). `decimals` for all three figures.
QString speedText(double tok_s, double low, double high, int decimals);
// Decode and prefill of a rung with ranges, then what each rests on (the basis), for tooltips:
// "decode 42 tok/s (31–55) at depth 8K: bandwidth-bound, …".
QString speedDetailText(const Speed& s);
// Decode with the rung's drafter and its speed-up range; empty when it drafts nothing.
QString speculativeText(const SpeculativeSpeed& s);
// "21.84 GiB (23 450 000 000 bytes)" for tooltips: the exact figure behind a rounded one.
QString exactBytesText(Bytes b);
inline double toGiB(SignedBytes b) {
    return static_cast<double>(b) / static_cast<double>(GiB);
}

} // namespace headroom::ui
