// Builds ShapeInput headers for the shape tests: the keys a converter (llama.cpp
// convert_hf_to_gguf.py) writes, with the architecture prefix filled in.
#pragma once

#include "arch/shape_from_gguf.h"

#include <QtTest/QtTest>

#include <string>
#include <vector>

namespace headroom::test {

class Header {
public:
    explicit Header(std::string arch) : arch_(std::move(arch)) {
        in_.id = arch_ + ".gguf";
        in_.meta["general.architecture"] = GgufValue::string(arch_);
    }
    // <arch>.<suffix> = u32
    Header& u32(const std::string& suffix, std::uint32_t v) {
        in_.meta[arch_ + "." + suffix] = GgufValue::u32(v);
        return *this;
    }
    // <arch>.<suffix> = [u32...] (per-layer arrays)
    Header& arr(const std::string& suffix, const std::vector<std::uint32_t>& v) {
        in_.meta[arch_ + "." + suffix] = GgufValue::array(GgufArray::ofUInt32(v));
        return *this;
    }
    Header& bools(const std::string& suffix, const std::vector<bool>& v) {
        in_.meta[arch_ + "." + suffix] = GgufValue::array(GgufArray::ofBool(v));
        return *this;
    }
    Header& raw(const std::string& key, GgufValue v) {
        in_.meta[key] = std::move(v);
        return *this;
    }
    // The usual transformer block: context, width, blocks, heads, KV heads, head sizes.
    Header& transformer(std::uint32_t ctx, std::uint32_t n_embd, std::uint32_t n_layer,
                        std::uint32_t n_head, std::uint32_t n_head_kv, std::uint32_t head_dim) {
        u32("context_length", ctx).u32("embedding_length", n_embd).u32("block_count", n_layer);
        u32("attention.head_count", n_head).u32("attention.head_count_kv", n_head_kv);
        return u32("attention.key_length", head_dim).u32("attention.value_length", head_dim);
    }
    Header& tensor(const std::string& name, std::vector<std::uint64_t> dims, GgmlType type) {
        GgufTensorDesc t;
        t.name = name;
        t.type = type;
        Bytes b = dims.empty() ? 0 : ggmlRowBytes(type, dims[0]);
        for (std::size_t i = 1; i < dims.size(); ++i)
            b *= dims[i];
        t.bytes = b;
        t.dims = std::move(dims);
        in_.tensors.push_back(std::move(t));
        return *this;
    }
    const ShapeInput& input() const { return in_; }
    ModelShape shape() const {
        auto r = shapeFromInput(in_);
        if (!r) qFatal("shapeFromInput failed: %s", r.error().message.c_str());
        return r.value();
    }

private:
    std::string arch_;
    ShapeInput in_;
};

// Counts layers of one kind.
inline int countKind(const ModelShape& s, AttentionKind k) {
    int n = 0;
    for (const auto& l : s.layers)
        if (l.attention == k) ++n;
    return n;
}

} // namespace headroom::test
