#include "nvml.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>

namespace headroom::probe::detail {

namespace {

// The few NVML types used, laid out as nvml.h declares them (we do not depend on the CUDA
// toolkit's headers). nvmlPciInfo_t is the v3 layout of nvmlDeviceGetPciInfo_v3.
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr int NVML_CLOCK_MEM = 2;
struct nvmlMemory_t {
    unsigned long long total, free, used;
};
struct nvmlPciInfo_t {
    char busIdLegacy[16];
    unsigned int domain, bus, device;
    unsigned int pciDeviceId; // (device id << 16) | vendor id
    unsigned int pciSubSystemId;
    char busId[32];
};

struct Api {
    void* handle = nullptr;
    nvmlReturn_t (*init)() = nullptr;
    nvmlReturn_t (*shutdown)() = nullptr;
    const char* (*errorString)(nvmlReturn_t) = nullptr;
    nvmlReturn_t (*getCount)(unsigned*) = nullptr;
    nvmlReturn_t (*getHandle)(unsigned, nvmlDevice_t*) = nullptr;
    nvmlReturn_t (*getName)(nvmlDevice_t, char*, unsigned) = nullptr;
    nvmlReturn_t (*getPci)(nvmlDevice_t, nvmlPciInfo_t*) = nullptr;
    nvmlReturn_t (*getMemory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
    nvmlReturn_t (*getBusWidth)(nvmlDevice_t, unsigned*) = nullptr;
    nvmlReturn_t (*getMaxClock)(nvmlDevice_t, int, unsigned*) = nullptr;
    nvmlReturn_t (*getMaxPcieGen)(nvmlDevice_t, unsigned*) = nullptr;
    nvmlReturn_t (*getMaxPcieWidth)(nvmlDevice_t, unsigned*) = nullptr;
    nvmlReturn_t (*driverVersion)(char*, unsigned) = nullptr;

    ~Api() {
        if (handle) {
            if (shutdown) shutdown();
            dlclose(handle);
        }
    }
};

template <typename F>
void sym(void* h, F& f, std::initializer_list<const char*> names) {
    for (const char* n : names)
        if (void* p = dlsym(h, n)) {
            f = reinterpret_cast<F>(p);
            return;
        }
}

// Opens and initialises NVML; on failure returns false and says why in `why`.
bool open(Api& api, const std::vector<std::string>& libraries, std::string& library,
          std::string& why) {
    for (const auto& lib : libraries) {
        api.handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (api.handle) {
            library = lib;
            break;
        }
    }
    if (!api.handle) {
        why = "NVML not available (" +
              (libraries.empty() ? std::string("no library names") : libraries.front()) +
              " could not be loaded; no NVIDIA driver installed)";
        return false;
    }
    void* h = api.handle;
    // Versioned entry points first, as the driver exports both (nvtop does the same).
    sym(h, api.init, {"nvmlInit_v2", "nvmlInit"});
    sym(h, api.shutdown, {"nvmlShutdown"});
    sym(h, api.errorString, {"nvmlErrorString"});
    sym(h, api.getCount, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
    sym(h, api.getHandle, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
    sym(h, api.getName, {"nvmlDeviceGetName"});
    sym(h, api.getPci, {"nvmlDeviceGetPciInfo_v3"});
    sym(h, api.getMemory, {"nvmlDeviceGetMemoryInfo"});
    sym(h, api.getBusWidth, {"nvmlDeviceGetMemoryBusWidth"});
    sym(h, api.getMaxClock, {"nvmlDeviceGetMaxClockInfo"});
    sym(h, api.getMaxPcieGen, {"nvmlDeviceGetMaxPcieLinkGeneration"});
    sym(h, api.getMaxPcieWidth, {"nvmlDeviceGetMaxPcieLinkWidth"});
    sym(h, api.driverVersion, {"nvmlSystemGetDriverVersion"});
    if (!api.init || !api.getCount || !api.getHandle) {
        why = library + " lacks nvmlInit/nvmlDeviceGetCount; not a usable NVML";
        dlclose(api.handle);
        api.handle = nullptr;
        return false;
    }
    const nvmlReturn_t rc = api.init();
    if (rc != NVML_SUCCESS) {
        why = "nvmlInit failed (" +
              std::string(api.errorString ? api.errorString(rc) : std::to_string(rc).c_str()) + ")";
        api.shutdown = nullptr; // nothing to shut down
        dlclose(api.handle);
        api.handle = nullptr;
        return false;
    }
    return true;
}

// NVML busId "00000000:01:00.0" -> "0000:01:00.0", lower case like sysfs.
std::string normalisePci(const nvmlPciInfo_t& pci) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.0", pci.domain & 0xffff, pci.bus & 0xff,
                  pci.device & 0xff);
    std::string s = buf;
    // Function number: the text after the last '.' of busId, when present.
    const char* dot = std::strrchr(pci.busId, '.');
    if (dot && std::isxdigit(static_cast<unsigned char>(dot[1])))
        s.back() = static_cast<char>(std::tolower(static_cast<unsigned char>(dot[1])));
    return s;
}

} // namespace

NvmlResult readNvml(const std::vector<std::string>& libraries) {
    NvmlResult r;
    Api api;
    std::string why;
    if (!open(api, libraries, r.library, why)) {
        r.notes.push_back(why);
        return r;
    }
    r.loaded = true;
    if (api.driverVersion) {
        char v[96] = {};
        if (api.driverVersion(v, sizeof v) == NVML_SUCCESS) r.driver_version = v;
    }
    unsigned count = 0;
    if (api.getCount(&count) != NVML_SUCCESS) {
        r.notes.push_back("NVML: nvmlDeviceGetCount failed");
        return r;
    }
    // NVML supports at most 64 devices per host; a larger count is a broken library. Not a knob.
    count = std::min(count, 64u);
    for (unsigned i = 0; i < count; ++i) {
        nvmlDevice_t dev = nullptr;
        if (api.getHandle(i, &dev) != NVML_SUCCESS) {
            r.notes.push_back("NVML: device " + std::to_string(i) + " is not accessible");
            continue;
        }
        NvmlGpu g;
        g.index = i;
        char name[96] = {};
        if (api.getName && api.getName(dev, name, sizeof name) == NVML_SUCCESS) g.name = name;
        nvmlPciInfo_t pci{};
        if (api.getPci && api.getPci(dev, &pci) == NVML_SUCCESS) {
            g.pci_address = normalisePci(pci);
            g.vendor_id = pci.pciDeviceId & 0xffff;
            g.device_id = pci.pciDeviceId >> 16;
        }
        nvmlMemory_t mem{};
        if (api.getMemory && api.getMemory(dev, &mem) == NVML_SUCCESS && mem.total > 0) {
            g.total = mem.total;
            g.free = std::min<Bytes>(mem.free, mem.total);
        }
        unsigned v = 0;
        if (api.getBusWidth && api.getBusWidth(dev, &v) == NVML_SUCCESS) g.bus_width_bits = v;
        if (api.getMaxClock && api.getMaxClock(dev, NVML_CLOCK_MEM, &v) == NVML_SUCCESS)
            g.max_mem_clock_mhz = v;
        if (api.getMaxPcieGen && api.getMaxPcieGen(dev, &v) == NVML_SUCCESS) g.pcie_max_gen = v;
        if (api.getMaxPcieWidth && api.getMaxPcieWidth(dev, &v) == NVML_SUCCESS)
            g.pcie_max_width = v;
        r.gpus.push_back(g);
    }
    return r;
}

std::vector<std::optional<Bytes>> readNvmlFree(const std::vector<std::string>& libraries,
                                               const std::vector<std::string>& pciAddresses) {
    std::vector<std::optional<Bytes>> out(pciAddresses.size());
    NvmlResult all = readNvml(libraries);
    for (size_t i = 0; i < pciAddresses.size(); ++i)
        for (const auto& g : all.gpus)
            if (g.pci_address == pciAddresses[i]) out[i] = g.free;
    return out;
}

} // namespace headroom::probe::detail
