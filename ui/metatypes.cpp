#include "metatypes.h"

#include <QLocale>
#include <QObject>

namespace headroom::ui {

QString bytesText(Bytes b) {
    return qs(formatBytes(b));
}
QString signedBytesText(SignedBytes b) {
    return qs(formatSignedBytes(b));
}
QString tokensText(std::uint64_t tokens) {
    return qs(formatTokens(tokens));
}
QString speedText(double tok_s, double low, double high, int decimals) {
    if (!(tok_s > 0)) return QStringLiteral("–");
    if (!(high > low)) return QStringLiteral("%1 tok/s").arg(tok_s, 0, 'f', decimals);
    return QStringLiteral("%1 tok/s (%2–%3)")
        .arg(tok_s, 0, 'f', decimals)
        .arg(low, 0, 'f', decimals)
        .arg(high, 0, 'f', decimals);
}
QString speedDetailText(const Speed& s) {
    return QStringLiteral("decode %1 at depth %2: %3\nprefill %4: %5")
               .arg(speedText(s.decode_tok_s, s.decode_low, s.decode_high, 1), tokensText(s.depth),
                    qs(s.decode_basis),
                    speedText(s.prefill_tok_s, s.prefill_low, s.prefill_high, 0),
                    qs(s.prefill_basis)) +
           (s.speculative.drafter.empty()
                ? QString()
                : QStringLiteral("\n%1: %2")
                      .arg(speculativeText(s.speculative), qs(s.speculative.basis)));
}
QString speculativeText(const SpeculativeSpeed& s) {
    if (s.drafter.empty()) return {};
    const QString drafter = s.drafter == "mtp" ? QObject::tr("the MTP head") : qs(s.drafter);
    return QObject::tr("with speculative decoding (%1, up to %2 drafted): decode ≈ %3, "
                       "%4× (%5–%6×) — an estimate over the acceptance published runs show")
        .arg(drafter)
        .arg(s.n_max)
        .arg(speedText(s.decode_tok_s, s.decode_low, s.decode_high, 1))
        .arg(s.speedup, 0, 'f', 2)
        .arg(s.speedup_low, 0, 'f', 2)
        .arg(s.speedup_high, 0, 'f', 2);
}
QString exactBytesText(Bytes b) {
    return QStringLiteral("%1 (%2 bytes)")
        .arg(bytesText(b), QLocale(QLocale::English).toString(static_cast<qulonglong>(b)));
}

} // namespace headroom::ui
