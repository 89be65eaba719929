/* sweep.c - see sweep.h. Must not print: the commands do. */
#include "sweep.h"
#include "cpuinfo.h"
#include "kernel_variant.h"
#include "metric_sets.h"
#include "registry.h"

#include <stdint.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int section_has_gpu(const struct gl_section *s)
{
    for (int i = 0; i < s->nvariants; i++) {
        const struct gl_variant *v = gl_section_variant(s, i);
        if (v && strcmp(v->device, "gpu") == 0)
            return 1;
    }
    return 0;
}

static const char *section_metrics(const struct gl_section *s)
{
    return s->metrics[0] ? s->metrics : "default";
}

/* A set of strings (the compile keys seen), open addressing. */
struct keyset {
    size_t cap, n;
    char **slot;
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

/* 1 when key was added, 0 when it was there, -1 out of memory. */
static int keyset_add(struct keyset *ks, const char *key)
{
    if (2 * (ks->n + 1) > ks->cap) {
        size_t cap = ks->cap ? 2 * ks->cap : 64;
        char **slot = calloc(cap, sizeof *slot);
        if (!slot)
            return -1;
        for (size_t i = 0; i < ks->cap; i++) {
            if (!ks->slot[i])
                continue;
            size_t h = (size_t)hash_str(ks->slot[i]) & (cap - 1);
            while (slot[h])
                h = (h + 1) & (cap - 1);
            slot[h] = ks->slot[i];
        }
        free(ks->slot);
        ks->slot = slot;
        ks->cap = cap;
    }
    size_t h = (size_t)hash_str(key) & (ks->cap - 1);
    while (ks->slot[h]) {
        if (strcmp(ks->slot[h], key) == 0)
            return 0;
        h = (h + 1) & (ks->cap - 1);
    }
    if (!(ks->slot[h] = strdup(key)))
        return -1;
    ks->n++;
    return 1;
}

static void keyset_free(struct keyset *ks)
{
    for (size_t i = 0; i < ks->cap; i++)
        free(ks->slot[i]);
    free(ks->slot);
}

#define COMPILE_LOG (64 * 1024)

/* Read or write exactly len bytes; 0, or -1. */
static int pipe_io(int fd, void *buf, size_t len, int writing)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = writing ? write(fd, p, len) : read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* ---- C references (verify = c:FILE:FUNC) --------------------------------- */

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
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s", path);
    char *end = strrchr(tmp, '/');
    if (!end || end == tmp)
        return 0;
    *end = '\0';
    for (char *s = tmp + 1;; s++) {
        char c = *s;
        if (c != '/' && c != '\0')
            continue;
        *s = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST) {
            snprintf(log, loglen, "kernel cache: cannot create %s: %s", tmp, strerror(errno));
            return -1;
        }
        *s = c;
        if (c == '\0')
            break;
    }
    return 0;
}

