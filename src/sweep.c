/* sweep.c - see sweep.h. Must not print: the commands do. */
#include "sweep.h"
#include "cpuinfo.h"
#include "kernel_variant.h"
#include "metric_sets.h"
#include "registry.h"

#include <stdint.h>
#include <errno.h>
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

/* Compile jobs[0..n) (one per distinct kernel point) in a child process, so
 * that NVRTC never runs in this one: once it has, CUDA cannot be initialised in
 * a worker forked afterwards (cudaErrorInitializationError, seen on an H100
 * with CUDA 13.0 when a worker was restarted after a faulting kernel). res[i]
 * gets kernel_compile's result (1 cached, 0 compiled, -1 failed: the child
 * stops there and log holds the compiler's log). 0, or -1 with err when the
 * child could not run or died. */
static int compile_in_child(const struct gl_device_ops *ops, struct gl_job *const *jobs, int n,
                            int arch, int *res, char *log, size_t loglen, char *err,
                            size_t errlen)
{
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
            const struct gl_kernel_variant *kv = gl_kernel_variant_of(jobs[i]->v);
            log[0] = '\0';
            int r = ops->kernel_compile(kv, &jobs[i]->p, arch, log, loglen);
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

/* Compile every distinct kernel point that is not rejected, once. 0, 2 (a
 * kernel does not compile: err has the config's file:line of `source` and the
 * log) or 1 (out of memory, or the compiler's process died). No GPU plugin: the
 * points are left as they are (they need a GPU to run anyway) and kernels_why
 * says so. */
static int compile_kernels(struct gl_sweep *sw, char *err, size_t errlen)
{
    const struct gl_device_ops *ops = gl_registry_gpu();
    struct keyset ks = { 0, 0, NULL };
    struct gl_job **todo = NULL;
    const struct gl_config **todo_cfg = NULL;
    int ntodo = 0, cap = 0, rc = 0;
    if (sw->gpu_ok)
        sw->arch = sw->gpu.cc_major * 10 + sw->gpu.cc_minor;
    else if (sw->arch <= 0)
        sw->arch = 90;
    for (int ci = 0; ci < sw->nconfigs && rc == 0; ci++) {
        struct gl_expansion *e = &sw->exps[ci];
        for (int ji = 0; ji < e->njobs && rc == 0; ji++) {
            struct gl_job *j = &e->jobs[ji];
            const struct gl_kernel_variant *kv = gl_kernel_variant_of(j->v);
            char key[4096];
            if (!kv || j->skip[0])
                continue;
            if (!ops || !ops->kernel_compile) {
                snprintf(sw->kernels_why, sizeof sw->kernels_why, "%s",
                         !ops ? gl_registry_gpu_why() : "the GPU plugin cannot compile kernels");
                goto out;
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
    if (rc == 0 && ntodo > 0) {
        int *res = calloc((size_t)ntodo, sizeof *res);
        char *log = malloc(COMPILE_LOG);
        if (!res || !log) {
            snprintf(err, errlen, "out of memory");
            rc = 1;
        } else if (compile_in_child(ops, todo, ntodo, sw->arch, res, log, COMPILE_LOG, err,
                                    errlen) != 0) {
            rc = 1;
        } else {
            for (int i = 0; i < ntodo && rc == 0; i++) {
                if (res[i] < 0) {
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
                if (res[i] == 1)
                    sw->nkernels_cached++;
            }
        }
        free(res);
        free(log);
    }
out:
    free(todo);
    free(todo_cfg);
    keyset_free(&ks);
    return rc;
}

int gl_sweep_prepare(struct gl_sweep *sw, int npaths, char **paths, const char *only,
                     int force, int arch, gl_store *store, char *err, size_t errlen)
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
    if (gl_worker_start(&sw->worker, sw->gpu_wanted, err, errlen) != 0)
        return 1;
    sw->gpu_ok = sw->worker.ready.gpu_ok;
    snprintf(sw->gpu_why, sizeof sw->gpu_why, "%s", sw->worker.ready.why);
    if (sw->gpu_ok) {
        sw->gpu = sw->worker.ready.gpu;
        if (store) {
            sw->gpu_id = gl_store_device(store, &sw->gpu);
            if (sw->gpu_id < 0) {
                snprintf(err, errlen, "cannot store the device: %s", gl_store_errmsg(store));
                return 1;
            }
        }
    }
    /* 3. Expand against the real device limits (static limits without a GPU). */
    for (int i = 0; i < sw->nconfigs; i++)
        if (gl_expand(&sw->configs[i], sw->gpu_ok ? &sw->gpu : NULL, only, &sw->exps[i], err,
                      errlen) != 0)
            return 2;
    /* 3b. Every distinct user kernel point compiles before anything runs. */
    int crc = compile_kernels(sw, err, errlen);
    if (crc != 0)
        return crc;
    /* 4. Metric names are checked on the GPU itself, once per distinct spec. */
    if (sw->gpu_ok) {
        int first = 1;
        for (int i = 0; i < sw->nconfigs; i++) {
            for (int j = 0; j < sw->configs[i].nsections; j++) {
                const struct gl_section *s = &sw->configs[i].sections[j];
                if (!section_has_gpu(s))
                    continue;
                char merr[1024];
                int rc = gl_worker_metrics(&sw->worker, section_metrics(s), merr, sizeof merr);
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
    k->device_id = strcmp(job->v->device, "gpu") == 0 ? sw->gpu_id : sw->cpu_id;
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
    if (store && !sw->force) {
        struct gl_run_key k;
        gl_sweep_key(sw, job, &k);
        if (gl_store_has_ok(store, &k) == 1)
            return GL_JOB_DONE;
    }
    return GL_JOB_RUN;
}

void gl_sweep_free(struct gl_sweep *sw)
{
    gl_worker_stop(&sw->worker);
    for (int i = 0; i < sw->nconfigs; i++) {
        gl_expansion_free(&sw->exps[i]);
        gl_config_free(&sw->configs[i]);
    }
    free(sw->exps);
    free(sw->configs);
    memset(sw, 0, sizeof *sw);
}
