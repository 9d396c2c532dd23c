#include "launch/launch_config.h"

#include "launch/llama_defaults.h"
#include "launch/tensor_pattern.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

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
    case SplitMode::Tensor:
        return "tensor";
    }
    return "layer";
}

const char* ropeScalingName(RopeScaling r) {
    switch (r) {
    case RopeScaling::None:
        return "none";
    case RopeScaling::Linear:
        return "linear";
    case RopeScaling::Yarn:
        return "yarn";
    }
    return "none";
}

std::optional<RopeScaling> parseRopeScaling(std::string_view text) {
    if (text == "none") return RopeScaling::None;
    if (text == "linear") return RopeScaling::Linear;
    if (text == "yarn") return RopeScaling::Yarn;
    return std::nullopt;
}

std::optional<SplitMode> parseSplitMode(std::string_view text) {
    if (text == "layer") return SplitMode::Layer;
    if (text == "row") return SplitMode::Row;
    if (text == "none") return SplitMode::None;
    if (text == "tensor") return SplitMode::Tensor;
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
        if (auto re = compileTensorPattern(o.pattern); !re) return re.error();
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
    if (c.fit_min_ctx) add({"--fit-ctx", std::to_string(*c.fit_min_ctx)});
    if (c.load_mode) add({"--load-mode", loadModeName(*c.load_mode)});
    if (c.flash_attn != FlashAttn::Auto) add({"-fa", flashAttnName(c.flash_attn)});
    if (c.cache_type_k) add({"-ctk", std::string(ggmlTypeName(*c.cache_type_k))});
    if (c.cache_type_v) add({"-ctv", std::string(ggmlTypeName(*c.cache_type_v))});
    if (c.n_batch) add({"-b", std::to_string(*c.n_batch)});
    if (c.n_ubatch) add({"-ub", std::to_string(*c.n_ubatch)});
    add({"-np", std::to_string(c.n_parallel)});
    if (c.rope_scaling) add({"--rope-scaling", ropeScalingName(*c.rope_scaling)});
    if (c.rope_scale > 0) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", c.rope_scale);
        add({"--rope-scale", buf});
    }
    if (c.yarn_orig_ctx > 0) add({"--yarn-orig-ctx", std::to_string(c.yarn_orig_ctx)});
    if (c.kv_unified) add({"-kvu"});
    if (c.swa_full) add({"--swa-full"});
    if (!c.kv_offload) add({"-nkvo"});
    if (c.spec_draft_mtp) add({"--spec-type", "draft-mtp"});
    if (!c.draft_model.empty()) {
        if (c.draft_model.rfind("hf:", 0) == 0)
            add({"-hfd", c.draft_model.substr(3)});
        else
            add({"-md", c.draft_model});
        add({"--spec-type", "draft-simple"});
        if (c.draft_gpu_layers) add({"-ngld", c.draft_gpu_layers->text()});
        if (c.draft_cache_type_k) add({"-ctkd", std::string(ggmlTypeName(*c.draft_cache_type_k))});
        if (c.draft_cache_type_v) add({"-ctvd", std::string(ggmlTypeName(*c.draft_cache_type_v))});
    }
    if (c.spec_draft_n_max > 0) add({"--spec-draft-n-max", std::to_string(c.spec_draft_n_max)});
    if (c.backend_sampling) add({"-bs"});
    if (!c.op_offload) add({"--no-op-offload"});
    return a;
}

namespace {

// One of the placement flags that take a value (-ngl, -ot, -ts, -sm) with it.
Result<bool> parsePlacementFlag(LaunchConfig& c, const std::string& f, Result<std::string> v) {
    if (!v) return v.error();
    if (f == "-ngl") {
        auto g = parseGpuLayers(*v);
        if (!g) return g.error();
        c.gpu_layers = *g;
    } else if (f == "-ot") {
        auto o = parseTensorOverrides(*v);
        if (!o) return o.error();
        c.tensor_overrides.insert(c.tensor_overrides.end(), o->begin(), o->end());
    } else if (f == "-ts") {
        auto t = parseTensorSplit(*v);
        if (!t) return t.error();
        c.tensor_split = *t;
    } else {
        c.split_mode = parseSplitMode(*v);
        if (!c.split_mode) return bad("-sm '" + *v + "' is not valid", "layer, row, none, tensor");
    }
    return true;
}

// One of the draft model's flags (-md, -hfd, -ngld, -ctkd, -ctvd) with its value.
Result<bool> parseDraftFlag(LaunchConfig& c, const std::string& f, Result<std::string> v) {
    if (!v) return v.error();
    if (f == "-md" || f == "-hfd") {
        if (v->empty()) return bad(f + " needs a model", f + " FILE.gguf");
        c.draft_model = f == "-hfd" ? "hf:" + *v : *v;
    } else if (f == "-ngld") {
        auto g = parseGpuLayers(*v);
        if (!g) return bad("-ngld '" + *v + "' is not valid", g.error().details);
        c.draft_gpu_layers = *g;
    } else {
        const auto t = parseCacheType(*v);
        if (!t) return bad(f + " '" + *v + "' is not a cache type", "f16, q8_0, q4_0, …");
        (f == "-ctkd" ? c.draft_cache_type_k : c.draft_cache_type_v) = *t;
    }
    return true;
}

} // namespace

