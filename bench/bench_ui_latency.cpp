// Input change to repaint: how long the window takes from a changed option (cache type, context
// slider) to a finished repaint with the new plan in every chart and panel. Goal: < 16 ms (one
// frame at 60 Hz). Prints median, p95 and max over many changes; never asserts on time.
#include "charts/chartspanel.h"
#include "hardwarepanel.h"
#include "mainwindow.h"
#include "modelpicker.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QSlider>
#include <QSpinBox>

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
    std::printf("%-56s n=%zu  p50 %.2f ms  p95 %.2f ms  max %.2f ms\n", what, ms.size(), median,
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
        // Every option input, toggled back and forth: each change must repaint in one frame.
        QElapsedTimer t;
        auto measure = [&](const char* input, auto&& change) {
            std::vector<double> ms;
            for (int i = 0; i < 40; ++i) {
                t.start();
                change(i);
                w.repaint(); // synchronous: returns when the whole window is painted
                QCoreApplication::processEvents();
                ms.push_back(double(t.nsecsElapsed()) / 1e6);
            }
            report((std::string(id) + ": " + input + " -> repaint").c_str(), ms);
        };
        auto combo = [&w](const char* name) {
            return w.findChild<QComboBox*>(QString::fromLatin1(name));
        };
        auto flip = [](QComboBox* c, int i, int a, int b) { c->setCurrentIndex(i % 2 ? a : b); };
        QComboBox* ctk = combo("cacheTypeKCombo");
        QComboBox* ctv = combo("cacheTypeVCombo");
        measure("cache type K", [&](int i) { flip(ctk, i, 0, 1); }); // f16 <-> q8_0
        measure("cache type V", [&](int i) { flip(ctv, i, 0, 1); });
        measure("flash attention", [&](int i) { flip(combo("flashAttnCombo"), i, 0, 1); });
        measure("ubatch", [&](int i) { flip(combo("ubatchCombo"), i, 3, 4); }); // 512 <-> 1024
        measure("MTP", [&](int i) { flip(combo("mtpCombo"), i, 0, 2); });       // auto <-> off
        auto* np = w.findChild<QSpinBox*>(QStringLiteral("parallelSpin"));
        measure("parallel", [&](int i) { np->setValue(i % 2 ? 1 : 2); });
        for (const char* box : {"kvUnifiedCheck", "swaFullCheck", "mmprojCheck"}) {
            auto* c = w.findChild<QCheckBox*>(QString::fromLatin1(box));
            measure(box, [&](int) { c->toggle(); });
        }
        auto* reserve = w.findChild<QDoubleSpinBox*>(QStringLiteral("reserveSpin"));
        measure("reserve", [&](int i) { reserve->setValue(i % 2 ? 0.0 : 1.5); });
        auto* slider = w.findChild<QSlider*>(QStringLiteral("contextSlider"));
        measure("context slider", [&](int i) { slider->setValue(i % (slider->maximum() + 1)); });
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
    }
    return 0;
}
