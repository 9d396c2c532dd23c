// Little-endian encoding helpers for the GGUF wire format. Internal to core/gguf.
#pragma once

#include "gguf_value.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace headroom::wire {

// Nested arrays deeper than this are refused. The GGUF spec allows nesting, llama.cpp's own
// reader refuses any (gguf.cpp gguf_init_from_file_impl: an array of GGUF_TYPE_ARRAY is "invalid
// GGUF type"), and no writer produces more than one level; the bound keeps hostile input from
// driving recursion. Not a knob.
inline constexpr int kMaxArrayNesting = 8;

template <typename T>
T load(const char* p) {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    if constexpr (std::endian::native == std::endian::little || sizeof(T) == 1) {
        std::memcpy(&v, p, sizeof(T));
    } else {
        unsigned char b[sizeof(T)];
        for (std::size_t i = 0; i < sizeof(T); ++i)
            b[i] = static_cast<unsigned char>(p[sizeof(T) - 1 - i]);
        std::memcpy(&v, b, sizeof(T));
    }
    return v;
}

template <typename T>
void put(std::string& out, T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    if constexpr (std::endian::native != std::endian::little && sizeof(T) > 1) {
        for (std::size_t i = 0; i < sizeof(T) / 2; ++i)
            std::swap(b[i], b[sizeof(T) - 1 - i]);
    }
    out.append(b, sizeof(T));
}

inline void putString(std::string& out, std::string_view s) {
    put<std::uint64_t>(out, s.size());
    out.append(s);
}

// Bytes taken by `count` encoded elements of `type` at the start of `bytes`, or nullopt if they
// do not fit or are malformed (unknown nested type, nesting too deep).
inline std::optional<std::size_t> encodedSpan(GgufValueType type, std::uint64_t count,
                                              std::string_view bytes, int depth) {
    if (const std::size_t w = ggufFixedSize(type); w != 0) {
        if (count > bytes.size() / w) return std::nullopt;
        return static_cast<std::size_t>(count * w);
    }
    std::size_t pos = 0;
    if (type == GgufValueType::String) {
        if (count > bytes.size() / 8) return std::nullopt;
        for (std::uint64_t i = 0; i < count; ++i) {
            if (bytes.size() - pos < 8) return std::nullopt;
            const auto len = load<std::uint64_t>(bytes.data() + pos);
            pos += 8;
            if (len > bytes.size() - pos) return std::nullopt;
            pos += static_cast<std::size_t>(len);
        }
        return pos;
    }
    if (depth >= kMaxArrayNesting || count > bytes.size() / 12) return std::nullopt;
    for (std::uint64_t i = 0; i < count; ++i) {
        if (bytes.size() - pos < 12) return std::nullopt;
        const auto t = load<std::uint32_t>(bytes.data() + pos);
        const auto n = load<std::uint64_t>(bytes.data() + pos + 4);
        pos += 12;
        if (!isValidGgufValueType(t)) return std::nullopt;
        const auto inner =
            encodedSpan(static_cast<GgufValueType>(t), n, bytes.substr(pos), depth + 1);
        if (!inner) return std::nullopt;
        pos += *inner;
    }
    return pos;
}

} // namespace headroom::wire
