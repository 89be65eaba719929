/* test_plugin.c - the GPU plugin end to end on a real device: dlopen
 * build/libgpulab_gpu.so, take its table from gpulab_plugin(), describe device 0,
 * run every GPU variant at small sizes through its row and check status, error
 * against the float64 reference, samples, resources and launch counts; check
 * that impossible parameters give a skipped/failed result instead of a crash,
 * and that the variant's check (with the device, and with none) rejects every
 * point its run skips and accepts every point it runs; profile a few runs when
 * counters are available. Needs a GPU (make test-gpu).
 * Must not call CUDA itself: everything goes through the plugin's table. */
#include "t.h"
#include "params.h"
#include "plugin.h"
#include "util.h"

#include <dlfcn.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct gl_plugin *plugin;
static const struct gl_device_ops *ops;
static struct gl_device gpu;   /* device 0, as init described it */
static struct gl_timing tm = { 1, 3, 5, 0.5, 1.0, 60.0 };
static struct gl_result res;   /* large: not on the stack */

static const struct gl_plugin *load(void)
{
    char dir[1024], path[1200];
    const char *env = getenv("GPULAB_PLUGIN");
    if (env && env[0]) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        gl_exe_dir(dir, sizeof dir);   /* build/tests/gpu */
        snprintf(path, sizeof path, "%s/../../libgpulab_gpu.so", dir);
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("dlopen %s: %s\n", path, dlerror());
        return NULL;
    }
    gl_plugin_fn fn;
    *(void **)&fn = dlsym(h, GL_PLUGIN_SYMBOL);
    return fn ? fn(NULL) : NULL;
}

/* The plugin's row of family/name, or NULL. */
static const struct gl_variant *find(const char *fam, const char *var)
{
    for (int i = 0; i < plugin->nvariants; i++)
        if (strcmp(plugin->variants[i].family, fam) == 0 &&
            strcmp(plugin->variants[i].name, var) == 0)
            return &plugin->variants[i];
    return NULL;
}

/* Run family/var through its row (as the worker does); -2 when there is no such row. */
static int run(const char *fam, const char *var, const struct gl_params *p,
               const struct gl_timing *t, struct gl_result *r)
{
    const struct gl_variant *v = find(fam, var);
    if (!CHECK(v != NULL)) {
        printf("no variant %s/%s\n", fam, var);
        return -2;
    }
    return v->run(v, p, t, r);
}

/* The variant's plan-time check of p on dev (NULL: any GPU): NULL = accepted. */
static const char *check(const char *fam, const char *var, const struct gl_params *p,
                         const struct gl_device *dev, char *buf, size_t len)
{
    const struct gl_variant *v = find(fam, var);
    return v && v->check ? v->check(v, p, dev, buf, len) : NULL;
}

static void params(struct gl_params *p, long n, long bs, long k, const char *grid, const char *mem)
{
    gl_params_init(p);
    p->n = n;
    p->bs = bs;
    p->k = k;
    p->seed = 42;
    snprintf(p->grid, sizeof p->grid, "%s", grid ? grid : "");
    snprintf(p->mem, sizeof p->mem, "%s", mem ? mem : "");
    snprintf(p->cache, sizeof p->cache, "cold");
}

static int min4(int a, int b, int c, int d)
{
    int m = a < b ? a : b;
    m = m < c ? m : c;
    return m < d ? m : d;
}

