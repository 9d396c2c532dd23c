#include "policy/placement.h"

namespace headroom::policy {

namespace {
bool isSpillableRecurrent(const LayerShape& l) {
    return l.isRecurrent() && !l.is_mtp;
}
} // namespace

std::vector<std::uint32_t> recurrentSpillBlocks(const ModelShape& model,
                                                std::optional<Bytes> spill_bytes) {
    std::vector<std::uint32_t> all;
    bool unknown = false;
    for (std::uint32_t il = 0; il < model.nLayer(); ++il) {
        const LayerShape& l = model.layers[il];
        if (!isSpillableRecurrent(l)) continue;
        all.push_back(il);
        if (satAdd(l.ffn_bytes, l.experts_bytes) == 0) unknown = true;
    }
    if (!spill_bytes || unknown) return all;

    std::vector<std::uint32_t> chosen;
    Bytes covered = 0;
    for (std::uint32_t il : all) {
        if (covered >= *spill_bytes) break;
        chosen.push_back(il);
        covered =
            satAdd(covered, satAdd(model.layers[il].ffn_bytes, model.layers[il].experts_bytes));
    }
    return chosen; // all of them when even all fall short
}

std::string hybridFfnOverride(const std::vector<std::uint32_t>& blocks) {
    if (blocks.empty()) return {};
    // llama.cpp matches -ot patterns with std::regex_search on the tensor name
    // (src/llama-model-loader.cpp, the tensor_buft_overrides loop). `blk\.` before the group and
    // `\.` after it anchor whole block numbers: (1|2) cannot match blk.11 or blk.21.
    std::string p = R"(blk\.()";
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        if (i) p += '|';
        p += std::to_string(blocks[i]);
    }
    p += R"()\.ffn_.*\.weight=CPU)";
    return p;
}

SpillOverride spillOverride(const ModelShape& model, bool weights_spill, bool uma,
                            std::optional<Bytes> spill_bytes) {
    SpillOverride o;
    if (!weights_spill || uma) return o;
    if (model.isMoe()) {
        o.override_tensor = kMoeExpertsToCpuOverride;
        return o;
    }
    if (model.hasRecurrent()) {
        o.ffn_blocks_to_host = recurrentSpillBlocks(model, spill_bytes);
        o.override_tensor = hybridFfnOverride(o.ffn_blocks_to_host);
    }
    return o;
}

} // namespace headroom::policy
