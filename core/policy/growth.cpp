#include "policy/growth.h"

#include "policy/ladder.h"
#include "policy/speed.h"

#include <cstdio>

namespace headroom::policy {

const char* growthActionName(GrowthAction a) {
    switch (a) {
    case GrowthAction::Grow:
        return "grow";
    case GrowthAction::Hold:
        return "hold";
    case GrowthAction::CompressDefault:
        return "compress-default";
    }
    return "hold";
}

Result<GrowthDecision> growthDecision(const GrowthInput& in) {
    if (!in.need_at)
        return makeError(ErrorCode::InvalidArgument,
                         "growth decision needs a pricing function for the next window");

    GrowthDecision d;
    const double threshold = static_cast<double>(in.current_window) * kGrowthOccupancy;
    if (!in.occupancy_confirmed && static_cast<double>(in.session_tokens) < threshold) {
        d.action = GrowthAction::Hold;
        d.reason = "session holds " + std::to_string(in.session_tokens) + " of " +
                   std::to_string(in.current_window) +
                   " tokens, below the 85 % occupancy that asks for more";
        return d;
    }

    const std::uint64_t native = in.n_ctx_train ? in.n_ctx_train : in.current_window;
    if (in.current_window >= native) {
        d.action = GrowthAction::CompressDefault;
        d.reason = "already at the native window (" + formatTokens(native) +
                   "); compression is the only way on";
        return d;
    }

    if (!in.idle) {
        d.action = GrowthAction::Hold;
        d.reason = "server busy; growth waits until it is idle";
        return d;
    }

    if (in.decode_tok_s && *in.decode_tok_s < kFloorTokS) {
        char speed[32];
        std::snprintf(speed, sizeof speed, "%.1f", *in.decode_tok_s);
        d.action = GrowthAction::CompressDefault;
        d.reason = std::string("decode runs at ") + speed +
                   " tok/s, under the 6 tok/s floor; a longer window would only be slower, so "
                   "growing is left to an explicit choice";
        return d;
    }

    const std::uint32_t next = nextLadderRung(in.current_window, native);
    d.needed_bytes = in.need_at(next);
    // Signed and saturating: a negative VRAM budget lowers what is available, never wraps.
    const SignedBytes vram = in.usable_vram, ram = in.ram_available;
    d.available_bytes = (ram > 0 && vram > INT64_MAX - ram)   ? INT64_MAX
                        : (ram < 0 && vram < INT64_MIN - ram) ? INT64_MIN
                                                              : vram + ram;
    if (d.available_bytes < 0 || d.needed_bytes > static_cast<Bytes>(d.available_bytes)) {
        d.action = GrowthAction::CompressDefault;
        d.reason = "next rung " + formatTokens(next) + " exceeds physics: it needs " +
                   formatBytes(d.needed_bytes) + " of " + formatSignedBytes(d.available_bytes) +
                   " VRAM + RAM; compressing instead";
        return d;
    }

    d.action = GrowthAction::Grow;
    d.next_window = next;
    d.reason = "rung " + formatTokens(in.current_window) + " -> " + formatTokens(next);
    return d;
}

} // namespace headroom::policy
