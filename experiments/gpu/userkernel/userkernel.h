/* userkernel.h - what the GPU plugin (gpu_plugin.cu) calls of users' kernels
 * (kernel.h): compile and compile_many (NVRTC or nvcc into the kernel cache, no
 * device needed: kernel_compile.cu), run (kernel_run.cu), and the loaded
 * libraries' release at shutdown.
 * Must not be included by the harness (harness/): users' kernels call the
 * harness, never the other way. */
#ifndef GL_USERKERNEL_H
#define GL_USERKERNEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gl_kernel_variant;
struct gl_params;
struct gl_timing;
struct gl_result;
int gk_kernel_compile(const struct gl_kernel_variant *kv, const struct gl_params *p, int arch,
                      char *log, size_t loglen);
int gk_kernel_compile_many(const struct gl_kernel_variant *const *kvs,
                           const struct gl_params *const *ps, int n, int arch, int *res,
                           char *log, size_t loglen);
int gk_kernel_run(const struct gl_kernel_variant *kv, const struct gl_params *p,
                  const struct gl_timing *t, struct gl_result *r);
void gk_shutdown(void);

#ifdef __cplusplus
}
#endif

#endif
