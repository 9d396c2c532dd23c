#include "vulkan_probe.h"

#include <vulkan/vulkan_core.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <map>

namespace headroom::probe::detail {

namespace {

std::string hex(const std::uint8_t* p, size_t n) {
    std::string s;
    bool nonzero = false;
    char buf[3];
    for (size_t i = 0; i < n; ++i) {
        std::snprintf(buf, sizeof buf, "%02x", p[i]);
        s += buf;
        nonzero = nonzero || p[i] != 0;
    }
    return nonzero ? s : std::string();
}

std::string vkResultName(VkResult r) {
    switch (r) {
    case VK_ERROR_INCOMPATIBLE_DRIVER:
        return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_INITIALIZATION_FAILED:
        return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_OUT_OF_HOST_MEMORY:
        return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
        return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_LAYER_NOT_PRESENT:
        return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT:
        return "VK_ERROR_EXTENSION_NOT_PRESENT";
    default:
        return "VkResult " + std::to_string(static_cast<int>(r));
    }
}

// Lower number = preferred, per vendor; the order llama.cpp uses when one GPU appears under two
// drivers (ggml-vulkan.cpp ggml_vk_instance_init): AMD RADV > AMDVLK > proprietary; Intel Mesa >
// Windows proprietary; NVIDIA proprietary > NVK; Qualcomm proprietary > Turnip; Dozen last.
int driverPriority(std::uint32_t vendor, std::uint32_t driver) {
    if (driver == VK_DRIVER_ID_MESA_DOZEN) return 100;
    switch (vendor) {
    case 0x1002:
        if (driver == VK_DRIVER_ID_MESA_RADV) return 1;
        if (driver == VK_DRIVER_ID_AMD_OPEN_SOURCE) return 2;
        if (driver == VK_DRIVER_ID_AMD_PROPRIETARY) return 3;
        break;
    case 0x8086:
        if (driver == VK_DRIVER_ID_INTEL_OPEN_SOURCE_MESA) return 1;
        if (driver == VK_DRIVER_ID_INTEL_PROPRIETARY_WINDOWS) return 2;
        break;
    case 0x10de:
        if (driver == VK_DRIVER_ID_NVIDIA_PROPRIETARY) return 1;
        if (driver == VK_DRIVER_ID_MESA_NVK) return 2;
        break;
    case 0x5143:
        if (driver == VK_DRIVER_ID_QUALCOMM_PROPRIETARY) return 1;
        if (driver == VK_DRIVER_ID_MESA_TURNIP) return 2;
        break;
    }
    return 50;
}

bool hasExtension(const std::vector<VkExtensionProperties>& exts, const char* name) {
    return std::any_of(exts.begin(), exts.end(), [&](const VkExtensionProperties& e) {
        return std::strcmp(e.extensionName, name) == 0;
    });
}

} // namespace

std::string vulkanDeviceTypeName(int type) {
    switch (type) {
    case kVkIntegrated:
        return "integrated";
    case kVkDiscrete:
        return "discrete";
    case kVkVirtual:
        return "virtual";
    case kVkCpu:
        return "cpu";
    default:
        return "other";
    }
}

VulkanResult readVulkan(const std::string& library) {
    VulkanResult r;
    // The loader stays loaded for the life of the process: unloading it unloads the drivers, and
    // some (LLVM-based ones among them) misbehave when unloaded and reloaded. dlopen of an
    // already-loaded library is a reference count, so repeated probes cost nothing.
    void* h = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* e = dlerror();
        r.failure = "no Vulkan loader: " + library + " could not be loaded" +
                    (e ? std::string(" (") + e + ")" : std::string()) +
                    "; install libvulkan1 and a GPU driver to see GPUs";
        return r;
    }
    auto gipa = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(h, "vkGetInstanceProcAddr"));
    if (!gipa) {
        r.failure = library + " has no vkGetInstanceProcAddr; it is not a Vulkan loader";
        return r;
    }
    r.loaded = true;
    auto enumVersion = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
        gipa(nullptr, "vkEnumerateInstanceVersion"));
    auto enumInstExt = reinterpret_cast<PFN_vkEnumerateInstanceExtensionProperties>(
        gipa(nullptr, "vkEnumerateInstanceExtensionProperties"));
    auto createInstance = reinterpret_cast<PFN_vkCreateInstance>(gipa(nullptr, "vkCreateInstance"));
    if (!createInstance) {
        r.failure = "the Vulkan loader does not provide vkCreateInstance";
        return r;
    }
    r.instance_version = VK_API_VERSION_1_0; // a 1.0 loader has no vkEnumerateInstanceVersion
    if (enumVersion && enumVersion(&r.instance_version) != VK_SUCCESS)
        r.instance_version = VK_API_VERSION_1_0;

    std::vector<VkExtensionProperties> instExts;
    if (enumInstExt) {
        std::uint32_t n = 0;
        if (enumInstExt(nullptr, &n, nullptr) == VK_SUCCESS && n > 0 && n < 4096) {
            instExts.resize(n);
            if (enumInstExt(nullptr, &n, instExts.data()) < 0) instExts.clear();
            instExts.resize(std::min<std::size_t>(n, instExts.size()));
        }
    }
    std::vector<const char*> enabled;
    const bool haveProps2Ext =
        hasExtension(instExts, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
    if (haveProps2Ext) enabled.push_back(VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
    VkInstanceCreateFlags flags = 0;
    // Lists MoltenVK-style portability drivers too (macOS); harmless elsewhere.
    if (hasExtension(instExts, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
        enabled.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
        flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }
    const bool instance11 = r.instance_version >= VK_API_VERSION_1_1;
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "headroom-probe";
    app.pEngineName = "headroom";
    // A 1.0 loader refuses any apiVersion above 1.0; 1.1+ loaders accept the highest we use.
    app.apiVersion = instance11 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_0;
    VkInstanceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ci.flags = flags;
    ci.pApplicationInfo = &app;
    ci.enabledExtensionCount = static_cast<std::uint32_t>(enabled.size());
    ci.ppEnabledExtensionNames = enabled.data();
    VkInstance instance = VK_NULL_HANDLE;
    const VkResult cr = createInstance(&ci, nullptr, &instance);
    if (cr != VK_SUCCESS || instance == VK_NULL_HANDLE) {
        r.failure =
            "vkCreateInstance failed (" + vkResultName(cr) + ")" +
            (cr == VK_ERROR_INCOMPATIBLE_DRIVER ? ": the Vulkan loader found no usable driver (ICD)"
                                                : std::string());
        return r;
    }
#define HR_VK_LOAD(name) auto name = reinterpret_cast<PFN_##name>(gipa(instance, #name))
    HR_VK_LOAD(vkDestroyInstance);
    HR_VK_LOAD(vkEnumeratePhysicalDevices);
    HR_VK_LOAD(vkEnumerateDeviceExtensionProperties);
    HR_VK_LOAD(vkGetPhysicalDeviceProperties);
    HR_VK_LOAD(vkGetPhysicalDeviceMemoryProperties);
#undef HR_VK_LOAD
    PFN_vkGetPhysicalDeviceProperties2 getProps2 = nullptr;
    PFN_vkGetPhysicalDeviceMemoryProperties2 getMem2 = nullptr;
    if (instance11) {
        getProps2 = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(
            gipa(instance, "vkGetPhysicalDeviceProperties2"));
        getMem2 = reinterpret_cast<PFN_vkGetPhysicalDeviceMemoryProperties2>(
            gipa(instance, "vkGetPhysicalDeviceMemoryProperties2"));
    }
    if ((!getProps2 || !getMem2) && haveProps2Ext) {
        getProps2 = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(
            gipa(instance, "vkGetPhysicalDeviceProperties2KHR"));
        getMem2 = reinterpret_cast<PFN_vkGetPhysicalDeviceMemoryProperties2>(
            gipa(instance, "vkGetPhysicalDeviceMemoryProperties2KHR"));
    }
    auto destroy = [&] {
        if (vkDestroyInstance) vkDestroyInstance(instance, nullptr);
    };
    if (!vkEnumeratePhysicalDevices || !vkGetPhysicalDeviceProperties ||
        !vkGetPhysicalDeviceMemoryProperties) {
        r.failure = "the Vulkan loader lacks the physical-device entry points";
        destroy();
        return r;
    }
    std::vector<VkPhysicalDevice> phys;
    std::uint32_t count = 0;
    VkResult er = vkEnumeratePhysicalDevices(instance, &count, nullptr);
    // 256 devices is far beyond any host; a larger count is a broken driver. Not a knob.
    if (er >= 0 && count > 0 && count <= 256) {
        phys.resize(count);
        er = vkEnumeratePhysicalDevices(instance, &count, phys.data());
        phys.resize(std::min<std::size_t>(count, phys.size()));
    }
    if (er < 0) {
        r.failure = "vkEnumeratePhysicalDevices failed (" + vkResultName(er) + ")";
        destroy();
        return r;
    }
    if (phys.empty()) {
        r.failure = "the Vulkan loader lists no physical devices";
        destroy();
        return r;
    }
    for (std::uint32_t i = 0; i < phys.size(); ++i) {
        VulkanDeviceInfo d;
        d.index = i;
        std::vector<VkExtensionProperties> exts;
        if (vkEnumerateDeviceExtensionProperties) {
            std::uint32_t n = 0;
            if (vkEnumerateDeviceExtensionProperties(phys[i], nullptr, &n, nullptr) == VK_SUCCESS &&
                n > 0 && n < 4096) {
                exts.resize(n);
                if (vkEnumerateDeviceExtensionProperties(phys[i], nullptr, &n, exts.data()) < 0)
                    exts.clear();
                exts.resize(std::min<std::size_t>(n, exts.size()));
            }
        }
        VkPhysicalDeviceProperties base{};
        vkGetPhysicalDeviceProperties(phys[i], &base);
        d.api_version = base.apiVersion;
        const std::uint32_t effective = std::min(base.apiVersion, app.apiVersion);
        const bool props2 = getProps2 && (effective >= VK_API_VERSION_1_1 || haveProps2Ext);
        d.has_budget = props2 && hasExtension(exts, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
        const bool pciInfo = props2 && hasExtension(exts, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME);
        const bool driverProps = props2 && (effective >= VK_API_VERSION_1_2 ||
                                            hasExtension(exts, "VK_KHR_driver_properties"));
        const bool idProps = props2 && effective >= VK_API_VERSION_1_1;

        // Chain only structures the device supports; pNext links built back to front.
        VkPhysicalDeviceProperties2 p2{};
        p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
        VkPhysicalDeviceDriverProperties drv{};
        drv.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
        VkPhysicalDeviceIDProperties idp{};
        idp.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
        VkPhysicalDevicePCIBusInfoPropertiesEXT pci{};
        pci.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT;
        void** next = &p2.pNext;
        if (driverProps) {
            *next = &drv;
            next = &drv.pNext;
        }
        if (idProps) {
            *next = &idp;
            next = &idp.pNext;
        }
        if (pciInfo) {
            *next = &pci;
            next = &pci.pNext;
        }
        if (props2) getProps2(phys[i], &p2);
        const VkPhysicalDeviceProperties& props = props2 ? p2.properties : base;
        d.name.assign(props.deviceName,
                      strnlen(props.deviceName, VK_MAX_PHYSICAL_DEVICE_NAME_SIZE));
        d.vendor_id = props.vendorID;
        d.device_id = props.deviceID;
        d.device_type = static_cast<int>(props.deviceType);
        if (driverProps) {
            d.driver_id = static_cast<std::uint32_t>(drv.driverID);
            d.driver_name.assign(drv.driverName, strnlen(drv.driverName, VK_MAX_DRIVER_NAME_SIZE));
            d.driver_info.assign(drv.driverInfo, strnlen(drv.driverInfo, VK_MAX_DRIVER_INFO_SIZE));
        }
        if (idProps) d.uuid = hex(idp.deviceUUID, VK_UUID_SIZE);
        if (pciInfo) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", pci.pciDomain & 0xffff,
                          pci.pciBus & 0xff, pci.pciDevice & 0x1f, pci.pciFunction & 0x7);
            d.pci_address = buf;
        }

        VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{};
        budget.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT;
        VkPhysicalDeviceMemoryProperties2 m2{};
        m2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2;
        if (d.has_budget) m2.pNext = &budget;
        VkPhysicalDeviceMemoryProperties mem{};
        if (props2 && getMem2) {
            getMem2(phys[i], &m2);
            mem = m2.memoryProperties;
        } else {
            vkGetPhysicalDeviceMemoryProperties(phys[i], &mem);
            d.has_budget = false;
        }
        const std::uint32_t heaps =
            std::min<std::uint32_t>(mem.memoryHeapCount, VK_MAX_MEMORY_HEAPS);
        for (std::uint32_t k = 0; k < heaps; ++k) {
            VulkanHeap hp;
            hp.size = mem.memoryHeaps[k].size;
            hp.device_local = (mem.memoryHeaps[k].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0;
            if (d.has_budget) {
                hp.budget = budget.heapBudget[k];
                hp.usage = budget.heapUsage[k];
            }
            d.heaps.push_back(hp);
        }
        r.devices.push_back(std::move(d));
    }
    destroy();
    return r;
}

VulkanMemory summarizeVulkanMemory(const VulkanDeviceInfo& d) {
    VulkanMemory m;
    const bool integrated = d.device_type == kVkIntegrated;
    bool budgetUsable = d.has_budget;
    Bytes free = 0;
    std::uint32_t counted = 0;
    for (size_t k = 0; k < d.heaps.size(); ++k) {
        const VulkanHeap& h = d.heaps[k];
        MemoryHeap out;
        out.size = h.size;
        out.device_local = h.device_local;
        out.usage = h.usage;
        if (h.budget) {
            out.budget = *h.budget;
            if (*h.budget > h.size) {
                // The spec bounds heapBudget by the heap size; drivers that exceed it (seen on
                // Intel iGPUs) would promise memory the heap does not have.
                out.budget = h.size;
                m.corrections.push_back("heap " + std::to_string(k) + " budget " +
                                        formatBytes(*h.budget) + " clamped to heap size " +
                                        formatBytes(h.size));
            }
        }
        m.heaps.push_back(out);
        if (!(integrated || h.device_local)) continue;
        ++counted;
        m.total = satAdd(m.total, h.size);
        if (!budgetUsable) continue;
        if (!out.budget || *out.budget == 0) {
            // The spec requires a non-zero budget for every valid heap; zero means the driver did
            // not fill the structure, so the reading is unusable rather than "0 free".
            budgetUsable = false;
            m.corrections.push_back("heap " + std::to_string(k) +
                                    " reports a zero budget; free memory unknown");
            continue;
        }
        const Bytes used = out.usage.value_or(0);
        if (used > *out.budget)
            m.corrections.push_back("heap " + std::to_string(k) +
                                    " usage exceeds its budget; "
                                    "counted as 0 free");
        free = satAdd(free, satSub(*out.budget, used));
    }
    if (integrated && counted > 1)
        m.corrections.push_back("integrated GPU: " + std::to_string(counted) +
                                " heaps summed (the driver splits one shared pool)");
    if (budgetUsable) {
        m.free = std::min(free, m.total);
        m.provenance = "VK_EXT_memory_budget";
    } else {
        m.provenance = "heap size, no budget extension";
    }
    return m;
}

std::vector<VulkanDeviceInfo> dedupeVulkanDevices(const std::vector<VulkanDeviceInfo>& devices,
                                                  std::vector<std::string>& notes) {
    std::vector<VulkanDeviceInfo> kept;
    for (const auto& d : devices) {
        auto same = std::find_if(kept.begin(), kept.end(), [&](const VulkanDeviceInfo& k) {
            const bool bothMolten =
                k.driver_id == VK_DRIVER_ID_MOLTENVK && d.driver_id == VK_DRIVER_ID_MOLTENVK;
            if (bothMolten) return false; // MoltenVK may give distinct GPUs one UUID
            if (!d.uuid.empty() && d.uuid == k.uuid) return true;
            return !d.pci_address.empty() && d.pci_address == k.pci_address;
        });
        if (same == kept.end()) {
            kept.push_back(d);
            continue;
        }
        const bool replace = driverPriority(d.vendor_id, d.driver_id) <
                             driverPriority(same->vendor_id, same->driver_id);
        const VulkanDeviceInfo& dropped = replace ? *same : d;
        const VulkanDeviceInfo& winner = replace ? d : *same;
        notes.push_back(winner.name + ": also listed by driver '" + dropped.driver_name +
                        "'; reported once, through '" + winner.driver_name + "'");
        if (replace) *same = d;
    }
    return kept;
}

} // namespace headroom::probe::detail
