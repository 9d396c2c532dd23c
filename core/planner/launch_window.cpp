// The launch window and posture (Hermes plan_launch / initial_window / fit_to_free_memory over
// priced rungs) and makePlan, which orchestrates pricing, the decision, remedies and the launch.
#include "compute_skeleton.h"
#include "planner.h"
#include "planner/planner_internal.h"
#include "policy/ladder.h"

#include <algorithm>
#include <cmath>

namespace headroom {

BudgetReserve budgetReserve(const PlanOptions& options) {
    return {options.extra_reserve, options.beside_device_bytes, options.beside_host_bytes};
}

namespace detail {

ResolvedOptions resolve(const ModelShape& model, const PlanOptions& o, const HardwareSnapshot& hw,
                        Posture posture) {
    ResolvedOptions r;
    if (o.backend != Backend::Auto)
        r.backend = o.backend;
    else if (hw.gpus.empty())
        r.backend = Backend::Cpu;
    else
        // The first GPU's backend as its profile names it; a name no traits know is priced as
        // CUDA, the backend whose estimates are the largest.
        r.backend = backendFromName(hw.gpus[0].backend).value_or(Backend::Cuda);
    // -fa auto: llama.cpp enables flash attention when the device supports the op for the model's
    // head sizes (llama_context ctor, "auto" resolution); the CPU, CUDA, Metal and Vulkan backends
    // all do for the architectures we price, so auto resolves to on.
    r.flash_attn = o.flash_attn != FlashAttn::Off;
    r.type_k = o.cache_type_k;
    r.type_v = o.cache_type_v;
    r.n_batch = o.n_batch;
    r.n_ubatch = o.n_ubatch;
    r.n_seq = std::max<std::uint32_t>(1, o.n_parallel);
    // An older build's one KV stream for all sequences is what --kv-unified prices
    // (OlderBuildGraph::one_kv_stream).
    r.kv_unified = o.kv_unified || (o.llama_build && olderBuildGraph(*o.llama_build).one_kv_stream);
    r.swa_full = o.swa_full;
    r.voice = o.latency == LatencyProfile::Voice;
    r.mtp = posture != Posture::Plain;
    r.program = o.program;
    r.backend_sampling = o.backend_sampling;
    r.kv_offload = o.kv_offload;
    r.op_offload = o.op_offload;
    // An MTP posture's launch drafts kMtpDraftTokens per step (--spec-draft-n-max, launchConfig),
    // which llama-server reserves output rows for.
    r.n_draft = r.mtp ? kMtpDraftTokens : 0;
    if (o.draft && o.draft->model) {
        // -md: the target verifies n_max drafted tokens per step (server_output_limits), and
        // the draft runs in a context of its own priced beside it.
        r.n_draft = o.draft->n_max;
        r.draft_model = o.draft->model;
        r.draft = std::make_shared<const ResolvedOptions>(
            resolve(*o.draft->model, draftPlanOptions(o), hw, Posture::Plain));
    }
    r.llama_version = o.llama_version;
    r.kq_mask_f32_cast =
        r.flash_attn && o.llama_build && olderBuildGraph(*o.llama_build).kq_mask_f32_cast;
    r.ngl_counts_output = !(o.llama_build && olderBuildGraph(*o.llama_build).ngl_excludes_output);
    // Headroom's MTP launches draft kMtpDraftTokens (--spec-draft-n-max), which is the n_rs_seq
    // llama.cpp then keeps per sequence on a rollback-capable architecture.
    r.n_rs_seq = recurrentSnapshots(llamaProfile(o.llama_version), model.architecture, r.mtp,
                                    kMtpDraftTokens);
    if (r.mtp && !o.ubatch_set) {
        // Hermes postures: lean decodes with llama.cpp's default micro-batch, stacked prefills
        // with a larger one. A -ub the user typed is kept, even when it equals the default.
        r.n_ubatch = posture == Posture::Stacked ? kStackedUbatch : llama::kDefaultUbatch;
        if (posture == Posture::Stacked && !o.batch_set)
            r.n_batch = std::max(r.n_batch, kStackedBatch);
    }
    if (o.mmproj || o.mmproj_bytes) r.mmproj_bytes = o.mmproj_bytes.value_or(model.mmproj_bytes);
    // Placement flags the user typed are priced as given; what their -ot patterns move is found
    // once here (validateOptions has already checked every pattern).
    r.pinned = o.pinned;
    // resolve() runs for every rung and posture: the devices' names only where -ot needs them.
    if (!o.pinned.tensor_overrides.empty()) {
        const auto names = deviceBufferNames(capacityBudget(hw, budgetReserve(o)));
        if (auto moves = tensorMoves(model, o.pinned.tensor_overrides, &names))
            r.pinned_moves = *moves;
    } else {
        r.pinned_moves.assign(model.nLayer(), BlockMoves{});
    }
    // A calibration measured with another backend says nothing about this one.
    if (hw.calibration && hw.calibration->backend == backendName(r.backend)) {
        r.device_compute_factor = appliedFactor(hw.calibration->device_compute_factor);
        r.host_compute_factor = appliedFactor(hw.calibration->host_compute_factor);
        r.device_overhead_bytes = hw.calibration->device_overhead_bytes;
    }
    return r;
}

std::vector<Posture> posturesFor(const ModelShape& model, const PlanOptions& o) {
    // A draft model is the launch's drafter: the MTP head is not used beside it.
    if (headroom::mtpDrafts(model, o.llama_version) && o.mtp != MtpMode::Off && !o.draft)
        return {Posture::Lean, Posture::Stacked};
    return {Posture::Plain};
}

} // namespace detail

bool mtpDrafts(const ModelShape& model, LlamaVersion v) {
    // An external MTP head is its own drafter; the nextn blocks need the build's MTP graph.
    if (model.mtp_head_bytes > 0) return true;
    return model.n_mtp_layers > 0 && llamaProfile(v).buildsMtpGraph(model.architecture);
}

std::uint64_t contextLimit(const ModelShape& model, const PlanOptions& o) {
    const std::uint64_t native = model.n_ctx_train ? model.n_ctx_train : policy::kFloorWindow;
    if (!o.rope_scaling || *o.rope_scaling == RopeScaling::None || !(o.rope_scale > 1))
        return native;
    // llama_context: yarn_orig_ctx 0 means hparams.n_ctx_orig_yarn, which load_hparams reads from
    // rope.scaling.original_context_length and otherwise sets to n_ctx_train. Linear scaling
    // stretches the trained context itself.
    std::uint64_t orig = model.rope_orig_ctx ? model.rope_orig_ctx : native;
    if (*o.rope_scaling == RopeScaling::Yarn && o.yarn_orig_ctx) orig = o.yarn_orig_ctx;
    const double scaled = o.rope_scale * static_cast<double>(orig);
    const std::uint64_t limit =
        scaled >= static_cast<double>(UINT32_MAX) ? UINT32_MAX : static_cast<std::uint64_t>(scaled);
    return std::max(native, limit);
}

namespace {

using detail::gib;
using detail::planRung;
using detail::resolve;
using policy::contextLadder;
using policy::kFloorWindow;

struct PostureResult {
    Posture posture = Posture::Plain;
    std::vector<Rung> rungs; // ladder rungs (+ exact -c), ascending
    Decision initial;        // before a requested window is restored
    Decision decision;
};

Bytes ctxBytes(const Rung& r) {
    return satAdd(r.totals.kv(), r.totals.recurrent_state);
}

// Hermes initial_window over our priced rungs: the largest zero-spill rung from the bottom, else
// the floor held with spill and grown while KV stays under 15 % of VRAM and VRAM + RAM holds.
Decision initialWindow(const std::vector<Rung>& rungs, const std::vector<bool>& on_ladder,
                       const MemoryBudget& budget) {
    Decision d;
    int first = -1;
    for (size_t i = 0; i < rungs.size(); ++i)
        if (on_ladder[i]) {
            first = static_cast<int>(i);
            break;
        }
    if (first < 0) return d;
    if (rungs[first].verdict == Verdict::Refused) {
        d.refused = true;
        d.context = rungs[first].context;
        d.rung_index = first;
        d.reasons.push_back(
            "the " + formatTokens(rungs[first].requested_context) +
            " floor does not fit with these options; the floor is the smallest window planned");
        return d;
    }
    int best = -1;
    for (size_t i = first; i < rungs.size(); ++i) {
        if (!on_ladder[i]) continue;
        if (rungs[i].verdict != Verdict::Resident) break;
        best = static_cast<int>(i);
    }
    if (best >= 0) {
        d.rung_index = best;
        d.reasons.push_back("largest zero-spill rung (" +
                            formatTokens(rungs[best].requested_context) + ")");
    } else {
        const SignedBytes cap = static_cast<SignedBytes>(
            detail::kSpillKvCapFraction *
            static_cast<double>(std::max<SignedBytes>(0, budget.vramUsable())));
        int w = first;
        for (size_t i = first + 1; i < rungs.size(); ++i) {
            if (!on_ladder[i]) continue;
            if (toSigned(ctxBytes(rungs[i])) > cap || rungs[i].verdict == Verdict::Refused) break;
            w = static_cast<int>(i);
        }
        d.rung_index = w;
        d.reasons.push_back("floor held at " + formatTokens(rungs[first].requested_context) +
                            (w != first
                                 ? " and grown to " + formatTokens(rungs[w].requested_context)
                                 : std::string()) +
                            "; weights spill (deliberate price of the guarantee)");
    }
    const Rung& r = rungs[d.rung_index];
    d.context = r.context;
    d.spilled = r.verdict == Verdict::Spilled;
    d.spill_bytes = r.placement.spill_bytes;
    d.kv_on_gpu = r.placement.kv_offload && !budget.devices.empty();
    return d;
}

int findRung(const std::vector<Rung>& rungs, std::uint32_t requested) {
    for (size_t i = 0; i < rungs.size(); ++i)
        if (rungs[i].requested_context == requested) return static_cast<int>(i);
    return -1;
}

// What a plan with a draft model says about it beside the priced terms.
void addDraftNotes(Plan& plan, const ModelShape& model, const PlanOptions& o) {
    const DraftModel& d = *o.draft;
    const ModelShape& m = *d.model;
    plan.notes.push_back(
        "draft model " + (m.name.empty() ? m.id : m.name) +
        " (-md, --spec-type draft-simple): a llama_context of its own at the target's n_ctx, " +
        std::string(ggmlTypeName(d.cache_type_k)) + "/" +
        std::string(ggmlTypeName(d.cache_type_v)) +
        " KV cache (-ctkd/-ctvd), its layers placed by -ngld and the target's -ts and -sm "
        "(common_base_params_to_speculative); llama.cpp also compares the two vocabularies' "
        "type, BOS/EOS and token texts at load, Headroom only their size");
    // tools/server/server-context.cpp: n_outputs_max = min(n_batch, np x (1 + n_max)); the
    // output buffer is reserved for np rows at load and grows to that at the first verify batch
    // (llama_context::output_reserve).
    const std::uint64_t np = std::max<std::uint32_t>(1, o.n_parallel);
    const std::uint64_t rows = std::min<std::uint64_t>(o.n_batch, np * (1 + d.n_max));
    if (rows > np)
        plan.notes.push_back(
            "while it verifies drafts llama-server grows the target's output buffer from " +
            std::to_string(np) + " to " + std::to_string(rows) +
            " rows of logits: " + formatBytes(satMul(satMul(model.n_vocab, 4), rows - np)) +
            " more in system RAM than the load figures above");
    if (model.n_mtp_layers > 0 && o.mtp != MtpMode::Off)
        plan.notes.push_back("the model's MTP head is not used: the draft model drafts");
}

} // namespace

namespace {

// -sm tensor as llama.cpp v0.5.0 allows it, and as far as Headroom prices it.
Result<bool> tensorParallelPriced(const ModelShape& model, const PlanOptions& o) {
    auto bad = [](std::string m, std::string d = {}) {
        return makeError(ErrorCode::InvalidArgument, std::move(m), std::move(d));
    };
    if (o.llama_version == LlamaVersion::V0_4_0)
        return bad("-sm tensor is llama.cpp v0.5.0's tensor parallelism; v0.4.0 has no such mode",
                   "use --llama-version v0.5.0, or -sm layer");
    // llama_init_from_model: "SPLIT_MODE_TENSOR requires flash_attn to be enabled" (auto turns it
    // on).
    if (o.flash_attn == FlashAttn::Off)
        return bad("-sm tensor requires flash attention (llama.cpp refuses -fa off with it)",
                   "use -fa on or auto");
    // llm_arch_supports_sm_tensor (src/llama-arch.cpp): the architectures llama_model's
    // constructor refuses ("LLAMA_SPLIT_MODE_TENSOR not implemented for architecture").
    static constexpr std::string_view kRefused[] = {
        "grok",          "mpt",         "plamo2",     "minicpm3",   "gemma3n",
        "mamba",         "mamba2",      "jamba",      "falcon-h1",  "olmo2",
        "olmoe",         "deepseek2",   "deepseek32", "hy_v4",      "dots3note",
        "glm-dsa",       "bitnet",      "t5",         "nemotron_h", "nemotron_h_moe",
        "granitehybrid", "minimax-01",  "minimax-m2", "minimax-m3", "mistral4",
        "kimi-linear",   "bailingmoe3", "kimi-k3",    "qwen3tts",   "qwen4exp"};
    for (std::string_view a : kRefused)
        if (model.architecture == a)
            return bad("llama.cpp v0.5.0 has no -sm tensor for architecture '" +
                           model.architecture + "'",
                       "use -sm layer or row");
    // What the planner splits: attention and FFN blocks. Recurrent state, MLA and tensor
    // overrides under tensor parallelism are not priced, so refused rather than guessed.
    for (const LayerShape& l : model.layers)
        if (l.isRecurrent() || l.isMla() || l.recurrent_r > 0 || l.recurrent_s > 0)
            return bad("-sm tensor is not priced for '" + model.architecture +
                           "': its recurrent or MLA blocks split in ways Headroom does not model",
                       "use -sm layer or row");
    if (!o.pinned.tensor_overrides.empty() || o.pinned.cpu_moe || o.pinned.n_cpu_moe)
        return bad("-sm tensor with -ot, --cpu-moe or --n-cpu-moe is not priced",
                   "give the placement with -ngl alone under -sm tensor");
    return true;
}

} // namespace

Result<bool> validateOptions(const ModelShape& model, const PlanOptions& o) {
    auto bad = [](std::string m, std::string d = {}) {
        return makeError(ErrorCode::InvalidArgument, std::move(m), std::move(d));
    };
    if (model.layers.empty()) return bad("model '" + model.id + "' has no layers to price");
    if (o.n_ubatch == 0 || o.n_batch == 0)
        return bad("--batch-size and --ubatch-size must be at least 1");
    if (o.n_parallel == 0 || o.n_parallel > 256)
        return bad("--parallel must be between 1 and 256 (llama.cpp's LLAMA_MAX_SEQ)");
    if (o.context && *o.context > 0 && *o.context < 256)
        return bad("--ctx-size must be 0 (native) or at least 256");
    // A set's other members (planModelSet): at most one figure per device llama.cpp can use, each
    // a plausible size (budgets stay far from wrapping).
    if (o.beside_device_bytes.size() > kMaxDevices)
        return bad("the other models' memory names " +
                   std::to_string(o.beside_device_bytes.size()) +
                   " devices, more than llama.cpp's " + std::to_string(kMaxDevices));
    if (o.beside_host_bytes > kMaxPlausibleBytes ||
        std::any_of(o.beside_device_bytes.begin(), o.beside_device_bytes.end(),
                    [](Bytes b) { return b > kMaxPlausibleBytes; }))
        return bad("the other models' memory is not a plausible size");
    // llama_init_from_model: "V cache quantization requires flash_attn".
    if (isQuantizedCacheType(o.cache_type_v) && o.flash_attn == FlashAttn::Off)
        return bad("a quantized V cache (-ctv " + std::string(ggmlTypeName(o.cache_type_v)) +
                       ") requires flash attention",
                   "use -fa on (or auto), or -ctv f16");
    const bool mla = std::any_of(model.layers.begin(), model.layers.end(),
                                 [](const LayerShape& l) { return l.isMla(); });
    if (mla && o.cache_type_k != o.cache_type_v)
        return bad("MLA models (" + model.architecture + ") need the same K and V cache type",
                   "give -ctk and -ctv the same value");
    // The user's placement: what llama.cpp would reject (more -ts entries than devices is a hard
    // error in llama_model_load; an -ot pattern must compile and name a buffer type).
    if (auto m = detail::tensorMoves(model, o.pinned.tensor_overrides); !m) return m.error();
    if (!std::isfinite(o.rope_scale) || o.rope_scale < 0 || o.rope_scale > 1024)
        return bad("--rope-scale must be a factor between 0 and 1024",
                   "e.g. --rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768");
    if (o.pinned.cpu_moe && o.pinned.n_cpu_moe)
        return bad("give --cpu-moe or --n-cpu-moe, not both");
    if (o.pinned.split_mode == SplitMode::Tensor)
        if (auto ok = tensorParallelPriced(model, o); !ok) return ok.error();
    if (o.draft)
        if (auto ok = detail::validateDraft(model, o); !ok) return ok.error();
    return true;
}

namespace {

// What this machine makes of the placement flags: -ts covers every device (RPC ones first, as
// llama.cpp counts them), and -ot names this machine's buffer types (CUDA0, Vulkan1, …).
Result<bool> checkPlacementOnMachine(const ModelShape& model, const HardwareSnapshot& hw,
                                     const PlanOptions& options) {
    const size_t n_devices = clusterDevices(hw).size();
    if (options.pinned.tensor_split.size() > std::max<size_t>(1, n_devices))
        return makeError(
            ErrorCode::InvalidArgument,
            "-ts/--tensor-split has " + std::to_string(options.pinned.tensor_split.size()) +
                " proportions but the machine has " + std::to_string(n_devices) + " GPU(s)",
            "give one proportion per GPU, e.g. -ts 3,1 for two");
    const auto device_names = detail::deviceBufferNames(capacityBudget(hw, budgetReserve(options)));
    if (auto m = detail::tensorMoves(model, options.pinned.tensor_overrides, &device_names); !m)
        return m.error();
    return true;
}

// What the plan rests on for this model: a RoPE extension, an unknown trained context, an
// architecture priced conservatively, how the compute buffer is priced, the calibration.
void addModelNotes(Plan& plan, const ModelShape& model, const PlanOptions& options,
                   const HardwareSnapshot& hw, std::uint64_t native) {
    if (options.llama_build) {
        const std::string build = "llama.cpp build " + std::to_string(*options.llama_build);
        const std::string version = llamaVersionName(options.llama_version);
        const OlderBuildGraph older = olderBuildGraph(*options.llama_build);
        std::vector<std::string> priced;
        if (options.flash_attn != FlashAttn::Off && older.kq_mask_f32_cast)
            priced.push_back("its F32 KQ mask and the F16 cast flash attention reads (before "
                             "llama.cpp PR #23764, tags b9341-b9518)");
        if (older.ngl_excludes_output && options.pinned.gpu_layers &&
            options.pinned.gpu_layers->kind == GpuLayers::Kind::Count &&
            options.pinned.gpu_layers->count <= model.nLayer())
            priced.push_back("-ngl N as N repeating layers with the output on the CPU (up to "
                             "b4783 at least; v0.5.0 counts the output among the N)");
        if (options.n_parallel > 1 && !options.kv_unified && older.one_kv_stream)
            priced.push_back("one KV stream shared by the " + std::to_string(options.n_parallel) +
                             " sequences, as -kvu keeps them (before b5913, PR #14363)");
        std::string said;
        for (const std::string& p : priced)
            said += (said.empty() ? "" : "; ") + p;
        if (!priced.empty())
            plan.notes.push_back(build + ": priced with " + said +
                                 "; the rest, and the launch line, follow " + version);
        else
            plan.notes.push_back(build + ": no compute-graph difference from " + version +
                                 " that Headroom knows at these settings; priced as " + version);
    }
    if (native > (model.n_ctx_train ? model.n_ctx_train : kFloorWindow))
        plan.notes.push_back("--rope-scaling " +
                             std::string(ropeScalingName(*options.rope_scaling)) +
                             " extends the usable context to " + formatTokens(native) +
                             " (llama.cpp scales RoPE; quality past the trained context is what "
                             "the model card documents, not measured here)");
    if (!model.n_ctx_train)
        plan.notes.push_back("trained context unknown: the 64K floor is used as native");
    if (model.conservative)
        plan.notes.push_back("architecture '" + model.architecture +
                             "' is not modelled in detail: every layer is priced as full attention "
                             "(an over-estimate)");
    plan.compute_replayed = hasComputeSkeleton(model);
    plan.compute_margin_pct = plan.compute_replayed ? 0 : kComputeEstimateMarginPct;
    plan.notes.push_back(
        plan.compute_replayed
            ? "the compute buffer replays llama.cpp's reserved graph (exact on the CPU backend); "
              "runtime overhead and speeds are estimates; weights, KV cache, recurrent state and "
              "output buffer follow llama.cpp's allocation exactly"
            : "the compute buffer is a closed-form estimate (no graph skeleton for '" +
                  model.architecture + "' with these sizes) plus a " +
                  std::to_string(plan.compute_margin_pct) +
                  " % margin, enough to cover its worst error on the validated settings "
                  "(-17.7 %); runtime overhead and speeds are estimates; weights, KV cache, "
                  "recurrent state and output buffer follow llama.cpp's allocation exactly");
    if (hw.calibration) plan.notes.push_back(calibrationNote(*hw.calibration));
}

// The contexts priced: the ladder to `native`, the exact -c (`exact`, -c 0 being llama.cpp's
// n_ctx_train whatever RoPE scaling says) and a requested window, ascending.
std::vector<std::uint32_t> rungContexts(const ModelShape& model, const PlanOptions& options,
                                        std::uint64_t native, std::optional<std::uint32_t>& exact) {
    std::vector<std::uint32_t> contexts = contextLadder(native);
    if (options.context) {
        exact = *options.context == 0
                    ? static_cast<std::uint32_t>(std::min<std::uint64_t>(
                          model.n_ctx_train ? model.n_ctx_train : kFloorWindow, UINT32_MAX))
                    : *options.context;
        if (std::find(contexts.begin(), contexts.end(), *exact) == contexts.end())
            contexts.push_back(*exact);
    }
    if (options.requested_window &&
        std::find(contexts.begin(), contexts.end(), *options.requested_window) == contexts.end())
        contexts.push_back(*options.requested_window);
    std::sort(contexts.begin(), contexts.end());
    return contexts;
}

// Every rung priced in each posture of the plan, and the choice between postures (Hermes
// plan_launch).
struct PostureSearch {
    const ModelShape& model;
    const HardwareSnapshot& hw;
    const PlanOptions& options;
    const std::vector<std::uint32_t>& contexts;
    const std::vector<std::uint32_t>& ladder;
    std::uint64_t native;
    bool mtp;
    Plan& plan; // the backend and flash attention the pricing resolved

