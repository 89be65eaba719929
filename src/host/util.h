/* util.h - small process and text helpers the driver's commands share: host name,
 * the executable's folder, reading a whole file, a child with a pipe to its
 * parent and writing a whole buffer to it, joining argv, build revision, UTF-8 checks.
 * Must not know about configs, the store or CUDA. */
#ifndef GL_UTIL_H
#define GL_UTIL_H

#include <stddef.h>
#include <sys/types.h>

/* Whole file, NUL-terminated, caller frees; NULL + err on failure (src/core
 * fileutil.h gl_file_read, for callers that need no length). */
char *gl_read_file(const char *path, char *err, size_t errlen);
/* Write all len bytes of buf to fd (a pipe: short writes and EINTR are
 * retried). 0, or -1 (errno says why when write failed). */
int gl_write_all(int fd, const void *buf, size_t len);
/* fork() with a pipe from the child to the parent, stdio flushed first (nothing
 * buffered is written twice): in the child (0 returned) *fd is the pipe's write
 * end, in the parent (the child's pid returned) its read end. -1 with err (no
 * pipe, no child). */
pid_t gl_fork_pipe(int *fd, char *err, size_t errlen);
/* Folder of the running executable (for finding the GPU plugin), "." if unknown. */
void gl_exe_dir(char *buf, size_t len);
void gl_hostname(char *buf, size_t len);
/* "a b c": arguments joined by spaces; caller frees. */
char *gl_join_argv(int argc, char **argv);
/* Monotonic seconds. */
double gl_now(void);
/* Wall-clock seconds since the Unix epoch, with the fraction. */
double gl_wall_now(void);
/* ISO-8601 UTC timestamp of now. */
void gl_utc_now(char *buf, size_t len);
/* Revision of the tree the binary was built from (git describe --dirty), or "unknown". */
const char *gl_git_revision(void);
/* Length of the valid UTF-8 sequence at s (at most n bytes there), or 0 when the
 * bytes there are not one: a stray continuation byte, a cut sequence, an overlong
 * form, a surrogate or a code point over U+10FFFF. A NUL byte counts as 1. */
size_t gl_utf8_len(const unsigned char *s, size_t n);

#endif
