// A cluster of llama.cpp RPC hosts (issue 15): the profile's rpc_hosts, llama.cpp's device order,
// layers split over every host as -ts does, refusals naming the host, the rpc-server launches and
// the network's time in the speed.
#include "common/plan_helpers.h"
#include "export/rpc_server.h"
#include "hardware_json.h"
#include "planner.h"
#include "planner/fit_simulation.h"
#include "planner/planner_internal.h"

#include <QtTest>

using namespace headroom;
using namespace headroom::test;

namespace {

GpuDevice device(const std::string& name, Bytes total) {
    GpuDevice g;
    g.name = name;
    g.backend = "cuda";
    g.total_bytes = total;
    g.memory_provenance = "user";
    return g;
}

RpcHost host(const std::string& endpoint, std::vector<GpuDevice> devices) {
    RpcHost h;
    h.endpoint = endpoint;
    h.devices = std::move(devices);
    h.source = "user";
    return h;
}

// The main host: one 24 GiB GPU and 64 GiB RAM; two RPC hosts with one 24 GiB GPU each.
HardwareSnapshot cluster() {
    HardwareSnapshot hw = snapshotFromSizes({24 * GiB}, 64 * GiB, false);
    hw.rpc_hosts.push_back(host("10.0.0.7:50052", {device("CUDA0", 24 * GiB)}));
    hw.rpc_hosts.push_back(host("10.0.0.8:50052", {device("CUDA0", 24 * GiB)}));
    return hw;
}

PlanOptions pinned(std::vector<double> ts, std::uint32_t ctx = 4096) {
    PlanOptions o;
    o.context = ctx;
    o.pinned.gpu_layers = GpuLayers::of(99);
    o.pinned.tensor_split = std::move(ts);
    return o;
}

const Rung& chosen(const Plan& p) {
    return p.rungs[static_cast<size_t>(p.decision.rung_index)];
}

// A budget of local devices with these backends ("rpc:" + backend: an RPC device).
MemoryBudget budgetOf(const std::vector<std::string>& backends) {
    MemoryBudget b;
    for (const auto& name : backends) {
        DeviceBudget d;
        d.name = name;
        d.total = 24 * GiB;
        d.usable = toSigned(22 * GiB);
        if (name.rfind("rpc:", 0) == 0) {
            d.rpc_endpoint = "10.0.0.7:50052";
            d.backend = name.substr(4);
        } else {
            d.backend = name;
        }
        b.devices.push_back(d);
    }
    b.ram_usable = toSigned(64 * GiB);
    return b;
}

// Two 24 GiB GPUs, the second driven by `backend2`; llama8bLike fully offloaded 1:1 at 4096
// tokens with flash attention on.
Plan twoGpuFullOffload(const std::string& backend2) {
    HardwareSnapshot hw = snapshotFromSizes({24 * GiB, 24 * GiB}, 64 * GiB, false);
    hw.gpus[1].backend = backend2;
    PlanOptions o = pinned({1, 1});
    o.flash_attn = FlashAttn::On;
    return planOrFail(llama8bLike(), hw, o);
}

} // namespace

class RpcClusterTest : public QObject {
    Q_OBJECT
private slots:
    void rpcHostsSurviveAProfileRoundTrip() {
        HardwareSnapshot hw = cluster();
        hw.rpc_hosts[0].label = "den";
        hw.rpc_hosts[0].ram_total = 32 * GiB;
        hw.rpc_hosts[0].link_gbs = 1.25; // 10 GbE
        hw.rpc_hosts[0].link_provenance = "user";
        hw.rpc_hosts[0].rtt_ms = 0.05;
        hw.rpc_hosts[1].devices[0].backend = "rpc";
        auto back = hardwareFromJson(hardwareToJson(hw));
        QVERIFY2(back.has_value(), back ? "" : back.error().message.c_str());
        QCOMPARE(back->rpc_hosts.size(), size_t{2});
        const RpcHost& a = back->rpc_hosts[0];
        QCOMPARE(a.endpoint, std::string("10.0.0.7:50052"));
        QCOMPARE(a.label, std::string("den"));
        QCOMPARE(a.ram_total.value_or(0), 32 * GiB);
        QCOMPARE(a.link_gbs, 1.25);
        QCOMPARE(a.link_provenance, std::string("user"));
        QCOMPARE(a.rtt_ms, 0.05);
        QCOMPARE(a.devices[0].total_bytes, 24 * GiB);
        QCOMPARE(back->rpc_hosts[1].devices[0].backend, std::string("rpc"));
        QCOMPARE(back->rpc_hosts[1].link_gbs, kDefaultRpcLinkGbs);
    }

