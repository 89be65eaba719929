/* gpu_load.h - find and dlopen the GPU plugin (build/libgpulab_gpu.so next to the
 * executable, or $GPULAB_PLUGIN) and return its function table.
 * Must not call into CUDA itself: the plugin's init does that. */
#ifndef GL_GPU_LOAD_H
#define GL_GPU_LOAD_H

#include <stddef.h>
#include "gpu_api.h"

/* NULL + err (the dlerror text, or an ABI mismatch) when it cannot be loaded. */
const struct gl_gpu_api *gl_gpu_load(char *err, size_t errlen);

#endif
