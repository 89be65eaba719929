/* sweep_compile.c - step 3b of gl_sweep_prepare (sweep.h): every distinct user
 * kernel point of the sweep that is not rejected, and every C reference, is
 * compiled (or found in the kernel cache) before anything runs. The kernel
 * points that share a program (source, options, compiler and -D list: they
 * differ in their name expressions only) go to the GPU plugin together, which
 * compiles them as one program (kernel_compile_many); distinct programs and C
 * references are compiled in parallel, each in a child process of its own, at
 * most GPULAB_JOBS (else the cores this process may use) at a time. NVRTC never
 * runs in this process: once it has, CUDA cannot be initialised in a worker
 * forked afterwards (cudaErrorInitializationError, seen on an H100 with CUDA
 * 13.0 when a worker was restarted after a faulting kernel). The first failure
 * in the order of the configs (C references first, as a serial compile would
 * meet them) is the one reported, with its config file:line and the
 * compiler's log. While it takes more than a second, the caller's watch hears
 * how far it is, about once a second.
 * Must not print (the command's watch does), nor load or run a kernel. */
#include "cref_build.h"
#include "kernel_launches.h"
#include "launches.h"
#include "kernel_sig.h"
#include "kernel_variant.h"
#include "registry.h"
#include "sweep.h"
#include "target.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define COMPILE_LOG (64 * 1024)
#define MAX_CHILDREN 256

/* ---- a set of strings (the compile keys seen), open addressing ---------------------- */

struct keyset {
    size_t cap, n;
    char **slot;
    int *val;      /* the task of each key */
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

/* Find key: its value in *val and 0; or add it with *val and return 1; -1 out
 * of memory. */
static int keyset_put(struct keyset *ks, const char *key, int *val)
{
    if (2 * (ks->n + 1) > ks->cap) {
        size_t cap = ks->cap ? 2 * ks->cap : 64;
        char **slot = calloc(cap, sizeof *slot);
        int *v = calloc(cap, sizeof *v);
        if (!slot || !v) {
            free(slot);
            free(v);
            return -1;
        }
        for (size_t i = 0; i < ks->cap; i++) {
            if (!ks->slot[i])
                continue;
            size_t h = (size_t)hash_str(ks->slot[i]) & (cap - 1);
            while (slot[h])
                h = (h + 1) & (cap - 1);
            slot[h] = ks->slot[i];
            v[h] = ks->val[i];
        }
        free(ks->slot);
        free(ks->val);
        ks->slot = slot;
        ks->val = v;
        ks->cap = cap;
    }
    size_t h = (size_t)hash_str(key) & (ks->cap - 1);
    while (ks->slot[h]) {
        if (strcmp(ks->slot[h], key) == 0) {
            *val = ks->val[h];
            return 0;
        }
        h = (h + 1) & (ks->cap - 1);
    }
    if (!(ks->slot[h] = strdup(key)))
        return -1;
    ks->val[h] = *val;
    ks->n++;
    return 1;
}

static void keyset_free(struct keyset *ks)
{
    for (size_t i = 0; i < ks->cap; i++)
        free(ks->slot[i]);
    free(ks->slot);
    free(ks->val);
}

/* ---- tasks ------------------------------------------------------------------------------ */

/* One child's work: a C reference, or the kernel points of one program. */
struct task {
    const struct gl_config *cfg;     /* for the error's file:line */
    const struct gl_kernel *cref;    /* a C reference, or NULL */
    int n, cap;                      /* kernel points */
    struct gl_job **jobs;
    int *res;                        /* each point's result (1 cache, 0 compiled, -1) */
    int rc;                          /* 0, -1 failed, -2 an option refused */
    char *log;                       /* the failure's log (malloc'd) */
    int done;
};

struct pool {
    struct task *t;
    int n, cap;
};

static struct task *new_task(struct pool *pl, const struct gl_config *cfg)
{
    if (pl->n == pl->cap) {
        int cap = pl->cap ? 2 * pl->cap : 32;
        struct task *t = realloc(pl->t, (size_t)cap * sizeof *t);
        if (!t)
            return NULL;
        pl->t = t;
        pl->cap = cap;
    }
    struct task *t = &pl->t[pl->n++];
    memset(t, 0, sizeof *t);
    t->cfg = cfg;
    return t;
}

static int task_add(struct task *t, struct gl_job *j)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 8;
        struct gl_job **jobs = realloc(t->jobs, (size_t)cap * sizeof *jobs);
        if (!jobs)
            return -1;
        t->jobs = jobs;
        t->cap = cap;
    }
    t->jobs[t->n++] = j;
    return 0;
}

