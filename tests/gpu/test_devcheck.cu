/* test_devcheck.cu - the on-device half of a run's checks against the host's:
 * inputs generated on the GPU by the harness (gh_fill_random_dev) equal the
 * CPU's gl_fill_random for the same seed and stream, bit for bit, whatever the
 * seed, stream and size (and rng.h's element far past 2^32 on both sides); and
 * the on-device comparison (gh_compare.cuh) finds the same bad count, first
 * mismatch and maximum error as the host's gl_verify_full on the same arrays;
 * and for users' typed buffers, every type and init kind made on the device
 * equals host_buffers.c's fill, and the typed verdict on the device equals
 * typed.h's rule applied on the host (planted errors, 64-bit integers past
 * 2^53, the written-only check); half and bfloat16 (ktype.h's bit-level
 * conversions) round on the device as on the host and as CUDA's
 * __double2half / __double2bfloat16 do, read back as __half2float /
 * __bfloat162float do, and their verdicts against doubles, against their own
 * type and against float agree with the host's.
 * Links the built GPU plugin for the harness's functions. Needs a GPU. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_harness.cuh"
#include "gh_compare.cuh"

extern "C" {
#include "host_buffers.h"
#include "reference.h"
#include "rng.h"
}

static int passed, failed;

static void check(int ok, const char *what, int line)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL test_devcheck.cu:%d: %s\n", line, what);
    }
}
#define CHECK(c) check((c) != 0, #c, __LINE__)

__global__ void far_elements(unsigned long long s0, const unsigned long long *idx, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = gl_rng_float(s0, idx[i]);
}

static void test_inputs(void)
{
    const unsigned long long seeds[] = { 0, 42, 7, (1ull << 40) + 3 };
    const unsigned long long streams[] = { 0, 1, 5 };
    const size_t sizes[] = { 1, 1000, (3u << 20) + 7 };
    size_t maxn = sizes[2];
    float *dev = NULL, *host = (float *)malloc(maxn * sizeof(float)),
          *want = (float *)malloc(maxn * sizeof(float));
    if (!host || !want || cudaMalloc((void **)&dev, maxn * sizeof(float)) != cudaSuccess) {
        CHECK(!"memory for the input test");
        return;
    }
    int same_all = 1, cases = 0;
    for (unsigned long long seed : seeds)
        for (unsigned long long stream : streams)
            for (size_t n : sizes) {
                gl_fill_random(want, n, seed, stream);
                if (gh_fill_random_dev(dev, n, seed, stream) != cudaSuccess ||
                    cudaMemcpy(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) {
                    same_all = 0;
                    continue;
                }
                cases++;
                if (memcmp(host, want, n * sizeof(float)) != 0) {
                    same_all = 0;
                    printf("  inputs differ: seed %llu stream %llu n %zu\n", seed, stream, n);
                }
            }
    CHECK(same_all && cases == 36);
    /* the same element far into a stream, indexed past 2^32 */
    const unsigned long long idx[4] = { 0, (1ull << 32) + 1, (1ull << 33) + 12345, (1ull << 40) };
    unsigned long long *didx = NULL;
    float got[4];
    int far_same = cudaMalloc((void **)&didx, sizeof idx) == cudaSuccess &&
                   cudaMemcpy(didx, idx, sizeof idx, cudaMemcpyHostToDevice) == cudaSuccess;
    unsigned long long s0 = gl_rng_state(42, 1);
    far_elements<<<1, 32>>>(s0, didx, dev, 4);
    far_same = far_same && cudaMemcpy(got, dev, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess;
    for (int i = 0; i < 4 && far_same; i++)
        far_same = got[i] == gl_rng_float(s0, idx[i]);
    CHECK(far_same);
    cudaFree(didx);
    cudaFree(dev);
    free(host);
    free(want);
}

struct ramp_want {
    __device__ double operator()(size_t i) const { return (double)i * 0.5; }
};

