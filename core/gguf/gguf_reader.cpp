#include "gguf/gguf_reader.h"

#include "gguf/gguf_wire.h"
#include "text_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace headroom {

namespace {

// The buffered reader reads the header in chunks of this size; one tokenizer of 260k strings
// is ~4 MiB, so a model header takes a handful of reads. Not a knob.
constexpr std::size_t kReadChunk = 256 * 1024;

// Smallest possible encodings, used to check claimed counts against the bytes that remain
// before anything is allocated: a key-value pair is a key (u64 length + >= 1 byte), a u32 type
// and >= 1 byte of value; a tensor info is a name (u64 length), u32 n_dims, u32 type, u64 offset.
// Address space reserved for array storage on the first array (capped by the file's size):
// the largest real tokenizers encode to ~10 MiB, so arrays never reallocate. Not a knob.
constexpr std::uint64_t kBlobReserve = 64ull * 1024 * 1024;

// Entries reserved before any is parsed; beyond it containers grow as entries parse. Not a knob.
constexpr std::uint64_t kInitialReserve = 4096;

constexpr std::uint64_t kMinKvBytes = 8 + 1 + 4 + 1;
constexpr std::uint64_t kMinTensorInfoBytes = 8 + 4 + 4 + 8;

std::string hexByte(unsigned char c) {
    static const char* digits = "0123456789abcdef";
    return std::string{'\\', 'x', digits[c >> 4], digits[c & 15]};
}

std::string printable(std::string_view s, std::size_t max = 48) {
    std::string out;
    for (std::size_t i = 0; i < s.size() && i < max; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7f && c != '\'')
            out.push_back(static_cast<char>(c));
        else
            out += hexByte(c);
    }
    if (s.size() > max) out += "...";
    return out;
}

// Position of the first byte that breaks UTF-8 (RFC 3629: no overlongs, no surrogates, nothing
// above U+10FFFF), or npos when `s` is valid.
std::size_t invalidUtf8At(std::string_view s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t n = s.size();
    std::size_t i = 0;
    while (i < n) {
        // ASCII fast path, 8 bytes at a time.
        if (i + 8 <= n) {
            std::uint64_t w;
            std::memcpy(&w, p + i, 8);
            if ((w & 0x8080808080808080ull) == 0) {
                i += 8;
                continue;
            }
        }
        const unsigned char c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = 0;
        unsigned char lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf) {
            len = 2;
        } else if (c >= 0xe0 && c <= 0xef) {
            len = 3;
            if (c == 0xe0) lo = 0xa0;
            if (c == 0xed) hi = 0x9f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4;
            if (c == 0xf0) lo = 0x90;
            if (c == 0xf4) hi = 0x8f;
        } else {
            return i;
        }
        if (n - i < len) return i;
        if (p[i + 1] < lo || p[i + 1] > hi) return i;
        for (std::size_t k = 2; k < len; ++k)
            if (p[i + k] < 0x80 || p[i + k] > 0xbf) return i;
        i += len;
    }
    return std::string_view::npos;
}

// Bytes of the file, either a span in memory or a file read through a small buffer.
class Input {
public:
    Input(const char* data, std::uint64_t size) : data_(data), size_(size) {}
    Input(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
    explicit Input(GgufByteSource& source) : source_(&source), size_(source.size()) {}

    std::uint64_t size() const { return size_; }
    std::uint64_t pos() const { return pos_; }
    std::uint64_t remaining() const { return size_ - pos_; }
    void advance(std::uint64_t n) { pos_ += n; }
    const std::string& ioError() const { return io_error_; }

    // Bytes available at pos() without another read (all that remain, for a span).
    std::size_t buffered() const {
        if (data_) return static_cast<std::size_t>(remaining());
        if (pos_ < buf_start_ || pos_ >= buf_start_ + buf_len_) return 0;
        return static_cast<std::size_t>(buf_start_ + buf_len_ - pos_);
    }

    // n contiguous bytes at pos(); the caller has checked n <= remaining(). nullptr on an I/O
    // error (the file shrank under us or the OS refused).
    const char* peek(std::size_t n) {
        if (data_) return data_ + pos_;
        if (pos_ >= buf_start_ && pos_ + n <= buf_start_ + buf_len_)
            return buf_.data() + (pos_ - buf_start_);
        const std::size_t want =
            static_cast<std::size_t>(std::min<std::uint64_t>(std::max(n, kReadChunk), remaining()));
        if (buf_.size() < want) buf_.resize(want);
        if (source_) {
            if (!source_->readAt(pos_, buf_.data(), want, io_error_)) return nullptr;
            buf_start_ = pos_;
            buf_len_ = want;
            return buf_.data();
        }
        std::size_t got = 0;
        while (got < want) {
            const ssize_t r =
                ::pread(fd_, buf_.data() + got, want - got, static_cast<off_t>(pos_ + got));
            if (r < 0) {
                if (errno == EINTR) continue;
                io_error_ = std::strerror(errno);
                return nullptr;
            }
            if (r == 0) {
                io_error_ = "the file got shorter while it was being read";
                return nullptr;
            }
            got += static_cast<std::size_t>(r);
        }
        buf_start_ = pos_;
        buf_len_ = got;
        return buf_.data();
    }

private:
    const char* data_ = nullptr;
    int fd_ = -1;
    GgufByteSource* source_ = nullptr;
    std::uint64_t size_ = 0;
    std::uint64_t pos_ = 0;
    std::vector<char> buf_;
    std::uint64_t buf_start_ = 0;
    std::size_t buf_len_ = 0;
    std::string io_error_;
};

class Parser {
public:
    Parser(Input& in, std::string label) : in_(in), label_(std::move(label)) {}

