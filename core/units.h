// Byte units, saturating arithmetic and size parsing/formatting.
// Sizes are unsigned 64-bit; budgets that may be over-committed are signed (never wrapped).
#pragma once

#include "result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

using Bytes = std::uint64_t;
using SignedBytes = std::int64_t;

inline constexpr Bytes KiB = 1024;
inline constexpr Bytes MiB = 1024 * KiB;
inline constexpr Bytes GiB = 1024 * MiB;
inline constexpr Bytes TiB = 1024 * GiB;

// The largest size any input may claim. 1 PiB is far beyond any machine or model file of this
// decade; anything above it is treated as malformed input rather than priced. Not a knob.
inline constexpr Bytes kMaxPlausibleBytes = 1024 * TiB;

constexpr Bytes satAdd(Bytes a, Bytes b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
constexpr Bytes satMul(Bytes a, Bytes b) {
    if (a == 0 || b == 0) return 0;
    return a > UINT64_MAX / b ? UINT64_MAX : a * b;
}
constexpr Bytes satSub(Bytes a, Bytes b) {
    return a > b ? a - b : 0;
}
constexpr Bytes ceilDiv(Bytes a, Bytes b) {
    return b == 0 ? 0 : (a + b - 1) / b;
}
constexpr Bytes padTo(Bytes a, Bytes multiple) {
    return ceilDiv(a, multiple) * multiple;
}

// Signed view of an unsigned size for budget arithmetic; clamps instead of wrapping.
constexpr SignedBytes toSigned(Bytes b) {
    return b > static_cast<Bytes>(INT64_MAX) ? INT64_MAX : static_cast<SignedBytes>(b);
}

// A signed budget as a byte count for output: an over-committed or too-small budget is 0 bytes of
// room, never a negative count (the plan JSON's rule: every byte count is >= 0).
constexpr Bytes nonNegative(SignedBytes b) {
    return b < 0 ? 0 : static_cast<Bytes>(b);
}

// Parses "24GiB", "24G", "24 GB" (decimal? no: G/GB are read as GiB like llama.cpp and nvidia-smi
// users mean them), "24576MiB", "512M", "1.5GiB" or plain bytes. Rejects negatives, junk and
// values above kMaxPlausibleBytes with a message naming the text.
Result<Bytes> parseSize(std::string_view text);

// Parses a comma-separated list of sizes, one per GPU ("24GiB,12GiB"). An empty item ("24GiB,",
// ",8G", "") is an error, not a skipped GPU; more than `max_items` items is an error too. `flag`
// names the option in messages ("--vram").
Result<std::vector<Bytes>> parseSizeList(std::string_view text, std::size_t max_items,
                                         const std::string& flag);

// Parses a token count: "131072", "128K", "128k" (K = 1024 tokens, as the ladder uses).
Result<std::uint64_t> parseTokens(std::string_view text);

// "21.84 GiB", "512.0 MiB", "17 B" — for people; JSON always carries integer bytes.
std::string formatBytes(Bytes b);
std::string formatSignedBytes(SignedBytes b);
// "64K", "144K", "1M" style rung labels (K = 1024 tokens); exact when not a multiple.
std::string formatTokens(std::uint64_t tokens);

} // namespace headroom