/* Run one variant expected to succeed; check what every ok GPU run must hold. */
static void ok_run(const char *fam, const char *var, const struct gl_params *p, long tol_len,
                   int launches, int has_kernel)
{
    char label[256];
    gl_params_format(p, label, sizeof label);
    char why[GL_REASON_MAX];
    const char *c = check(fam, var, p, &gpu, why, sizeof why);
    int rc = run(fam, var, p, &tm, &res);
    const struct gl_result *r = &res;
    double tol = (double)tol_len * FLT_EPSILON + 1e-6;
    double best = r->nsamples > 0 ? r->samples_ms[0] : -1.0;
    for (int i = 1; i < r->nsamples; i++)
        best = r->samples_ms[i] < best ? r->samples_ms[i] : best;
    printf("%-7s %-10s %-44s status %d err %.2e samples %d min %.4f ms launches %d regs %d occ %.0f%% "
           "%s%s%s\n", fam, var, label, r->status, r->max_rel_err, r->nsamples, best, r->launches,
           r->regs_per_thread, r->theo_occupancy, r->limiter, r->reason[0] ? " -- " : "",
           r->reason);
    if (!CHECK(c == NULL))   /* plan and run agree: a point that runs passes the check */
        printf("  check: %s\n", c);
    if (!CHECK(rc == 0) || !CHECK(r->status == GL_OK))
        return;
    CHECK(r->max_rel_err >= 0.0 && r->max_rel_err <= tol);
    CHECK(r->nsamples > 0 && r->nsamples <= tm.max_samples);
    for (int i = 0; i < r->nsamples; i++)
        if (!CHECK(r->samples_ms[i] > 0.0))
            break;
    CHECK(r->launches == launches);
    if (strcmp(p->mem, "zerocopy") == 0)
        CHECK(r->h2d_ms == 0.0 && r->d2h_ms == 0.0);
    else
        CHECK(r->h2d_ms > 0.0 && r->d2h_ms > 0.0);
    if (!has_kernel)
        return;
    CHECK(r->regs_per_thread > 0);
    CHECK(r->block[0] > 0 && r->grid[0] > 0);
    CHECK(r->blocks_per_sm > 0);
    /* our per-resource limits must agree with the runtime's occupancy answer */
    CHECK(r->blocks_per_sm == min4(r->limit_regs, r->limit_smem, r->limit_warps, r->limit_blocks));
    CHECK(r->theo_occupancy > 0.0 && r->theo_occupancy <= 100.0);
    CHECK(r->limiter[0] != '\0');
}

/* Run one variant with impossible parameters: must come back skipped/failed,
 * and a skipped point must be one the variant's check rejects, on this device
 * and on none. */
static void bad_run(const char *fam, const char *var, const struct gl_params *p, const char *what)
{
    char why[GL_REASON_MAX], why0[GL_REASON_MAX];
    int rc = run(fam, var, p, &tm, &res);
    printf("bad     %-10s %-30s status %d: %s\n", var, what, res.status, res.reason);
    CHECK(rc == 0);
    CHECK(res.status == GL_SKIPPED || res.status == GL_FAILED);
    CHECK(res.reason[0] != '\0');
    CHECK(res.nsamples == 0);
    if (res.status == GL_SKIPPED) {
        CHECK(check(fam, var, p, &gpu, why, sizeof why) != NULL);
        CHECK(check(fam, var, p, NULL, why0, sizeof why0) != NULL);
    }
}

