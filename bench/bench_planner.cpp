// Measures planning speed: one model across every rung and posture, and the whole built-in
// catalog on one machine. Prints nanoseconds per plan; asserts nothing (rule: speed is measured).
// bench_planner [GGUF...]: the compute replay is also timed on the given files' shapes (catalog
// shapes lack the SSM sizes some skeletons need, e.g. Jamba's and Qwen3-Next's).
#include "arch/shape_from_gguf.h"
#include "catalog.h"
#include "compute_skeleton.h"
#include "hardware.h"
#include "model_ranking.h"
#include "planner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace headroom;
using Clock = std::chrono::steady_clock;

namespace {

template <typename F>
double medianNs(int reps, int inner, F&& f) {
    std::vector<double> samples;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = Clock::now();
        for (int i = 0; i < inner; ++i)
            f();
        const auto t1 = Clock::now();
        samples.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / inner);
    }
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
}

// "Ranked for this machine" as `headroom-cli catalog` does it: every model planned (every rung,
// its compute replayed), its standing read, the list sorted by model_ranking.h.
std::size_t rankCatalog(const std::vector<ModelShape>& shapes, const HardwareSnapshot& hw) {
    std::vector<std::pair<ModelStanding, const ModelShape*>> ranked;
    ranked.reserve(shapes.size());
    for (const auto& s : shapes)
        if (auto p = makePlan(s, hw, {})) ranked.emplace_back(standingOf(*p), &s);
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return ranksAbove(a.first, b.first); });
    return ranked.size();
}

} // namespace

int main(int argc, char** argv) {
    auto catalog = loadBuiltinCatalog();
    if (!catalog) {
        std::fprintf(stderr, "catalog: %s\n", catalog.error().message.c_str());
        return 1;
    }
    const HardwareSnapshot hw = snapshotFromSizes({24 * GiB}, 64 * GiB, false);
    std::vector<ModelShape> shapes;
    for (const auto& e : catalog->entries())
        if (auto s = catalog->shape(e.id)) shapes.push_back(*s);
    std::vector<ModelShape> files;
    files.reserve(static_cast<size_t>(std::max(argc - 1, 0)));
    for (int i = 1; i < argc; ++i) {
        auto s = shapeFromGgufFile(argv[i]);
        if (!s) {
            std::fprintf(stderr, "%s: %s\n", argv[i], s.error().message.c_str());
            return 1;
        }
        files.push_back(*s);
    }

    // The first ranking runs before anything is memoised: what the first listing costs.
    const auto t0 = Clock::now();
    const std::size_t first_ranked = rankCatalog(shapes, hw);
    const double first_ranking_ms =
        std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

    std::printf("planning benchmark (median of 15 runs), hardware: %s\n", hw.label.c_str());
    std::printf("%-34s %6s %12s\n", "model", "rungs", "us/plan");
    double worst = 0;
    volatile std::size_t sink = first_ranked;
    for (const auto& s : shapes) {
        std::size_t rungs = 0;
        const double ns = medianNs(15, 20, [&] {
            auto p = makePlan(s, hw, {});
            rungs = p->rungs.size() + p->other_posture_rungs.size();
            sink = sink + rungs;
        });
        worst = std::max(worst, ns);
        std::printf("%-34s %6zu %12.1f\n", s.id.c_str(), rungs, ns / 1000.0);
    }
    const double all = medianNs(15, 3, [&] {
        for (const auto& s : shapes)
            sink = sink + makePlan(s, hw, {})->rungs.size();
    });
    std::printf("\nworst single model: %.1f us per plan (goal < 50 us)\n", worst / 1000.0);

    // The compute buffer replayed through ggml-alloc (core/compute_skeleton.h) for one rung:
    // 32K context, ub 512, flash attention, every token an output (goal < 1 ms per model).
    std::printf("\ncompute replay (one rung, 32K, ub 512), models with a skeleton:\n");
    double worst_replay = 0;
    std::vector<const ModelShape*> replayed;
    replayed.reserve(shapes.size() + files.size());
    for (const auto& s : shapes)
        replayed.push_back(&s);
    for (const auto& s : files)
        replayed.push_back(&s);
    for (const ModelShape* shape : replayed) {
        const ModelShape& s = *shape;
        if (!hasComputeSkeleton(s)) continue;
        ComputeGraphParams params;
        params.n_ubatch = params.n_outputs = 512;
        params.n_kv = params.n_kv_swa = 32768;
        // A new context each call (1024 of them, more than the per-thread memo keeps), so every
        // call builds and replays the graph.
        std::uint32_t call = 0;
        const double ns = medianNs(15, 5, [&] {
            params.n_kv = params.n_kv_swa = 32768 + 256 * (call++ % 1024);
            sink = sink + replayedCompute(s, params).value_or(0);
        });
        worst_replay = std::max(worst_replay, ns);
        std::printf("%-34s %12.1f us\n", s.id.c_str(), ns / 1000.0);
    }
    std::printf("worst compute replay: %.1f us per model (goal < 1 ms)\n", worst_replay / 1000.0);

    // The same graph replayed over backends the way ggml_backend_sched and ggml-vulkan place and
    // allocate it (the Vulkan pricing's replay): the first half of the blocks in host memory, the
    // rest and the output on one device, op offload on, 1 GiB chunks, the splits reordered.
    std::printf("\nscheduled replay (Vulkan, half the blocks on the host), same rung:\n");
    double worst_sched = 0;
    for (const auto& s : shapes) {
        if (!hasComputeSkeleton(s)) continue;
        graph::SchedPlacement p;
        p.buffers.assign(2, graph::BufferType{32, 1024 * MiB});
        const size_t n_layer = s.layers.size();
        for (size_t il = 0; il < n_layer; ++il) {
            p.layer_backend.push_back(il < n_layer / 2 ? 1 : 0);
            p.dense_bytes.push_back(s.layers[il].attn_bytes + s.layers[il].ffn_bytes);
            p.expert_bytes.push_back(s.layers[il].experts_bytes);
        }
        p.expert_backend = p.layer_backend;
        p.dense_bytes.push_back(s.output_bytes);
        p.expert_bytes.push_back(0);
        p.n_expert = s.moe.n_expert;
        p.vulkan_reorder = graph::VulkanReorder::V0_5_0;
        ComputeGraphParams params;
        params.n_ubatch = params.n_outputs = 512;
        std::uint32_t call = 0;
        const double ns = medianNs(15, 5, [&] {
            params.n_kv = params.n_kv_swa = 32768 + 256 * (call++ % 1024);
            const auto r = scheduledCompute(s, params, p);
            sink = sink + (r ? r->front().bytes : 0);
        });
        worst_sched = std::max(worst_sched, ns);
        std::printf("%-34s %12.1f us\n", s.id.c_str(), ns / 1000.0);
    }
    std::printf("worst scheduled replay: %.1f us per model (goal < 1 ms)\n", worst_sched / 1000.0);
    std::printf("whole catalog (%zu models): %.3f ms (goal < 2 ms)\n", shapes.size(), all / 1e6);

    const double ranked = medianNs(15, 1, [&] { sink = sink + rankCatalog(shapes, hw); });
    std::printf("whole catalog ranked (%zu models): first pass %.2f ms, then median %.2f ms "
                "(goal < 50 ms)\n",
                shapes.size(), first_ranking_ms, ranked / 1e6);
    return 0;
}
