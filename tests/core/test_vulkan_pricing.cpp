// What llama.cpp's Vulkan backend changes in the buffers a placement costs (issue 10;
// core/planner/vulkan_pricing.cpp): pinned host buffers, 1 GiB compute chunks, op offload of host
// weights, and the estimate's margin. Each case prices one placement twice, for a Vulkan device and
// for a CUDA device (the CPU backend's packing), and checks the difference.
#include "common/test_shapes.h"
#include "planner/planner_internal.h"

#include <QtTest>

using namespace headroom;
using namespace headroom::test;

namespace {

MemoryBudget budget(const std::string& backend, size_t n_dev = 1) {
    MemoryBudget b;
    for (size_t i = 0; i < n_dev; ++i) {
        DeviceBudget d;
        d.name = backend + std::to_string(i);
        d.backend = backend;
        d.total = 80 * GiB;
        d.usable = toSigned(78 * GiB);
        b.devices.push_back(d);
    }
    b.ram_usable = toSigned(64 * GiB);
    return b;
}

struct Pair {
    ContextPrice price;
    detail::Assignment vulkan;
    detail::Assignment cuda;
};

// llama8bLike with a recurrent state (Falcon-H1's 1.5 MiB of R and S per block, any size does) in
// blocks [first, last], priced for llama.cpp `version` as `price` does.
Pair priceRecurrent(LlamaVersion version, std::uint32_t first, std::uint32_t last,
                    std::uint32_t ngl) {
    ModelShape m = llama8bLike();
    for (std::uint32_t il = first; il <= last && il < m.layers.size(); ++il) {
        m.layers[il].recurrent_r = 256 * KiB;
        m.layers[il].recurrent_s = 1280 * KiB;
    }
    ResolvedOptions opt;
    opt.program = Program::Library;
    opt.llama_version = version;
    opt.n_batch = 512;
    opt.n_ubatch = 512;
    detail::PlacementChoice choice;
    choice.ngl = ngl;
    Pair p;
    p.price = priceContext(m, opt, 4096);
    opt.backend = Backend::Vulkan;
    p.vulkan = detail::assign(m, p.price, opt, budget("vulkan"), choice);
    opt.backend = Backend::Cuda;
    p.cuda = detail::assign(m, p.price, opt, budget("cuda"), choice);
    return p;
}

// llama8bLike (32 blocks of 200 MiB: 50 MiB attention, 150 MiB FFN; 32 heads of 128, 8 KV heads;
// n_embd 4096; vocab 128256) at `ctx` tokens, micro-batch `ub`, -ngl `ngl`, on `n_dev` devices.
Pair price(std::uint64_t ctx, std::uint32_t ub, bool fa, std::uint32_t ngl, size_t n_dev = 1) {
    const ModelShape m = llama8bLike();
    ResolvedOptions opt;
    // The suite these cases come from (validation_vulkan) reserves a whole ubatch of outputs.
    opt.program = Program::Library;
    opt.flash_attn = fa;
    opt.n_batch = ub;
    opt.n_ubatch = ub;
    detail::PlacementChoice choice;
    choice.ngl = ngl;
    Pair p;
    p.price = priceContext(m, opt, ctx);
    opt.backend = Backend::Vulkan;
    p.vulkan = detail::assign(m, p.price, opt, budget("vulkan", n_dev), choice);
    opt.backend = Backend::Cuda;
    p.cuda = detail::assign(m, p.price, opt, budget("cuda", n_dev), choice);
    return p;
}

} // namespace

class TestVulkanPricing : public QObject {
    Q_OBJECT
private slots:
    void pinnedHostBuffersAreThirtyTwoBytesLargerAndWeightsAndKvUnchanged() {
        // ggml_backend_vk_host_buffer_type_alloc_buffer: size += 32, for the output buffer and
        // the host compute buffer (one chunk: a few MiB).
        const Pair p = price(4096, 512, true, 33);
        QCOMPARE(p.vulkan.host.output - p.cuda.host.output, Bytes{32});
        QCOMPARE(p.vulkan.host.compute - p.cuda.host.compute, Bytes{32});
        QCOMPARE(p.vulkan.devices[0].weights, p.cuda.devices[0].weights);
        QCOMPARE(p.vulkan.devices[0].kv(), p.cuda.devices[0].kv());
        QCOMPARE(p.vulkan.host.weights, p.cuda.host.weights);
    }

