// GGUF header parse benchmark. Generates large, realistic headers with GgufWriter (data
// sections are sparse holes), then times readGgufFile() on each and prints ms per file and MB/s
// of header parsed. bench/gguf_compare.sh runs @huggingface/gguf on the same files.
//
//   bench_gguf [--dir DIR] [--iterations N] [--list]
//     --dir DIR       where to write the files (default: a fresh temporary folder, removed after)
//     --iterations N  timed reads per file after one warm-up (default 20)
//     --list          print "name<TAB>path<TAB>wall_ms<TAB>cpu_ms<TAB>wall_ms_decoded" lines
//                     only (for the script)
#include "gguf/gguf_reader.h"
#include "gguf/gguf_writer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <time.h>
#include <unistd.h>
#include <vector>

using namespace headroom;
namespace fs = std::filesystem;

namespace {

// Byte-level BPE-looking token text: short, mostly ASCII, some multi-byte.
std::string tokenText(std::size_t i) {
    static const char* pieces[] = {"Ġthe", "ing", "Ġa", "ed", "Ġ", "ation", "ä¸Ń", "er", "Ċ"};
    return std::string(pieces[i % 9]) + std::to_string(i);
}

void addTokenizer(GgufWriter& w, std::size_t n_vocab, bool merges, bool scores) {
    std::vector<std::string> tokens(n_vocab);
    for (std::size_t i = 0; i < n_vocab; ++i)
        tokens[i] = tokenText(i);
    w.set("tokenizer.ggml.model", GgufValue::string(merges ? "gpt2" : "llama"));
    w.set("tokenizer.ggml.tokens", GgufValue::array(GgufArray::ofStrings(tokens)));
    w.set("tokenizer.ggml.token_type",
          GgufValue::array(GgufArray::ofInt32(std::vector<std::int32_t>(n_vocab, 1))));
    if (scores) {
        std::vector<float> s(n_vocab);
        for (std::size_t i = 0; i < n_vocab; ++i)
            s[i] = -static_cast<float>(i);
        w.set("tokenizer.ggml.scores", GgufValue::array(GgufArray::ofFloat32(s)));
    }
    if (merges) {
        std::vector<std::string> m(n_vocab - 256);
        for (std::size_t i = 0; i < m.size(); ++i)
            m[i] = tokenText(i) + " " + tokenText(i + 1);
        w.set("tokenizer.ggml.merges", GgufValue::array(GgufArray::ofStrings(m)));
    }
    w.set("tokenizer.ggml.bos_token_id", GgufValue::u32(1));
    w.set("tokenizer.ggml.eos_token_id", GgufValue::u32(2));
    w.set("tokenizer.chat_template", GgufValue::string(std::string(6000, 'j')));
}

void addDenseLayers(GgufWriter& w, const std::string& arch, int layers, std::uint64_t embd,
                    std::uint64_t ff, std::uint64_t vocab) {
    w.set("general.architecture", GgufValue::string(arch));
    w.set(arch + ".block_count", GgufValue::u32(static_cast<std::uint32_t>(layers)));
    w.set(arch + ".embedding_length", GgufValue::u32(static_cast<std::uint32_t>(embd)));
    w.set(arch + ".context_length", GgufValue::u32(131072));
    w.addTensor("token_embd.weight", {embd, vocab}, GgmlType::Q4_K);
    for (int l = 0; l < layers; ++l) {
        const std::string b = "blk." + std::to_string(l) + ".";
        w.addTensor(b + "attn_norm.weight", {embd}, GgmlType::F32);
        w.addTensor(b + "attn_q.weight", {embd, embd}, GgmlType::Q4_K);
        w.addTensor(b + "attn_k.weight", {embd, embd / 8}, GgmlType::Q4_K);
        w.addTensor(b + "attn_v.weight", {embd, embd / 8}, GgmlType::Q6_K);
        w.addTensor(b + "attn_output.weight", {embd, embd}, GgmlType::Q4_K);
        w.addTensor(b + "ffn_norm.weight", {embd}, GgmlType::F32);
        w.addTensor(b + "ffn_gate.weight", {embd, ff}, GgmlType::Q4_K);
        w.addTensor(b + "ffn_up.weight", {embd, ff}, GgmlType::Q4_K);
        w.addTensor(b + "ffn_down.weight", {ff, embd}, GgmlType::Q6_K);
    }
    w.addTensor("output_norm.weight", {embd}, GgmlType::F32);
    w.addTensor("output.weight", {embd, vocab}, GgmlType::Q6_K);
}

struct Case {
    std::string name;
    std::string path;
};

std::vector<Case> generate(const fs::path& dir) {
    std::vector<Case> cases;
    auto save = [&](const std::string& name, const GgufWriter& w) {
        const std::string path = (dir / (name + ".gguf")).string();
        const auto r = w.write(path, true);
        if (!r) {
            std::fprintf(stderr, "cannot write %s: %s\n", path.c_str(), r.error().message.c_str());
            std::exit(1);
        }
        cases.push_back({name, path});
    };
    {
        // Qwen2.5-7B shape: 151936-token BPE vocab with merges, 28 dense layers.
        GgufWriter w;
        addTokenizer(w, 151936, /*merges=*/true, /*scores=*/false);
        addDenseLayers(w, "qwen2", 28, 3584, 18944, 151936);
        save("qwen2-7b-vocab152k", w);
    }
    {
        // Gemma-3 shape: 262144-token SentencePiece vocab with scores, 62 layers.
        GgufWriter w;
        addTokenizer(w, 262144, /*merges=*/false, /*scores=*/true);
        addDenseLayers(w, "gemma3", 62, 5376, 21504, 262144);
        save("gemma3-27b-vocab262k", w);
    }
    {
        // Mixtral-style MoE with per-expert tensors: 94 layers x 128 experts x 3 = 36096
        // expert tensors plus attention, a many-tensor header.
        GgufWriter w;
        addTokenizer(w, 151936, true, false);
        const std::uint64_t embd = 4096, eff = 1536;
        w.set("general.architecture", GgufValue::string("qwen3moe"));
        w.set("qwen3moe.block_count", GgufValue::u32(94));
        w.set("qwen3moe.expert_count", GgufValue::u32(128));
        w.set("qwen3moe.expert_used_count", GgufValue::u32(8));
        w.addTensor("token_embd.weight", {embd, 151936}, GgmlType::Q4_K);
        for (int l = 0; l < 94; ++l) {
            const std::string b = "blk." + std::to_string(l) + ".";
            w.addTensor(b + "attn_norm.weight", {embd}, GgmlType::F32);
            w.addTensor(b + "attn_q.weight", {embd, 8192}, GgmlType::Q4_K);
            w.addTensor(b + "attn_k.weight", {embd, 512}, GgmlType::Q4_K);
            w.addTensor(b + "attn_v.weight", {embd, 512}, GgmlType::Q6_K);
            w.addTensor(b + "attn_output.weight", {8192, embd}, GgmlType::Q4_K);
            w.addTensor(b + "ffn_gate_inp.weight", {embd, 128}, GgmlType::F32);
            for (int e = 0; e < 128; ++e) {
                const std::string x = "." + std::to_string(e) + ".weight";
                w.addTensor(b + "ffn_gate" + x, {embd, eff}, GgmlType::Q4_K);
                w.addTensor(b + "ffn_up" + x, {embd, eff}, GgmlType::Q4_K);
                w.addTensor(b + "ffn_down" + x, {eff, embd}, GgmlType::Q6_K);
            }
        }
        w.addTensor("output.weight", {embd, 151936}, GgmlType::Q6_K);
        save("qwen3moe-235b-36k-tensors", w);
    }
    return cases;
}

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// CPU time of this process: on a shared, loaded machine wall time mostly measures the
// scheduler, so both are printed.
double cpuMs() {
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    std::string dir_arg;
    int iterations = 20;
    bool list = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--dir" && i + 1 < argc)
            dir_arg = argv[++i];
        else if (a == "--iterations" && i + 1 < argc)
            iterations = std::max(1, std::atoi(argv[++i]));
        else if (a == "--list")
            list = true;
        else {
            std::fprintf(stderr, "usage: %s [--dir DIR] [--iterations N] [--list]\n", argv[0]);
            return 2;
        }
    }
    fs::path dir = dir_arg;
    const bool temp = dir.empty();
    if (temp) dir = fs::temp_directory_path() / ("bench_gguf." + std::to_string(::getpid()));
    fs::create_directories(dir);