    Result<GgufFile> run(const std::string& path);

private:
    Error fail(ErrorCode code, std::uint64_t offset, const std::string& problem) {
        return makeError(
            code, label_ + ": " + problem + " (at byte offset " + std::to_string(offset) + ")",
            "offset " + std::to_string(offset));
    }
    bool failed() const { return err_.has_value(); }
    bool setError(ErrorCode code, std::uint64_t offset, const std::string& problem) {
        if (!err_) err_ = fail(code, offset, problem);
        return false;
    }
    bool ioFail() {
        return setError(ErrorCode::IoError, in_.pos(), "cannot read: " + in_.ioError());
    }

    // `what` is a callable returning the description, so the hot path builds no strings.
    template <typename Desc>
    bool need(std::uint64_t n, const Desc& what) {
        if (n <= in_.remaining()) return true;
        return setError(ErrorCode::Truncated, in_.pos(),
                        "file ends early: " + what() + " needs " + std::to_string(n) +
                            " bytes but only " + std::to_string(in_.remaining()) + " remain");
    }

    template <typename T, typename Desc>
    bool read(T& out, const Desc& what) {
        if (!need(sizeof(T), what)) return false;
        const char* p = in_.peek(sizeof(T));
        if (!p) return ioFail();
        out = wire::load<T>(p);
        in_.advance(sizeof(T));
        return true;
    }

    // Appends n bytes from the input to `dst` in buffer-sized pieces.
    bool copyOut(std::string& dst, std::uint64_t n) {
        while (n > 0) {
            const std::size_t chunk =
                static_cast<std::size_t>(std::min<std::uint64_t>(n, kReadChunk));
            const char* p = in_.peek(chunk);
            if (!p) return ioFail();
            dst.append(p, chunk);
            in_.advance(chunk);
            n -= chunk;
        }
        return true;
    }

    // A u64-length-prefixed string; `what` names it in errors.
    template <typename Desc>
    bool readString(std::string& out, const Desc& describe, std::uint64_t max_len,
                    bool check_utf8) {
        const std::uint64_t at = in_.pos();
        std::uint64_t len = 0;
        if (!read(len, [&] { return "the length of " + describe(); })) return false;
        if (len > in_.remaining())
            return setError(ErrorCode::Truncated, at,
                            describe() + " claims " + std::to_string(len) + " bytes but only " +
                                std::to_string(in_.remaining()) + " remain in the file");
        if (len > max_len)
            return setError(ErrorCode::ParseError, at,
                            describe() + " is " + std::to_string(len) + " bytes, more than the " +
                                std::to_string(max_len) + " allowed");
        out.clear();
        if (!copyOut(out, len)) return false;
        if (check_utf8) {
            if (const std::size_t bad = invalidUtf8At(out); bad != std::string_view::npos)
                return setError(ErrorCode::ParseError, at + 8 + bad,
                                describe() + " is not valid UTF-8: '" + printable(out) + "'");
        }
        return true;
    }

    bool readValue(GgufValueType type, const std::string& key, GgufValue& out);
    bool readArrayBody(GgufValueType type, std::uint64_t count, int depth, const std::string& key);
    bool readTensorInfo(std::size_t i, GgufTensorInfo& t, std::uint64_t& offset_field_at);

