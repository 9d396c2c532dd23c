#include "launch/launch_config.h"

#include "launch/llama_defaults.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <regex>

namespace headroom {

namespace {

Error bad(std::string message, std::string accepted) {
    return makeError(ErrorCode::InvalidArgument, std::move(message), std::move(accepted));
}

std::vector<std::string_view> splitAny(std::string_view text, std::string_view seps) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i)
        if (i == text.size() || seps.find(text[i]) != std::string_view::npos) {
            parts.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    return parts;
}

} // namespace

const char* flashAttnName(FlashAttn f) {
    switch (f) {
    case FlashAttn::On:
        return "on";
    case FlashAttn::Off:
        return "off";
    case FlashAttn::Auto:
        return "auto";
    }
    return "auto";
}

const char* splitModeName(SplitMode m) {
    switch (m) {
    case SplitMode::Layer:
        return "layer";
    case SplitMode::Row:
        return "row";
    case SplitMode::None:
        return "none";
    }
    return "layer";
}

std::optional<SplitMode> parseSplitMode(std::string_view text) {
    if (text == "layer") return SplitMode::Layer;
    if (text == "row") return SplitMode::Row;
    if (text == "none") return SplitMode::None;
    return std::nullopt;
}

std::uint32_t GpuLayers::resolve(std::uint32_t n_layer) const {
    // llama_model::load_tensors clamps to n_layer + 1 (the output layer counts as one).
    if (kind == Kind::Count) return std::min(count, n_layer + 1);
    return n_layer + 1;
}

std::string GpuLayers::text() const {
    switch (kind) {
    case Kind::Count:
        return std::to_string(count);
    case Kind::All:
        return "all";
    case Kind::Auto:
        return "auto";
    }
    return "auto";
}

Result<GpuLayers> parseGpuLayers(std::string_view text) {
    if (text == "auto" || text == "-1") return GpuLayers::automatic();
    if (text == "all") return GpuLayers::all();
    std::uint32_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        return bad("-ngl/--gpu-layers '" + std::string(text) + "' is not valid",
                   "accepted: a number of layers (0 or more), auto or all");
    return GpuLayers::of(n);
}

Result<std::vector<TensorOverride>> parseTensorOverrides(std::string_view text) {
    std::vector<TensorOverride> out;
    for (std::string_view item : splitAny(text, ",")) {
        const size_t eq = item.find('=');
        if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
            return bad("-ot/--override-tensor '" + std::string(item) + "' is not valid",
                       "accepted: REGEX=DEVICE, e.g. \\.ffn_(up|down|gate)_exps=CPU");
        TensorOverride o{std::string(item.substr(0, eq)), std::string(item.substr(eq + 1))};
        try {
            const std::regex re(o.pattern);
            (void)re;
        } catch (const std::regex_error& e) {
            return bad("-ot/--override-tensor: '" + o.pattern +
                           "' is not a valid regular expression",
                       e.what());
        }
        out.push_back(std::move(o));
    }
    return out;
}

Result<std::vector<double>> parseTensorSplit(std::string_view text) {
    std::vector<double> out;
    // common/arg.cpp --tensor-split splits on ',', '/' and ';'.
    for (std::string_view item : splitAny(text, ",/;")) {
        double v = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (item.empty() || ec != std::errc() || end != item.data() + item.size() ||
            !std::isfinite(v) || v < 0)
            return bad("-ts/--tensor-split '" + std::string(text) + "' is not valid",
                       "accepted: non-negative proportions per GPU, e.g. 3,1");
        out.push_back(v);
    }
    return out;
}

std::string tensorSplitText(const std::vector<double>& split) {
    std::string s;
    for (double v : split) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", v);
        s += (s.empty() ? "" : ",") + std::string(buf);
    }
    return s;
}

GgmlType LaunchConfig::typeK() const {
    return cache_type_k.value_or(llama::kDefaultCacheType);
}
GgmlType LaunchConfig::typeV() const {
    return cache_type_v.value_or(llama::kDefaultCacheType);
}
std::uint32_t LaunchConfig::batch() const {
    return n_batch.value_or(llama::kDefaultBatch);
}
std::uint32_t LaunchConfig::ubatch() const {
    return n_ubatch.value_or(llama::kDefaultUbatch);
}

std::vector<std::string> llamaServerArgs(const LaunchConfig& c) {
    std::vector<std::string> a;
    auto add = [&](std::initializer_list<std::string> xs) { a.insert(a.end(), xs); };
    add({"-c", std::to_string(c.ctx_size)});
    if (!c.rpc_servers.empty()) {
        std::string r;
        for (const auto& e : c.rpc_servers)
            r += (r.empty() ? "" : ",") + e;
        add({"--rpc", r});
    }
    if (c.gpu_layers) add({"-ngl", c.gpu_layers->text()});
    if (c.cpu_moe) add({"--cpu-moe"});
    if (c.n_cpu_moe > 0) add({"--n-cpu-moe", std::to_string(c.n_cpu_moe)});
    for (const auto& o : c.tensor_overrides)
        add({"-ot", o.text()});
    if (!c.tensor_split.empty()) add({"-ts", tensorSplitText(c.tensor_split)});
    if (c.split_mode) add({"-sm", splitModeName(*c.split_mode)});
    if (c.fit) add({"--fit", *c.fit ? "on" : "off"});
    if (!c.fit_target_mib.empty()) {
        std::string t;
        for (auto m : c.fit_target_mib)
            t += (t.empty() ? "" : ",") + std::to_string(m);
        add({"--fit-target", t});
    }
    if (c.flash_attn != FlashAttn::Auto) add({"-fa", flashAttnName(c.flash_attn)});
    if (c.cache_type_k) add({"-ctk", std::string(ggmlTypeName(*c.cache_type_k))});
    if (c.cache_type_v) add({"-ctv", std::string(ggmlTypeName(*c.cache_type_v))});
    if (c.n_batch) add({"-b", std::to_string(*c.n_batch)});
    if (c.n_ubatch) add({"-ub", std::to_string(*c.n_ubatch)});
    add({"-np", std::to_string(c.n_parallel)});
    if (c.kv_unified) add({"-kvu"});
    if (c.swa_full) add({"--swa-full"});
    if (!c.kv_offload) add({"-nkvo"});
    if (c.spec_draft_mtp) add({"--spec-type", "draft-mtp"});
    if (c.spec_draft_n_max > 0) add({"--spec-draft-n-max", std::to_string(c.spec_draft_n_max)});
    return a;
}

std::vector<std::string> changedArgs(const LaunchConfig& from, const LaunchConfig& to) {
    // Group argv into "flag value…" words; every value we write is a word not starting with '-'.
    auto groups = [](const std::vector<std::string>& argv) {
        std::vector<std::vector<std::string>> g;
        for (const auto& w : argv) {
            if (g.empty() || (w.size() > 1 && w[0] == '-')) g.emplace_back();
            g.back().push_back(w);
        }
        return g;
    };
    const auto before = groups(llamaServerArgs(from));
    std::vector<std::string> out;
    for (const auto& g : groups(llamaServerArgs(to)))
        if (std::find(before.begin(), before.end(), g) == before.end())
            out.insert(out.end(), g.begin(), g.end());
    return out;
}

} // namespace headroom
