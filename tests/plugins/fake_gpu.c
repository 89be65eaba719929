/* fake_gpu.c - the one test-only stand-in for the GPU plugin, so that what the
 * driver does around GPUs is tested where no GPU exists: several GPUs (`run
 * --gpus`), profiling batches and a lost CUDA context (tests/integration/gpus.sh),
 * the clock lock of `run --clocks base` with tests/fakes/fake_nvml.c, its reset
 * after a crashed worker and on SIGINT/SIGTERM, and memory ceilings stored NULL
 * with their reason (tests/integration/clocks.sh).
 * Loaded in place of build/libgpulab_gpu.so with GPULAB_PLUGIN=path; never
 * built into gpulab. It declares struct gl_device_ops for N fake GPUs and GPU
 * variants of family `fake` that sleep instead of computing:
 *   sleep   sleeps N microseconds (its one sample says N/1000 ms), ok; its
 *           analytic FLOP count is 1000 N, the fake GPUs do 1 GFLOP/s, so the
 *           plan's cost of a run is its sleep
 *   crash   sleeps N microseconds, then "loses the CUDA context" as a trapping
 *           kernel would: the run fails, run returns -1, the runs parked in its
 *           batch get GL_REASON_BATCH_LOST and batch_end returns -1
 *   hang    never returns (the watchdog must end it)
 *   segv    sleeps N microseconds, then SIGSEGV in the worker
 *   bowl    a tuning space with a known optimum, for searches (tests/integration/
 *           search.sh): it reads M, P, BS and K, sleeps 100 microseconds and says
 *           it took 0.1 * (10 + t(M-9) + t(P-4) + t(BS-7) + t(K-3)) ms, t(d) = d*d/4 +
 *           2 (1 - cos(pi d / 2)): the best point M=9 P=4 BS=7 K=3 takes 1 ms, its
 *           neighbours 1.225 ms, and each parameter has local minima 4 away; its
 *           check rejects BS * K > 96 ("too many threads"), and a run whose M + P
 *           is 17 is wrong (a kernel that does not verify); 1e6 FLOPs a run, so
 *           its gflops is 1 / ms
 *   table   replays measured times: GPULAB_FAKE_TABLE names a file of lines
 *           "N M P BS K R ms" (bench/vs_kernel_tuner_search writes one from a real
 *           GPU's exhaustive sweep); a run sleeps 100 microseconds and says it took
 *           its line's ms; a point with no line is rejected by the check ("not
 *           launchable on the replayed GPU"), as the real plugin rejects a block its
 *           registers cannot hold
 * Counters are faked at batch_end (or at once outside a batch): every requested
 * metric gets 1e9 * the GPU's number + N, so a run's counters tell which GPU
 * profiled it; so do the memory ceilings (fake_ceilings).
 * Environment:
 *   GPULAB_FAKE_GPUS=N         fake GPUs in the machine (default 1; 0 = none)
 *   GPULAB_FAKE_MODELS=A,B,..  model name of each GPU (default "gpulab fake GPU")
 *   GPULAB_FAKE_COUNTERS=0     counters unavailable (profiler_setup fails)
 *   GPULAB_FAKE_CEILINGS=0     no memory ceilings ("a fake GPU measures nothing")
 *   GPULAB_FAKE_TABLE=FILE     the `table` variant's measured times (above)
 *   GPULAB_FAKE_LOG=FILE       one line appended per init, run, batch (and "unit" when
 *                              the worker opens one), ceilings and
 *                              collection start (pid, GPU): a collection starts, as the
 *                              real plugin's range profiler object does, at the first
 *                              profile of a metric set other than the last one profiled
 *   GPULAB_FAKE_HOST_US=U      each sleep run also spends U microseconds of host time
 *                              before its kernel, reported as its "inputs" step
 *                              (gl_result.step_ms) and setup phase, as the GPU
 *                              plugin's harness reports its own steps
 *   GPULAB_FAKE_SETUP_MARK=F   profiler_setup appends a line to file F (so that a
 *                              test can tell whether the workers set their profilers
 *                              up while the driver compiles: tests/integration/
 *                              collections.sh)
 *   CUDA_VISIBLE_DEVICES       as CUDA reads it: GPU numbers or UUIDs, comma-separated;
 *                              the first entry that is not a GPU ends the list
 * Must not use anything of gpulab but plugin.h (and gpulab.h through it). */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plugin.h"

