/* subprocess.h - a program run to its end with its output captured, for the
 * compile path: the driver's C references (the C compiler) and the GPU
 * plugin's `compiler = nvcc` (nvcc --version, nvcc -cubin). posix_spawnp, not
 * fork: the GPU plugin runs it in a worker that may hold a CUDA context.
 * Must not read or write files, nor print anything. */
#ifndef GL_SUBPROCESS_H
#define GL_SUBPROCESS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Run argv (argv[0] a path, or a name looked up on PATH) with its stdout and
 * stderr into out (NUL-terminated, cut to len) and wait for it: its exit
 * status, or -1 with the reason in out (it could not be started, or a signal
 * ended it: then out keeps what it wrote). */
int gl_run_captured(char *const *argv, char *out, size_t len);

#ifdef __cplusplus
}
#endif

#endif
