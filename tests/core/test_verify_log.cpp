// What `verify` reads from llama.cpp and what it keeps: the buffer lines of a real llama-server
// log (v0.5.0 CPU, and the Vulkan lines of two devices as issue 10 quotes them), the memory
// breakdown table, hostile lines, the comparison with a plan's rung, and the calibration's trip
// through a hardware profile into a later plan.
#include "common/test_shapes.h"
#include "hardware_json.h"
#include "planner.h"
#include "verify/server_log.h"
#include "verify/verify.h"

#include <QtTest>

using namespace headroom;

namespace {

// Lines as llama-server v0.5.0 printed them loading a Llama-3.1-8B replica (-lv 4), with the
// fit step's breakdown table first (before any buffer: it must not count).
const char* kCpuLog =
    "0.00.007.587 I cmn  common_param: common_params_print_info: build 1 (de3ff81) with GNU "
    "12.2.0\n"
    "0.00.068.065 I common_memory_breakdown_print: |   - Vulkan0 (llvmpipe) | 24105 = 20000 + "
    "(100 = 0 + 0 + 100) + 4005 |\n"
    "0.00.153.137 I load_tensors:   CPU_Mapped model buffer size =  8137.64 MiB\n"
    "0.00.154.240 I llama_context:        CPU  output buffer size =     0.49 MiB\n"
    "0.00.154.351 I llama_kv_cache:        CPU KV buffer size =   512.00 MiB\n"
    "0.00.659.610 I sched_reserve:        CPU compute buffer size =   120.01 MiB\n"
    "0.08.366.222 I srv  llama_server: listening on http://127.0.0.1:18234\n";

// Two Vulkan devices on one lavapipe (GGML_VK_VISIBLE_DEVICES=0,0), older line format, and the
// breakdown printed at exit.
const char* kVulkanLog =
    "build: 4567 (abcdef0) with cc\n"
    "load_tensors:      Vulkan0 model buffer size =  3900.00 MiB\n"
    "load_tensors:      Vulkan1 model buffer size =  3700.00 MiB\n"
    "load_tensors:   CPU_Mapped model buffer size =   532.31 MiB\n"
    "llama_context: Vulkan_Host  output buffer size =     0.49 MiB\n"
    "llama_kv_cache:    Vulkan0 KV buffer size =  2048.00 MiB\n"
    "llama_kv_cache:    Vulkan1 KV buffer size =  2048.00 MiB\n"
    "llama_context:    Vulkan0 compute buffer size =   260.00 MiB\n"
    "llama_context:    Vulkan1 compute buffer size =   419.00 MiB\n"
    "llama_context: Vulkan_Host compute buffer size =   144.00 MiB\n"
    "llama_context:    Vulkan0 compute buffer size of 259.0000 MiB, does not match expectation\n"
    "main: server is listening on http://127.0.0.1:8080\n"
    "common_memory_breakdown_print: | memory breakdown [MiB] | total   free    self   model   "
    "context   compute    unaccounted |\n"
    "common_memory_breakdown_print: |   - Vulkan0 (llvmpipe (LLVM 15.0.6, 256 bits)) | 24105 = "
    "15000 + (6208 = 3900 + 2048 + 260) + 2897 |\n"
    "common_memory_breakdown_print: |   - Vulkan1 (llvmpipe (LLVM 15.0.6, 256 bits)) | 24105 = "
    "15000 + (6167 = 3700 + 2048 + 419) + -5 |\n";

} // namespace

class TestVerifyLog : public QObject {
    Q_OBJECT
private slots:
    void cpuBufferLinesBecomeBytesPerBuffer() {
        const ServerLog log = parseServerLog(kCpuLog);
        QCOMPARE(log.build, std::string("b1 (de3ff81)"));
        QVERIFY(log.listening);
        QCOMPARE(log.buffer_lines, std::size_t(4));
        QCOMPARE(log.buffers.size(), std::size_t(2)); // CPU_Mapped, CPU
        // 8137.64 MiB = round(8137.64 x 1048576) = 8532934001 bytes (the file's 8532934912 is
        // 911 bytes away: within the 5243-byte rounding of two decimals).
        QCOMPARE(log.find("CPU_Mapped")->model, Bytes(8532934001));
        QCOMPARE(log.find("CPU")->kv, 512 * MiB);
        // 120.01 MiB = round(120.01 x 1048576) = 125839606.
        QCOMPARE(log.find("CPU")->compute, Bytes(125839606));
        // The breakdown printed before the buffers (the fit step's projection) is dropped.
        QVERIFY(log.breakdown.empty());
    }

    void vulkanBuffersGroupByDeviceAndTheExitBreakdownGivesUnaccounted() {
        const ServerLog log = parseServerLog(kVulkanLog);
        QCOMPARE(log.build, std::string("b4567 (abcdef0)"));
        // "compute buffer size of …, does not match" is not a buffer line.
        QCOMPARE(log.find("Vulkan0")->compute, 260 * MiB);
        QCOMPARE(log.find("Vulkan_Host")->compute, 144 * MiB);
        QVERIFY(isHostBuffer("Vulkan_Host") && isHostBuffer("CPU_Mapped") &&
                isHostBuffer("CUDA_Host"));
        QCOMPARE(deviceOfBuffer("CUDA0_Split"), std::string("CUDA0"));
        QCOMPARE(deviceOfBuffer("Vulkan1"), std::string("Vulkan1"));
        QCOMPARE(log.breakdown.size(), std::size_t(2));
        QCOMPARE(log.breakdown[0].unaccounted, SignedBytes(2897) * SignedBytes(MiB));
        QCOMPARE(log.breakdown[1].unaccounted, SignedBytes(-5) * SignedBytes(MiB));
    }

