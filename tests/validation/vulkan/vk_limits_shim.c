// LD_PRELOAD for the Vulkan measurements on Mesa's lavapipe (tests/validation/vulkan only).
// lavapipe reports VkPhysicalDeviceLimits::maxStorageBufferRange = 128 MiB; discrete drivers
// report about 4 GiB, and ggml-vulkan (ggml_vk_get_device: max_buffer_size / the storage-buffer
// range) keeps any op whose tensor is above that range off the device, so on lavapipe as is a
// 532 MiB output matrix stays on the CPU and the logits are computed there. With
// HEADROOM_VK_STORAGE_RANGE set (bytes), this shim raises the reported range so lavapipe places
// tensors the way a real GPU would. Unset: the driver's figures pass through unchanged.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <vulkan/vulkan.h>

// ggml-vulkan (and with it libvulkan) is loaded RTLD_LOCAL, out of RTLD_NEXT's reach: the real
// entry points are looked up in the loader library itself, already loaded by then.
static void * real_symbol(const char * name) {
    void * f = dlsym(RTLD_NEXT, name);
    if (f) return f;
    void * lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    return lib ? dlsym(lib, name) : NULL;
}

static void raise_limits(VkPhysicalDeviceLimits * l) {
    const char * s = getenv("HEADROOM_VK_STORAGE_RANGE");
    if (!s || !*s) return;
    const unsigned long long v = strtoull(s, NULL, 10);
    if (v > 0 && v <= UINT32_MAX) l->maxStorageBufferRange = (uint32_t) v;
}

VKAPI_ATTR void VKAPI_CALL vkGetPhysicalDeviceProperties(VkPhysicalDevice d, VkPhysicalDeviceProperties * p) {
    static PFN_vkGetPhysicalDeviceProperties real;
    if (!real) real = (PFN_vkGetPhysicalDeviceProperties) real_symbol("vkGetPhysicalDeviceProperties");
    real(d, p);
    raise_limits(&p->limits);
}

VKAPI_ATTR void VKAPI_CALL vkGetPhysicalDeviceProperties2(VkPhysicalDevice d, VkPhysicalDeviceProperties2 * p) {
    static PFN_vkGetPhysicalDeviceProperties2 real;
    if (!real) real = (PFN_vkGetPhysicalDeviceProperties2) real_symbol("vkGetPhysicalDeviceProperties2");
    real(d, p);
    raise_limits(&p->properties.limits);
}

VKAPI_ATTR void VKAPI_CALL vkGetPhysicalDeviceProperties2KHR(VkPhysicalDevice d, VkPhysicalDeviceProperties2 * p) {
    vkGetPhysicalDeviceProperties2(d, p);
}
