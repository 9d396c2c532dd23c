#include "planner/speed_estimate.h"

#include "policy/speed.h"

namespace headroom::detail {

namespace {

// Prefill throughput when the hardware does not say: what llama.cpp sustains on large batches on a
// mid-range GPU (~40 TFLOPS effective) and a desktop CPU (~0.5). ESTIMATES, not knobs.
inline constexpr double kDefaultGpuTflops = 40;
inline constexpr double kDefaultCpuTflops = 0.5;

// Bytes a decode step reads from one pool: its weights (routed experts scaled to the share a
// token uses), the KV cache at a full context and the recurrent state.
Bytes decodeBytes(const Terms& t, const ModelShape& model) {
    double experts = static_cast<double>(t.experts);
    if (model.isMoe() && model.moe.n_expert > 0)
        experts *= static_cast<double>(model.moe.n_expert_used) / model.moe.n_expert;
    return satAdd(satAdd(t.weights - t.experts, static_cast<Bytes>(experts)),
                  satAdd(t.kv(), t.recurrent_state));
}

} // namespace

Speed estimateSpeed(const ModelShape& model, const Assignment& a, const HardwareSnapshot& hw,
                    const MemoryBudget& budget, std::uint32_t ubatch) {
    std::vector<policy::PoolRead> reads;
    for (size_t d = 0; d < a.devices.size(); ++d) {
        policy::PoolRead pr;
        pr.name = budget.devices[d].name;
        pr.memory =
            budget.uma ? policy::MemoryClass::UnifiedMemory : policy::MemoryClass::DiscreteVram;
        pr.bandwidth_gbs = d < hw.gpus.size() ? hw.gpus[d].bandwidth_gbs : 0;
        pr.bytes_per_token = decodeBytes(a.devices[d], model);
        reads.push_back(pr);
    }
    policy::PoolRead host;
    host.name = "RAM";
    host.memory = budget.uma ? policy::MemoryClass::UnifiedMemory : policy::MemoryClass::HostRam;
    host.bandwidth_gbs =
        budget.uma && !hw.gpus.empty() ? hw.gpus[0].bandwidth_gbs : hw.host_bandwidth_gbs;
    // The token embedding is a row lookup, not a full read.
    Terms host_terms = a.host;
    host_terms.weights = satSub(host_terms.weights, model.token_embd_bytes);
    host.bytes_per_token = decodeBytes(host_terms, model);
    reads.push_back(host);
    policy::PrefillInput pf;
    pf.active_params = policy::activeParamsPerToken(model);
    if (pf.active_params <= 0) {
        // No parameter count: assume ~4.5 bits per weight (a Q4_K_M-like mix). ESTIMATE.
        pf.active_params =
            static_cast<double>(policy::decodeWeightBytesPerToken(model)) * 8.0 / 4.5;
    }
    pf.device_tflops =
        a.devices.empty() ? hw.cpu_tflops : (!hw.gpus.empty() ? hw.gpus[0].fp16_tflops : 0);
    if (!(pf.device_tflops > 0))
        pf.device_tflops = a.devices.empty() ? kDefaultCpuTflops : kDefaultGpuTflops;
    pf.n_ubatch = ubatch;
    if (!a.devices.empty() && !budget.uma) {
        pf.host_weights_streamed = a.spill_bytes;
        if (!hw.gpus.empty())
            pf.pcie_gbs = policy::pcieGbs(hw.gpus[0].pcie_gen, hw.gpus[0].pcie_width);
    }
    return policy::estimateSpeed(reads, pf);
}

} // namespace headroom::detail