static void test_compare(void)
{
    enum { N = 1 << 20, ROW = 1024 };
    float *h = (float *)malloc(N * sizeof(float)), *d = NULL;
    double *ref = (double *)malloc(N * sizeof(double));
    cudaError_t e;
    if (!h || !ref || cudaMalloc((void **)&d, N * sizeof(float)) != cudaSuccess) {
        CHECK(!"memory for the compare test");
        return;
    }
    for (int i = 0; i < N; i++) {
        h[i] = (float)i * 0.5f;
        ref[i] = (double)i * 0.5;
    }
    double tol = gl_tolerance(1);
    for (int round = 0; round < 2; round++) {
        if (round == 1) {   /* planted: two wrong values, a NaN, one just inside tolerance */
            h[700000] += 3.0f;
            h[123457] = -1.0f;
            h[999999] = NAN;
            h[5000] = (float)(5000 * 0.5 * (1.0 + tol / 2));
        }
        struct gl_verify_report rep;
        gl_verify_full(h, ref, N, ROW, tol, &rep);
        struct gh_cmp c;
        struct gh_cmp *dc = gh_compare_begin(&e);
        int ok = dc && cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess &&
                 gh_compare(d, ramp_want(), N, tol, dc, 132) == cudaSuccess &&
                 cudaMemcpy(&c, dc, sizeof c, cudaMemcpyDeviceToHost) == cudaSuccess;
        double maxe;
        memcpy(&maxe, &c.maxerr_bits, sizeof maxe);
        CHECK(ok);
        CHECK(c.nbad == rep.nbad);
        CHECK(maxe == rep.max_rel_err);
        if (round == 0) {
            CHECK(c.nbad == 0 && c.first == ~0ull && maxe == 0.0);
        } else {
            CHECK(c.nbad == 3);
            CHECK(c.first == 123457 && (long)(c.first / ROW) == rep.first[0].row &&
                  (long)(c.first % ROW) == rep.first[0].col);
            CHECK(c.got == -1.0 && c.want == 123457 * 0.5);
            CHECK(isinf(maxe));
        }
    }
    cudaFree(d);
    free(h);
    free(ref);
}

/* Users' typed buffers: every init kind of every type (the 8-bit ones too)
 * made on the device (gh_typed_fill_dev) equals host_buffers.c's gl_hb_fill,
 * bit for bit. */
static void test_typed_fill(void)
{
    const int types[] = { GL_KT_FLOAT, GL_KT_DOUBLE, GL_KT_INT, GL_KT_UINT, GL_KT_INT64,
                          GL_KT_UINT64, GL_KT_HALF, GL_KT_BF16, GL_KT_INT8, GL_KT_UINT8,
                          GL_KT_FP8E4M3, GL_KT_FP8E5M2 };
    const int inits[] = { GL_KI_RANDOM, GL_KI_RAMP, GL_KI_CONST, GL_KI_ZERO, GL_KI_POISON };
    const size_t n = 100003;
    void *dev = NULL, *host = malloc(n * 8), *want = malloc(n * 8);
    if (!host || !want || cudaMalloc(&dev, n * 8) != cudaSuccess) {
        CHECK(!"memory for the typed fill test");
        return;
    }
    int same = 1, cases = 0;
    for (int t : types)
        for (int init : inits)
            for (unsigned long long seed : { 42ull, 7ull }) {
                size_t bytes = n * gl_ty_esize(t);
                if (gl_hb_fill(want, (enum gl_ktype)t, n, (enum gl_kinit)init, 3.75, seed, 2) != 0 ||
                    gh_typed_fill_dev(dev, t, init, 3.75, n, seed, 2) != cudaSuccess ||
                    cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
                    same = 0;
                    continue;
                }
                cases++;
                if (memcmp(host, want, bytes) != 0) {
                    same = 0;
                    printf("  typed inputs differ: type %d init %d seed %llu\n", t, init, seed);
                }
            }
    CHECK(same && cases == 120);
    cudaFree(dev);
    free(host);
    free(want);
}

/* The kernel sections' inits with two numbers (random(lo, hi), randint(lo, hi),
 * normal(mu, sigma)): made on the device (gh_typed_fill_dev2) equal to
 * gl_hb_fill2's on the host, bit for bit, for every type each init allows
 * (normal's logarithm and square root are typed.h's own: fma, +, *, /, sqrt). */
