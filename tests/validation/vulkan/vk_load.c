// Loads one GGUF with the llama.cpp library of node-llama-cpp@3.21.1's Vulkan prebuilt (release
// v0.4.0) through llama.h's C API, for the Vulkan validation (tests/validation/vulkan/run.sh).
// The addon's JavaScript options have no -ts, -ot, --n-cpu-moe or unified-KV switch; the C API has
// all four, set as llama.cpp's own tools set them (common/arg.cpp: -ot PATTERN=BUFT,... adds one
// override per comma-separated item, split at its first '='; --n-cpu-moe N overrides the expert
// tensors of blocks 0..N-1 to the CPU buffer type after them; -ts fills tensor_split).
//
// Usage: vk_load BACKEND_DIR MODEL.gguf NGL N_CPU_MOE TS OT SETTING...
//   TS: "-" (llama.cpp's default split) or "a,b,..."; OT: "-" (none) or "PATTERN=CPU,..." (only
//   the CPU target: the harness prices nothing else); SETTING: ctx,ub,fa,cache,np,unified with fa
//   and unified 0/1 and cache f16|q8_0. Prints llama.cpp's buffer log lines ("L <line>") and one
//   "C <i> ok|failed" per setting; writes "M model" / "M context <i>" / "M end <i>" markers into
//   $HEADROOM_BUFFER_LOG so that buffer_shim.c's lines can be told apart by phase.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ggml-backend.h"
#include "llama.h"

static void marker(const char* text) {
    const char* path = getenv("HEADROOM_BUFFER_LOG");
    if (!path) return;
    const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return;
    char line[128];
    const int n = snprintf(line, sizeof line, "M %s\n", text);
    if (write(fd, line, (size_t)n) < 0) { /* measurement only */
    }
    close(fd);
}

// llama.cpp logs a line in pieces; keep the ones the harness reads.
static char pending[4096];
static void on_log(enum ggml_log_level level, const char* text, void* user) {
    (void)level;
    (void)user;
    strncat(pending, text, sizeof pending - strlen(pending) - 1);
    char* nl;
    while ((nl = strchr(pending, '\n')) != NULL) {
        *nl = 0;
        if (strstr(pending, "buffer size") || strstr(pending, "pipeline parallelism") ||
            strstr(pending, "n_ctx ") || strstr(pending, "offloaded") || strstr(pending, "error") ||
            strstr(pending, "failed")) {
            printf("L %s\n", pending);
        }
        memmove(pending, nl + 1, strlen(nl + 1) + 1);
    }
    fflush(stdout);
}

int main(int argc, char** argv) {
    if (argc < 7) {
        fprintf(stderr, "usage: vk_load BACKEND_DIR MODEL NGL N_CPU_MOE TS OT SETTING...\n");
        return 2;
    }
    llama_log_set(on_log, NULL);
    ggml_backend_load_all_from_path(argv[1]);
    llama_backend_init();

    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = atoi(argv[3]);
    const int n_cpu_moe = atoi(argv[4]);
    static char patterns[256][128];
    static struct llama_model_tensor_buft_override overrides[257];
    ggml_backend_dev_t cpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    int n_over = 0;
    // -ot first, as common/arg.cpp parses the command line in order and --n-cpu-moe appends.
    static char ot[4096];
    if (strcmp(argv[6], "-") != 0) {
        snprintf(ot, sizeof ot, "%s", argv[6]);
        for (char* item = strtok(ot, ","); item && n_over < 256; item = strtok(NULL, ",")) {
            char* eq = strchr(item, '=');
            if (!eq || strcmp(eq + 1, "CPU") != 0) {
                fprintf(stderr, "vk_load: -ot %s: only PATTERN=CPU is supported\n", item);
                return 2;
            }
            *eq = 0;
            snprintf(patterns[n_over], sizeof patterns[n_over], "%s", item);
            overrides[n_over].pattern = patterns[n_over];
            overrides[n_over].buft = ggml_backend_dev_buffer_type(cpu);
            ++n_over;
        }
    }
    for (int i = 0; i < n_cpu_moe && n_over < 256; ++i) {
        snprintf(patterns[n_over], sizeof patterns[n_over],
                 "blk\\.%d\\.ffn_(up|down|gate|gate_up)_(ch|)exps", i);
        overrides[n_over].pattern = patterns[n_over];
        overrides[n_over].buft = ggml_backend_dev_buffer_type(cpu);
        ++n_over;
    }
    if (n_over > 0) mp.tensor_buft_overrides = overrides;
    static float split[128];
    if (strcmp(argv[5], "-") != 0) {
        char* s = argv[5];
        for (size_t i = 0; i < llama_max_devices() && i < 128 && *s; ++i) {
            split[i] = strtof(s, &s);
            if (*s == ',') ++s;
        }
        mp.tensor_split = split;
    }
    marker("model");
    struct llama_model* model = llama_model_load_from_file(argv[2], mp);
    if (!model) {
        printf("X model failed\n");
        return 1;
    }
    for (int i = 7; i < argc; ++i) {
        unsigned ctx = 0, ub = 0, np = 1;
        int fa = 1, unified = 0;
        char cache[16] = "f16";
        if (sscanf(argv[i], "%u,%u,%d,%15[^,],%u,%d", &ctx, &ub, &fa, cache, &np, &unified) != 6) {
            fprintf(stderr, "bad setting %s\n", argv[i]);
            return 2;
        }
        struct llama_context_params cp = llama_context_default_params();
        cp.n_ctx = ctx;
        cp.n_batch = ub;
        cp.n_ubatch = ub;
        cp.n_seq_max = np;
        cp.n_threads = cp.n_threads_batch = 1;
        cp.flash_attn_type = fa ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
        cp.type_k = cp.type_v = strcmp(cache, "q8_0") == 0 ? GGML_TYPE_Q8_0 : GGML_TYPE_F16;
        cp.kv_unified = unified != 0;
        // llama_context_default_params() asks for a full-size SWA cache; llama-server (common.h
        // common_params::swa_full = false) and node-llama-cpp do not, and neither does the plan
        // unless --swa-full is given.
        cp.swa_full = false;
        char m[64];
        snprintf(m, sizeof m, "context %d", i - 7);
        marker(m);
        printf("S %d %s\n", i - 7, argv[i]);
        fflush(stdout);
        struct llama_context* lctx = llama_init_from_model(model, cp);
        printf("C %d %s\n", i - 7, lctx ? "ok" : "failed");
        fflush(stdout);
        snprintf(m, sizeof m, "end %d", i - 7);
        marker(m);
        if (lctx) llama_free(lctx);
    }
    llama_model_free(model);
    return 0;
}