    Input& in_;
    std::string label_;
    std::optional<Error> err_;
    // Encoded bytes of every array in the file, shared by their GgufArray views.
    std::string blob_;
};

bool Parser::readArrayBody(GgufValueType type, std::uint64_t count, int depth,
                           const std::string& key) {
    const std::uint64_t at = in_.pos();
    const auto what = [&] { return "array '" + key + "'"; };
    if (const std::size_t w = ggufFixedSize(type); w != 0) {
        if (count > in_.remaining() / w)
            return setError(ErrorCode::Truncated, at,
                            what() + " claims " + std::to_string(count) + " " +
                                std::string(ggufValueTypeName(type)) + " elements (" +
                                std::to_string(w) + " bytes each) but only " +
                                std::to_string(in_.remaining()) + " bytes remain");
        return copyOut(blob_, count * w);
    }
    if (type == GgufValueType::String) {
        if (count > in_.remaining() / 8)
            return setError(ErrorCode::Truncated, at,
                            what() + " claims " + std::to_string(count) +
                                " strings (at least 8 bytes each) but only " +
                                std::to_string(in_.remaining()) + " bytes remain");
        // Typical token strings are a few bytes, so elements are validated in place, a
        // buffer at a time, and each run is copied with one append.
        std::uint64_t i = 0;
        while (i < count) {
            if (!need(8, [&] { return "string " + std::to_string(i) + " of " + what(); }))
                return false;
            const char* base = in_.peek(8);
            if (!base) return ioFail();
            const std::size_t avail = in_.buffered();
            std::size_t used = 0;
            while (i < count && avail - used >= 8) {
                const auto len = wire::load<std::uint64_t>(base + used);
                const std::uint64_t left = in_.remaining() - used - 8;
                if (len > left)
                    return setError(ErrorCode::Truncated, in_.pos() + used,
                                    "string " + std::to_string(i) + " of " + what() + " claims " +
                                        std::to_string(len) + " bytes but only " +
                                        std::to_string(left) + " remain in the file");
                if (len > avail - used - 8) break; // runs past the buffer
                used += 8 + static_cast<std::size_t>(len);
                ++i;
            }
            if (used > 0) {
                blob_.append(base, used);
                in_.advance(used);
                continue;
            }
            // Element i does not fit in the buffer (checked against the file above): copy it
            // on its own.
            const auto len = wire::load<std::uint64_t>(base);
            if (!copyOut(blob_, 8 + len)) return false;
            ++i;
        }
        return true;
    }
    // Nested arrays: (u32 type, u64 count, elements) each.
    if (depth >= wire::kMaxArrayNesting)
        return setError(ErrorCode::Unsupported, at,
                        what() + " nests arrays more than " +
                            std::to_string(wire::kMaxArrayNesting) + " deep");
    if (count > in_.remaining() / 12)
        return setError(ErrorCode::Truncated, at,
                        what() + " claims " + std::to_string(count) +
                            " nested arrays (at least 12 bytes each) but only " +
                            std::to_string(in_.remaining()) + " bytes remain");
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t el = in_.pos();
        std::uint32_t t = 0;
        std::uint64_t n = 0;
        if (!read(t, [&] {
                return std::string("the element type of nested array " + std::to_string(i) +
                                   " of " + what());
            }))
            return false;
        if (!isValidGgufValueType(t))
            return setError(ErrorCode::Unsupported, el,
                            "nested array " + std::to_string(i) + " of " + what() +
                                " has unknown value type " + std::to_string(t));
        if (!read(n, [&] {
                return std::string("the length of nested array " + std::to_string(i) + " of " +
                                   what());
            }))
            return false;
        wire::put<std::uint32_t>(blob_, t);
        wire::put<std::uint64_t>(blob_, n);
        if (!readArrayBody(static_cast<GgufValueType>(t), n, depth + 1, key)) return false;
    }
    return true;
}

