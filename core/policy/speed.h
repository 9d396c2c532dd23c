// Speed classes, and an estimate of decode and prefill speed from memory bandwidth and compute.
// Everything here is an estimate: Speed::basis says what it assumed. A calibrated (measured)
// rate should replace it when one exists.
#pragma once

#include "model_shape.h"
#include "plan.h"
#include "units.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::policy {

// Decode at or above 20 tok/s reads as fluent: a recommendation prefers such models over
// higher-quality slower ones (Hermes' "pleasant" gate). Not a knob.
inline constexpr double kPleasantTokS = 20.0;
// Below 6 tok/s an agentic session is unusable: growth stops and compression is preferred
// (Hermes' decode floor). Not a knob.
inline constexpr double kFloorTokS = 6.0;

// ≥ kPleasantTokS Pleasant, ≥ kFloorTokS Usable, else (also NaN) TooSlow.
SpeedClass classifySpeed(double decode_tok_s);

// Where bytes are read from, for a bandwidth default when no figure was probed.
enum class MemoryClass { DiscreteVram, UnifiedMemory, HostRam };
// Hermes' planning classes, in GB/s (1e9 B/s): a discrete card 1000, a unified-memory machine
// 210, host RAM 80 (Hermes prices a whole spilled model at the host figure; here each pool is
// priced at its own rate). Hermes' figures, not re-measured here; defaults only — a probed or
// preset bandwidth always wins. Not knobs.
inline constexpr double kDiscreteVramGbs = 1000.0;
inline constexpr double kUnifiedMemoryGbs = 210.0;
inline constexpr double kHostRamGbs = 80.0;
double defaultBandwidthGbs(MemoryClass c);

// PCIe payload rate per lane and direction, GB/s, by generation (8b/10b for Gen1-2, 128b/130b
// for Gen3-5, Gen6 at the low end of its FLIT-mode range). Link rates, i.e. upper bounds: a real
// host-to-device copy reaches less, more so from pageable (mmap) memory. Not knobs.
inline constexpr double kPcieLaneGbs[] = {0.0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.5};
// Unknown link: PCIe 4.0 x16 (the common desktop slot today). Not a knob.
inline constexpr std::uint32_t kDefaultPcieGen = 4, kDefaultPcieWidth = 16;
// gen 1-6 × width; unknown (0) gen or width → the default link; gen above 6 → Gen6 per lane.
double pcieGbs(std::uint32_t gen, std::uint32_t width);

// llama.cpp only moves a matmul of host-resident weights to the GPU when its batch is at least
// this many tokens (GGML_OP_OFFLOAD_MIN_BATCH default, ggml-cuda.cu ggml_backend_cuda_reg /
// ggml_backend_cuda_device_offload_op; Vulkan has the same gate). Not a knob.
inline constexpr std::uint32_t kOpOffloadMinBatch = 32;

// Bytes read from one memory pool for each decoded token.
struct PoolRead {
    std::string name; // "GPU0", "RAM"
    MemoryClass memory = MemoryClass::DiscreteVram;
    double bandwidth_gbs = 0;  // probed / preset figure; 0 (or not finite) = unknown → default
    Bytes bytes_per_token = 0; // weights (active experts only) + KV read from this pool
};

struct PrefillInput {
    double active_params = 0; // parameters that multiply each token (MoE: shared + used experts)
    double device_tflops = 0; // dense FP16 TFLOPS of the device running the matmuls (0 = unknown)
    std::uint32_t n_ubatch = 512;
    // Host-resident weights the GPU copies every ubatch (all of a host tensor is copied, e.g.
    // every expert of an -ot'd ffn_*_exps tensor, not only the routed ones). 0 on CPU only.
    Bytes host_weights_streamed = 0;
    double pcie_gbs = 0; // 0 = unknown → pcieGbs(0, 0)
};