static void test_typed_fill2(void)
{
    struct { int init; double a, b; int floats; } cases[] = {
        { GL_KI_RANDOM, -2.5, 7.0, 1 },  { GL_KI_RANDOM, 0.0, 0.125, 1 },
        { GL_KI_NORMAL, 0.0, 0.02, 1 },  { GL_KI_NORMAL, 3.0, 10.0, 1 },
        { GL_KI_RANDINT, 0.0, 32000.0, 0 }, { GL_KI_RANDINT, -7.0, 9.0, 0 },
        { GL_KI_RANDINT, 0.0, 4294967295.0, 0 },
    };
    const int types[] = { GL_KT_FLOAT, GL_KT_DOUBLE, GL_KT_INT, GL_KT_UINT, GL_KT_INT64,
                          GL_KT_UINT64, GL_KT_HALF, GL_KT_BF16 };
    const size_t n = 100003;
    void *dev = NULL, *host = malloc(n * 8), *want = malloc(n * 8);
    if (!host || !want || cudaMalloc(&dev, n * 8) != cudaSuccess) {
        CHECK(!"memory for the typed fill test");
        return;
    }
    int same = 1, ran = 0;
    for (const auto &c : cases)
        for (int t : types) {
            int is_float = t == GL_KT_FLOAT || t == GL_KT_DOUBLE || t == GL_KT_HALF || t == GL_KT_BF16;
            if (is_float != c.floats || (c.a < 0 && (t == GL_KT_UINT || t == GL_KT_UINT64)) ||
                (c.b > 2147483648.0 && t == GL_KT_INT))
                continue;   /* the config refuses these */
            size_t bytes = n * gl_ty_esize(t);
            if (gl_hb_fill2(want, (enum gl_ktype)t, n, (enum gl_kinit)c.init, c.a, c.b, 42, 5) != 0 ||
                gh_typed_fill_dev2(dev, t, c.init, c.a, c.b, n, 42, 5) != cudaSuccess ||
                cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
                same = 0;
                continue;
            }
            ran++;
            if (memcmp(host, want, bytes) != 0) {
                same = 0;
                printf("  typed inputs differ: type %d init %d (%g, %g)\n", t, c.init, c.a, c.b);
            }
        }
    CHECK(same && ran == 25);
    cudaFree(dev);
    free(host);
    free(want);
}

/* The device's verdict on a typed output (gh_verdict of gh_typed_verdict) and
 * the host's (typed.h's gl_ty_bad element by element) agree: count, first
 * mismatch and its values, maximum error. */
static int typed_agree(const void *got, int type, const void *want, int want_type, size_t n,
                       double tol, unsigned long long *nbad_out)
{
    size_t es = gl_ty_esize(type), wbytes = n * gl_ty_esize(want_type);
    void *dg = NULL, *dw = NULL;
    struct gh_cmp c;
    cudaError_t e;
    int ok = cudaMalloc(&dg, n * es) == cudaSuccess &&
             cudaMemcpy(dg, got, n * es, cudaMemcpyHostToDevice) == cudaSuccess;
    if (ok && want)
        ok = cudaMalloc(&dw, wbytes) == cudaSuccess &&
             cudaMemcpy(dw, want, wbytes, cudaMemcpyHostToDevice) == cudaSuccess;
    struct gh_cmp *dc = ok ? gh_compare_begin(&e) : NULL;
    struct gh_typed_verdict v = { dg, type, dw, want_type, tol };
    ok = ok && dc && gh_verdict(v, n, dc, 132) == cudaSuccess &&
         cudaMemcpy(&c, dc, sizeof c, cudaMemcpyDeviceToHost) == cudaSuccess;
    cudaFree(dg);
    cudaFree(dw);
    if (!ok)
        return 0;
    unsigned long long nbad = 0, first = ~0ull;
    double maxe = 0.0, dmaxe;
    for (size_t i = 0; i < n; i++) {
        double err = 0.0;
        int bad = want ? gl_ty_bad(got, type, i, want, want_type, tol, &err)
                       : gl_ty_unwritten(got, type, i);
        if (bad && nbad++ == 0)
            first = i;
        if (err > maxe)
            maxe = err;
    }
    memcpy(&dmaxe, &c.maxerr_bits, sizeof dmaxe);
    *nbad_out = c.nbad;
    int agree = c.nbad == nbad && c.first == first && dmaxe == maxe;
    if (agree && nbad) {
        double w = want ? gl_ty_get(want, want_type, first) : 0.0;
        double g = gl_ty_get(got, type, first);
        agree = (c.got == g || (isnan(c.got) && isnan(g))) && (c.want == w || (isnan(c.want) && isnan(w)));
    }
    if (!agree)
        printf("  typed verdicts differ (type %d): device %llu bad, first %llu; host %llu, %llu\n",
               type, c.nbad, c.first, nbad, first);
    return agree;
}

