// Development tool (not part of the product): asks the llama.cpp shipped in node-llama-cpp@3.21.1
// which tensors its loader creates for a given set of hyperparameters, so the validation GGUF
// files carry exactly the names and shapes llama.cpp's load_tensors (src/llama-model.cpp) wants.
//
// How: llama_model_init_from_user (src/llama.cpp) runs the real load_tensors on metadata only;
// with no_alloc it allocates nothing. Every tensor the architecture asks for passes through
// llama_model_loader::create_tensor (src/llama-model-loader.cpp), which libllama calls through
// its PLT; this executable defines that symbol (exported with -rdynamic, so the dynamic linker
// binds libllama's calls to it first), records name, shape and flags, and hands back a
// metadata-only tensor so load_tensors carries on exactly as it would for a file that has it.
//
// Optional tensors (TENSOR_NOT_REQUIRED) exist only when a regex in the spec's "keep" list
// matches them: the real checkpoint ships them (models.js says which, per family).
//
// Input (stdin): JSON {"kv": {key: [type, value]}, "keep": [regex...]}; output (stdout): JSON [[name, [ne0, ne1, ...]], ...].
// Build: see tests/validation/README.md.
#include <cstdio>
#include <cstring>
#include <deque>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ggml-backend.h"
#include "ggml.h"
#include "gguf.h"
#include "llama.h"

// Declarations matching the C++ symbols exported by libllama (src/llama-arch.h,
// src/llama-model-loader.h of that build); only the layout of LLM_TN_IMPL is read.
struct llama_hparams;
struct LLM_TN_IMPL {
    int arch;
    int tensor;
    const char * suffix;
    int bid;
    int xid;
    std::string str() const; // defined in libllama
};
using buft_list_t = std::vector<std::pair<ggml_backend_dev_t, ggml_backend_buffer_type_t>>;
struct llama_model_loader {
    ggml_tensor * create_tensor(const llama_hparams &, const buft_list_t *, const buft_list_t *, const buft_list_t *,
                                const buft_list_t *, const LLM_TN_IMPL & tn, const std::initializer_list<int64_t> & ne,
                                int flags);
};

namespace {
// llama_model_loader flags (src/llama-model-loader.h)
constexpr int kNotRequired = 1 << 0;
struct Seen {
    std::string name;
    std::vector<int64_t> ne;
    int flags;
};
std::vector<Seen> g_seen;
std::map<std::string, size_t> g_index;
std::deque<ggml_tensor> g_fake;
std::vector<std::regex> g_keep;
} // namespace

ggml_tensor * llama_model_loader::create_tensor(const llama_hparams &, const buft_list_t *, const buft_list_t *,
                                                const buft_list_t *, const buft_list_t *, const LLM_TN_IMPL & tn,
                                                const std::initializer_list<int64_t> & ne, int flags) {
    const std::string name = tn.str();
    for (int64_t d : ne) {
        if (d <= 0) {
            if (flags & kNotRequired) return nullptr;
            fprintf(stderr, "required tensor %s has a dimension <= 0\n", name.c_str());
            exit(1);
        }
    }
    // An optional tensor is present only when the real checkpoint ships it (spec "keep");
    // returning null lets load_tensors take the path a real file without it takes.
    if (flags & kNotRequired) {
        bool keep = false;
        for (auto & re : g_keep) keep = keep || std::regex_search(name, re);
        if (!keep) return nullptr;
    }
    auto it = g_index.find(name);
    if (it == g_index.end()) {
        g_index[name] = g_seen.size();
        g_seen.push_back({name, std::vector<int64_t>(ne.begin(), ne.end()), flags});
    } else {
        g_seen[it->second].flags &= flags; // required if any caller requires it
    }
    ggml_tensor & t = g_fake.emplace_back();
    memset(&t, 0, sizeof t);
    t.type = GGML_TYPE_F32;
    size_t i = 0;
    for (; i < GGML_MAX_DIMS; ++i) t.ne[i] = i < ne.size() ? ne.begin()[i] : 1;
    t.nb[0] = sizeof(float);
    for (i = 1; i < GGML_MAX_DIMS; ++i) t.nb[i] = t.nb[i - 1] * t.ne[i - 1];
    snprintf(t.name, sizeof t.name, "%s", name.c_str());
    return &t;
}

static void quiet_log(ggml_log_level level, const char * text, void *) {
    if (level == GGML_LOG_LEVEL_ERROR || getenv("ENUM_VERBOSE")) fputs(text, stderr);
}

int main(int argc, char ** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s BACKEND_DIR < spec.json > tensors.json\n", argv[0]);
        return 2;
    }
    nlohmann::json spec = nlohmann::json::parse(std::cin);
    if (spec.contains("keep"))
        for (auto & k : spec["keep"]) g_keep.emplace_back(k.get<std::string>());
    llama_log_set(quiet_log, nullptr);
    ggml_backend_load_all_from_path(argv[1]);
    llama_backend_init();

    gguf_context * meta = gguf_init_empty();
    for (auto & [key, tv] : spec.at("kv").items()) {
        const std::string t = tv.at(0);
        const auto & v = tv.at(1);
        if (t == "u32") gguf_set_val_u32(meta, key.c_str(), v.get<uint32_t>());
        else if (t == "i32") gguf_set_val_i32(meta, key.c_str(), v.get<int32_t>());
        else if (t == "u64") gguf_set_val_u64(meta, key.c_str(), v.get<uint64_t>());
        else if (t == "f32") gguf_set_val_f32(meta, key.c_str(), v.get<float>());
        else if (t == "bool") gguf_set_val_bool(meta, key.c_str(), v.get<bool>());
        else if (t == "str") gguf_set_val_str(meta, key.c_str(), v.get<std::string>().c_str());
        else if (t == "arr_u32" || t == "arr_i32") {
            std::vector<int32_t> a = v.get<std::vector<int32_t>>();
            gguf_set_arr_data(meta, key.c_str(), t == "arr_u32" ? GGUF_TYPE_UINT32 : GGUF_TYPE_INT32, a.data(), a.size());
        } else if (t == "arr_f32") {
            std::vector<float> a = v.get<std::vector<float>>();
            gguf_set_arr_data(meta, key.c_str(), GGUF_TYPE_FLOAT32, a.data(), a.size());
        } else if (t == "arr_bool") {
            std::vector<int8_t> a;
            for (bool b : v.get<std::vector<bool>>()) a.push_back(b ? 1 : 0);
            gguf_set_arr_data(meta, key.c_str(), GGUF_TYPE_BOOL, a.data(), a.size());
        } else if (t == "arr_str") {
            continue; // token lists are irrelevant to the tensor layout
        } else {
            fprintf(stderr, "unknown kv type %s for %s\n", t.c_str(), key.c_str());
            return 2;
        }
    }
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    mp.no_alloc = true;
    llama_model * model = llama_model_init_from_user(meta, [](ggml_tensor *, void *) {}, nullptr, mp);
    if (!model) {
        fprintf(stderr, "llama.cpp refused the hyperparameters\n");
        return 1;
    }
    nlohmann::json out = nlohmann::json::array();
    for (auto & s : g_seen) {
        nlohmann::json e = {s.name, s.ne};
        if (s.flags & kNotRequired) e.push_back("optional");
        out.push_back(e);
    }
    std::cout << out.dump() << "\n";
    llama_model_free(model);
    gguf_free(meta);
    return 0;
}
