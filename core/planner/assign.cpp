// Rung pricing, placement half: a priced context put on devices the way llama.cpp's loader would
// put it for one placement (-ngl, --n-cpu-moe, -ot, -ts, -sm), and whether that fits a budget.
#include "planner/planner_internal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace headroom::detail {

namespace {

// A device's runtime overhead by its profile's backend name; "rpc" (backend unknown: the server
// set its backend up before it answered) and unknown names take nothing.
Bytes runtimeOverhead(const std::string& backend) {
    const auto b = backendFromName(backend);
    return b ? traitsOf(*b).runtime_overhead : 0;
}

// A compute buffer raised by a verified calibration factor (>= 1, core/calibration.h), rounded up
// so the scaled figure never lands below what was measured.
Bytes scaledUp(Bytes b, double factor) {
    if (factor <= 1.0) return b;
    const double scaled = std::ceil(static_cast<double>(b) * factor);
    return scaled >= static_cast<double>(kMaxPlausibleBytes) ? kMaxPlausibleBytes
                                                             : static_cast<Bytes>(scaled);
}

// `parts` thirds of `b` (the three routed-expert banks, or the three FFN matrices, are the same
// size: n_embd x n_ff each).
Bytes thirds(Bytes b, std::uint8_t parts) {
    return parts >= 3 ? b : b / 3 * parts;
}

// Whether a device reports both async compute and events (ggml_backend_dev_props caps), which
// pipeline parallelism needs of every non-CPU device. llama.cpp v0.5.0 get_props: yes in
// ggml-rpc.cpp ggml_backend_rpc_device_get_props (an RPC device, whatever the server runs),
// ggml-cuda.cu ggml_backend_cuda_device_get_props (also HIP/MUSA; events off only in a
// GGML_CUDA_NO_PEER_COPY build), ggml-vulkan.cpp ggml_backend_vk_device_get_props, ggml-metal.cpp
// (device get_props), ggml-sycl.cpp ggml_backend_sycl_device_get_props (events off only with
// GGML_SYCL_NO_PEER_COPY) and ggml-hexagon.cpp; no in ggml-opencl.cpp, ggml-webgpu.cpp,
// ggml-zdnn.cpp (async and events false) and ggml-cann.cpp (async false). A backend not named here
// is taken to have both, so that a plan never leaves the copies out where they may be made.
bool asyncWithEvents(const DeviceBudget& d) {
    if (!d.rpc_endpoint.empty()) return true;
    const auto b = backendFromName(d.backend);
    if (b) return traitsOf(*b).async_events || !traitsOf(*b).gpu;
    return !(d.backend == "opencl" || d.backend == "webgpu" || d.backend == "zdnn" ||
             d.backend == "cann");
}

// An RPC device's runtime is its own server's (its backend, not the main host's); a verified
// overhead (this machine's) replaces the built-in estimate, only ever upwards.
Bytes deviceRuntime(const DeviceBudget& d, const ResolvedOptions& opt) {
    return d.rpc_endpoint.empty()
               ? std::max(runtimeOverheadFor(opt.backend), opt.device_overhead_bytes)
               : runtimeOverhead(d.backend);
}

} // namespace

Bytes fixedDeviceBytes(const MemoryBudget& budget, size_t d, const ResolvedOptions& opt) {
    // assign(): the overhead on every device, the projector on device 0 (libmtmd loads it on the
    // main GPU).
    const Bytes runtime = deviceRuntime(budget.devices[d], opt);
    return d == 0 ? satAdd(runtime, opt.mmproj_bytes) : runtime;
}

void keepRuntimeRoom(MemoryBudget& budget, const ResolvedOptions& opt,
                     std::vector<std::string>& notes) {
    if (budget.uma || budget.unknown) return;
    for (size_t d = 0; d < budget.devices.size(); ++d) {
        DeviceBudget& dev = budget.devices[d];
        const SignedBytes fixed = toSigned(fixedDeviceBytes(budget, d, opt));
        if (dev.usable >= fixed) continue;
        // The card's own memory less any --reserve: usable + margin.
        const SignedBytes card = satAddSigned(dev.usable, toSigned(dev.margin));
        const std::string name =
            "GPU " + std::to_string(d) + " (" + dev.name + ", " + formatBytes(dev.total) + ")";
        if (card < fixed) {
            notes.push_back(name +
                            " is too small for llama.cpp: even with every layer in system "
                            "RAM (-ngl 0) it keeps " +
                            formatBytes(static_cast<Bytes>(fixed)) +
                            " on it; leave the GPU out (CUDA_VISIBLE_DEVICES, or plan without "
                            "it) to run on the CPU");
            continue;
        }
        const Bytes given = static_cast<Bytes>(fixed - dev.usable);
        dev.margin = static_cast<Bytes>(card - fixed);
        dev.usable = fixed;
        dev.runtime_only = true;
        notes.push_back(name + " is nearly all planning margin: the margin gives up " +
                        formatBytes(given) + " so that the card holds the " +
                        formatBytes(static_cast<Bytes>(fixed)) +
                        " llama.cpp allocates on it whatever the placement (its runtime" +
                        (d == 0 && opt.mmproj_bytes > 0 ? " and the projector" : "") +
                        "), and little or nothing more is planned there");
    }
}

