// ggml_backend_sched over several backends and ggml-alloc's chunked buffers, replayed on
// hand-built graphs (core/compute_graph.h replaySchedule): which backend each op runs on, what is
// copied between them and how each backend's buffer packs into chunks of its maximum size.
#include "compute_graph.h"

#include <QtTest>

using namespace headroom;
using namespace headroom::graph;

Q_DECLARE_METATYPE(headroom::graph::VulkanReorder)

namespace {

// A CPU-only backend list whose one buffer type packs chunks of at most `max_size` bytes.
SchedPlacement oneBackend(Bytes max_size) {
    SchedPlacement p;
    p.buffers = {BufferType{32, max_size}};
    return p;
}

// Block 0 (1 KiB of weights) and the output on device 0, the CPU last; no op offload, so the
// reorder tests see only the device's own nodes and the input's copy.
SchedPlacement oneBlockOnTheDevice(VulkanReorder reorder) {
    SchedPlacement p;
    p.buffers = {BufferType{32, 0}, BufferType{32, 0}};
    p.layer_backend = {0};
    p.expert_backend = {0};
    p.output_backend = 0;
    p.dense_bytes = {1024, 0};
    p.expert_bytes = {0, 0};
    p.op_offload = false;
    p.vulkan_reorder = reorder;
    return p;
}

} // namespace

class TestComputeSchedule : public QObject {
    Q_OBJECT

private slots:
    void aTensorThatFitsNoChunkOpensANewOneAndTheBufferIsTheSumOfTheChunks() {
        // x (an input, 192 f32 = 768 B) -> a (a copy of 128 f32, 512 B) -> b (256 f32, 1 KiB).
        // One unbounded chunk: x [0,768), a [768,1280); x is freed once a is computed, but its
        // 768 B hole is too small for b, which goes on top: [1280,2304), 2304 B.
        // Chunks of at most 1 KiB: x [0,768) in chunk 0, whose last 256 B cannot take a, so a
        // opens chunk 1 [0,512); x's free makes chunk 0 one free kilobyte again, and b (1 KiB)
        // fits there best (ggml_dyn_tallocr_alloc: chunk 0's last block wastes nothing it has
        // not already used, reuse -256, chunk 1's is too small): chunk 0 reaches 1024, chunk 1
        // 512, 1536 B in two chunks.
        Graph g;
        const Id x = g.input(Elem::F32, 192);
        const Id a = g.cont(x, {128, 1, 1, 1});
        const Id b = g.cont(a, {256, 1, 1, 1});
        g.setOutput(b);
        g.expand(b);
        QCOMPARE(replayPeak(g, 32), Bytes{2304});
        const auto unbounded = replaySchedule(g, oneBackend(0));
        QCOMPARE(unbounded.size(), size_t{1});
        QCOMPARE(unbounded[0].bytes, Bytes{2304});
        QCOMPARE(unbounded[0].chunks, 1);
        const auto chunked = replaySchedule(g, oneBackend(1024));
        QCOMPARE(chunked[0].bytes, Bytes{1536});
        QCOMPARE(chunked[0].chunks, 2);
    }

    void aTensorLargerThanTheMaximumGetsAChunkOfItsOwnSize() {
        // x (256 f32, 1 KiB) -> a (512 f32, 2 KiB) with chunks of at most 1 KiB: a is larger
        // than any chunk may be, so it gets one of exactly its size (ggml_dyn_tallocr_new_chunk:
        // MAX(min_size, max_chunk_size)): 1024 + 2048 B in two chunks.
        Graph g;
        const Id x = g.input(Elem::F32, 256);
        const Id a = g.cont(x, {512, 1, 1, 1});
        g.setOutput(a);
        g.expand(a);
        const auto r = replaySchedule(g, oneBackend(1024));
        QCOMPARE(r[0].bytes, Bytes{3072});
        QCOMPARE(r[0].chunks, 2);
    }

