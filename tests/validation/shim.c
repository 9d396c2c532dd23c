// LD_PRELOAD shim for measuring llama.cpp on sparse GGUF files (tests/validation only).
// - mmap: drops MAP_POPULATE, which llama_mmap (src/llama-mmap.cpp) sets to prefetch the model;
//   on a sparse file it would fill RAM with zero pages as large as the model.
// - posix_madvise: ignores POSIX_MADV_WILLNEED for the same reason.
// - posix_memalign: ggml's CPU buffers come from ggml_aligned_malloc (ggml/src/ggml.c), i.e.
//   posix_memalign(.., 64, size); each such size >= 4 KiB is appended to $HEADROOM_ALLOC_LOG so the
//   harness can replace the 0.01 MiB figures of llama.cpp's log with exact bytes.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int log_fd = -2;

void * mmap(void * addr, size_t len, int prot, int flags, int fd, off_t off) {
    static void * (*real)(void *, size_t, int, int, int, off_t);
    if (!real) real = (void * (*)(void *, size_t, int, int, int, off_t)) dlsym(RTLD_NEXT, "mmap");
    if (fd >= 0) flags &= ~MAP_POPULATE;
    return real(addr, len, prot, flags, fd, off);
}

void * mmap64(void * addr, size_t len, int prot, int flags, int fd, off_t off) {
    return mmap(addr, len, prot, flags, fd, off);
}

int posix_madvise(void * addr, size_t len, int advice) {
    static int (*real)(void *, size_t, int);
    if (advice == POSIX_MADV_WILLNEED) return 0;
    if (!real) real = (int (*)(void *, size_t, int)) dlsym(RTLD_NEXT, "posix_madvise");
    return real(addr, len, advice);
}

int posix_memalign(void ** ptr, size_t alignment, size_t size) {
    static int (*real)(void **, size_t, size_t);
    if (!real) real = (int (*)(void **, size_t, size_t)) dlsym(RTLD_NEXT, "posix_memalign");
    int rc = real(ptr, alignment, size);
    if (alignment == 64 && size >= 4096) {
        if (log_fd == -2) {
            const char * path = getenv("HEADROOM_ALLOC_LOG");
            log_fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND, 0644) : -1;
        }
        if (log_fd >= 0) {
            char line[64];
            int n = snprintf(line, sizeof line, "%zu %d\n", size, rc);
            if (write(log_fd, line, (size_t) n) < 0) { /* measurement only; nothing to do */ }
        }
    }
    return rc;
}
