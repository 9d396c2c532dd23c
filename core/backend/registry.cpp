// The list of backends and the lookups by name (backend.h).
#include "backend/backend.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace headroom {

namespace {

bool sameName(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

bool matches(const BackendTraits& t, std::string_view name) {
    if (sameName(t.name, name)) return true;
    std::string_view rest = t.aliases;
    while (!rest.empty()) {
        const size_t sp = rest.find(' ');
        if (sameName(rest.substr(0, sp), name)) return true;
        if (sp == std::string_view::npos) break;
        rest.remove_prefix(sp + 1);
    }
    return false;
}

} // namespace

std::span<const BackendTraits* const> allBackends() {
    static const std::array<const BackendTraits*, 7> all{
        &cpuBackend(),    &cudaBackend(), &hipBackend(), &metalBackend(),
        &vulkanBackend(), &syclBackend(), &rpcBackend()};
    return all;
}

const BackendTraits& traitsOf(Backend b) {
    for (const BackendTraits* t : allBackends())
        if (t->id == b) return *t;
    return cpuBackend();
}

std::optional<Backend> backendFromName(std::string_view name) {
    for (const BackendTraits* t : allBackends())
        if (matches(*t, name)) return t->id;
    return std::nullopt;
}

std::string_view backendNamesForHelp() {
    static const std::string names = [] {
        std::string s;
        for (const BackendTraits* t : allBackends()) {
            if (t->id == Backend::Rpc) continue; // a device attribute, not a --backend
            if (!s.empty()) s += ", ";
            s += t->name;
        }
        return s;
    }();
    return names;
}

const char* backendName(Backend b) {
    if (b == Backend::Auto) return "auto";
    return traitsOf(b).name.data();
}

} // namespace headroom
