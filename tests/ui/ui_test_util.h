// Helpers shared by the main-window tests: a window that neither probes nor restores saved
// state, a named child that must exist, and typing into fields as a user does.
#pragma once

#include "mainwindow.h"

#include <QLineEdit>
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

// Types `text` into `edit` as a user would (select all, type, Return); an empty text deletes.
inline void typeInto(QLineEdit* edit, const QString& text) {
    edit->setFocus();
    edit->selectAll();
    if (text.isEmpty())
        QTest::keyClick(edit, Qt::Key_Delete);
    else
        QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Return);
}

// A machine typed into the hardware panel's VRAM and RAM fields.
inline void machine(MainWindow& w, const char* vram, const char* ram) {
    typeInto(child<QLineEdit>(&w, "vramEdit"), QLatin1String(vram));
    typeInto(child<QLineEdit>(&w, "ramEdit"), QLatin1String(ram));
}

} // namespace headroom::ui::test