    void hostileRpcEntriesAreRejectedNamingTheField_data() {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<QString>("field");
        const QString dev = R"("devices":[{"name":"CUDA0","total_bytes":1024}])";
        QTest::newRow("no port") << R"({"endpoint":"10.0.0.7",)" + dev + "}"
                                 << "endpoint";
        QTest::newRow("port 0") << R"({"endpoint":"10.0.0.7:0",)" + dev + "}"
                                << "endpoint";
        QTest::newRow("port too big") << R"({"endpoint":"h:65536",)" + dev + "}"
                                      << "endpoint";
        QTest::newRow("no endpoint") << "{" + dev + "}"
                                     << "endpoint";
        QTest::newRow("no devices") << R"({"endpoint":"h:1","devices":[]})"
                                    << "devices";
        QTest::newRow("device without memory")
            << R"({"endpoint":"h:1","devices":[{"name":"CUDA0"}]})"
            << "total_bytes";
        QTest::newRow("unknown backend")
            << R"({"endpoint":"h:1","devices":[{"total_bytes":1,"backend":"tpu"}]})"
            << "backend";
        QTest::newRow("zero bandwidth") << R"({"endpoint":"h:1","link_gbs":0,)" + dev + "}"
                                        << "link_gbs";
        QTest::newRow("negative rtt") << R"({"endpoint":"h:1","rtt_ms":-1,)" + dev + "}"
                                      << "rtt_ms";
        QTest::newRow("string rtt") << R"({"endpoint":"h:1","rtt_ms":"fast",)" + dev + "}"
                                    << "rtt_ms";
        QTest::newRow("not an object") << "42"
                                       << "rpc_hosts[0]";
    }
    void hostileRpcEntriesAreRejectedNamingTheField() {
        QFETCH(QString, entry);
        QFETCH(QString, field);
        const std::string text =
            R"({"ram":{"total_bytes":1073741824},"rpc_hosts":[)" + entry.toStdString() + "]}";
        auto hw = hardwareFromJsonText(text, "");
        QVERIFY(!hw.has_value());
        QVERIFY2(hw.error().message.find(field.toStdString()) != std::string::npos,
                 hw.error().message.c_str());
    }

    void theSameEndpointTwiceIsRefused() {
        HardwareSnapshot hw = cluster();
        hw.rpc_hosts[1].endpoint = hw.rpc_hosts[0].endpoint;
        auto ok = validateSnapshot(hw);
        QVERIFY(!ok.has_value());
        QVERIFY(ok.error().message.find("listed twice") != std::string::npos);
    }

