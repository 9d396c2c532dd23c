#include "gguf_value.h"

#include "gguf_wire.h"

#include <cstring>

namespace headroom {

std::string_view ggufValueTypeName(GgufValueType type) {
    // Names as gguf.cpp's GGUF_TYPE_NAME table spells them.
    switch (type) {
    case GgufValueType::UInt8:
        return "u8";
    case GgufValueType::Int8:
        return "i8";
    case GgufValueType::UInt16:
        return "u16";
    case GgufValueType::Int16:
        return "i16";
    case GgufValueType::UInt32:
        return "u32";
    case GgufValueType::Int32:
        return "i32";
    case GgufValueType::Float32:
        return "f32";
    case GgufValueType::Bool:
        return "bool";
    case GgufValueType::String:
        return "str";
    case GgufValueType::Array:
        return "arr";
    case GgufValueType::UInt64:
        return "u64";
    case GgufValueType::Int64:
        return "i64";
    case GgufValueType::Float64:
        return "f64";
    }
    return "unknown";
}

bool isValidGgufValueType(std::uint32_t id) {
    return id <= static_cast<std::uint32_t>(GgufValueType::Float64);
}

std::size_t ggufFixedSize(GgufValueType type) {
    switch (type) {
    case GgufValueType::UInt8:
    case GgufValueType::Int8:
    case GgufValueType::Bool:
        return 1;
    case GgufValueType::UInt16:
    case GgufValueType::Int16:
        return 2;
    case GgufValueType::UInt32:
    case GgufValueType::Int32:
    case GgufValueType::Float32:
        return 4;
    case GgufValueType::UInt64:
    case GgufValueType::Int64:
    case GgufValueType::Float64:
        return 8;
    case GgufValueType::String:
    case GgufValueType::Array:
        return 0;
    }
    return 0;
}

bool isGgufIntegerType(GgufValueType type) {
    switch (type) {
    case GgufValueType::UInt8:
    case GgufValueType::Int8:
    case GgufValueType::UInt16:
    case GgufValueType::Int16:
    case GgufValueType::UInt32:
    case GgufValueType::Int32:
    case GgufValueType::UInt64:
    case GgufValueType::Int64:
        return true;
    default:
        return false;
    }
}

namespace {

template <typename T, typename Put>
GgufArray encodeFixed(GgufValueType type, const std::vector<T>& v, Put put) {
    std::string out;
    out.reserve(v.size() * ggufFixedSize(type));
    for (const T& x : v)
        put(out, x);
    auto blob = std::make_shared<const std::string>(std::move(out));
    const std::size_t n = blob->size();
    return GgufArray::fromEncoded(type, v.size(), std::move(blob), 0, n, 0);
}

// Decodes a fixed-size integer element at p as a signed 64-bit view; u64 values above INT64_MAX
// are reported through `big`.
bool decodeInt(GgufValueType type, const char* p, std::int64_t& out, bool& big) {
    big = false;
    switch (type) {
    case GgufValueType::UInt8:
        out = wire::load<std::uint8_t>(p);
        return true;
    case GgufValueType::Int8:
        out = wire::load<std::int8_t>(p);
        return true;
    case GgufValueType::UInt16:
        out = wire::load<std::uint16_t>(p);
        return true;
    case GgufValueType::Int16:
        out = wire::load<std::int16_t>(p);
        return true;
    case GgufValueType::UInt32:
        out = wire::load<std::uint32_t>(p);
        return true;
    case GgufValueType::Int32:
        out = wire::load<std::int32_t>(p);
        return true;
    case GgufValueType::Int64:
        out = wire::load<std::int64_t>(p);
        return true;
    case GgufValueType::UInt64: {
        const auto u = wire::load<std::uint64_t>(p);
        big = u > static_cast<std::uint64_t>(INT64_MAX);
        out = static_cast<std::int64_t>(u);
        return true;
    }
    default:
        return false;
    }
}

} // namespace

GgufArray GgufArray::ofUInt8(const std::vector<std::uint8_t>& v) {
    return encodeFixed(GgufValueType::UInt8, v, wire::put<std::uint8_t>);
}
GgufArray GgufArray::ofInt8(const std::vector<std::int8_t>& v) {
    return encodeFixed(GgufValueType::Int8, v, wire::put<std::int8_t>);
}
GgufArray GgufArray::ofUInt16(const std::vector<std::uint16_t>& v) {
    return encodeFixed(GgufValueType::UInt16, v, wire::put<std::uint16_t>);
}
GgufArray GgufArray::ofInt16(const std::vector<std::int16_t>& v) {
    return encodeFixed(GgufValueType::Int16, v, wire::put<std::int16_t>);
}
GgufArray GgufArray::ofUInt32(const std::vector<std::uint32_t>& v) {
    return encodeFixed(GgufValueType::UInt32, v, wire::put<std::uint32_t>);
}
GgufArray GgufArray::ofInt32(const std::vector<std::int32_t>& v) {
    return encodeFixed(GgufValueType::Int32, v, wire::put<std::int32_t>);
}
GgufArray GgufArray::ofUInt64(const std::vector<std::uint64_t>& v) {
    return encodeFixed(GgufValueType::UInt64, v, wire::put<std::uint64_t>);
}
GgufArray GgufArray::ofInt64(const std::vector<std::int64_t>& v) {
    return encodeFixed(GgufValueType::Int64, v, wire::put<std::int64_t>);
}
GgufArray GgufArray::ofFloat32(const std::vector<float>& v) {
    return encodeFixed(GgufValueType::Float32, v, wire::put<float>);
}
GgufArray GgufArray::ofFloat64(const std::vector<double>& v) {
    return encodeFixed(GgufValueType::Float64, v, wire::put<double>);
}
GgufArray GgufArray::ofBool(const std::vector<bool>& v) {
    std::string out;
    out.reserve(v.size());
    for (bool b : v)
        out.push_back(b ? 1 : 0);
    auto blob = std::make_shared<const std::string>(std::move(out));
    const std::size_t n = blob->size();
    return fromEncoded(GgufValueType::Bool, v.size(), std::move(blob), 0, n, 0);
}
GgufArray GgufArray::ofStrings(const std::vector<std::string>& v) {
    std::string out;
    std::size_t total = 0;
    for (const auto& s : v)
        total += 8 + s.size();
    out.reserve(total);
    for (const auto& s : v)
        wire::putString(out, s);
    auto blob = std::make_shared<const std::string>(std::move(out));
    const std::size_t n = blob->size();
    return fromEncoded(GgufValueType::String, v.size(), std::move(blob), 0, n, 0);
}
GgufArray GgufArray::ofArrays(const std::vector<GgufArray>& v) {
    std::string out;
    for (const auto& a : v) {
        wire::put<std::uint32_t>(out, static_cast<std::uint32_t>(a.elementType()));
        wire::put<std::uint64_t>(out, a.size());
        out.append(a.raw());
    }
    auto blob = std::make_shared<const std::string>(std::move(out));
    const std::size_t n = blob->size();
    return fromEncoded(GgufValueType::Array, v.size(), std::move(blob), 0, n, 0);
}

GgufArray GgufArray::fromEncoded(GgufValueType element_type, std::uint64_t count,
                                 std::shared_ptr<const std::string> blob, std::size_t begin,
                                 std::size_t size, std::uint64_t file_offset) {
    GgufArray a;
    a.element_type_ = element_type;
    a.count_ = count;
    a.blob_ = std::move(blob);
    a.begin_ = begin;
    a.size_ = size;
    a.file_offset_ = file_offset;
    return a;
}

GgufArray GgufArray::withBlob(std::shared_ptr<const std::string> blob) const {
    GgufArray a = *this;
    a.blob_ = std::move(blob);
    return a;
}

std::string_view GgufArray::raw() const {
    if (!blob_ || begin_ > blob_->size() || size_ > blob_->size() - begin_) return {};
    return std::string_view(blob_->data() + begin_, size_);
}

std::optional<std::int64_t> GgufArray::intAt(std::uint64_t i) const {
    const std::size_t w = ggufFixedSize(element_type_);
    if (!isGgufIntegerType(element_type_) || i >= count_) return std::nullopt;
    const std::string_view r = raw();
    if ((i + 1) * w > r.size()) return std::nullopt;
    std::int64_t v = 0;
    bool big = false;
    decodeInt(element_type_, r.data() + i * w, v, big);
    if (big) return std::nullopt;
    return v;
}

std::optional<std::uint64_t> GgufArray::uintAt(std::uint64_t i) const {
    if (element_type_ == GgufValueType::UInt64) {
        const std::string_view r = raw();
        if (i >= count_ || (i + 1) * 8 > r.size()) return std::nullopt;
        return wire::load<std::uint64_t>(r.data() + i * 8);
    }
    const auto v = intAt(i);
    if (!v || *v < 0) return std::nullopt;
    return static_cast<std::uint64_t>(*v);
}

std::optional<double> GgufArray::floatAt(std::uint64_t i) const {
    const std::string_view r = raw();
    if (i >= count_) return std::nullopt;
    if (element_type_ == GgufValueType::Float32) {
        if ((i + 1) * 4 > r.size()) return std::nullopt;
        return double{wire::load<float>(r.data() + i * 4)};
    }
    if (element_type_ == GgufValueType::Float64) {
        if ((i + 1) * 8 > r.size()) return std::nullopt;
        return wire::load<double>(r.data() + i * 8);
    }
    if (element_type_ == GgufValueType::UInt64) {
        const auto u = uintAt(i);
        if (!u) return std::nullopt;
        return static_cast<double>(*u);
    }
    const auto v = intAt(i);
    if (!v) return std::nullopt;
    return static_cast<double>(*v);
}

std::optional<bool> GgufArray::boolAt(std::uint64_t i) const {
    const std::string_view r = raw();
    if (element_type_ != GgufValueType::Bool || i >= count_ || i >= r.size()) return std::nullopt;
    return r[i] != 0;
}

void GgufArray::forEachString(
    const std::function<bool(std::uint64_t, std::string_view)>& fn) const {
    if (element_type_ != GgufValueType::String) return;
    const std::string_view r = raw();
    std::size_t pos = 0;
    for (std::uint64_t i = 0; i < count_; ++i) {
        if (r.size() - pos < 8) return;
        const auto len = wire::load<std::uint64_t>(r.data() + pos);
        pos += 8;
        if (len > r.size() - pos) return;
        if (!fn(i, r.substr(pos, len))) return;
        pos += len;
    }
}

std::optional<std::string_view> GgufArray::stringAt(std::uint64_t i) const {
    std::optional<std::string_view> out;
    forEachString([&](std::uint64_t k, std::string_view s) {
        if (k != i) return true;
        out = s;
        return false;
    });
    return out;
}

std::vector<std::int64_t> GgufArray::ints() const {
    std::vector<std::int64_t> out;
    if (!isGgufIntegerType(element_type_)) return out;
    out.reserve(count_);
    for (std::uint64_t i = 0; i < count_; ++i) {
        const auto v = intAt(i);
        if (!v) return {};
        out.push_back(*v);
    }
    return out;
}

std::vector<double> GgufArray::floats() const {
    std::vector<double> out;
    if (!isGgufIntegerType(element_type_) && element_type_ != GgufValueType::Float32 &&
        element_type_ != GgufValueType::Float64)
        return out;
    out.reserve(count_);
    for (std::uint64_t i = 0; i < count_; ++i) {
        const auto v = floatAt(i);
        if (!v) return {};
        out.push_back(*v);
    }
    return out;
}

std::vector<std::string> GgufArray::strings() const {
    std::vector<std::string> out;
    if (element_type_ != GgufValueType::String) return out;
    out.reserve(count_);
    forEachString([&](std::uint64_t, std::string_view s) {
        out.emplace_back(s);
        return true;
    });
    return out;
}

std::vector<std::string_view> GgufArray::stringViews() const {
    std::vector<std::string_view> out;
    if (element_type_ != GgufValueType::String) return out;
    out.reserve(count_);
    forEachString([&](std::uint64_t, std::string_view s) {
        out.push_back(s);
        return true;
    });
    return out;
}

std::vector<GgufArray> GgufArray::arrays() const {
    std::vector<GgufArray> out;
    if (element_type_ != GgufValueType::Array) return out;
    const std::string_view r = raw();
    std::size_t pos = 0;
    for (std::uint64_t i = 0; i < count_; ++i) {
        if (r.size() - pos < 12) return {};
        const auto type = wire::load<std::uint32_t>(r.data() + pos);
        const auto n = wire::load<std::uint64_t>(r.data() + pos + 4);
        pos += 12;
        if (!isValidGgufValueType(type)) return {};
        const auto et = static_cast<GgufValueType>(type);
        const auto span = wire::encodedSpan(et, n, r.substr(pos), 0);
        if (!span) return {};
        out.push_back(fromEncoded(et, n, blob_, begin_ + pos, *span,
                                  file_offset_ == 0 ? 0 : file_offset_ + pos));
        pos += *span;
    }
    return out;
}

std::optional<std::uint64_t> GgufValue::asUInt() const {
    if (!isGgufIntegerType(type_)) return std::nullopt;
    if (const auto* u = std::get_if<std::uint64_t>(&data_)) return *u;
    const auto s = std::get<std::int64_t>(data_);
    if (s < 0) return std::nullopt;
    return static_cast<std::uint64_t>(s);
}

std::optional<std::int64_t> GgufValue::asInt() const {
    if (!isGgufIntegerType(type_)) return std::nullopt;
    if (const auto* s = std::get_if<std::int64_t>(&data_)) return *s;
    const auto u = std::get<std::uint64_t>(data_);
    if (u > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<std::int64_t>(u);
}

std::optional<double> GgufValue::asFloat() const {
    if (const auto* d = std::get_if<double>(&data_)) return *d;
    if (const auto* u = std::get_if<std::uint64_t>(&data_)) return static_cast<double>(*u);
    if (const auto* s = std::get_if<std::int64_t>(&data_)) return static_cast<double>(*s);
    return std::nullopt;
}

std::optional<bool> GgufValue::asBool() const {
    if (const auto* b = std::get_if<bool>(&data_)) return *b;
    return std::nullopt;
}

const std::string* GgufValue::asString() const {
    return std::get_if<std::string>(&data_);
}

const GgufArray* GgufValue::asArray() const {
    return std::get_if<GgufArray>(&data_);
}

} // namespace headroom
