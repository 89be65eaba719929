/* test_devcheck.cu - the on-device half of a run's checks against the host's:
 * inputs generated on the GPU by the harness (gh_fill_random_dev) equal the
 * CPU's gl_fill_random for the same seed and stream, bit for bit, whatever the
 * seed, stream and size (and rng.h's element far past 2^32 on both sides); and
 * the on-device comparison (gh_compare.cuh) finds the same bad count, first
 * mismatch and maximum error as the host's gl_verify_full on the same arrays.
 * Links the built GPU plugin for the harness's functions. Needs a GPU. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_harness.cuh"
#include "gh_compare.cuh"

extern "C" {
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
            CHECK(c.got == -1.0f && c.want == 123457 * 0.5);
            CHECK(isinf(maxe));
        }
    }
    cudaFree(d);
    free(h);
    free(ref);
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
    printf("test_devcheck: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