    void rpcDevicesComeFirstNumberedAcrossHosts() {
        HardwareSnapshot hw = cluster();
        hw.rpc_hosts[0].devices.push_back(device("CUDA1", 12 * GiB));
        // llama.cpp: RPC0, RPC1 on the first server, RPC2 on the second, then the local GPU.
        const auto devs = clusterDevices(hw);
        QCOMPARE(devs.size(), size_t{4});
        QCOMPARE(devs[0].name, std::string("RPC0"));
        QCOMPARE(devs[1].name, std::string("RPC1"));
        QCOMPARE(devs[2].name, std::string("RPC2"));
        QCOMPARE(devs[2].rpc_host, 1);
        QCOMPARE(devs[3].rpc_host, -1);
        const MemoryBudget b = capacityBudget(hw, 0);
        QCOMPARE(b.devices[1].name, std::string("rpc 10.0.0.7:50052 RPC1"));
        // A labelled host carries its label in every device's name.
        hw.rpc_hosts[1].label = "den";
        QCOMPARE(capacityBudget(hw, 0).devices[2].name,
                 std::string("rpc 10.0.0.8:50052 (den) RPC2"));
        QCOMPARE(b.devices[1].rpc_endpoint, std::string("10.0.0.7:50052"));
        // 12 GiB less the discrete margin max(2 GiB, 9 % = 1.08 GiB) = 10 GiB.
        QCOMPARE(b.devices[1].usable, toSigned(10 * GiB));
        QVERIFY(b.devices[3].rpc_endpoint.empty());
    }

    void layersSplitOverEveryHostAsTensorSplitDoes() {
        // 32 blocks + the output = 33 layers; -ts 1,1,1 gives cumulative points 1/3, 2/3, 1 and
        // layer il goes to the first point above il/33 (llama_model::load_tensors): layers 0-10
        // on RPC0, 11-21 on RPC1, 22-32 (the output among them) on the local GPU.
        const Plan p = planOrFail(llama8bLike(), cluster(), pinned({1, 1, 1}));
        const Rung& r = chosen(p);
        QCOMPARE(r.placement.device_layers, (std::vector<std::uint32_t>{11, 11, 11}));
        QCOMPARE(r.devices[0].rpc_endpoint, std::string("10.0.0.7:50052"));
        // Weights: 11 blocks x 200 MiB on each RPC host; 10 blocks + the 500 MiB output locally.
        QCOMPARE(r.devices[0].terms.weights, 2200 * MiB);
        QCOMPARE(r.devices[1].terms.weights, 2200 * MiB);
        QCOMPARE(r.devices[2].terms.weights, 2500 * MiB);
        // KV follows its layers: 8 KV heads x 128 x 2 bytes (f16) x 4096 cells = 8 MiB each of K
        // and V per block; 11 blocks on RPC0 = 88 MiB of K.
        QCOMPARE(r.devices[0].terms.kv_k, 88 * MiB);
        QCOMPARE(r.devices[2].terms.kv_k, 80 * MiB);
        // The launch names both servers, in order, and pins the split.
        const auto argv = llamaServerArgs(*p.launch);
        const auto rpc = std::find(argv.begin(), argv.end(), "--rpc");
        QVERIFY(rpc != argv.end());
        QCOMPARE(*(rpc + 1), std::string("10.0.0.7:50052,10.0.0.8:50052"));
        const auto ts = std::find(argv.begin(), argv.end(), "-ts");
        QVERIFY(ts != argv.end());
        QCOMPARE(*(ts + 1), std::string("1,1,1"));
    }

    void aCpuOnlyMainHostStillOffloadsToRpcHosts() {
        HardwareSnapshot hw = cluster();
        hw.gpus.clear();
        const Plan p = planOrFail(llama8bLike(), hw, pinned({1, 1}));
        // -ngl 99 over two RPC devices: the CPU backend of the main host does not turn it off.
        // -ts 1,1: layer il goes to RPC0 while il/33 < 1/2, layers 0-16 (17), then RPC1 (16).
        QCOMPARE(p.launch->gpu_layers->text(), std::string("99"));
        QCOMPARE(p.launch->rpc_servers.size(), size_t{2});
        QCOMPARE(chosen(p).placement.device_layers, (std::vector<std::uint32_t>{17, 16}));
    }

