// Internals of the planner shared by its files (core/planner/*.cpp) and its tests. One job per
// file: assign.cpp puts a priced context on devices, placement_search.cpp finds the placement
// (or prices the user's pinned one, pinned_placement.cpp), rung.cpp prices one rung,
// remedies.cpp proposes and re-prices changes, launch_window.cpp chooses window and posture
// (makePlan), launch_config.cpp turns a rung into the llama-server launch.
#pragma once

#include "hardware.h"
#include "plan.h"
#include "pricing.h"

#include <optional>
#include <string>
#include <vector>

namespace headroom::detail {

// Runtime memory a backend takes before any buffer (BackendTraits::runtime_overhead, an
// estimate with its basis in core/backend/).
inline Bytes runtimeOverheadFor(Backend b) {
    return traitsOf(b).runtime_overhead;
}

// Hermes' bound on the KV a spilled launch may grow into: 15 % of usable VRAM, so that a model
// already paying to stream weights does not also push its context out. Not a knob.
inline constexpr double kSpillKvCapFraction = 0.15;

// Hermes' MTP postures: lean decodes with llama.cpp's default micro-batch; stacked prefills with
// this micro-batch and at least this logical batch. Not knobs.
inline constexpr std::uint32_t kStackedUbatch = 2048;
inline constexpr std::uint32_t kStackedBatch = 4096;
// Tokens the MTP head drafts per step in the launches Headroom writes (--spec-draft-n-max).
inline constexpr std::uint32_t kMtpDraftTokens = 3;

struct PlacementChoice {
    std::uint32_t ngl = 0;         // llama.cpp -ngl (output layer counts as one)
    std::uint32_t n_cpu_moe = 0;   // experts of blocks [0, n) stay in host memory
    std::vector<bool> ffn_host;    // per block: dense FFN kept in host memory (planner's -ot)
    std::vector<BlockMoves> moves; // per block: what the user's -ot patterns move to the CPU
    std::vector<double> split;     // -ts proportions per device; empty = plannedSplit(budget)
    SplitMode split_mode = SplitMode::Layer;
};

struct Assignment {
    std::vector<Terms> devices;
    Terms host;
    bool output_on_gpu = false;
    Bytes spill_bytes = 0; // weights in host memory that a full offload would put on a GPU
};

// The split Headroom plans over several GPUs and pins with -ts: each device's usable budget in
// whole MiB (llama.cpp's default follows free memory at start-up, which is not what was planned).
std::vector<double> plannedSplit(const MemoryBudget& budget);
// Cumulative, normalised split points (llama_model::load_tensors); equal shares when all are 0.
std::vector<double> cumulativeSplit(const std::vector<double>& split, size_t n_dev);
// Which device llama.cpp gives layer `il` (the output layer is il = n_layer_all); -1 = CPU.
// `ngl_counts_output` false: an older build's -ngl (OlderBuildGraph::ngl_excludes_output).
int layerDevice(std::uint32_t il, std::uint32_t n_layer_all, std::uint32_t ngl,
                const std::vector<double>& cumulative, bool ngl_counts_output = true);

// Whether llama.cpp turns on pipeline parallelism for this placement (see assign.cpp).
bool pipelineParallel(const ModelShape& model, const ResolvedOptions& opt,
                      const MemoryBudget& budget, const PlacementChoice& choice);
Assignment assign(const ModelShape& model, const ContextPrice& price, const ResolvedOptions& opt,
                  const MemoryBudget& budget, const PlacementChoice& choice);
// Where assign() put each block and the output, for the backend-specific passes after it.
// -sm tensor: each device's share of ne elements split at `granularity` by the proportions `ts`
// (empty or all zero: equal), the chunks rotated by `rotation` (llama_meta_device_get_split_state).
std::vector<std::int64_t> tensorShares(std::int64_t ne, std::int64_t granularity,
                                       const std::vector<double>& ts, std::size_t n,
                                       std::size_t rotation);
// Spreads what assign() priced on device 0 for the Meta-placed layers over every device the way
// llama.cpp v0.5.0's tensor parallelism allocates it: split matrices and KV by shares, everything
// else mirrored, the whole compute buffer on each device, and the all-reduce scratch.
void spreadTensorParallel(Assignment& a, const ModelShape& model, const ContextPrice& price,
                          const ResolvedOptions& opt, const std::vector<double>& ts,
                          const std::vector<int>& layer_dev, int out_dev);

struct DeviceLayout {
    std::vector<int> layer_dev;       // per block: device index, -1 = host
    std::vector<bool> dev_has_layers; // per device
    bool host_has_layers = false;
    int out_dev = -1; // the output layer's device, -1 = host
    bool pipeline = false;
};
// Whether the devices run a GPU backend of llama.cpp's (CUDA, ROCm, Metal, Vulkan, SYCL: the
// plan's backend, BackendTraits::gpu), none over RPC.
bool devicePriced(const ResolvedOptions& opt, const MemoryBudget& budget);
// The backend's compute buffers from the scheduler's replay (op offload of host weights, split
// inputs, chunked and pinned buffer types, the backend's reorder), or its closed form
// (backend_buffers.cpp), applied to what assign() priced the CPU backend's way.
void priceDeviceBuffers(Assignment& a, const ModelShape& model, const ContextPrice& price,
                        const ResolvedOptions& opt, const PlacementChoice& choice,
                        const DeviceLayout& layout);
// What llama.cpp allocates on device `d` whatever the placement: its runtime (CUDA or Vulkan
// context, an RPC server's own), and on the main GPU (device 0) the multimodal projector.
Bytes fixedDeviceBytes(const MemoryBudget& budget, size_t d, const ResolvedOptions& opt);
// A GPU no larger than its planning margin (2 GiB, or 9 % of the card) still runs llama.cpp with
// every layer in system RAM (-ngl 0), its own context on the card: llama_context::llama_context
// (llama.cpp v0.5.0 src/llama-context.cpp) initialises a backend for every device in
// model.devices, whatever -ngl puts there. Such a card's margin gives up
// what fixedDeviceBytes() needs, where the card (less any --reserve) has that much, and nothing
// else fits there; a card that has not even that keeps its budget and is refused as too small.
// One note per device the rule touched is appended to `notes`.
void keepRuntimeRoom(MemoryBudget& budget, const ResolvedOptions& opt,
                     std::vector<std::string>& notes);
bool fits(const Assignment& a, const MemoryBudget& budget);
bool devicesFit(const Assignment& a, const MemoryBudget& budget);
SignedBytes deviceOverflow(const Assignment& a, const MemoryBudget& budget);
Terms sumTerms(const Assignment& a);
std::vector<TermLine> termLines(const Terms& t);

// Placement search (placement_search.cpp): the smallest move off the GPUs that fits — --n-cpu-moe
// for MoE, FFNs of recurrent blocks for hybrids, else fewer layers. Returns whether the devices
// fit; `choice` and `a` hold the placement found.
bool searchPlacement(const ModelShape& model, const ContextPrice& price, const ResolvedOptions& opt,
                     const MemoryBudget& budget, PlacementChoice& choice, Assignment& a);

// The same search over the layer count only, every other part of `choice` kept (-ngl auto beside
// the user's other placement flags).
bool searchLayerCount(const ModelShape& model, const ContextPrice& price,
                      const ResolvedOptions& opt, const MemoryBudget& budget,
                      PlacementChoice& choice, Assignment& a);

// The user's pinned placement as a choice (pinned_placement.cpp); `-ngl auto` among other pins is
// searched over the layer count only.
PlacementChoice pinnedChoice(const ModelShape& model, const ResolvedOptions& opt,
                             const MemoryBudget& budget);
// What each block's tensors matched by the -ot patterns are (tensor names as llama.cpp's loader
// names them, built from the shape), and where each goes: the CPU, or a device by its buffer
// type's name (deviceBufferNames). `devices` null checks only that each pattern is a regex and
// each target looks like a buffer type (CPU, CUDA0, ROCm1, Vulkan0, MTL0, SYCL0).
Result<std::vector<BlockMoves>> tensorMoves(const ModelShape& model,
                                            const std::vector<TensorOverride>& overrides,
                                            const std::vector<std::string>* devices = nullptr);
// The name llama.cpp gives each device's default buffer type, in the budget's order: the
// backend's prefix and its index among that backend's devices ("CUDA0", "CUDA1", "Vulkan0").
std::vector<std::string> deviceBufferNames(const MemoryBudget& budget);

// Prices and places one context: verdict, per-device bytes, placement, refusal (without remedies).
// `detail` = false prices and places only (no speed, KV-spill or expert-split analysis, no
// messages): what re-pricing a remedy needs, several times faster.
Rung planRung(const ModelShape& model, const ResolvedOptions& opt, const MemoryBudget& budget,
              const HardwareSnapshot& hw, std::uint64_t requested_ctx, bool detail = true);

// The trained-context gate (contextLimit()): a rung asking for more than `limit` tokens is refused;
// one already refused for memory gets it as a further reason (Refusal::reasons).
void gateContext(Rung& r, std::uint64_t limit, bool detail);
// What a refused (or spilled) rung lacks, one short phrase per blocking reason, "; "-separated.
std::string lacksText(const Rung& r);
// The postures makePlan prices for these options (lean and stacked with MTP, else plain).
std::vector<Posture> posturesFor(const ModelShape& model, const PlanOptions& o);

// Options as llama.cpp resolves them for one posture (auto flash attention, MTP micro-batch).
ResolvedOptions resolve(const ModelShape& model, const PlanOptions& o, const HardwareSnapshot& hw,
                        Posture posture);

// Remedies for a refused or spilled rung (remedies.cpp), each re-priced.
std::vector<Remedy> remediesFor(const ModelShape& model, const HardwareSnapshot& hw,
                                const MemoryBudget& budget, const PlanOptions& o,
                                const std::vector<Rung>& rungs, const Rung& rung);

// The llama-server launch of one priced rung (launch_config.cpp): the options as the rung was
// priced (resolved flash attention, the posture's batch sizes, MTP), its placement, and every
// flag the user pinned kept as given.
LaunchConfig launchConfig(const PlanOptions& o, const MemoryBudget& budget, Backend backend,
                          bool flash_attn, const Rung& rung);

// The logical batch a posture runs with (Hermes' stacked posture raises it unless -b was given).
std::uint32_t postureBatch(const PlanOptions& o, Posture posture);

std::string gib(Bytes b);

// The draft model (-md, draft_model.cpp). Its options as llama-server derives them from the
// target's (common_base_params_to_speculative); its bytes per device and in host memory at the
// target's context, on the placement -ngld and the target's -ts/-sm give it; booked into an
// assignment as Terms::draft; and what llama.cpp (or Headroom's pricing) refuses about it.
PlanOptions draftPlanOptions(const PlanOptions& target);
DraftUse priceDraft(const ModelShape& draft, const ResolvedOptions& opt, const MemoryBudget& budget,
                    std::uint32_t target_n_ctx);
void bookDraft(Assignment& a, const ContextPrice& price);

// The growth decision of the plan's launch window (session_growth.cpp); nullopt when refused.
std::optional<SessionGrowth> sessionGrowth(const Plan& plan);
Result<bool> validateDraft(const ModelShape& target, const PlanOptions& o);

} // namespace headroom::detail