// decode tok/s = 1 / Σ_pools (bytes_per_token / bandwidth): each token reads every active weight
// once, pools are read one after another (layers run in order), and compute hides under the
// reads. 0 when no bytes are read (nothing to estimate). `basis` (optional) gets the assumptions.
double decodeTokS(const std::vector<PoolRead>& reads, std::string* basis = nullptr);

// prefill tok/s = n_ubatch / (n_ubatch × 2 × active_params / FLOPS + host_weights_streamed /
// PCIe): matmuls at the device's dense peak (an upper bound: attention FLOPs, which grow with
// the context, and kernel efficiency are ignored), plus one copy of the host-resident weights
// per ubatch — the ggml-backend scheduler offloads a host-weight op to the GPU when the GPU
// backend's offload_op accepts it (ggml/src/ggml-backend.cpp
// ggml_backend_sched_backend_id_from_cur, "1.off"), which means uploading that weight each time.
// Below kOpOffloadMinBatch no copy is made (the host part runs on the CPU, not modelled). 0 when
// params or FLOPS are unknown.
double prefillTokS(const PrefillInput& in, std::string* basis = nullptr);

// Both estimates, the decode class and the basis text.
Speed estimateSpeed(const std::vector<PoolRead>& decode, const PrefillInput& prefill);

// Weight bytes one decoded token reads: every loaded weight except the token embedding (a
// get_rows lookup reads one row) with routed experts scaled by n_expert_used / n_expert.
Bytes decodeWeightBytesPerToken(const ModelShape& model);
// Parameters active per token: n_params × (decode bytes / loaded bytes) — assumes experts and the
// rest are quantized alike. 0 when n_params is unknown.
double activeParamsPerToken(const ModelShape& model);

// ---------------------------------------------------------------------------------------------
// The calibrated model (issue 11). Mechanism first, constants fitted to published llama-bench
// results (tests/speed/llama_bench_published.csv; fit and held-out scoring in
// tests/core/test_speed_accuracy.cpp; constants in policy/speed_constants.h).
//
// decode seconds per token =
//     Σ_devices (weights read + KV read at the depth) / (bw_fraction × peak bandwidth)
//   + host bytes / (host fraction × host bandwidth)            (layers or experts on the CPU)
//   + n_layer × us_per_layer + n_moe_layer × moe_us_per_layer   (kernel launches, MoE routing)
// prefill seconds per token =
//     (2 × active params + attention FLOPs at the depth) / (flops_fraction × peak FP16 FLOPS)
//       × f16_factor (F16 weights) × moe_pp_factor (MoE: grouped expert matmuls)
//   + every resident weight read once per ubatch / bandwidth / ubatch
//   + host-resident weights streamed over PCIe once per ubatch / ubatch  (ubatch ≥ 32)
// Each figure comes with a range from the fit's residual spread for that backend/GPU class.

// The work one token (decode) and one prompt (prefill) costs, from a placement.
struct SpeedDevice {
    std::string name;
    double bandwidth_gbs = 0; // peak (0 = unknown → the class default)
    double fp16_tflops = 0;   // dense FP16 peak (0 = unknown → a default by backend)
    // Shader FP32 peak: the Vulkan backend's matmul rate (its shaders rarely reach the matrix
    // units); 0 = unknown → fp16_tflops.
    double vector_tflops = 0;
    Bytes read_bytes = 0;     // per decoded token: dense weights + active experts + KV at depth
    Bytes resident_bytes = 0; // weights held here (read once per prefill ubatch)
};