    void fitIsSimulatedOverTheRpcDevicesOfACpuOnlyMainHost() {
        HardwareSnapshot hw = cluster();
        hw.gpus.clear(); // only the two RPC devices remain
        const Plan p = planOrFail(llama8bLike(), hw, pinned({1, 1}));
        auto fit = simulateFit(p.model, p.hardware, p.options, {}, &p);
        QVERIFY2(fit.has_value(), fit ? "" : fit.error().message.c_str());
        // One -fitt target per RPC device: 24 GiB less llama.cpp's 1024 MiB margin.
        QCOMPARE(fit->device_targets,
                 (std::vector<SignedBytes>{toSigned(23 * GiB), toSigned(23 * GiB)}));
        // -ngl and -ts given: fit gives up and changes nothing.
        QVERIFY(fit->gave_up);
    }

    void anOverfilledRpcHostIsNamedInTheRefusal() {
        HardwareSnapshot hw = cluster();
        hw.rpc_hosts[0].devices[0].total_bytes = 4 * GiB; // usable 4 - 2 = 2 GiB
        // -ts 10,1,1: 33 x 10/12 -> layers 0-27 (28 x 200 MiB = 5.5 GiB) on RPC0.
        const Plan p = planOrFail(llama8bLike(), hw, pinned({10, 1, 1}));
        const Rung& r = chosen(p);
        QVERIFY(r.refusal.has_value());
        QCOMPARE(r.refusal->code, RefusalCode::DeviceOvercommitted);
        QCOMPARE(r.refusal->device, 0);
        QVERIFY2(r.refusal->message.find("rpc 10.0.0.7:50052 RPC0") != std::string::npos,
                 r.refusal->message.c_str());
        // The remedy names the device with the most room: RPC1 holds layers 28-30 (3 blocks,
        // 648 MiB with their KV), the local GPU layers 31-32 with the 500 MiB output and the
        // logits' compute buffer, so RPC1 has more left of the same 21.84 GiB.
        QVERIFY2(r.refusal->message.find("to rpc 10.0.0.8:50052 RPC1") != std::string::npos,
                 r.refusal->message.c_str());
    }

    void eachRpcHostGetsItsServerLaunch() {
        HardwareSnapshot hw = cluster();
        hw.rpc_hosts[1].devices[0].name = "device 0"; // as probed: no ggml name, no -d
        LaunchConfig c;
        c.rpc_servers = {"10.0.0.7:50052", "10.0.0.8:50052"};
        const auto l = rpcServerLaunches(hw, c);
        QCOMPARE(l.size(), size_t{2});
        QCOMPARE(l[0].argv, (std::vector<std::string>{"ggml-rpc-server", "-H", "10.0.0.7", "-p",
                                                      "50052", "-d", "CUDA0", "-c"}));
        QCOMPARE(l[1].argv, (std::vector<std::string>{"ggml-rpc-server", "-H", "10.0.0.8", "-p",
                                                      "50052", "-c"}));
    }

    void theNetworkTimeIsInTheSpeed() {
        const Plan p = planOrFail(llama8bLike(), cluster(), pinned({1, 1, 1}));
        const Speed& s = chosen(p).speed;
        // Stages: CPU (input) -> RPC0 (host 1) -> RPC1 (host 2) -> local GPU -> CPU (logits).
        // Transfers: CPU->host 1 (1), host 1->host 2 through the main host (2), host 2->GPU (1);
        // the logits leave a local GPU (0). 4 transfers, each 0.2 ms + 4096 x 4 bytes at
        // 0.125 GB/s = 0.2 + 0.131072 ms: 4 x 0.331072 = 1.324288 ms per decoded token.
        QCOMPARE(s.network_crossings, 4u);
        QVERIFY(qAbs(s.network_decode_ms - 1.324288) < 1e-9);
        // Its share is that time over the whole time per token.
        QVERIFY(qAbs(s.network_decode_share - s.network_decode_ms / 1000 * s.decode_tok_s) < 1e-9);
        // Prefill (ub 512): round trips once per micro-batch, hidden states per token:
        // 4 x 0.2 / 512 + 4 x 0.131072 = 0.0015625 + 0.524288 = 0.5258505 ms per prompt token.
        QVERIFY(qAbs(s.network_prefill_ms - 0.5258505) < 1e-9);
        QVERIFY(s.network_basis.find("10.0.0.8:50052") != std::string::npos);
    }