    void aComputeBufferThatFitsOneChunkGainsOnlyTheMargin() {
        // 4K, ub 512, FA on: layer peak 4 x 512 x (3 x 16384 + 3 x 4096) + 4 MiB mask = 124 MiB and
        // logits 4 x 512 x 128256 B = 250.5 MiB: both under 1 GiB, so one chunk; the margin is the
        // grid's error bound, 15 MiB.
        const Pair p = price(4096, 512, true, 33);
        QCOMPARE(p.vulkan.devices[0].compute - p.cuda.devices[0].compute, 15 * MiB);
    }

    void logitsAndLayerPeakThatCannotShareAChunkAreSummed() {
        // ub 2048: the logits tensor is 4 x 2048 x 128256 B = 1002 MiB; with the layer peak (FFN:
        // 4 x 2048 x (3 x 16384 + 3 x 4096) B + 16 MiB mask = 496 MiB) over 1 GiB, so it takes a
        // chunk of its own above the layer peak (larger than the 64 MiB + 8 KiB of rows beside the
        // logits): layer peak + logits tensor instead of the packed logits peak.
        const Pair p = price(4096, 2048, true, 33);
        const Bytes result = Bytes{4} * 2048 * 128256;
        QCOMPARE(p.price.compute_layer, 496 * MiB);
        QCOMPARE(p.price.compute_logits - result, 64 * MiB + 8 * KiB);
        QCOMPARE(p.vulkan.devices[0].compute - p.cuda.devices[0].compute,
                 496 * MiB + result - p.price.compute_logits + 15 * MiB);
    }

    void scoresOfAChunkOrMoreWithoutFlashAttentionAreCountedTwice() {
        // 16K, ub 512, FA off: the scores are [16384, 512, 32] f32 = 1 GiB, so the layer peak is
        // over a chunk: + 1 GiB for the softmax's own chunk; the logits peak (250.5 MiB + rows)
        // fits in a freed scores chunk.
        const Pair p = price(16384, 512, false, 33);
        QVERIFY(p.price.compute_layer > GiB);
        QVERIFY(p.price.compute_logits < GiB);
        QCOMPARE(p.vulkan.devices[0].compute - p.cuda.devices[0].compute, GiB + 15 * MiB);
    }

    void hostWeightsRunOnTheFirstDeviceWhoseComputeHoldsACopy_data() {
        QTest::addColumn<int>("ub");
        QTest::addColumn<qint64>("extra");
        // -ngl 16: the output and blocks 17-31 on the device, blocks 0-16 on the host. The largest
        // host weight: 2/3 of a block's 150 MiB FFN = 100 MiB (attention: 3/4 x 50 MiB = 37.5).
        QTest::newRow("ub 512: offloaded") << 512 << qint64(100 * MiB + 15 * MiB);
        // GGML_OP_OFFLOAD_MIN_BATCH = 32: a micro-batch of 16 keeps host ops on the host.
        QTest::newRow("ub 16: not offloaded") << 16 << qint64(15 * MiB);
    }
    void hostWeightsRunOnTheFirstDeviceWhoseComputeHoldsACopy() {
        QFETCH(int, ub);
        QFETCH(qint64, extra);
        const Pair p = price(4096, static_cast<std::uint32_t>(ub), true, 16);
        QCOMPARE(static_cast<qint64>(p.vulkan.devices[0].compute - p.cuda.devices[0].compute),
                 extra);
    }

    void withOpOffloadAndFlashAttentionTheHostComputeShrinksToItsInputs() {
        // -ngl 16, 4K, ub 512, FA on: the CPU backend's price runs blocks 0-16 on the host (layer
        // peak 124 MiB); on Vulkan the host keeps its full-offload inputs (token rows 8 MiB,
        // inp_embd 8 MiB, mask 4 MiB, ids and positions 12 KiB), its blocks' K and V rows
        // ([1024 + 1024, 512] f32 = 4 MiB) and the 15 MiB margin, + 32 pinned bytes.
        const Pair p = price(4096, 512, true, 16);
        const Bytes inputs =
            p.price.compute_host + p.price.hostInputs(1, false, false); // 8 + 8 + 4 MiB + 12 KiB
        QCOMPARE(inputs, 20 * MiB + 12 * KiB);
        QCOMPARE(p.vulkan.host.compute, inputs + 4 * MiB + 15 * MiB + 32);
        QVERIFY(p.vulkan.host.compute < p.cuda.host.compute);
    }