    void aTensorOfExactlyTheChunkSizeFitsOneChunk() {
        // Chunks of at most 1 KiB (ggml-vulkan's 1 GiB suballocation blocks, scaled down), the
        // shape of Phi-3.5's attention scores at 16K: x (an input, 64 f32 = 256 B) -> s1 (256 f32,
        // exactly 1 KiB) -> r1 (256 B) -> s2 (1 KiB) -> r2 (256 B, an output).
        // x takes chunk 0 [0,256); s1 fits no free block (chunk 0's last has 768 B), so it opens
        // chunk 1 of MAX(1024, 1024) = 1024 B and fills it. Freeing x makes chunk 0 one free
        // kilobyte again; r1 takes its last block (reuse 256 - 0 - 256 = 0): [0,256). s1's free
        // leaves chunk 1 one free block of 1024 B, which s2 fits exactly (ggml_dyn_tallocr_alloc:
        // block->size >= size; reuse 1024 - 0 - 1024 = 0), so no third chunk opens; r2 goes
        // back to chunk 0 [0,256). Chunk 0 reaches 256, chunk 1 1024: 1280 B in two chunks (a
        // strict fit would have put s2 in a chunk of its own: 2304 B in three).
        Graph g;
        const Id x = g.input(Elem::F32, 64);
        const Id s1 = g.cont(x, {256, 1, 1, 1});
        const Id r1 = g.cont(s1, {64, 1, 1, 1});
        const Id s2 = g.cont(r1, {256, 1, 1, 1});
        const Id r2 = g.cont(s2, {64, 1, 1, 1});
        g.setOutput(r2);
        g.expand(r2);
        const auto r = replaySchedule(g, oneBackend(1024));
        QCOMPARE(r[0].bytes, Bytes{1280});
        QCOMPARE(r[0].chunks, 2);
    }

    void aZeroByteTensorFreedInsideAFreeBlockKeepsTheFreeSpaceAfterItFromMerging() {
        // build_rs's extra-state rows (0 at reserve) are zero-byte tensors; ggml-alloc frees one
        // as a zero-size free block (ggml_dyn_tallocr_free_bytes inserts it where no block
        // adjoins it), and the merge only looks at the next entry of the offset-sorted list.
        // One unbounded buffer, 32 B alignment, all f32:
        //  a (input, 64 = 256 B) [0,256); n1 = cont(a) [256,512); n2 = cont(n1) [512,768), n1
        //  freed: free list [256,+256], [768,+inf).
        //  z (0 rows, 0 B, reads n2): the best fit among the blocks but the last is [256,+256],
        //  so z is at 256 and the block is unchanged.
        //  n3 (128 = 512 B, reads a and z): [256,+256] is too small, so the last block:
        //  [768,1280). Freeing a makes [0,+512] (z's 256 now inside it); freeing z finds no block
        //  ending or starting at 256 and inserts [256,+0] after it: [0,+512], [256,+0],
        //  [1280,+inf).
        //  n4 (96 = 384 B, reads n3 and n2, the last reader of both): best fit [0,+512] ->
        //  [0,384), leaving [384,+128] ahead of [256,+0] in the list. Freeing n3 [768,1280)
        //  joins the last block: [768,+inf). Freeing n2 [512,768) makes [384,+384], which ends
        //  where the last block starts, but the entry after it is [256,+0]: no merge.
        //  b (256 = 1 KiB, reads n4, an output): [384,+384] is too small, so b goes to the last
        //  block at 768: [768,1792). Merged, b would have started at 384 (peak 1408).
        Graph g;
        const Id a = g.input(Elem::F32, 64);
        const Id n1 = g.cont(a, {64, 1, 1, 1});
        const Id n2 = g.cont(n1, {64, 1, 1, 1});
        const Id z = g.op(Op::Cont, Elem::F32, {64, 0, 1, 1}, {n2});
        const Id n3 = g.op(Op::Concat, Elem::F32, {128, 1, 1, 1}, {a, z});
        const Id n4 = g.op(Op::Concat, Elem::F32, {96, 1, 1, 1}, {n3, n2});
        const Id b = g.op(Op::Concat, Elem::F32, {256, 1, 1, 1}, {n4});
        g.setOutput(b);
        g.expand(b);
        QCOMPARE(replayPeak(g, 32), Bytes{1792});
        const auto r = replaySchedule(g, oneBackend(0));
        QCOMPARE(r[0].bytes, Bytes{1792});
    }

