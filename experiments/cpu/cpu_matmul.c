/* cpu_matmul.c - the CPU baselines of matmul (C = A.B, float) and their
 * declarations: seq_ijk (plain triple loop), omp_ikj and omp_ijk (OpenMP
 * parallel for over rows, the two loop orders of study S1) on N x N, and
 * omp_rect (i-k-j) on M x P times P x N. The kernels are plain loops on
 * purpose: they are the baselines the seeds ran.
 * Must not time, verify or allocate by itself: cpu_harness.c does that. */
#include "cpu.h"

#include <stdint.h>
#include <stdio.h>

#include "cpu_harness.h"
#include "family.h"
#include "params.h"
#include "reference.h"

/* The sizes of one run: C (m x n) = A (m x p) . B (p x n). */
struct mm_ctx {
    long m, n, p;
};

/* What a variant's row points at: its kernel, and whether it reads M and P. */
struct mm_impl {
    gl_cpu_kernel kernel;
    int rect;
};

static void mm_seq_ijk(const struct gl_cpu_job *job)
{
    const struct mm_ctx *k = job->ctx;
    const float *A = job->in[0], *B = job->in[1];
    float *C = job->out;
    const long M = k->m, N = k->n, P = k->p;
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            float s = 0.0f;
            for (long l = 0; l < P; l++)
                s += A[i * P + l] * B[l * N + j];
            C[i * N + j] = s;
        }
}

static void mm_omp_ijk(const struct gl_cpu_job *job)
{
    const struct mm_ctx *k = job->ctx;
    const float *A = job->in[0], *B = job->in[1];
    float *C = job->out;
    const long M = k->m, N = k->n, P = k->p;
#pragma omp parallel for num_threads(job->threads) schedule(static)
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            float s = 0.0f;
            for (long l = 0; l < P; l++)
                s += A[i * P + l] * B[l * N + j];
            C[i * N + j] = s;
        }
}

/* i-k-j: the inner loop runs along rows of B and C (unit stride). */
static void mm_omp_ikj(const struct gl_cpu_job *job)
{
    const struct mm_ctx *k = job->ctx;
    const float *A = job->in[0], *B = job->in[1];
    const long M = k->m, N = k->n, P = k->p;
#pragma omp parallel for num_threads(job->threads) schedule(static)
    for (long i = 0; i < M; i++) {
        float *c = job->out + i * N;
        for (long j = 0; j < N; j++)
            c[j] = 0.0f;
        for (long l = 0; l < P; l++) {
            const float a = A[i * P + l];
            const float *b = B + l * N;
            for (long j = 0; j < N; j++)
                c[j] += a * b[j];
        }
    }
}

static const double *mm_reference(const struct gl_cpu_job *job, char *err, size_t errlen)
{
    const struct mm_ctx *k = job->ctx;
    return gl_ref_matmul(job->in[0], job->in[1], k->m, k->n, k->p, (long)job->seed, err, errlen);
}

/* The float64 reference of output element i alone (row i / N, column i % N). */
static double mm_ref_at(const struct gl_cpu_job *job, size_t i)
{
    const struct mm_ctx *k = job->ctx;
    size_t row = i / (size_t)k->n, col = i % (size_t)k->n;
    const float *a = job->in[0] + row * (size_t)k->p, *b = job->in[1] + col;
    double s = 0.0;
    for (long l = 0; l < k->p; l++)
        s += (double)a[l] * (double)b[(size_t)l * (size_t)k->n];
    return s;
}

/* floats of a rows x cols matrix, or 0 when it is empty or too large to index. */
static size_t elems(long rows, long cols)
{
    if (rows < 1 || cols < 1 || (unsigned long)rows > (size_t)PTRDIFF_MAX / sizeof(double) /
                                                       (unsigned long)cols)
        return 0;
    return (size_t)rows * (size_t)cols;
}

static int mm_run(const struct gl_variant *v, const struct gl_params *p, const struct gl_timing *t,
                  struct gl_result *r)
{
    const struct mm_impl *im = v->impl;
    struct mm_ctx k;
    k.n = p->n;
    k.m = im->rect ? p->m : p->n;
    k.p = im->rect ? p->p : p->n;

    struct gl_cpu_job j = { 0 };
    j.p = p;
    j.t = t;
    j.r = r;
    j.kernel = im->kernel;
    j.reference = mm_reference;
    j.ref_at = mm_ref_at;
    j.ctx = &k;
    size_t na = elems(k.m, k.p), nb = elems(k.p, k.n), nc = elems(k.m, k.n);
    if (!na || !nb || !nc) {
        snprintf(j.size_err, sizeof j.size_err,
                 "M, N and P must be >= 1 and fit in memory (M=%ld N=%ld P=%ld)", k.m, k.n, k.p);
        return gl_cpu_execute(&j);
    }
    j.nin = 2;
    j.in_count[0] = na;
    j.in_count[1] = nb;
    j.in_stream[0] = 0;
    j.in_stream[1] = 1;
    j.out_count = nc;
    j.tol_len = k.p;
    j.row_len = k.n;
    return gl_cpu_execute(&j);
}

static const struct mm_impl im_seq_ijk = { mm_seq_ijk, 0 };
static const struct mm_impl im_omp_ijk = { mm_omp_ijk, 0 };
static const struct mm_impl im_omp_ikj = { mm_omp_ikj, 0 };
static const struct mm_impl im_omp_rect = { mm_omp_ikj, 1 };

#define PB(x) GL_PBIT(GL_P_##x)

const struct gl_variant gl_cpu_matmul_variants[] = {
    { "matmul", "seq_ijk", "cpu", "sequential i-j-k", PB(N) | PB(SEED), NULL, gl_matmul_flops,
      gl_matmul_bytes, mm_run, &im_seq_ijk },
    { "matmul", "omp_ikj", "cpu", "OpenMP over rows, i-k-j (cache friendly)",
      PB(N) | PB(THREADS) | PB(SEED), NULL, gl_matmul_flops, gl_matmul_bytes, mm_run,
      &im_omp_ikj },
    { "matmul", "omp_ijk", "cpu", "OpenMP over rows, i-j-k (naive order)",
      PB(N) | PB(THREADS) | PB(SEED), NULL, gl_matmul_flops, gl_matmul_bytes, mm_run,
      &im_omp_ijk },
    { "matmul", "omp_rect", "cpu", "OpenMP over rows, i-k-j, non-square M x P . P x N",
      PB(M) | PB(N) | PB(P) | PB(THREADS) | PB(SEED), NULL, gl_matmul_flops, gl_matmul_bytes,
      mm_run, &im_omp_rect },
};

const int gl_cpu_matmul_nvariants =
    (int)(sizeof gl_cpu_matmul_variants / sizeof gl_cpu_matmul_variants[0]);