static void test_matmul(void)
{
    struct gl_params p;
    static const char *const grids[] = { "2d", "1d", "block" };
    static const char *const vars[] = { "global", "shared" };
    const long n = 128;
    for (int v = 0; v < 2; v++)
        for (long bs = 8; bs <= 32; bs *= 2)
            for (long k = 1; k <= 2; k++)
                for (int g = 0; g < 3; g++) {
                    params(&p, n, bs, k, grids[g], "device");
                    if (k * bs * bs > 1024) {
                        bad_run("matmul", vars[v], &p, "BS=32 K=2: 2048 threads");
                        continue;
                    }
                    int tiles = (int)(n / (k * bs));
                    int launches = g == 0 ? 1 : g == 1 ? tiles : tiles * tiles;
                    ok_run("matmul", vars[v], &p, n, launches, 1);
                }
    static const char *const mems[] = { "zerocopy", "managed" };
    for (int v = 0; v < 2; v++)
        for (int m = 0; m < 2; m++)
            for (long k = 1; k <= 2; k++)
                for (int g = 0; g < 2; g++) {
                    params(&p, n, 16, k, grids[g], mems[m]);
                    ok_run("matmul", vars[v], &p, n, g == 0 ? 1 : (int)(n / (16 * k)), 1);
                }
    /* warm cache: no flush between samples */
    params(&p, n, 16, 1, "2d", "device");
    snprintf(p.cache, sizeof p.cache, "warm");
    ok_run("matmul", "shared", &p, n, 1, 1);

    /* non-square, sizes that are no tile multiples */
    params(&p, 70, 16, GL_UNSET, NULL, NULL);
    p.m = 100;
    p.p = 90;
    ok_run("matmul", "naive_rect", &p, 90, 1, 1);
    ok_run("matmul", "tiled_rect", &p, 90, 1, 1);
    p.bs = GL_UNSET;
    ok_run("matmul", "cublas", &p, 90, 1, 0);
    params(&p, n, GL_UNSET, GL_UNSET, NULL, NULL);
    ok_run("matmul", "cublas", &p, n, 1, 0);

    params(&p, n, 64, 1, "2d", "device");
    bad_run("matmul", "global", &p, "BS=64: 4096 threads");
    bad_run("matmul", "shared", &p, "BS=64: 4096 threads");
    params(&p, 130, 16, 1, "2d", "device");
    bad_run("matmul", "global", &p, "N not a multiple of K*BS");
    params(&p, n, 16, 5, "2d", "device");
    bad_run("matmul", "global", &p, "K=5");
    params(&p, n, 16, 1, "2d", "bogus");
    bad_run("matmul", "shared", &p, "mem=bogus");
    params(&p, 70, 64, GL_UNSET, NULL, NULL);
    p.m = 100;
    p.p = 90;
    bad_run("matmul", "naive_rect", &p, "BS=64: 4096 threads");
    /* shared is built for some BS only: the check says so before the run */
    char why[GL_REASON_MAX];
    params(&p, 768, 12, 1, "2d", "device");
    bad_run("matmul", "shared", &p, "BS=12: not built");
    const char *c = check("matmul", "shared", &p, NULL, why, sizeof why);
    CHECK(c != NULL && strstr(c, "built for BS in") != NULL);
    params(&p, 768, 16, 1, "2d", "device");
    CHECK(check("matmul", "shared", &p, NULL, why, sizeof why) == NULL);
    /* an unknown variant is not in the table: nothing to run */
    CHECK(find("matmul", "nosuch") == NULL);
}

static void test_stencil(void)
{
    struct gl_params p;
    static const char *const vars[] = { "global", "shared" };
    for (int v = 0; v < 2; v++)
        for (long k = 1; k <= 4; k += 3) {
            params(&p, 130, 16, k, NULL, "device");
            p.r = 2;
            ok_run("stencil", vars[v], &p, 25, 1, 1);
        }
    params(&p, 130, 16, 4, NULL, "managed");
    p.r = 2;
    ok_run("stencil", "shared", &p, 25, 1, 1);
    params(&p, 130, 16, 1, NULL, "zerocopy");
    p.r = 2;
    ok_run("stencil", "global", &p, 25, 1, 1);
    params(&p, 130, 64, 1, NULL, "device");
    p.r = 2;
    bad_run("stencil", "shared", &p, "BS=64: 4096 threads");
    params(&p, 130, 16, 1, NULL, "device");
    p.r = 65;
    bad_run("stencil", "global", &p, "N <= 2R");
}

static void test_vecadd(void)
{
    struct gl_params p;
    params(&p, 1L << 20, 256, GL_UNSET, NULL, "device");
    ok_run("vecadd", "global", &p, 1, 1, 1);
    CHECK(res.grid[0] == (1 << 20) / 256);
    p.g = 0;
    ok_run("vecadd", "gridstride", &p, 1, 1, 1);
    p.g = 100;
    ok_run("vecadd", "gridstride", &p, 1, 1, 1);
    CHECK(res.grid[0] == 100);
    CHECK((res.guide_flags & GL_GUIDE_FEW_BLOCKS) != 0);
    params(&p, 1L << 20, 96, GL_UNSET, NULL, "managed");
    ok_run("vecadd", "global", &p, 1, 1, 1);
    CHECK((res.guide_flags & GL_GUIDE_OUTSIDE_REC) != 0);
    params(&p, 1L << 20, 2048, GL_UNSET, NULL, "device");
    bad_run("vecadd", "global", &p, "BS=2048");
}