    void opsRunWhereTheirWeightsAreAndWhatCrossesIsCopied_data() {
        QTest::addColumn<bool>("op_offload");
        QTest::addColumn<Bytes>("block0"); // block 0's weight bytes
        QTest::addColumn<Bytes>("listed"); // its 64 x 64 matrix as the file lists it; 0: none
        QTest::addColumn<Bytes>("device");
        QTest::addColumn<Bytes>("host");
        // Block 0 on the CPU, block 1 and the output on device 0, 64 tokens of 64 f32 (16 KiB a
        // hidden state). tokens (256 B) -> token rows (GET_ROWS of token_embd, on the CPU
        // whatever op offload says) -> h0 (block 0) -> h1 (block 1) -> logits (32 KiB, an
        // output).
        // Without op offload h0 runs on the CPU: the CPU holds tokens [0,256), the rows
        // [256,16640) and h0 [16640,33024) (the tokens' 256 B hole is too small), 33024 B; the
        // device gets a copy of h0 [0,16384), h1 [16384,32768), and the logits above both once
        // the copy is freed (its 16 KiB hole is too small): 32768 + 32768 = 65536 B.
        QTest::newRow("block 0 on the CPU")
            << false << Bytes{8192} << Bytes{0} << Bytes{65536} << Bytes{33024};
        // With op offload (a batch of 64 >= 32) h0 runs on the device with a copy of block 0's
        // weight (8 KiB): the CPU holds only the tokens and the rows, 16640 B; the device holds
        // the weight's copy [0,8192) and the rows' [8192,24576) (h0's sources in order) and h0
        // [24576,40960), then h1 takes the freed copies' place [0,16384) and the logits go on
        // top of it once h0 is freed: 16384 + 32768 = 49152 B.
        QTest::newRow("op offload")
            << true << Bytes{8192} << Bytes{0} << Bytes{49152} << Bytes{16640};
        // Block 0 holding 40 KiB of which the matrix h0 reads is 16 KiB (f32), the rest read by
        // no op here. Without the file's tensors the copy takes the block's bytes shared by
        // elements, all 40 KiB: the weight's copy [0,40960), the rows' [40960,57344), h0
        // [57344,73728), 73728 B.
        QTest::newRow("op offload, the block's share")
            << true << Bytes{40960} << Bytes{0} << Bytes{73728} << Bytes{16640};
        // With the block's matrices listed the copy takes 16 KiB: [0,16384), the rows'
        // [16384,32768), h0 [32768,49152); h1 then [0,16384) and the logits [16384,49152), the
        // high-water mark 49152 B.
        QTest::newRow("op offload, the file's own matrix")
            << true << Bytes{40960} << Bytes{16384} << Bytes{49152} << Bytes{16640};
    }
    void opsRunWhereTheirWeightsAreAndWhatCrossesIsCopied() {
        QFETCH(bool, op_offload);
        QFETCH(Bytes, block0);
        QFETCH(Bytes, listed);
        QFETCH(Bytes, device);
        QFETCH(Bytes, host);
        Graph g;
        const Id w = g.weight();
        const Id tokens = g.input(Elem::I32, 64);
        const Id rows = g.op(Op::GetRows, Elem::F32, {64, 64, 1, 1}, {w, tokens});
        g.setLayer(0);
        const Id h0 = g.op(Op::MulMat, Elem::F32, {64, 64, 1, 1}, {w, rows});
        g.setLayer(1);
        const Id h1 = g.op(Op::MulMat, Elem::F32, {64, 64, 1, 1}, {w, h0});
        g.setLayer(2);
        const Id logits = g.op(Op::MulMat, Elem::F32, {128, 64, 1, 1}, {w, h1});
        g.setOutput(logits);
        g.expand(logits);

        SchedPlacement p;
        p.buffers = {BufferType{32, 0}, BufferType{32, 0}}; // device 0, then the CPU
        p.layer_backend = {1, 0};
        p.expert_backend = {1, 0};
        p.output_backend = 0;
        p.dense_bytes = {block0, 8192, 16384};
        p.expert_bytes = {0, 0, 0};
        p.op_offload = op_offload;
        if (listed > 0) p.matrices = {{{64, 64, listed, false}}, {}};
        const auto r = replaySchedule(g, p);
        QCOMPARE(r.size(), size_t{2});
        QCOMPARE(r[0].bytes, device);
        QCOMPARE(r[1].bytes, host);
    }