#define FAKE_MAX 64
#define FAKE_BATCH 64   /* runs of one profiling batch at most (the worker's GL_BATCH_MAX) */

static int visible[FAKE_MAX];   /* ordinal -> GPU number */
static int nvisible = -1;       /* -1: not read yet */
static int self = -1;           /* the GPU init picked */
static struct gl_metric_req req;
static int counters = -1;       /* passes of the configured request; -1 unavailable */
static int sticky;              /* the "context" is lost */
static int batch_open, nparked;
static struct gl_result *parked[FAKE_BATCH];
static long parked_n[FAKE_BATCH];

static int machine_gpus(void)
{
    const char *e = getenv("GPULAB_FAKE_GPUS");
    int n = e && *e ? atoi(e) : 1;
    return n < 0 ? 0 : n > FAKE_MAX ? FAKE_MAX : n;
}

static void uuid_of(int gpu, char *buf, size_t len)
{
    snprintf(buf, len, "GPU-fa4e0000-0000-4000-8000-%012d", gpu);
}

/* The visible GPUs, as CUDA reads CUDA_VISIBLE_DEVICES. */
static void read_visible(void)
{
    int n = machine_gpus();
    const char *e = getenv("CUDA_VISIBLE_DEVICES");
    nvisible = 0;
    if (!e) {
        for (int i = 0; i < n; i++)
            visible[nvisible++] = i;
        return;
    }
    char list[1024];
    snprintf(list, sizeof list, "%s", e);
    for (char *tok = strtok(list, ","); tok && nvisible < FAKE_MAX; tok = strtok(NULL, ",")) {
        while (*tok == ' ')
            tok++;
        int gpu = -1;
        if (tok[0] >= '0' && tok[0] <= '9') {
            char *end;
            long v = strtol(tok, &end, 10);
            if (*end == '\0' && v < n)
                gpu = (int)v;
        } else {
            for (int i = 0; i < n && gpu < 0; i++) {
                char u[64];
                uuid_of(i, u, sizeof u);
                if (strcmp(u, tok) == 0)
                    gpu = i;
            }
        }
        for (int i = 0; i < nvisible; i++)
            if (visible[i] == gpu)
                gpu = -1;
        if (gpu < 0)
            break;   /* CUDA: the first invalid entry ends the list */
        visible[nvisible++] = gpu;
    }
}

/* Append one line to $GPULAB_FAKE_LOG (O_APPEND: lines of several workers stay whole). */
static void log_line(const char *fmt, const char *what, long n)
{
    const char *path = getenv("GPULAB_FAKE_LOG");
    if (!path || !*path)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char line[512];
    int len = snprintf(line, sizeof line, "%s gpu=%d pid=%ld what=%s n=%ld t=%.6f\n", fmt, self,
                       (long)getpid(), what, n, (double)ts.tv_sec + ts.tv_nsec / 1e9);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0)
        return;
    if (write(fd, line, (size_t)len) != len) {
        /* a test log: a short write shows up as a missing line */
    }
    close(fd);
}

static void model_of(int gpu, char *buf, size_t len)
{
    const char *e = getenv("GPULAB_FAKE_MODELS");
    snprintf(buf, len, "gpulab fake GPU");
    if (!e || !*e)
        return;
    char list[1024];
    snprintf(list, sizeof list, "%s", e);
    int i = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","), i++)
        if (i == gpu)
            snprintf(buf, len, "%s", tok);
}

static int fake_count(char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    read_visible();
    return nvisible;
}

