// Vulkan devices through the loader opened at run time (internal to headroom_probe). The raw
// driver view (VulkanDeviceInfo) is separate from the sanity rules that turn it into figures, so
// tests can feed the rules what real drivers report (split APU heaps, budgets above heap sizes,
// one GPU under two drivers) without those drivers.
#pragma once

#include "probe.h"

#include <optional>
#include <string>
#include <vector>

namespace headroom::probe::detail {

// VkPhysicalDeviceType values (vulkan_core.h), kept as ints so tests need no Vulkan header.
enum VulkanDeviceType {
    kVkOther = 0,
    kVkIntegrated = 1,
    kVkDiscrete = 2,
    kVkVirtual = 3,
    kVkCpu = 4
};

struct VulkanHeap {
    Bytes size = 0;
    bool device_local = false;
    std::optional<Bytes> budget, usage; // VK_EXT_memory_budget, as reported (not yet clamped)
};

struct VulkanDeviceInfo {
    unsigned index = 0; // enumeration order
    std::string name;
    std::uint32_t vendor_id = 0, device_id = 0;
    int device_type = kVkOther;
    std::uint32_t api_version = 0;
    std::uint32_t driver_id = 0; // VkDriverId, 0 unknown
    std::string driver_name, driver_info;
    std::string uuid;        // deviceUUID hex; "" when not queried or all zero
    std::string pci_address; // from VK_EXT_pci_bus_info; "" when absent
    bool has_budget = false;
    std::vector<VulkanHeap> heaps;
};

struct VulkanResult {
    bool loaded = false;
    std::uint32_t instance_version = 0;
    std::vector<VulkanDeviceInfo> devices;
    std::string failure;            // why no device list came back ("" when it did)
    std::vector<std::string> notes; // per-device remarks
};

// Loads `library`, creates an instance without surfaces or layers, lists every physical device,
// destroys the instance. Never throws; every failure is `failure`.
VulkanResult readVulkan(const std::string& library);

struct VulkanMemory {
    Bytes total = 0;
    std::optional<Bytes> free; // nullopt: no budget extension, free memory unknown
    std::string provenance;    // "VK_EXT_memory_budget" | "heap size, no budget extension"
    std::vector<MemoryHeap> heaps;
    std::vector<std::string> corrections; // what the sanity rules changed, for the device note
};

// ggml-vulkan's rule (ggml-vulkan.cpp ggml_backend_vk_get_device_memory): count DEVICE_LOCAL heaps,
// or every heap on an integrated GPU (RADV splits an APU's memory into a device-local and a
// non-local heap: counting one reads 32 of 96 GiB on Strix Halo). Budgets above the heap size are
// clamped to it and usage above budget gives 0 free, never an unsigned wrap.
VulkanMemory summarizeVulkanMemory(const VulkanDeviceInfo& d);

// One GPU exposed by two drivers (RADV + AMDVLK, NVK + proprietary) is kept once, by deviceUUID or
// else PCI address, preferring the driver llama.cpp prefers (ggml_vk_instance_init). Notes say
// which was dropped.
std::vector<VulkanDeviceInfo> dedupeVulkanDevices(const std::vector<VulkanDeviceInfo>& devices,
                                                  std::vector<std::string>& notes);

std::string vulkanDeviceTypeName(int type);

} // namespace headroom::probe::detail
