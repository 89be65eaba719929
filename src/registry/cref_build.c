/* cref_build.c - see cref_build.h: a C reference (verify = c:FILE:FUNC) built
 * with the C compiler into the kernel cache, and its function checked.
 * Must not run the reference, nor compile anything but the reference. */
#include "cref_build.h"
#include "fileutil.h"
#include "subprocess.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* gpulab's public headers for a C reference: $GPULAB_INCLUDE, else
 * <the executable's folder>/../src/core. */
static void include_dir(char *out, size_t len)
{
    const char *e = getenv("GPULAB_INCLUDE");
    char exe[PATH_MAX];
    ssize_t n;
    if (e && *e) {
        snprintf(out, len, "%s", e);
        return;
    }
    if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) <= 0) {
        snprintf(out, len, "src/core");
        return;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(out, len, "%s/../src/core", exe);
}

/* mkdir -p the folder of path. 0, or -1 with log. */
static int make_parent(const char *path, char *log, size_t loglen)
{
    char dir[1200], failed[1200];
    gl_folder_of(path, dir, sizeof dir);
    if (gl_make_dirs(dir, failed, sizeof failed) != 0) {
        snprintf(log, loglen, "kernel cache: cannot create %s: %s", failed, strerror(errno));
        return -1;
    }
    return 0;
}

int gl_cref_build(const struct gl_kernel *k, char *log, size_t loglen)
{
    int rc = 1;
    if (k->verify_c_compile && access(k->verify_c_so, R_OK) != 0) {
        char inc[PATH_MAX + 16], tmp[1300], cc[512], *argv[40];
        int argc = 0;
        if (make_parent(k->verify_c_so, log, loglen) != 0)
            return -1;
        const char *e = getenv("CC");
        snprintf(cc, sizeof cc, "%s", e && *e ? e : "cc");
        for (char *w = strtok(cc, " \t"); w && argc < 24; w = strtok(NULL, " \t"))
            argv[argc++] = w;
        include_dir(inc + 2, sizeof inc - 2);
        inc[0] = '-';
        inc[1] = 'I';
        snprintf(tmp, sizeof tmp, "%s.tmp%ld", k->verify_c_so, (long)getpid());
        /* GL_CREF_BUILD: plugin.h's gl_param_value notes a name it was not handed */
        char *rest[] = { "-O2", "-shared", "-fPIC", "-fopenmp", "-DGL_CREF_BUILD", inc, "-o", tmp,
                         (char *)k->verify_c_path, NULL };
        for (int i = 0; rest[i]; i++)
            argv[argc++] = rest[i];
        argv[argc] = NULL;
        char cmd[256];
        snprintf(cmd, sizeof cmd, "%s -O2 -shared -fPIC -fopenmp -DGL_CREF_BUILD -I...", argv[0]);
        size_t head = (size_t)snprintf(log, loglen, "does not compile (%s):\n", cmd);
        int st = gl_run_captured(argv, log + head, loglen - head);
        if (st != 0) {
            unlink(tmp);
            if (!log[head])
                snprintf(log + head, loglen - head, "%s exited with %d", argv[0], st);
            return -1;
        }
        if (rename(tmp, k->verify_c_so) != 0) {
            snprintf(log, loglen, "kernel cache: %s: %s", k->verify_c_so, strerror(errno));
            unlink(tmp);
            return -1;
        }
        rc = 0;
    }
    log[0] = '\0';
    void *h = dlopen(k->verify_c_so, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        snprintf(log, loglen, "cannot load %s: %s", k->verify_c_so, why ? why : "?");
        return -1;
    }
    if (!dlsym(h, k->verify_c_func)) {
        snprintf(log, loglen, "no function '%s' in %s", k->verify_c_func,
                 k->verify_c_compile ? k->verify_c_path : k->verify_c_so);
        rc = -1;
    }
    dlclose(h);
    return rc;
}