/* Warm-up is cut once verification and warm-up have lasted time_cap: a
 * 1024-launch run asked for 100000 warm-ups under a 50 ms cap executes far
 * fewer, still verified and timed. Each warm-up lasts at least one run's kernel
 * time (it waits for its end event), so warm-up time / the fastest sample
 * bounds how many ran: below 100000 unless every one ran (a count, not the
 * machine's speed). */
static void test_warmup_cut(void)
{
    struct gl_params p;
    struct gl_timing t = tm;
    struct timespec a, b;
    params(&p, 512, 16, 1, "block", "device");
    t.warmup = 100000;
    t.max_seconds = 0.05;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int rc = run("matmul", "global", &p, &t, &res);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    printf("warm-up cut: 100000 warm-ups asked, time_cap 0.05 s: %.2f s, %d samples, status %d\n",
           s, res.nsamples, res.status);
    CHECK(rc == 0 && res.status == GL_OK);
    CHECK(res.nsamples >= 1);
    double fastest = 0.0;
    for (int i = 0; i < res.nsamples; i++)
        if (i == 0 || res.samples_ms[i] < fastest)
            fastest = res.samples_ms[i];
    double ran = fastest > 0.0 ? res.phase_ms[GL_PH_WARMUP] / fastest : 1e30;
    printf("warm-up cut: at most %.0f of the 100000 warm-ups ran\n", ran);
    CHECK(ran < 100000.0);
}

/* Counters through the CUPTI engine: a few runs with two metrics. */
static void test_profiled(void)
{
    static struct gl_metric_req req;
    char err[1024] = "";
    memset(&req, 0, sizeof req);
    req.n = 2;
    snprintf(req.names[0], sizeof req.names[0], "gpu__time_duration.sum");
    snprintf(req.names[1], sizeof req.names[1], "dram__bytes_read.sum");
    int passes = ops->profiler_setup(&req, err, sizeof err);
    printf("profiler_setup: %d %s\n", passes, err);
    if (!CHECK(passes >= 1))
        return;
    struct gl_params p;
    params(&p, 1L << 20, 256, GL_UNSET, NULL, "device");
    ok_run("vecadd", "global", &p, 1, 1, 1);
    CHECK(res.passes == passes && res.nmetrics >= 2);
    for (int i = 0; i < res.nmetrics; i++)
        printf("  %s = %g %s\n", res.metrics[i].name, res.metrics[i].value, res.metrics[i].unit);
    params(&p, 128, 16, 1, "block", "device");
    ok_run("matmul", "global", &p, 128, 64, 1);
    /* many launches: one user range, where the duration has a pass of its own */
    CHECK(res.passes >= passes && res.nmetrics >= 2);
    for (int i = 0; i < res.nmetrics; i++)
        if (strcmp(res.metrics[i].name, "dram__bytes_read.sum") == 0)
            CHECK(res.metrics[i].value > 0.0);
    req.n = 0;
    CHECK(ops->profiler_setup(&req, err, sizeof err) == 0);
}

static double metric(const struct gl_result *r, const char *name)
{
    for (int i = 0; i < r->nmetrics; i++)
        if (strcmp(r->metrics[i].name, name) == 0)
            return r->metrics[i].value;
    return -1.0;
}

/* A profiling batch: runs of one kernel (auto ranges) and of many launches (a
 * user range) parked between batch_begin and batch_end, profiled together, each
 * with its own metrics - the same as when profiled alone. */
