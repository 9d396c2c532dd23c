// GGUF metadata values, shared by the reader and the writer.
//
// The on-disk format (llama.cpp ggml/src/gguf.cpp, docs in ggml/docs/gguf.md): little-endian;
// a value is a u32 type tag followed by its payload; strings are a u64 byte length then bytes;
// arrays are a u32 element type, a u64 count, then the elements back to back.
//
// Arrays keep their elements in their encoded on-disk form (GgufArray::raw()) and decode on
// request: a 260k-entry tokenizer costs one memcpy instead of 260k std::string allocations,
// and its length (n_vocab) is known without decoding anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace headroom {

// On-disk type tags (gguf.h `enum gguf_type`); never renumber.
enum class GgufValueType : std::uint32_t {
    UInt8 = 0,
    Int8 = 1,
    UInt16 = 2,
    Int16 = 3,
    UInt32 = 4,
    Int32 = 5,
    Float32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    UInt64 = 10,
    Int64 = 11,
    Float64 = 12,
};

// "u32", "string", "array"... as gguf_type_name() prints them; "unknown" for anything else.
std::string_view ggufValueTypeName(GgufValueType type);
bool isValidGgufValueType(std::uint32_t id);
// Bytes of one element for fixed-size types, 0 for String and Array.
std::size_t ggufFixedSize(GgufValueType type);
bool isGgufIntegerType(GgufValueType type);

// An array in its encoded form: `count` elements of `element_type`, little-endian, strings as
// (u64 length, bytes), nested arrays as (u32 type, u64 count, elements). The reader validates the
// encoding once, so accessors never fail on a parsed file; accessors on a mismatched type return
// empty/nullopt rather than guessing.
class GgufArray {
public:
    GgufArray() = default;

    // Build arrays in memory (writer side). Each encodes its elements immediately.
    static GgufArray ofUInt8(const std::vector<std::uint8_t>& v);
    static GgufArray ofInt8(const std::vector<std::int8_t>& v);
    static GgufArray ofUInt16(const std::vector<std::uint16_t>& v);
    static GgufArray ofInt16(const std::vector<std::int16_t>& v);
    static GgufArray ofUInt32(const std::vector<std::uint32_t>& v);
    static GgufArray ofInt32(const std::vector<std::int32_t>& v);
    static GgufArray ofUInt64(const std::vector<std::uint64_t>& v);
    static GgufArray ofInt64(const std::vector<std::int64_t>& v);
    static GgufArray ofFloat32(const std::vector<float>& v);
    static GgufArray ofFloat64(const std::vector<double>& v);
    static GgufArray ofBool(const std::vector<bool>& v);
    static GgufArray ofStrings(const std::vector<std::string>& v);
    static GgufArray ofArrays(const std::vector<GgufArray>& v);

    // Wraps already-validated encoded bytes (the reader's path): [begin, begin+size) of `blob`.
    static GgufArray fromEncoded(GgufValueType element_type, std::uint64_t count,
                                 std::shared_ptr<const std::string> blob, std::size_t begin,
                                 std::size_t size, std::uint64_t file_offset);
    // The same array over another storage blob at the same position (the reader builds arrays
    // while its storage still grows, then attaches the final blob).
    GgufArray withBlob(std::shared_ptr<const std::string> blob) const;

    GgufValueType elementType() const { return element_type_; }
    std::uint64_t size() const { return count_; }
    bool empty() const { return count_ == 0; }
    // Where the first element starts in the file it was read from (0 for arrays built in memory).
    std::uint64_t fileOffset() const { return file_offset_; }
    // The encoded elements (what follows the count on disk).
    std::string_view raw() const;

