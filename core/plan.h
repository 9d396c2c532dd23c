// Plan: the answer for one model, machine and set of options — every context rung priced per
// term and device, a verdict per rung, the launch decision, and the refusal reasons.
#pragma once

#include "hardware.h"
#include "model_shape.h"
#include "options.h"
#include "units.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

// Bytes of each term. kv = kv_k + kv_v. All integer bytes.
struct Terms {
    Bytes weights = 0;
    Bytes experts = 0; // the routed-expert part of weights (already inside `weights`)
    Bytes kv_k = 0;
    Bytes kv_v = 0;
    Bytes recurrent_state = 0;
    Bytes compute = 0;
    Bytes output = 0;
    Bytes overhead = 0; // backend runtime (CUDA/Vulkan context), MTP draft context
    Bytes mmproj = 0;
    // The draft model (-md) on this device or in host memory: its own weights, KV cache, compute
    // and output buffers, in a llama_context of its own (Rung::draft has them term by term).
    Bytes draft = 0;
    Bytes margin = 0; // only in budget displays: the reserve a device keeps free

    Bytes kv() const { return satAdd(kv_k, kv_v); }
    Bytes total() const;
    Terms& operator+=(const Terms& o);
};

enum class Verdict { Resident, Spilled, Refused };
const char* verdictName(Verdict v);

// Which budget a refusal is about.
enum class BudgetName {
    Vram,
    VramRam,
    UmaPool,
    OsFloor,
    KvLatency,
    ExpertPool,
    TrainedContext,
    Ram,
    MemoryUnknown
};
const char* budgetName(BudgetName b);

enum class RefusalCode {
    PhysicsFloor,        // weights + floor context > VRAM + RAM: no context makes it run
    VramRamExceeded,     // this rung does not fit VRAM + RAM
    UmaPoolExceeded,     // this rung does not fit the unified pool
    OsFloor,             // unified memory: too little would be left for the OS
    KvSpillUnsupported,  // KV must spill but below 64K or a page restore breaks the latency budget
    ExpertPoolTooSmall,  // expert cache cannot hold one layer of experts or KV gets <= 1 page
    ContextTooLong,      // beyond the model's trained context
    RamExceeded,         // CPU only: does not fit RAM
    MemoryUnknown,       // live memory could not be read
    DeviceOvercommitted, // the user's pinned placement puts more on one GPU than it has
    DeviceTooSmall,      // a GPU cannot hold what llama.cpp keeps on it even at -ngl 0
};
const char* refusalCodeName(RefusalCode c);

enum class RemedyKind {
    ShorterContext,
    KvCacheQ8,
    KvCacheQ4,
    FlashAttention,
    CpuMoe,
    SmallerQuant,
    FreeGpuMemory,
    FewerSequences,
    DropMmproj,
    SwaCacheDefault,
    SmallerUbatch,
    RopeScalingYarn, // --rope-scaling yarn past the trained context, as the model card documents
    DropDraft,       // plan without the draft model (-md)
    SmallerDraft,    // a smaller quant of the draft model (its catalog or folder siblings)
    DraftCacheQ8     // the draft's KV cache in q8_0 (-ctkd q8_0 -ctvd q8_0)
};
const char* remedyKindName(RemedyKind k);

// A change the user can apply; the GUI applies `options` on click.
struct Remedy {
    RemedyKind kind;
    std::string label; // "q8_0 KV cache (-ctk q8_0 -ctv q8_0 -fa on)"
    // The llama-server flags the remedy changes, llama.cpp's spelling ("-ctk", "q8_0", …): the
    // difference between the rung's launch and the launch with the remedy applied.
    std::vector<std::string> args;
    SignedBytes saves_bytes = 0; // on the budget that refused
    // The planner re-run with `options` (in every posture it would price) makes the rung run; for
    // a spilled rung, makes it resident. Never a prediction.
    bool fixes = false;
    // fixes == false: what the re-planned rung still lacks ("past the trained context (40K)",
    // "VRAM + RAM 3.2 GiB short"), "; "-separated.
    std::string still_lacks;
    PlanOptions options; // the options with the remedy applied
    // SmallerQuant: the model to switch to — "catalog-id:QUANT" or a sibling GGUF's path —
    // priced with that file's real size; empty for every other kind.
    std::string model_ref;
};

// One reason a rung cannot run. A refusal lists every one (memory and trained context can both
// block); the first is the refusal's own code and message.
struct BlockingReason {
    RefusalCode code;
    BudgetName budget;
    std::string message;
};

struct TermLine {
    std::string label;
    Bytes bytes = 0;
};