    void inV050TheLogitsBesideRecurrentBlocksArePricedAboveTheLayerPeak_data() {
        QTest::addColumn<int>("version");
        QTest::addColumn<int>("first"); // blocks [first, last] keep a recurrent state
        QTest::addColumn<int>("last");
        QTest::addColumn<int>("ngl");
        QTest::addColumn<qint64>("compute"); // the device's, or -1: the CPU price + `extra`
        QTest::addColumn<qint64>("extra");
        // 4K, ub 512, FA on, -ngl 33 (every block and the output on the device). The layer peak
        // is the FFN's: 4 x 512 x (3 x 16384 + 3 x 4096) B + 4 MiB mask = 124 MiB; the logits
        // tensor 4 x 512 x 128256 B = 250.5 MiB; the margin 15 MiB. v0.5.0 reorders the graph
        // (ggml_vk_graph_optimize) and the zero-byte extra-state rows of build_rs can keep
        // ggml-alloc from packing the logits beside the final norm: they are priced above the
        // layer peak, 124 + 250.5 + 15 = 389.5 MiB.
        QTest::newRow("v0.5.0, recurrent blocks beside the output")
            << 5 << 0 << 31 << 33 << qint64(124 * MiB + 4 * 512 * Bytes{128256} + 15 * MiB)
            << qint64(0);
        // v0.4.0's reorder cost at most 16 MiB on the grid, inside the margin: margin only.
        QTest::newRow("v0.4.0: the margin only")
            << 4 << 0 << 31 << 33 << qint64(-1) << qint64(15 * MiB);
        // No recurrent block, no zero-byte rows: the margin only.
        QTest::newRow("v0.5.0, attention only: the margin only")
            << 5 << 32 << 31 << 33 << qint64(-1) << qint64(15 * MiB);
        // -ngl 16: the device holds blocks 17-31 and the output, the recurrent blocks 0-9 stay on
        // the host; the device pays the op-offload copy (2/3 of a 150 MiB FFN = 100 MiB) and the
        // margin, no floor.
        QTest::newRow("v0.5.0, recurrent blocks on the host")
            << 5 << 0 << 9 << 16 << qint64(-1) << qint64(100 * MiB + 15 * MiB);
    }
    void inV050TheLogitsBesideRecurrentBlocksArePricedAboveTheLayerPeak() {
        QFETCH(int, version);
        QFETCH(int, first);
        QFETCH(int, last);
        QFETCH(int, ngl);
        QFETCH(qint64, compute);
        QFETCH(qint64, extra);
        const Pair p =
            priceRecurrent(version == 4 ? LlamaVersion::V0_4_0 : LlamaVersion::V0_5_0,
                           static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(last),
                           static_cast<std::uint32_t>(ngl));
        QCOMPARE(p.price.compute_layer, 124 * MiB);
        if (compute >= 0) {
            QCOMPARE(static_cast<qint64>(p.vulkan.devices[0].compute), compute);
            // The floor is above what the CPU backend's packing plus the margin would give.
            QVERIFY(p.vulkan.devices[0].compute > p.cuda.devices[0].compute + 15 * MiB);
        } else {
            QCOMPARE(static_cast<qint64>(p.vulkan.devices[0].compute - p.cuda.devices[0].compute),
                     extra);
        }
    }

    void onlyTheFirstOfTwoDevicesTakesTheOffloadedOps() {
        // -ngl 16 over two devices (1:1 by budget): blocks 17-24 and 25-31 + output; host blocks
        // 0-16. Device 0 gets the 100 MiB copy, device 1 only the margin.
        const Pair p = price(4096, 512, true, 16, 2);
        QCOMPARE(p.vulkan.devices[0].compute - p.cuda.devices[0].compute, 115 * MiB);
        QCOMPARE(p.vulkan.devices[1].compute - p.cuda.devices[1].compute, 15 * MiB);
    }
};

QTEST_APPLESS_MAIN(TestVulkanPricing)
#include "test_vulkan_pricing.moc"