static int fake_init(int ordinal, struct gl_device *dev, char *err, size_t errlen)
{
    memset(dev, 0, sizeof *dev);
    read_visible();
    if (nvisible == 0) {
        snprintf(err, errlen, "no CUDA device");
        return -1;
    }
    if (ordinal < 0 || ordinal >= nvisible) {
        snprintf(err, errlen, "no CUDA device %d (%d found)", ordinal, nvisible);
        return -1;
    }
    self = visible[ordinal];
    snprintf(dev->kind, sizeof dev->kind, "gpu");
    model_of(self, dev->name, sizeof dev->name);
    uuid_of(self, dev->ident, sizeof dev->ident);
    dev->cc_major = 9;
    dev->cc_minor = 0;
    dev->sm_count = 4;
    dev->cores_per_sm = 128;
    dev->clock_khz = 1000000;
    dev->mem_bytes = 1LL << 30;
    dev->l2_bytes = 1 << 20;
    dev->smem_per_block = dev->smem_per_block_optin = dev->smem_per_sm = 48 * 1024;
    dev->regs_per_block = dev->regs_per_sm = 65536;
    dev->warp_size = 32;
    dev->max_threads_per_block = 1024;
    dev->max_threads_per_sm = 2048;
    dev->max_blocks_per_sm = 32;
    for (int i = 0; i < 3; i++) {
        dev->max_block[i] = 1024;
        dev->max_grid[i] = 65535;
    }
    dev->theo_bw_gbs = 1000.0;
    dev->fp32_peak_gflops = 1.0;   /* the sleep variant's FLOP count is 1000 per microsecond */
    log_line("init", getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "-",
             ordinal);
    return 0;
}

static int fake_profiler_setup(const struct gl_metric_req *r, char *err, size_t errlen)
{
    const char *mark = getenv("GPULAB_FAKE_SETUP_MARK");
    if (mark && *mark) {
        int fd = open(mark, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            char line[32];
            int len = snprintf(line, sizeof line, "%ld\n", (long)getpid());
            ssize_t wr = write(fd, line, (size_t)len);   /* short: the test waits, fails */
            (void)wr;
            close(fd);
        }
    }
    const char *e = getenv("GPULAB_FAKE_COUNTERS");
    if (e && strcmp(e, "0") == 0) {
        snprintf(err, errlen, "counters unavailable on the fake GPU (GPULAB_FAKE_COUNTERS=0)");
        counters = -1;
        return -1;
    }
    /* as the real plugin (cupti/profiler_setup.c): a set configured before in
     * this worker is taken from its cache, and a collection starts (the range
     * profiler object) only at the first batch that profiles a set other than
     * the last one profiled: logged there as "collection" */
    req = *r;
    counters = r->n > 0 ? 1 : 0;
    return counters;
}

static struct gl_metric_req collected;   /* the set the last collection started for */
static int collecting;

/* 1 when a and b are the same request. */
static int same_req(const struct gl_metric_req *a, const struct gl_metric_req *b)
{
    if (a->n != b->n || a->drain != b->drain)
        return 0;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->names[i], b->names[i]) != 0)
            return 0;
    return 1;
}

/* Before a profile: a collection for the configured set, started (and logged
 * with the set's first metric and size) when it is not the current one. */
static void collection_for_req(void)
{
    if (collecting && same_req(&collected, &req))
        return;
    collected = req;
    collecting = 1;
    log_line("collection", req.n > 0 ? req.names[0] : "-", req.n);
}

/* The fake counters of a run of size n on this GPU. */
static void fill_counters(struct gl_result *r, long n)
{
    r->nmetrics = 0;
    for (int i = 0; i < req.n && i < GL_MAX_METRICS; i++) {
        struct gl_metric *m = &r->metrics[r->nmetrics++];
        snprintf(m->name, sizeof m->name, "%s", req.names[i]);
        m->unit[0] = '\0';
        m->value = 1e9 * self + (double)n;
    }
    r->passes = 1;
    r->metrics_reason[0] = '\0';
}

static void fake_batch_begin(void)
{
    batch_open = 1;
    nparked = 0;
    log_line("unit", "begin", 0);   /* a batch handed to the worker (tests/integration/batches.sh) */
}

static int fake_batch_end(void)
{
    if (nparked > 0 && !sticky)
        collection_for_req();
    for (int i = 0; i < nparked; i++) {
        if (sticky) {
            parked[i]->nmetrics = 0;
            parked[i]->passes = 0;
            snprintf(parked[i]->metrics_reason, sizeof parked[i]->metrics_reason, "%s",
                     GL_REASON_BATCH_LOST);
        } else {
            fill_counters(parked[i], parked_n[i]);
        }
    }
    if (nparked > 0)
        log_line("batch", sticky ? "lost" : "profiled", nparked);
    batch_open = 0;
    nparked = 0;
    return sticky ? -1 : 0;
}