bool pipelineParallel(const ModelShape& model, const ResolvedOptions& opt,
                      const MemoryBudget& budget, const PlacementChoice& choice) {
    // llama_context::llama_context (llama.cpp v0.5.0 src/llama-context.cpp): more than one device
    // (llama_model::n_devices: the GPUs and RPC devices; -sm none keeps only the main one), every
    // layer and the output offloaded (n_gpu_layers() > n_layer_all), split mode layer, KV offloaded
    // (Headroom never plans --no-kv-offload) and no tensor overrides (-ot, and --cpu-moe /
    // --n-cpu-moe, which common/arg.cpp turns into overrides); then every non-CPU device must
    // report async compute and events.
    if (budget.devices.size() < 2 || choice.split_mode != SplitMode::Layer) return false;
    if (!opt.kv_offload) return false; // cparams.offload_kqv
    if (choice.ngl <= model.nLayer()) return false;
    const bool overrides =
        choice.n_cpu_moe > 0 || opt.pinned.cpu_moe || !opt.pinned.tensor_overrides.empty() ||
        std::any_of(choice.ffn_host.begin(), choice.ffn_host.end(), [](bool b) { return b; }) ||
        std::any_of(choice.moves.begin(), choice.moves.end(),
                    [](const BlockMoves& m) { return m.any(); });
    if (overrides) return false;
    return std::all_of(budget.devices.begin(), budget.devices.end(), asyncWithEvents);
}

std::string gib(Bytes b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(b) / GiB);
    return buf;
}

std::vector<double> plannedSplit(const MemoryBudget& budget) {
    std::vector<double> s;
    s.reserve(budget.devices.size());
    for (const auto& d : budget.devices) {
        // Whole MiB, as -ts is written: the integer quotient is meant. A card whose budget is
        // only llama.cpp's own context gets no layers.
        const SignedBytes mib =
            d.runtime_only ? 0 : std::max<SignedBytes>(0, d.usable) / toSigned(MiB);
        s.push_back(static_cast<double>(mib));
    }
    return s;
}

std::vector<double> cumulativeSplit(const std::vector<double>& split, size_t n_dev) {
    // llama_model::load_tensors: a -ts shorter than the device list leaves the rest at 0; all 0
    // means "no split given". Then prefix sums, normalised by the total.
    std::vector<double> s(n_dev, 0);
    for (size_t i = 0; i < n_dev && i < split.size(); ++i)
        s[i] = std::max(0.0, split[i]);
    double sum = 0;
    for (double v : s)
        sum += v;
    if (!(sum > 0)) std::fill(s.begin(), s.end(), 1.0), sum = static_cast<double>(n_dev);
    double acc = 0;
    for (double& v : s) {
        acc += v;
        v = acc / sum;
    }
    return s;
}

// llama_model::load_tensors: i_gpu_start = max(n_layer_all + 1 - n_gpu_layers, 0), the output
// counting as layer n_layer_all, act = min(ngl, n_layer_all + 1), then the device is
// upper_bound(splits, (il - i_gpu_start) / act) over the cumulative split.
int layerDevice(std::uint32_t il, std::uint32_t n_layer_all, std::uint32_t ngl,
                const std::vector<double>& cumulative, bool ngl_counts_output) {
    if (cumulative.empty()) return -1;
    // An older build started at n_layer - ngl, so the output joined only past n_layer.
    const std::int64_t start = std::max<std::int64_t>(
        static_cast<std::int64_t>(n_layer_all) + (ngl_counts_output ? 1 : 0) - ngl, 0);
    const std::int64_t act =
        std::min<std::int64_t>(ngl, static_cast<std::int64_t>(n_layer_all) + 1);
    if (static_cast<std::int64_t>(il) < start || static_cast<std::int64_t>(il) - start >= act)
        return -1;
    if (cumulative.size() == 1) return 0;
    // llama.cpp compares in float: float(il - i_gpu_start) / act_gpu_layers.
    const float f =
        static_cast<float>(static_cast<std::int64_t>(il) - start) / static_cast<float>(act);
    std::vector<float> points(cumulative.begin(), cumulative.end());
    const auto it = std::upper_bound(points.begin(), points.end(), f);
    return static_cast<int>(std::min<std::ptrdiff_t>(
        it - points.begin(), static_cast<std::ptrdiff_t>(points.size()) - 1));
}

