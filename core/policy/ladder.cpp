#include "policy/ladder.h"

#include <algorithm>
#include <cstdint>

namespace headroom::policy {

namespace {
std::uint32_t clampNative(std::uint64_t native) {
    if (native == 0) return kFloorWindow;
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(native, UINT32_MAX));
}
} // namespace

std::vector<std::uint32_t> contextLadder(std::uint64_t native_in) {
    const std::uint32_t native = clampNative(native_in);
    std::vector<std::uint32_t> rungs;
    // The step is kept as a double and truncated per rung (not compounded from truncated
    // values), so rungs are exactly 65536 × 1.5^k: powers of 1.5 times 2^16 are whole numbers up
    // to k = 16 and the double holds them exactly far beyond UINT32_MAX.
    for (double step = kFloorWindow; step < static_cast<double>(native); step *= kLadderStep)
        rungs.push_back(static_cast<std::uint32_t>(step));
    rungs.push_back(native);
    return rungs;
}

std::uint32_t nextLadderRung(std::uint32_t current, std::uint64_t native) {
    const std::vector<std::uint32_t> rungs = contextLadder(native);
    for (std::uint32_t r : rungs)
        if (r > current) return r;
    return rungs.back();
}

} // namespace headroom::policy
