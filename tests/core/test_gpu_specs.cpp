// The GPU speed-facts table (core/gpu_specs.h): lookups by name and PCI id, and the promise that
// a GPU typed by name, picked as a preset or probed by id gets the same speed (issue 11).
#include "catalog.h"
#include "gpu_specs.h"
#include "hardware.h"
#include "hardware_presets.h"
#include "planner.h"

#include <QtTest>

using namespace headroom;

namespace {

Plan planOn(const HardwareSnapshot& hw, const std::string& model) {
    auto c = loadBuiltinCatalog();
    if (!c) qFatal("catalog: %s", c.error().message.c_str());
    auto m = c->shape(model);
    if (!m) qFatal("shape: %s", m.error().message.c_str());
    PlanOptions o;
    o.context = 8192;
    auto p = makePlan(*m, hw, o);
    if (!p) qFatal("plan: %s", p.error().message.c_str());
    return *p;
}

const Rung& chosen(const Plan& p) {
    return p.rungs.at(static_cast<size_t>(p.decision.rung_index));
}

} // namespace

class TestGpuSpecs : public QObject {
    Q_OBJECT
private slots:
    void aGpuIsFoundByItsModelNumberItsFullNameOrItsMarketingName_data() {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("model");
        QTest::newRow("number only") << "4090"
                                     << "RTX 4090";
        QTest::newRow("model, any case and spacing") << "rtx-4090"
                                                     << "RTX 4090";
        QTest::newRow("full name") << "NVIDIA GeForce RTX 3080 Ti"
                                   << "RTX 3080 Ti";
        QTest::newRow("the longer model wins") << "RTX 3060 Ti"
                                               << "RTX 3060 Ti";
        QTest::newRow("XTX is not the XT") << "RX 7900 XTX"
                                           << "RX 7900 XTX";
        QTest::newRow("Apple by chip") << "M2 Ultra"
                                       << "M2 Ultra";
    }
    void aGpuIsFoundByItsModelNumberItsFullNameOrItsMarketingName() {
        QFETCH(QString, typed);
        QFETCH(QString, model);
        auto s = gpuSpecByName(typed.toStdString());
        QVERIFY(s.has_value());
        QCOMPARE(QString(s->model), model);
    }

    void anUnknownNameFindsNothing() {
        QVERIFY(!gpuSpecByName("Voodoo 5 6000").has_value());
        QVERIFY(!gpuSpecByName("").has_value());
    }

    void theProbeFindsTheSameRowByPciId() {
        // 0x10de:0x2684 is the RTX 4090 (pci.ids); its row says 1008 GB/s (384-bit x 21 Gbps / 8).
        auto s = gpuSpecById(0x10de, 0x2684, "");
        QVERIFY(s.has_value());
        QCOMPARE(s->bandwidth_gbs, 1008.0);
        QCOMPARE(QString(s->model), QString(gpuSpecByName("RTX 4090")->model));
    }

    void everyRowHasBandwidthAndACitation() {
        for (const auto& s : gpuSpecs()) {
            QVERIFY2(s.bandwidth_gbs > 0, s.model);
            QVERIFY2(std::string(s.source).size() > 10, s.model);
        }
    }

    void aGpuTypedByNameGetsItsMemoryBandwidthAndComputeFromTheTable() {
        auto hw = snapshotFromGpuNames({"RTX 4090"}, {}, 64 * GiB);
        QVERIFY(hw.has_value());
        QCOMPARE(hw->gpus.size(), size_t(1));
        // The table's 4090: 24 GiB, 1008 GB/s, 330.3 TFLOPS dense FP16, PCIe 4.0 x16.
        QCOMPARE(hw->gpus[0].total_bytes, 24 * GiB);
        QCOMPARE(hw->gpus[0].bandwidth_gbs, 1008.0);
        QCOMPARE(hw->gpus[0].fp16_tflops, 330.3);
        QCOMPARE(hw->gpus[0].pcie_gen, 4u);
        QVERIFY(!hw->uma);
    }

    void anUnknownGpuNameIsANamedError() {
        auto hw = snapshotFromGpuNames({"RTX 9999"}, {}, 64 * GiB);
        QVERIFY(!hw.has_value());
        QVERIFY(hw.error().message.find("RTX 9999") != std::string::npos);
    }