bool Parser::readValue(GgufValueType type, const std::string& key, GgufValue& out) {
    const auto what = [&] { return "the value of '" + key + "'"; };
    switch (type) {
    case GgufValueType::UInt8: {
        std::uint8_t v{};
        if (!read(v, what)) return false;
        out = GgufValue::u8(v);
        return true;
    }
    case GgufValueType::Int8: {
        std::int8_t v{};
        if (!read(v, what)) return false;
        out = GgufValue::i8(v);
        return true;
    }
    case GgufValueType::UInt16: {
        std::uint16_t v{};
        if (!read(v, what)) return false;
        out = GgufValue::u16(v);
        return true;
    }
    case GgufValueType::Int16: {
        std::int16_t v{};
        if (!read(v, what)) return false;
        out = GgufValue::i16(v);
        return true;
    }
    case GgufValueType::UInt32: {
        std::uint32_t v{};
        if (!read(v, what)) return false;
        out = GgufValue::u32(v);
        return true;
    }
    case GgufValueType::Int32: {
        std::int32_t v{};
        if (!read(v, what)) return false;
        out = GgufValue::i32(v);
        return true;
    }
    case GgufValueType::UInt64: {
        std::uint64_t v{};
        if (!read(v, what)) return false;
        out = GgufValue::u64(v);
        return true;
    }
    case GgufValueType::Int64: {
        std::int64_t v{};
        if (!read(v, what)) return false;
        out = GgufValue::i64(v);
        return true;
    }
    case GgufValueType::Float32: {
        float v{};
        if (!read(v, what)) return false;
        out = GgufValue::f32(v);
        return true;
    }
    case GgufValueType::Float64: {
        double v{};
        if (!read(v, what)) return false;
        out = GgufValue::f64(v);
        return true;
    }
    case GgufValueType::Bool: {
        std::uint8_t v{};
        if (!read(v, what)) return false;
        out = GgufValue::boolean(v != 0);
        return true;
    }
    case GgufValueType::String: {
        std::string s;
        if (!readString(s, what, UINT64_MAX, /*check_utf8=*/true)) return false;
        out = GgufValue::string(std::move(s));
        return true;
    }
    case GgufValueType::Array: {
        const std::uint64_t at = in_.pos();
        std::uint32_t et = 0;
        std::uint64_t count = 0;
        if (!read(et, [&] { return std::string("the element type of '" + key + "'"); }))
            return false;
        if (!isValidGgufValueType(et))
            return setError(ErrorCode::Unsupported, at,
                            "array '" + key + "' has unknown element type " + std::to_string(et));
        if (!read(count, [&] { return std::string("the length of array '" + key + "'"); }))
            return false;
        const std::uint64_t first = in_.pos();
        // One generous reservation up front: the array storage never moves while it grows, and
        // pages that are reserved but never written cost no memory.
        if (blob_.capacity() < kBlobReserve)
            blob_.reserve(
                static_cast<std::size_t>(std::min<std::uint64_t>(in_.remaining(), kBlobReserve)));
        const std::size_t begin = blob_.size();
        if (!readArrayBody(static_cast<GgufValueType>(et), count, 1, key)) return false;
        // The blob is attached once parsing ends (see run()); until then begin/size locate it.
        out = GgufValue::array(GgufArray::fromEncoded(static_cast<GgufValueType>(et), count,
                                                      nullptr, begin, blob_.size() - begin, first));
        return true;
    }
    }
    return setError(ErrorCode::Unsupported, in_.pos(), "unknown value type");
}

bool Parser::readTensorInfo(std::size_t i, GgufTensorInfo& t, std::uint64_t& offset_field_at) {
    const auto idx = [&] { return "tensor " + std::to_string(i); };
    const std::uint64_t name_at = in_.pos();
    if (!readString(
            t.name, [&] { return std::string("the name of " + idx()); }, UINT64_MAX,
            /*check_utf8=*/true))
        return false;
    if (t.name.size() > kGgufMaxTensorName)
        return setError(ErrorCode::ParseError, name_at,
                        "the name of " + idx() + " is " + std::to_string(t.name.size()) +
                            " bytes; llama.cpp allows at most " +
                            std::to_string(kGgufMaxTensorName) + " ('" + printable(t.name) + "')");
    const auto what = [&] { return "tensor '" + printable(t.name) + "'"; };

    const std::uint64_t dims_at = in_.pos();
    std::uint32_t n_dims = 0;
    if (!read(n_dims, [&] { return std::string("the dimension count of " + what()); }))
        return false;
    if (n_dims > kGgufMaxDims)
        return setError(ErrorCode::ParseError, dims_at,
                        what() + " has " + std::to_string(n_dims) +
                            " dimensions; ggml tensors have at most " +
                            std::to_string(kGgufMaxDims));
    t.dims.resize(n_dims);
    std::uint64_t elements = 1;
    for (std::uint32_t d = 0; d < n_dims; ++d) {
        const std::uint64_t at = in_.pos();
        if (!read(t.dims[d],
                  [&] { return std::string("dimension " + std::to_string(d) + " of " + what()); }))
            return false;
        const std::uint64_t ne = t.dims[d];
        // ggml stores ne as int64_t; gguf.cpp refuses negative values.
        if (ne > static_cast<std::uint64_t>(INT64_MAX))
            return setError(ErrorCode::ParseError, at,
                            what() + " dimension " + std::to_string(d) + " is negative (" +
                                std::to_string(static_cast<std::int64_t>(ne)) + ")");
        if (ne == 0)
            return setError(ErrorCode::ParseError, at,
                            what() + " dimension " + std::to_string(d) + " is zero");
        if (elements > static_cast<std::uint64_t>(INT64_MAX) / ne)
            return setError(ErrorCode::ParseError, at,
                            what() + " has more elements than fit in 64 bits (dimension " +
                                std::to_string(d) + " = " + std::to_string(ne) + ")");
        elements *= ne;
    }

    const std::uint64_t type_at = in_.pos();
    std::uint32_t type_id = 0;
    if (!read(type_id, [&] { return std::string("the ggml type of " + what()); })) return false;
    const auto info = ggmlTypeInfo(type_id);
    if (!info)
        return setError(ErrorCode::Unsupported, type_at,
                        what() + " has unknown ggml type id " + std::to_string(type_id));
    t.type = info->type;
    const std::uint64_t ne0 = n_dims > 0 ? t.dims[0] : 1;
    // gguf.cpp: "elements per row, not a multiple of block size".
    if (ne0 % info->block_elems != 0)
        return setError(ErrorCode::ParseError, type_at,
                        what() + " of type " + std::string(info->name) + " has " +
                            std::to_string(ne0) +
                            " elements per row, not a multiple of its block size " +
                            std::to_string(info->block_elems));
    const std::uint64_t blocks = elements / info->block_elems;
    if (blocks > static_cast<std::uint64_t>(INT64_MAX) / info->block_bytes)
        return setError(ErrorCode::ParseError, type_at,
                        what() + " is larger than a 64-bit byte count can describe");
    t.bytes = blocks * info->block_bytes;

    offset_field_at = in_.pos();
    return read(t.offset, [&] { return "the data offset of " + what(); });
}

