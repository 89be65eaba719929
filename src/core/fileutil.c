/* fileutil.c - see fileutil.h: files and error text for the compile path.
 * Must not run a program, print anything, or know about configs, CUDA or the
 * cache's contents. */
#include "fileutil.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void gl_say(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    if (!buf || len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

void gl_folder_of(const char *path, char *out, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, len, ".");
    else if (slash == path)
        snprintf(out, len, "/");
    else
        snprintf(out, len, "%.*s", (int)(slash - path), path);
}

char *gl_file_read(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!f) {
        int e = errno;
        gl_say(err, errlen, "%s: %s", path, strerror(e));
        errno = e;
        return NULL;
    }
    for (;;) {
        if (n + 4096 + 1 > cap) {
            size_t ncap = cap ? 2 * cap : 16384;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                fclose(f);
                gl_say(err, errlen, "%s: out of memory", path);
                errno = ENOMEM;
                return NULL;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        gl_say(err, errlen, "%s: read error", path);
        errno = EIO;
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

int gl_make_dirs(const char *dir, char *failed, size_t flen)
{
    char tmp[4096];
    if (!dir[0])
        return 0;
    if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp) {
        gl_say(failed, flen, "%s", dir);
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *s = tmp + 1;; s++) {
        char c = *s;
        if (c != '/' && c != '\0')
            continue;
        *s = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            gl_say(failed, flen, "%s", tmp);
            errno = e;
            return -1;
        }
        *s = c;
        if (c == '\0')
            break;
    }
    return 0;
}

int gl_kernel_cache_dir(char *out, size_t len)
{
    const char *e = getenv("GPULAB_CACHE");
    int n;
    if (e && *e)
        n = snprintf(out, len, "%s", e);
    else if ((e = getenv("XDG_CACHE_HOME")) && *e)
        n = snprintf(out, len, "%s/gpulab/kernels", e);
    else if ((e = getenv("HOME")) && *e)
        n = snprintf(out, len, "%s/.cache/gpulab/kernels", e);
    else
        return -1;
    return n < 0 || (size_t)n >= len ? -2 : 0;
}