/* Run argv with stdout and stderr into log; its exit status, or -1. */
static int run_captured(char *const *argv, char *log, size_t loglen)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        close(fd[0]);
        close(fd[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    size_t used = 0;
    char buf[4096];
    ssize_t got;
    while ((got = read(fd[0], buf, sizeof buf)) != 0) {
        if (got < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        size_t take = (size_t)got < loglen - 1 - used ? (size_t)got : loglen - 1 - used;
        memcpy(log + used, buf, take);
        used += take;
    }
    log[used] = '\0';
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Build k's C reference into the kernel cache (a .c), or take it from there,
 * then check that its function loads. 1 from the cache (or a .so used as is),
 * 0 compiled now, -1 with the reason (the compiler's output) in log. Runs in
 * the compile child. */
static int cref_build(const struct gl_kernel *k, char *log, size_t loglen)
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
        char *rest[] = { "-O2", "-shared", "-fPIC", "-fopenmp", inc, "-o", tmp,
                         (char *)k->verify_c_path, NULL };
        for (int i = 0; rest[i]; i++)
            argv[argc++] = rest[i];
        argv[argc] = NULL;
        char cmd[256];
        snprintf(cmd, sizeof cmd, "%s -O2 -shared -fPIC -fopenmp -I...", argv[0]);
        size_t head = (size_t)snprintf(log, loglen, "does not compile (%s):\n", cmd);
        int st = run_captured(argv, log + head, loglen - head);
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

/* Compile jobs[0..n) (one per distinct kernel point) in a child process, so
 * that NVRTC never runs in this one: once it has, CUDA cannot be initialised in
 * a worker forked afterwards (cudaErrorInitializationError, seen on an H100
 * with CUDA 13.0 when a worker was restarted after a faulting kernel). res[i]
 * gets kernel_compile's result (1 cached, 0 compiled, -1 failed: the child
 * stops there and log holds the compiler's log). The C references crefs[0..
 * ncrefs) are built first (cref_build), their results in res[0..ncrefs), the
 * jobs' after them. 0, or -1 with err when the child could not run or died. */
static int compile_in_child(const struct gl_device_ops *ops, const struct gl_kernel *const *crefs,
                            int ncrefs, struct gl_job *const *jobs, int njobs, int arch, int *res,
                            char *log, size_t loglen, char *err, size_t errlen)
{
    int n = ncrefs + njobs;
    int fd[2];
    if (pipe(fd) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        for (int i = 0; i < n; i++) {
            log[0] = '\0';
            int r;
            if (i < ncrefs)
                r = cref_build(crefs[i], log, loglen);
            else
                r = ops->kernel_compile(gl_kernel_variant_of(jobs[i - ncrefs]->v),
                                        &jobs[i - ncrefs]->p, arch, log, loglen);
            if (pipe_io(fd[1], &r, sizeof r, 1) != 0)
                _exit(2);
            if (r < 0) {
                unsigned len = (unsigned)strnlen(log, loglen - 1);
                if (pipe_io(fd[1], &len, sizeof len, 1) != 0 ||
                    pipe_io(fd[1], log, len, 1) != 0)
                    _exit(2);
                break;
            }
        }
        _exit(0);
    }
    close(fd[1]);
    int rc = 0, i = 0;
    for (; i < n; i++) {
        if (pipe_io(fd[0], &res[i], sizeof res[i], 0) != 0) {
            rc = -1;
            break;
        }
        if (res[i] < 0) {
            unsigned len = 0;
            if (pipe_io(fd[0], &len, sizeof len, 0) != 0 || len >= loglen ||
                pipe_io(fd[0], log, len, 0) != 0) {
                rc = -1;
                break;
            }
            log[len] = '\0';
            i++;
            break;
        }
    }
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (rc != 0)
        snprintf(err, errlen, "the kernel compiler's process died (%s)",
                 WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "no answer");
    for (; i < n; i++)
        res[i] = 0;   /* not reached: after a failure */
    return rc;
}

/* Compile every distinct kernel point that is not rejected, and every C
 * reference, once. 0, 2 (a kernel or a C reference does not compile, or the
 * reference's function does not load: err has the config's file:line of
 * `source` or `verify` and the log) or 1 (out of memory, or the compiler's process died). No GPU plugin: the
 * points are left as they are (they need a GPU to run anyway) and kernels_why
 * says so. */
static int compile_kernels(struct gl_sweep *sw, char *err, size_t errlen)
{
    const struct gl_device_ops *ops = gl_registry_gpu();
    struct keyset ks = { 0, 0, NULL };
    struct gl_job **todo = NULL;
    const struct gl_config **todo_cfg = NULL;
    const struct gl_kernel **crefs = NULL;
    const struct gl_config **cref_cfg = NULL;
    int ntodo = 0, cap = 0, rc = 0, ncrefs = 0, no_ops = 0, nsec = 0;
    if (sw->gpu_ok)
        sw->arch = sw->gpu.cc_major * 10 + sw->gpu.cc_minor;
    else if (sw->arch <= 0)
        sw->arch = 90;
    /* the C references, once each (they need no GPU plugin) */
    for (int ci = 0; ci < sw->nconfigs; ci++)
        nsec += sw->configs[ci].nsections;
    if (nsec > 0 && (!(crefs = calloc((size_t)nsec, sizeof *crefs)) ||
                     !(cref_cfg = calloc((size_t)nsec, sizeof *cref_cfg)))) {
        snprintf(err, errlen, "out of memory");
        rc = 1;
        goto out;
    }
    for (int ci = 0; ci < sw->nconfigs && rc == 0; ci++)
        for (int si = 0; si < sw->configs[ci].nsections && rc == 0; si++) {
            const struct gl_kernel *k = sw->configs[ci].sections[si].kernel;
            char key[2600];
            if (!k || !k->verify_c_path[0])
                continue;
            snprintf(key, sizeof key, "cref\n%s\n%s", k->verify_c_so, k->verify_c_func);
            int added = keyset_add(&ks, key);
            if (added < 0) {
                snprintf(err, errlen, "out of memory");
                rc = 1;
            } else if (added > 0) {
                cref_cfg[ncrefs] = &sw->configs[ci];
                crefs[ncrefs++] = k;
            }
        }
    for (int ci = 0; ci < sw->nconfigs && rc == 0 && !no_ops; ci++) {
        struct gl_expansion *e = &sw->exps[ci];
        for (int ji = 0; ji < e->njobs && rc == 0 && !no_ops; ji++) {
            struct gl_job *j = &e->jobs[ji];
            const struct gl_kernel_variant *kv = gl_kernel_variant_of(j->v);
            char key[4096];
            if (!kv || j->skip[0])
                continue;
            if (!ops || !ops->kernel_compile) {
                snprintf(sw->kernels_why, sizeof sw->kernels_why, "%s",
                         !ops ? gl_registry_gpu_why() : "the GPU plugin cannot compile kernels");
                no_ops = 1;   /* nothing added yet: only the C references are built */
                break;
            }
            if (gl_kernel_compile_key(kv, &j->p, key, sizeof key) != 0) {
                snprintf(j->skip, sizeof j->skip, "the kernel's name expression or -D list is "
                         "too long");
                continue;
            }
            int added = keyset_add(&ks, key);
            if (added == 0)
                continue;
            if (added > 0 && ntodo == cap) {
                int ncap = cap ? 2 * cap : 64;
                struct gl_job **t = realloc(todo, (size_t)ncap * sizeof *t);
                const struct gl_config **tc = t ? realloc(todo_cfg, (size_t)ncap * sizeof *tc) : NULL;
                if (t)
                    todo = t;
                if (tc)
                    todo_cfg = tc;
                if (!t || !tc)
                    added = -1;
                else
                    cap = ncap;
            }
            if (added < 0) {
                snprintf(err, errlen, "out of memory");
                rc = 1;
                break;
            }
            todo_cfg[ntodo] = &sw->configs[ci];
            todo[ntodo++] = j;
        }
    }
    if (rc == 0 && ncrefs + ntodo > 0) {
        int *res = calloc((size_t)(ncrefs + ntodo), sizeof *res);
        char *log = malloc(COMPILE_LOG);
        if (!res || !log) {
            snprintf(err, errlen, "out of memory");
            rc = 1;
        } else if (compile_in_child(ops, crefs, ncrefs, todo, ntodo, sw->arch, res, log,
                                    COMPILE_LOG, err, errlen) != 0) {
            rc = 1;
        } else {
            for (int i = 0; i < ncrefs && rc == 0; i++) {
                if (res[i] < 0) {
                    snprintf(err, errlen, "%s:%d: verify: C reference %s: %s", cref_cfg[i]->path,
                             crefs[i]->verify_line, crefs[i]->verify_c_path,
                             log[0] ? log : "(the compiler said nothing)");
                    rc = 2;
                    break;
                }
                if (crefs[i]->verify_c_compile) {
                    sw->ncrefs++;
                    sw->ncrefs_cached += res[i] == 1;
                }
            }
            for (int i = 0; i < ntodo && rc == 0; i++) {
                int ri = res[ncrefs + i];
                if (ri < 0) {
                    const struct gl_kernel_variant *kv = gl_kernel_variant_of(todo[i]->v);
                    char params[256];
                    gl_params_format(&todo[i]->p, params, sizeof params);
                    snprintf(err, errlen, "%s:%d: source: %s does not compile (variant %s = %s "
                             "at %s, sm_%d):\n%s", todo_cfg[i]->path, kv->k->source_line,
                             kv->k->source, kv->name, kv->expr, params, sw->arch,
                             log[0] ? log : "(the compiler said nothing)");
                    rc = 2;
                    break;
                }
                sw->nkernels++;
                if (ri == 1)
                    sw->nkernels_cached++;
            }
        }
        free(res);
        free(log);
    }
out:
    free(todo);
    free(todo_cfg);
    free(crefs);
    free(cref_cfg);
    keyset_free(&ks);
    return rc;
}

/* ---- the GPUs of the sweep (run --gpus) ------------------------------------ */

int gl_sweep_gpus_syntax(const char *gpus, char *err, size_t errlen)
{
    if (strcmp(gpus, "all") == 0)
        return 0;
    const char *p = gpus;
    int n = 0;
    long seen[GL_GPUS_MAX];
    for (;;) {
        char *end;
        if (*p < '0' || *p > '9')
            break;
        long v = strtol(p, &end, 10);
        for (int i = 0; i < n; i++)
            if (seen[i] == v) {
                snprintf(err, errlen, "--gpus %s: GPU %ld is named twice", gpus, v);
                return -1;
            }
        if (n == GL_GPUS_MAX) {
            snprintf(err, errlen, "--gpus %s: at most %d GPUs", gpus, GL_GPUS_MAX);
            return -1;
        }
        seen[n++] = v;
        p = end;
        if (*p == '\0')
            return 0;
        if (*p != ',')
            break;
        p++;
    }
    snprintf(err, errlen, "--gpus wants all or a list of GPU numbers such as 0,2, got '%s'",
             gpus);
    return -1;
}

/* Entry i of the driver's CUDA_VISIBLE_DEVICES (the GPU CUDA shows as ordinal
 * i), or i itself when it is not set: what worker i is given to see. */
static void visible_entry(int i, char *out, size_t len)
{
    const char *e = getenv("CUDA_VISIBLE_DEVICES");
    snprintf(out, len, "%d", i);
    if (!e)
        return;
    int at = 0;
    for (const char *p = e; *p; at++) {
        size_t n = strcspn(p, ",");
        if (at == i) {
            while (n > 0 && (*p == ' ' || *p == '\t'))
                p++, n--;
            snprintf(out, len, "%.*s", (int)n, p);
            return;
        }
        p += n;
        if (*p == ',')
            p++;
    }
}

/* Same model as db/views.sql's device_model: kind, name, cores, SMs, compute
 * capability. */
static int same_model(const struct gl_device *a, const struct gl_device *b)
{
    return strcmp(a->kind, b->kind) == 0 && strcmp(a->name, b->name) == 0 &&
           a->cores == b->cores && a->sm_count == b->sm_count && a->cc_major == b->cc_major &&
           a->cc_minor == b->cc_minor;
}

/* One worker per GPU of the --gpus list, each seeing only its own, started
 * together. 0 (sw->nworkers set; no GPU here at all: nworkers 0, the caller
 * starts one worker as without --gpus), 2 (a GPU the list names is not here),
 * 1 (a worker or its GPU did not start) with err. */
static int start_gpu_workers(struct gl_sweep *sw, const char *gpus, char *err, size_t errlen)
{
    char why[GL_REASON_MAX];
    int count = gl_worker_count_gpus(why, sizeof why), nums[GL_GPUS_MAX], n = 0;
    sw->nworkers = 0;
    if (count <= 0)
        return 0;   /* no GPU: the one worker says why */
    if (strcmp(gpus, "all") == 0) {
        if (count > GL_GPUS_MAX) {
            snprintf(err, errlen, "gpulab: --gpus all: %d GPUs here, gpulab drives at most %d "
                     "at once: name them (--gpus 0,1,...)", count, GL_GPUS_MAX);
            return 2;
        }
        for (n = 0; n < count; n++)
            nums[n] = n;
    } else {
        for (const char *p = gpus; *p; p += *p == ',') {
            char *end;
            long v = strtol(p, &end, 10);
            if (v >= count) {
                if (count == 1)
                    snprintf(err, errlen, "gpulab: --gpus %s: there is no GPU %ld here "
                             "(1 GPU: 0)", gpus, v);
                else
                    snprintf(err, errlen, "gpulab: --gpus %s: there is no GPU %ld here "
                             "(%d GPUs: 0 to %d)", gpus, v, count, count - 1);
                return 2;
            }
            nums[n++] = (int)v;
            p = end;
        }
    }
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        struct gl_worker *w = &sw->workers[i];
        visible_entry(nums[i], w->visible, sizeof w->visible);
        sw->gpu_num[i] = nums[i];
        if (gl_worker_spawn(w, 1, err, errlen) != 0)
            rc = 1;
        else
            sw->nworkers = i + 1;
    }
    for (int i = 0; i < sw->nworkers; i++) {   /* every spawned one is awaited */
        struct gl_worker *w = &sw->workers[i];
        char werr[512];
        if (gl_worker_await(w, werr, sizeof werr) != 0 || !w->ready.gpu_ok) {
            if (rc == 0)
                snprintf(err, errlen, "--gpus: GPU %d (CUDA_VISIBLE_DEVICES=%s): %s", nums[i],
                         w->visible, w->pid > 0 ? w->ready.why : werr);
            rc = 1;
            continue;
        }
        sw->gpus[i] = w->ready.gpu;
        for (int j = 0; j < i && rc == 0; j++)
            if (strcmp(sw->gpus[j].ident, sw->gpus[i].ident) == 0) {
                snprintf(err, errlen, "gpulab: --gpus: GPU %d and GPU %d are the same device (%s)",
                         nums[j], nums[i], sw->gpus[i].ident);
                rc = 2;
            }
    }
    return rc;
}

/* The workers: one per GPU (gpus given), or one as always. 0, 1 or 2 with err. */
static int start_workers(struct gl_sweep *sw, const char *gpus, char *err, size_t errlen)
{
    sw->multi = gpus != NULL;
    if (gpus && sw->gpu_wanted) {
        int rc = start_gpu_workers(sw, gpus, err, errlen);
        if (rc != 0)
            return rc;
    }
    if (sw->nworkers == 0) {
        if (gl_worker_start(&sw->workers[0], sw->gpu_wanted, err, errlen) != 0)
            return 1;
        sw->nworkers = 1;
        if (sw->workers[0].ready.gpu_ok)
            sw->gpus[0] = sw->workers[0].ready.gpu;
    }
    sw->gpu_ok = sw->workers[0].ready.gpu_ok;
    snprintf(sw->gpu_why, sizeof sw->gpu_why, "%s", sw->workers[0].ready.why);
    if (sw->gpu_ok)
        sw->gpu = sw->gpus[0];
    sw->nmodels = 0;
    for (int i = 0; sw->gpu_ok && i < sw->nworkers; i++) {
        int m = 0;
        while (m < sw->nmodels && !same_model(&sw->gpus[sw->model_first[m]], &sw->gpus[i]))
            m++;
        if (m == sw->nmodels)
            sw->model_first[sw->nmodels++] = i;
    }
    return 0;
}

int gl_sweep_prepare(struct gl_sweep *sw, int npaths, char **paths, const char *only,
                     int force, int arch, const char *gpus, gl_store *store, char *err,
                     size_t errlen)
{
    memset(sw, 0, sizeof *sw);
    sw->arch = arch;
    sw->force = force;
    sw->counters = -1;
    sw->configs = calloc((size_t)npaths, sizeof *sw->configs);
    sw->exps = calloc((size_t)npaths, sizeof *sw->exps);
    if (!sw->configs || !sw->exps) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    /* 1. Parse every config and check metric specs before anything runs. */
    for (int i = 0; i < npaths; i++) {
        if (gl_config_load(paths[i], &sw->configs[i], err, errlen) != 0)
            return 2;
        sw->nconfigs = i + 1;
        for (int j = 0; j < sw->configs[i].nsections; j++) {
            const struct gl_section *s = &sw->configs[i].sections[j];
            struct gl_metric_req req;
            char merr[512];
            if (gl_metric_resolve(section_metrics(s), &req, merr, sizeof merr) != 0) {
                snprintf(err, errlen, "%s:%d: %s", paths[i],
                         s->metrics_line ? s->metrics_line : s->line, merr);
                return 2;
            }
            if (section_has_gpu(s))
                sw->gpu_wanted = 1;
        }
    }
    /* 2. The CPU is always described; the worker says whether a GPU is usable. */
    gl_cpu_describe(&sw->cpu);
    if (store) {
        sw->cpu_id = gl_store_device(store, &sw->cpu);
        if (sw->cpu_id < 0) {
            snprintf(err, errlen, "cannot store the device: %s", gl_store_errmsg(store));
            return 1;
        }
    }
    if (gpus && gl_sweep_gpus_syntax(gpus, err, errlen) != 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "gpulab: %s", why);
        return 2;
    }
    int wrc = start_workers(sw, gpus, err, errlen);
    if (wrc != 0)
        return wrc;
    for (int i = 0; sw->gpu_ok && store && i < sw->nworkers; i++) {
        sw->gpu_ids[i] = gl_store_device(store, &sw->gpus[i]);
        if (sw->gpu_ids[i] < 0) {
            snprintf(err, errlen, "cannot store the device: %s", gl_store_errmsg(store));
            return 1;
        }
    }
    sw->gpu_id = sw->gpu_ids[0];
    /* 3. Expand against the real device limits (static limits without a GPU). */
    for (int i = 0; i < sw->nconfigs; i++)
        if (gl_expand(&sw->configs[i], sw->gpu_ok ? &sw->gpu : NULL, only, &sw->exps[i], err,
                      errlen) != 0)
            return 2;
    /* 3b. Every distinct user kernel point compiles before anything runs. */
    int crc = compile_kernels(sw, err, errlen);
    if (crc != 0)
        return crc;
    /* 4. Metric names are checked on the GPU itself, once per distinct spec
     * and model (the first GPU's answer says whether counters are available). */
    for (int m = 0; sw->gpu_ok && m < sw->nmodels; m++) {
        int first = m == 0;
        struct gl_worker *w = &sw->workers[sw->model_first[m]];
        for (int i = 0; i < sw->nconfigs; i++) {
            for (int j = 0; j < sw->configs[i].nsections; j++) {
                const struct gl_section *s = &sw->configs[i].sections[j];
                if (!section_has_gpu(s))
                    continue;
                char merr[1024];
                int rc = gl_worker_metrics(w, section_metrics(s), merr, sizeof merr);
                if (rc == -2) {
                    snprintf(err, errlen, "%s:%d: %s", sw->configs[i].path,
                             s->metrics_line ? s->metrics_line : s->line, merr);
                    return 2;
                }
                if (rc == -3) {
                    snprintf(err, errlen, "%s", merr);
                    return 1;
                }
                if (first) {
                    sw->counters = rc;
                    if (rc < 0)
                        snprintf(sw->counters_why, sizeof sw->counters_why, "%s", merr);
                    first = 0;
                }
                if (rc == -1)
                    break;   /* unavailable for every spec alike */
            }
        }
    }
    return 0;
}

void gl_sweep_key(const struct gl_sweep *sw, const struct gl_job *job, struct gl_run_key *k)
{
    gl_sweep_key_on(sw, job, 0, k);
}

void gl_sweep_key_on(const struct gl_sweep *sw, const struct gl_job *job, int slot,
                     struct gl_run_key *k)
{
    if (slot < 0 || slot >= sw->nworkers)
        slot = 0;
    k->device_id = strcmp(job->v->device, "gpu") == 0 ? sw->gpu_ids[slot] : sw->cpu_id;
    k->family = job->v->family;
    k->variant = job->v->name;
    k->p = &job->p;
    k->study = job->study;
    /* a user kernel: its named parameters (from p->user) and its code's hash;
     * a variant of a --plugin: the hash of the plugin's file */
    const struct gl_kernel_variant *kv = gl_kernel_variant_of(job->v);
    k->uparams = NULL;
    k->code_hash = kv ? kv->k->hash : gl_variant_code_hash(job->v);
}

enum gl_job_state gl_sweep_state(struct gl_sweep *sw, gl_store *store, const struct gl_job *job)
{
    /* A rejected point is shown as such with or without a GPU: check() used
     * the GPU's limits when there is one, every GPU's static limits if not. */
    if (job->skip[0])
        return GL_JOB_REJECTED;
    if (strcmp(job->v->device, "gpu") == 0 && !sw->gpu_ok)
        return GL_JOB_NO_GPU;
    /* A GPU job is done when the model of any GPU of the sweep holds it: on a
     * host with GPUs of several models it runs once, on whichever takes it. */
    int nkeys = strcmp(job->v->device, "gpu") == 0 && sw->nmodels > 1 ? sw->nmodels : 1;
    for (int m = 0; store && !sw->force && m < nkeys; m++) {
        struct gl_run_key k;
        gl_sweep_key_on(sw, job, nkeys > 1 ? sw->model_first[m] : 0, &k);
        if (gl_store_has_ok(store, &k) == 1)
            return GL_JOB_DONE;
    }
    for (int m = 0; store && m < nkeys; m++) {
        struct gl_run_key k;
        gl_sweep_key_on(sw, job, nkeys > 1 ? sw->model_first[m] : 0, &k);
        if (k.device_id > 0 && gl_store_claim_held(store, &k) == 1)
            return GL_JOB_ELSEWHERE;
    }
    return GL_JOB_RUN;
}

int gl_sweep_survey(struct gl_sweep *sw, gl_store *store, int *need_cpu, int *need_gpu)
{
    int n = 0;
    *need_cpu = *need_gpu = 0;
    for (int ci = 0; ci < sw->nconfigs; ci++)
        n += sw->exps[ci].njobs;
    free(sw->surveyed);
    sw->surveyed = malloc(n > 0 ? (size_t)n : 1);
    if (!sw->surveyed)
        return -1;
    sw->surveyed_last = store ? gl_store_last_run(store) : -1;
    n = 0;
    for (int ci = 0; ci < sw->nconfigs; ci++)
        for (int ji = 0; ji < sw->exps[ci].njobs; ji++) {
            const struct gl_job *job = &sw->exps[ci].jobs[ji];
            enum gl_job_state st = gl_sweep_state(sw, store, job);
            sw->surveyed[n++] = (unsigned char)st;
            if (st == GL_JOB_RUN || st == GL_JOB_ELSEWHERE) {
                if (strcmp(job->v->device, "gpu") == 0)
                    *need_gpu = 1;
                else
                    *need_cpu = 1;
            }
        }
    return 0;
}

int gl_sweep_claim(struct gl_sweep *sw, gl_store *store, int ci, int ji)
{
    return gl_sweep_claim_on(sw, store, ci, ji, 0);
}

int gl_sweep_claim_on(struct gl_sweep *sw, gl_store *store, int ci, int ji, int slot)
{
    const struct gl_job *job = &sw->exps[ci].jobs[ji];
    int idx = ji;
    for (int i = 0; i < ci; i++)
        idx += sw->exps[i].njobs;
    int before = sw->surveyed ? sw->surveyed[idx] : GL_JOB_RUN;
    if (job->skip[0])
        return GL_JOB_REJECTED;
    if (strcmp(job->v->device, "gpu") == 0 && !sw->gpu_ok)
        return GL_JOB_NO_GPU;
    if (before == GL_JOB_DONE)
        return GL_JOB_DONE;
    struct gl_run_key k;
    gl_sweep_key_on(sw, job, slot, &k);
    switch (gl_store_claim(store, &k, sw->force, sw->surveyed ? sw->surveyed_last : -1, NULL, 0)) {
    case GL_CLAIM_TAKEN: return GL_JOB_RUN;
    case GL_CLAIM_DONE: return GL_JOB_DONE;   /* by this process, earlier in the sweep */
    case GL_CLAIM_ELSEWHERE: return GL_JOB_ELSEWHERE;   /* stored by another since the survey */
    case GL_CLAIM_BUSY: return GL_JOB_ELSEWHERE;
    default: return -1;
    }
}

void gl_sweep_free(struct gl_sweep *sw)
{
    for (int i = 0; i < GL_GPUS_MAX; i++)
        gl_worker_stop(&sw->workers[i]);
    gl_devlock_release(&sw->locks);   /* after the workers: they measure no more */
    for (int i = 0; i < sw->nconfigs; i++) {
        gl_expansion_free(&sw->exps[i]);
        gl_config_free(&sw->configs[i]);
    }
    free(sw->exps);
    free(sw->configs);
    free(sw->surveyed);
    memset(sw, 0, sizeof *sw);
}