namespace {

// One block's weights, experts, KV and recurrent state into `a`: on its device `d` (-1: the CPU),
// less what -ot, --n-cpu-moe and Headroom's hybrid FFN placement move elsewhere, spread over
// every device by -sm row. Marks the devices that run part of the block.
void placeBlock(Assignment& a, const LayerPrice& lp, std::uint32_t il, int d,
                const PlacementChoice& choice, const ResolvedOptions& opt, bool row,
                const std::vector<double>& cumulative, std::vector<bool>& dev_has_layers) {
    const size_t n_dev = a.devices.size();
    Terms& t = d >= 0 ? a.devices[d] : a.host;
    if (d >= 0) dev_has_layers[d] = true;
    Bytes w = lp.weights;
    const BlockMoves mv = il < choice.moves.size() ? choice.moves[il] : BlockMoves{};
    auto toHost = [&](Bytes moved, bool expert) {
        moved = std::min(moved, w);
        w -= moved;
        a.host.weights = satAdd(a.host.weights, moved);
        if (expert) a.host.experts = satAdd(a.host.experts, moved);
        a.spill_bytes = satAdd(a.spill_bytes, moved);
    };
    Bytes experts_here = lp.experts;
    if (d >= 0 && lp.experts > 0) {
        const Bytes moved =
            il < choice.n_cpu_moe ? lp.experts : thirds(lp.experts, mv.expert_parts);
        toHost(moved, true);
        experts_here = lp.experts - moved;
    }
    // -ot REGEX=CUDA1: the parts named go to that device's buffer whatever device (or the
    // CPU) the block has (llama_model_loader's buffer type override), and that device runs
    // the ops that read them.
    Bytes to_devices = 0;
    for (const BlockMoves::ToDevice& mvd : mv.to_devices) {
        if (mvd.device < 0 || static_cast<size_t>(mvd.device) >= n_dev) continue;
        Terms& dst = a.devices[static_cast<size_t>(mvd.device)];
        auto toDevice = [&](Bytes moved, bool expert) {
            moved = std::min(moved, w);
            w -= moved;
            dst.weights = satAdd(dst.weights, moved);
            if (expert) {
                moved = std::min(moved, experts_here);
                experts_here -= moved;
                dst.experts = satAdd(dst.experts, moved);
            }
            to_devices = satAdd(to_devices, moved);
        };
        toDevice(il < choice.n_cpu_moe ? 0 : thirds(lp.experts, mvd.expert_parts), true);
        toDevice(thirds(lp.ffn_matrices, mvd.ffn_parts), false);
        if (mvd.attn) toDevice(satSub(satSub(lp.weights, lp.experts), lp.ffn), false);
        dev_has_layers[static_cast<size_t>(mvd.device)] = true;
    }
    t.experts = satAdd(t.experts, experts_here);
    if (d >= 0) {
        const bool ffn_host = il < choice.ffn_host.size() && choice.ffn_host[il];
        // Headroom's own hybrid placement moves blk.N.ffn_.* (policy::hybridFfnOverride); a
        // user's -ot on the projections leaves the FFN norm, router and biases in place.
        toHost(ffn_host ? lp.ffn : thirds(lp.ffn_matrices, mv.ffn_parts), false);
        if (mv.attn) toHost(satSub(satSub(lp.weights, lp.experts), lp.ffn), false);
    }
    if (row && d >= 0) {
        // The split part: what is left of the block's weights but its routed experts.
        const Bytes spread = satSub(w, experts_here);
        Bytes given = 0;
        double prev = 0;
        for (size_t k = 0; k < n_dev; ++k) {
            const Bytes share =
                k + 1 == n_dev
                    ? spread - given
                    : static_cast<Bytes>(static_cast<double>(spread) * (cumulative[k] - prev));
            prev = cumulative[k];
            given += share;
            a.devices[k].weights = satAdd(a.devices[k].weights, share);
        }
        w -= spread;
    }
    t.weights = satAdd(t.weights, w);
    if (d < 0 && n_dev > 0) a.spill_bytes = satAdd(a.spill_bytes, satSub(lp.weights, to_devices));
    // KV and recurrent state live with their layer unless KV offload is off
    // (llama_kv_cache and llama_memory_recurrent ctors: offload ? model.dev_layer(il) : CPU).
    Terms& cache = opt.kv_offload ? t : a.host;
    cache.kv_k = satAdd(cache.kv_k, lp.kv_k);
    cache.kv_v = satAdd(cache.kv_v, lp.kv_v);
    cache.recurrent_state = satAdd(cache.recurrent_state, lp.state);
}

// The tensors outside the blocks: the output layer (and a tied head's second copy) on the output
// layer's device, rope factors once per buffer type that holds a block, block-0-numbered tensors
// with block 0, the token embeddings on the CPU.
void placeSharedTensors(Assignment& a, const ModelShape& model, const ContextPrice& price,
                        const std::vector<int>& layer_dev, int out_dev) {
    const size_t n_dev = a.devices.size();
    Terms& out = out_dev >= 0 ? a.devices[out_dev] : a.host;
    // A tied output head is the token embedding loaded a second time for the output layer's
    // device (TENSOR_DUPLICATED in llama_model::load_tensors); on the CPU it is the same tensor,
    // so only that copy is dropped: output_norm (part of output_weights) is still loaded.
    const Bytes output_weights = (out_dev < 0 && model.output_tied_to_embd)
                                     ? satSub(price.output_weights, model.token_embd_bytes)
                                     : price.output_weights;
    // Rope factors (rope_freqs, rope_factors_long/short) are created by every block with
    // TENSOR_DUPLICATED after block 0, so llama_model_loader::create_tensor makes one copy per
    // buffer type that holds a block (ctx_for_buft), not one with the output layer.
    const Bytes rope = std::min(model.rope_factors_all_bytes,
                                satSub(price.other_weights, price.first_block_weights));
    if (rope > 0) {
        std::vector<bool> home(n_dev + 1, false); // devices, then the host
        for (const int d : layer_dev)
            home[d >= 0 ? static_cast<size_t>(d) : n_dev] = true;
        for (size_t k = 0; k <= n_dev; ++k)
            if (home[k]) {
                Terms& t = k < n_dev ? a.devices[k] : a.host;
                t.weights = satAdd(t.weights, rope);
            }
    }
    const Bytes with_output = satSub(satSub(price.other_weights, price.first_block_weights), rope);
    out.weights = satAdd(out.weights, satAdd(output_weights, with_output));
    if (out_dev < 0 && n_dev > 0)
        a.spill_bytes = satAdd(a.spill_bytes, satAdd(output_weights, with_output));
    // Tensors llama.cpp creates with block 0's number (ModelShape::first_block_bytes) go where
    // block 0's do.
    if (price.first_block_weights > 0) {
        const int first_dev = layer_dev.empty() ? out_dev : layer_dev[0];
        Terms& first = first_dev >= 0 ? a.devices[first_dev] : a.host;
        first.weights = satAdd(first.weights, price.first_block_weights);
        if (first_dev < 0 && n_dev > 0)
            a.spill_bytes = satAdd(a.spill_bytes, price.first_block_weights);
    }
    // The input layer (token embeddings) always stays on the CPU (llama_model::load_tensors:
    // dev_input = cpu_dev).
    a.host.weights = satAdd(a.host.weights, price.token_embd);
}

// Compute buffers: one per backend that runs part of the graph; pipeline parallelism adds the
// scheduler's input copies (ContextPrice::pipelineDeviceExtra, pipelineHostCompute).
void priceComputeBuffers(Assignment& a, const ModelShape& model, const ContextPrice& price,
                         const ResolvedOptions& opt, const MemoryBudget& budget,
                         const PlacementChoice& choice, const DeviceLayout& layout, bool single,
                         bool tensor) {
    const size_t n_dev = a.devices.size();
    const bool pp = layout.pipeline;
    const int out_dev = layout.out_dev;
    const bool host_has_layers = layout.host_has_layers;
    const std::vector<bool>& dev_has_layers = layout.dev_has_layers;
    for (size_t d = 0; d < n_dev; ++d) {
        if (single && d > 0) continue; // a device llama.cpp does not use costs nothing
        const bool holds_output = static_cast<int>(d) == out_dev;
        Bytes compute = price.computeFor(dev_has_layers[d], holds_output);
        // One device running the whole replayed graph (full offload, no pipeline copies: -sm
        // tensor's Meta device, or -sm none) holds all its inputs but two, which stay on the CPU:
        // inp_embd, which no node reads, and the token ids the CPU's get_rows reads. Measured on
        // two rpc-servers (tests/validation/rpc, -sm tensor): 27 797 536 B at 4K and 31 991 840 at
        // 8K, the replay less 2 MiB + 2 KiB. Devices a backend prices itself are replayed through
        // the scheduler below instead (its closed form keeps the whole replay as a floor).
        if (!devicePriced(opt, budget) && !pp && !host_has_layers && dev_has_layers[d] &&
            holds_output && price.replays(true, true))
            compute = satSub(compute, satAdd(price.embd_input_row, price.token_rows));
        if (pp)
            compute = satAdd(compute, price.pipelineDeviceExtra(dev_has_layers[d], holds_output));
        a.devices[d].compute = compute;
        a.devices[d].overhead = deviceRuntime(budget.devices[d], opt);
    }
    if (n_dev == 0 && opt.program == Program::Library) {
        // The CPU suite (node-llama-cpp 3.21.1's llama_context, tests/validation) measures this
        // within its tolerance: a whole ubatch of logits, which sits above the graph inputs.
        a.host.compute = price.computeFor(true, true);
    } else if (n_dev == 0) {
        // llama-server reserves a few output rows, so the layer peak decides, and the graph
        // inputs lie under it as in a partial offload: measured with llama-server v0.5.0 on the
        // RPC replica (n_embd 1024, ub 512, -c 4096, FA), CPU only: 26.50 FFN peak + 2 MiB
        // inp_embd + 12 KiB = 28.51 MiB, logged 28.51.
        // A replayed graph (ContextPrice::compute_graph) already holds its inputs: the CPU
        // llama-server buffer is the replay alone (Llama-3.1-8B replica, -c 4096, FA: 120.01 MiB
        // logged by llama-server v0.5.0, replayed 125 841 440 B).
        a.host.compute = price.replays(true, true) ? price.computeFor(true, true)
                                                   : satAdd(price.computeFor(true, true),
                                                            price.hostInputs(1, true, true));
    } else if (host_has_layers || out_dev < 0) {
        a.host.compute = price.replays(host_has_layers, out_dev < 0)
                             ? price.computeFor(true, true)
                             : satAdd(price.computeFor(host_has_layers, out_dev < 0),
                                      price.hostInputs(1, host_has_layers, out_dev < 0));
    } else {
        // Full offload: the CPU gathers the token rows and holds the graph inputs, copied when
        // pipeline parallelism is on.
        a.host.compute =
            satAdd(price.compute_host, price.hostInputs(pp ? kSchedMaxCopies : 1, false, false));
    }
    // Logits are copied out of the graph into a host buffer (llama_context::output_reserve).
    a.host.output = price.output;
    if (devicePriced(opt, budget)) {
        // The Meta device offloads no op (its device interface has no offload_op).
        ResolvedOptions o = opt;
        if (tensor) o.op_offload = false;
        priceDeviceBuffers(a, model, price, o, choice, layout);
    }
    if (tensor)
        spreadTensorParallel(a, model, price, opt,
                             choice.split.empty() ? std::vector<double>{} : choice.split,
                             layout.layer_dev, out_dev);
}

} // namespace