    const auto cases = generate(dir);
    if (!list)
        std::printf("%-28s %9s %8s %9s %9s %8s %12s\n", "file", "header", "tensors", "wall ms",
                    "cpu ms", "MB/s cpu", "wall+decode*");
    for (const auto& c : cases) {
        std::vector<double> plain, decoded, cpu;
        Bytes header = 0;
        std::size_t tensors = 0;
        for (int i = 0; i <= iterations; ++i) {
            auto t0 = Clock::now();
            const double c0 = cpuMs();
            const auto f = readGgufFile(c.path);
            const double ms = msSince(t0);
            const double cms = cpuMs() - c0;
            if (!f) {
                std::fprintf(stderr, "%s\n", f.error().message.c_str());
                return 1;
            }
            header = f->data_offset;
            tensors = f->tensors.size();
            // The same read plus materialising every token and merge string, which is what a
            // parser without lazy arrays always does.
            t0 = Clock::now();
            const auto g = readGgufFile(c.path);
            std::size_t n = 0;
            for (const auto& [k, v] : g->metadata)
                if (const GgufArray* a = v.asArray())
                    n += a->elementType() == GgufValueType::String ? a->strings().size()
                                                                   : a->floats().size();
            const double ms2 = msSince(t0);
            if (n == 0) return 1;
            if (i > 0) { // first round warms the page cache
                plain.push_back(ms);
                cpu.push_back(cms);
                decoded.push_back(ms2);
            }
        }
        const double mb = static_cast<double>(header) / 1e6;
        const double m1 = median(plain), m2 = median(decoded), mc = median(cpu);
        if (list)
            std::printf("%s\t%s\t%.3f\t%.3f\t%.3f\n", c.name.c_str(), c.path.c_str(), m1, mc, m2);
        else
            std::printf("%-28s %7.2fMB %8zu %9.3f %9.3f %8.0f %12.3f\n", c.name.c_str(), mb,
                        tensors, m1, mc, mb / (mc / 1e3), m2);
    }
    if (!list)
        std::printf("median of %d reads after a warm-up; * also decodes every array element into "
                    "std::string/double\n",
                    iterations);
    if (temp) fs::remove_all(dir);
    return 0;
}
