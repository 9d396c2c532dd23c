#include "policy/speed.h"

#include "backend/backend.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

namespace headroom::policy {

namespace {
std::string num(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}
} // namespace

SpeedClass classifySpeed(double decode_tok_s) {
    if (decode_tok_s >= kPleasantTokS) return SpeedClass::Pleasant;
    if (decode_tok_s >= kFloorTokS) return SpeedClass::Usable;
    return SpeedClass::TooSlow;
}

double defaultBandwidthGbs(MemoryClass c) {
    switch (c) {
    case MemoryClass::DiscreteVram:
        return kDiscreteVramGbs;
    case MemoryClass::UnifiedMemory:
        return kUnifiedMemoryGbs;
    case MemoryClass::HostRam:
        return kHostRamGbs;
    }
    return kHostRamGbs;
}

double pcieGbs(std::uint32_t gen, std::uint32_t width) {
    if (gen == 0 || width == 0) {
        gen = kDefaultPcieGen;
        width = kDefaultPcieWidth;
    }
    constexpr std::uint32_t maxGen = std::size(kPcieLaneGbs) - 1;
    return kPcieLaneGbs[gen > maxGen ? maxGen : gen] * width;
}

double decodeTokS(const std::vector<PoolRead>& reads, std::string* basis) {
    double seconds = 0;
    std::string b = "decode estimate: one pass over the active weights and KV per token, "
                    "bandwidth-bound;";
    for (const PoolRead& r : reads) {
        if (r.bytes_per_token == 0) continue;
        const bool known = std::isfinite(r.bandwidth_gbs) && r.bandwidth_gbs > 0;
        const double gbs = known ? r.bandwidth_gbs : defaultBandwidthGbs(r.memory);
        seconds += static_cast<double>(r.bytes_per_token) / (gbs * 1e9);
        b += " " + r.name + " " + formatBytes(r.bytes_per_token) + "/token at " + num("%.0f", gbs) +
             " GB/s" + (known ? "" : " (class default)") + ";";
    }
    if (seconds <= 0) {
        if (basis) *basis = "decode not estimated: no bytes read per token";
        return 0;
    }
    if (basis) *basis = b;
    return 1.0 / seconds;
}

double prefillTokS(const PrefillInput& in, std::string* basis) {
    if (!(in.active_params > 0) || !(in.device_tflops > 0) || in.n_ubatch == 0) {
        if (basis) *basis = "prefill not estimated: active parameters or device FLOPS unknown";
        return 0;
    }
    const double ub = in.n_ubatch;
    double seconds = ub * 2.0 * in.active_params / (in.device_tflops * 1e12);
    std::string b = "prefill estimate: 2 FLOPs per active parameter per token at " +
                    num("%.0f", in.device_tflops) +
                    " TFLOPS peak (attention FLOPs and kernel efficiency ignored: an upper "
                    "bound); ubatch " +
                    std::to_string(in.n_ubatch);
    if (in.host_weights_streamed > 0 && in.n_ubatch >= kOpOffloadMinBatch) {
        const double pcie = in.pcie_gbs > 0 ? in.pcie_gbs : pcieGbs(0, 0);
        seconds += static_cast<double>(in.host_weights_streamed) / (pcie * 1e9);
        b += "; " + formatBytes(in.host_weights_streamed) +
             " of host weights copied to the GPU "
             "every ubatch at " +
             num("%.1f", pcie) + " GB/s" + (in.pcie_gbs > 0 ? "" : " (assumed PCIe 4.0 x16)");
    } else if (in.host_weights_streamed > 0) {
        b += "; host weights run on the CPU at this ubatch (not modelled)";
    }
    if (basis) *basis = b;
    return ub / seconds;
}

Speed estimateSpeed(const std::vector<PoolRead>& decode, const PrefillInput& prefill) {
    Speed s;
    std::string d, p;
    s.decode_tok_s = decodeTokS(decode, &d);
    s.prefill_tok_s = prefillTokS(prefill, &p);
    s.decode_class = classifySpeed(s.decode_tok_s);
    s.basis = d + " " + p;
    return s;
}

Bytes decodeWeightBytesPerToken(const ModelShape& model) {
    const Bytes loaded = model.weightBytes();
    const Bytes experts = model.expertBytesTotal();
    Bytes active = satSub(satSub(loaded, model.token_embd_bytes), experts);
    if (model.moe.n_expert > 0 && experts > 0) {
        const long double share = static_cast<long double>(model.moe.n_expert_used) /
                                  static_cast<long double>(model.moe.n_expert);
        active = satAdd(active, static_cast<Bytes>(static_cast<long double>(experts) * share));
    } else {
        active = satAdd(active, experts);
    }
    return active;
}

double activeParamsPerToken(const ModelShape& model) {
    const Bytes loaded = model.weightBytes();
    if (model.n_params == 0 || loaded == 0) return 0;
    return static_cast<double>(model.n_params) *
           (static_cast<double>(decodeWeightBytesPerToken(model)) / static_cast<double>(loaded));
}

} // namespace headroom::policy

