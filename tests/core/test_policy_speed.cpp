// Speed classes (docs/sources.md, Hermes speed classes) and the bandwidth / compute speed estimate.
#include "policy/speed.h"

#include <QtTest>

using namespace headroom;
using namespace headroom::policy;

namespace {
bool near(double a, double b, double tol) {
    return qAbs(a - b) <= tol;
}
PoolRead pool(const char* name, MemoryClass c, Bytes bytes, double gbs = 0) {
    PoolRead r;
    r.name = name;
    r.memory = c;
    r.bytes_per_token = bytes;
    r.bandwidth_gbs = gbs;
    return r;
}
} // namespace

class TestPolicySpeed : public QObject {
    Q_OBJECT
private slots:
    void twentyTokPerSecondIsPleasantAndSixIsTheUsableFloor() {
        QCOMPARE(classifySpeed(20.0), SpeedClass::Pleasant);
        QCOMPARE(classifySpeed(19.99), SpeedClass::Usable);
        QCOMPARE(classifySpeed(6.0), SpeedClass::Usable);
        QCOMPARE(classifySpeed(5.99), SpeedClass::TooSlow);
        QCOMPARE(classifySpeed(std::nan("")), SpeedClass::TooSlow);
    }

    void hermesDenseExampleDecodesAt61And13And5TokPerSecondByClass() {
        // Qwen3.8-27B Q4, 16 464 440 224 B read per token:
        // 1000e9 / 16 464 440 224 = 60.74; 210e9 / … = 12.75; 80e9 / … = 4.86.
        const Bytes w = 16464440224ull;
        QVERIFY(near(decodeTokS({pool("GPU0", MemoryClass::DiscreteVram, w)}), 60.74, 0.01));
        QVERIFY(near(decodeTokS({pool("GPU0", MemoryClass::UnifiedMemory, w)}), 12.75, 0.01));
        QVERIFY(near(decodeTokS({pool("RAM", MemoryClass::HostRam, w)}), 4.86, 0.01));
    }

    void hermesMoeExampleReadsOnlyItsActiveFraction() {
        // Qwen3.6-35B-A3B: 22.66e9 B × 0.15 decode fraction = 3.399e9 B per token:
        // 1000e9 / 3.399e9 = 294.2; 210e9 / … = 61.78; 80e9 / … = 23.54.
        const Bytes w = 3399000000ull;
        QVERIFY(near(decodeTokS({pool("GPU0", MemoryClass::DiscreteVram, w)}), 294.2, 0.1));
        QVERIFY(near(decodeTokS({pool("GPU0", MemoryClass::UnifiedMemory, w)}), 61.78, 0.01));
        QVERIFY(near(decodeTokS({pool("RAM", MemoryClass::HostRam, w)}), 23.54, 0.01));
    }

    void decodeTimeIsTheSumOfEachPoolsReadTime() {
        // 12e9 B at 1000 GB/s = 0.012 s + 4e9 B at 80 GB/s = 0.05 s → 1 / 0.062 = 16.129 tok/s.
        const double t = decodeTokS({pool("GPU0", MemoryClass::DiscreteVram, 12000000000ull),
                                     pool("RAM", MemoryClass::HostRam, 4000000000ull)});
        QVERIFY(near(t, 1.0 / 0.062, 1e-9));
    }

    void aProbedBandwidthReplacesTheClassDefault() {
        // 936 GB/s (an RTX 3090) over 16 464 440 224 B = 56.85 tok/s, not 60.74.
        std::string basis;
        const double t =
            decodeTokS({pool("GPU0", MemoryClass::DiscreteVram, 16464440224ull, 936)}, &basis);
        QVERIFY(near(t, 56.85, 0.01));
        QVERIFY(QString::fromStdString(basis).contains("936 GB/s"));
        QVERIFY(!QString::fromStdString(basis).contains("class default"));
    }

    void nothingReadPerTokenIsNotAnEstimate() {
        std::string basis;
        QCOMPARE(decodeTokS({}, &basis), 0.0);
        QVERIFY(QString::fromStdString(basis).contains("not estimated"));
    }

    void prefillIsComputeBoundWhenEveryWeightIsOnTheGpu() {
        // 8e9 active params → 16e9 FLOPs per token; 165e12 FLOP/s / 16e9 = 10 312.5 tok/s.
        PrefillInput in;
        in.active_params = 8e9;
        in.device_tflops = 165;
        in.n_ubatch = 512;
        QVERIFY(near(prefillTokS(in), 10312.5, 1e-6));
    }

