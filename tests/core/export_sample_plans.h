// Plans built by hand for the exporter tests: every figure is set explicitly so each test can
// derive its expectations from the numbers here, independently of the planner.
#pragma once

#include "hardware.h"
#include "plan.h"
#include "planner.h"

namespace headroom::testplans {

// A 32-layer dense GQA model from a GGUF file, on one 24 GiB GPU with 64 GiB RAM.
// Chosen rung: 131072 tokens, resident, all 33 layers (32 blocks + output) on the GPU.
inline Plan denseResident() {
    Plan p;
    p.model.id = "/models/My Model (Q4_K_M).gguf"; // a path with spaces and parentheses
    p.model.name = "My Model 8B";
    p.model.architecture = "llama";
    p.model.source = ShapeSource::GgufHeader;
    p.model.n_ctx_train = 131072;
    p.model.layers.assign(32, LayerShape{});
    p.hardware = snapshotFromSizes({24 * GiB}, 64 * GiB, false);
    p.hardware.label = "RTX 4090 24 GiB + 64 GiB";
    p.budget = capacityBudget(p.hardware, 0);
    p.backend = Backend::Cuda;
    p.flash_attn = true;
    p.options.cache_type_k = GgmlType::Q8_0;
    p.options.cache_type_v = GgmlType::Q8_0;
    p.options.flash_attn = FlashAttn::On;

    Rung small;
    small.requested_context = small.context = 65536;
    small.verdict = Verdict::Resident;
    Rung chosen;
    chosen.requested_context = chosen.context = 131072;
    chosen.verdict = Verdict::Resident;
    chosen.n_ubatch = 512;
    chosen.placement.gpu_layers = 33;
    DeviceUse gpu;
    gpu.name = "GPU0";
    gpu.bytes = 15 * GiB;
    gpu.budget_bytes = p.budget.devices[0].usable;
    chosen.devices.push_back(gpu);
    chosen.host_bytes = 1 * GiB;
    chosen.host_budget_bytes = toSigned(64 * GiB);
    Rung big;
    big.requested_context = big.context = 262144;
    big.verdict = Verdict::Refused;
    Refusal r;
    r.code = RefusalCode::ContextTooLong;
    r.budget = BudgetName::TrainedContext;
    r.message = "256K is beyond the trained context of 128K";
    big.refusal = r;
    p.rungs = {small, chosen, big};
    p.decision.context = 131072;
    p.decision.rung_index = 1;
    p.launch = *launchFor(p, p.decision.rung_index);
    return p;
}

// A MoE catalog model spilled onto two GPUs: experts of the first 6 MoE layers stay on the CPU
// and an -ot regex moves the rest of the expert banks of blocks 40..47 to the CPU too.
inline Plan moeSpilled() {
    Plan p;
    p.model.id = "qwen3-moe-30b";
    p.model.name = "Qwen3 MoE 30B";
    p.model.architecture = "qwen3moe";
    p.model.source = ShapeSource::Catalog;
    p.model.n_ctx_train = 262144;
    p.model.moe.n_expert = 128;
    p.model.moe.n_expert_used = 8;
    p.model.layers.assign(48, LayerShape{});
    p.hardware = snapshotFromSizes({12 * GiB, 8 * GiB}, 32 * GiB, false);
    p.budget = capacityBudget(p.hardware, 0);
    p.backend = Backend::Cuda;
    p.flash_attn = true;
    p.options.n_parallel = 2;
    p.options.n_ubatch = 2048;
    p.options.ubatch_set = true;

    Rung chosen;
    chosen.requested_context = chosen.context = 65536;
    chosen.verdict = Verdict::Spilled;
    chosen.n_ubatch = 2048;
    chosen.placement.gpu_layers = 49;
    chosen.placement.n_cpu_moe = 6;
    chosen.placement.override_tensor = "blk\\.(4[0-7])\\.ffn_(up|down|gate)_exps\\.weight=CPU";
    chosen.placement.spill_bytes = 9 * GiB;
    DeviceUse g0;
    g0.name = "GPU0";
    g0.bytes = 9 * GiB;
    g0.budget_bytes = p.budget.devices[0].usable;
    DeviceUse g1;
    g1.name = "GPU1";
    g1.bytes = 5 * GiB;
    g1.budget_bytes = p.budget.devices[1].usable;
    chosen.devices = {g0, g1};
    chosen.host_bytes = 10 * GiB;
    chosen.host_budget_bytes = toSigned(32 * GiB);
    p.rungs = {chosen};
    p.decision.context = 65536;
    p.decision.rung_index = 0;
    p.decision.spilled = true;
    p.launch = *launchFor(p, p.decision.rung_index);
    return p;
}

// A small model for co-residency: denseResident's plan on one 24 GiB card using `gpuGiB` of
// the GPU at its launch rung (and 1 GiB of RAM), from a GGUF called `file`.
inline Plan smallModel(const std::string& file, Bytes gpuGiB) {
    Plan p = denseResident();
    p.model.id = "/models/" + file;
    p.model.name = file;
    p.rungs[1].devices[0].bytes = gpuGiB * GiB;
    return p;
}

} // namespace headroom::testplans
