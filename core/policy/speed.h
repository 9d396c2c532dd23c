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

} // namespace headroom::policy
