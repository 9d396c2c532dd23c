#include "policy/uma.h"

#include <algorithm>

namespace headroom::policy {

Bytes osFloorBytes(Bytes pool_total) {
    return std::min(kOsFloorMax, std::max(kOsFloorMin, pool_total / kOsFloorDivisor));
}

OsFloorCheck checkOsFloor(Bytes pool_total, Bytes needed) {
    OsFloorCheck c;
    c.floor = osFloorBytes(pool_total);
    c.left = pool_total >= needed ? toSigned(pool_total - needed) : -toSigned(needed - pool_total);
    c.ok = c.left >= 0 && static_cast<Bytes>(c.left) >= c.floor;
    return c;
}

} // namespace headroom::policy
