/* devlock.c - see devlock.h. Must not know about the store or configs. */
#include "devlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

const char *gl_devlock_dir(void)
{
    const char *e = getenv("GPULAB_LOCK_DIR");
    return e && *e ? e : GL_DEVLOCK_DIR_DEFAULT;
}

/* Letters, digits, '.', '-' and '_' as they are; anything else '_'. */
static void put_safe(char *out, size_t len, const char *in, size_t inlen)
{
    size_t o = 0;
    for (size_t i = 0; i < inlen && in[i] && o + 1 < len; i++) {
        char c = in[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '-' || c == '_';
        out[o++] = ok ? c : '_';
    }
    out[o] = '\0';
}

void gl_devlock_path(const struct gl_device *d, char *buf, size_t len)
{
    char name[200];
    if (strcmp(d->kind, "gpu") == 0) {
        put_safe(name, sizeof name, d->ident, sizeof d->ident);   /* the UUID */
        snprintf(buf, len, "%s/gpu-%s.lock", gl_devlock_dir(), name);
    } else {
        char host[128];
        gl_hostname(host, sizeof host);
        put_safe(name, sizeof name, host, sizeof host);
        snprintf(buf, len, "%s/cpu-%s.lock", gl_devlock_dir(), name);
    }
}

static void describe(const struct gl_device *d, char *buf, size_t len)
{
    if (strcmp(d->kind, "gpu") == 0)
        snprintf(buf, len, "GPU %.*s (%.*s)", (int)strnlen(d->name, sizeof d->name), d->name,
                 (int)strnlen(d->ident, sizeof d->ident), d->ident);
    else
        snprintf(buf, len, "the CPU (%.*s)", (int)strnlen(d->name, sizeof d->name), d->name);
}

/* The folder, mode 1777 when this call made it (every user's sweeps lock there). */
static int make_dir(const char *dir, char *err, size_t errlen)
{
    if (mkdir(dir, 01777) == 0) {
        if (chmod(dir, 01777) != 0) {
            snprintf(err, errlen, "device lock folder %s: chmod: %s", dir, strerror(errno));
            return -1;
        }
        return 0;
    }
    struct stat st;
    if (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    snprintf(err, errlen, "device lock folder %s: %s (set GPULAB_LOCK_DIR to a folder every "
                          "user of this machine can write)", dir, strerror(errno));
    return -1;
}

/* Open (or create, mode 0666) a lock file. An existing file is opened without
 * O_CREAT, which fs.protected_regular refuses for another user's file in a
 * sticky folder; one we may not write is opened read-only (flock needs no more,
 * the holder's note is then not written). *writable says which. fd or -1. */
static int open_lock(const char *path, int *writable, char *err, size_t errlen)
{
    for (int tries = 0; tries < 100; tries++) {
        int fd = open(path, O_RDWR | O_CLOEXEC);
        *writable = 1;
        if (fd < 0 && errno == EACCES) {
            fd = open(path, O_RDONLY | O_CLOEXEC);
            *writable = 0;
        }
        if (fd >= 0)
            return fd;
        if (errno != ENOENT)
            break;
        fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            fchmod(fd, 0666);   /* whatever the umask: the next user must open it */
            *writable = 1;
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    snprintf(err, errlen, "device lock %s: %s", path, strerror(errno));
    return -1;
}

/* What the holder wrote in the file ("" if nothing), one line. */
static void read_holder(int fd, char *buf, size_t len)
{
    ssize_t n = pread(fd, buf, len - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
}

static void write_holder(int fd, const char *cmdline)
{
    char host[128], when[32], text[1200];
    gl_hostname(host, sizeof host);
    gl_utc_now(when, sizeof when);
    int n = snprintf(text, sizeof text, "pid %ld on %s since %s: %.900s\n", (long)getpid(), host,
                     when, cmdline ? cmdline : "gpulab");
    if (n < 0)
        return;
    if ((size_t)n >= sizeof text)
        n = (int)sizeof text - 1;
    if (ftruncate(fd, 0) == 0 && pwrite(fd, text, (size_t)n, 0) < 0)
        return;   /* the note is a courtesy: the lock itself is held */
}

int gl_devlock_take(struct gl_devlocks *l, const struct gl_device *const *devs, int ndevs,
                    int wait, const char *cmdline, volatile sig_atomic_t *stop, FILE *note,
                    char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    for (int i = 0; i < GL_DEVLOCK_MAX; i++)
        l->fd[i] = -1;
    if (ndevs > GL_DEVLOCK_MAX) {
        snprintf(err, errlen, "device locks: %d devices (at most %d)", ndevs, GL_DEVLOCK_MAX);
        return -1;
    }
    if (ndevs > 0 && make_dir(gl_devlock_dir(), err, errlen) != 0)
        return -1;
    double t0 = gl_now();
    for (int i = 0; i < ndevs; i++) {
        char path[1100], what[400], holder[1200];
        int writable;
        gl_devlock_path(devs[i], path, sizeof path);
        describe(devs[i], what, sizeof what);
        int fd = open_lock(path, &writable, err, errlen);
        if (fd < 0) {
            gl_devlock_release(l);
            return -1;
        }
        int said = 0, rc = 0;
        while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            if (errno == EINTR)
                continue;
            if (errno != EWOULDBLOCK) {
                snprintf(err, errlen, "device lock %s: %s", path, strerror(errno));
                rc = -1;
                break;
            }
            read_holder(fd, holder, sizeof holder);
            if (!wait) {
                snprintf(err, errlen, "%s is busy: another gpulab measures on it (%s; lock %s)",
                         what, holder[0] ? holder : "holder unknown", path);
                rc = GL_DEVLOCK_BUSY;
                break;
            }
            if (!said && note) {
                fprintf(note, "gpulab: waiting for %s: another gpulab measures on it (%s; lock %s)\n",
                        what, holder[0] ? holder : "holder unknown", path);
                fflush(note);
                said = 1;
            }
            if (stop && *stop) {
                rc = GL_DEVLOCK_STOPPED;
                break;
            }
            struct timespec ts = { 0, 50 * 1000 * 1000 };
            nanosleep(&ts, NULL);
            if (stop && *stop) {
                rc = GL_DEVLOCK_STOPPED;
                break;
            }
        }
        if (rc != 0) {
            close(fd);
            gl_devlock_release(l);
            return rc;
        }
        if (writable)
            write_holder(fd, cmdline);
        l->fd[l->n++] = fd;
    }
    l->waited = gl_now() - t0;
    return 0;
}

void gl_devlock_release(struct gl_devlocks *l)
{
    for (int i = 0; i < l->n; i++) {
        if (l->fd[i] < 0)
            continue;
        if (ftruncate(l->fd[i], 0) != 0) {
            /* read-only or gone: the lock goes with the close all the same */
        }
        close(l->fd[i]);
        l->fd[i] = -1;
    }
    l->n = 0;
}