static int fake_list(void (*cb)(const char *name, void *ctx), void *ctx, char *err,
                     size_t errlen)
{
    (void)err;
    (void)errlen;
    cb("gpu__time_duration.sum", ctx);
    cb("dram__bytes_read.sum", ctx);
    return 0;
}

static void fake_shutdown(void)
{
}

static double fake_copy_bandwidth(void)
{
    return 1000.0;
}

/* The memory ceilings, "measured" by this GPU's worker: each one encodes the
 * GPU's number (L1 1000 + n GB/s, shared memory 2000 + n, L2 500 + n, host link
 * 50 + n, pinned copy 60 + n, at 1000 MHz), so that a test sees which worker
 * measured the ceilings a device row holds; logged as "ceilings". */
static int fake_ceilings(struct gl_ceilings *c)
{
    memset(c, 0, sizeof *c);
    const char *e = getenv("GPULAB_FAKE_CEILINGS");
    if (e && strcmp(e, "0") == 0) {
        snprintf(c->why, sizeof c->why, "a fake GPU measures nothing");
        return 1;
    }
    c->l1_gbs = 1000.0 + self;
    c->smem_gbs = 2000.0 + self;
    c->l2_gbs = 500.0 + self;
    c->hostlink_gbs = 50.0 + self;
    c->h2d_gbs = 60.0 + self;
    c->clock_mhz = 1000.0;
    log_line("ceilings", "measured", 0);
    return 0;
}

/* named fields: a positional list would put a function in another's place when
 * plugin.h adds one */
static const struct gl_device_ops ops = {
    .init = fake_init,
    .profiler_setup = fake_profiler_setup,
    .batch_begin = fake_batch_begin,
    .batch_end = fake_batch_end,
    .list_metrics = fake_list,
    .shutdown = fake_shutdown,
    .copy_bandwidth = fake_copy_bandwidth,
    .count = fake_count,
    .ceilings = fake_ceilings,
};

static const char *fake_check(const struct gl_variant *v, const struct gl_params *p,
                              const struct gl_device *dev, char *buf, size_t len)
{
    (void)v;
    (void)dev;
    if (p->n < 0 || p->n > 100000000L) {
        snprintf(buf, len, "N must be 0 to 1e8 microseconds (N=%ld)", p->n);
        return buf;
    }
    return NULL;
}

static double fake_flops(const struct gl_variant *v, const struct gl_params *p)
{
    (void)v;
    return 1000.0 * (double)p->n;
}

static int fake_run(const struct gl_variant *v, const struct gl_params *p,
                    const struct gl_timing *t, struct gl_result *r)
{
    int crash = strcmp(v->name, "crash") == 0;
    struct timespec ts = { p->n / 1000000, (p->n % 1000000) * 1000 };
    log_line("run", v->name, p->n);
    const char *hu = getenv("GPULAB_FAKE_HOST_US");
    long host_us = hu ? atol(hu) : 0;
    if (host_us > 0) {   /* host work, timed as the harness times its steps */
        struct timespec h = { host_us / 1000000, (host_us % 1000000) * 1000 }, a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        nanosleep(&h, NULL);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
        r->step_ms[GL_ST_INPUTS] += ms;
        r->phase_ms[GL_PH_SETUP] += ms;
    }
    nanosleep(&ts, NULL);
    r->phase_ms[GL_PH_SAMPLES] += (double)p->n / 1000.0;   /* its "kernel" */
    while (strcmp(v->name, "hang") == 0)
        pause();
    if (strcmp(v->name, "segv") == 0) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
    if (sticky || crash) {
        sticky = 1;
        r->status = GL_FAILED;
        snprintf(r->reason, sizeof r->reason,
                 "fake: an illegal memory access was encountered (the CUDA context is lost)");
        return -1;
    }
    int ns = t->min_samples > 0 ? t->min_samples : 1;
    if (t->max_samples > 0 && ns > t->max_samples)
        ns = t->max_samples;
    if (ns > GL_MAX_SAMPLES)
        ns = GL_MAX_SAMPLES;
    r->status = GL_OK;
    r->nsamples = ns;
    for (int i = 0; i < ns; i++)
        r->samples_ms[i] = (double)p->n / 1000.0;
    r->max_rel_err = 0.0;
    snprintf(r->check, sizeof r->check, "%s", GL_CHECK_FULL);
    r->check_points = 1;
    r->launches = 1;
    r->busy_ms = (double)p->n / 1000.0;
    if (counters > 0 && batch_open && nparked < FAKE_BATCH) {
        parked_n[nparked] = p->n;
        parked[nparked++] = r;   /* the worker keeps r valid until batch_end */
    } else if (counters > 0) {
        collection_for_req();
        fill_counters(r, p->n);
    }
    return 0;
}

