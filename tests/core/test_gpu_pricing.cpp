// What a GPU backend other than Vulkan does to the compute buffers (core/planner/
// backend_buffers.cpp, read from core/backend/): the scheduler's replay with the backend's buffer
// types and op offload, and ggml-cuda's own allocation sizes.
#include "common/plan_helpers.h"
#include "compute_graph.h"
#include "planner/planner_internal.h"

#include <QtTest>

#include <thread>
#include <utility>

using namespace headroom;
using namespace headroom::test;

namespace {

MemoryBudget oneGpu(const std::string& backend) {
    MemoryBudget b;
    DeviceBudget d;
    d.name = "GPU0";
    d.backend = backend;
    d.total = 80 * GiB;
    d.usable = toSigned(78 * GiB);
    b.devices.push_back(d);
    b.ram_usable = toSigned(256 * GiB);
    return b;
}

// The MoE test shape (8 blocks of 1 GiB of routed experts) at 4K, ub 512, every block and the
// output on the device and every block's experts in host memory (--n-cpu-moe 8), priced for
// `backend`.
detail::Assignment moeExpertsOnHost(Backend backend, bool op_offload = true) {
    const ModelShape m = moeShape();
    ResolvedOptions opt;
    opt.n_batch = 512;
    opt.n_ubatch = 512;
    opt.op_offload = op_offload;
    const ContextPrice price = priceContext(m, opt, 4096);
    detail::PlacementChoice choice;
    choice.ngl = m.nLayer() + 1;
    choice.n_cpu_moe = m.nLayer();
    opt.backend = backend;
    return detail::assign(m, price, opt, oneGpu(std::string(traitsOf(backend).name)), choice);
}

} // namespace

class TestGpuPricing : public QObject {
    Q_OBJECT
private slots:
    void cudaFlashAttentionHoldsF16CopiesOfAQuantizedCacheInItsOwnAllocation() {
        // One FLASH_ATTN_EXT over a q8_0 cache: Q [128, 512, 32] f32, 4096 cells of 8 KV heads
        // of 128, the mask [4096, 512] f16; the result [128, 32, 512] f32 (8 MiB, a multiple of
        // 128 bytes). ggml_cuda_flash_attn_ext_get_f16_extra_data puts F16 K and V after it:
        // 2 x 4096 x 1024 x 2 B = 16 MiB more, only in ggml-cuda's buffer type.
        graph::Graph g;
        const graph::Id q = g.input(graph::Elem::F32, 128, 512, 32);
        const graph::Id k = g.cacheRead(4096 * 1024);
        const graph::Id v = g.cacheRead(4096 * 1024);
        const graph::Id mask = g.input(graph::Elem::F16, 4096, 512);
        const graph::Id fa =
            g.op(graph::Op::FlashAttn, graph::Elem::F32, {128, 32, 512, 1}, {q, k, v, mask});
        g.setFlashAttnF16Copies(fa, 4096 * 1024, 4096 * 1024);
        g.expand(fa);
        const Bytes cpu = graph::replayPeak(g, 128);
        const Bytes cuda = graph::replayPeak(g, 128, true);
        QCOMPARE(cuda - cpu, 16 * MiB);
        // A V that is a view of K (MLA) takes none of its own: K's 8 MiB only.
        g.setFlashAttnF16Copies(fa, 4096 * 1024, 0);
        QCOMPARE(graph::replayPeak(g, 128, true) - cpu, 8 * MiB);
    }

    void aCudaDeviceCopiesAHostExpertBankIntoItsComputeBuffer() {
        // ggml_backend_cuda_device_offload_op: a MUL_MAT_ID of 512 tokens (>= 32) whose experts
        // are in host memory runs on the GPU, and the scheduler copies the bank into the GPU's
        // compute buffer for that split (one bank at a time: each host weight starts a split).
        // A bank is a third of the block's 1 GiB of experts, less its share of the block's small
        // tensors (the router: 64 x 512 f32 = 128 KiB); without op offload the device holds only
        // its own activations and logits (the vocabulary's 32000 x 512 f32 = 62.5 MiB at most).
        const auto cuda = moeExpertsOnHost(Backend::Cuda);
        const auto off = moeExpertsOnHost(Backend::Cuda, false);
        const Bytes bank = GiB / 3 - 128 * KiB;
        QVERIFY2(cuda.devices[0].compute >= bank && off.devices[0].compute < bank,
                 qPrintable(QString("%1, and %2 without op offload")
                                .arg(cuda.devices[0].compute)
                                .arg(off.devices[0].compute)));
        // Metal offloads matrix products too (ggml_backend_metal_device_offload_op).
        const auto metal = moeExpertsOnHost(Backend::Metal);
        QVERIFY(metal.devices[0].compute >= bank);
        // ROCm is CUDA's code: the same buffers.
        QCOMPARE(moeExpertsOnHost(Backend::Hip).devices[0].compute, cuda.devices[0].compute);
        // Under the CPU backend's own packing nothing is copied.
        QVERIFY(moeExpertsOnHost(Backend::Cpu).devices[0].compute < bank);
    }