static void pool_free(struct pool *pl)
{
    for (int i = 0; i < pl->n; i++) {
        free(pl->t[i].jobs);
        free(pl->t[i].res);
        free(pl->t[i].log);
    }
    free(pl->t);
}

/* ---- the child -------------------------------------------------------------------------- */

/* In the child: do t and write [rc][n][res...][log length][log] to fd. */
static void run_task(const struct gl_device_ops *ops, const struct task *t, int arch, int fd)
{
    static char log[COMPILE_LOG];
    int n = t->cref ? 1 : t->n, rc = 0;
    int *res = calloc((size_t)n, sizeof *res);
    const struct gl_kernel_variant **kvs = calloc((size_t)n, sizeof *kvs);
    const struct gl_params **ps = calloc((size_t)n, sizeof *ps);
    log[0] = '\0';
    if (!res || !kvs || !ps)
        _exit(3);
    if (t->cref) {
        res[0] = gl_cref_build(t->cref, log, sizeof log);
        rc = res[0] < 0 ? -1 : 0;
    } else {
        for (int i = 0; i < n; i++) {
            kvs[i] = gl_kernel_variant_of(t->jobs[i]->v);
            ps[i] = &t->jobs[i]->p;
        }
        if (ops->kernel_compile_many) {
            rc = ops->kernel_compile_many(kvs, ps, n, arch, res, log, sizeof log);
        } else {
            for (int i = 0; i < n; i++)
                res[i] = -1;
            for (int i = 0; i < n && rc == 0; i++)
                if ((res[i] = ops->kernel_compile(kvs[i], ps[i], arch, log, sizeof log)) < 0)
                    rc = -1;
        }
    }
    unsigned len = rc < 0 ? (unsigned)strnlen(log, sizeof log - 1) : 0;
    if (gl_write_all(fd, &rc, sizeof rc) != 0 || gl_write_all(fd, &n, sizeof n) != 0 ||
        gl_write_all(fd, res, (size_t)n * sizeof *res) != 0 ||
        gl_write_all(fd, &len, sizeof len) != 0 || gl_write_all(fd, log, len) != 0)
        _exit(2);
    _exit(0);
}

/* ---- the parent ------------------------------------------------------------------------- */

/* A running child: its task, pid, the read end of its pipe and what it sent. */
struct child {
    int task;
    pid_t pid;
    int fd;
    char *buf;
    size_t len, cap;
};

/* What a child sent, into its task; 0, or -1 when the message is not whole. */
static int take_message(struct task *t, const struct child *c)
{
    int rc, n;
    unsigned len;
    size_t off = 0;
    if (c->len < sizeof rc + sizeof n)
        return -1;
    memcpy(&rc, c->buf, sizeof rc);
    memcpy(&n, c->buf + sizeof rc, sizeof n);
    off = sizeof rc + sizeof n;
    if (n != (t->cref ? 1 : t->n) || c->len < off + (size_t)n * sizeof(int) + sizeof len)
        return -1;
    if (!(t->res = malloc((size_t)n * sizeof *t->res)))
        return -1;
    memcpy(t->res, c->buf + off, (size_t)n * sizeof *t->res);
    off += (size_t)n * sizeof *t->res;
    memcpy(&len, c->buf + off, sizeof len);
    off += sizeof len;
    if (c->len != off + len || !(t->log = malloc((size_t)len + 1)))
        return -1;
    memcpy(t->log, c->buf + off, len);
    t->log[len] = '\0';
    t->rc = rc;
    return 0;
}

