// What llama.cpp's Vulkan backend changes in the buffers a placement costs (issue 10;
// core/planner/backend_buffers.cpp): pinned host buffers, the graph replayed over the backends the
// way ggml_backend_sched places it (op offload of host weights included) with 1 GiB compute
// chunks, and the replay's margin. Each case prices one placement twice, for a Vulkan device and
// with the CPU backend's packing of the same placement (`packed`: no backend pass), and compares.
#include "common/test_shapes.h"
#include "planner/planner_internal.h"

#include <QtTest>

#include <string>

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
    detail::Assignment packed;
};

// Shape `m` at 4096 tokens, micro-batch 512, -ngl `ngl`, the blocks' parts moved as `moves` says
// (what -ot patterns select, detail::tensorMoves), priced for llama.cpp `version`.
Pair pricePlacement(const ModelShape& m, std::uint32_t ngl, std::vector<BlockMoves> moves = {},
                    LlamaVersion version = ResolvedOptions{}.llama_version) {
    ResolvedOptions opt;
    opt.program = Program::Library;
    opt.llama_version = version;
    opt.n_batch = 512;
    opt.n_ubatch = 512;
    detail::PlacementChoice choice;
    choice.ngl = ngl;
    choice.moves = std::move(moves);
    Pair p;
    p.price = priceContext(m, opt, 4096);
    opt.backend = Backend::Vulkan;
    p.vulkan = detail::assign(m, p.price, opt, budget("vulkan"), choice);
    opt.backend = Backend::Cpu;
    p.packed = detail::assign(m, p.price, opt, budget("cuda"), choice);
    return p;
}

// llama8bLike, as `architecture`, with a recurrent state (Falcon-H1's 1.5 MiB of R and S per
// block, any size does) in blocks [first, last], priced as pricePlacement does.
Pair priceRecurrent(LlamaVersion version, std::uint32_t first, std::uint32_t last,
                    std::uint32_t ngl, const std::string& architecture = "llama") {
    ModelShape m = llama8bLike();
    m.architecture = architecture;
    for (std::uint32_t il = first; il <= last && il < m.layers.size(); ++il) {
        m.layers[il].recurrent_r = 256 * KiB;
        m.layers[il].recurrent_s = 1280 * KiB;
    }
    return pricePlacement(m, ngl, {}, version);
}

// llama8bLike (32 blocks of 200 MiB: 50 MiB attention, 150 MiB FFN; 32 heads of 128, 8 KV heads;
// n_embd 4096; vocab 128256) at `ctx` tokens, micro-batch `ub`, -ngl `ngl`, on `n_dev` devices.
Pair price(std::uint64_t ctx, std::uint32_t ub, bool fa, std::uint32_t ngl, size_t n_dev = 1,
           LlamaVersion version = LlamaVersion::V0_4_0) {
    const ModelShape m = llama8bLike();
    ResolvedOptions opt;
    // The release whose graphs the skeletons were checked against (and the suite measured).
    opt.llama_version = version;
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
    opt.backend = Backend::Cpu;
    p.packed = detail::assign(m, p.price, opt, budget("cuda", n_dev), choice);
    return p;
}

// The margin on every replayed Vulkan device buffer (backend_buffers.cpp kReplayMargin).
constexpr Bytes kMargin = 6 * MiB;

} // namespace

class TestVulkanPricing : public QObject {
    Q_OBJECT
private slots:
    void pinnedHostBuffersAreThirtyTwoBytesLargerAndWeightsAndKvUnchanged() {
        // ggml_backend_vk_host_buffer_type_alloc_buffer: size += 32, for the output buffer and
        // the host compute buffer (one chunk). At full offload the CPU holds the graph inputs,
        // all allocated before any node (ggml_gallocr_alloc_graph_impl) and alive until the
        // device's copies of them are made: inp_embd [4096, 512] f32 8 MiB, the mask [4096, 512]
        // f16 4 MiB, tokens, positions and output ids 2 KiB each, K and V cache indices 4 KiB
        // each; and the token rows (GET_ROWS of token_embd, which op offload never moves)
        // [4096, 512] f32 8 MiB: 20 MiB + 14 KiB.
        const Pair p = price(4096, 512, true, 33);
        QCOMPARE(p.vulkan.host.output - p.packed.host.output, Bytes{32});
        QCOMPARE(p.vulkan.host.compute, 20 * MiB + 14 * KiB + 32);
        QCOMPARE(p.vulkan.devices[0].weights, p.packed.devices[0].weights);
        QCOMPARE(p.vulkan.devices[0].kv(), p.packed.devices[0].kv());
        QCOMPARE(p.vulkan.host.weights, p.packed.host.weights);
    }

