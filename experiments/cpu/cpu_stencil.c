/* cpu_stencil.c - the CPU baselines of the radius-R box sum (OUT[N-2R][N-2R],
 * each the float sum of the (2R+1)^2 inputs around it) and their
 * declarations: seq, the seed's four nested loops, and omp, the same loops
 * with the rows in parallel (the seed's baselines), compiled once for the
 * build's target (no instruction-set dispatch: it does not help them).
 * Must not time, verify or allocate by itself: cpu_harness.c does that. */
#include "cpu.h"

#include <stdio.h>

#include "cpu_harness.h"
#include "family.h"
#include "params.h"
#include "reference.h"

/* The sizes of one run: an n x n input, radius r. */
struct st_ctx {
    long n, r;
};

/* What a variant's row points at. */
struct st_impl {
    gl_cpu_kernel kernel;
};

/* The seed's four loops on output rows [i0, i1). Not dispatched: the sum is a
 * reduction in a fixed order, which the compiler does not vectorise, and the
 * AVX2 and AVX-512 builds of these loops measured no faster at R = 8 and
 * slower at R = 2 (bench/README, "CPU rows"); compiled once, for the build's
 * target. */
static void box_rows(const struct gl_cpu_job *job, long i0, long i1)
{
    const struct st_ctx *k = job->ctx;
    const float *in = job->in[0];
    float *out = job->out;
    const long N = k->n, R = k->r, W = N - 2 * R;
    for (long i = i0; i < i1; i++)
        for (long j = 0; j < W; j++) {
            float s = 0.0f;
            for (long a = 0; a <= 2 * R; a++)
                for (long b = 0; b <= 2 * R; b++)
                    s += in[(i + a) * N + j + b];
            out[i * W + j] = s;
        }
}

/* (one function for every level: the job is not dispatched, its level is always
 * GL_ISA_BASE) */
static const struct gl_cpu_rows box = { { box_rows, box_rows, box_rows } };

static long out_rows(const struct gl_cpu_job *job)
{
    const struct st_ctx *k = job->ctx;
    return k->n - 2 * k->r;
}

static void st_seq(const struct gl_cpu_job *job) { gl_cpu_rows_seq(job, &box, out_rows(job)); }
static void st_omp(const struct gl_cpu_job *job) { gl_cpu_rows_omp(job, &box, out_rows(job)); }

static const double *st_reference(const struct gl_cpu_job *job, char *err, size_t errlen)
{
    const struct st_ctx *k = job->ctx;
    return gl_ref_stencil(job->in[0], k->n, k->r, (long)job->seed, err, errlen);
}

/* The float64 reference of output element i alone: its box summed in double. */
static double st_ref_at(const struct gl_cpu_job *job, size_t i)
{
    const struct st_ctx *k = job->ctx;
    size_t w = (size_t)(k->n - 2 * k->r), row = i / w, col = i % w;
    double s = 0.0;
    for (long a = 0; a <= 2 * k->r; a++) {
        const float *line = job->in[0] + (row + (size_t)a) * (size_t)k->n + col;
        for (long b = 0; b <= 2 * k->r; b++)
            s += (double)line[b];
    }
    return s;
}

/* The plan-time check: the family's size rule (no device limit applies). */
static const char *st_check(const struct gl_variant *v, const struct gl_params *p,
                            const struct gl_device *dev, char *buf, size_t len)
{
    (void)v;
    (void)dev;
    return gl_stencil_check_size(p, buf, len);
}

static int st_run(const struct gl_variant *v, const struct gl_params *p, const struct gl_timing *t,
                  struct gl_result *r)
{
    const struct st_impl *im = v->impl;
    struct st_ctx k;
    k.n = p->n;
    k.r = p->r;

    struct gl_cpu_job j = { 0 };
    j.p = p;
    j.t = t;
    j.r = r;
    j.kernel = im->kernel;
    j.reference = st_reference;
    j.ref_at = st_ref_at;
    j.ctx = &k;
    if (k.r < 0 || k.n <= 2 * k.r || k.n > 1000000000L) {
        snprintf(j.size_err, sizeof j.size_err, "need R >= 0 and 2R < N <= 1e9 (N=%ld R=%ld)",
                 k.n, k.r);
        return gl_cpu_execute(&j);
    }
    const long W = k.n - 2 * k.r;
    j.nin = 1;
    j.in_count[0] = (size_t)k.n * (size_t)k.n;
    j.in_stream[0] = 0;
    j.out_count = (size_t)W * (size_t)W;
    j.tol_len = (2 * k.r + 1) * (2 * k.r + 1);
    j.row_len = W;
    return gl_cpu_execute(&j);
}

static const struct st_impl im_seq = { st_seq };
static const struct st_impl im_omp = { st_omp };

#define PB(x) GL_PBIT(GL_P_##x)

const struct gl_variant gl_cpu_stencil_variants[] = {
    { "stencil", "seq", "cpu", "seed baseline: sequential 4-loop box sum", PB(N) | PB(R) | PB(SEED),
      st_check, gl_stencil_flops, gl_stencil_bytes, st_run, &im_seq },
    { "stencil", "omp", "cpu", "seed baseline: OpenMP over output rows", PB(N) | PB(R) | PB(THREADS) | PB(SEED),
      st_check, gl_stencil_flops, gl_stencil_bytes, st_run, &im_omp },
};

const int gl_cpu_stencil_nvariants =
    (int)(sizeof gl_cpu_stencil_variants / sizeof gl_cpu_stencil_variants[0]);
