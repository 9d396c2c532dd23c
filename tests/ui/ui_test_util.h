// Helpers shared by the main-window tests: a window that neither probes nor restores saved
// state, and a named child that must exist.
#pragma once

#include "mainwindow.h"

#include <QWidget>
#include <QtTest>

namespace headroom::ui::test {

inline MainWindowConfig quietConfig() {
    MainWindowConfig c;
    c.probe_on_start = false;
    c.restore_state = false;
    return c;
}

template <typename T>
T* child(QWidget* w, const char* name) {
    T* c = w->findChild<T*>(QLatin1String(name));
    if (!c) qFatal("no child %s", name);
    return c;
}

} // namespace headroom::ui::test