    void theDeviceHoldsTheGraphButTheTokenRowsPlusTheMargin() {
        // 4K, ub 512, FA on, everything on the device: the peak is the logits [128256, 512] f32
        // (250.5 MiB) beside the final norm (an output, [4096, 512] f32, 8 MiB), every input copy
        // freed after the last block; one chunk.
        const Pair p = price(4096, 512, true, 33);
        QCOMPARE(p.vulkan.devices[0].compute, 250 * MiB + 512 * KiB + 8 * MiB + kMargin);
    }

    void logitsThatDoNotFitTheLayersChunkGetOneOfTheirOwn() {
        // ub 2048: the logits [128256, 2048] f32 are 1002 MiB, which the first chunk (its high
        // water the block peak: compute_layer's 496 MiB, the mask's copy included, plus the
        // copies of positions 8 KiB, K and V indices 16 KiB each and output ids 8 KiB) cannot
        // take beside the final norm: a second chunk of 1002 MiB. One unbounded buffer would
        // have packed them into 1066 MiB.
        const Pair p = price(4096, 2048, true, 33);
        QCOMPARE(p.price.compute_layer, 496 * MiB);
        QCOMPARE(p.vulkan.devices[0].compute, 496 * MiB + 48 * KiB + 1002 * MiB + kMargin);
        QVERIFY(p.vulkan.devices[0].compute > p.packed.devices[0].compute + kMargin);
    }

    void scoresOfAWholeChunkNeedTwoChunksWithoutFlashAttention() {
        // 16K, ub 512, FA off: each block's scores [16384, 512, 32] f32 fill a 1 GiB chunk of
        // their own. Once they are freed, the next small tensor takes that empty chunk rather
        // than grow the first (ggml_dyn_tallocr_alloc prefers a block that needs no growth), so
        // the next block's scores open a third chunk: two of them, beside a first chunk holding
        // at least the mask's copy ([16384, 512] f32, 32 MiB).
        const Pair p = price(16384, 512, false, 33);
        const Bytes dev = p.vulkan.devices[0].compute - kMargin;
        QVERIFY(dev >= 2 * GiB + 32 * MiB);
        QVERIFY(dev < 3 * GiB);
    }

    void withOpOffloadTheHostBlocksRunOnTheFirstDevice_data() {
        QTest::addColumn<int>("ub");
        QTest::addColumn<bool>("offloaded");
        // -ngl 16: blocks 16-31 and the output on the device, blocks 0-15 on the host.
        QTest::newRow("ub 512: offloaded") << 512 << true;
        // GGML_OP_OFFLOAD_MIN_BATCH = 32: a micro-batch of 16 keeps host ops on the host.
        QTest::newRow("ub 16: not offloaded") << 16 << false;
    }
    void withOpOffloadTheHostBlocksRunOnTheFirstDevice() {
        QFETCH(int, ub);
        QFETCH(bool, offloaded);
        const auto u = static_cast<std::uint32_t>(ub);
        const Pair partial = price(4096, u, true, 16);
        const Pair full = price(4096, u, true, 33);
        if (offloaded) {
            // The host keeps what it holds at full offload (its blocks' K and V row copies, 2 + 2
            // MiB, fit where the freed inputs were), far under the CPU backend's price of
            // running the blocks itself.
            QCOMPARE(partial.vulkan.host.compute, full.vulkan.host.compute);
            QVERIFY(partial.vulkan.host.compute < partial.packed.host.compute);
        } else {
            // The host runs its blocks: more than the inputs and rows it holds at full offload.
            QVERIFY(partial.vulkan.host.compute > full.vulkan.host.compute);
            // The device's peak is the logits [128256, 16] f32 (8016 KiB) beside the final norm
            // ([4096, 16] f32, 256 KiB).
            QCOMPARE(partial.vulkan.devices[0].compute, 8016 * KiB + 256 * KiB + kMargin);
        }
    }