Result<GgufFile> Parser::run(const std::string& path) {
    GgufFile f;
    f.path = path;
    f.file_bytes = in_.size();

    // Magic.
    if (in_.remaining() < 4) {
        setError(ErrorCode::Truncated, 0,
                 "not a GGUF file: it is " + std::to_string(in_.size()) +
                     " bytes, too short for the 'GGUF' magic");
        return *err_;
    }
    {
        const char* p = in_.peek(4);
        if (!p) {
            ioFail();
            return *err_;
        }
        if (std::memcmp(p, "GGUF", 4) != 0) {
            setError(ErrorCode::ParseError, 0,
                     "not a GGUF file: starts with '" + printable(std::string_view(p, 4)) +
                         "' instead of 'GGUF'");
            return *err_;
        }
        in_.advance(4);
    }

    // Version: llama.cpp reads v2 and v3 (v3 only added big-endian files; same layout) and
    // refuses v1, whose counts were 32-bit (gguf.cpp "GGUFv1 is no longer supported").
    if (!read(f.version, [&] { return std::string("the version"); })) return *err_;
    if (f.version != 2 && f.version != 3) {
        std::string why = "unsupported GGUF version " + std::to_string(f.version);
        if (f.version == 1)
            why += " (GGUF v1 is obsolete; llama.cpp no longer reads it)";
        else if ((f.version & 0xffff) == 0)
            why += " (looks byte-swapped: a big-endian GGUF file?)";
        else
            why += " (this reader knows versions 2 and 3)";
        setError(ErrorCode::Unsupported, 4, why);
        return *err_;
    }

    std::uint64_t n_tensors = 0, n_kv = 0;
    if (!read(n_tensors, [&] { return std::string("the tensor count"); }) ||
        !read(n_kv, [&] { return std::string("the metadata key count"); }))
        return *err_;
    if (n_kv > in_.remaining() / kMinKvBytes) {
        setError(ErrorCode::Truncated, 16,
                 "the header claims " + std::to_string(n_kv) + " metadata keys (at least " +
                     std::to_string(kMinKvBytes) + " bytes each) but only " +
                     std::to_string(in_.remaining()) + " bytes follow");
        return *err_;
    }
    if (n_tensors > (in_.remaining() - n_kv * kMinKvBytes) / kMinTensorInfoBytes) {
        setError(ErrorCode::Truncated, 8,
                 "the header claims " + std::to_string(n_tensors) + " tensors (at least " +
                     std::to_string(kMinTensorInfoBytes) + " bytes each) but only " +
                     std::to_string(in_.remaining()) + " bytes follow");
        return *err_;
    }

    // Metadata.
    // Containers grow with what actually parses, so a header that claims millions of entries
    // over garbage fails before it costs more than the bytes read so far.
    f.metadata.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n_kv, kInitialReserve)));
    std::unordered_map<std::string_view, std::uint64_t> seen_keys;
    std::vector<std::size_t> array_kvs;
    for (std::uint64_t i = 0; i < n_kv; ++i) {
        const std::uint64_t key_at = in_.pos();
        std::string key;
        if (!readString(
                key, [&] { return std::string("key " + std::to_string(i)); }, kGgufMaxKeyLength,
                true))
            return *err_;
        if (key.empty()) {
            setError(ErrorCode::ParseError, key_at, "key " + std::to_string(i) + " is empty");
            return *err_;
        }
        const std::uint64_t type_at = in_.pos();
        std::uint32_t type = 0;
        if (!read(type, [&] { return std::string("the value type of '" + key + "'"); }))
            return *err_;
        if (!isValidGgufValueType(type)) {
            setError(ErrorCode::Unsupported, type_at,
                     "key '" + key + "' has unknown value type " + std::to_string(type));
            return *err_;
        }
        GgufValue v;
        if (!readValue(static_cast<GgufValueType>(type), key, v)) return *err_;
        if (v.type() == GgufValueType::Array) array_kvs.push_back(f.metadata.size());
        f.metadata.emplace_back(std::move(key), std::move(v));
        // gguf.cpp refuses duplicate keys: which one would win is undefined.
        const auto [it, fresh] = seen_keys.emplace(f.metadata.back().first, key_at);
        if (!fresh) {
            setError(ErrorCode::ParseError, key_at,
                     "duplicate key '" + f.metadata.back().first + "' (first at byte offset " +
                         std::to_string(it->second) + ")");
            return *err_;
        }
    }

    // Attach the shared array storage now that it no longer moves.
    if (!array_kvs.empty()) {
        auto blob = std::make_shared<const std::string>(std::move(blob_));
        for (std::size_t k : array_kvs) {
            auto& v = f.metadata[k].second;
            v = GgufValue::array(v.asArray()->withBlob(blob));
        }
    }

    // Alignment: must be a u32 power of two (gguf.cpp: "must be of type u32", "not a power of 2").
    f.reindex();
    if (const GgufValue* a = f.find("general.alignment")) {
        const std::uint64_t at = seen_keys.at("general.alignment");
        if (a->type() != GgufValueType::UInt32) {
            setError(ErrorCode::ParseError, at,
                     "general.alignment must be a u32 but is a " +
                         std::string(ggufValueTypeName(a->type())));
            return *err_;
        }
        const std::uint64_t al = *a->asUInt();
        if (al == 0 || (al & (al - 1)) != 0) {
            setError(ErrorCode::ParseError, at,
                     "general.alignment " + std::to_string(al) + " is not a power of two");
            return *err_;
        }
        f.alignment = static_cast<std::uint32_t>(al);
    }

    // Tensor infos.
    const std::size_t initial =
        static_cast<std::size_t>(std::min<std::uint64_t>(n_tensors, kInitialReserve));
    f.tensors.reserve(initial);
    std::vector<std::uint64_t> offset_fields, info_at;
    offset_fields.reserve(initial);
    info_at.reserve(initial);
    for (std::uint64_t i = 0; i < n_tensors; ++i) {
        info_at.push_back(in_.pos());
        GgufTensorInfo t;
        std::uint64_t offset_at = 0;
        if (!readTensorInfo(static_cast<std::size_t>(i), t, offset_at)) return *err_;
        f.tensors.push_back(std::move(t));
        offset_fields.push_back(offset_at);
    }
    // gguf.cpp refuses duplicate tensor names; the lookup index finds them as it is built.
    if (const std::size_t dup = f.reindex(); dup != GgufFile::npos) {
        std::size_t first = 0;
        while (f.tensors[first].name != f.tensors[dup].name)
            ++first;
        setError(ErrorCode::ParseError, info_at[dup],
                 "duplicate tensor name '" + printable(f.tensors[dup].name) + "' (tensors " +
                     std::to_string(first) + " and " + std::to_string(dup) + ")");
        return *err_;
    }
    f.header_bytes = in_.pos();
    // gguf.cpp seeks to the aligned data section only when tensors follow.
    f.data_offset = n_tensors > 0 ? padTo(f.header_bytes, f.alignment) : f.header_bytes;
    if (f.data_offset > f.file_bytes) {
        setError(ErrorCode::Truncated, f.header_bytes,
                 "the data section would start at byte " + std::to_string(f.data_offset) +
                     ", past the end of the " + std::to_string(f.file_bytes) + "-byte file");
        return *err_;
    }

    // Tensor data placement: gguf.cpp requires each tensor at the previous one's end padded
    // to the alignment ("tensor has offset X, expected Y"), and the data must be in the file.
    std::uint64_t expected = 0;
    for (std::size_t i = 0; i < f.tensors.size(); ++i) {
        auto& t = f.tensors[i];
        const std::string what = "tensor '" + printable(t.name) + "'";
        if (t.offset % f.alignment != 0) {
            setError(ErrorCode::ParseError, offset_fields[i],
                     what + " has data offset " + std::to_string(t.offset) +
                         ", not a multiple of the alignment " + std::to_string(f.alignment));
            return *err_;
        }
        if (t.offset != expected) {
            setError(ErrorCode::ParseError, offset_fields[i],
                     what + " has data offset " + std::to_string(t.offset) + ", expected " +
                         std::to_string(expected) + " (tensors are packed in order)");
            return *err_;
        }
        const std::uint64_t room = f.file_bytes - f.data_offset;
        if (t.offset > room || t.bytes > room - t.offset) {
            setError(ErrorCode::Truncated, offset_fields[i],
                     what + " (" + std::to_string(t.bytes) + " bytes at data offset " +
                         std::to_string(t.offset) + ") extends past the end of the " +
                         std::to_string(f.file_bytes) + "-byte file");
            return *err_;
        }
        t.file_offset = f.data_offset + t.offset;
        f.tensor_bytes += t.bytes;
        expected = t.offset + padTo(t.bytes, f.alignment);
    }
    return f;
}

} // namespace

