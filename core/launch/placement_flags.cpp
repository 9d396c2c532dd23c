#include "launch/placement_flags.h"

namespace headroom {

namespace {

Error badFlag(const std::string& flag, const std::string& value, const std::string& accepted) {
    return makeError(ErrorCode::InvalidArgument, flag + " '" + value + "' is not valid",
                     "accepted: " + accepted);
}

} // namespace

Result<PinnedPlacement> readPlacementFlags(const PlacementFlags& f) {
    PinnedPlacement p;
    if (!f.gpu_layers.empty()) {
        auto g = parseGpuLayers(f.gpu_layers);
        if (!g) return g.error();
        p.gpu_layers = *g;
    }
    if (!f.n_cpu_moe.empty()) {
        auto n = parseGpuLayers(f.n_cpu_moe); // a plain count, the same grammar
        if (!n || n->kind != GpuLayers::Kind::Count)
            return badFlag("--n-cpu-moe", f.n_cpu_moe, "a number of MoE blocks, 0 or more");
        p.n_cpu_moe = n->count;
    }
    p.cpu_moe = f.cpu_moe;
    if (p.cpu_moe && p.n_cpu_moe)
        return makeError(ErrorCode::InvalidArgument, "give --cpu-moe or --n-cpu-moe, not both");
    for (const auto& ot : f.override_tensor) {
        auto list = parseTensorOverrides(ot);
        if (!list) return list.error();
        p.tensor_overrides.insert(p.tensor_overrides.end(), list->begin(), list->end());
    }
    if (!f.tensor_split.empty()) {
        auto ts = parseTensorSplit(f.tensor_split);
        if (!ts) return ts.error();
        p.tensor_split = *ts;
    }
    if (!f.split_mode.empty()) {
        auto sm = parseSplitMode(f.split_mode);
        if (!sm) return badFlag("-sm/--split-mode", f.split_mode, "layer, row, none, tensor");
        p.split_mode = *sm;
    }
    return p;
}

} // namespace headroom
