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

/* msg into out (outlen bytes) without losing its end: an input a message
 * echoes in quotes ('...', opened after a character that is not a letter or a
 * digit) that is longer than GL_QUOTE_MAX bytes keeps its first GL_QUOTE_KEEP
 * and "..."; a message still too long loses its middle (" [...] "), never its
 * start (what) or its end (why, and what to do). Never splits a UTF-8
 * character or a \xNN escape. */
#define GL_QUOTE_MAX 120
#define GL_QUOTE_KEEP 80
void gl_text_fit(const char *msg, char *out, size_t outlen);

/* The folder of path into out: "." when it has none, "/" for a file at the root. */
void gl_folder_of(const char *path, char *out, size_t len);

/* The size limits of the files gpulab reads whole, documented in docs/kernels.md
 * and docs/configs.md: a config, a kernel's source and every file it includes,
 * a C reference's .c (GL_TEXT_MAX); a C reference's .so (hashed, not held:
 * GL_SO_MAX). A larger file is refused with the limit, before it is read. */
#define GL_TEXT_MAX ((size_t)16 << 20)
#define GL_SO_MAX ((size_t)256 << 20)

/* For messages: "a directory", "a character device", "a pipe (FIFO)", ... of a
 * st_mode. */
const char *gl_file_kind(unsigned mode);
/* "512 bytes", "3.5 KiB", "16.0 MiB", "1.0 GiB". */
void gl_size_text(unsigned long long bytes, char *buf, size_t len);

/* gl_file_read_max's flag: a pipe is read too (up to max bytes), for a file
 * named on the command line as /dev/stdin or <(...). */
#define GL_READ_PIPE 1

struct stat;
/* Whether st (path's) may be read whole: a regular file (or a pipe, with
 * GL_READ_PIPE) of at most max bytes. 0; or -1 with errno and "path: is a
 * directory" (EISDIR), "path: is not a regular file (a character device)"
 * (EINVAL), "path: is 1.0 GiB, over the limit of 16.0 MiB" (EFBIG) in err. */
int gl_file_check(const char *path, const struct stat *st, size_t max, int flags, char *err,
                  size_t errlen);

/* The whole file path as a malloc'd buffer with a NUL after its *len bytes (len
 * may be NULL), refused unless gl_file_check passes (looked at before it is
 * opened, so a device is never opened) and unless at most max bytes come from
 * it. NULL with errno and, when err is given, "path: <why>" in err: the
 * system's words ("path: Permission denied"), gl_file_check's, "path: is over
 * the limit of 16.0 MiB" (grew while read), "path: out of memory", "path: read
 * error: ...". */
char *gl_file_read_max(const char *path, size_t max, int flags, size_t *len, char *err,
                       size_t errlen);
/* gl_file_read_max without a size limit: a regular file only. */
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
