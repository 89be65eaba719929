/* fileutil.h - files and error text for the compile path, shared by the driver
 * (config reading, C references) and the GPU plugin (users' kernels, the kernel
 * cache, the include scan of deps.c): printf into an error buffer, a path's
 * folder, a whole file into memory, mkdir -p, and where the kernel cache is.
 * Must not run a program, print anything, or know about configs, CUDA or the
 * cache's contents. */
#ifndef GL_FILEUTIL_H
#define GL_FILEUTIL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* printf into buf (cut to len); nothing when buf is NULL or len is 0. */
void gl_say(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The folder of path into out: "." when it has none, "/" for a file at the root. */
void gl_folder_of(const char *path, char *out, size_t len);

/* The whole file path as a malloc'd buffer with a NUL after its *len bytes (len
 * may be NULL). NULL with errno and, when err is given, "path: <why>" ("path:
 * out of memory", "path: read error") in err. */
char *gl_file_read(const char *path, size_t *len, char *err, size_t errlen);

/* mkdir -p dir (every missing folder of it, mode 0777 less the umask). 0, or -1
 * with errno and the folder that could not be made in failed (len flen). */
int gl_make_dirs(const char *dir, char *failed, size_t flen);

/* The kernel cache's folder (not created): $GPULAB_CACHE, else
 * $XDG_CACHE_HOME/gpulab/kernels, else $HOME/.cache/gpulab/kernels. 0, -1 when
 * none of those is set, -2 when the path does not fit in len. */
int gl_kernel_cache_dir(char *out, size_t len);

#ifdef __cplusplus
}
#endif

#endif
