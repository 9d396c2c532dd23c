// The user's own placement ("what if"): -ngl, --n-cpu-moe/--cpu-moe, -ot, -ts and -sm turned into
// the placement the planner prices instead of searching one.
#include "launch/tensor_pattern.h"
#include "planner/planner_internal.h"

#include <algorithm>
#include <cctype>
#include <optional>
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

std::vector<std::string> deviceBufferNames(const MemoryBudget& budget) {
    std::vector<std::string> names;
    std::vector<std::string> seen; // one prefix per device, to number each backend's own
    for (const DeviceBudget& d : budget.devices) {
        // An RPC device's buffer type is named by its endpoint (ggml-rpc.cpp
        // ggml_backend_rpc_buffer_type: "RPC<n>[host:port]"), which -ot can name too.
        const auto b = backendFromName(d.backend);
        const std::string prefix =
            d.rpc_endpoint.empty() ? std::string(traitsOf(b.value_or(Backend::Cuda)).buffer_name)
                                   : std::string(rpcBackend().buffer_name);
        const auto n = std::count(seen.begin(), seen.end(), prefix);
        seen.push_back(prefix);
        names.push_back(prefix + std::to_string(n) +
                        (d.rpc_endpoint.empty() ? "" : "[" + d.rpc_endpoint + "]"));
    }
    return names;
}

Result<std::vector<BlockMoves>> tensorMoves(const ModelShape& model,
                                            const std::vector<TensorOverride>& overrides,
                                            const std::vector<std::string>* devices) {
    std::vector<BlockMoves> moves(model.nLayer());
    if (overrides.empty()) return moves;
    // common/arg.cpp parse_tensor_buffer_overrides: the target is a buffer type's name; an
    // unknown one is an error ("unknown buffer type"). -1 = the CPU.
    std::vector<int> target;
    std::vector<std::regex> res;
    for (const auto& o : overrides) {
        int t = -2;
        if (o.device == "CPU") {
            t = -1;
        } else if (devices) {
            const auto it = std::find(devices->begin(), devices->end(), o.device);
            if (it != devices->end()) t = static_cast<int>(it - devices->begin());
        } else {
            // Without the machine: any backend's prefix and a device number.
            for (const BackendTraits* b : allBackends()) {
                const std::string_view p = b->buffer_name;
                if (b->gpu && o.device.size() > p.size() && o.device.compare(0, p.size(), p) == 0 &&
                    std::isdigit(static_cast<unsigned char>(o.device[p.size()])))
                    t = 0;
            }
        }
        if (t == -2) {
            std::string known = "CPU";
            if (devices)
                for (const auto& n : *devices)
                    known += ", " + n;
            return makeError(ErrorCode::InvalidArgument,
                             "-ot " + o.text() + ": '" + o.device + "' is not a buffer type of " +
                                 (devices ? "this machine" : "any backend"),
                             "targets: " + known);
        }
        auto re = compileTensorPattern(o.pattern);
        if (!re) return re.error();
        res.push_back(std::move(*re));
        target.push_back(t);
    }
    // llama_model_loader: the first override whose pattern regex_search-es the name wins.
    auto where = [&](const std::string& name) -> std::optional<int> {
        for (size_t k = 0; k < res.size(); ++k)
            if (std::regex_search(name, res[k])) return target[k];
        return std::nullopt;
    };
    for (std::uint32_t il = 0; il < model.nLayer(); ++il) {
        const BlockNames n = blockNames(model.layers[il], il);
        BlockMoves& m = moves[il];
        auto toDevice = [&](int dev) -> BlockMoves::ToDevice& {
            for (auto& t : m.to_devices)
                if (t.device == dev) return t;
            m.to_devices.push_back({dev, 0, 0, false});
            return m.to_devices.back();
        };
        auto place = [&](const std::vector<std::string>& names, auto cpu, auto dev) {
            for (const auto& name : names)
                if (const auto w = where(name); w) {
                    if (*w < 0)
                        cpu();
                    else if (devices)
                        dev(toDevice(*w));
                }
        };
        place(
            n.experts, [&] { ++m.expert_parts; },
            [](BlockMoves::ToDevice& t) { ++t.expert_parts; });
        place(
            n.ffn, [&] { ++m.ffn_parts; }, [](BlockMoves::ToDevice& t) { ++t.ffn_parts; });
        // Attention tensors differ in size; a pattern that takes any of the projections is taken
        // to mean the block's attention (how such patterns are written in practice).
        place(
            n.attn, [&] { m.attn = true; }, [](BlockMoves::ToDevice& t) { t.attn = true; });
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
