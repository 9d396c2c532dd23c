// The user's own placement ("what if"): -ngl, --n-cpu-moe/--cpu-moe, -ot, -ts and -sm turned into
// the placement the planner prices instead of searching one.
#include "launch/tensor_pattern.h"
#include "planner/planner_internal.h"

#include <regex>

namespace headroom::detail {

namespace {

// The tensor names llama.cpp's loader gives one block's weights (LLM_TENSOR_NAMES, "blk.%d.…"),
// grouped the way placement moves them. Enough names to tell which group a pattern selects; the
// byte figures come from the shape, so a name missing from a real file changes nothing.
struct BlockNames {
    std::vector<std::string> experts, ffn, attn;
};

BlockNames blockNames(const LayerShape& l, std::uint32_t il) {
    const std::string b = "blk." + std::to_string(il) + ".";
    BlockNames n;
    if (l.experts_bytes > 0)
        for (const char* t : {"ffn_up_exps", "ffn_gate_exps", "ffn_down_exps"})
            n.experts.push_back(b + t + ".weight");
    if (l.ffn_bytes > 0) {
        // A MoE block's dense part is its shared expert (ffn_*_shexp); otherwise the plain FFN.
        const bool shared = l.experts_bytes > 0;
        for (const char* t : {"ffn_up", "ffn_gate", "ffn_down"})
            n.ffn.push_back(b + t + (shared ? "_shexp" : "") + ".weight");
    }
    if (l.isRecurrent()) {
        for (const char* t : {"attn_norm", "ssm_in", "ssm_conv1d", "ssm_out"})
            n.attn.push_back(b + t + ".weight");
    } else if (l.isMla()) {
        for (const char* t :
             {"attn_norm", "attn_q_a", "attn_q_b", "attn_kv_a_mqa", "attn_kv_b", "attn_output"})
            n.attn.push_back(b + t + ".weight");
    } else {
        for (const char* t : {"attn_norm", "attn_q", "attn_k", "attn_v", "attn_output"})
            n.attn.push_back(b + t + ".weight");
    }
    return n;
}

} // namespace

Result<std::vector<BlockMoves>> tensorMoves(const ModelShape& model,
                                            const std::vector<TensorOverride>& overrides) {
    std::vector<BlockMoves> moves(model.nLayer());
    if (overrides.empty()) return moves;
    std::vector<std::regex> res;
    for (const auto& o : overrides) {
        if (o.device != "CPU")
            return makeError(ErrorCode::InvalidArgument,
                             "-ot " + o.text() + ": only the CPU target is priced",
                             "write REGEX=CPU; moving tensors to a named GPU is not modelled");
        auto re = compileTensorPattern(o.pattern);
        if (!re) return re.error();
        res.push_back(std::move(*re));
    }
    // llama_model_loader: the first override whose pattern regex_search-es the name wins; every
    // target here is the CPU, so "any pattern matches" is the same thing.
    auto matched = [&](const std::string& name) {
        for (const auto& re : res)
            if (std::regex_search(name, re)) return true;
        return false;
    };
    auto count = [&](const std::vector<std::string>& names) {
        std::uint8_t c = 0;
        for (const auto& n : names)
            c += matched(n) ? 1 : 0;
        return c;
    };
    for (std::uint32_t il = 0; il < model.nLayer(); ++il) {
        const BlockNames n = blockNames(model.layers[il], il);
        moves[il].expert_parts = count(n.experts);
        moves[il].ffn_parts = count(n.ffn);
        // Attention tensors differ in size; a pattern that takes any of the projections is taken
        // to mean the block's attention (how such patterns are written in practice).
        moves[il].attn = count(n.attn) > 0;
    }
    return moves;
}

PlacementChoice pinnedChoice(const ModelShape& model, const ResolvedOptions& opt,
                             const MemoryBudget& budget) {
    const PinnedPlacement& p = opt.pinned;
    const std::uint32_t n = model.nLayer();
    PlacementChoice c;
    // No -ngl beside other placement flags: llama.cpp's fit gives up ("already set by user") and
    // the default -ngl offloads every layer (llama_model_default_params).
    c.ngl = budget.devices.empty() ? 0 : (p.gpu_layers ? p.gpu_layers->resolve(n) : n + 1);
    // --cpu-moe is --n-cpu-moe over every block (common/arg.cpp writes one -ot per block).
    c.n_cpu_moe = p.cpu_moe ? n : std::min(p.n_cpu_moe.value_or(0), n);
    c.moves = opt.pinned_moves;
    c.split = p.tensor_split;
    c.split_mode = p.split_mode.value_or(SplitMode::Layer);
    return c;
}

} // namespace headroom::detail
