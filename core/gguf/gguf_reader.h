// GGUF header reader: metadata and tensor infos of GGUF v2/v3 files, never tensor data.
//
// What it checks mirrors llama.cpp's own loader (ggml/src/gguf.cpp gguf_init_from_file_impl) so
// a file we accept is one llama.cpp would open, plus a few stricter checks (zero-sized
// tensors, invalid UTF-8 in keys, string values and tensor names). Strings inside arrays (token
// texts, merges) are not UTF-8-checked: byte-level vocabularies can hold partial sequences that
// llama.cpp accepts, and they are only decoded on request. Nested arrays, which the GGUF spec
// allows but llama.cpp refuses, are read (to a bounded depth). Every failure is an Error whose
// message names the byte offset and the problem; memory is bounded by the file size because every
// count and length read from the file is checked against the bytes that remain before anything
// is allocated.
//
// Typical use:
//   auto f = readGgufFile(path);                    // one file
//   if (!f) return f.error();
//   f->getString("general.architecture");           // "llama"
//   f->getUInt("llama.context_length");             // any integer type
//   f->arrayLength("tokenizer.ggml.tokens");        // n_vocab, nothing decoded
//   for (auto& t : f->tensors) t.bytes;             // ggml_nbytes of each tensor
//
//   auto m = openGgufModel(path);                   // one model, split parts joined
//   m->tensor_bytes; m->complete; m->missing_parts; m->is_projector; m->metadata()
#pragma once

#include "ggml_type.h"
#include "gguf/gguf_value.h"
#include "result.h"
#include "units.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace headroom {

// ggml's GGML_MAX_DIMS: tensors have at most 4 dimensions.
inline constexpr std::uint32_t kGgufMaxDims = 4;
// ggml's GGML_MAX_NAME is 64 including the NUL, so names are at most 63 bytes; llama.cpp
// refuses longer ones (gguf.cpp "tensor name is too long"). Not a knob.
inline constexpr std::size_t kGgufMaxTensorName = 63;
// The GGUF spec limits keys to 65535 bytes. Not a knob.
inline constexpr std::size_t kGgufMaxKeyLength = 65535;

struct GgufTensorInfo {
    std::string name;
    std::vector<std::uint64_t> dims; // ne[0] (row length) first; 1..4 entries
    GgmlType type = GgmlType::F32;
    std::uint64_t offset = 0;      // relative to the data section, as stored
    std::uint64_t file_offset = 0; // absolute: data_offset + offset
    Bytes bytes = 0;               // ggml_nbytes: ggmlRowBytes(type, ne[0]) x the other dims

    std::uint64_t elements() const;
};

struct GgufFile {
    std::string path; // "" when parsed from memory
    std::uint32_t version = 0;
    Bytes file_bytes = 0;
    std::uint32_t alignment = 32; // general.alignment or the default
    Bytes header_bytes = 0;       // where the tensor infos end
    Bytes data_offset = 0;        // header_bytes padded to the alignment (when tensors follow)
    Bytes tensor_bytes = 0;       // sum of tensors[i].bytes (unpadded)
    std::vector<std::pair<std::string, GgufValue>> metadata; // in file order
    std::vector<GgufTensorInfo> tensors;                     // in file order

    const GgufValue* find(std::string_view key) const;
    bool has(std::string_view key) const { return find(key) != nullptr; }
    // Typed getters: nullopt when the key is absent or does not convert (see GgufValue).
    std::optional<std::uint64_t> getUInt(std::string_view key) const; // any integer type
    std::optional<std::int64_t> getInt(std::string_view key) const;
    std::optional<double> getFloat(std::string_view key) const; // float or integer
    std::optional<bool> getBool(std::string_view key) const;
    std::optional<std::string> getString(std::string_view key) const;
    const GgufArray* getArray(std::string_view key) const;
    std::optional<std::uint64_t> arrayLength(std::string_view key) const;
    // Decoded arrays; empty when absent or of another element type.
    std::vector<std::int64_t> getIntArray(std::string_view key) const;
    std::vector<double> getFloatArray(std::string_view key) const;
    std::vector<std::string> getStringArray(std::string_view key) const;