    // Element i as an integer / float / bool / string; nullopt when out of range or the element
    // type does not convert (a float is not an integer; an integer converts to a float).
    std::optional<std::int64_t> intAt(std::uint64_t i) const;   // signed view of any integer
    std::optional<std::uint64_t> uintAt(std::uint64_t i) const; // nullopt for negatives
    std::optional<double> floatAt(std::uint64_t i) const;
    std::optional<bool> boolAt(std::uint64_t i) const;
    // Strings are variable length, so this walks from the start: O(i). For all of them use
    // forEachString() or strings().
    std::optional<std::string_view> stringAt(std::uint64_t i) const;

    // Whole-array decoders; empty when the element type does not convert.
    std::vector<std::int64_t> ints() const;
    std::vector<double> floats() const;
    std::vector<std::string> strings() const;
    // Views into this array's storage: valid while any copy of this array lives.
    std::vector<std::string_view> stringViews() const;
    // Calls fn(index, bytes) per string element; stops early when fn returns false.
    void forEachString(const std::function<bool(std::uint64_t, std::string_view)>& fn) const;
    // Nested arrays (element type Array); empty otherwise.
    std::vector<GgufArray> arrays() const;

    friend bool operator==(const GgufArray& a, const GgufArray& b) {
        return a.element_type_ == b.element_type_ && a.count_ == b.count_ && a.raw() == b.raw();
    }

private:
    GgufValueType element_type_ = GgufValueType::UInt8;
    std::uint64_t count_ = 0;
    std::shared_ptr<const std::string> blob_;
    std::size_t begin_ = 0;
    std::size_t size_ = 0;
    std::uint64_t file_offset_ = 0;
};

// One metadata value: a type tag plus its payload. Integers are widened to 64 bits (the tag keeps
// the on-disk width), floats to double.
class GgufValue {
public:
    GgufValue() = default;

    static GgufValue u8(std::uint8_t v) { return {GgufValueType::UInt8, std::uint64_t{v}}; }
    static GgufValue i8(std::int8_t v) { return {GgufValueType::Int8, std::int64_t{v}}; }
    static GgufValue u16(std::uint16_t v) { return {GgufValueType::UInt16, std::uint64_t{v}}; }
    static GgufValue i16(std::int16_t v) { return {GgufValueType::Int16, std::int64_t{v}}; }
    static GgufValue u32(std::uint32_t v) { return {GgufValueType::UInt32, std::uint64_t{v}}; }
    static GgufValue i32(std::int32_t v) { return {GgufValueType::Int32, std::int64_t{v}}; }
    static GgufValue u64(std::uint64_t v) { return {GgufValueType::UInt64, v}; }
    static GgufValue i64(std::int64_t v) { return {GgufValueType::Int64, v}; }
    static GgufValue f32(float v) { return {GgufValueType::Float32, double{v}}; }
    static GgufValue f64(double v) { return {GgufValueType::Float64, v}; }
    static GgufValue boolean(bool v) { return {GgufValueType::Bool, v}; }
    static GgufValue string(std::string v) { return {GgufValueType::String, std::move(v)}; }
    static GgufValue array(GgufArray v) { return {GgufValueType::Array, std::move(v)}; }

    GgufValueType type() const { return type_; }

    // Any integer type that fits (a negative signed value is nullopt for asUInt).
    std::optional<std::uint64_t> asUInt() const;
    std::optional<std::int64_t> asInt() const;
    // Float32/Float64, or any integer type converted.
    std::optional<double> asFloat() const;
    std::optional<bool> asBool() const;
    const std::string* asString() const;
    const GgufArray* asArray() const;

    friend bool operator==(const GgufValue& a, const GgufValue& b) {
        return a.type_ == b.type_ && a.data_ == b.data_;
    }

private:
    using Data = std::variant<std::uint64_t, std::int64_t, double, bool, std::string, GgufArray>;
    GgufValue(GgufValueType t, Data d) : type_(t), data_(std::move(d)) {}

    GgufValueType type_ = GgufValueType::UInt8;
    Data data_ = std::uint64_t{0};
};

} // namespace headroom
