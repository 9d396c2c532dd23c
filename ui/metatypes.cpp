#include "metatypes.h"

#include <QLocale>

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
QString exactBytesText(Bytes b) {
    return QStringLiteral("%1 (%2 bytes)")
        .arg(bytesText(b), QLocale(QLocale::English).toString(static_cast<qulonglong>(b)));
}

} // namespace headroom::ui
