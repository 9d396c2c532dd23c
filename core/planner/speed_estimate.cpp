#include "planner/speed_estimate.h"

#include "gpu_specs.h"
#include "policy/speculation.h"
#include "policy/speed.h"

#include <algorithm>

namespace headroom::detail {

namespace {

// The speed model's class for the plan's backend (BackendTraits::speed_class). A CUDA plan on
// an AMD GPU runs llama.cpp's CUDA code through HIP, priced as ROCm's class.
std::string backendName(Backend b, const HardwareSnapshot& hw) {
    if (b == Backend::Cuda && !hw.gpus.empty() && hw.gpus[0].vendor_id == 0x1002) b = Backend::Hip;
    if (b == Backend::Auto) {
        if (hw.gpus.empty()) return std::string(cpuBackend().speed_class);
        b = backendFromName(hw.gpus[0].backend).value_or(Backend::Vulkan);
    }
    return std::string(traitsOf(b).speed_class);
}

} // namespace

Bytes decodeBytes(const Terms& t, const ModelShape& model) {
    double experts = static_cast<double>(t.experts);
    if (model.isMoe() && model.moe.n_expert > 0)
        experts *= static_cast<double>(model.moe.n_expert_used) / model.moe.n_expert;
    return satAdd(satAdd(t.weights - t.experts, static_cast<Bytes>(experts)),
                  satAdd(t.kv(), t.recurrent_state));
}

Speed estimateSpeed(const ModelShape& model, const Assignment& a, const HardwareSnapshot& hw,
                    const MemoryBudget& budget, std::uint32_t ubatch, std::uint32_t depth,
                    Backend backend) {
    policy::SpeedWork w;
    w.backend = backendName(backend, hw);
    w.uma = budget.uma;
    if (!hw.gpus.empty()) {
        const GpuDevice& g = hw.gpus[0];
        if (auto spec = gpuSpecById(g.vendor_id, g.device_id, g.name)) w.arch = spec->arch;
    }
    // CPU only (no device terms): the CPU class prices everything.
    if (a.devices.empty()) w.backend = "cpu";
    // Budget devices are in llama.cpp's order: RPC hosts' devices first, then this machine's.
    const std::vector<ClusterDevice> cluster = clusterDevices(hw);
    for (size_t d = 0; d < a.devices.size(); ++d) {
        policy::SpeedDevice dev;
        dev.name = d < budget.devices.size() ? budget.devices[d].name : "GPU";
        if (d < cluster.size()) {
            const GpuDevice& g = *cluster[d].gpu;
            dev.bandwidth_gbs = g.bandwidth_gbs;
            dev.fp16_tflops = g.fp16_tflops;
            if (auto spec = gpuSpecById(g.vendor_id, g.device_id, g.name))
                dev.vector_tflops = spec->vector_tflops;
        }
        dev.read_bytes = decodeBytes(a.devices[d], model);
        dev.resident_bytes = a.devices[d].weights;
        w.devices.push_back(dev);
    }
    // The token embedding is a row lookup, not a full read.
    Terms host = a.host;
    host.weights = satSub(host.weights, model.token_embd_bytes);
    w.host_read_bytes = decodeBytes(host, model);
    w.host_bandwidth_gbs =
        budget.uma && !hw.gpus.empty() ? hw.gpus[0].bandwidth_gbs : hw.host_bandwidth_gbs;
    w.host_tflops = hw.cpu_tflops;
    if (!a.devices.empty() && !budget.uma) {
        w.host_streamed_bytes = a.spill_bytes;
        if (!hw.gpus.empty())
            w.pcie_gbs = policy::pcieGbs(hw.gpus[0].pcie_gen, hw.gpus[0].pcie_width);
    }
    w.n_layer = model.nLayer();
    w.n_moe_layer = model.isMoe() ? model.nMoeLayers() : 0;
    w.f16_weights = model.quant == "F16" || model.quant == "BF16";
    w.active_params = policy::activeParamsPerToken(model);
    if (w.active_params <= 0) {
        // No parameter count: assume ~4.5 bits per weight (a Q4_K_M-like mix). ESTIMATE.
        w.active_params = static_cast<double>(policy::decodeWeightBytesPerToken(model)) * 8.0 / 4.5;
    }
    policy::fillAttention(w, model);
    w.depth = depth;
    w.n_ubatch = ubatch;
    w.n_prompt = ubatch;
    return policy::estimateSpeedRange(w);
}

namespace {

// One MTP draft token (--spec-type draft-mtp): the nextn blocks and the output head it shares
// with the target, or an external head, read once, as a share of the target's decode step. The
// fixed per-layer cost (kernel launches) is a share too: at least (MTP blocks + 1) of the
// target's (blocks + 1) layers of work.
double mtpStepShare(const ModelShape& model) {
    Bytes mtp = satAdd(model.output_bytes, model.mtp_head_bytes);
    std::uint32_t blocks = 0;
    for (std::uint32_t il = 0; il < model.nLayer(); ++il) {
        const LayerShape& l = model.layers[il];
        if (!l.is_mtp) continue;
        ++blocks;
        double experts = static_cast<double>(l.experts_bytes);
        if (model.isMoe() && model.moe.n_expert > 0)
            experts *= static_cast<double>(model.moe.n_expert_used) / model.moe.n_expert;
        mtp = satAdd(mtp, satAdd(satAdd(l.attn_bytes, l.ffn_bytes), static_cast<Bytes>(experts)));
    }
    if (model.mtp_head_bytes > 0 && blocks == 0) blocks = 1;
    const double target = static_cast<double>(policy::decodeWeightBytesPerToken(model));
    if (target <= 0) return 0;
    const double layers = static_cast<double>(model.nLayer() - std::min(model.nLayer(), blocks));
    return std::max(static_cast<double>(mtp) / target, (blocks + 1.0) / (layers + 1.0));
}

} // namespace

void addSpeculation(Speed& s, const ModelShape& model, const ResolvedOptions& opt,
                    const DraftUse* draft, const HardwareSnapshot& hw, const MemoryBudget& budget,
                    std::uint32_t ubatch, std::uint32_t depth) {
    if (!(s.decode_tok_s > 0) || !(s.prefill_tok_s > 0)) return;
    policy::SpeculationWork w;
    w.target_decode_s = 1.0 / s.decode_tok_s;
    w.target_prefill_s = 1.0 / s.prefill_tok_s;
    w.n_max = opt.n_draft;
    SpeculativeSpeed out;
    if (draft && opt.draft_model) {
        // The draft decodes one token at a time where its own flags put it (-ngld, the target's
        // -ts), in its own context at the target's depth.
        Assignment a;
        a.devices = draft->devices;
        a.host = draft->host;
        const Speed d = estimateSpeed(*opt.draft_model, a, hw, budget, ubatch, depth, opt.backend);
        if (!(d.decode_tok_s > 0)) return;
        w.draft_s = 1.0 / d.decode_tok_s;
        out.drafter = draft->model_id;
    } else if (opt.mtp) {
        w.draft_s = w.target_decode_s * mtpStepShare(model);
        out.drafter = "mtp";
    } else {
        return;
    }
    const policy::SpeculationFigure f = policy::estimateSpeculation(w);
    if (!(f.speedup > 0)) return;
    out.n_max = w.n_max;
    out.accept_low = w.accept_low;
    out.accept_high = w.accept_high;
    out.draft_tok_s = 1.0 / w.draft_s;
    out.speedup = f.speedup;
    out.speedup_low = f.speedup_low;
    out.speedup_high = f.speedup_high;
    out.decode_tok_s = s.decode_tok_s * f.speedup;
    out.decode_low = s.decode_low * f.speedup_low;
    out.decode_high = s.decode_high * f.speedup_high;
    out.basis = f.basis;
    s.speculative = std::move(out);
}

} // namespace headroom::detail