static void test_batch(void)
{
    static struct gl_metric_req req;
    enum { NB = 6 };
    static struct gl_result br[NB];
    static struct gl_params bp[NB];
    static const char *const fam[NB] = { "vecadd", "matmul", "stencil", "matmul", "stencil", "stencil" };
    static const char *const var[NB] = { "global", "global", "shared", "shared", "shared", "shared" };
    char err[1024] = "";
    memset(&req, 0, sizeof req);
    req.n = 3;
    snprintf(req.names[0], sizeof req.names[0], "gpu__time_duration.sum");
    snprintf(req.names[1], sizeof req.names[1], "dram__bytes_read.sum");
    snprintf(req.names[2], sizeof req.names[2], "l1tex__t_sector_hit_rate.pct");
    req.drain = 1;
    int passes = ops->profiler_setup(&req, err, sizeof err);
    printf("profiler_setup (batch): %d %s\n", passes, err);
    if (!CHECK(passes >= 1))
        return;
    params(&bp[0], 1L << 22, 256, GL_UNSET, NULL, "device");
    params(&bp[1], 256, 16, 1, "2d", "device");
    params(&bp[2], 1000, 16, 1, NULL, "device");
    bp[2].r = 2;
    params(&bp[3], 128, 16, 1, "1d", "managed");
    /* one kernel, two opt-in shared memory sizes (74304 then 55872 bytes, both
     * over 48 KiB): the second run's attribute must not shrink the first's
     * before the first is replayed */
    params(&bp[4], 1000, 32, 16, NULL, "device");
    bp[4].r = 2;
    params(&bp[5], 1000, 32, 12, NULL, "device");
    bp[5].r = 2;
    ops->batch_begin();
    for (int i = 0; i < NB; i++)
        CHECK(run(fam[i], var[i], &bp[i], &tm, &br[i]) == 0);
    for (int i = 0; i < NB; i++)   /* parked: timed and verified, not yet profiled */
        CHECK(br[i].status == GL_OK && br[i].nsamples > 0 && br[i].nmetrics == 0);
    CHECK(ops->batch_end() == 0);
    for (int i = 0; i < NB; i++) {
        printf("batch %s/%s: passes %d, %d metrics%s%s\n", fam[i], var[i], br[i].passes,
               br[i].nmetrics, br[i].metrics_reason[0] ? ": " : "", br[i].metrics_reason);
        CHECK(br[i].passes >= passes && br[i].nmetrics == 4);
        CHECK(metric(&br[i], "gpu__time_duration.sum") > 0.0);
        CHECK(metric(&br[i], "gpulab__dram__bytes_write_drain.sum") >= 0.0);
    }
    /* 3 x 16 MiB in and out of a 4M-float vecadd: read from DRAM, batched or not */
    double batched = metric(&br[0], "dram__bytes_read.sum");
    CHECK(run(fam[0], var[0], &bp[0], &tm, &res) == 0);
    double alone = metric(&res, "dram__bytes_read.sum");
    printf("vecadd dram read: batched %.0f, alone %.0f\n", batched, alone);
    CHECK(batched > 0.9 * 2 * 16777216.0 && alone > 0.9 * 2 * 16777216.0);
    CHECK(batched < 1.02 * alone && alone < 1.02 * batched);

    /* a user-range session of one run, then one of five on the same object:
     * every run of the larger session must have its ranges */
    params(&bp[0], 128, 16, 1, "1d", "device");
    CHECK(run("matmul", "global", &bp[0], &tm, &res) == 0);
    CHECK(res.status == GL_OK && res.nmetrics == 4);
    static const char *const grow_grid[5] = { "1d", "block", "1d", "block", "1d" };
    ops->batch_begin();
    for (int i = 0; i < 5; i++) {
        params(&bp[i], 64 + 32 * i, 16, 1, grow_grid[i], "device");
        CHECK(run("matmul", i % 2 ? "shared" : "global", &bp[i], &tm, &br[i]) == 0);
    }
    CHECK(ops->batch_end() == 0);
    for (int i = 0; i < 5; i++) {
        printf("growing session run %d: passes %d, %d metrics%s%s\n", i, br[i].passes,
               br[i].nmetrics, br[i].metrics_reason[0] ? ": " : "", br[i].metrics_reason);
        CHECK(br[i].status == GL_OK && br[i].nmetrics == 4 && br[i].metrics_reason[0] == '\0');
    }
    req.n = 0;
    req.drain = 0;
    CHECK(ops->profiler_setup(&req, err, sizeof err) == 0);
}

