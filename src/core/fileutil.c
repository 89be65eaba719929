/* fileutil.c - see fileutil.h: files and error text for the compile path.
 * Must not run a program, print anything, or know about configs, CUDA or the
 * cache's contents. */
#include "fileutil.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

void gl_say(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    if (!buf || len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* A cut at p of s (keeping s[0..p)) moved back off a UTF-8 character's middle
 * and off the middle of a \xNN escape. */
static size_t cut_before(const char *s, size_t p)
{
    while (p > 0 && ((unsigned char)s[p] & 0xC0) == 0x80)
        p--;
    for (size_t k = 1; k <= 3 && k <= p; k++)
        if (s[p - k] == '\\' && s[p - k + 1] == 'x') {
            p -= k;
            break;
        }
    return p;
}

/* The same for where a kept tail starts: moved forward past a character's or
 * an escape's middle. */
static size_t cut_after(const char *s, size_t n, size_t p)
{
    while (p < n && ((unsigned char)s[p] & 0xC0) == 0x80)
        p++;
    for (size_t k = 1; k <= 3 && k <= p; k++)
        if (s[p - k] == '\\' && p - k + 1 < n && s[p - k + 1] == 'x') {
            p = p - k + 4 < n ? p - k + 4 : n;
            break;
        }
    return p;
}

static int alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

void gl_text_fit(const char *msg, char *out, size_t outlen)
{
    if (!out || outlen == 0)
        return;
    size_t n = strlen(msg), o = 0;
    char *tmp = malloc(n + 1);
    if (!tmp) {   /* no room to work: the plain cut */
        gl_say(out, outlen, "%s", msg);
        return;
    }
    /* 1. every quoted input over GL_QUOTE_MAX bytes: its first GL_QUOTE_KEEP, "..." */
    for (size_t i = 0; i < n;) {
        if (msg[i] == '\'' && (i == 0 || !alnum(msg[i - 1]))) {
            size_t j = i + 1;
            while (j < n && !(msg[j] == '\'' && (j + 1 == n || !alnum(msg[j + 1]))))
                j++;
            if (j < n && j - i - 1 > GL_QUOTE_MAX) {
                size_t keep = cut_before(msg + i + 1, GL_QUOTE_KEEP);
                tmp[o++] = '\'';
                memcpy(tmp + o, msg + i + 1, keep);
                o += keep;
                memcpy(tmp + o, "...'", 4);
                o += 4;
                i = j + 1;
                continue;
            }
        }
        tmp[o++] = msg[i++];
    }
    tmp[o] = '\0';
    /* 2. still too long: the middle goes, the start (what) and the end (why, and
     * what to do) stay */
    static const char mid[] = " [...] ";
    if (o < outlen || outlen < 2 * sizeof mid) {
        gl_say(out, outlen, "%s", tmp);
    } else {
        size_t avail = outlen - 1 - (sizeof mid - 1);
        size_t head = cut_before(tmp, avail * 2 / 5);
        size_t tail = cut_after(tmp, o, o - (avail - avail * 2 / 5));
        gl_say(out, outlen, "%.*s%s%s", (int)head, tmp, mid, tmp + tail);
    }
    free(tmp);
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

const char *gl_file_kind(unsigned mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFIFO: return "a pipe (FIFO)";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
    default: return "not a file";
    }
}

void gl_size_text(unsigned long long bytes, char *buf, size_t len)
{
    if (bytes < 1024)
        gl_say(buf, len, "%llu bytes", bytes);
    else if (bytes < (1ull << 20))
        gl_say(buf, len, "%.1f KiB", bytes / 1024.0);
    else if (bytes < (1ull << 30))
        gl_say(buf, len, "%.1f MiB", bytes / (1024.0 * 1024));
    else
        gl_say(buf, len, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
}

int gl_file_check(const char *path, const struct stat *st, size_t max, int flags, char *err,
                  size_t errlen)
{
    int pipe_ok = (flags & GL_READ_PIPE) && S_ISFIFO(st->st_mode);
    if (S_ISDIR(st->st_mode)) {
        gl_say(err, errlen, "%s: is a directory", path);
        errno = EISDIR;
        return -1;
    }
    if (!S_ISREG(st->st_mode) && !pipe_ok) {
        gl_say(err, errlen, "%s: is not a regular file (%s)", path, gl_file_kind(st->st_mode));
        errno = EINVAL;
        return -1;
    }
    if (S_ISREG(st->st_mode) && (unsigned long long)st->st_size > (unsigned long long)max) {
        char size[32], lim[32];
        gl_size_text((unsigned long long)st->st_size, size, sizeof size);
        gl_size_text(max, lim, sizeof lim);
        gl_say(err, errlen, "%s: is %s, over the limit of %s", path, size, lim);
        errno = EFBIG;
        return -1;
    }
    return 0;
}

char *gl_file_read_max(const char *path, size_t max, int flags, size_t *len, char *err,
                       size_t errlen)
{
    struct stat st;
    /* Looked at before it is opened: opening a device can block or act (a tape,
     * a terminal), and /dev/zero never ends. */
    if (stat(path, &st) != 0) {
        int e = errno;
        gl_say(err, errlen, "%s: %s", path, strerror(e));
        errno = e;
        return NULL;
    }
    if (gl_file_check(path, &st, max, flags, err, errlen) != 0)
        return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        gl_say(err, errlen, "%s: %s", path, strerror(e));
        errno = e;
        return NULL;
    }
    /* the file opened may not be the one looked at (replaced in between) */
    if (fstat(fd, &st) != 0 || gl_file_check(path, &st, max, flags, err, errlen) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            size_t ncap = cap ? 2 * cap : 16384;
            if (S_ISREG(st.st_mode) && cap == 0 && (size_t)st.st_size + 4096 + 1 > ncap)
                ncap = (size_t)st.st_size + 4096 + 1;   /* one read for the usual file */
            char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                close(fd);
                gl_say(err, errlen, "%s: out of memory", path);
                errno = ENOMEM;
                return NULL;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t got = read(fd, buf + n, cap - n - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            close(fd);
            gl_say(err, errlen, "%s: read error: %s", path, strerror(e));
            errno = e;
            return NULL;
        }
        if (got == 0)
            break;
        n += (size_t)got;
        if (n > max) {   /* it grew past the limit while read, or a pipe that goes on */
            char lim[32];
            free(buf);
            close(fd);
            gl_size_text(max, lim, sizeof lim);
            gl_say(err, errlen, "%s: is over the limit of %s", path, lim);
            errno = EFBIG;
            return NULL;
        }
    }
    close(fd);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

char *gl_file_read(const char *path, size_t *len, char *err, size_t errlen)
{
    return gl_file_read_max(path, (size_t)-1 / 2, 0, len, err, errlen);
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