/* Parallel compilations: GPULAB_JOBS, else the cores this process may run on. */
static int jobs_allowed(char *err, size_t errlen)
{
    const char *e = getenv("GPULAB_JOBS");
    if (e && *e) {
        char *end;
        long v = strtol(e, &end, 10);
        if (*end || v < 1 || v > MAX_CHILDREN) {
            snprintf(err, errlen, "GPULAB_JOBS = '%s': want the number of compilations to run at "
                     "once, 1 to %d", e, MAX_CHILDREN);
            return -1;
        }
        return (int)v;
    }
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set) < MAX_CHILDREN ? CPU_COUNT(&set) : MAX_CHILDREN;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n < MAX_CHILDREN ? (int)n : MAX_CHILDREN;
}

static int start_child(const struct gl_device_ops *ops, struct pool *pl, int ti, int arch,
                       struct child *c, char *err, size_t errlen)
{
    int fd;
    pid_t pid = gl_fork_pipe(&fd, err, errlen);
    if (pid < 0)
        return -1;
    if (pid == 0)
        run_task(ops, &pl->t[ti], arch, fd);
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0) {
        snprintf(err, errlen, "fcntl: %s", strerror(errno));   /* the child is reaped below */
        close(fd);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        return -1;
    }
    memset(c, 0, sizeof *c);
    c->task = ti;
    c->pid = pid;
    c->fd = fd;
    return 0;
}

/* Read what c has sent; 1 at its end (the child is reaped, its task done), 0
 * for more later, -1 when it died or sent nonsense (err). */
static int drain_child(struct pool *pl, struct child *c, char *err, size_t errlen)
{
    for (;;) {
        if (c->len + 4096 > c->cap) {
            size_t cap = c->cap ? 2 * c->cap : 16384;
            char *b = realloc(c->buf, cap);
            if (!b) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            c->buf = b;
            c->cap = cap;
        }
        ssize_t got = read(c->fd, c->buf + c->len, c->cap - c->len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && errno == EAGAIN)
            return 0;
        if (got > 0) {
            c->len += (size_t)got;
            continue;
        }
        break;   /* end of file (or an error): the child is done */
    }
    close(c->fd);
    c->fd = -1;
    int status = 0;
    while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
        ;
    struct task *t = &pl->t[c->task];
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && take_message(t, c) == 0;
    free(c->buf);
    c->buf = NULL;
    if (!ok) {
        snprintf(err, errlen, "the kernel compiler's process died (%s)",
                 WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "no answer");
        return -1;
    }
    t->done = 1;
    return 1;
}

/* Run every task, at most jobs at a time; stop starting new ones after a
 * failure. 0 (see each task's rc), or -1 with err (a child died). */
static int run_pool(const struct gl_device_ops *ops, struct pool *pl, int arch, int jobs,
                    const struct gl_sweep_watch *watch, int total_kernels, char *err,
                    size_t errlen)
{
    struct child kids[MAX_CHILDREN];
    struct pollfd pfd[MAX_CHILDREN];
    int running = 0, next = 0, failed = 0, rc = 0, done_kernels = 0, tasks_done = 0, told = 0;
    double t0 = gl_now(), last_tell = 0;
    while ((next < pl->n && !failed && rc == 0) || running > 0) {
        while (running < jobs && next < pl->n && !failed && rc == 0) {
            if (start_child(ops, pl, next, arch, &kids[running], err, errlen) != 0) {
                rc = -1;
                break;
            }
            running++;
            next++;
        }
        if (running == 0)
            break;
        for (int i = 0; i < running; i++) {
            pfd[i].fd = kids[i].fd;
            pfd[i].events = POLLIN;
            pfd[i].revents = 0;
        }
        int pr = poll(pfd, (nfds_t)running, 200);
        if (pr < 0 && errno != EINTR) {
            snprintf(err, errlen, "poll: %s", strerror(errno));
            rc = -1;
            pr = 0;
        }
        for (int i = 0; i < running && pr > 0; i++) {
            if (!pfd[i].revents)
                continue;
            int d = drain_child(pl, &kids[i], err, errlen);
            if (d < 0) {
                rc = -1;
                d = 1;   /* reaped: forget it */
                pl->t[kids[i].task].done = 0;
            } else if (d == 1) {
                struct task *t = &pl->t[kids[i].task];
                tasks_done++;
                if (!t->cref)
                    done_kernels += t->n;
                if (t->rc < 0)
                    failed = 1;
            }
            if (d == 1) {
                kids[i] = kids[running - 1];
                pfd[i] = pfd[running - 1];
                running--;
                i--;
            }
        }
        double el = gl_now() - t0;
        if (watch && watch->fn && el >= 1.0 && el - last_tell >= 1.0) {
            struct gl_compile_status st = { done_kernels, total_kernels, pl->n - tasks_done, el,
                                            0 };
            watch->fn(watch->ctx, &st);
            last_tell = el;
            told = 1;
        }
    }
    if (told) {
        struct gl_compile_status st = { done_kernels, total_kernels, pl->n - tasks_done,
                                        gl_now() - t0, 1 };
        watch->fn(watch->ctx, &st);
    }
    return rc;
}