static void on_metric(const char *name, void *ctx)
{
    (void)name;
    (*(int *)ctx)++;
}

int main(void)
{
    char err[1024] = "";
    struct gl_device dev;
    static struct gl_metric_req none;
    plugin = load();
    if (!CHECK(plugin != NULL) || !CHECK(plugin->api == GL_PLUGIN_API) ||
        !CHECK(plugin->device != NULL))
        return t_done("gpu_plugin");
    ops = plugin->device;
    CHECK_STR(plugin->name, "gpu");
    for (int i = 0; i < plugin->nvariants; i++) {
        const struct gl_variant *v = &plugin->variants[i];
        CHECK_STR(v->device, "gpu");
        CHECK(v->run != NULL && v->check != NULL && v->flops != NULL && v->min_bytes != NULL);
    }
    int rc = ops->init(0, &dev, err, sizeof err);
    if (!CHECK(rc == 0)) {
        printf("init: %s\n", err);
        return t_done("gpu_plugin");
    }
    /* init measures nothing: the copy bandwidth is its own operation, called
     * under the device's lock */
    CHECK(dev.copy_bw_gbs == 0.0 && ops->copy_bandwidth != NULL);
    dev.copy_bw_gbs = ops->copy_bandwidth ? ops->copy_bandwidth() : 0.0;
    printf("device %s (%s) cc %d.%d, %d SMs x %d cores, L2 %d B, theo %.0f GB/s, copy %.0f GB/s, "
           "fp32 %.0f GFLOP/s\n", dev.name, dev.ident, dev.cc_major, dev.cc_minor, dev.sm_count,
           dev.cores_per_sm, dev.l2_bytes, dev.theo_bw_gbs, dev.copy_bw_gbs,
           dev.fp32_peak_gflops);
    CHECK_STR(dev.kind, "gpu");
    CHECK(strncmp(dev.ident, "GPU-", 4) == 0);
    CHECK(dev.sm_count > 0 && dev.cores_per_sm > 0 && dev.l2_bytes > 0);
    CHECK(dev.clock_khz > 0 && dev.mem_clock_khz > 0 && dev.mem_bus_bits > 0);
    CHECK(dev.max_threads_per_block >= 1024 && dev.warp_size == 32);
    CHECK(dev.theo_bw_gbs > 0.0 && dev.fp32_peak_gflops > 0.0);
    /* a copy cannot beat the bus; and anything under a tenth of it is a broken measurement */
    CHECK(dev.copy_bw_gbs > 0.1 * dev.theo_bw_gbs && dev.copy_bw_gbs <= 1.05 * dev.theo_bw_gbs);
    gpu = dev;

    static const char *const have[][2] = {
        { "matmul", "global" }, { "matmul", "shared" }, { "matmul", "naive_rect" },
        { "matmul", "tiled_rect" }, { "matmul", "cublas" }, { "stencil", "global" },
        { "stencil", "shared" }, { "vecadd", "global" }, { "vecadd", "gridstride" },
    };
    for (size_t i = 0; i < sizeof have / sizeof have[0]; i++)
        CHECK(find(have[i][0], have[i][1]) != NULL);
    CHECK(plugin->nvariants == (int)(sizeof have / sizeof have[0]));
    CHECK(find("matmul", "omp_ikj") == NULL);
    CHECK(find("nosuch", "global") == NULL);

    none.n = 0;
    CHECK(ops->profiler_setup(&none, err, sizeof err) == 0);
    test_matmul();
    test_stencil();
    test_vecadd();
    test_warmup_cut();
    test_profiled();
    test_batch();

    int count = 0;
    err[0] = '\0';
    rc = ops->list_metrics(on_metric, &count, err, sizeof err);
    printf("list_metrics: rc %d, %d names %s\n", rc, count, err);
    CHECK(rc == 0 && count > 100);
    ops->shutdown();
    return t_done("gpu_plugin");
}