    void hostileLinesNeverCountAsBuffers() {
        std::string junk(100000, 'x');
        junk += "\nCPU model buffer size = -5 MiB\nCPU KV buffer size = 1e400 MiB\n";
        junk += "CPU compute buffer size = 99999999999999999999 MiB\n";
        junk +=
            std::string(10000, '\0') + "\n| - X (y) | 1 = 2 + (3 = 4 + 5 + 6) + 99999999999 |\n";
        const ServerLog log = parseServerLog(junk);
        // "-5" and "1e400" do not match the number pattern; the huge figure is clamped to 1 PiB.
        QVERIFY(log.find("CPU") != nullptr);
        QCOMPARE(log.find("CPU")->model, Bytes(0));
        QCOMPARE(log.find("CPU")->compute, kMaxPlausibleBytes);
        QVERIFY(parseServerLog("").buffers.empty());
    }

    void theComparisonMatchesDevicesInOrderAndTermsWithinTheLogRounding() {
        Plan plan;
        plan.backend = Backend::Vulkan;
        Rung rung;
        rung.context = 32768;
        rung.devices.resize(2);
        rung.devices[0].name = "GPU A";
        rung.devices[0].terms.weights = 3900 * MiB;
        rung.devices[0].terms.kv_k = rung.devices[0].terms.kv_v = 1024 * MiB;
        rung.devices[0].terms.compute = 200 * MiB;
        rung.devices[1].name = "GPU B";
        rung.devices[1].terms.weights = 3700 * MiB + 4000; // within 5243 bytes of 3700.00
        rung.devices[1].terms.kv_k = rung.devices[1].terms.kv_v = 1024 * MiB;
        rung.devices[1].terms.compute = 419 * MiB;
        rung.host.weights = 532 * MiB; // 0.31 MiB short: a mismatch
        rung.host.output = 513024;
        rung.host.compute = 144 * MiB;
        const VerifyReport r =
            compareWithPlan(plan, rung, parseServerLog(kVulkanLog), "/models/llama.gguf");
        QCOMPARE(r.devices.size(), std::size_t(3));
        QCOMPARE(r.devices[0].llama_name, std::string("Vulkan0"));
        QCOMPARE(r.devices[0].plan_name, std::string("GPU A"));
        QCOMPARE(r.devices[1].llama_name, std::string("Vulkan1"));
        QVERIFY(r.devices[2].host);
        QVERIFY(r.devices[1].terms[0].agrees); // weights
        QVERIFY(!r.devices[2].terms[0].agrees);
        QVERIFY(!r.exact_terms_agree);
        // Compute: Vulkan0 measured 260 against 200 planned -> 1.3, Vulkan1 419/419 -> 1; the
        // worst GPU sets the factor. Host 144/144 -> 1. Overhead: the larger unaccounted, 2897.
        QCOMPARE(r.calibration.device_compute_factor, 1.3);
        QCOMPARE(r.calibration.host_compute_factor, 1.0);
        QCOMPARE(r.calibration.device_overhead_bytes, 2897 * MiB);
        QCOMPARE(r.calibration.backend, std::string("vulkan"));
        QCOMPARE(r.calibration.model, std::string("llama.gguf"));
        QCOMPARE(r.calibration.llama_build, std::string("b4567 (abcdef0)"));
    }

    void aCalibrationTravelsThroughTheProfileAndRaisesOnlyItsBackendsPlans() {
        HardwareSnapshot hw = snapshotFromSizes({24 * GiB}, 64 * GiB, false);
        hw.gpus[0].backend = "vulkan";
        Calibration c{"b4567 (abcdef0)", "vulkan", "llama.gguf", 32768, 1.5, 0.5, 900 * MiB};
        hw.calibration = c;
        auto back = hardwareFromJson(hardwareToJson(hw));
        QVERIFY(back.has_value());
        QVERIFY(back->calibration.has_value());
        QVERIFY(*back->calibration == c);

        PlanOptions o;
        o.context = 8192;
        const ModelShape m = test::llama8bLike();
        HardwareSnapshot plain = hw;
        plain.calibration.reset();
        auto before = makePlan(m, plain, o);
        auto after = makePlan(m, hw, o);
        QVERIFY(before && after);
        const Rung& b = before->rungs[static_cast<std::size_t>(before->decision.rung_index)];
        const Rung& a = after->rungs[static_cast<std::size_t>(after->decision.rung_index)];
        // GPU compute x1.5 (rounded up); host factor 0.5 is never applied below x1; overhead
        // 900 MiB replaces the 256 MiB Vulkan estimate.
        QCOMPARE(
            a.devices[0].terms.compute,
            static_cast<Bytes>(std::ceil(static_cast<double>(b.devices[0].terms.compute) * 1.5)));
        QCOMPARE(a.host.compute, b.host.compute);
        QCOMPARE(a.devices[0].terms.overhead, 900 * MiB);
        bool noted = false;
        for (const auto& n : after->notes)
            noted = noted || n.find("verified on this machine, llama.cpp build b4567") == 0;
        QVERIFY(noted);

        // The same calibration on a CUDA plan changes nothing but the note.
        o.backend = Backend::Cuda;
        auto cudaPlain = makePlan(m, plain, o);
        auto cudaCal = makePlan(m, hw, o);
        QVERIFY(cudaPlain && cudaCal);
        QCOMPARE(cudaCal->rungs[0].devices[0].terms.compute,
                 cudaPlain->rungs[0].devices[0].terms.compute);
    }
};

QTEST_APPLESS_MAIN(TestVerifyLog)
#include "test_verify_log.moc"
