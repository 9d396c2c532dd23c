// headroom: the GUI entry point. Everything lives in headroom_ui; this only starts it.
#include "mainwindow.h"

#include <QApplication>

int main(int argc, char* argv[]) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("headroom"));
    QApplication::setApplicationName(QStringLiteral("headroom"));
    QApplication::setApplicationDisplayName(QStringLiteral("Headroom"));
    QApplication::setApplicationVersion(QStringLiteral(HEADROOM_VERSION));
    QApplication::setDesktopFileName(QStringLiteral(HEADROOM_APP_ID));

    headroom::ui::MainWindow window;
    window.show();
    // Files named on the command line (the .desktop file passes %f) open like a drop.
    const QStringList args = QApplication::arguments().mid(1);
    for (const QString& a : args)
        if (!a.startsWith(QLatin1Char('-'))) window.openModelFile(a);
    return QApplication::exec();
}
