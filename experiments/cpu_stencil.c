/* cpu_stencil.c - the CPU baselines of the radius-R box sum (OUT[N-2R][N-2R],
 * each the float sum of the (2R+1)^2 inputs around it): seq, the seed's four
 * nested loops, and omp, the same loops with the rows in parallel.
 * Must not time or verify by itself: cpu_harness.c does that. */
#include "cpu.h"

#include <stdlib.h>
#include <string.h>

#include "cpu_harness.h"
#include "reference.h"

struct st_ctx {
    const float *in;
    float *out;
    long n, r;
    int threads;
};

static void st_seq(const void *x)
{
    const struct st_ctx *k = x;
    const long N = k->n, R = k->r, W = N - 2 * R;
    for (long i = 0; i < W; i++)
        for (long j = 0; j < W; j++) {
            float s = 0.0f;
            for (long a = 0; a <= 2 * R; a++)
                for (long b = 0; b <= 2 * R; b++)
                    s += k->in[(i + a) * N + j + b];
            k->out[i * W + j] = s;
        }
}

static void st_omp(const void *x)
{
    const struct st_ctx *k = x;
    const long N = k->n, R = k->r, W = N - 2 * R;
#pragma omp parallel for num_threads(k->threads) schedule(static)
    for (long i = 0; i < W; i++)
        for (long j = 0; j < W; j++) {
            float s = 0.0f;
            for (long a = 0; a <= 2 * R; a++)
                for (long b = 0; b <= 2 * R; b++)
                    s += k->in[(i + a) * N + j + b];
            k->out[i * W + j] = s;
        }
}

int gl_cpu_stencil(const char *variant, const struct gl_params *p, const struct gl_timing *t,
                   struct gl_result *r)
{
    gl_cpu_kernel kernel;
    gl_cpu_result_init(r);
    if (strcmp(variant, "seq") == 0)
        kernel = st_seq;
    else if (strcmp(variant, "omp") == 0)
        kernel = st_omp;
    else
        return gl_cpu_fail(r, "unknown CPU stencil variant '%s'", variant);

    struct st_ctx k;
    k.n = p->n;
    k.r = p->r;
    k.threads = gl_cpu_threads(p);
    if (k.threads < 1)
        return gl_cpu_skip(r, "threads must be 0 (all) to %d (threads=%ld)", GL_CPU_MAX_THREADS,
                           p->threads);
    if (k.r < 0 || k.n <= 2 * k.r || k.n > 1000000000L)
        return gl_cpu_skip(r, "need R >= 0 and 2R < N <= 1e9 (N=%ld R=%ld)", k.n, k.r);
    const long W = k.n - 2 * k.r;
    const size_t nin = (size_t)k.n * (size_t)k.n, nout = (size_t)W * (size_t)W;

    float *in = malloc(nin * sizeof *in), *out = malloc(nout * sizeof *out);
    int rc = 0;
    char err[GL_REASON_MAX];
    if (!in || !out) {
        rc = gl_cpu_fail(r, "out of memory for %zu floats", nin + nout);
        goto done;
    }
    unsigned long long seed = gl_cpu_seed(p);
    gl_fill_random(in, nin, seed, 0);
    const double *ref = gl_ref_stencil(in, k.n, k.r, (long)seed, err, sizeof err);
    if (!ref) {
        rc = gl_cpu_fail(r, "reference: %s", err);
        goto done;
    }
    k.in = in;
    k.out = out;
    rc = gl_cpu_time(kernel, &k, out, nout, t, r);
    if (rc == 0)
        gl_cpu_check(r, out, ref, nout, W, (2 * k.r + 1) * (2 * k.r + 1));
done:
    free(in);
    free(out);
    return rc;
}
