// Unified memory: the OS floor (docs/sources.md, Hermes revision 5eca89b5). On a machine
// where GPU and CPU share one pool, a plan that fits the pool can still leave the OS too little
// and make the machine swap; this check refuses that with its own code (RefusalCode::OsFloor).
#pragma once

#include "units.h"

namespace headroom::policy {

// The OS keeps at least 3 GiB (a desktop session with a browser), 10 % of the pool in between,
// and at most 16 GiB: the cap is load-bearing — an uncapped 10 % would refuse a 240 GiB model on
// a 256 GiB machine that runs it fine. Not knobs.
inline constexpr Bytes kOsFloorMin = 3 * GiB;
inline constexpr Bytes kOsFloorMax = 16 * GiB;
inline constexpr Bytes kOsFloorDivisor = 10; // 10 % of the pool, floored to whole bytes

// min(16 GiB, max(3 GiB, pool / 10)).
Bytes osFloorBytes(Bytes pool_total);

struct OsFloorCheck {
    Bytes floor = 0;      // osFloorBytes(pool)
    SignedBytes left = 0; // pool − needed (negative: the plan does not even fit the pool)
    bool ok = false;      // left ≥ floor
};

// Refuses when pool − needed < floor. `needed` is the whole plan's footprint in the pool.
OsFloorCheck checkOsFloor(Bytes pool_total, Bytes needed);

} // namespace headroom::policy