    void aBlocksNormRunsOnItsOwnDeviceWhenPinned_data() {
        QTest::addColumn<bool>("pin");
        QTest::addColumn<Bytes>("dev0");
        // Block 0 on device 0, block 1 and the output on device 1; token rows [32, 64] f32
        // (8 KiB) on the CPU. Device 0 holds the rows' copy [0,8192) and h0 ([64, 64] f32,
        // 16 KiB) [8192,24576); the copy is freed once h0 is computed.
        // Unpinned, block 1's norm of h0 has no weight of its own and follows h0 onto device 0
        // (the devices' expansion down); h0 is read again by the residual add, so the norm cannot
        // run in place and the 8 KiB hole is too small: [24576,40960), 40960 B.
        QTest::newRow("unpinned") << false << Bytes{40960};
        // Pinned (llama_context::graph_get_cb under full offload), the norm runs on device 1 and
        // device 0 holds only the copy and h0: 24576 B.
        QTest::newRow("pinned") << true << Bytes{24576};
    }
    void aBlocksNormRunsOnItsOwnDeviceWhenPinned() {
        QFETCH(bool, pin);
        QFETCH(Bytes, dev0);
        Graph g;
        const Id w = g.weight();
        const Id tokens = g.input(Elem::I32, 64);
        const Id rows = g.op(Op::GetRows, Elem::F32, {32, 64, 1, 1}, {w, tokens});
        g.setLayer(0);
        const Id h0 = g.op(Op::MulMat, Elem::F32, {64, 64, 1, 1}, {w, rows});
        g.setLayer(1);
        const Id norm = g.rmsNorm(h0);
        g.pinToLayer(norm);
        const Id cur = g.op(Op::MulMat, Elem::F32, {64, 64, 1, 1}, {w, g.mul(norm, w)});
        const Id h1 = g.add(cur, h0);
        g.setLayer(2);
        const Id logits = g.op(Op::MulMat, Elem::F32, {128, 64, 1, 1}, {w, h1});
        g.setOutput(logits);
        g.expand(logits);
        SchedPlacement p;
        p.buffers = {BufferType{32, 0}, BufferType{32, 0}, BufferType{32, 0}};
        p.layer_backend = {0, 1};
        p.expert_backend = {0, 1};
        p.output_backend = 1;
        p.dense_bytes = {8192, 8192, 16384};
        p.expert_bytes = {0, 0, 0};
        p.op_offload = false;
        p.pin_norms = pin;
        const auto r = replaySchedule(g, p);
        QCOMPARE(r[0].bytes, dev0);
    }

