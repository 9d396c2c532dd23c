// Input change to repaint: how long the window takes from a changed option (cache type, context
// slider) to a finished repaint with the new plan in every chart and panel. Goal: < 16 ms (one
// frame at 60 Hz). Prints median, p95 and max over many changes; never asserts on time.
#include "charts/chartspanel.h"
#include "hardwarepanel.h"
#include "mainwindow.h"
#include "modelpicker.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QSlider>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace headroom;
using namespace headroom::ui;

namespace {

void report(const char* what, std::vector<double> ms) {
    std::sort(ms.begin(), ms.end());
    const double median = ms[ms.size() / 2];
    const double p95 = ms[std::min(ms.size() - 1, ms.size() * 95 / 100)];
    std::printf("%-44s n=%zu  median %.2f ms  p95 %.2f ms  max %.2f ms\n", what, ms.size(), median,
                p95, ms.back());
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    MainWindowConfig config;
    config.probe_on_start = false;
    config.restore_state = false;
    const char* models[] = {"llama-3.1-8b-instruct", "qwen3-30b-a3b", "llama-3.3-70b-instruct"};
    for (const char* id : models) {
        MainWindow w(config);
        w.resize(1480, 920);
        w.show();
        QCoreApplication::processEvents();
        w.hardwarePanel()->setSnapshot(snapshotFromSizes({16 * GiB}, 64 * GiB, false));
        if (!w.modelPicker()->selectModelId(QString::fromLatin1(id))) {
            std::fprintf(stderr, "no catalog model %s\n", id);
            return 1;
        }
        w.repaint();
        QCoreApplication::processEvents();
        auto* ctk = w.findChild<QComboBox*>(QStringLiteral("cacheTypeKCombo"));
        auto* slider = w.findChild<QSlider*>(QStringLiteral("contextSlider"));
        std::vector<double> cache, ctx;
        QElapsedTimer t;
        for (int i = 0; i < 60; ++i) {
            t.start();
            ctk->setCurrentIndex(
                ctk->findText(i % 2 ? QStringLiteral("f16") : QStringLiteral("q8_0")));
            w.repaint(); // synchronous: returns when the whole window is painted
            QCoreApplication::processEvents();
            cache.push_back(double(t.nsecsElapsed()) / 1e6);
        }
        for (int i = 0; i < 60; ++i) {
            t.start();
            slider->setValue(i % (slider->maximum() + 1));
            w.repaint();
            QCoreApplication::processEvents();
            ctx.push_back(double(t.nsecsElapsed()) / 1e6);
        }
        // Where the time goes: the planner alone, and a repaint with nothing changed.
        std::vector<double> plan, paint;
        for (int i = 0; i < 60; ++i) {
            t.start();
            w.controller()->replan();
            plan.push_back(double(t.nsecsElapsed()) / 1e6);
        }
        for (int i = 0; i < 60; ++i) {
            t.start();
            w.repaint();
            paint.push_back(double(t.nsecsElapsed()) / 1e6);
        }
        report((std::string(id) + ": replan + views reset (no paint)").c_str(), plan);
        report((std::string(id) + ": repaint only").c_str(), paint);
        report((std::string(id) + ": cache type -> repaint").c_str(), cache);
        report((std::string(id) + ": context slider -> repaint").c_str(), ctx);
    }
    return 0;
}
