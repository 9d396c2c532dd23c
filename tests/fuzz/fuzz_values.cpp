// libFuzzer target for the option-value parsers every command shares: sizes (--vram, --ram,
// --reserve), size lists (--vram 24GiB,12GiB), token counts (-c, --fits-at) and cache types
// (-ctk/-ctv). Any text gives a value in range or an Error naming the input, never a crash.
#include "ggml_type.h"
#include "hardware.h"
#include "units.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

using namespace headroom;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto b = parseSize(text)) {
        if (*b > kMaxPlausibleBytes) __builtin_trap();
        // What the tables print for any accepted size ("1.50 GiB", "17 B") is a size again.
        if (!parseSize(formatBytes(*b))) __builtin_trap();
    } else if (b.error().message.empty()) {
        __builtin_trap();
    }
    if (auto list = parseSizeList(text, kMaxDevices, "--vram")) {
        if (list->empty() || list->size() > kMaxDevices) __builtin_trap();
        for (Bytes v : *list)
            if (v > kMaxPlausibleBytes) __builtin_trap();
    } else if (list.error().message.find("--vram") == std::string::npos) {
        __builtin_trap(); // the message names the option
    }
    if (auto t = parseTokens(text)) {
        if (*t > UINT32_MAX) __builtin_trap(); // llama.cpp's n_ctx is 32-bit
        const auto again = parseTokens(formatTokens(*t));
        if (!again || *again != *t) __builtin_trap();
    }
    if (auto ct = parseCacheType(text))
        if (ggmlTypeName(*ct) != text) __builtin_trap();
    return 0;
}