    void vulkansReorderRunsIndependentBranchesTogether_data() {
        QTest::addColumn<bool>("reorder");
        QTest::addColumn<Bytes>("device");
        // On device 0: a and b (1 KiB products of the input's copy, 256 B), each repeated to
        // 2 KiB (a2, b2), summed in place into a2. In build order: the copy [0,256), a
        // [256,1280), a2 [1280,3328); a is freed and b takes its place, b2 goes on top
        // [3328,5376): 5376 B.
        QTest::newRow("build order") << false << Bytes{5376};
        // ggml_vk_graph_optimize pulls b up beside a (it reads nothing a computes): a [256,1280),
        // b [1280,2304), a2 [2304,4352); a's 1 KiB hole (with the freed copy's 256 B) is too small
        // for b2, which goes on top [4352,6400): 6400 B.
        QTest::newRow("reordered") << true << Bytes{6400};
    }
    void vulkansReorderRunsIndependentBranchesTogether() {
        QFETCH(bool, reorder);
        QFETCH(Bytes, device);
        Graph g;
        const Id w = g.weight();
        const Id x = g.input(Elem::F32, 64);
        g.setLayer(0);
        const Id a = g.op(Op::MulMat, Elem::F32, {256, 1, 1, 1}, {w, x});
        const Id a2 = g.op(Op::Repeat, Elem::F32, {512, 1, 1, 1}, {a});
        const Id b = g.op(Op::MulMat, Elem::F32, {256, 1, 1, 1}, {w, x});
        const Id b2 = g.op(Op::Repeat, Elem::F32, {512, 1, 1, 1}, {b});
        const Id out = g.add(a2, b2);
        g.setOutput(out);
        g.expand(out);
        const SchedPlacement p =
            oneBlockOnTheDevice(reorder ? VulkanReorder::V0_4_0 : VulkanReorder::Off);
        const auto r = replaySchedule(g, p);
        QCOMPARE(r[0].bytes, device);
        QCOMPARE(r[1].bytes, Bytes{256}); // the input, on the CPU
    }

    void vulkansV050ReorderKeepsRmsNormMulAddTogether_data() {
        QTest::addColumn<VulkanReorder>("reorder");
        QTest::addColumn<Bytes>("device");
        // On device 0, in build order (ggml_build_forward_expand visits out's sources depth
        // first: h, r, m, s, then k, b): the input's copy x (64 f32) [0,256), h = x's product (256
        // f32) [256,1280), r = rms_norm(h) on top [1280,2304) (h has two readers, r and s: not in
        // place), m = r * w and s = m + h in place in r's bytes, h freed; k = x's product (64 f32)
        // best fits h's hole [256,512), x freed; b = k's product (256 f32) fits neither [0,256)
        // nor [512,1280): on top [2304,3328); out = concat(s, b) (2 KiB) on top [3328,5376).
        QTest::newRow("build order") << VulkanReorder::Off << Bytes{5376};
        // ggml_vk_graph_optimize pulls k up beside h (it reads nothing h's set computes): x
        // [0,256), h [256,1280), k [1280,1536), x freed, r on top [1536,2560), m in place. v0.4.0
        // then pulls b (it reads only k, placed) into r's set after the RMS_NORM + MUL pair, ahead
        // of s: b on top [2560,3584) while h still lives, k freed; s in place, h freed ([0,1536)
        // free, too small for out), out on top [3584,5632): 5632 B.
        QTest::newRow("v0.4.0") << VulkanReorder::V0_4_0 << Bytes{5632};
        // v0.5.0 keeps RMS_NORM, MUL, ADD together where they start (rms_norm_mul_add_pattern):
        // s runs before b, so h is freed first ([0,1280) free) and b takes [0,1024) of it; out
        // on top [2560,4608): 4608 B.
        QTest::newRow("v0.5.0") << VulkanReorder::V0_5_0 << Bytes{4608};
    }
    void vulkansV050ReorderKeepsRmsNormMulAddTogether() {
        QFETCH(VulkanReorder, reorder);
        QFETCH(Bytes, device);
        Graph g;
        const Id w = g.weight();
        const Id x = g.input(Elem::F32, 64);
        g.setLayer(0);
        const Id k = g.op(Op::MulMat, Elem::F32, {64, 1, 1, 1}, {w, x});
        const Id h = g.op(Op::MulMat, Elem::F32, {256, 1, 1, 1}, {w, x});
        const Id m = g.mul(g.rmsNorm(h), w);
        const Id s = g.add(m, h);
        const Id b = g.op(Op::MulMat, Elem::F32, {256, 1, 1, 1}, {w, k});
        const Id out = g.op(Op::Concat, Elem::F32, {512, 1, 1, 1}, {s, b});
        g.setOutput(out);
        g.expand(out);
        const SchedPlacement p = oneBlockOnTheDevice(reorder);
        const auto r = replaySchedule(g, p);
        QCOMPARE(r[0].bytes, device);
    }