/* r: ok, verified in full, one sample of ms (the bowl's and the table's runs). */
static void one_sample(struct gl_result *r, double ms)
{
    r->status = GL_OK;
    r->nsamples = 1;
    r->samples_ms[0] = ms;
    r->max_rel_err = 0.0;
    snprintf(r->check, sizeof r->check, "%s", GL_CHECK_FULL);
    r->check_points = 1;
    r->launches = 1;
    r->busy_ms = ms;
}

/* The bowl's cost of one axis, d away from its best value. */
static double bowl_axis(long d)
{
    return (double)(d * d) / 4.0 + 2.0 * (1.0 - cos(3.14159265358979323846 * (double)d / 2.0));
}

static double bowl_ms(const struct gl_params *p)
{
    return 0.1 * (10.0 + bowl_axis(p->m - 9) + bowl_axis(p->p - 4) + bowl_axis(p->bs - 7) +
                  bowl_axis(p->k - 3));
}

static const char *bowl_check(const struct gl_variant *v, const struct gl_params *p,
                              const struct gl_device *dev, char *buf, size_t len)
{
    (void)v;
    (void)dev;
    if (p->bs * p->k > 96) {
        snprintf(buf, len, "block of %ld threads (BS*K) exceeds the fake limit of 96",
                 p->bs * p->k);
        return buf;
    }
    return NULL;
}

static double bowl_flops(const struct gl_variant *v, const struct gl_params *p)
{
    (void)v;
    (void)p;
    return 1e6;   /* gflops = 1 / ms: maximising it is minimising the time */
}

static int bowl_run(const struct gl_variant *v, const struct gl_params *p,
                    const struct gl_timing *t, struct gl_result *r)
{
    struct timespec ts = { 0, 100000 };
    (void)v;
    (void)t;
    log_line("run", "bowl", p->m * 1000000 + p->p * 10000 + p->bs * 100 + p->k);
    nanosleep(&ts, NULL);
    if (p->m + p->p == 17) {
        r->status = GL_WRONG;
        r->max_rel_err = 1.0;
        snprintf(r->reason, sizeof r->reason, "fake: the bowl does not verify where M + P = 17");
        snprintf(r->check, sizeof r->check, "%s", GL_CHECK_FULL);
        return 0;
    }
    one_sample(r, bowl_ms(p));
    if (counters > 0 && batch_open && nparked < FAKE_BATCH) {
        parked_n[nparked] = 0;
        parked[nparked++] = r;
    } else if (counters > 0) {
        fill_counters(r, 0);
    }
    return 0;
}

/* The `table` variant: measured times replayed from GPULAB_FAKE_TABLE. */
struct table_row {
    long key[6];   /* N M P BS K R */
    double ms;
};
static struct table_row *table;
static long ntable = -1;   /* -1: not read yet */

static void table_key(const struct gl_params *p, long key[6])
{
    key[0] = p->n;
    key[1] = p->m;
    key[2] = p->p;
    key[3] = p->bs;
    key[4] = p->k;
    key[5] = p->r;
}

static int table_cmp(const void *a, const void *b)
{
    const struct table_row *x = a, *y = b;
    for (int i = 0; i < 6; i++)
        if (x->key[i] != y->key[i])
            return x->key[i] < y->key[i] ? -1 : 1;
    return 0;
}