    void noOpOffloadKeepsHostExpertsOffTheDevice() {
        // --no-op-offload: the experts' products stay with their weights on the CPU, so the
        // host's compute buffer grows by what it now runs, and the device's holds no bank.
        const auto off = moeExpertsOnHost(Backend::Cuda, false);
        const auto on = moeExpertsOnHost(Backend::Cuda);
        QVERIFY(off.devices[0].compute < GiB / 3);
        QVERIFY(off.host.compute > on.host.compute);
    }

    void rowSplitKeepsEachLayersKvOnTheLayersOwnDevice() {
        // -sm row over three equal GPUs (a 3 x P40 row split is the published case): layers are
        // placed as -sm layer places them (get_layer_buft_list), only their matrices' rows are
        // spread. 64 blocks and the output, split points 1/3, 2/3, 1: block il goes to the first
        // device whose point exceeds il / 65, so blocks 0-21, 22-43 and 44-63 (22, 22, 20). Each
        // block's cache at 32768 cells of 8 KV heads of 128, f16 K and V: 32768 x 1024 x 2 x 2 B
        // = 128 MiB; 2816, 2816 and 2560 MiB.
        const ModelShape m = denseShape(64, 40, 8, 128, 152064, 300 * MiB, 131072);
        ResolvedOptions opt;
        opt.backend = Backend::Cuda;
        const ContextPrice price = priceContext(m, opt, 32768);
        MemoryBudget b;
        for (int i = 0; i < 3; ++i) {
            DeviceBudget d;
            d.name = "GPU" + std::to_string(i);
            d.backend = "cuda";
            d.total = 24 * GiB;
            d.usable = toSigned(23 * GiB);
            b.devices.push_back(d);
        }
        b.ram_usable = toSigned(128 * GiB);
        detail::PlacementChoice choice;
        choice.ngl = 65;
        choice.split_mode = SplitMode::Row;
        choice.split = {1, 1, 1};
        const auto a = detail::assign(m, price, opt, b, choice);
        QCOMPARE(a.devices[0].kv(), 2816 * MiB);
        QCOMPARE(a.devices[1].kv(), 2816 * MiB);
        QCOMPARE(a.devices[2].kv(), 2560 * MiB);
        // Every device runs its own layers, so each has a compute buffer.
        for (const auto& d : a.devices)
            QVERIFY(d.compute > 0);
        // The rows are spread: each device holds a third of the blocks' 64 x 300 MiB, give or take
        // a byte of rounding, whatever layers it runs.
        const Bytes blocks = 64 * 300 * MiB;
        QVERIFY(a.devices[0].weights >= blocks / 3 - 64);
        QVERIFY(a.devices[2].weights >= blocks / 3 - 64);
    }

    void aTensorOverrideToANamedGpuMovesThoseTensorsThere() {
        // Two 24 GiB CUDA GPUs, llama8bLike (32 blocks of 50 MiB attention + 150 MiB FFN) at
        // -ngl 33 -ts 1,1: blocks 0-15 on CUDA0 (il / 33 < 0.5), 16-31 and the output on CUDA1.
        // -ot "blk\.0\.ffn_.*=CUDA1" puts block 0's three FFN matrices (the shape's 150 MiB of FFN,
        // which lists no separate norm) in CUDA1's buffer, as
        // llama_model_loader's buffer-type override does; common/arg.cpp names the targets by
        // the devices' buffer types.
        const HardwareSnapshot hw = snapshotFromSizes({24 * GiB, 24 * GiB}, 64 * GiB, false);
        PlanOptions o;
        o.context = 4096;
        o.pinned.gpu_layers = GpuLayers::of(33);
        o.pinned.tensor_split = {1, 1};
        const Plan base = planOrFail(llama8bLike(), hw, o);
        o.pinned.tensor_overrides = {{"blk\\.0\\.ffn_.*", "CUDA1"}};
        const Plan moved = planOrFail(llama8bLike(), hw, o);
        auto weights = [](const Plan& p, size_t d) {
            return p.rungs[size_t(p.decision.rung_index)].devices[d].terms.weights;
        };
        const Bytes ffn = 150 * MiB;
        QCOMPARE(weights(base, 0) - weights(moved, 0), ffn);
        QCOMPARE(weights(moved, 1) - weights(base, 1), ffn);
        // A buffer type the machine does not have is what llama.cpp refuses too.
        o.pinned.tensor_overrides = {{"blk\\.0\\.ffn_.*", "CUDA2"}};
        const auto refused = makePlan(llama8bLike(), hw, o);
        QVERIFY(!refused);
        QVERIFY(refused.error().message.find("'CUDA2' is not a buffer type of this machine") !=
                std::string::npos);
        QVERIFY(refused.error().details.find("CPU, CUDA0, CUDA1") != std::string::npos);
    }