    // llama_context::llama_context (llama.cpp v0.5.0 src/llama-context.cpp) turns pipeline
    // parallelism on only with several devices, every layer and the output offloaded, split mode
    // layer, no tensor overrides, and async compute with events on every device.
    void pipelineParallelismFollowsLlamaCppsConditions_data() {
        QTest::addColumn<QStringList>("backends");
        QTest::addColumn<int>("ngl");
        QTest::addColumn<int>("splitMode");
        QTest::addColumn<QString>("override_");
        QTest::addColumn<int>("nCpuMoe");
        QTest::addColumn<bool>("expected");
        const int layer = static_cast<int>(SplitMode::Layer);
        // llama8bLike: 32 blocks, n_layer_all = 32; -ngl 33 offloads them and the output.
        QTest::newRow("two CUDA GPUs, every layer")
            << QStringList{"cuda", "cuda"} << 33 << layer << QString() << 0 << true;
        QTest::newRow("-ngl 99 counts as every layer")
            << QStringList{"cuda", "cuda"} << 99 << layer << QString() << 0 << true;
        QTest::newRow("two Vulkan devices")
            << QStringList{"vulkan", "vulkan"} << 33 << layer << QString() << 0 << true;
        QTest::newRow("two RPC devices of a CPU-only host")
            << QStringList{"rpc:rpc", "rpc:rpc"} << 33 << layer << QString() << 0 << true;
        // An RPC device is ggml-rpc's whatever the server runs (async and events true).
        QTest::newRow("a CUDA GPU and an RPC device serving OpenCL")
            << QStringList{"cuda", "rpc:opencl"} << 33 << layer << QString() << 0 << true;
        QTest::newRow("-ngl 32 keeps block 0 on the CPU")
            << QStringList{"cuda", "cuda"} << 32 << layer << QString() << 0 << false;
        QTest::newRow("-sm row") << QStringList{"cuda", "cuda"} << 33
                                 << static_cast<int>(SplitMode::Row) << QString() << 0 << false;
        QTest::newRow("-sm none") << QStringList{"cuda", "cuda"} << 33
                                  << static_cast<int>(SplitMode::None) << QString() << 0 << false;
        QTest::newRow("-ot, even one that moves nothing")
            << QStringList{"cuda", "cuda"} << 33 << layer << QString("nothing_matches=CPU") << 0
            << false;
        QTest::newRow("--n-cpu-moe")
            << QStringList{"cuda", "cuda"} << 33 << layer << QString() << 2 << false;
        QTest::newRow("one device")
            << QStringList{"cuda"} << 33 << layer << QString() << 0 << false;
        // ggml-opencl.cpp ggml_backend_opencl_device_get_props: async and events false.
        QTest::newRow("an OpenCL device beside a CUDA GPU")
            << QStringList{"cuda", "opencl"} << 33 << layer << QString() << 0 << false;
    }
    void pipelineParallelismFollowsLlamaCppsConditions() {
        QFETCH(QStringList, backends);
        QFETCH(int, ngl);
        QFETCH(int, splitMode);
        QFETCH(QString, override_);
        QFETCH(int, nCpuMoe);
        QFETCH(bool, expected);
        std::vector<std::string> names;
        for (const auto& b : backends)
            names.push_back(b.toStdString());
        ResolvedOptions opt;
        if (!override_.isEmpty()) {
            const auto text = override_.toStdString();
            const auto eq = text.find('=');
            opt.pinned.tensor_overrides.push_back({text.substr(0, eq), text.substr(eq + 1)});
        }
        detail::PlacementChoice choice;
        choice.ngl = static_cast<std::uint32_t>(ngl);
        choice.split_mode = static_cast<SplitMode>(splitMode);
        choice.n_cpu_moe = static_cast<std::uint32_t>(nCpuMoe);
        QCOMPARE(detail::pipelineParallel(llama8bLike(), opt, budgetOf(names), choice), expected);
    }