/* A launch line's repeat count out of range at some point of the sweep: the
 * config's file:line error (the plan refuses it before anything compiles). */
static int kseq_sweep_counts(const struct gl_sweep *sw, char *err, size_t errlen)
{
    for (int ci = 0; ci < sw->nconfigs; ci++) {
        const struct gl_expansion *e = &sw->exps[ci];
        for (int ji = 0; ji < e->njobs; ji++) {
            const struct gl_job *j = &e->jobs[ji];
            const struct gl_kernel_variant *kv = gl_kernel_variant_of(j->v);
            if (!kv || !kv->k->seq)
                continue;
            for (int i = 0; i < kv->k->seq->n; i++) {
                const struct gl_klaunch *l = &kv->k->seq->l[i];
                long long n;
                char msg[200], params[256];
                if (!l->count[0] || gl_expr_value(l->count, &j->p, &n, msg, sizeof msg) != 0 ||
                    (n >= 0 && n <= GL_KSEQ_MAX_REPEAT))
                    continue;   /* fine, or a point the check skips with the reason */
                gl_params_format(&j->p, params, sizeof params);
                snprintf(err, errlen, "%s:%d: launch.%s: repeat count %s = %lld at %s (must be 0 "
                         "to %d)", sw->configs[ci].path, l->line, l->label, l->count, n, params,
                         GL_KSEQ_MAX_REPEAT);
                return -1;
            }
        }
    }
    return 0;
}

/* ---- the sweep's kernels ---------------------------------------------------------------- */

static const char *target_name(int arch)
{
    static char name[16];
    gl_arch_name(arch, name, sizeof name);
    return name;
}