struct Refusal {
    RefusalCode code;
    BudgetName budget;
    int device = -1; // which GPU, when the budget is one device's
    // Byte budgets: never negative. A context refusal (beyond the trained context) leaves these 0
    // and fills the token fields instead.
    Bytes needed_bytes = 0;
    SignedBytes available_bytes = 0;
    SignedBytes shortfall_bytes = 0;
    std::uint64_t needed_tokens = 0;    // TrainedContext: the context asked for
    std::uint64_t available_tokens = 0; // TrainedContext: the model's trained context
    std::vector<TermLine> terms;
    std::vector<Remedy> remedies;
    std::string message;
    std::vector<BlockingReason> reasons; // every blocking reason, this refusal's own first
};

struct DeviceUse {
    std::string name;
    std::string rpc_endpoint; // the RPC host serving the device ("" = this machine)
    Terms terms;
    Bytes bytes = 0;              // terms.total()
    SignedBytes budget_bytes = 0; // usable on this device
};

struct Placement {
    std::uint32_t gpu_layers = 0; // -ngl (layers offloaded; n_layer + 1 includes the output)
    std::uint32_t n_cpu_moe = 0;  // --n-cpu-moe: first N MoE layers keep experts on the CPU
    std::uint64_t expert_slots_gpu = 0;
    std::uint64_t expert_slots_host = 0;
    std::vector<std::uint32_t> ffn_blocks_to_host; // recurrent blocks whose FFN moves (hybrid)
    std::string override_tensor;                   // the -ot pattern, "" when none
    Bytes spill_bytes = 0;  // weights in host RAM that would rather be on a GPU
    bool kv_offload = true; // false: --no-kv-offload (KV in host RAM)
    bool pinned = false;    // the user's placement flags, priced as given (not searched)
    // Where llama.cpp puts each of the n_layer + 1 layers (the output layer counts as one):
    // layers per GPU, in device order, and layers left on the CPU.
    std::vector<std::uint32_t> device_layers;
    std::uint32_t host_layers = 0;
    std::vector<double> tensor_split; // the -ts proportions priced (planned or the user's)
    SplitMode split_mode = SplitMode::Layer;
};

enum class KvSpillMode { Resident, Spill, Unsupported, NotApplicable };
enum class KvSpillTier { None, Cpu, Disk };
enum class KvRestoreClass { CpuApple, CpuPcie, DiskNvme, DiskSata };
// Why a spill is Unsupported: a context below the spill minimum (64K; a short context that does
// not fit resident is the wrong model for the device, not a latency problem) or a cold-page
// restore slower than the latency budget.
enum class KvSpillBlocker { None, ContextBelowMinimum, RestoreTooSlow };
const char* kvSpillModeName(KvSpillMode m);
const char* kvSpillTierName(KvSpillTier t);
const char* kvRestoreClassName(KvRestoreClass c);

struct KvSpillPlan {
    KvSpillMode mode = KvSpillMode::NotApplicable;
    KvSpillTier tier = KvSpillTier::None;
    std::uint64_t context = 0; // the context (tokens) this plan is for
    bool voice = false;        // priced against the voice latency budget
    KvRestoreClass restore_class = KvRestoreClass::CpuPcie;
    std::uint64_t page_tokens = 256;
    std::uint64_t total_pages = 0, resident_pages = 0, spill_pages = 0;
    Bytes page_bytes = 0, total_bytes = 0, resident_bytes = 0, spill_bytes = 0;
    SignedBytes resident_budget_bytes = 0;
    double worst_case_restore_ms = 0;
    double latency_budget_ms = 0;
    KvSpillBlocker blocker = KvSpillBlocker::None; // set when mode is Unsupported
    std::string message;
};

struct ExpertSplit {
    bool applicable = false;
    SignedBytes budget_bytes = 0; // what the GPU has for experts + KV after everything else
    Bytes bytes_per_expert = 0, bytes_per_page = 0;
    std::uint64_t num_experts = 0, total_experts = 0, max_slots = 0, reserve_pages = 0;
    // Not named `slots`: that is a Qt keyword macro and would break every Qt file using it.
    std::uint64_t expert_slots = 0, pages = 0;
    bool prefill_overlap = false;
    bool too_small = false;
    bool kv_starved = false; // too_small because the KV pool would keep ≤ 1 page
    Bytes needed_bytes = 0;
    std::string message; // why too_small, or what the split is
};

enum class SpeedClass { Pleasant, Usable, TooSlow };
const char* speedClassName(SpeedClass c);

// Decode with speculative decoding (a draft model, -md, or the model's MTP head), policy/
// speculation.h: an ESTIMATE over the acceptance published runs show. Empty (drafter "") when the
// rung drafts nothing.
struct SpeculativeSpeed {
    std::string drafter;                    // the draft model's id, or "mtp"
    std::uint32_t n_max = 0;                // tokens drafted per step at most (--spec-draft-n-max)
    double accept_low = 0, accept_high = 0; // per-position acceptance the range assumes
    double draft_tok_s = 0;                 // the drafter alone, one token at a time
    double speedup = 0, speedup_low = 0, speedup_high = 0; // × the target's plain decode
    double decode_tok_s = 0, decode_low = 0, decode_high = 0;
    std::string basis;
};