    // general.architecture, or "" when absent.
    std::string architecture() const;
    // Multimodal projector (mmproj) files declare general.architecture = "clip"
    // (llama.cpp tools/mtmd/clip.cpp reads them with that architecture).
    bool isProjector() const { return architecture() == "clip"; }
    const GgufTensorInfo* findTensor(std::string_view name) const;

    static constexpr std::size_t npos = static_cast<std::size_t>(-1);
    // Rebuilds the key and tensor-name indexes after `metadata` or `tensors` is edited by hand
    // (the reader does it). Returns the index of the first tensor whose name repeats an earlier
    // one (only the first is indexed), or npos.
    std::size_t reindex();

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const {
            return std::hash<std::string_view>{}(s);
        }
    };
    std::unordered_map<std::string, std::size_t, Hash, std::equal_to<>> index_;
    std::unordered_map<std::string, std::size_t, Hash, std::equal_to<>> tensor_index_;
};

// Reads the header of the GGUF file at `path` (never its tensor data) through a small buffered
// reader. NotFound/IoError when it cannot be opened or read; ParseError/Truncated/Unsupported,
// naming the byte offset, when it is not a well-formed GGUF v2/v3 header.
Result<GgufFile> readGgufFile(const std::string& path);
// The same parser over bytes in memory (the fuzzer's entry point). `name` only labels errors.
Result<GgufFile> parseGguf(std::span<const std::uint8_t> bytes, const std::string& name = {});

// Where the reader gets bytes that are neither a local file nor a span in memory (the HTTP
// range reader of core/remote/ reads a header without downloading the file). The parser asks
// for bytes front to back, in chunks, and never past the header.
class GgufByteSource {
public:
    virtual ~GgufByteSource() = default;
    // The whole file's size: counts and lengths in the header are checked against it.
    virtual std::uint64_t size() const = 0;
    // Fills dst with exactly n bytes at offset (offset + n <= size()); false with `error` set
    // (the parser reports it as an I/O error at that offset).
    virtual bool readAt(std::uint64_t offset, char* dst, std::size_t n, std::string& error) = 0;
};
// The same parser over a byte source. `name` labels errors (and becomes GgufFile::path).
Result<GgufFile> readGguf(GgufByteSource& source, const std::string& name);

// "stem-00001-of-00003.gguf" as llama.cpp names split files (llama.cpp src/llama.cpp
// llama_split_path: "%s-%05d-of-%05d.gguf").
struct GgufSplitName {
    std::string stem; // full path up to "-00001-of-00003.gguf"
    int index = 0;    // 1-based
    int count = 0;
};
std::optional<GgufSplitName> parseGgufSplitName(std::string_view path);
std::string ggufSplitPath(std::string_view stem, int index, int count);

// One model as llama.cpp loads it: a single file, or every part of a split model.
struct GgufModel {
    std::string path;                       // what was opened
    std::vector<GgufFile> parts;            // parts found, in part order
    std::vector<std::string> missing_parts; // paths of parts that do not exist
    bool complete = true;                   // no part missing
    Bytes tensor_bytes = 0;                 // summed over the parts found
    Bytes file_bytes = 0;                   // summed over the parts found
    std::size_t tensor_count = 0;           // summed over the parts found
    bool is_projector = false;              // general.architecture == "clip"

    // Part 1 (llama.cpp reads hyper-parameters only from the first split); when part 1 itself
    // is missing, the first part found; an empty file for a default-constructed model.
    const GgufFile& metadata() const;
    std::string architecture() const { return metadata().architecture(); }
};

// Opens `path`; if its name is a split name, every sibling part is looked for and read. A
// missing part is not an error (complete=false, listed by path); an unreadable or malformed
// part is. Also cross-checks split.count / split.no against the names.
Result<GgufModel> openGgufModel(const std::string& path);

} // namespace headroom