struct SpeedWork {
    std::string backend = "cpu"; // cuda | rocm | vulkan | metal | sycl | cpu
    std::string arch;            // GPU family of devices[0] ("ada", "apple-m2", "" unknown)
    bool uma = false;
    std::vector<SpeedDevice> devices; // GPUs in layer order; empty = CPU only
    // Host side: weights and KV the CPU reads per token, at its bandwidth.
    Bytes host_read_bytes = 0;
    double host_bandwidth_gbs = 0; // 0 = unknown → kHostRamGbs
    double host_tflops = 0;        // CPU FP32 (0 = unknown → a desktop default)
    // Host-resident weights the GPU copies once per prefill ubatch (experts kept on the CPU).
    Bytes host_streamed_bytes = 0;
    double pcie_gbs = 0; // 0 = unknown → PCIe 4.0 x16
    std::uint32_t n_layer = 0;
    std::uint32_t n_moe_layer = 0; // 0 = dense
    bool f16_weights = false;      // F16/BF16 weights (cuBLAS/MPS GEMM path instead of MMQ)
    double active_params = 0;      // parameters multiplying each token
    // Attention FLOPs per prompt token per context token: 4 × Σ_layers n_head × head_dim (QKᵀ and
    // PV); SWA layers count up to their window only (attn_swa_per_ctx, window swa_window).
    double attn_full_per_ctx = 0, attn_swa_per_ctx = 0;
    std::uint32_t swa_window = 0;
    std::uint32_t depth = 0; // context already in the cache
    std::uint32_t n_ubatch = 512;
    std::uint32_t n_prompt = 512; // tokens of the prompt being processed (prefill)
};

// Fitted constants of one backend/GPU class (speed_constants.h).
struct SpeedClassConstants {
    const char* key;                  // "cuda", "cuda-uma", "metal", "rocm", "vulkan", "cpu"
    double bw_fraction;               // achieved share of peak bandwidth while decoding
    double us_per_layer;              // fixed decode cost per layer and token, µs
    double flops_fraction;            // achieved share of peak FP16 FLOPS in prefill (quantized)
    double decode_low, decode_high;   // measured / predicted band on the fit rows (≈ 5th-95th)
    double prefill_low, prefill_high; //   percentiles), widened a little
    int decode_rows, prefill_rows;    // data-set rows that back this class (fit part)
};

struct SpeedGlobalConstants {
    double f16_factor;       // prefill time × this for F16/BF16 weights
    double moe_pp_factor;    // prefill compute time × this for MoE models
    double moe_us_per_layer; // extra decode cost per MoE layer and token, µs
    double host_bw_fraction; // achieved share of host RAM bandwidth
    double pcie_fraction;    // achieved share of the PCIe link for per-ubatch weight copies
    double cpu_flops_fraction;
};

struct SpeedModelConstants {
    std::vector<SpeedClassConstants> classes;
    SpeedGlobalConstants global;
};

// The committed constants (speed_constants.h).
const SpeedModelConstants& fittedSpeedConstants();

// The class key of a backend + GPU family: "cuda-uma" for an NVIDIA GPU on unified memory (GB10),
// "metal", "rocm", "vulkan", "sycl" (Intel's oneAPI backend: XMX matrix engines, not the Vulkan
// shader rate), "cpu"; unknown backends fall back to "vulkan".
std::string speedClassKey(const std::string& backend, bool uma);

struct SpeedFigure {
    double tok_s = 0, low = 0, high = 0;
    std::string basis;
};

// Point estimates only (no ranges, no basis): what the fitter evaluates many times.
double modelDecodeTokS(const SpeedWork& w, const SpeedModelConstants& c);
double modelPrefillTokS(const SpeedWork& w, const SpeedModelConstants& c);

// Estimate with range and basis. A class with no rows of evidence falls back to the nearest
// class's fractions and a band widened ×1.5 each side, and says so.
SpeedFigure estimateDecode(const SpeedWork& w, const SpeedModelConstants& c);
SpeedFigure estimatePrefill(const SpeedWork& w, const SpeedModelConstants& c);

// Both, as the plan shows them (decode class from the point estimate).
Speed estimateSpeedRange(const SpeedWork& w, const SpeedModelConstants& c = fittedSpeedConstants());

// Shape-derived pieces of a SpeedWork: attention FLOPs per context token (full and SWA layers),
// and the KV bytes one decoded token reads at `depth` (f16 cache, SWA layers capped at the window).
void fillAttention(SpeedWork& w, const ModelShape& model);
Bytes kvReadBytesAtDepth(const ModelShape& model, std::uint32_t depth, double bytes_per_elem = 2);

} // namespace headroom::policy