    void hostWeightsAreCopiedOverPcieEveryUbatch() {
        // Compute per 512-token ubatch: 512 × 16e9 / 165e12 = 0.0496485 s. Copy: 10 GiB
        // (10 737 418 240 B) at PCIe 4.0 x16 = 1.969 × 16 = 31.504 GB/s = 0.340828 s.
        // 512 / 0.390477 = 1311.2 tok/s.
        PrefillInput in;
        in.active_params = 8e9;
        in.device_tflops = 165;
        in.n_ubatch = 512;
        in.host_weights_streamed = 10 * GiB;
        const double ub512 = 512 / (512 * 16e9 / 165e12 + 10737418240.0 / 31.504e9);
        std::string basis;
        QVERIFY(near(prefillTokS(in, &basis), ub512, 1e-6));
        QVERIFY(near(ub512, 1311.2, 0.1));
        QVERIFY(QString::fromStdString(basis).contains("PCIe 4.0 x16"));
        // A 2048-token ubatch pays the copy once per 2048 tokens:
        // 2048 / (0.198594 + 0.340828) = 3796.6 tok/s.
        in.n_ubatch = 2048;
        QVERIFY(near(prefillTokS(in), 3796.6, 0.1));
    }

    void belowTheOffloadBatchHostWeightsAreNotCopied() {
        // ubatch 16 < 32: llama.cpp leaves host-weight matmuls on the CPU, no copy is priced;
        // the compute term alone gives 165e12 / 16e9 = 10 312.5.
        PrefillInput in;
        in.active_params = 8e9;
        in.device_tflops = 165;
        in.n_ubatch = 16;
        in.host_weights_streamed = 10 * GiB;
        std::string basis;
        QVERIFY(near(prefillTokS(in, &basis), 10312.5, 1e-6));
        QVERIFY(QString::fromStdString(basis).contains("not modelled"));
    }

    void unknownComputeGivesNoPrefillEstimate() {
        PrefillInput in;
        in.active_params = 8e9;
        std::string basis;
        QCOMPARE(prefillTokS(in, &basis), 0.0);
        QVERIFY(QString::fromStdString(basis).contains("not estimated"));
    }

    void pcieRateIsLaneRateTimesWidth() {
        // Gen3 x16: 0.985 × 16 = 15.76; Gen4 x4: 1.969 × 4 = 7.876; unknown → Gen4 x16 31.504;
        // Gen7 (future) → Gen6's 7.5 per lane × 16 = 120.
        QVERIFY(near(pcieGbs(3, 16), 15.76, 1e-9));
        QVERIFY(near(pcieGbs(4, 4), 7.876, 1e-9));
        QVERIFY(near(pcieGbs(0, 0), 31.504, 1e-9));
        QVERIFY(near(pcieGbs(7, 16), 120.0, 1e-9));
    }

    void aMoeTokenReadsOnlyItsRoutedShareOfTheExperts() {
        // token_embd 1000 + output 500 + 2 blocks × (attn 100 + experts 6400) = 14 500 loaded.
        // Per token: 14 500 − 1000 (embedding lookup) − 12 800 experts + 12 800 × 8 / 64
        // (1600) = 2300 B.
        ModelShape m;
        m.token_embd_bytes = 1000;
        m.output_bytes = 500;
        m.moe.n_expert = 64;
        m.moe.n_expert_used = 8;
        for (int i = 0; i < 2; ++i) {
            LayerShape l;
            l.attn_bytes = 100;
            l.experts_bytes = 6400;
            m.layers.push_back(l);
        }
        QCOMPARE(m.weightBytes(), Bytes(14500));
        QCOMPARE(decodeWeightBytesPerToken(m), Bytes(2300));
        // n_params 29 000 → 29 000 × 2300 / 14 500 = 4600 active.
        m.n_params = 29000;
        QVERIFY(near(activeParamsPerToken(m), 4600, 1e-9));
        m.n_params = 0;
        QCOMPARE(activeParamsPerToken(m), 0.0);
    }

    void theCombinedEstimateCarriesItsClassAndSaysItIsAnEstimate() {
        PrefillInput in;
        in.active_params = 8e9;
        in.device_tflops = 165;
        const Speed s = estimateSpeed({pool("RAM", MemoryClass::HostRam, 16464440224ull)}, in);
        QVERIFY(near(s.decode_tok_s, 4.86, 0.01));
        QCOMPARE(s.decode_class, SpeedClass::TooSlow); // 4.86 < 6
        QVERIFY(near(s.prefill_tok_s, 10312.5, 1e-6));
        QVERIFY(QString::fromStdString(s.basis).contains("decode estimate"));
        QVERIFY(QString::fromStdString(s.basis).contains("prefill estimate"));
        QVERIFY(QString::fromStdString(s.basis).contains("class default"));
    }
};

QTEST_APPLESS_MAIN(TestPolicySpeed)
#include "test_policy_speed.moc"