    // `restore`: apply the requested-window restore (Hermes plan_launch with a requested
    // window); the live re-plan is a fresh plan_launch without one (fit_to_free_memory).
    PostureResult price(Posture p, const MemoryBudget& budget, bool restore) const {
        PostureResult pr;
        pr.posture = p;
        const ResolvedOptions ro = resolve(model, options, hw, p);
        plan.backend = ro.backend;
        plan.flash_attn = ro.flash_attn;
        std::vector<bool> on_ladder;
        for (std::uint32_t c : contexts) {
            Rung r = planRung(model, ro, budget, hw, c);
            r.posture = p;
            r.on_ladder = std::find(ladder.begin(), ladder.end(), c) != ladder.end();
            detail::gateContext(r, native, true);
            on_ladder.push_back(r.on_ladder);
            pr.rungs.push_back(std::move(r));
        }
        pr.initial = initialWindow(pr.rungs, on_ladder, budget);
        pr.decision = pr.initial;
        // A window granted earlier is restored when it still passes physics (Hermes plan_launch).
        if (restore && options.requested_window && !pr.decision.refused) {
            const std::uint32_t target = static_cast<std::uint32_t>(
                std::min<std::uint64_t>(*options.requested_window, native));
            const int ti = findRung(pr.rungs, target);
            if (ti >= 0 && pr.rungs[ti].context > pr.decision.context &&
                pr.rungs[ti].verdict != Verdict::Refused) {
                const Rung& r = pr.rungs[ti];
                pr.decision.rung_index = ti;
                pr.decision.context = r.context;
                pr.decision.spilled = r.verdict == Verdict::Spilled;
                pr.decision.spill_bytes = r.placement.spill_bytes;
                pr.decision.reasons = {"grown window restored (" + formatTokens(target) + ")"};
            }
        }
        pr.decision.posture = p;
        pr.initial.posture = p;
        return pr;
    }

