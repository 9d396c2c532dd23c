#include "policy/speed.h"

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