Result<LaunchConfig> parseLlamaServerArgs(const std::vector<std::string>& argv) {
    LaunchConfig c;
    bool spec_simple = false; // --spec-type draft-simple: only with the -md it belongs to
    auto u32 = [](const std::string& flag, const std::string& v) -> Result<std::uint32_t> {
        std::uint32_t n = 0;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (v.empty() || ec != std::errc() || end != v.data() + v.size())
            return bad(flag + " '" + v + "' is not a whole number", "e.g. " + flag + " 4096");
        return n;
    };
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& f = argv[i];
        auto value = [&]() -> Result<std::string> {
            if (i + 1 >= argv.size()) return bad(f + " needs a value", f + " VALUE");
            return argv[++i];
        };
        auto number = [&](std::uint32_t& out) -> Result<bool> {
            auto v = value();
            if (!v) return v.error();
            auto n = u32(f, *v);
            if (!n) return n.error();
            out = *n;
            return true;
        };
        Result<bool> ok = true;
        if (f == "-c") {
            ok = number(c.ctx_size);
        } else if (f == "--cpu-moe") {
            c.cpu_moe = true;
        } else if (f == "--n-cpu-moe") {
            ok = number(c.n_cpu_moe);
        } else if (f == "-ngl" || f == "-ot" || f == "-ts" || f == "-sm") {
            ok = parsePlacementFlag(c, f, value());
        } else if (f == "--fit") {
            auto v = value();
            if (!v) return v.error();
            if (*v != "on" && *v != "off") return bad("--fit '" + *v + "'", "on, off");
            c.fit = *v == "on";
        } else if (f == "--fit-target") {
            auto v = value();
            if (!v) return v.error();
            for (std::string_view part : splitAny(*v, ",")) {
                auto n = u32(f, std::string(part));
                if (!n) return n.error();
                c.fit_target_mib.push_back(*n);
            }
        } else if (f == "-fa") {
            auto v = value();
            if (!v) return v.error();
            if (*v == "on")
                c.flash_attn = FlashAttn::On;
            else if (*v == "off")
                c.flash_attn = FlashAttn::Off;
            else if (*v == "auto")
                c.flash_attn = FlashAttn::Auto;
            else
                return bad("-fa '" + *v + "' is not valid", "on, off, auto");
        } else if (f == "-ctk" || f == "-ctv") {
            auto v = value();
            if (!v) return v.error();
            const auto t = parseCacheType(*v);
            if (!t) return bad(f + " '" + *v + "' is not a cache type", "f16, q8_0, q4_0, …");
            (f == "-ctk" ? c.cache_type_k : c.cache_type_v) = *t;
        } else if (f == "-b" || f == "-ub") {
            std::uint32_t n = 0;
            ok = number(n);
            (f == "-b" ? c.n_batch : c.n_ubatch) = n;
        } else if (f == "-np") {
            ok = number(c.n_parallel);
        } else if (f == "-kvu") {
            c.kv_unified = true;
        } else if (f == "--swa-full") {
            c.swa_full = true;
        } else if (f == "-nkvo") {
            c.kv_offload = false;
        } else if (f == "--rope-scaling") {
            auto v = value();
            if (!v) return v.error();
            c.rope_scaling = parseRopeScaling(*v);
            if (!c.rope_scaling) return bad("--rope-scaling '" + *v + "'", "none, linear, yarn");
        } else if (f == "--rope-scale") {
            auto v = value();
            if (!v) return v.error();
            double x = 0;
            const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
            if (ec != std::errc() || end != v->data() + v->size() || !(x > 0))
                return bad("--rope-scale '" + *v + "' is not a factor", "e.g. 4");
            c.rope_scale = x;
        } else if (f == "--yarn-orig-ctx") {
            ok = number(c.yarn_orig_ctx);
        } else if (f == "--spec-type") {
            auto v = value();
            if (!v) return v.error();
            if (*v != "draft-mtp" && *v != "draft-simple")
                return bad("--spec-type '" + *v + "'", "draft-mtp, draft-simple");
            c.spec_draft_mtp = c.spec_draft_mtp || *v == "draft-mtp";
            spec_simple = spec_simple || *v == "draft-simple";
        } else if (f == "-md" || f == "-hfd" || f == "-ngld" || f == "-ctkd" || f == "-ctvd") {
            ok = parseDraftFlag(c, f, value());
        } else if (f == "--spec-draft-n-max") {
            ok = number(c.spec_draft_n_max);
        } else if (f == "-bs") {
            c.backend_sampling = true;
        } else if (f == "--no-op-offload") {
            c.op_offload = false;
        } else {
            return bad("'" + f + "' is not a flag Headroom writes", "see llamaServerArgs");
        }
        if (!ok) return ok.error();
    }
    if (spec_simple != !c.draft_model.empty())
        return bad(spec_simple ? "--spec-type draft-simple without a draft model"
                               : "a draft model without --spec-type draft-simple",
                   "-md FILE.gguf --spec-type draft-simple");
    return c;
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