    void aPresetAndTheSameGpuTypedByNameGiveIdenticalSpeeds_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("gpu");
        QTest::newRow("RTX 4090") << "rtx-4090"
                                  << "RTX 4090";
        QTest::newRow("RTX 3090") << "rtx-3090"
                                  << "RTX 3090";
        QTest::newRow("RX 7900 XTX") << "rx-7900-xtx"
                                     << "RX 7900 XTX";
    }
    void aPresetAndTheSameGpuTypedByNameGiveIdenticalSpeeds() {
        QFETCH(QString, preset);
        QFETCH(QString, gpu);
        auto p = presetSnapshot(preset.toStdString());
        QVERIFY(p.has_value());
        // Same card, same RAM: only the way the GPU was described differs.
        auto typed = snapshotFromGpuNames({gpu.toStdString()}, {}, p->ram_total);
        QVERIFY(typed.has_value());
        typed->host_bandwidth_gbs = p->host_bandwidth_gbs;
        typed->cpu_tflops = p->cpu_tflops;
        typed->gpus[0].backend = p->gpus[0].backend;
        // An 8B model at 8K sits wholly on the card in both: same placement, same speeds.
        const Rung a = chosen(planOn(*p, "llama-3.1-8b-instruct"));
        const Rung b = chosen(planOn(*typed, "llama-3.1-8b-instruct"));
        QVERIFY(a.speed.decode_tok_s > 0);
        QCOMPARE(a.speed.decode_tok_s, b.speed.decode_tok_s);
        QCOMPARE(a.speed.prefill_tok_s, b.speed.prefill_tok_s);
        QCOMPARE(a.speed.decode_low, b.speed.decode_low);
        QCOMPARE(a.speed.decode_high, b.speed.decode_high);
    }

    void aGpuTypedAsOnlyASizeSaysItsSpeedRestsOnAClassDefault() {
        // --vram 24GiB has no bandwidth: the basis must say so instead of pretending.
        const Rung r =
            chosen(planOn(snapshotFromSizes({24 * GiB}, 64 * GiB, false), "llama-3.1-8b-instruct"));
        QVERIFY(r.speed.decode_basis.find("class default") != std::string::npos);
        QVERIFY(r.speed.decode_low < r.speed.decode_tok_s);
        QVERIFY(r.speed.decode_high > r.speed.decode_tok_s);
    }

    void aGpuTypedAsOnlyItsSizeShowsARangeHoldingThePresetsFigures_data() {
        aPresetAndTheSameGpuTypedByNameGiveIdenticalSpeeds_data();
    }
    void aGpuTypedAsOnlyItsSizeShowsARangeHoldingThePresetsFigures() {
        // Issue 11: an RTX 4090 typed as "24 GiB" showed an 8x different prefill from the preset.
        // A size has no bandwidth or compute, so its point estimate may differ, but its range
        // must span the GPU table's cards and so hold the preset's own figures.
        QFETCH(QString, preset);
        auto p = presetSnapshot(preset.toStdString());
        QVERIFY(p.has_value());
        auto sized = snapshotFromSizes({p->gpus[0].total_bytes}, p->ram_total, false);
        // Same backend and host: only the GPU's description differs.
        sized.host_bandwidth_gbs = p->host_bandwidth_gbs;
        sized.cpu_tflops = p->cpu_tflops;
        sized.gpus[0].backend = p->gpus[0].backend;
        const Rung a = chosen(planOn(*p, "llama-3.1-8b-instruct"));
        const Rung b = chosen(planOn(sized, "llama-3.1-8b-instruct"));
        QVERIFY2(b.speed.decode_low <= a.speed.decode_tok_s &&
                     a.speed.decode_tok_s <= b.speed.decode_high,
                 qPrintable(QString("%1 in %2-%3")
                                .arg(a.speed.decode_tok_s)
                                .arg(b.speed.decode_low)
                                .arg(b.speed.decode_high)));
        QVERIFY2(b.speed.prefill_low <= a.speed.prefill_tok_s &&
                     a.speed.prefill_tok_s <= b.speed.prefill_high,
                 qPrintable(QString("%1 in %2-%3")
                                .arg(a.speed.prefill_tok_s)
                                .arg(b.speed.prefill_low)
                                .arg(b.speed.prefill_high)));
        QVERIFY(b.speed.prefill_basis.find("name the GPU with --gpu") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestGpuSpecs)
#include "test_gpu_specs.moc"
