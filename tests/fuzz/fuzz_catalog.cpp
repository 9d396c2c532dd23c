// libFuzzer target for the catalog reader (resources/catalog.json or $HEADROOM_RESOURCES): any
// bytes give a catalog or an Error, never an exception, crash or hang; every entry the lenient
// loader keeps yields a model shape at each of its quants.
#include "catalog.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace headroom;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto strict = loadCatalog(text);
    if (!strict && strict.error().message.empty()) __builtin_trap();
    const auto lenient = loadCatalogLenient(text);
    if (!lenient) return 0;
    std::size_t sink = 0;
    for (const auto& e : lenient->catalog.entries())
        for (const auto& q : e.quants) {
            const ModelShape s = catalogShape(e, q);
            sink += s.layers.size();
        }
    for (const auto& r : lenient->rejected)
        if (r.reason.empty()) __builtin_trap(); // every rejection says why
    volatile std::size_t keep = sink;
    (void)keep;
    return 0;
}