// ---------------------------------------------------------------------------------------------
// The calibrated model (issue 11)

#include "policy/speed_constants.h"

namespace headroom::policy {

namespace {

// Defaults when a device reports no throughput: a mid-range GPU and a desktop CPU. ESTIMATES.
constexpr double kDefaultGpuTflopsEst = 40;
constexpr double kDefaultCpuTflopsEst = 0.5;
// No class has evidence below this many rows: its band is widened and the basis says so.
constexpr int kMinEvidenceRows = 3;
// The widening of a band without evidence, each side.
constexpr double kNoEvidenceWiden = 1.5;
// A GPU described only by its size (--vram 24GiB) has no bandwidth or compute: its figures use the
// class defaults, and its range spans what that size could be, the GPU table's discrete cards
// (core/gpu_specs.cpp): bandwidth RX 580 256 … RTX 5090 1792 GB/s, FP16 matrix RX 580 6.2 …
// RTX 5090 419 TFLOPS; unified memory M1 68.25 … M2 Ultra 800 GB/s. So an RTX 4090 typed as
// 24 GiB shows a range that holds the 4090's own figure instead of a confident wrong one.
constexpr double kUnknownGpuMinGbs = 256, kUnknownGpuMaxGbs = 1792;
constexpr double kUnknownUmaMinGbs = 68.25, kUnknownUmaMaxGbs = 800;
constexpr double kUnknownGpuMinTflops = 6.2, kUnknownGpuMaxTflops = 419;

bool bandwidthUnknown(const SpeedWork& w) {
    for (const auto& d : w.devices)
        if (!(std::isfinite(d.bandwidth_gbs) && d.bandwidth_gbs > 0)) return true;
    return false;
}

bool computeUnknown(const SpeedWork& w) {
    return !w.devices.empty() && !(w.devices.front().fp16_tflops > 0);
}

const SpeedClassConstants* findClass(const SpeedModelConstants& c, const std::string& key) {
    for (const auto& k : c.classes)
        if (key == k.key) return &k;
    return nullptr;
}

// The class used for `w`: its own, else "vulkan" (the backend that runs everywhere).
const SpeedClassConstants& classFor(const SpeedWork& w, const SpeedModelConstants& c) {
    if (auto* k = findClass(c, speedClassKey(w.backend, w.uma))) return *k;
    if (auto* k = findClass(c, std::string(vulkanBackend().speed_class))) return *k;
    return c.classes.front();
}

double gpuBandwidth(const SpeedDevice& d, bool uma) {
    if (std::isfinite(d.bandwidth_gbs) && d.bandwidth_gbs > 0) return d.bandwidth_gbs;
    return uma ? kUnifiedMemoryGbs : kDiscreteVramGbs;
}

double hostBandwidth(const SpeedWork& w) {
    return w.host_bandwidth_gbs > 0 ? w.host_bandwidth_gbs : kHostRamGbs;
}

// The peak prefill is priced against: the matrix rate, except on Vulkan where the shader rate is
// what llama.cpp's Vulkan matmuls reach on most GPUs (no cooperative-matrix path).
double gpuPeakTflops(const SpeedWork& w) {
    const SpeedDevice& d = w.devices.front();
    if (w.backend == vulkanBackend().speed_class && d.vector_tflops > 0) return d.vector_tflops;
    return d.fp16_tflops > 0 ? d.fp16_tflops : kDefaultGpuTflopsEst;
}

double decodeSeconds(const SpeedWork& w, const SpeedModelConstants& c) {
    const SpeedClassConstants& k = classFor(w, c);
    double s = 0;
    for (const auto& d : w.devices)
        s += static_cast<double>(d.read_bytes) / (k.bw_fraction * gpuBandwidth(d, w.uma) * 1e9);
    if (w.host_read_bytes > 0) {
        // A CPU-only run reads at the CPU class's fraction; a split reads its host part at the
        // host fraction (the CPU backend's kernels, not the GPU's).
        const double frac = w.devices.empty() ? k.bw_fraction : c.global.host_bw_fraction;
        s += static_cast<double>(w.host_read_bytes) / (frac * hostBandwidth(w) * 1e9);
    }
    s += 1e-6 * (k.us_per_layer * w.n_layer + c.global.moe_us_per_layer * w.n_moe_layer);
    return s;
}

double attentionFlopsPerToken(const SpeedWork& w) {
    // The prompt's tokens see on average depth + n_prompt / 2 earlier tokens.
    const double ctx = w.depth + w.n_prompt / 2.0;
    const double swa_ctx = w.swa_window > 0 ? std::min<double>(ctx, w.swa_window) : ctx;
    return w.attn_full_per_ctx * ctx + w.attn_swa_per_ctx * swa_ctx;
}

double prefillSecondsPerToken(const SpeedWork& w, const SpeedModelConstants& c) {
    const SpeedClassConstants& k = classFor(w, c);
    const double flops = 2.0 * w.active_params + attentionFlopsPerToken(w);
    const double ub = std::max<std::uint32_t>(1, std::min(w.n_ubatch, w.n_prompt));
    double s = 0;
    if (w.devices.empty()) {
        const double t = w.host_tflops > 0 ? w.host_tflops : kDefaultCpuTflopsEst;
        s = flops / (k.flops_fraction * t * 1e12);
    } else {
        const double t = gpuPeakTflops(w);
        s = flops / (k.flops_fraction * t * 1e12);
        if (w.f16_weights) s *= c.global.f16_factor;
        if (w.n_moe_layer > 0) s *= c.global.moe_pp_factor;
        // Every resident weight is read once per ubatch.
        for (const auto& d : w.devices)
            s += static_cast<double>(d.resident_bytes) / (gpuBandwidth(d, w.uma) * 1e9) / ub;
        if (w.host_streamed_bytes > 0 && ub >= kOpOffloadMinBatch) {
            const double pcie = w.pcie_gbs > 0 ? w.pcie_gbs : pcieGbs(0, 0);
            s += static_cast<double>(w.host_streamed_bytes) /
                 (c.global.pcie_fraction * pcie * 1e9) / ub;
        }
    }
    return s;
}

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

std::string evidenceText(int rows, const char* what) {
    if (rows < kMinEvidenceRows)
        return "no " + std::string(what) +
               " evidence for this backend/GPU class in the data set: range widened";
    return std::to_string(rows) + " rows of " + what + " evidence for this backend/GPU class";
}

} // namespace

const SpeedModelConstants& fittedSpeedConstants() {
    return kFittedSpeedConstants;
}

std::string speedClassKey(const std::string& backend, bool uma) {
    // The backend's own class (BackendTraits::speed_class); CUDA on a unified-memory part (Jetson,
    // GB10) has a class of its own. An unknown name is priced as Vulkan, which runs everywhere.
    const auto b = backendFromName(backend);
    if (!b) return std::string(vulkanBackend().speed_class);
    const std::string cls(traitsOf(*b).speed_class);
    return *b == Backend::Cuda && uma ? cls + "-uma" : cls;
}

double modelDecodeTokS(const SpeedWork& w, const SpeedModelConstants& c) {
    const double s = decodeSeconds(w, c);
    return s > 0 ? 1.0 / s : 0;
}

double modelPrefillTokS(const SpeedWork& w, const SpeedModelConstants& c) {
    if (!(w.active_params > 0)) return 0;
    const double s = prefillSecondsPerToken(w, c);
    return s > 0 ? 1.0 / s : 0;
}

SpeedFigure estimateDecode(const SpeedWork& w, const SpeedModelConstants& c) {
    SpeedFigure f;
    f.tok_s = modelDecodeTokS(w, c);
    if (f.tok_s <= 0) {
        f.basis = "decode not estimated: no bytes read per token";
        return f;
    }
    const SpeedClassConstants& k = classFor(w, c);
    const bool evidence =
        findClass(c, speedClassKey(w.backend, w.uma)) && k.decode_rows >= kMinEvidenceRows;
    const double widen = evidence ? 1.0 : kNoEvidenceWiden;
    f.low = f.tok_s * k.decode_low / widen;
    f.high = f.tok_s * k.decode_high * widen;
    if (bandwidthUnknown(w)) {
        const double def = w.uma ? kUnifiedMemoryGbs : kDiscreteVramGbs;
        f.low *= (w.uma ? kUnknownUmaMinGbs : kUnknownGpuMinGbs) / def;
        f.high *= (w.uma ? kUnknownUmaMaxGbs : kUnknownGpuMaxGbs) / def;
    }
    std::string b = "bandwidth-bound";
    if (!w.devices.empty()) {
        b += ", " + fmt("%.0f", 100 * k.bw_fraction) + " % of " +
             fmt("%.0f", gpuBandwidth(w.devices[0], w.uma)) + " GB/s";
        if (bandwidthUnknown(w))
            b += " (bandwidth unknown: class default; the range spans the GPU table's cards, "
                 "name the GPU with --gpu to narrow it)";
    } else {
        b += ", " + fmt("%.0f", 100 * k.bw_fraction) + " % of " + fmt("%.0f", hostBandwidth(w)) +
             " GB/s host RAM";
    }
    if (!w.devices.empty() && w.host_read_bytes > 0)
        b += " + " + formatBytes(w.host_read_bytes) + "/token from host RAM at " +
             fmt("%.0f", 100 * c.global.host_bw_fraction) + " % of " +
             fmt("%.0f", hostBandwidth(w)) + " GB/s";
    b += ", " + fmt("%.0f", k.us_per_layer) + " µs per layer" +
         (w.n_moe_layer > 0 ? " + " + fmt("%.0f", c.global.moe_us_per_layer) + " µs MoE routing"
                            : std::string()) +
         " per token, KV read at depth " + std::to_string(w.depth) + "; " +
         evidenceText(evidence ? k.decode_rows : 0, "decode") + " (" +
         speedClassKey(w.backend, w.uma) + ")";
    f.basis = b;
    return f;
}

SpeedFigure estimatePrefill(const SpeedWork& w, const SpeedModelConstants& c) {
    SpeedFigure f;
    f.tok_s = modelPrefillTokS(w, c);
    if (f.tok_s <= 0) {
        f.basis = "prefill not estimated: active parameters unknown";
        return f;
    }
    const SpeedClassConstants& k = classFor(w, c);
    const bool evidence =
        findClass(c, speedClassKey(w.backend, w.uma)) && k.prefill_rows >= kMinEvidenceRows;
    const double widen = evidence ? 1.0 : kNoEvidenceWiden;
    f.low = f.tok_s * k.prefill_low / widen;
    f.high = f.tok_s * k.prefill_high * widen;
    if (computeUnknown(w)) {
        f.low *= kUnknownGpuMinTflops / kDefaultGpuTflopsEst;
        f.high *= kUnknownGpuMaxTflops / kDefaultGpuTflopsEst;
    }
    const double peak = w.devices.empty()
                            ? (w.host_tflops > 0 ? w.host_tflops : kDefaultCpuTflopsEst)
                            : gpuPeakTflops(w);
    std::string b = "compute-bound, " + fmt("%.0f", 100 * k.flops_fraction) + " % of " +
                    fmt("%.1f", peak) + " TFLOPS";
    if (computeUnknown(w))
        b += " (GPU compute unknown: class default; the range spans the GPU table's cards, name "
             "the GPU with --gpu to narrow it)";
    if (w.f16_weights) b += " (F16 weights ×" + fmt("%.2f", 1 / c.global.f16_factor) + ")";
    if (w.n_moe_layer > 0) b += ", MoE expert matmuls ×" + fmt("%.2f", c.global.moe_pp_factor);
    b += ", attention at depth " + std::to_string(w.depth) + ", ubatch " +
         std::to_string(w.n_ubatch);
    if (w.host_streamed_bytes > 0)
        b += ", " + formatBytes(w.host_streamed_bytes) + " of host weights copied per ubatch";
    b += "; " + evidenceText(evidence ? k.prefill_rows : 0, "prefill") + " (" +
         speedClassKey(w.backend, w.uma) + ")";
    f.basis = b;
    return f;
}

Speed estimateSpeedRange(const SpeedWork& w, const SpeedModelConstants& c) {
    Speed s;
    const SpeedFigure d = estimateDecode(w, c);
    const SpeedFigure p = estimatePrefill(w, c);
    s.decode_tok_s = d.tok_s;
    s.decode_low = d.low;
    s.decode_high = d.high;
    s.decode_basis = d.basis;
    s.prefill_tok_s = p.tok_s;
    s.prefill_low = p.low;
    s.prefill_high = p.high;
    s.prefill_basis = p.basis;
    s.decode_class = classifySpeed(s.decode_tok_s);
    s.depth = w.depth;
    s.basis = "decode: " + d.basis + ". prefill: " + p.basis;
    return s;
}

void fillAttention(SpeedWork& w, const ModelShape& model) {
    w.attn_full_per_ctx = 0;
    w.attn_swa_per_ctx = 0;
    w.swa_window = model.n_swa;
    for (const auto& l : model.layers) {
        if (l.is_mtp || l.n_head_kv == 0) continue;
        if (l.attention == AttentionKind::Recurrent || l.attention == AttentionKind::None) continue;
        const double head_dim = static_cast<double>(l.n_embd_k_gqa) / l.n_head_kv;
        const double per_ctx = 4.0 * l.n_head * head_dim; // QKᵀ and PV, 2 FLOPs per MAC
        if (l.attention == AttentionKind::SlidingWindow)
            w.attn_swa_per_ctx += per_ctx;
        else
            w.attn_full_per_ctx += per_ctx;
    }
}

Bytes kvReadBytesAtDepth(const ModelShape& model, std::uint32_t depth, double bytes_per_elem) {
    double total = 0;
    for (const auto& l : model.layers) {
        if (l.is_mtp) continue;
        if (l.attention == AttentionKind::Recurrent || l.attention == AttentionKind::None) continue;
        double ctx = depth;
        if (l.attention == AttentionKind::SlidingWindow && model.n_swa > 0)
            ctx = std::min<double>(depth, model.n_swa);
        total += (static_cast<double>(l.n_embd_k_gqa) + l.n_embd_v_gqa) * bytes_per_elem * ctx;
    }
    return static_cast<Bytes>(total);
}

} // namespace headroom::policy
