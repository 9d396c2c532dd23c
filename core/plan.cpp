#include "plan.h"

namespace headroom {

Bytes Terms::total() const {
    // `experts` is a part of `weights`, and `margin` is a budget display term: neither adds.
    Bytes t = weights;
    for (Bytes b : {kv_k, kv_v, recurrent_state, compute, output, overhead, mmproj, draft})
        t = satAdd(t, b);
    return t;
}

const Rung* launchedRung(const Plan& p) {
    if (p.decision.refused || p.decision.rung_index < 0 ||
        static_cast<size_t>(p.decision.rung_index) >= p.rungs.size())
        return nullptr;
    const Rung& r = p.rungs[static_cast<size_t>(p.decision.rung_index)];
    return r.verdict == Verdict::Refused ? nullptr : &r;
}

Bytes DraftUse::total() const {
    Bytes t = host.total();
    for (const Terms& d : devices)
        t = satAdd(t, d.total());
    return t;
}

Terms& Terms::operator+=(const Terms& o) {
    weights = satAdd(weights, o.weights);
    experts = satAdd(experts, o.experts);
    kv_k = satAdd(kv_k, o.kv_k);
    kv_v = satAdd(kv_v, o.kv_v);
    recurrent_state = satAdd(recurrent_state, o.recurrent_state);
    compute = satAdd(compute, o.compute);
    output = satAdd(output, o.output);
    overhead = satAdd(overhead, o.overhead);
    mmproj = satAdd(mmproj, o.mmproj);
    draft = satAdd(draft, o.draft);
    margin = satAdd(margin, o.margin);
    return *this;
}

const char* verdictName(Verdict v) {
    switch (v) {
    case Verdict::Resident:
        return "resident";
    case Verdict::Spilled:
        return "spilled";
    case Verdict::Refused:
        return "refused";
    }
    return "?";
}

const char* budgetName(BudgetName b) {
    switch (b) {
    case BudgetName::Vram:
        return "vram";
    case BudgetName::VramRam:
        return "vram+ram";
    case BudgetName::UmaPool:
        return "uma_pool";
    case BudgetName::OsFloor:
        return "os_floor";
    case BudgetName::KvLatency:
        return "kv_latency";
    case BudgetName::ExpertPool:
        return "expert_pool";
    case BudgetName::TrainedContext:
        return "trained_context";
    case BudgetName::Ram:
        return "ram";
    case BudgetName::MemoryUnknown:
        return "memory_unknown";
    }
    return "?";
}

const char* refusalCodeName(RefusalCode c) {
    switch (c) {
    case RefusalCode::PhysicsFloor:
        return "physics_floor";
    case RefusalCode::VramRamExceeded:
        return "vram_ram_exceeded";
    case RefusalCode::UmaPoolExceeded:
        return "uma_pool_exceeded";
    case RefusalCode::OsFloor:
        return "os_floor";
    case RefusalCode::KvSpillUnsupported:
        return "kv_spill_unsupported";
    case RefusalCode::ExpertPoolTooSmall:
        return "expert_pool_too_small";
    case RefusalCode::ContextTooLong:
        return "context_too_long";
    case RefusalCode::RamExceeded:
        return "ram_exceeded";
    case RefusalCode::MemoryUnknown:
        return "memory_unknown";
    case RefusalCode::DeviceOvercommitted:
        return "device_overcommitted";
    case RefusalCode::DeviceTooSmall:
        return "device_too_small";
    }
    return "?";
}

const char* remedyKindName(RemedyKind k) {
    switch (k) {
    case RemedyKind::ShorterContext:
        return "shorter_context";
    case RemedyKind::KvCacheQ8:
        return "kv_cache_q8_0";
    case RemedyKind::KvCacheQ4:
        return "kv_cache_q4_0";
    case RemedyKind::FlashAttention:
        return "flash_attention";
    case RemedyKind::CpuMoe:
        return "n_cpu_moe";
    case RemedyKind::SmallerQuant:
        return "smaller_quant";
    case RemedyKind::FreeGpuMemory:
        return "free_gpu_memory";
    case RemedyKind::FewerSequences:
        return "fewer_sequences";
    case RemedyKind::DropMmproj:
        return "drop_mmproj";
    case RemedyKind::SwaCacheDefault:
        return "swa_cache_default";
    case RemedyKind::SmallerUbatch:
        return "smaller_ubatch";
    case RemedyKind::RopeScalingYarn:
        return "rope_scaling_yarn";
    case RemedyKind::DropDraft:
        return "drop_draft";
    case RemedyKind::SmallerDraft:
        return "smaller_draft";
    case RemedyKind::DraftCacheQ8:
        return "draft_cache_q8_0";
    }
    return "?";
}

const char* kvSpillModeName(KvSpillMode m) {
    switch (m) {
    case KvSpillMode::Resident:
        return "resident";
    case KvSpillMode::Spill:
        return "spill";
    case KvSpillMode::Unsupported:
        return "unsupported";
    case KvSpillMode::NotApplicable:
        return "not_applicable";
    }
    return "?";
}

const char* kvSpillTierName(KvSpillTier t) {
    switch (t) {
    case KvSpillTier::None:
        return "none";
    case KvSpillTier::Cpu:
        return "cpu";
    case KvSpillTier::Disk:
        return "disk";
    }
    return "?";
}

const char* kvRestoreClassName(KvRestoreClass c) {
    switch (c) {
    case KvRestoreClass::CpuApple:
        return "cpu-apple";
    case KvRestoreClass::CpuPcie:
        return "cpu-pcie";
    case KvRestoreClass::DiskNvme:
        return "disk-nvme";
    case KvRestoreClass::DiskSata:
        return "disk-sata";
    }
    return "?";
}

const char* speedClassName(SpeedClass c) {
    switch (c) {
    case SpeedClass::Pleasant:
        return "pleasant";
    case SpeedClass::Usable:
        return "usable";
    case SpeedClass::TooSlow:
        return "too_slow";
    }
    return "?";
}

const char* postureName(Posture p) {
    switch (p) {
    case Posture::Plain:
        return "plain";
    case Posture::Lean:
        return "lean";
    case Posture::Stacked:
        return "stacked";
    }
    return "?";
}

const char* programName(Program p) {
    switch (p) {
    case Program::LlamaServer:
        return "llama-server";
    case Program::Library:
        return "library";
    }
    return "?";
}

std::optional<Program> parseProgram(std::string_view text) {
    if (text == "llama-server") return Program::LlamaServer;
    if (text == "library") return Program::Library;
    return std::nullopt;
}

} // namespace headroom
