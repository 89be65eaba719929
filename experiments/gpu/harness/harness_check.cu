/* harness_check.cu - what lets a built-in family's run stay on the device: its
 * random inputs generated there (rng.h, the same numbers as the CPU's
 * gl_fill_random), its float64 reference computed there once per distinct
 * problem and seed and kept in a small cache of device arrays, and the verdict
 * of the on-device comparison (gh_compare.cuh) turned into the run's status,
 * maximum error and reason, worded as reference.h's gl_verify_full words it.
 * Must not launch a family's kernel, time anything or copy an output back. */
#include "harness_int.cuh"
#include "gh_compare.cuh"

#include <stdio.h>
#include <string.h>

extern "C" {
#include "reference.h"
#include "rng.h"
}

/* ---- inputs ------------------------------------------------------------------ */

__global__ void gh_fill_random_kernel(float *x, size_t n, unsigned long long s0)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = gl_rng_float(s0, i);
}

cudaError_t gh_fill_random_dev(float *dev, size_t n, unsigned long long seed,
                               unsigned long long stream)
{
    gh_fill_random_kernel<<<gh_stride_blocks(n), 256>>>(dev, n, gl_rng_state(seed, stream));
    return cudaGetLastError();
}

unsigned gh_stride_blocks(size_t n)
{
    size_t blocks = (n + 255) / 256;
    size_t cap = (size_t)(gh_st.dev.sm_count > 0 ? gh_st.dev.sm_count : 132) * 8;
    return (unsigned)(blocks < 1 ? 1 : blocks > cap ? cap : blocks);
}

/* ---- the comparison's scratch and verdict ----------------------------------------- */

static struct gh_cmp *cmp_dev;   /* device scratch, allocated once per process */

struct gh_cmp *gh_compare_begin(cudaError_t *err)
{
    static const struct gh_cmp fresh = { 0, 0, ~0ull, 0.0, 0.0 };
    *err = cudaSuccess;
    if (!cmp_dev && (*err = cudaMalloc((void **)&cmp_dev, sizeof *cmp_dev)) != cudaSuccess) {
        cmp_dev = NULL;
        return 0;
    }
    if ((*err = cudaMemcpyAsync(cmp_dev, &fresh, sizeof fresh, cudaMemcpyHostToDevice, 0)) !=
        cudaSuccess)
        return 0;
    return cmp_dev;
}

int gh_check_device(struct gh_job *j)
{
    struct gl_result *r = j->r;
    struct gh_cmp c;
    cudaError_t e;
    struct gh_cmp *dc = gh_compare_begin(&e);
    if (!dc)
        return gh_ok(r, e, "on-device check (scratch)");
    if (!gh_ok(r, j->check_dev(j, dc), "on-device check") ||
        !gh_ok(r, cudaMemcpy(&c, dc, sizeof c, cudaMemcpyDeviceToHost), "on-device check (result)"))
        return 0;
    double tol = gl_tolerance(j->tol_len), maxe;
    memcpy(&maxe, &c.maxerr_bits, sizeof maxe);
    if (maxe > r->max_rel_err)
        r->max_rel_err = maxe;
    snprintf(r->check, sizeof r->check, "%s", GL_CHECK_FULL);
    r->check_points = (long long)j->out_count[0];
    if (c.nbad == 0 || r->status != GL_OK)
        return 1;
    long row_len = j->row_len > 0 ? j->row_len : (long)j->out_count[0];
    r->status = GL_WRONG;
    snprintf(r->reason, sizeof r->reason,
             "%llu of %zu outputs outside tolerance %.1e; first at (%llu,%llu): got %.9g want %.9g",
             c.nbad, j->out_count[0], tol, c.first / (unsigned long long)row_len,
             c.first % (unsigned long long)row_len, c.got, c.want);
    return 1;
}

/* The check of a family whose reference is a cached array (gh_use_devref). */
static cudaError_t check_against_ref(struct gh_job *j, struct gh_cmp *c)
{
    struct gh_want_array want = { j->ref_dev };
    return gh_compare(j->out[0].dev, want, j->out_count[0], gl_tolerance(j->tol_len), c,
                      gh_st.dev.sm_count);
}

void gh_use_devref(struct gh_job *j, gh_devref_fn fn, const char *family, long a, long b, long c)
{
    j->devref = fn;
    j->check_dev = check_against_ref;
    j->refkey.family = family;
    j->refkey.a = a;
    j->refkey.b = b;
    j->refkey.c = c;
    j->refkey.seed = (long long)gh_seed(j->p);
}

/* ---- the cache of device references ------------------------------------------------ */

#define DEVREF_SLOTS 4
#define DEVREF_BYTES (2ull << 30)   /* beyond the most recent entry */

static struct {
    struct {
        int used;
        struct gh_refkey k;
        double *data;
        size_t bytes;
        unsigned long long tick;
    } e[DEVREF_SLOTS];
    unsigned long long tick;
    size_t bytes;
} refc;

