#include "planner/speed_estimate.h"

#include "gpu_specs.h"
#include "policy/speed.h"

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

} // namespace headroom::detail
