// Input change to repaint: how long the window takes from a changed option (cache type, context
// slider, placement fields, RoPE) to a finished repaint with the new plan in every chart and
// panel. Goal: < 16 ms (one frame at 60 Hz). Prints median, p95 and max over many changes, and
// the same split into "update" (the input's signal: re-plan and every view's model) and "paint"
// (repaint and the events it leaves: relayout, the second paint a relayout asks for); never
// asserts on time. Wall-clock times on a loaded machine include waiting for a core; the GUI
// thread's CPU time per change is printed too, as the load-independent cost.
//
//   bench_ui_latency [--model ID] [--input SUBSTRING] [--n N]
//
// narrows the run to one model, the inputs whose name contains SUBSTRING (or, as "=NAME", the one
// input called NAME), N changes each (for a profiler: perf record -g bench/bench_ui_latency
// --input "cache type K" --n 400).
#include "charts/chartspanel.h"
#include "hardwarepanel.h"
#include "mainwindow.h"
#include "modelpicker.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QSlider>
#include <QSpinBox>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
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

// CPU time of the calling (GUI) thread: what an input costs the window itself, whatever else runs
// on the machine (wall-clock time under load also counts the waits for a core).
double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// p50/p95/max of one phase, printed under the total.
void reportPhase(const char* what, std::vector<double> ms) {
    std::sort(ms.begin(), ms.end());
    std::printf("    %-52s p50 %.2f ms  p95 %.2f ms  max %.2f ms\n", what, ms[ms.size() / 2],
                ms[std::min(ms.size() - 1, ms.size() * 95 / 100)], ms.back());
}

// The value after `flag` on the command line, or `fallback`.
const char* argValue(int argc, char** argv, const char* flag, const char* fallback) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], flag) == 0) return argv[i + 1];
    return fallback;
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const std::string only_model = argValue(argc, argv, "--model", "");
    const std::string only_input = argValue(argc, argv, "--input", "");
    const int n = std::max(2, std::atoi(argValue(argc, argv, "--n", "40")));
    MainWindowConfig config;
    config.probe_on_start = false;
    config.restore_state = false;
    const char* models[] = {"llama-3.1-8b-instruct", "qwen3-30b-a3b", "llama-3.3-70b-instruct"};
    for (const char* id : models) {
        if (!only_model.empty() && only_model != id) continue;
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
            // "=NAME" picks exactly that input ("=cpu-moe" without "n-cpu-moe").
            if (!only_input.empty() &&
                (only_input[0] == '=' ? only_input.substr(1) != input
                                      : std::string(input).find(only_input) == std::string::npos))
                return;
            std::vector<double> ms, update, paint, cpu;
            for (int i = 0; i < n; ++i) {
                const double cpu0 = threadCpuMs();
                t.start();
                change(i);
                const qint64 changed = t.nsecsElapsed();
                w.repaint(); // synchronous: returns when the whole window is painted
                QCoreApplication::processEvents();
                const qint64 done = t.nsecsElapsed();
                cpu.push_back(threadCpuMs() - cpu0);
                ms.push_back(double(done) / 1e6);
                update.push_back(double(changed) / 1e6);
                paint.push_back(double(done - changed) / 1e6);
            }
            report((std::string(id) + ": " + input + " -> repaint").c_str(), ms);
            reportPhase("update (re-plan, models, views)", update);
            reportPhase("paint (repaint, relayout, events)", paint);
            reportPhase("GUI thread CPU time (whole change)", cpu);
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
        // Placement fields are read when editing finishes (Enter or focus out).
        auto edit = [&w](const char* name, int i, const char* a, const char* b) {
            auto* e = w.findChild<QLineEdit*>(QString::fromLatin1(name));
            e->setText(QString::fromLatin1(i % 2 ? a : b));
            Q_EMIT e->editingFinished();
        };
        measure("gpu layers", [&](int i) { edit("gpuLayersEdit", i, "20", ""); });
        measure("n-cpu-moe", [&](int i) { edit("nCpuMoeEdit", i, "4", ""); });
        auto* cpuMoe = w.findChild<QCheckBox*>(QStringLiteral("cpuMoeCheck"));
        measure("cpu-moe", [&](int) { cpuMoe->toggle(); });
        measure("split mode", [&](int i) { flip(combo("splitModeCombo"), i, 0, 1); });
        measure("RoPE scaling", [&](int i) { flip(combo("ropeScalingCombo"), i, 0, 1); });
        // The scale only counts while yarn is chosen: left on yarn for this one, then back.
        combo("ropeScalingCombo")->setCurrentIndex(1);
        auto* ropeScale = w.findChild<QDoubleSpinBox*>(QStringLiteral("ropeScaleSpin"));
        measure("RoPE scale", [&](int i) { ropeScale->setValue(i % 2 ? 2.0 : 4.0); });
        combo("ropeScalingCombo")->setCurrentIndex(0);
        // Where the time goes: the planner alone, and a repaint with nothing changed.
        std::vector<double> plan, paint;
        if (!only_input.empty()) continue;
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