struct Speed {
    double decode_tok_s = 0;
    double prefill_tok_s = 0;
    SpeedClass decode_class = SpeedClass::TooSlow;
    std::string basis; // what the estimate assumed (bandwidths, bytes per token)
    // The range each figure is expected in (fit residual band of its backend/GPU class; wider
    // where the data set has no evidence for that class) and what each figure rests on.
    double decode_low = 0, decode_high = 0;
    double prefill_low = 0, prefill_high = 0;
    std::string decode_basis, prefill_basis;
    std::uint32_t depth = 0; // context depth the figures are priced at
    // Across RPC hosts (issue 15): the network's time per token, already inside the figures
    // above, and its share of the total time per token (0 when no RPC device holds layers).
    double network_decode_ms = 0, network_prefill_ms = 0;
    double network_decode_share = 0, network_prefill_share = 0;
    std::uint32_t network_crossings = 0; // network transfers per forward pass
    std::string network_basis;
    SpeculativeSpeed speculative; // with a drafter; the figures above are the target's alone
};

enum class Posture { Plain, Lean, Stacked };
const char* postureName(Posture p);

// The draft model of a rung (-md): priced at the target's context in a context of its own, on
// the devices llama.cpp gives it (-ngld, the target's -ts and -sm).
struct DraftUse {
    std::string model_id;
    std::uint32_t gpu_layers = 0; // -ngld as priced
    std::uint32_t context = 0;    // the draft context's n_ctx: the target's
    std::vector<Terms> devices;   // per device, the plan's device order
    Terms host;
    Bytes total() const;
};

struct Rung {
    std::uint32_t requested_context = 0;
    std::uint32_t context = 0; // what llama.cpp really uses after its padding
    bool on_ladder = true;     // false: the exact -c value
    Posture posture = Posture::Plain;
    std::uint32_t n_ubatch = llama::kDefaultUbatch;
    Verdict verdict = Verdict::Refused;
    Terms totals;
    std::vector<DeviceUse> devices;
    Terms host; // what lands in system RAM
    Bytes host_bytes = 0;
    SignedBytes host_budget_bytes = 0;
    Placement placement;
    std::optional<DraftUse> draft; // the draft model beside the target (-md), when planned
    KvSpillPlan kv_spill;
    ExpertSplit expert_split;
    Speed speed;
    std::optional<Refusal> refusal;
    // For a spilled rung: what would make it resident (same shape as a refusal's remedies).
    std::vector<Remedy> spill_remedies;
};

struct Decision {
    std::uint32_t context = 0;
    Posture posture = Posture::Plain;
    bool spilled = false;
    bool refused = false;
    Bytes spill_bytes = 0;
    bool kv_on_gpu = true;
    int rung_index = -1; // into Plan::rungs (of the chosen posture)
    std::vector<std::string> reasons;
};

// What the growth policy (policy/growth.h, Hermes growth_decision) would do for the launch
// window once a running session fills 85 % of it with the server idle: those session-side gates
// are facts of a live session, not of a plan, so they are taken as met; the speed gate uses the
// rung's estimated decode and the re-fit prices the next window from the plan's rungs.
struct SessionGrowth {
    std::string action;                       // "grow" | "hold" | "compress-default"
    std::uint32_t window = 0;                 // the launch window (-c)
    std::optional<std::uint32_t> next_window; // set when it grows
    std::string reason;
    std::uint64_t occupancy_tokens = 0; // 85 % of the window: when the session asks for more
    double decode_tok_s = 0;            // the estimate the speed gate read
    Bytes needed_bytes = 0;             // the re-fit: the next window's total
    SignedBytes available_bytes = 0;    // against the capacity budget's VRAM + RAM
};

struct Plan {
    ModelShape model;
    HardwareSnapshot hardware;
    PlanOptions options;
    MemoryBudget budget;
    Backend backend = Backend::Cpu;        // resolved
    bool flash_attn = true;                // resolved
    bool mtp = false;                      // resolved
    std::vector<Rung> rungs;               // of the chosen posture, ascending context
    std::vector<Rung> other_posture_rungs; // MTP models: the posture not chosen
    Decision decision;
    // The launch of the decision (nullopt when it is refused); launchFor() gives any other
    // non-refused rung's. llamaServerArgs(*launch) is the argv without program and model path.
    std::optional<LaunchConfig> launch;
    std::optional<SessionGrowth> growth; // of the launch window; nullopt when it is refused
    std::vector<std::string> notes;      // estimates and caveats
    // How the whole-graph compute buffer is priced: replayed from the architecture's graph
    // skeleton (compute_skeleton.h), or the closed-form estimate with compute_margin_pct added
    // (kComputeEstimateMarginPct, pricing.h).
    bool compute_replayed = false;
    std::uint32_t compute_margin_pct = 0;
};

// The rung a plan launches (its decision's, when that is not refused), or nullptr.
const Rung* launchedRung(const Plan& p);

} // namespace headroom