Assignment assign(const ModelShape& model, const ContextPrice& price, const ResolvedOptions& opt,
                  const MemoryBudget& budget, const PlacementChoice& choice) {
    Assignment a;
    const size_t n_dev = budget.devices.size();
    a.devices.assign(n_dev, Terms{});
    // -sm none: llama_model_load_from_file keeps only the main GPU (device 0), so every offloaded
    // layer lands there and the other devices load nothing.
    const bool single = choice.split_mode == SplitMode::None;
    const bool row = choice.split_mode == SplitMode::Row && n_dev > 1;
    // -sm tensor: llama_prepare_model_devices makes one Meta device of every GPU, so every
    // offloaded layer is on it; priced on device 0 as one device would hold it, then spread
    // (spreadTensorParallel).
    const bool tensor = choice.split_mode == SplitMode::Tensor && n_dev > 1;
    const std::vector<double> cumulative =
        single || tensor
            ? std::vector<double>(n_dev, 1.0)
            : cumulativeSplit(choice.split.empty() ? plannedSplit(budget) : choice.split, n_dev);
    const std::uint32_t n_layer_all = model.nLayer();
    std::vector<bool> dev_has_layers(n_dev, false);
    bool host_has_layers = false;
    std::vector<int> layer_dev(n_layer_all, -1);

    for (std::uint32_t il = 0; il < n_layer_all; ++il) {
        // -sm row places layers as -sm layer does (llama_model::load_tensors get_layer_buft_list:
        // the layer's device by the split points), so its KV, routed experts and compute stay on
        // that device (dev_layer); only the rows of its 2-D weight matrices are spread over every
        // device by -ts (make_gpu_buft_list puts the device's split buffer type first; ggml-cuda's
        // split type takes no 3-D expert bank). The same in v0.4.0.
        const int d = layerDevice(il, n_layer_all, choice.ngl, cumulative, opt.ngl_counts_output);
        layer_dev[il] = d;
        if (d < 0) host_has_layers = true;
        placeBlock(a, price.layers[il], il, d, choice, opt, row, cumulative, dev_has_layers);
    }
    const int out_dev =
        layerDevice(n_layer_all, n_layer_all, choice.ngl, cumulative, opt.ngl_counts_output);
    a.output_on_gpu = out_dev >= 0;
    placeSharedTensors(a, model, price, layer_dev, out_dev);
    const bool pp = pipelineParallel(model, opt, budget, choice);
    priceComputeBuffers(a, model, price, opt, budget, choice,
                        {layer_dev, dev_has_layers, host_has_layers, out_dev, pp}, single, tensor);
    for (auto& t : a.devices)
        t.compute = scaledUp(t.compute, opt.device_compute_factor);
    a.host.compute = scaledUp(a.host.compute, opt.host_compute_factor);
    Terms& mtp_home = out_dev >= 0 ? a.devices[out_dev] : a.host;
    mtp_home.compute = satAdd(mtp_home.compute, price.compute_mtp);
    mtp_home.kv_k = satAdd(mtp_home.kv_k, price.mtp_kv_k);
    mtp_home.kv_v = satAdd(mtp_home.kv_v, price.mtp_kv_v);
    // The projector is loaded by libmtmd on the main GPU when there is one.
    (n_dev > 0 ? a.devices[0] : a.host).mmproj = price.mmproj;
    bookDraft(a, price);
    return a;
}