static void test_typed_verdict(void)
{
    enum { N = 300001 };
    float *gf = (float *)malloc(N * sizeof(float));
    double *wd = (double *)malloc(N * sizeof(double));
    int32_t *gi = (int32_t *)malloc(N * sizeof(int32_t)), *wi = (int32_t *)malloc(N * sizeof(int32_t));
    uint64_t *g64 = (uint64_t *)malloc(N * sizeof(uint64_t)), *w64 = (uint64_t *)malloc(N * sizeof(uint64_t));
    unsigned long long nbad = 0;
    if (!gf || !wd || !gi || !wi || !g64 || !w64) {
        CHECK(!"memory for the typed verdict test");
        return;
    }
    for (int i = 0; i < N; i++) {
        wd[i] = i * 0.25;
        gf[i] = (float)wd[i];
        wi[i] = gi[i] = i - 1000;
        w64[i] = g64[i] = (1ull << 60) + (uint64_t)i;
    }
    CHECK(typed_agree(gf, GL_KT_FLOAT, wd, GL_KT_DOUBLE, N, 1e-5, &nbad) && nbad == 0);
    gf[250000] = NAN;                                        /* bad, infinite error */
    gf[17] = (float)(17 * 0.25 * (1 + 1e-3));                /* bad */
    gf[40000] = (float)(40000 * 0.25 * (1 + 2e-6));          /* inside the tolerance */
    CHECK(typed_agree(gf, GL_KT_FLOAT, wd, GL_KT_DOUBLE, N, 1e-5, &nbad) && nbad == 2);
    CHECK(typed_agree(gi, GL_KT_INT, wi, GL_KT_INT, N, 1e-5, &nbad) && nbad == 0);
    gi[299999] += 1;
    gi[1000] = 5;                                            /* want 0: absolute error */
    CHECK(typed_agree(gi, GL_KT_INT, wi, GL_KT_INT, N, 1e-5, &nbad) && nbad == 2);
    g64[123] += 1;                                           /* the same double, other bits */
    CHECK(typed_agree(g64, GL_KT_UINT64, w64, GL_KT_UINT64, N, 1e-5, &nbad) && nbad == 1);
    /* the written-only check: poison left */
    memset(gi, 0, N * sizeof(int32_t));
    gi[77] = -1;
    gi[290000] = -1;
    CHECK(typed_agree(gi, GL_KT_INT, NULL, GL_KT_INT, N, 1e-5, &nbad) && nbad == 2);
    free(gf);
    free(wd);
    free(gi);
    free(wi);
    free(g64);
    free(w64);
}

/* ktype.h's 16-bit conversions on the device: the same bits as on the host and
 * as CUDA's own conversions (an independent implementation), every half and
 * bfloat16 pattern read back as CUDA reads it. */
__global__ void conv16_kernel(const double *in, int n, unsigned short *mine_h, unsigned short *cuda_h,
                              unsigned short *mine_b, unsigned short *cuda_b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    mine_h[i] = gl_to_half(in[i]);
    cuda_h[i] = __half_as_ushort(__double2half(in[i]));
    mine_b[i] = gl_to_bf16(in[i]);
    cuda_b[i] = __bfloat16_as_ushort(__double2bfloat16(in[i]));
}

__global__ void read16_kernel(double *mine_h, double *cuda_h, double *mine_b, double *cuda_b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 65536)
        return;
    unsigned short u = (unsigned short)i;
    mine_h[i] = gl_from_half(u);
    cuda_h[i] = (double)__half2float(__ushort_as_half(u));
    mine_b[i] = gl_from_bf16(u);
    cuda_b[i] = (double)__bfloat162float(__ushort_as_bfloat16(u));
}

