// Writes the seed corpus for fuzz_gguf: small well-formed headers made by GgufWriter covering
// every value type, nested arrays, a tokenizer, many tensor types, a custom alignment, a v2
// file and a projector. Usage: make_gguf_corpus <dir>
#include "gguf/gguf_writer.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace headroom;

namespace {

// The fuzzer only needs the header plus enough data bytes for the tensors to fit, and keeps
// inputs small, so tensors here are tiny and the data section is written out (not a hole).
bool save(const std::filesystem::path& dir, const std::string& name, const GgufWriter& w) {
    std::string bytes = w.header();
    bytes.resize(w.fileSize(), '\0');
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(out);
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <corpus-dir>\n", argv[0]);
        return 2;
    }
    const std::filesystem::path dir(argv[1]);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    bool ok = true;

    {
        GgufWriter w;
        w.set("general.architecture", GgufValue::string("llama"));
        w.set("llama.context_length", GgufValue::u32(4096));
        w.set("llama.block_count", GgufValue::u32(2));
        w.set("llama.rope.freq_base", GgufValue::f32(10000.0f));
        w.addTensor("token_embd.weight", {32, 4}, GgmlType::Q8_0);
        w.addTensor("output_norm.weight", {32}, GgmlType::F32);
        ok &= save(dir, "llama_small.gguf", w);
        w.setVersion(2);
        ok &= save(dir, "llama_small_v2.gguf", w);
    }
    {
        GgufWriter w;
        w.set("u8", GgufValue::u8(1));
        w.set("i8", GgufValue::i8(-1));
        w.set("u16", GgufValue::u16(2));
        w.set("i16", GgufValue::i16(-2));
        w.set("u32", GgufValue::u32(3));
        w.set("i32", GgufValue::i32(-3));
        w.set("u64", GgufValue::u64(4));
        w.set("i64", GgufValue::i64(-4));
        w.set("f32", GgufValue::f32(0.5f));
        w.set("f64", GgufValue::f64(0.25));
        w.set("bool", GgufValue::boolean(true));
        w.set("str", GgufValue::string("text ✓"));
        w.set("arr_i32", GgufValue::array(GgufArray::ofInt32({1, -2, 3})));
        w.set("arr_f32", GgufValue::array(GgufArray::ofFloat32({1.0f, 2.0f})));
        w.set("arr_bool", GgufValue::array(GgufArray::ofBool({true, false})));
        w.set("arr_str", GgufValue::array(GgufArray::ofStrings({"a", "bc", ""})));
        w.set("arr_nested", GgufValue::array(GgufArray::ofArrays(
                                {GgufArray::ofUInt16({7}), GgufArray::ofStrings({"x"})})));
        ok &= save(dir, "every_value_type.gguf", w);
    }
    {
        GgufWriter w;
        std::vector<std::string> tokens, merges;
        for (int i = 0; i < 300; ++i)
            tokens.push_back("t" + std::to_string(i));
        for (int i = 0; i < 100; ++i)
            merges.push_back("t" + std::to_string(i) + " x");
        w.set("general.architecture", GgufValue::string("qwen2"));
        w.set("tokenizer.ggml.model", GgufValue::string("gpt2"));
        w.set("tokenizer.ggml.tokens", GgufValue::array(GgufArray::ofStrings(tokens)));
        w.set("tokenizer.ggml.token_type",
              GgufValue::array(GgufArray::ofInt32(std::vector<std::int32_t>(300, 1))));
        w.set("tokenizer.ggml.merges", GgufValue::array(GgufArray::ofStrings(merges)));
        ok &= save(dir, "tokenizer.gguf", w);
    }
    {
        GgufWriter w;
        w.setAlignment(64);
        std::uint32_t n = 0;
        for (std::uint32_t id = 0; id < 64; ++id)
            if (const auto t = ggmlTypeInfo(id))
                w.addTensor("blk." + std::to_string(n++) + ".w", {256}, t->type);
        ok &= save(dir, "every_ggml_type.gguf", w);
    }
    {
        GgufWriter w;
        w.set("general.architecture", GgufValue::string("clip"));
        w.set("clip.has_vision_encoder", GgufValue::boolean(true));
        w.set("split.no", GgufValue::u16(0));
        w.set("split.count", GgufValue::u16(2));
        w.addTensor("v.patch_embd.weight", {2, 2, 3, 4}, GgmlType::F16);
        ok &= save(dir, "projector_split.gguf", w);
    }
    if (!ok) {
        std::fprintf(stderr, "could not write the corpus into %s\n", argv[1]);
        return 1;
    }
    return 0;
}
