#include "policy/speed.h"

namespace headroom::policy {

SpeedClass classifySpeed(double decode_tok_s) {
    if (decode_tok_s >= kPleasantTokS) return SpeedClass::Pleasant;
    if (decode_tok_s >= kFloorTokS) return SpeedClass::Usable;
    return SpeedClass::TooSlow;
}

} // namespace headroom::policy