    void twoCudaGpusWithEveryLayerPayForTheSchedulersInputCopies() {
        // The same placement (-ngl 99 -ts 1,1: blocks 0-16 on GPU0, 17-31 and the output on GPU1)
        // with and without pipeline parallelism: the second GPU driven by OpenCL (no async, no
        // events) turns it off and changes nothing else.
        const Plan with = twoGpuFullOffload("cuda");
        const Plan without = twoGpuFullOffload("opencl");
        const Rung& pp = chosen(with);
        const Rung& off = chosen(without);
        QCOMPARE(pp.placement.device_layers, off.placement.device_layers);
        // Both devices run the scheduler's replay (ggml-cuda's buffer type: 128-byte alignment).
        // ub 512, n_embd 32 x 128 = 4096. Hidden state [4096, 512] f32 = 8 MiB; FA mask [4096
        // cells, 512] f16 = 4 MiB; positions 512 x 4 B = 2 KiB; the K and V row indices 512 x
        // 8 B = 4 KiB each; token ids 2 KiB; llama-server's one output id (-np 1) 4 B, padded to
        // the buffer's alignment. GGML_SCHED_MAX_COPIES = 4, every copy kept.
        // GPU0 (blocks only): its FFN peak holds, without the copies, the mask and the small
        // inputs (4 MiB + 10 KiB) but no longer the hidden state; with them, 4 copies of each:
        // 4 x (8 MiB + 4 MiB + 10 KiB) - (4 MiB + 10 KiB) = 44 MiB + 30 KiB.
        QCOMPARE(pp.devices[0].terms.compute - off.devices[0].terms.compute, 44 * MiB + 30 * KiB);
        // GPU1 (blocks and the output) also reads the output id: 3 more copies of 128 B.
        QCOMPARE(pp.devices[1].terms.compute - off.devices[1].terms.compute,
                 44 * MiB + 30 * KiB + 3 * 128);
        // The CPU keeps 4 copies of each graph input a node reads instead of 1: 3 x (4 MiB mask
        // + 2 KiB tokens + 2 KiB positions + 4 KiB each K and V row indices + the output id,
        // 32 B on the CPU's alignment) = 12 MiB + 36 KiB + 96 B.
        QCOMPARE(pp.host.compute - off.host.compute, 12 * MiB + 36 * KiB + 96);
    }

    void aFullyOffloadedHostHoldsTheGraphInputsOnce() {
        // One GPU, no pipeline parallelism: the CPU holds the token rows it gathers (get_rows,
        // [4096, 512] f32 = 8 MiB), the unread inp_embd input leaf (8 MiB), the FA mask (4 MiB),
        // token ids and positions (2 KiB each), the K and V row indices (4 KiB each) and
        // llama-server's one output id (4 B, padded to 32): 20 MiB + 12 KiB + 32 B.
        HardwareSnapshot hw = snapshotFromSizes({24 * GiB}, 64 * GiB, false);
        PlanOptions o = pinned({});
        o.flash_attn = FlashAttn::On;
        const Plan p = planOrFail(llama8bLike(), hw, o);
        QCOMPARE(chosen(p).host.compute, 20 * MiB + 12 * KiB + 32);
    }

    void noRpcHostMeansNoNetworkTime() {
        HardwareSnapshot hw = snapshotFromSizes({24 * GiB}, 64 * GiB, false);
        const Plan p = planOrFail(llama8bLike(), hw);
        QCOMPARE(chosen(p).speed.network_crossings, 0u);
        QCOMPARE(chosen(p).speed.network_decode_ms, 0.0);
        QVERIFY(p.launch->rpc_servers.empty());
    }
};

QTEST_APPLESS_MAIN(RpcClusterTest)
#include "test_rpc_cluster.moc"