    std::vector<PostureResult> priceAll(const std::vector<Posture>& postures,
                                        const MemoryBudget& budget, bool restore) const {
        std::vector<PostureResult> out;
        out.reserve(postures.size());
        for (Posture p : postures)
            out.push_back(price(p, budget, restore));
        return out;
    }

    // Stacked only when it does not cost window or spill.
    size_t choose(const std::vector<PostureResult>& rs, bool restore) const {
        if (rs.size() != 2) return 0;
        const PostureResult& lean = rs[0];
        const PostureResult& stacked = rs[1];
        const Decision& L = lean.decision;
        const Decision& S = stacked.decision;
        if (S.refused) return 0;
        if (L.refused) return 1;
        if (S.context < L.context) return 0;
        if (!S.spilled) return 1;
        if (restore && options.requested_window && !stacked.initial.spilled &&
            stacked.initial.context >= lean.initial.context &&
            S.context > stacked.initial.context && L.spilled)
            return 1;
        return 0;
    }

    std::string reason(const PostureResult& pr) const {
        return mtp ? (pr.posture == Posture::Stacked ? "stacked" : "lean") +
                         std::string(" MTP posture (ub ") +
                         std::to_string(pr.rungs.empty() ? llama::kDefaultUbatch
                                                         : pr.rungs.front().n_ubatch) +
                         ")"
                   : std::string("no MTP head: one context");
    }
};

// An explicit -c is the user's choice: the decision is that rung, priced honestly.
void holdExactContext(Decision& decision, const std::vector<Rung>& rungs, std::uint32_t exact) {
    const int ei = findRung(rungs, exact);
    const Rung& r = rungs[ei];
    decision.rung_index = ei;
    decision.context = r.context;
    decision.refused = r.verdict == Verdict::Refused;
    decision.spilled = r.verdict == Verdict::Spilled;
    decision.spill_bytes = r.placement.spill_bytes;
    decision.reasons.push_back("context set with -c " + std::to_string(exact));
}

// Narrow to live free memory (Hermes fit_to_free_memory): a fresh plan_launch on the live budget
// — no requested-window restore, and the posture chosen again — and only the window moves, only
// down, never below the floor, and never onto a spilled placement.
void narrowToLiveMemory(const PostureSearch& search, const std::vector<Posture>& postures,
                        const ResolvedOptions& fixed_terms,
                        const std::vector<PostureResult>& results, size_t& chosen,
                        Decision& decision) {
    MemoryBudget live = liveBudget(search.hw, budgetReserve(search.options));
    std::vector<std::string> live_notes; // the capacity budget's notes already say it
    detail::keepRuntimeRoom(live, fixed_terms, live_notes);
    const std::vector<PostureResult> now = search.priceAll(postures, live, false);
    const size_t now_chosen = search.choose(now, false);
    const Decision& fresh = now[now_chosen].decision;
    if (!fresh.refused && !fresh.spilled) {
        if (fresh.context < decision.context) {
            const std::string was =
                formatTokens(results[chosen].rungs[decision.rung_index].requested_context);
            // Both postures price the same contexts, so the live rung's index is valid in the
            // capacity rungs of its posture.
            chosen = now_chosen;
            decision.posture = results[chosen].posture;
            decision.reasons.front() = search.reason(results[chosen]);
            decision.rung_index = fresh.rung_index;
            decision.context = fresh.context;
            decision.reasons.push_back(
                formatTokens(results[chosen].rungs[decision.rung_index].requested_context) +
                " fits beside other programs' GPU memory (" + was + " would not)");
        } else if (now_chosen != chosen &&
                   now[chosen].rungs[decision.rung_index].verdict != Verdict::Resident &&
                   now[now_chosen].rungs[decision.rung_index].verdict == Verdict::Resident) {
            // The same window, but the live pricing of the capacity plan's posture spills or
            // refuses it while the fresh plan's posture runs it resident: the posture that fits
            // is the safe answer (both price the same contexts, so the index holds).
            const Rung& kept = now[chosen].rungs[decision.rung_index];
            const std::string was = postureName(results[chosen].posture);
            const std::string how =
                kept.verdict == Verdict::Spilled ? " would spill" : " is refused";
            chosen = now_chosen;
            decision.posture = results[chosen].posture;
            decision.reasons.front() = search.reason(results[chosen]);
            decision.reasons.push_back(
                formatTokens(results[chosen].rungs[decision.rung_index].requested_context) +
                " fits beside other programs' GPU memory in the " +
                postureName(results[chosen].posture) + " posture (" + was + how + " there now)");
        }
        return;
    }
    // The floor, resident, in the capacity plan's posture: a live reading can still count memory
    // an outgoing server is about to free, and spilling on it would pin a fitting model to the
    // CPU.
    const std::vector<Rung>& rungs = results[chosen].rungs;
    int first = 0;
    while (first < static_cast<int>(rungs.size()) && !rungs[first].on_ladder)
        ++first;
    if (first < static_cast<int>(rungs.size()) && decision.rung_index > first) {
        decision.rung_index = first;
        decision.context = rungs[first].context;
        decision.reasons.push_back("floor held at " + formatTokens(rungs[first].requested_context) +
                                   "; other programs hold most of the GPU memory");
    }
}

// A refused launch window is the floor of what the machine can do — except a pinned placement
// that overcommits a GPU (another placement may fit), a GPU too small for llama.cpp's own
// allocations (no context or quant changes that) and a context beyond the trained one, which
// keep their own code, name and numbers.
void markPhysicsFloor(Rung& r) {
    if (!r.refusal || r.refusal->code == RefusalCode::ContextTooLong ||
        r.refusal->code == RefusalCode::DeviceOvercommitted ||
        r.refusal->code == RefusalCode::DeviceTooSmall)
        return;
    r.refusal->code = RefusalCode::PhysicsFloor;
    r.refusal->reasons.front().code = RefusalCode::PhysicsFloor;
    r.refusal->message = "needs " + formatBytes(r.refusal->needed_bytes) + " at the " +
                         formatTokens(r.requested_context) + " floor but only " +
                         formatSignedBytes(r.refusal->available_bytes) + " of " +
                         budgetName(r.refusal->budget) +
                         " is usable (see the remedies: a smaller quant or a smaller KV cache)";
    r.refusal->reasons.front().message = r.refusal->message;
}

// Every byte Headroom proves was measured on llama.cpp's CPU and Vulkan backends (and RPC); no
// CUDA, ROCm, Metal or SYCL device was available, so there the weights and KV follow the loader
// (measured terms on every backend), the compute buffers follow the same graph and allocator with
// that backend's traits (derived: checked only against published logs), and the runtime overhead
// is an estimate. Said until `verify` has measured this machine.
void addBackendNote(Plan& plan, const HardwareSnapshot& hw) {
    if (traitsOf(plan.backend).measured ||
        (hw.calibration && hw.calibration->backend == backendName(plan.backend)))
        return;
    plan.notes.push_back(
        std::string(traitsOf(plan.backend).display) +
        ": not measured on this backend; weights and KV are placed as llama.cpp's loader "
        "places them, compute buffers are derived from the scheduler's graph with this "
        "backend's buffer types and op offload (checked against published logs, "
        "docs/accuracy-gpu.md), and its runtime overhead (" +
        formatBytes(detail::runtimeOverheadFor(plan.backend)) +
        " per device: " + std::string(traitsOf(plan.backend).overhead_basis) +
        ") is an estimate; `headroom-cli verify` measures both on this machine");
}

} // namespace

Result<Plan> makePlan(const ModelShape& model, const HardwareSnapshot& hw,
                      const PlanOptions& options) {
    if (auto v = validateOptions(model, options); !v) return v.error();
    if (auto v = validateSnapshot(hw); !v) return v.error();
    if (auto v = checkPlacementOnMachine(model, hw, options); !v) return v.error();

    Plan plan;
    plan.model = model;
    plan.hardware = hw;
    plan.options = options;
    plan.budget = capacityBudget(hw, budgetReserve(options));
    // The backend and projector do not depend on the posture: one resolution serves both.
    const ResolvedOptions fixed_terms = resolve(model, options, hw, Posture::Plain);
    const size_t notes_before = plan.notes.size();
    detail::keepRuntimeRoom(plan.budget, fixed_terms, plan.notes);
    // A card left only its runtime holds no layer, but with op offload llama.cpp would still run
    // every host weight's product of 32 tokens or more there and copy the weight into a compute
    // buffer on it (ggml_backend_sched_backend_id_from_cur; 742 MiB on a published -ngl 0 CUDA
    // load): the plan launches with --no-op-offload instead, priced and written.
    if (plan.notes.size() > notes_before && options.op_offload) {
        PlanOptions off = options;
        off.op_offload = false;
        auto p = makePlan(model, hw, off);
        if (p)
            p->notes.push_back("--no-op-offload: the GPU keeps only llama.cpp's runtime, so the "
                               "ops on host weights stay on the CPU (with op offload they would "
                               "need a compute buffer on the GPU as well)");
        return p;
    }
    // The ladder runs to the usable context: the trained one, or further under RoPE scaling.
    const std::uint64_t native = contextLimit(model, options);
    addModelNotes(plan, model, options, hw, native);
    std::optional<std::uint32_t> exact;
    const std::vector<std::uint32_t> contexts = rungContexts(model, options, native, exact);
    const std::vector<std::uint32_t> lad = contextLadder(native);

    const bool mtp =
        mtpDrafts(model, options.llama_version) && options.mtp != MtpMode::Off && !options.draft;
    if (options.draft) addDraftNotes(plan, model, options);
    plan.mtp = mtp;
    if (model.n_mtp_layers > 0 && !mtp && options.mtp != MtpMode::Off)
        plan.notes.push_back(std::to_string(model.n_mtp_layers) +
                             " MTP (nextn) block(s), but llama.cpp " +
                             llamaVersionName(options.llama_version) +
                             " builds no MTP draft graph for " + model.architecture +
                             ": planned without drafting (--spec-type draft-mtp would not run)");
    const std::vector<Posture> postures = detail::posturesFor(model, options);

    const PostureSearch search{model, hw, options, contexts, lad, native, mtp, plan};
    std::vector<PostureResult> results = search.priceAll(postures, plan.budget, true);
    size_t chosen = search.choose(results, true);
    Decision decision = results[chosen].decision;
    decision.reasons.insert(decision.reasons.begin(), search.reason(results[chosen]));
    if (exact)
        holdExactContext(decision, results[chosen].rungs, *exact);
    else if (!decision.refused && !decision.spilled && hasLiveFigures(hw))
        narrowToLiveMemory(search, postures, fixed_terms, results, chosen, decision);

    PostureResult& pick = results[chosen];
    if (decision.refused && decision.rung_index >= 0 && !exact)
        markPhysicsFloor(pick.rungs[decision.rung_index]);
    for (auto& r : pick.rungs) {
        if (r.verdict == Verdict::Resident || !r.refusal) {
            if (r.verdict != Verdict::Spilled) continue;
        }
        auto remedies = detail::remediesFor(model, hw, plan.budget, options, pick.rungs, r);
        if (r.refusal)
            r.refusal->remedies = std::move(remedies);
        else
            r.spill_remedies = std::move(remedies);
    }
    addBackendNote(plan, hw);
    plan.rungs = std::move(pick.rungs);
    if (results.size() == 2) plan.other_posture_rungs = std::move(results[1 - chosen].rungs);
    plan.decision = decision;
    if (decision.rung_index >= 0 && !decision.refused) {
        auto launch = launchFor(plan, decision.rung_index);
        if (launch) plan.launch = *launch;
    }
    plan.growth = detail::sessionGrowth(plan);
    return plan;
}

} // namespace headroom
