#include "units.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

namespace headroom {

const char* errorCodeName(ErrorCode code) {
    switch (code) {
    case ErrorCode::InvalidArgument:
        return "invalid_argument";
    case ErrorCode::ParseError:
        return "parse_error";
    case ErrorCode::Truncated:
        return "truncated";
    case ErrorCode::Unsupported:
        return "unsupported";
    case ErrorCode::IoError:
        return "io_error";
    case ErrorCode::NotFound:
        return "not_found";
    case ErrorCode::ProbeFailed:
        return "probe_failed";
    }
    return "unknown";
}

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

bool equalsNoCase(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) !=
            std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

enum class Split { Ok, NotANumber, TooLarge };

// Splits "1.5GiB" into a non-negative decimal number and a unit suffix. Only digits and one dot
// are accepted in the number so "0x10", "1e9", "-1" and "nan" are all rejected. A well-formed
// number that does not fit 64 bits is TooLarge, so the message can say so instead of calling
// "99999999999999999999" not a number.
Split splitNumber(std::string_view s, double& number, std::string_view& unit, bool& integral,
                  std::uint64_t& intValue) {
    size_t i = 0;
    bool sawDot = false, sawDigit = false;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) {
        if (s[i] == '.') {
            if (sawDot) return Split::NotANumber;
            sawDot = true;
        } else {
            sawDigit = true;
        }
        ++i;
    }
    if (!sawDigit) return Split::NotANumber;
    std::string num(s.substr(0, i));
    number = std::strtod(num.c_str(), nullptr);
    integral = !sawDot;
    intValue = 0;
    unit = trim(s.substr(i));
    if (integral) {
        for (char c : num) {
            std::uint64_t d = static_cast<std::uint64_t>(c - '0');
            if (intValue > (UINT64_MAX - d) / 10) return Split::TooLarge;
            intValue = intValue * 10 + d;
        }
    }
    return std::isfinite(number) ? Split::Ok : Split::TooLarge;
}

} // namespace

Result<Bytes> parseSize(std::string_view text) {
    const std::string shown(text);
    std::string_view s = trim(text);
    double number = 0;
    std::string_view unit;
    bool integral = false;
    std::uint64_t intValue = 0;
    auto bad = [&](const char* why) {
        return makeError(ErrorCode::InvalidArgument, "invalid size '" + shown + "': " + why,
                         "accepted: bytes, or a number with KiB/MiB/GiB/TiB (K/M/G/T, KB/MB/GB/TB "
                         "are read as binary units)");
    };
    if (s.empty()) return bad("empty");
    switch (splitNumber(s, number, unit, integral, intValue)) {
    case Split::NotANumber:
        return bad("not a non-negative number");
    case Split::TooLarge:
        return bad("larger than 1 PiB");
    case Split::Ok:
        break;
    }
    Bytes scale = 0;
    struct U {
        const char* name;
        Bytes scale;
    };
    static const U units[] = {{"", 1},      {"b", 1},    {"k", KiB},   {"kb", KiB}, {"kib", KiB},
                              {"m", MiB},   {"mb", MiB}, {"mib", MiB}, {"g", GiB},  {"gb", GiB},
                              {"gib", GiB}, {"t", TiB},  {"tb", TiB},  {"tib", TiB}};
    for (const U& u : units)
        if (equalsNoCase(unit, u.name)) scale = u.scale;
    if (scale == 0) return bad("unknown unit");
    if (scale == 1 && !integral) return bad("a byte count must be a whole number");
    Bytes value = 0;
    if (integral) {
        value = satMul(intValue, scale);
    } else {
        const long double v = static_cast<long double>(number) * static_cast<long double>(scale);
        if (v > static_cast<long double>(kMaxPlausibleBytes)) return bad("larger than 1 PiB");
        value = static_cast<Bytes>(v);
    }
    if (value > kMaxPlausibleBytes) return bad("larger than 1 PiB");
    return value;
}

Result<std::vector<Bytes>> parseSizeList(std::string_view text, std::size_t max_items,
                                         const std::string& flag) {
    const std::string shown(text);
    std::vector<Bytes> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = text.find(',', start);
        const std::string_view part = text.substr(
            start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        if (trim(part).empty())
            return makeError(ErrorCode::InvalidArgument,
                             flag + " '" + shown + "': an empty size in the list",
                             "accepted: one size per GPU, comma-separated, e.g. 24GiB,12GiB");
        auto v = parseSize(part);
        if (!v) {
            Error e = v.error();
            e.message = flag + ": " + e.message;
            return e;
        }
        out.push_back(*v);
        if (out.size() > max_items)
            return makeError(ErrorCode::InvalidArgument,
                             flag + " '" + shown + "': more than " + std::to_string(max_items) +
                                 " sizes",
                             "one size per GPU; llama.cpp uses at most " +
                                 std::to_string(max_items) + " devices (llama_max_devices)");
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

Result<std::uint64_t> parseTokens(std::string_view text) {
    const std::string shown(text);
    std::string_view s = trim(text);
    double number = 0;
    std::string_view unit;
    bool integral = false;
    std::uint64_t intValue = 0;
    auto bad = [&](const char* why) {
        return makeError(ErrorCode::InvalidArgument, "invalid token count '" + shown + "': " + why,
                         "accepted: a whole number of tokens, optionally with K (x1024) or M "
                         "(x1048576), or 'native'");
    };
    if (s.empty()) return bad("empty");
    const Split split = splitNumber(s, number, unit, integral, intValue);
    if (split == Split::TooLarge) return bad("larger than llama.cpp's 32-bit context size");
    if (split != Split::Ok || !integral) return bad("not a whole non-negative number");
    std::uint64_t scale = 0;
    if (unit.empty())
        scale = 1;
    else if (equalsNoCase(unit, "k"))
        scale = 1024;
    else if (equalsNoCase(unit, "m"))
        scale = 1024 * 1024;
    if (scale == 0) return bad("unknown unit");
    const std::uint64_t v = satMul(intValue, scale);
    // llama.cpp holds n_ctx in a uint32_t (llama_context_params::n_ctx).
    if (v > UINT32_MAX) return bad("larger than llama.cpp's 32-bit context size");
    return v;
}

std::string formatBytes(Bytes b) {
    char buf[64];
    if (b >= GiB)
        std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(b) / GiB);
    else if (b >= MiB)
        std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / MiB);
    else if (b >= KiB)
        std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b) / KiB);
    else
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
    return buf;
}

std::string formatSignedBytes(SignedBytes b) {
    if (b >= 0) return formatBytes(static_cast<Bytes>(b));
    const Bytes mag = b == INT64_MIN ? static_cast<Bytes>(INT64_MAX) + 1 : static_cast<Bytes>(-b);
    return "-" + formatBytes(mag);
}

std::string formatTokens(std::uint64_t tokens) {
    if (tokens >= 1024 * 1024 && tokens % (1024 * 1024) == 0)
        return std::to_string(tokens / (1024 * 1024)) + "M";
    if (tokens >= 1024 && tokens % 1024 == 0) return std::to_string(tokens / 1024) + "K";
    return std::to_string(tokens);
}

} // namespace headroom