static int key_equal(const struct gh_refkey *a, const struct gh_refkey *b)
{
    return strcmp(a->family, b->family) == 0 && a->a == b->a && a->b == b->b && a->c == b->c &&
           a->seed == b->seed;
}

static void entry_drop(int i)
{
    if (refc.e[i].used && !gh_st.sticky)
        cudaFree(refc.e[i].data);
    refc.bytes -= refc.e[i].used ? refc.e[i].bytes : 0;
    memset(&refc.e[i], 0, sizeof refc.e[i]);
}

void gh_devref_release(void)
{
    gh_devref_trim(NULL);
}

void gh_devref_trim(const double *keep)
{
    for (int i = 0; i < DEVREF_SLOTS; i++)
        if (refc.e[i].used && refc.e[i].data != keep)
            entry_drop(i);
}

/* The least recently used slot, or a free one. */
static int victim(void)
{
    int v = 0;
    for (int i = 0; i < DEVREF_SLOTS; i++) {
        if (!refc.e[i].used)
            return i;
        if (refc.e[i].tick < refc.e[v].tick)
            v = i;
    }
    return v;
}

/* Generate the inputs of j's problem on the device and compute its reference into d. */
static int compute_into(gh_devref_fn compute, struct gh_job *j, double *d)
{
    struct gl_result *r = j->r;
    float *in[GH_MAX_IN] = {};
    int ok = 1;
    for (int i = 0; i < j->nin && ok; i++)
        ok = gh_ok(r, cudaMalloc((void **)&in[i], j->in_count[i] * sizeof(float)),
                   "cudaMalloc(reference input)") &&
             gh_ok(r, gh_fill_random_dev(in[i], j->in_count[i], gh_seed(j->p), (unsigned)i),
                   "input generation (reference)");
    ok = ok && gh_ok(r, compute(j, in, d), "reference kernel") &&
         gh_ok(r, cudaDeviceSynchronize(), "reference kernel");
    for (int i = 0; i < j->nin && !gh_st.sticky; i++)
        if (in[i])
            cudaFree(in[i]);
    return ok;
}

/* j->ref_dev from the cache or computed; 1, or 0 (j->r says why). */
int gh_devref_get(struct gh_job *j)
{
    const struct gh_refkey *k = &j->refkey;
    gh_devref_fn compute = j->devref;
    j->ref_dev = NULL;
    if (!compute)
        return 1;
    size_t count = j->out_count[0];
    struct gl_result *r = j->r;
    for (int i = 0; i < DEVREF_SLOTS; i++)
        if (refc.e[i].used && key_equal(&refc.e[i].k, k)) {
            refc.e[i].tick = ++refc.tick;
            j->ref_dev = refc.e[i].data;
            return 1;
        }
    size_t bytes = count * sizeof(double);
    /* make room: within the slots and the byte budget (the newest entry may
     * exceed it alone), and in what the device has free */
    for (;;) {
        int used = 0;
        for (int i = 0; i < DEVREF_SLOTS; i++)
            used += refc.e[i].used;
        if (used == 0 || (used < DEVREF_SLOTS && refc.bytes + bytes <= DEVREF_BYTES))
            break;
        entry_drop(victim());
    }
    size_t free_b = 0, total_b = 0;
    if (!gh_ok(r, cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo"))
        return 0;
    size_t need = bytes;   /* and the inputs generated for it, while it is computed */
    for (int i = 0; i < j->nin; i++)
        need += j->in_count[i] * sizeof(float);
    if (need + GH_MEM_MARGIN > free_b) {
        gh_devref_release();
        gh_expected_release();   /* users' kept expected outputs too */
        if (!gh_ok(r, cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo"))
            return 0;
        if (need + GH_MEM_MARGIN > free_b) {
            gh_skip(r, "the float64 reference needs %.1f MiB of device memory, %.1f MiB free",
                    (double)need / 1048576.0, (double)free_b / 1048576.0);
            return 0;
        }
    }
    int s = victim();
    double *d = NULL;
    if (!gh_ok(r, cudaMalloc((void **)&d, bytes), "cudaMalloc(reference)"))
        return 0;
    if (!compute_into(compute, j, d)) {
        if (!gh_st.sticky)
            cudaFree(d);
        return 0;
    }
    refc.e[s].used = 1;
    refc.e[s].k = *k;
    refc.e[s].data = d;
    refc.e[s].bytes = bytes;
    refc.e[s].tick = ++refc.tick;
    refc.bytes += bytes;
    j->ref_dev = d;
    return 1;
}

void gh_check_shutdown(void)
{
    gh_devref_release();
    if (cmp_dev && !gh_st.sticky)
        cudaFree(cmp_dev);
    cmp_dev = NULL;
}
