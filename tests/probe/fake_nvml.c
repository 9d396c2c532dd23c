/* A stand-in libnvidia-ml for probe tests: one GPU whose figures come from environment
 * variables, so the real dlopen/dlsym path runs without an NVIDIA driver.
 *   HEADROOM_FAKE_NVML_DEVICE_ID  PCI device id (default 0x2684, RTX 4090)
 *   HEADROOM_FAKE_NVML_NAME       device name (default NVIDIA GeForce RTX 4090)
 *   HEADROOM_FAKE_NVML_FREE_MIB   free memory in MiB (default 20480)
 *   HEADROOM_FAKE_NVML_NO_MEMORY  set: memory info is NOT_SUPPORTED (unified-memory parts) */
#include <stdlib.h>
#include <string.h>

typedef struct {
    unsigned long long total, free, used;
} fake_memory;
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} fake_pci;

static int device_token;

int nvmlInit_v2(void) {
    return 0;
}
int nvmlShutdown(void) {
    return 0;
}
const char* nvmlErrorString(int rc) {
    return rc ? "fake error" : "success";
}
int nvmlSystemGetDriverVersion(char* v, unsigned n) {
    strncpy(v, "550.54.14", n);
    return 0;
}
int nvmlDeviceGetCount_v2(unsigned* n) {
    *n = 1;
    return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void** d) {
    if (i != 0) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    *d = &device_token;
    return 0;
}
int nvmlDeviceGetName(void* d, char* name, unsigned n) {
    const char* env = getenv("HEADROOM_FAKE_NVML_NAME");
    (void)d;
    strncpy(name, env ? env : "NVIDIA GeForce RTX 4090", n);
    return 0;
}
int nvmlDeviceGetPciInfo_v3(void* d, fake_pci* p) {
    const char* id = getenv("HEADROOM_FAKE_NVML_DEVICE_ID");
    (void)d;
    memset(p, 0, sizeof *p);
    p->bus = 1;
    p->pciDeviceId = ((id ? (unsigned)strtoul(id, 0, 0) : 0x2684u) << 16) | 0x10deu;
    strcpy(p->busId, "00000000:01:00.0");
    return 0;
}
int nvmlDeviceGetMemoryInfo(void* d, fake_memory* m) {
    const char* f = getenv("HEADROOM_FAKE_NVML_FREE_MIB");
    (void)d;
    if (getenv("HEADROOM_FAKE_NVML_NO_MEMORY")) return 3; /* NVML_ERROR_NOT_SUPPORTED */
    m->total = 24ull << 30;
    m->free = (f ? strtoull(f, 0, 10) : 20480ull) << 20;
    m->used = m->total - m->free;
    return 0;
}
int nvmlDeviceGetMemoryBusWidth(void* d, unsigned* w) {
    (void)d;
    *w = 384;
    return 0;
}
int nvmlDeviceGetMaxClockInfo(void* d, int type, unsigned* mhz) {
    (void)d;
    if (type != 2) return 3;
    *mhz = 10501;
    return 0;
}
int nvmlDeviceGetMaxPcieLinkGeneration(void* d, unsigned* g) {
    (void)d;
    *g = 4;
    return 0;
}
int nvmlDeviceGetMaxPcieLinkWidth(void* d, unsigned* w) {
    (void)d;
    *w = 16;
    return 0;
}