std::uint64_t GgufTensorInfo::elements() const {
    std::uint64_t n = 1;
    for (std::uint64_t d : dims)
        n = satMul(n, d);
    return n;
}

std::size_t GgufFile::reindex() {
    index_.clear();
    index_.reserve(metadata.size());
    for (std::size_t i = 0; i < metadata.size(); ++i)
        index_.emplace(metadata[i].first, i);
    tensor_index_.clear();
    tensor_index_.reserve(tensors.size());
    std::size_t dup = npos;
    for (std::size_t i = 0; i < tensors.size(); ++i)
        if (!tensor_index_.emplace(tensors[i].name, i).second && dup == npos) dup = i;
    return dup;
}

const GgufValue* GgufFile::find(std::string_view key) const {
    const auto it = index_.find(key);
    if (it == index_.end() || it->second >= metadata.size()) return nullptr;
    return &metadata[it->second].second;
}

std::optional<std::uint64_t> GgufFile::getUInt(std::string_view key) const {
    const GgufValue* v = find(key);
    return v ? v->asUInt() : std::nullopt;
}
std::optional<std::int64_t> GgufFile::getInt(std::string_view key) const {
    const GgufValue* v = find(key);
    return v ? v->asInt() : std::nullopt;
}
std::optional<double> GgufFile::getFloat(std::string_view key) const {
    const GgufValue* v = find(key);
    return v ? v->asFloat() : std::nullopt;
}
std::optional<bool> GgufFile::getBool(std::string_view key) const {
    const GgufValue* v = find(key);
    return v ? v->asBool() : std::nullopt;
}
std::optional<std::string> GgufFile::getString(std::string_view key) const {
    const GgufValue* v = find(key);
    if (!v || !v->asString()) return std::nullopt;
    return *v->asString();
}
const GgufArray* GgufFile::getArray(std::string_view key) const {
    const GgufValue* v = find(key);
    return v ? v->asArray() : nullptr;
}
std::optional<std::uint64_t> GgufFile::arrayLength(std::string_view key) const {
    const GgufArray* a = getArray(key);
    if (!a) return std::nullopt;
    return a->size();
}
std::vector<std::int64_t> GgufFile::getIntArray(std::string_view key) const {
    const GgufArray* a = getArray(key);
    return a ? a->ints() : std::vector<std::int64_t>{};
}
std::vector<double> GgufFile::getFloatArray(std::string_view key) const {
    const GgufArray* a = getArray(key);
    return a ? a->floats() : std::vector<double>{};
}
std::vector<std::string> GgufFile::getStringArray(std::string_view key) const {
    const GgufArray* a = getArray(key);
    return a ? a->strings() : std::vector<std::string>{};
}
std::string GgufFile::architecture() const {
    return getString("general.architecture").value_or("");
}
const GgufTensorInfo* GgufFile::findTensor(std::string_view name) const {
    const auto it = tensor_index_.find(name);
    if (it == tensor_index_.end() || it->second >= tensors.size()) return nullptr;
    return &tensors[it->second];
}