    void vulkansV050ReorderPullsAMulUpToTheUnaryItReads_data() {
        QTest::addColumn<VulkanReorder>("reorder");
        QTest::addColumn<Bytes>("device");
        // On device 0, in build order (out's sources depth first): the input's copy x (64 f32)
        // [0,256), b = x's product (512 f32) [256,2304), x freed; a = b's product (1024 f32) on
        // top [2304,6400); a2 = a repeated (8 KiB) [6400,14592), a freed; u = unary(b) in place
        // in b (its last reader); m = u * w (512 f32; u is a graph output, so not in place) best
        // fits a's hole [2304,4352); out = concat(a2, m) (2560 f32, 10 KiB) on top
        // [14592,24832): 24832 B.
        QTest::newRow("build order") << VulkanReorder::Off << Bytes{24832};
        // ggml_vk_graph_optimize runs u in a's set (it reads only b, placed): b, a, u, then v0.4.0
        // leaves m (it reads u, in the same set) for the set after a2: the same packing, 24832 B.
        QTest::newRow("v0.4.0") << VulkanReorder::V0_4_0 << Bytes{24832};
        // v0.5.0 pulls the MUL reading a UNARY along with it (its other source a weight,
        // ggml_vk_can_fuse_unary_mul): m on top [6400,8448) while a lives, a2 [8448,16640), a
        // freed ([2304,6400), too small for out), out on top [16640,26880): 26880 B.
        QTest::newRow("v0.5.0") << VulkanReorder::V0_5_0 << Bytes{26880};
    }
    void vulkansV050ReorderPullsAMulUpToTheUnaryItReads() {
        QFETCH(VulkanReorder, reorder);
        QFETCH(Bytes, device);
        Graph g;
        const Id w = g.weight();
        const Id x = g.input(Elem::F32, 64);
        g.setLayer(0);
        const Id b = g.op(Op::MulMat, Elem::F32, {512, 1, 1, 1}, {w, x});
        const Id a = g.op(Op::MulMat, Elem::F32, {1024, 1, 1, 1}, {w, b});
        const Id a2 = g.op(Op::Repeat, Elem::F32, {2048, 1, 1, 1}, {a});
        const Id u = g.unary(Op::Unary, b);
        g.setOutput(u);
        const Id m = g.mul(u, w);
        const Id out = g.op(Op::Concat, Elem::F32, {2560, 1, 1, 1}, {a2, m});
        g.setOutput(out);
        g.expand(out);
        const SchedPlacement p = oneBlockOnTheDevice(reorder);
        const auto r = replaySchedule(g, p);
        QCOMPARE(r[0].bytes, device);
    }

    void aCopyKeepsItsSourcesLayoutSoItsFirstConsumerRunsInPlace() {
        // Block 0 and the output on device 0; 64 tokens of 64 f32 (16 KiB a hidden state). The
        // device copies the token rows (ggml_dup_tensor_layout: f32 [64, 64]) to [0,16384); the
        // scale reuses that copy in place (ggml_gallocr_allocate_node: one consumer, same
        // layout), h takes [16384,32768), the scale's memory is freed, and the logits (32 KiB)
        // fit no hole: 32768 + 32768 = 65536 B. Were the copy opaque bytes, the scale would take
        // [16384,32768), h the copy's freed [0,16384) and the logits go at 16384: 49152 B.
        Graph g;
        const Id w = g.weight();
        const Id tokens = g.input(Elem::I32, 64);
        const Id rows = g.op(Op::GetRows, Elem::F32, {64, 64, 1, 1}, {w, tokens});
        g.setLayer(0);
        const Id h = g.op(Op::MulMat, Elem::F32, {64, 64, 1, 1}, {w, g.scale(rows)});
        g.setLayer(1);
        const Id logits = g.op(Op::MulMat, Elem::F32, {128, 64, 1, 1}, {w, h});
        g.setOutput(logits);
        g.expand(logits);
        SchedPlacement p;
        p.buffers = {BufferType{32, 0}, BufferType{32, 0}};
        p.layer_backend = {0};
        p.expert_backend = {0};
        p.output_backend = 0;
        p.dense_bytes = {8192, 16384};
        p.expert_bytes = {0, 0};
        p.op_offload = false;
        const auto r = replaySchedule(g, p);
        QCOMPARE(r[0].bytes, Bytes{65536});
    }