bool fits(const Assignment& a, const MemoryBudget& budget) {
    if (budget.unknown) return false;
    if (budget.uma) {
        // One pool: what llama.cpp calls "host" memory comes out of the same RAM.
        const Bytes need = satAdd(a.devices.empty() ? 0 : a.devices[0].total(), a.host.total());
        return !budget.devices.empty() && toSigned(need) <= budget.devices[0].usable;
    }
    for (size_t d = 0; d < a.devices.size(); ++d)
        if (toSigned(a.devices[d].total()) > budget.devices[d].usable) return false;
    return toSigned(a.host.total()) <= budget.ram_usable;
}

bool devicesFit(const Assignment& a, const MemoryBudget& budget) {
    for (size_t d = 0; d < a.devices.size(); ++d)
        if (toSigned(a.devices[d].total()) > budget.devices[d].usable) return false;
    return true;
}

Terms sumTerms(const Assignment& a) {
    Terms t = a.host;
    for (const auto& d : a.devices)
        t += d;
    return t;
}

std::vector<TermLine> termLines(const Terms& t) {
    std::vector<TermLine> lines;
    auto add = [&](const char* label, Bytes b) {
        if (b > 0) lines.push_back({label, b});
    };
    add("weights", t.weights);
    add("KV cache (K)", t.kv_k);
    add("KV cache (V)", t.kv_v);
    add("recurrent state", t.recurrent_state);
    add("compute buffers (estimate)", t.compute);
    add("output buffer", t.output);
    add("runtime overhead (estimate)", t.overhead);
    add("multimodal projector", t.mmproj);
    add("draft model (-md)", t.draft);
    return lines;
}

SignedBytes deviceOverflow(const Assignment& a, const MemoryBudget& budget) {
    SignedBytes over = 0;
    for (size_t d = 0; d < a.devices.size(); ++d)
        over =
            std::max<SignedBytes>(over, toSigned(a.devices[d].total()) - budget.devices[d].usable);
    return over;
}

} // namespace headroom::detail