    void v050sReorderLeavesTheFinalNormAboveAHoleTheLogitsDoNotFit() {
        // Llama-3.1-8B's replica on lavapipe, -ngl 99, 4K, ub 512, FA on (tests/validation/vulkan,
        // alloc_replay.cpp): v0.4.0 packs the final norm at 0 and the logits beside it, 258.5 MiB
        // (271 056 896 B measured: 250.5 MiB of logits + 8 MiB norm); v0.5.0's
        // ggml_vk_graph_optimize leaves the norm at 8 MiB above a free 8 MiB hole, so the logits
        // start at 16 MiB: 266.5 MiB (279 445 504 B measured). Both replays, plus the margin.
        const Pair v04 = price(4096, 512, true, 33);
        const Pair v05 = price(4096, 512, true, 33, 1, LlamaVersion::V0_5_0);
        QCOMPARE(v04.vulkan.devices[0].compute, 250 * MiB + 512 * KiB + 8 * MiB + kMargin);
        QCOMPARE(v05.vulkan.devices[0].compute, 250 * MiB + 512 * KiB + 16 * MiB + kMargin);
        QCOMPARE(v05.vulkan.host.compute, v04.vulkan.host.compute);
    }

    void inV050TheLogitsBesideRecurrentBlocksAreBoundedOnlyWhereNothingReplaysTheGraph_data() {
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<int>("version");
        QTest::addColumn<qint64>("compute"); // the device's, or -1: the replay without state
        // 4K, ub 512, FA on, -ngl 33, blocks 0-31 with a recurrent state. With a skeleton the
        // scheduled replay holds build_rs's zero-byte rows and the release's reorder: the
        // device is priced by it alone, as without the state (the llama skeleton builds
        // attention blocks, so the state changes nothing in its graph).
        QTest::newRow("llama skeleton, v0.5.0: the replay") << "llama" << 5 << qint64(-1);
        QTest::newRow("llama skeleton, v0.4.0: the replay") << "llama" << 4 << qint64(-1);
        // Without a skeleton the closed form prices v0.5.0's logits above the layer peak: the
        // layer peak (124 MiB: 4 x 512 x (3 x 16384 + 3 x 4096) B + 4 MiB mask) raised by the
        // 22 % estimate margin, rounded up to the byte, plus the logits (4 x 512 x 128256 B =
        // 250.5 MiB) and the 15 MiB closed-form margin.
        const qint64 layer = 124 * MiB + (124 * MiB * 22 + 99) / 100;
        QTest::newRow("no skeleton, v0.5.0: the bound")
            << "bloom" << 5 << qint64(layer + 4 * 512 * 128256 + 15 * MiB);
    }
    void inV050TheLogitsBesideRecurrentBlocksAreBoundedOnlyWhereNothingReplaysTheGraph() {
        QFETCH(QString, architecture);
        QFETCH(int, version);
        QFETCH(qint64, compute);
        const LlamaVersion v = version == 4 ? LlamaVersion::V0_4_0 : LlamaVersion::V0_5_0;
        const Pair p = priceRecurrent(v, 0, 31, 33, architecture.toStdString());
        if (compute >= 0) {
            QCOMPARE(static_cast<qint64>(p.vulkan.devices[0].compute), compute);
        } else {
            const Pair plain = price(4096, 512, true, 33, 1, v);
            QCOMPARE(p.vulkan.devices[0].compute, plain.vulkan.devices[0].compute);
        }
    }

    void aScanWeightVulkanCannotRunStaysInHostMemory_data() {
        QTest::addColumn<bool>("mamba1");
        QTest::addColumn<std::uint32_t>("d_state");
        QTest::addColumn<Bytes>("moved");
        // Blocks 30 and 31 (-ngl 3) each with a 512 KiB ssm_a. ggml-vulkan's SSM_SCAN takes
        // Mamba-2's layout with d_state 128 or 256 and a head size that is a multiple of 16 only
        // (4096 / 64 heads = 64 here).
        QTest::newRow("Mamba-1 (Jamba), d_state 16") << true << 16u << Bytes{1024 * KiB};
        QTest::newRow("Mamba-2, d_state 128") << false << 128u << Bytes{0};
        QTest::newRow("Mamba-2, d_state 64") << false << 64u << Bytes{1024 * KiB};
    }
    void aScanWeightVulkanCannotRunStaysInHostMemory() {
        QFETCH(bool, mamba1);
        QFETCH(std::uint32_t, d_state);
        QFETCH(Bytes, moved);
        ModelShape m = llama8bLike();
        m.ssm = {4, 4096, d_state, 1, 64};
        m.ssm.mamba1_scan = mamba1;
        m.layers[30].ssm_a_bytes = m.layers[31].ssm_a_bytes = 512 * KiB;
        const Pair p = pricePlacement(m, 3);
        QCOMPARE(p.packed.devices[0].weights - p.vulkan.devices[0].weights, moved);
        QCOMPARE(p.vulkan.host.weights - p.packed.host.weights, moved);
    }

