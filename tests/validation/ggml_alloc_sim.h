// Shared by the dev tools peak.cpp and vulkan/alloc_replay.cpp (LD_PRELOAD hooks, built by hand;
// see tests/validation/README.md): the ggml functions they look up in the already loaded
// libggml-base, and ggml-alloc's allocator and in-place rules (ggml/src/ggml-alloc.c,
// ggml_dyn_tallocr and ggml_op_can_inplace, the same in llama.cpp v0.4.0 and v0.5.0).
#pragma once
#include "ggml.h"
#include <algorithm>
#include <cstdint>
#include <dlfcn.h>
#include <vector>

static void* H() {
    static void* h = nullptr;
    if (!h) h = dlopen("libggml-base.so", RTLD_NOLOAD | RTLD_LAZY);
    return h;
}
static size_t NB(const ggml_tensor* t) {
    static auto f = (size_t(*)(const ggml_tensor*))dlsym(H(), "ggml_nbytes");
    return f(t);
}
static const char* OD(const ggml_tensor* t) {
    static auto f = (const char* (*)(const ggml_tensor*))dlsym(H(), "ggml_op_desc");
    return f(t);
}

struct Blk {
    size_t off, size;
};
// ggml_dyn_tallocr with one chunk: best fit among the blocks but the last, else the last; a freed
// range merges with the block ending where it starts or starting where it ends, then with that
// block's next (or previous) entry only; otherwise it is inserted as a block of its own.
struct Alloc {
    size_t align = 32;
    std::vector<Blk> fb{{0, SIZE_MAX / 2}};
    size_t max_size = 0;
    size_t al(size_t s) const { return (s + align - 1) / align * align; }
    size_t alloc(size_t size) {
        size = al(size);
        int best = -1;
        size_t bs = SIZE_MAX;
        for (int i = 0; i + 1 < (int)fb.size(); ++i)
            if (fb[i].size >= size && fb[i].size <= bs) {
                best = i;
                bs = fb[i].size;
            }
        if (best < 0) best = (int)fb.size() - 1;
        size_t a = fb[best].off;
        fb[best].off += size;
        fb[best].size -= size;
        if (fb[best].size == 0) fb.erase(fb.begin() + best);
        max_size = std::max(max_size, a + size);
        return a;
    }
    void free_(size_t off, size_t size) {
        size = al(size);
        for (size_t i = 0; i < fb.size(); ++i) {
            if (fb[i].off + fb[i].size == off) {
                fb[i].size += size;
                if (i + 1 < fb.size() && fb[i].off + fb[i].size == fb[i + 1].off) {
                    fb[i].size += fb[i + 1].size;
                    fb.erase(fb.begin() + i + 1);
                }
                return;
            }
            if (off + size == fb[i].off) {
                fb[i].off = off;
                fb[i].size += size;
                if (i > 0 && fb[i - 1].off + fb[i - 1].size == fb[i].off) {
                    fb[i - 1].size += fb[i].size;
                    fb.erase(fb.begin() + i);
                }
                return;
            }
        }
        size_t i = 0;
        while (i < fb.size() && fb[i].off < off)
            ++i;
        fb.insert(fb.begin() + i, {off, size});
    }
};

// A tensor's bookkeeping during the replay (ggml_gallocr's hash_node); buf: its buffer id.
struct HN {
    int n_children = 0, n_views = 0;
    bool allocated = false;
    size_t off = 0;
    int buf = 0;
};

// ggml_op_can_inplace (ggml/src/ggml-alloc.c).
static bool can_inplace(ggml_op op) {
    switch (op) {
    case GGML_OP_FILL:
    case GGML_OP_SCALE:
    case GGML_OP_DIAG_MASK_ZERO:
    case GGML_OP_DIAG_MASK_INF:
    case GGML_OP_ADD:
    case GGML_OP_ADD_ID:
    case GGML_OP_ADD1:
    case GGML_OP_SUB:
    case GGML_OP_MUL:
    case GGML_OP_DIV:
    case GGML_OP_SQR:
    case GGML_OP_SQRT:
    case GGML_OP_LOG:
    case GGML_OP_UNARY:
    case GGML_OP_ROPE:
    case GGML_OP_ROPE_BACK:
    case GGML_OP_SILU_BACK:
    case GGML_OP_RMS_NORM:
    case GGML_OP_RMS_NORM_BACK:
    case GGML_OP_CLAMP:
    case GGML_OP_SOFT_MAX:
    case GGML_OP_SOFT_MAX_BACK:
        return true;
    default:
        return false;
    }
}
static bool same_layout(const ggml_tensor* a, const ggml_tensor* b) {
    if (a->type != b->type) return false;
    for (int i = 0; i < 4; ++i)
        if (a->ne[i] != b->ne[i] || a->nb[i] != b->nb[i]) return false;
    return true;
}