static int same_value(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static void test_16bit_conversions(void)
{
    /* every half and bfloat16 value, the midpoints between neighbours (exact
     * ties), just beside them, and random doubles over the whole range */
    enum { NV = 65536 * 4 + 200000 };
    double *in = (double *)malloc(NV * sizeof(double));
    unsigned short *h[4];
    double *rd[4];
    int n = 0;
    for (int k = 0; k < 4; k++) {
        h[k] = (unsigned short *)malloc(NV * sizeof(unsigned short));
        rd[k] = (double *)malloc(65536 * sizeof(double));
    }
    if (!in || !h[0] || !h[1] || !h[2] || !h[3] || !rd[0] || !rd[1] || !rd[2] || !rd[3]) {
        CHECK(!"memory for the conversion test");
        return;
    }
    for (int u = 0; u < 65535; u++) {
        double a = gl_from_half((unsigned short)u), b = gl_from_half((unsigned short)(u + 1));
        double c = gl_from_bf16((unsigned short)u), d = gl_from_bf16((unsigned short)(u + 1));
        if (isfinite(a) && isfinite(b) && (u & 0x7fff) != 0x7fff) {
            in[n++] = (a + b) / 2;                         /* a tie: to the even one */
            in[n++] = nextafter((a + b) / 2, INFINITY);
        }
        if (isfinite(c) && isfinite(d) && (u & 0x7fff) != 0x7fff)
            in[n++] = (c + d) / 2;
        in[n++] = a;
    }
    unsigned long long s0 = gl_rng_state(9, 9);
    while (n < NV) {   /* random bit patterns: every exponent, NaN and infinity included */
        unsigned long long bits = ((unsigned long long)(gl_rng_float(s0, n) * 16777216.0f) << 40) ^
                                  ((unsigned long long)(gl_rng_float(s0, n + NV) * 16777216.0f) << 16) ^
                                  (unsigned long long)n;
        double v;
        memcpy(&v, &bits, sizeof v);
        in[n++] = v;
    }
    double *din = NULL, *dr[4] = {};
    unsigned short *dh[4] = {};
    int ok = cudaMalloc((void **)&din, NV * sizeof(double)) == cudaSuccess &&
             cudaMemcpy(din, in, NV * sizeof(double), cudaMemcpyHostToDevice) == cudaSuccess;
    for (int k = 0; k < 4; k++)
        ok = ok && cudaMalloc((void **)&dh[k], NV * sizeof(unsigned short)) == cudaSuccess &&
             cudaMalloc((void **)&dr[k], 65536 * sizeof(double)) == cudaSuccess;
    if (ok) {
        conv16_kernel<<<(NV + 255) / 256, 256>>>(din, NV, dh[0], dh[1], dh[2], dh[3]);
        read16_kernel<<<256, 256>>>(dr[0], dr[1], dr[2], dr[3]);
    }
    for (int k = 0; k < 4; k++)
        ok = ok && cudaMemcpy(h[k], dh[k], NV * sizeof(unsigned short), cudaMemcpyDeviceToHost) == cudaSuccess &&
             cudaMemcpy(rd[k], dr[k], 65536 * sizeof(double), cudaMemcpyDeviceToHost) == cudaSuccess;
    CHECK(ok);
    int host_h = 1, host_b = 1, cuda_h = 1, cuda_b = 1, reads = 1;
    for (int i = 0; ok && i < NV; i++) {
        unsigned short wh = gl_to_half(in[i]), wb = gl_to_bf16(in[i]);
        if (h[0][i] != wh || h[2][i] != wb) {
            if (host_h && host_b)
                printf("  device %04x %04x, host %04x %04x for %a\n", h[0][i], h[2][i], wh, wb, in[i]);
            host_h &= h[0][i] == wh;
            host_b &= h[2][i] == wb;
        }
        /* CUDA's: the same value (NaN's payload may differ) */
        if (!same_value(gl_from_half(h[0][i]), gl_from_half(h[1][i])) ||
            ((h[0][i] ^ h[1][i]) & 0x8000 && !isnan(in[i]))) {
            if (cuda_h)
                printf("  half of %a: typed.h %04x, CUDA %04x\n", in[i], h[0][i], h[1][i]);
            cuda_h = 0;
        }
        if (!same_value(gl_from_bf16(h[2][i]), gl_from_bf16(h[3][i])) ||
            ((h[2][i] ^ h[3][i]) & 0x8000 && !isnan(in[i]))) {
            if (cuda_b)
                printf("  bfloat16 of %a: typed.h %04x, CUDA %04x\n", in[i], h[2][i], h[3][i]);
            cuda_b = 0;
        }
    }
    for (int u = 0; ok && u < 65536; u++)
        reads &= same_value(rd[0][u], rd[1][u]) && same_value(rd[2][u], rd[3][u]) &&
                 same_value(rd[0][u], gl_from_half((unsigned short)u)) &&
                 same_value(rd[2][u], gl_from_bf16((unsigned short)u));
    CHECK(host_h && host_b);
    CHECK(cuda_h && cuda_b);
    CHECK(reads);
    cudaFree(din);
    for (int k = 0; k < 4; k++) {
        cudaFree(dh[k]);
        cudaFree(dr[k]);
        free(h[k]);
        free(rd[k]);
    }
    free(in);
}

/* Element i of a 16-bit buffer of type t (half or bf16), rounded from v. Not
 * gl_ty_set: with t a variable, its inlined wider cases (float, double, 64-bit
 * integers) would index this 2-byte buffer past its end as far as the compiler
 * can tell (-Warray-bounds), though they are never taken. */
static void set16(unsigned short *a, int t, size_t i, double v)
{
    a[i] = t == GL_KT_HALF ? gl_to_half(v) : gl_to_bf16(v);
}

/* Verdicts on 16-bit outputs, device against host: against a host reference's
 * doubles, against a reference of the same type, against float; planted
 * errors just outside and inside the default tolerance, NaN, the poison. */
static void test_16bit_verdicts(void)
{
    enum { N = 200003 };
    const int types[] = { GL_KT_HALF, GL_KT_BF16 };
    unsigned short *g = (unsigned short *)malloc(N * 2), *w16 = (unsigned short *)malloc(N * 2);
    double *wd = (double *)malloc(N * sizeof(double));
    float *wf = (float *)malloc(N * sizeof(float));
    unsigned long long nbad = 0;
    if (!g || !w16 || !wd || !wf) {
        CHECK(!"memory for the 16-bit verdict test");
        return;
    }
    for (int t : types) {
        double tol = gl_ty_default_tol(t);
        for (int i = 0; i < N; i++) {
            wd[i] = 0.5 + (double)gl_rng_float(gl_rng_state(3, 1), (unsigned long long)i) * 100.0;
            set16(g, t, i, wd[i]);   /* the correctly rounded result */
            set16(w16, t, i, wd[i]);
            wf[i] = (float)wd[i];
        }
        CHECK(typed_agree(g, t, wd, GL_KT_DOUBLE, N, tol, &nbad) && nbad == 0);
        CHECK(typed_agree(g, t, w16, t, N, tol, &nbad) && nbad == 0);
        CHECK(typed_agree(g, t, wf, GL_KT_FLOAT, N, tol, &nbad) && nbad == 0);
        set16(g, t, 1000, wd[1000] * (1 + 2 * tol));      /* bad */
        set16(g, t, 150000, wd[150000] * (1 + tol / 3));   /* inside */
        g[77777] = 0x7fc0;                                      /* NaN in both types: bad */
        set16(g, t, 199999, -wd[199999]);                   /* bad */
        CHECK(typed_agree(g, t, wd, GL_KT_DOUBLE, N, tol, &nbad) && nbad == 3);
        CHECK(typed_agree(g, t, w16, t, N, tol, &nbad) && nbad == 3);
        CHECK(typed_agree(g, t, wf, GL_KT_FLOAT, N, tol, &nbad) && nbad == 3);
        /* the written-only check: the poison (every bit set) left in two places */
        memset(g, 0, N * 2);
        g[5] = 0xffff;
        g[N - 1] = 0xffff;
        CHECK(typed_agree(g, t, NULL, t, N, tol, &nbad) && nbad == 2);
    }
    free(g);
    free(w16);
    free(wd);
    free(wf);
}

int main(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        printf("test_devcheck: no GPU\n");
        printf("test_devcheck: 0 passed, 1 failed\n");
        return 1;
    }
    test_inputs();
    test_compare();
    test_typed_fill();
    test_typed_fill2();
    test_typed_verdict();
    test_16bit_conversions();
    test_16bit_verdicts();
    printf("test_devcheck: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