    void ropeFactorsAreLoadedOncePerBufferTypeThatHoldsABlock() {
        // Llama 3.1's rope_freqs ([64] f32, 256 B): block 0 creates it and every later block
        // duplicates it (TENSOR_DUPLICATED), one copy per buffer type holding a block. -ngl 16 of
        // 33: blocks 0-16 on the CPU, 17-31 and the output on the GPU, so both hold one; with
        // every block on the GPU only the GPU does.
        ModelShape m = llama8bLike();
        m.rope_factors_bytes = 256;
        m.rope_factors_all_bytes = 256;
        m.other_bytes = 256;
        ResolvedOptions opt;
        const ContextPrice price = priceContext(m, opt, 4096);
        detail::PlacementChoice choice;
        choice.ngl = 16;
        const auto split = detail::assign(m, price, opt, oneGpu("cuda"), choice);
        choice.ngl = 33;
        const auto full = detail::assign(m, price, opt, oneGpu("cuda"), choice);
        ModelShape none = m;
        none.rope_factors_bytes = 0;
        none.rope_factors_all_bytes = 0;
        none.other_bytes = 0;
        const ContextPrice bare = priceContext(none, opt, 4096);
        choice.ngl = 16;
        const auto split0 = detail::assign(none, bare, opt, oneGpu("cuda"), choice);
        choice.ngl = 33;
        const auto full0 = detail::assign(none, bare, opt, oneGpu("cuda"), choice);
        QCOMPARE(split.devices[0].weights - split0.devices[0].weights, Bytes{256});
        QCOMPARE(split.host.weights - split0.host.weights, Bytes{256});
        QCOMPARE(full.devices[0].weights - full0.devices[0].weights, Bytes{256});
        QCOMPARE(full.host.weights, full0.host.weights);
    }

    void aReplayRemembersNothingOfAModelThatDiffersOnlyInItsRopeFactors() {
        // Llama 3.0 and 3.1 8B have the same dimensions; only 3.1 has rope_freqs ([64] f32). The
        // replay's memo (per thread) must not hand one the other's buffers: -ngl 16 on CUDA, where
        // the host blocks' ROPE runs on the GPU with a copy of the host's rope factors.
        ModelShape v30 = llama8bLike();
        ModelShape v31 = v30;
        v31.rope_factors_bytes = 256;
        v31.other_bytes = 256;
        ResolvedOptions opt;
        opt.backend = Backend::Cuda;
        detail::PlacementChoice choice;
        choice.ngl = 16;
        auto price = [&](const ModelShape& m) {
            const ContextPrice p = priceContext(m, opt, 4096);
            const auto a = detail::assign(m, p, opt, oneGpu("cuda"), choice);
            return std::make_pair(a.devices[0].compute, a.host.compute);
        };
        // Each alone, in a thread of its own (a fresh memo).
        std::pair<Bytes, Bytes> alone30, alone31;
        std::thread([&] { alone30 = price(v30); }).join();
        std::thread([&] { alone31 = price(v31); }).join();
        QVERIFY2(alone30 != alone31,
                 "the rope factors change no buffer here: the test proves nothing");
        // One after the other in one thread.
        std::pair<Bytes, Bytes> first, second;
        std::thread([&] {
            first = price(v30);
            second = price(v31);
        }).join();
        QCOMPARE(first, alone30);
        QCOMPARE(second, alone31);
    }

    void aCudaPlanSaysItsDeviceTermsAreDerived() {
        // No CUDA device was measured (BackendTraits::measured): the plan says so.
        HardwareSnapshot hw;
        GpuDevice g;
        g.name = "NVIDIA GeForce RTX 4090";
        g.backend = "cuda";
        g.total_bytes = 24 * GiB;
        hw.gpus.push_back(g);
        hw.ram_total = 64 * GiB;
        const Plan p = planOrFail(moeShape(), hw);
        bool said = false;
        for (const auto& n : p.notes)
            said = said || n.find("CUDA: not measured on this backend") != std::string::npos;
        QVERIFY(said);
    }
};

QTEST_APPLESS_MAIN(TestGpuPricing)
#include "test_gpu_pricing.moc"
