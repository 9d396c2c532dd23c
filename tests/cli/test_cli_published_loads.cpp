// Loads users published from real GPUs (tests/validation/gpu_logs/), planned from a catalog id
// with the same flags: the device's model buffer within the catalog's tolerance and the KV
// buffer to the log's 0.01 MiB. A row names its source; every figure is the log's own.
#include "common/cli_runner.h"

#include <nlohmann/json.hpp>

#include <cmath>

#include <QtTest>

using headroom::test::runCli;

class TestCliPublishedLoads : public QObject {
    Q_OBJECT
private slots:
    void aPublishedLoadPlansItsWeightsAndKvAsTheLogPrintsThem_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<double>("weights_mib"); // load_tensors: CUDA0 model buffer size
        QTest::addColumn<double>("kv_mib");      // llama_kv_cache: CUDA0 KV buffer size
        // gpt-oss-20b MXFP4 on an RTX 3070, llama.cpp build 6699, mainline log quoted in
        // ikawrakow/ik_llama.cpp issue 822: every expert bank in host memory, so the GPU holds
        // attention, routers and the output head at Q8_0 (MXFP4_MOE's rule), 1242.03 MiB; KV
        // 12 full layers x 131072 cells x (512 + 512) x 2 B = 3072 MiB plus 12 sliding-window
        // layers x 768 cells x 2048 B = 18 MiB: 3090.00 MiB.
        QTest::newRow("gpt-oss-20b --n-cpu-moe 99 on an RTX 3070 (ik_llama.cpp#822)")
            << QStringList{"--model", "gpt-oss-20b", "--gpu", "RTX 3070", "--ram",  "64GiB", "-ngl",
                           "99",      "--n-cpu-moe", "99",    "-c",       "131072", "-fa",   "on"}
            << 1242.03 << 3090.00;
    }
    void aPublishedLoadPlansItsWeightsAndKvAsTheLogPrintsThem() {
        QFETCH(QStringList, args);
        QFETCH(double, weights_mib);
        QFETCH(double, kv_mib);
        const auto r = runCli(QStringList{"plan", "--json"} + args);
        QVERIFY2(r.code == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const std::uint64_t asked = std::stoull(args.at(args.indexOf("-c") + 1).toStdString());
        const nlohmann::json* rung = nullptr;
        for (const auto& x : j.at("rungs"))
            if (x.at("context").get<std::uint64_t>() == asked) rung = &x;
        QVERIFY(rung);
        const auto& terms = rung->at("devices").at(0).at("terms");
        const double w = terms.at("weights").get<double>() / (1024.0 * 1024.0);
        const double kv = terms.at("kv").get<double>() / (1024.0 * 1024.0);
        // The catalog knows the file's size, not each tensor's: its split by llama-quantize's
        // types is held to 2 %.
        QVERIFY2(std::abs(w - weights_mib) <= 0.02 * weights_mib,
                 qPrintable(QString("weights %1 MiB against %2").arg(w).arg(weights_mib)));
        // The log prints MiB to two places.
        QVERIFY2(std::abs(kv - kv_mib) < 0.005,
                 qPrintable(QString("KV %1 MiB against %2").arg(kv).arg(kv_mib)));
    }

    void gptOssWithHostExpertsHoldsAMaskAndAnExpertBankInTheGpuComputeBuffer() {
        // Same load. On v0.5.0's graph the GPU's compute buffer holds at once the copy of the
        // full-attention mask ([131072, 512] f16, 128 MiB: build_attn_inp_kq_mask) and one
        // expert bank copied for its split (ggml_backend_cuda_device_offload_op, batch 512 >= 32):
        // 32 x 2880 x 2880 MXFP4 = 265,420,800 x 17 / 32 = 141,004,800 B. Without op offload
        // modelled the plan priced 221 MiB, below the two.
        const auto r =
            runCli({"plan", "--json", "--model", "gpt-oss-20b", "--gpu", "RTX 3070", "--ram",
                    "64GiB", "-ngl", "99", "--n-cpu-moe", "99", "-c", "131072", "-fa", "on"});
        QVERIFY2(r.code == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        for (const auto& x : j.at("rungs"))
            if (x.at("context").get<std::uint64_t>() == 131072) {
                const auto compute =
                    x.at("devices").at(0).at("terms").at("compute").get<std::uint64_t>();
                QVERIFY2(compute >= 128ull * 1024 * 1024 + 141004800ull,
                         qPrintable(QString::number(compute)));
                return;
            }
        QFAIL("no 131072 rung");
    }
};

QTEST_GUILESS_MAIN(TestCliPublishedLoads)
#include "test_cli_published_loads.moc"