/* Reads the table once; 0, or -1 with buf saying why. */
static int table_read(char *buf, size_t len)
{
    const char *path = getenv("GPULAB_FAKE_TABLE");
    if (ntable >= 0)
        return 0;
    if (!path || !*path) {
        snprintf(buf, len, "fake table: GPULAB_FAKE_TABLE is not set");
        return -1;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(buf, len, "fake table: cannot open %s", path);
        return -1;
    }
    long cap = 0, n = 0;
    struct table_row row;
    while (fscanf(f, "%ld %ld %ld %ld %ld %ld %lf", &row.key[0], &row.key[1], &row.key[2],
                  &row.key[3], &row.key[4], &row.key[5], &row.ms) == 7) {
        if (n == cap) {
            cap = cap ? 2 * cap : 1024;
            struct table_row *t = realloc(table, (size_t)cap * sizeof *t);
            if (!t) {
                fclose(f);
                snprintf(buf, len, "fake table: out of memory");
                return -1;
            }
            table = t;
        }
        table[n++] = row;
    }
    fclose(f);
    qsort(table, (size_t)n, sizeof *table, table_cmp);
    ntable = n;
    return 0;
}

/* The measured time of p, or a negative number where the table has no line. */
static double table_ms(const struct gl_params *p)
{
    struct table_row want, *hit;
    table_key(p, want.key);
    if (ntable <= 0)
        return -1.0;
    hit = bsearch(&want, table, (size_t)ntable, sizeof *table, table_cmp);
    return hit ? hit->ms : -1.0;
}

static const char *table_check(const struct gl_variant *v, const struct gl_params *p,
                               const struct gl_device *dev, char *buf, size_t len)
{
    (void)v;
    (void)dev;
    if (table_read(buf, len) != 0)
        return buf;
    if (table_ms(p) < 0.0) {
        snprintf(buf, len, "not launchable on the replayed GPU (no line in the table)");
        return buf;
    }
    return NULL;
}

static int table_run(const struct gl_variant *v, const struct gl_params *p,
                     const struct gl_timing *t, struct gl_result *r)
{
    struct timespec ts = { 0, 100000 };
    char why[128];
    (void)v;
    (void)t;
    nanosleep(&ts, NULL);
    if (table_read(why, sizeof why) != 0 || table_ms(p) < 0.0) {
        r->status = GL_FAILED;
        snprintf(r->reason, sizeof r->reason, "%s",
                 ntable < 0 ? why : "fake table: the point has no line in the table");
        return 0;
    }
    one_sample(r, table_ms(p));
    return 0;
}

#define PB (GL_PBIT(GL_P_N) | GL_PBIT(GL_P_SEED))
#define PBOWL (GL_PBIT(GL_P_M) | GL_PBIT(GL_P_P) | GL_PBIT(GL_P_BS) | GL_PBIT(GL_P_K))
#define PTABLE (PBOWL | GL_PBIT(GL_P_N) | GL_PBIT(GL_P_R))
static const struct gl_variant variants[] = {
    { "fake", "sleep", "gpu", "sleeps N us on a fake GPU (tests only)", PB, fake_check,
      fake_flops, NULL, fake_run, NULL },
    { "fake", "crash", "gpu", "sleeps N us, then loses the fake CUDA context (tests only)", PB,
      fake_check, fake_flops, NULL, fake_run, NULL },
    { "fake", "hang", "gpu", "never returns (tests only)", PB, fake_check, fake_flops, NULL,
      fake_run, NULL },
    { "fake", "segv", "gpu", "sleeps N us, then SIGSEGV in the worker (tests only)", PB,
      fake_check, fake_flops, NULL, fake_run, NULL },
    { "fake", "bowl", "gpu", "a tuning space with a known optimum: M=9 P=4 BS=7 K=3 (tests only)",
      PBOWL, bowl_check, bowl_flops, NULL, bowl_run, NULL },
    { "fake", "table", "gpu", "replays measured times from GPULAB_FAKE_TABLE (benchmarks only)",
      PTABLE, table_check, bowl_flops, NULL, table_run, NULL },
};

static const struct gl_plugin plugin = { GL_PLUGIN_API, "fakegpu", (int)(sizeof variants / sizeof variants[0]), variants, &ops, NULL };

const struct gl_plugin *gpulab_plugin(const struct gl_host *h)
{
    (void)h;
    return &plugin;
}