Result<GgufFile> parseGguf(std::span<const std::uint8_t> bytes, const std::string& name) {
    Input in(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    Parser p(in, name.empty() ? std::string("GGUF data") : "'" + name + "'");
    return p.run(name);
}

Result<GgufFile> readGguf(GgufByteSource& source, const std::string& name) {
    Input in(source);
    Parser p(in, "'" + name + "'");
    return p.run(name);
}

Result<GgufFile> readGgufFile(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        const int e = errno;
        return makeError(e == ENOENT ? ErrorCode::NotFound : ErrorCode::IoError,
                         "cannot open '" + path + "': " + std::strerror(e));
    }
    // A FIFO or device would block or never end; only regular files are models.
    if (!S_ISREG(st.st_mode))
        return makeError(ErrorCode::IoError,
                         "'" + path + "' is " + fileKindName(st.st_mode) + ", not a GGUF file");
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return makeError(ErrorCode::IoError, "cannot open '" + path + "': " + std::strerror(errno));
    struct stat fst {};
    if (::fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
        ::close(fd);
        return makeError(ErrorCode::IoError, "'" + path + "' is not a regular file");
    }
    Input in(fd, static_cast<std::uint64_t>(fst.st_size));
    Parser p(in, "'" + path + "'");
    auto r = p.run(path);
    ::close(fd);
    return r;
}

