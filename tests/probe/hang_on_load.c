/* A shared library whose constructor never returns: dlopen() of it hangs, as a Vulkan loader
 * reading an ICD manifest from a FIFO or a wedged NVIDIA driver does. The hostile-input suite
 * passes it as --vulkan-library / --nvml-library to prove the probe's time limit. */
#include <unistd.h>

__attribute__((constructor)) static void hangForever(void) {
    for (;;)
        pause();
}