    void aWeightReadTwiceFromAnotherBackendIsCopiedOnceAndKept() {
        // Block 0 on the CPU, its ops offloaded to device 0 (a batch of 64 >= 32); both read one
        // 4 KiB weight of block 0 (Graph::ownWeight), the output on the device. The device:
        // a's sources copied in order, the weight [0,4096) and the rows [4096,20480), a
        // [20480,36864); the rows' copy is freed; b starts a new split (a weight from another
        // backend) but reuses the weight's copy (tensor_id_copy), takes the rows' hole
        // [4096,20480); then the weight's copy and a are freed, and the logits (32 KiB) fit only
        // above b: 20480 + 32768 = 53248 B. The CPU: the tokens and the rows, 16640 B.
        Graph g;
        const Id w = g.weight();
        const Id tokens = g.input(Elem::I32, 64);
        const Id rows = g.op(Op::GetRows, Elem::F32, {64, 64, 1, 1}, {w, tokens});
        g.setLayer(0);
        const Id shared = g.ownWeight(4096);
        const Id a = g.op(Op::MulMat, Elem::F32, {64, 64, 1, 1}, {shared, rows});
        const Id b = g.op(Op::MulMat, Elem::F32, {64, 64, 1, 1}, {shared, a});
        g.setLayer(1);
        const Id logits = g.op(Op::MulMat, Elem::F32, {128, 64, 1, 1}, {w, b});
        g.setOutput(logits);
        g.expand(logits);
        SchedPlacement p;
        p.buffers = {BufferType{32, 0}, BufferType{32, 0}};
        p.layer_backend = {1};
        p.expert_backend = {1};
        p.output_backend = 0;
        p.dense_bytes = {4096, 16384};
        p.expert_bytes = {0, 0};
        const auto r = replaySchedule(g, p);
        QCOMPARE(r[0].bytes, Bytes{53248});
        QCOMPARE(r[1].bytes, Bytes{16640});
    }

    void pipelineCopiesOfTheInputsAreKeptForTheWholeGraph() {
        // Everything on device 0 but the token rows: 4 copies (GGML_SCHED_MAX_COPIES) of every
        // graph input stay allocated, as do 4 copies of the rows the device reads. The CPU: the
        // tokens (256 B, the current copy) and 3 more, then the rows (16 KiB), 17408 B. The
        // device: 4 copies of the rows (64 KiB, allocated first as leafs), then h1 and the
        // logits (16 + 32 KiB), 65536 + 49152 = 114688 B.
        Graph g;
        const Id w = g.weight();
        const Id tokens = g.input(Elem::I32, 64);
        const Id rows = g.op(Op::GetRows, Elem::F32, {64, 64, 1, 1}, {w, tokens});
        g.setLayer(0);
        const Id h1 = g.op(Op::MulMat, Elem::F32, {64, 64, 1, 1}, {w, rows});
        g.setLayer(1);
        const Id logits = g.op(Op::MulMat, Elem::F32, {128, 64, 1, 1}, {w, h1});
        g.setOutput(logits);
        g.expand(logits);
        SchedPlacement p;
        p.buffers = {BufferType{32, 0}, BufferType{32, 0}};
        p.layer_backend = {0};
        p.expert_backend = {0};
        p.output_backend = 0;
        p.dense_bytes = {8192, 16384};
        p.expert_bytes = {0, 0};
        p.n_copies = 4;
        const auto r = replaySchedule(g, p);
        QCOMPARE(r[0].bytes, Bytes{114688});
        QCOMPARE(r[1].bytes, Bytes{17408});
    }
};

QTEST_APPLESS_MAIN(TestComputeSchedule)
#include "test_compute_schedule.moc"