/* Note a target compiled for in sw->targets ("sm_90, sm_90a"). */
static void add_target(struct gl_sweep *sw, int arch)
{
    const char *name = target_name(arch);
    size_t n = strlen(name), have = strlen(sw->targets);
    for (const char *p = sw->targets; (p = strstr(p, name)) != NULL; p += n)
        if ((p == sw->targets || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
            return;
    if (have + n + 3 < sizeof sw->targets)
        snprintf(sw->targets + have, sizeof sw->targets - have, "%s%s", have ? ", " : "", name);
}

int gl_sweep_compile(struct gl_sweep *sw, const struct gl_sweep_watch *watch, char *err,
                     size_t errlen)
{
    const struct gl_device_ops *ops = gl_registry_gpu();
    struct keyset seen = { 0, 0, NULL, NULL }, programs = { 0, 0, NULL, NULL };
    struct pool pl = { NULL, 0, 0 };
    int rc = 0, no_ops = 0, total_kernels = 0;
    if (sw->gpu_ok)
        sw->arch = sw->gpu.cc_major * 10 + sw->gpu.cc_minor;
    else if (sw->arch <= 0)
        sw->arch = 90;
    else
        sw->arch = gl_arch_cc(sw->arch);   /* --arch 90a: the sections' own (sweep.c) */
    sw->targets[0] = '\0';
    int jobs = jobs_allowed(err, errlen);
    if (jobs < 0)
        return 2;
    if (kseq_sweep_counts(sw, err, errlen) != 0)   /* a launch line's count out of range */
        return 2;
    /* the C references, once each (they need no GPU plugin) */
    for (int ci = 0; ci < sw->nconfigs && rc == 0; ci++)
        for (int si = 0; si < sw->configs[ci].nsections && rc == 0; si++) {
            const struct gl_kernel *k = sw->configs[ci].sections[si].kernel;
            char key[2600];
            int v = pl.n;
            if (!k || !k->verify_c_path[0])
                continue;
            snprintf(key, sizeof key, "cref\n%s\n%s", k->verify_c_so, k->verify_c_func);
            int added = keyset_put(&seen, key, &v);
            struct task *t = added > 0 ? new_task(&pl, &sw->configs[ci]) : NULL;
            if (added < 0 || (added > 0 && !t))
                rc = 1;
            else if (t)
                t->cref = k;
        }
    /* the kernel points, one task per program */
    for (int ci = 0; ci < sw->nconfigs && rc == 0 && !no_ops; ci++) {
        struct gl_expansion *e = &sw->exps[ci];
        int searched_done = -1;
        for (int ji = 0; ji < e->njobs && rc == 0; ji++) {
            struct gl_job *j = &e->jobs[ji];
            const struct gl_kernel_variant *kv = gl_kernel_variant_of(j->v);
            char key[4096], prog[4200], pkey[4096];
            /* a point skipped without a GPU only for its shared memory (more than
             * the target allows, or than plan can know) still compiles: a kernel
             * that cannot compile fails plan */
            if (!kv || (j->skip[0] && (sw->gpu_ok || !gl_kernel_skip_is_smem(j->skip))))
                continue;
            if (j->searched) {   /* a search's: its section's first launchable point only */
                if (j->section == searched_done)
                    continue;
                searched_done = j->section;   /* a section's jobs are together */
            }
            if (!ops || !ops->kernel_compile) {
                snprintf(sw->kernels_why, sizeof sw->kernels_why, "%s",
                         !ops ? gl_registry_gpu_why() : "the GPU plugin cannot compile kernels");
                no_ops = 1;   /* nothing added yet: only the C references are built */
                break;
            }
            if (gl_kernel_compile_key(kv, &j->p, key, sizeof key) != 0 ||
                gl_kernel_program_key(kv, &j->p, pkey, sizeof pkey) != 0) {
                snprintf(j->skip, sizeof j->skip, "the kernel's name expression or -D list is "
                         "too long");
                continue;
            }
            /* a program per config: its errors name that config's lines */
            snprintf(prog, sizeof prog, "%d|%s", ci, pkey);
            int v = 0;
            int added = keyset_put(&seen, key, &v);
            if (added == 0)
                continue;
            v = pl.n;
            int newp = added < 0 ? -1 : keyset_put(&programs, prog, &v);
            struct task *t = newp > 0 ? new_task(&pl, &sw->configs[ci]) : newp == 0 ? &pl.t[v]
                                                                                     : NULL;
            if (!t || task_add(t, j) != 0)
                rc = 1;
            else
                total_kernels++;
            add_target(sw, gl_arch_effective(kv->k->arch, sw->arch));
        }
    }
    if (rc != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (pl.n > 0 && run_pool(ops, &pl, sw->arch, jobs < pl.n ? jobs : pl.n, watch,
                             total_kernels, err, errlen) != 0) {
        rc = 1;
        goto out;
    }
    /* the results, in order: the first failure is the one reported */
    for (int ti = 0; ti < pl.n && rc == 0; ti++) {
        struct task *t = &pl.t[ti];
        if (!t->done)
            continue;   /* not started after a failure */
        const char *log = t->log && t->log[0] ? t->log : "(the compiler said nothing)";
        if (t->cref) {
            if (t->res[0] < 0) {
                snprintf(err, errlen, "%s:%d: verify: C reference %s: %s", t->cfg->path,
                         t->cref->verify_line, t->cref->verify_c_path, log);
                rc = 2;
                break;
            }
            if (t->cref->verify_c_compile) {
                sw->ncrefs++;
                sw->ncrefs_cached += t->res[0] == 1;
            }
            continue;
        }
        int compiled = 0;
        for (int i = 0; i < t->n && rc == 0; i++) {
            if (t->res[i] >= 0) {
                sw->nkernels++;
                sw->nkernels_cached += t->res[i] == 1;
                compiled |= t->res[i] == 0;
                continue;
            }
            const struct gl_kernel_variant *kv = gl_kernel_variant_of(t->jobs[i]->v);
            char params[256];
            gl_params_format(&t->jobs[i]->p, params, sizeof params);
            if (t->rc == -3)   /* a symbol: the log is "LINE: message" (kernel_compile_many) */
                snprintf(err, errlen, "%s:%s (variant %s = %s at %s, %s)", t->cfg->path, log,
                         kv->name, kv->expr, params,
                         target_name(gl_arch_effective(kv->k->arch, sw->arch)));
            else if (strncmp(log, GL_KSIG_LOG_MARK, strlen(GL_KSIG_LOG_MARK)) == 0)
                snprintf(err, errlen, "%s:%d: %s (variant %s = %s at %s)", t->cfg->path,
                         kv->k->args_line, log + strlen(GL_KSIG_LOG_MARK), kv->name, kv->expr,
                         params);
            else if (kv->k->arch_line > 0 && (strstr(log, "nsupported gpu architecture") ||
                                              strstr(log, "invalid value for --gpu-arch")))
                snprintf(err, errlen, "%s:%d: arch: this toolkit's compiler cannot make %s "
                         "(variant %s = %s):\n%s", t->cfg->path, kv->k->arch_line,
                         target_name(kv->k->arch), kv->name, kv->expr, log);
            else if (t->rc == -2 && kv->k->options_line > 0)
                snprintf(err, errlen, "%s:%d: options: the compiler refused an option of '%s' "
                         "(variant %s = %s at %s, %s):\n%s", t->cfg->path,
                         kv->k->options_line, kv->k->options_text, kv->name, kv->expr, params,
                         target_name(gl_arch_effective(kv->k->arch, sw->arch)), log);
            else
                snprintf(err, errlen, "%s:%d: source: %s does not compile (variant %s = %s "
                         "at %s, %s):\n%s", t->cfg->path, kv->k->source_line,
                         kv->k->source, kv->name, kv->expr, params,
                         target_name(gl_arch_effective(kv->k->arch, sw->arch)), log);
            rc = 2;
        }
        sw->nprograms += compiled;
    }
out:
    pool_free(&pl);
    keyset_free(&seen);
    keyset_free(&programs);
    return rc;
}

/* ---- a search's next points ------------------------------------------------------------- */

int gl_sweep_compile_ahead(struct gl_sweep *sw, int ci, const int *jobs, int n)
{
    const struct gl_device_ops *ops = gl_registry_gpu();
    struct keyset seen = { 0, 0, NULL, NULL }, programs = { 0, 0, NULL, NULL };
    struct pool pl = { NULL, 0, 0 };
    char err[512];
    int rc = 0, total = 0;
    if (!ops || !ops->kernel_compile || n < 2)
        return 0;   /* one point: its worker compiles it as soon */
    int par = jobs_allowed(err, sizeof err);
    if (par < 2)
        return 0;
    struct gl_expansion *e = &sw->exps[ci];
    for (int i = 0; i < n && rc == 0; i++) {
        struct gl_job *j = &e->jobs[jobs[i]];
        const struct gl_kernel_variant *kv = gl_kernel_variant_of(j->v);
        char key[4096], pkey[4096];
        if (!kv || j->skip[0] || gl_kernel_compile_key(kv, &j->p, key, sizeof key) != 0 ||
            gl_kernel_program_key(kv, &j->p, pkey, sizeof pkey) != 0)
            continue;
        int v = 0;
        int added = keyset_put(&seen, key, &v);
        if (added == 0)
            continue;
        v = pl.n;
        int newp = added < 0 ? -1 : keyset_put(&programs, pkey, &v);
        struct task *t = newp > 0 ? new_task(&pl, &sw->configs[ci]) : newp == 0 ? &pl.t[v] : NULL;
        if (!t || task_add(t, j) != 0)
            rc = -1;
        else
            total++;
    }
    /* a failure is not reported here: the worker meets it again and stores it */
    if (rc == 0 && pl.n > 1 &&
        run_pool(ops, &pl, sw->arch, par < pl.n ? par : pl.n, NULL, total, err, sizeof err) != 0)
        rc = -1;
    pool_free(&pl);
    keyset_free(&seen);
    keyset_free(&programs);
    return rc;
}
