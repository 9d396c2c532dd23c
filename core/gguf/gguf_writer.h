// GgufWriter: writes GGUF v3 (or v2) headers — metadata of every value type and tensor infos —
// with the tensor data section left as a hole. The file is sized with ftruncate() to exactly
// what llama.cpp expects, so a header describing an 80B model costs a few KiB of disk. Used by
// tests, fixture generators, the fuzzer corpus and the benchmark; also the reference for what a
// well-formed header looks like.
//
// Layout written (llama.cpp ggml/src/gguf.cpp gguf_write_to_buf / gguf_init_from_file_impl):
//   "GGUF" u32 version, u64 n_tensors, u64 n_kv, kv pairs, tensor infos
//   (name, u32 n_dims, i64 ne[n_dims], u32 type, u64 offset), zero padding to `alignment`,
//   data section: each tensor's bytes padded to `alignment`, tensors in order.
#pragma once

#include "ggml_type.h"
#include "gguf/gguf_value.h"
#include "result.h"
#include "units.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace headroom {

// GGUF's default alignment when `general.alignment` is absent (gguf.h GGUF_DEFAULT_ALIGNMENT).
inline constexpr std::uint32_t kGgufDefaultAlignment = 32;

struct GgufTensorSpec {
    std::string name;
    std::vector<std::uint64_t> dims; // ne[0] (row length) first, as ggml orders them
    GgmlType type = GgmlType::F32;
    // Offset relative to the data section. Normally computed (previous tensor's end padded to
    // the alignment); set it only to produce deliberately malformed files.
    std::optional<std::uint64_t> offset_override;
};

class GgufWriter {
public:
    // Adds or replaces a metadata key; a replaced key keeps its original position.
    void set(const std::string& key, GgufValue value);
    void remove(const std::string& key);
    // Shorthand for set("general.alignment", u32). Must be a power of two for a valid file.
    void setAlignment(std::uint32_t alignment) {
        set("general.alignment", GgufValue::u32(alignment));
    }
    // 3 by default; 2 is the same layout (v3 only added big-endian files).
    void setVersion(std::uint32_t version) { version_ = version; }

    void addTensor(std::string name, std::vector<std::uint64_t> dims, GgmlType type);
    void addTensor(GgufTensorSpec spec);

    const std::vector<std::pair<std::string, GgufValue>>& metadata() const { return kv_; }
    const std::vector<GgufTensorSpec>& tensors() const { return tensors_; }

    // `general.alignment` if it is a u32, else the default.
    std::uint32_t alignment() const;
    // Bytes of one tensor's data: ggml_nbytes = ggmlRowBytes(type, ne[0]) x the other dims.
    static Bytes tensorBytes(const GgufTensorSpec& t);
    // Offset of tensor i relative to the data section (the override, if any).
    std::uint64_t tensorOffset(std::size_t i) const;

    // The encoded header, up to and including the padding before the data section (no padding
    // when there are no tensors, as llama.cpp only aligns when tensors follow).
    std::string header() const;
    // Where the data section starts (== header().size()).
    Bytes dataOffset() const;
    // Header + every tensor's bytes padded to the alignment: the size write() gives the file.
    Bytes fileSize() const;

    // Writes header() to a temporary file next to `path`, extends it with ftruncate() to
    // fileSize() (a sparse hole, no disk blocks) and renames it into place. Refuses to replace
    // an existing file unless `overwrite`. Returns the file size.
    Result<Bytes> write(const std::string& path, bool overwrite = false) const;

private:
    std::uint32_t version_ = 3;
    std::vector<std::pair<std::string, GgufValue>> kv_;
    std::vector<GgufTensorSpec> tensors_;
};

// Appends the encoding of `value` (type tag + payload) to `out`. Exposed for tests that splice
// hand-made bytes.
void encodeGgufValue(std::string& out, const GgufValue& value);

} // namespace headroom
