// LD_PRELOAD for the Vulkan validation (tests/validation/vulkan only): logs the exact byte size and
// buffer type of every ggml backend buffer llama.cpp allocates or frees, so the suite can compare
// whole bytes instead of the 0.01 MiB figures of llama.cpp's log.
//
// Every buffer of a model, KV cache, output or compute graph is made by one of three ggml-base
// entry points (llama.cpp v0.4.0 / v0.5.0 ggml/src/ggml-backend.cpp):
// ggml_backend_buft_alloc_buffer (device, pinned-host and plain CPU buffers, and every chunk of a
// compute buffer: ggml-alloc.c ggml_vbuffer_alloc), ggml_backend_cpu_buffer_from_ptr (the
// CPU_Mapped model buffer over the mmap'd file) and ggml_backend_dev_buffer_from_host_ptr (a device
// that maps host memory). They are called through the PLT, also from inside ggml-base, so a
// preloaded definition interposes; the real ones are looked up in libggml-base itself with
// dl_iterate_phdr, since node-llama-cpp loads ggml's libraries RTLD_LOCAL, out of RTLD_NEXT's
// reach.
//
// Lines appended to $HEADROOM_BUFFER_LOG: "A <id> <buffer type> <bytes>" and "F <id>".
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void* buft_t;
typedef void* buffer_t;

static void* base_lib;

static int find_base(struct dl_phdr_info* info, size_t size, void* data) {
    (void)size;
    (void)data;
    if (info->dlpi_name && strstr(info->dlpi_name, "libggml-base")) {
        base_lib = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD);
        return base_lib != NULL;
    }
    return 0;
}

static void* real_symbol(const char* name) {
    if (!base_lib) dl_iterate_phdr(find_base, NULL);
    return base_lib ? dlsym(base_lib, name) : NULL;
}

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void log_line(const char* line) {
    static int fd = -2;
    pthread_mutex_lock(&log_lock);
    if (fd == -2) {
        const char* path = getenv("HEADROOM_BUFFER_LOG");
        fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND, 0644) : -1;
    }
    if (fd >= 0 && write(fd, line, strlen(line)) < 0) { /* measurement only; nothing to do */
    }
    pthread_mutex_unlock(&log_lock);
}

// The size logged is the buffer's own (ggml_backend_buffer_get_size), which can exceed the request:
// ggml-vulkan's pinned host buffer type asks for 32 bytes more than it is given
// (ggml_backend_vk_host_buffer_type_alloc_buffer, as the CPU buffer type does).
static void log_alloc(buffer_t b, const char* type, size_t size) {
    if (!b) return;
    static size_t (*get_size)(buffer_t);
    if (!get_size) get_size = (size_t(*)(buffer_t))real_symbol("ggml_backend_buffer_get_size");
    if (get_size) size = get_size(b);
    char line[256];
    snprintf(line, sizeof line, "A %p %s %zu\n", b, type, size);
    log_line(line);
}

static const char* buft_name(buft_t buft) {
    static const char* (*name)(buft_t);
    if (!name) name = (const char* (*)(buft_t))real_symbol("ggml_backend_buft_name");
    const char* n = name ? name(buft) : NULL;
    return n && *n ? n : "unknown";
}

buffer_t ggml_backend_buft_alloc_buffer(buft_t buft, size_t size) {
    static buffer_t (*real)(buft_t, size_t);
    if (!real) real = (buffer_t(*)(buft_t, size_t))real_symbol("ggml_backend_buft_alloc_buffer");
    buffer_t b = real(buft, size);
    // ggml_backend_buft_alloc_buffer answers a 0-byte request with a dummy buffer of the type.
    if (size > 0) log_alloc(b, buft_name(buft), size);
    return b;
}

buffer_t ggml_backend_cpu_buffer_from_ptr(void* ptr, size_t size) {
    static buffer_t (*real)(void*, size_t);
    if (!real) real = (buffer_t(*)(void*, size_t))real_symbol("ggml_backend_cpu_buffer_from_ptr");
    buffer_t b = real(ptr, size);
    log_alloc(b, "CPU_Mapped", size);
    return b;
}

buffer_t ggml_backend_dev_buffer_from_host_ptr(void* dev, void* ptr, size_t size,
                                               size_t max_tensor_size) {
    static buffer_t (*real)(void*, void*, size_t, size_t);
    if (!real)
        real = (buffer_t(*)(void*, void*, size_t, size_t))real_symbol(
            "ggml_backend_dev_buffer_from_host_ptr");
    buffer_t b = real(dev, ptr, size, max_tensor_size);
    log_alloc(b, "Host_Mapped", size);
    return b;
}

void ggml_backend_buffer_free(buffer_t b) {
    static void (*real)(buffer_t);
    if (!real) real = (void (*)(buffer_t))real_symbol("ggml_backend_buffer_free");
    if (b) {
        char line[64];
        snprintf(line, sizeof line, "F %p\n", b);
        log_line(line);
    }
    real(b);
}