    void tensorsMadeWithBlockZerosNumberLoadWithBlockZero() {
        // 20 MiB outside the blocks, 16 MiB of it made with block 0's number (Gemma 3n's
        // per_layer_model_proj): at -ngl 3 block 0 is on the CPU, so the device holds blocks 30
        // and 31 (400 MiB), the output (500 MiB) and the other 4 MiB; at -ngl 33 all of it.
        ModelShape m = llama8bLike();
        m.other_bytes = 20 * MiB;
        m.first_block_bytes = 16 * MiB;
        const Pair partial = pricePlacement(m, 3);
        QCOMPARE(partial.packed.devices[0].weights, 400 * MiB + 500 * MiB + 4 * MiB);
        QCOMPARE(partial.vulkan.devices[0].weights, partial.packed.devices[0].weights);
        const Pair full = pricePlacement(m, 33);
        QCOMPARE(full.packed.devices[0].weights, 32 * 200 * MiB + 500 * MiB + 20 * MiB);
    }

    void anOverrideOfTheFfnProjectionsLeavesTheirNormOnTheDevice() {
        // Block 31's 150 MiB FFN holds 16 KiB of ffn_norm beside its three projections; -ot
        // blk\.31\.ffn_(up|down|gate)\.weight=CPU moves the projections only:
        // 400 + 500 - (150 MiB - 16 KiB) stay on the device.
        ModelShape m = llama8bLike();
        m.layers[31].ffn_matrix_bytes = 150 * MiB - 16 * KiB;
        std::vector<BlockMoves> moves(32);
        moves[31].ffn_parts = 3;
        const Pair p = pricePlacement(m, 3, moves);
        QCOMPARE(p.packed.devices[0].weights, 900 * MiB - (150 * MiB - 16 * KiB));
        QCOMPARE(p.vulkan.host.weights - pricePlacement(m, 3).vulkan.host.weights,
                 150 * MiB - 16 * KiB);
    }

    void scoresPastTheStorageBufferRangeArePricedOnTheHostToo() {
        // v0.5.0's ggml_backend_vk_device_supports_op refuses an op any of whose tensors passes
        // maxStorageBufferRange (4 GiB - 1 on most discrete GPUs): at 64K without flash
        // attention the scores [65536, 512, 32] f32 are 4 GiB, so the scheduler runs them (and the
        // softmax over them, in place) on the CPU. A device with 64-bit indexing keeps them, and
        // the plan cannot tell the two apart, so each side prices the larger: the host at least
        // the 4 GiB, the device what it needs when it keeps them.
        const Pair v05 = price(65536, 512, false, 33, 1, LlamaVersion::V0_5_0);
        QVERIFY2(v05.vulkan.host.compute >= 4 * GiB,
                 qPrintable(QString::number(v05.vulkan.host.compute)));
        QVERIFY(v05.vulkan.devices[0].compute >= 4 * GiB);
        // v0.4.0 has no such check (tensor_size_supported is new in v0.5.0): all on the device.
        const Pair v04 = price(65536, 512, false, 33, 1, LlamaVersion::V0_4_0);
        QVERIFY(v04.vulkan.host.compute < GiB);
        // With flash attention no tensor comes near the limit.
        QVERIFY(price(65536, 512, true, 33, 1, LlamaVersion::V0_5_0).vulkan.host.compute < GiB);
    }

    void onlyTheFirstOfTwoDevicesTakesTheOffloadedOps() {
        // -ngl 16 over two devices (1:1 by budget): host blocks 0-15 run on device 0, which
        // holds a copy of each host weight while its op runs, over what its own blocks need (the
        // CPU backend's price of them, compute_layer); device 1, with the output, peaks at the
        // logits (250.5 MiB) beside the final norm (8 MiB) as a fully offloaded device does.
        const Pair two = price(4096, 512, true, 16, 2);
        QCOMPARE(two.vulkan.devices[1].compute, 250 * MiB + 512 * KiB + 8 * MiB + kMargin);
        QCOMPARE(two.packed.devices[0].compute, two.price.compute_layer);
        QVERIFY(two.vulkan.devices[0].compute > two.price.compute_layer + kMargin);
    }
};

QTEST_APPLESS_MAIN(TestVulkanPricing)
#include "test_vulkan_pricing.moc"