std::optional<GgufSplitName> parseGgufSplitName(std::string_view path) {
    // "<stem>-NNNNN-of-MMMMM.gguf": 20 bytes after the stem.
    constexpr std::string_view kSuffix = ".gguf";
    if (path.size() < 20 + 1 || path.substr(path.size() - kSuffix.size()) != kSuffix)
        return std::nullopt;
    const std::string_view tail = path.substr(path.size() - 20, 15); // "-NNNNN-of-MMMMM"
    auto digits = [](std::string_view d, int& out) {
        out = 0;
        for (char c : d) {
            if (c < '0' || c > '9') return false;
            out = out * 10 + (c - '0');
        }
        return true;
    };
    GgufSplitName s;
    if (tail[0] != '-' || tail.substr(6, 4) != "-of-" || !digits(tail.substr(1, 5), s.index) ||
        !digits(tail.substr(10, 5), s.count))
        return std::nullopt;
    if (s.index < 1 || s.count < 1 || s.index > s.count) return std::nullopt;
    s.stem = std::string(path.substr(0, path.size() - 20));
    const auto slash = s.stem.find_last_of('/');
    if (s.stem.empty() || slash == s.stem.size() - 1) return std::nullopt;
    return s;
}

std::string ggufSplitPath(std::string_view stem, int index, int count) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "-%05d-of-%05d.gguf", index, count);
    return std::string(stem) + buf;
}

const GgufFile& GgufModel::metadata() const {
    static const GgufFile kEmpty;
    return parts.empty() ? kEmpty : parts.front();
}

Result<GgufModel> openGgufModel(const std::string& path) {
    GgufModel m;
    m.path = path;
    const auto split = parseGgufSplitName(path);
    if (!split) {
        auto f = readGgufFile(path);
        if (!f) return f.error();
        m.parts.push_back(std::move(*f));
    } else {
        // llama.cpp (src/llama-model-loader.cpp) loads every split by this name pattern and
        // takes hyper-parameters from the first; all parts' tensors make up the model.
        for (int i = 1; i <= split->count; ++i) {
            const std::string part = ggufSplitPath(split->stem, i, split->count);
            std::error_code ec;
            if (i != split->index && !std::filesystem::exists(part, ec)) {
                m.missing_parts.push_back(part);
                continue;
            }
            auto f = readGgufFile(part);
            if (!f) {
                if (f.error().code == ErrorCode::NotFound) {
                    m.missing_parts.push_back(part);
                    continue;
                }
                return f.error();
            }
            // llama.cpp's split.no is 0-based (LLM_KV_SPLIT_NO, gguf-split.cpp).
            if (const auto no = f->getUInt("split.no");
                no && *no != static_cast<std::uint64_t>(i - 1))
                return makeError(ErrorCode::ParseError,
                                 "'" + part + "' says it is split " + std::to_string(*no + 1) +
                                     " but is named as part " + std::to_string(i));
            if (const auto cnt = f->getUInt("split.count");
                cnt && *cnt != static_cast<std::uint64_t>(split->count))
                return makeError(ErrorCode::ParseError, "'" + part + "' says the model has " +
                                                            std::to_string(*cnt) +
                                                            " splits but is named as one of " +
                                                            std::to_string(split->count));
            m.parts.push_back(std::move(*f));
        }
        if (m.parts.empty())
            return makeError(ErrorCode::NotFound, "no part of split model '" + path + "' exists");
    }
    m.complete = m.missing_parts.empty();
    for (const auto& p : m.parts) {
        m.tensor_bytes = satAdd(m.tensor_bytes, p.tensor_bytes);
        m.file_bytes = satAdd(m.file_bytes, p.file_bytes);
        m.tensor_count += p.tensors.size();
    }
    m.is_projector = m.metadata().isProjector();
    return m;
}

} // namespace headroom
