/* kernel_run.cu - one run of a user's kernel (kernel.h) in the worker: compile
 * it or take it from the kernel cache (kernel_compile.cu) for the device's
 * compute capability, load the cubin (cudaLibraryLoadData, kept loaded for the
 * process), evaluate the buffer counts, arguments, grid, block and dynamic
 * shared memory at the point, and hand the harness a job like a built-in
 * family's (gh_execute: timing, cold L2, resources, guidance, profiling,
 * parking) with typed buffers (struct gh_typed: made, reset and checked on
 * the device by harness_typed.cu), and its reference: the reference variant's
 * kernel run on the same inputs, or a C reference (verify = c:FILE:FUNC,
 * dlopen'ed once per process) called on host copies of the buffers with the
 * parameters it reads, its expected outputs kept by the harness for every run
 * with the same key (experiments/cref.h) or, without either, none (no output
 * element may be left poisoned).
 * The runtime takes a cudaKernel_t wherever it takes `const void *func`
 * (cudaLaunchKernel, cudaFuncGetAttributes, cudaFuncSetAttribute, occupancy):
 * the harness uses the handle as it uses a built-in kernel's address.
 * A launch sequence (launch.NAME lines) is made by kernel_sequence.cu into the
 * same job: its ctx holds the launches, enqueued in order as one run.
 * Must not link or call libcuda directly, time or profile anything itself, or
 * decide which variants exist (the config does). */
#include "fileutil.h"
#include "gpu_harness.cuh"
#include "kernel_int.cuh"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "cref.h"
#include "kinit.h"
#include "scalar.h"
#include "typed.h"
}

/* ---- loaded kernels --------------------------------------------------------------- */

#define GK_MAX_LIBS 1024
#define GK_MAX_KERNELS 4096

/* Libraries stay loaded until shutdown: a run parked for batch profiling
 * launches its kernel again after kernel_run returned. One cubin (a program
 * of several name expressions) holds the kernels of several variants. */
static struct gk_lib {
    char cubin[GK_PATH];
    cudaLibrary_t lib;
} libs[GK_MAX_LIBS];
static int nlibs;
static struct gk_kernel {
    int lib;                      /* index into libs */
    char lowered[GK_LOWERED];
    cudaKernel_t kernel;
} kernels[GK_MAX_KERNELS];
static int nkernels;

/* The kernel of b, its library loaded once per process (the cache key is in
 * the path) and each kernel looked up once. */
static int load_kernel(struct gl_result *r, const struct gk_built *b, cudaKernel_t *out,
                       cudaLibrary_t *lib_out)
{
    int li = -1;
    for (int i = 0; i < nlibs && li < 0; i++)
        if (strcmp(libs[i].cubin, b->cubin) == 0)
            li = i;
    for (int i = 0; i < nkernels && li >= 0; i++)
        if (kernels[i].lib == li && strcmp(kernels[i].lowered, b->lowered) == 0) {
            *out = kernels[i].kernel;
            *lib_out = libs[li].lib;
            return 1;
        }
    cudaLibrary_t lib = li >= 0 ? libs[li].lib : NULL;
    if (!lib) {
        size_t len = 0;
        char *data = gl_file_read(b->cubin, &len, NULL, 0);
        if (!data || len == 0) {
            free(data);
            return gh_fail(r, "kernel cache: cannot read %s", b->cubin);
        }
        int ok = gh_ok(r, cudaLibraryLoadData(&lib, data, NULL, NULL, 0, NULL, NULL, 0),
                       "cudaLibraryLoadData");
        free(data);
        if (!ok)
            return 0;
        if (nlibs < GK_MAX_LIBS) {   /* beyond that, loaded per run and never unloaded */
            snprintf(libs[nlibs].cubin, sizeof libs[nlibs].cubin, "%s", b->cubin);
            libs[nlibs].lib = lib;
            li = nlibs++;
        }
    }
    cudaKernel_t k = NULL;
    if (!gh_ok(r, cudaLibraryGetKernel(&k, lib, b->lowered), "cudaLibraryGetKernel")) {
        if (li < 0 && !gh_context_lost())
            cudaLibraryUnload(lib);
        return 0;
    }
    if (li >= 0 && nkernels < GK_MAX_KERNELS) {
        kernels[nkernels].lib = li;
        snprintf(kernels[nkernels].lowered, sizeof kernels[nkernels].lowered, "%s", b->lowered);
        kernels[nkernels].kernel = k;
        nkernels++;
    }
    *out = k;
    *lib_out = lib;
    return 1;
}

void gk_shutdown(void)
{
    if (!gh_context_lost())
        for (int i = 0; i < nlibs; i++)
            cudaLibraryUnload(libs[i].lib);
    nlibs = 0;
    nkernels = 0;
}

/* ---- C references (verify = c:FILE:FUNC) --------------------------------------------- */

#define GK_MAX_CREFS 64

/* Loaded once per process and kept (dlclose would unload code a later run calls). */
static struct gk_cref {
    char so[sizeof(((struct gl_kernel *)0)->verify_c_so)];
    char func[GL_KNAME];
    gl_kernel_cref_fn fn;
    char *missed;   /* its gl_cref_missed (plugin.h), NULL in a prebuilt .so */
} crefs[GK_MAX_CREFS];
static int ncrefs;

/* k's C reference function (the plan's compile step built the .so). */
static int load_cref(struct gl_result *r, const struct gl_kernel *k, gl_kernel_cref_fn *out,
                     char **missed)
{
    for (int i = 0; i < ncrefs; i++)
        if (strcmp(crefs[i].so, k->verify_c_so) == 0 && strcmp(crefs[i].func, k->verify_c_func) == 0) {
            *out = crefs[i].fn;
            *missed = crefs[i].missed;
            return 1;
        }
    void *h = dlopen(k->verify_c_so, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        return gh_fail(r, "C reference %s: cannot load %s: %s", k->verify_c_path, k->verify_c_so,
                       why ? why : "?");
    }
    void *f = dlsym(h, k->verify_c_func);
    if (!f)
        return gh_fail(r, "C reference %s: no function '%s'", k->verify_c_path, k->verify_c_func);
    gl_kernel_cref_fn fn;
    memcpy(&fn, &f, sizeof fn);
    *missed = (char *)dlsym(h, "gl_cref_missed");
    if (ncrefs < GK_MAX_CREFS) {
        snprintf(crefs[ncrefs].so, sizeof crefs[ncrefs].so, "%s", k->verify_c_so);
        snprintf(crefs[ncrefs].func, sizeof crefs[ncrefs].func, "%s", k->verify_c_func);
        crefs[ncrefs].missed = *missed;
        crefs[ncrefs++].fn = fn;
    }
    *out = fn;
    return 1;
}

/* ---- the job ------------------------------------------------------------------------ */

struct gk_arg {
    signed char buf;              /* kernel buffer index, or -1 for a scalar */
    signed char out;              /* that buffer is an output: j->out[idx], else j->in[idx] */
    signed char idx;
    signed char obj;              /* 1 + the object (kernel_objects.cu) whose handle or
                                     tensor map is passed, or 0 */
    unsigned char size;           /* the scalar's bytes */
    union {
        int i;
        unsigned u;
        long long ll;
        unsigned long long ull;
        float f;
        double d;
        unsigned short h;         /* half, bfloat16: the bits (typed.h) */
    } v;
};

/* The job's ctx: plain values (copied when the run is parked). */
struct gk_ctx {
    const struct gl_kernel_variant *kv;
    const struct gl_kernel_variant *ref_kv;   /* the reference variant, or NULL */
    const void *kernel;                       /* cudaKernel_t */
    const void *ref_kernel;                   /* the reference's, or NULL */
    gl_kernel_cref_fn cref;                   /* the C reference, or NULL */
    char *cref_missed;                        /* its gl_cref_missed, or NULL */
    struct gk_seq *seq;                       /* a launch sequence (kernel_sequence.cu), or
                                                 NULL: one launch of kernel with args */
    struct gk_objs *objs;                     /* arrays, textures, surfaces, tensor maps
                                                 (kernel_objects.cu), or NULL */
    int nargs;
    struct gk_arg args[GL_KERNEL_MAX_ARGS];
    /* symbols: each one's variable in the reference kernel's library, where
     * that is another library than the kernel's (else NULL) */
    void *ref_sym[GL_KERNEL_MAX_BUFFERS];
    int cooperative;                          /* launch = cooperative */
    unsigned cluster[3];                      /* cluster = X, Y, Z (0 0 0: none) */
    /* a reference with a launch of its own (another section's variant, or one
     * with grid.NAME, ...: its own gl_kernel): its shape and arguments */
    int ref_own;
    dim3 ref_grid, ref_block;
    size_t ref_smem;
    int ref_nargs;
    struct gk_arg ref_args[GL_KERNEL_MAX_ARGS];
};

/* parked for batch profiling as a copy (gpu_harness.cuh) */
static_assert(sizeof(struct gk_ctx) <= GH_CTX_MAX, "a parked run's ctx must hold gk_ctx");

static cudaError_t launch_with(struct gh_job *j, const void *kernel, int nargs,
                               const struct gk_arg *xa, dim3 grid, dim3 block, size_t smem)
{
    const struct gk_ctx *x = (const struct gk_ctx *)j->ctx;
    void *ptrs[GL_KERNEL_MAX_ARGS];
    void *args[GL_KERNEL_MAX_ARGS];
    for (int i = 0; i < nargs; i++) {
        const struct gk_arg *a = &xa[i];
        if (a->obj > 0) {
            if (!(args[i] = (void *)gk_objects_arg(j, x->objs, a->obj - 1)))
                return cudaErrorUnknown;   /* j->lib_err says why */
        } else if (a->buf >= 0) {
            ptrs[i] = a->out ? (void *)j->out[(int)a->idx].dev : (void *)j->in[(int)a->idx].dev;
            args[i] = &ptrs[i];
        } else {
            args[i] = (void *)&a->v;
        }
    }
    if (!x->cooperative && !x->cluster[0])
        return cudaLaunchKernel(kernel, grid, block, args, smem, 0);
    /* cudaLaunchKernelEx with the launch's attribute: cooperative, or a cluster */
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1] = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = 0;
    if (x->cooperative) {
        attr[0].id = cudaLaunchAttributeCooperative;
        attr[0].val.cooperative = 1;
    } else {
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = x->cluster[0];
        attr[0].val.clusterDim.y = x->cluster[1];
        attr[0].val.clusterDim.z = x->cluster[2];
    }
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelExC(&cfg, kernel, args);
}

static cudaError_t launch(struct gh_job *j, const void *kernel)
{
    const struct gk_ctx *x = (const struct gk_ctx *)j->ctx;
    return launch_with(j, kernel, x->nargs, x->args, j->grid, j->block, j->dyn_smem);
}

/* The reference kernel: with its own shape and arguments when it has them. */
static cudaError_t launch_ref(struct gh_job *j)
{
    const struct gk_ctx *x = (const struct gk_ctx *)j->ctx;
    if (!x->ref_own)
        return launch(j, x->ref_kernel);
    return launch_with(j, x->ref_kernel, x->ref_nargs, x->ref_args, x->ref_grid, x->ref_block,
                       x->ref_smem);
}

/* ---- device values, cooperative launches, clusters ----------------------------------- */

/* occupancy(BLOCK, SMEM) of the kernel being prepared (target.h): the occupancy
 * API, with the kernel's dynamic shared memory limit raised first as a launch
 * would. */
static long long kernel_occupancy(void *ctx, long long block, long long smem, char *err,
                                  size_t errlen)
{
    const void *kernel = ctx;
    int n = 0;
    const struct gl_device *d = gh_device();
    if (block > d->max_threads_per_block || smem > d->smem_per_block_optin) {
        snprintf(err, errlen, "occupancy(%lld, %lld): over the GPU's limits (%d threads, %d "
                 "bytes)", block, smem, d->max_threads_per_block, d->smem_per_block_optin);
        return -1;
    }
    if (smem > d->smem_per_block)
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, (int)block,
                                                                  (size_t)smem);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "occupancy(%lld, %lld): %s", block, smem, cudaGetErrorString(e));
        return -1;
    }
    if (n < 1) {
        snprintf(err, errlen, "occupancy(%lld, %lld) = 0: no block of that shape fits on an SM "
                 "with this kernel's registers and shared memory", block, smem);
        return -1;
    }
    return n;
}

/* The values expressions see of this GPU, and kernel's occupancy (NULL: the
 * estimate, for a launch sequence). */
static void device_values(const void *kernel)
{
    const struct gl_device *d = gh_device();
    struct gl_devvals v;
    gl_devvals_assume(&v);
    v.assumed = 0;
    v.sm_count = d->sm_count;
    v.threads_per_sm = d->max_threads_per_sm;
    v.blocks_per_sm = d->max_blocks_per_sm;
    v.smem_per_sm = d->smem_per_sm;
    v.occupancy = kernel ? kernel_occupancy : NULL;
    v.ctx = (void *)kernel;
    gl_devvals_set(&v);
}

/* A cooperative launch's grid must be resident all at once: skip with the
 * numbers when it cannot be. */
static int cooperative_fits(struct gl_result *r, const void *kernel, dim3 g, dim3 b, size_t smem)
{
    const struct gl_device *d = gh_device();
    int dev = 0, coop = 0, per_sm = 0;
    if (!gh_ok(r, cudaGetDevice(&dev), "cudaGetDevice") ||
        !gh_ok(r, cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev),
               "cudaDeviceGetAttribute(cooperative launch)"))
        return 0;
    if (!coop)
        return gh_skip(r, "launch = cooperative: this GPU does not support cooperative launches");
    if (!gh_ok(r, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel,
                                                                (int)(b.x * b.y * b.z), smem),
               "cudaOccupancyMaxActiveBlocksPerMultiprocessor"))
        return 0;
    unsigned long long blocks = (unsigned long long)g.x * g.y * g.z;
    unsigned long long resident = (unsigned long long)per_sm * (unsigned long long)d->sm_count;
    if (blocks > resident)
        return gh_skip(r, "launch = cooperative: a grid of %llu blocks cannot be resident at once: "
                       "%d blocks of %u threads and %zu bytes of dynamic shared memory fit per SM "
                       "x %d SMs = %llu (grid = sm_count * occupancy(BLOCK, SMEM) is the most)",
                       blocks, per_sm, b.x * b.y * b.z, smem, d->sm_count, resident);
    return 1;
}

/* A cluster launch: the cluster from `cluster =` or the kernel's own
 * __cluster_dims__ (read from the kernel: then no attribute is passed); the
 * grid a multiple of it and at least one cluster resident. */
static int cluster_fits(struct gl_result *r, struct gk_ctx *x, const struct gl_kernel *k,
                        const struct gl_params *p, const void *kernel, dim3 g, dim3 b,
                        size_t smem)
{
    const struct gl_device *d = gh_device();
    struct cudaFuncAttributes fa;
    char err[GL_REASON_MAX];
    unsigned c[3] = { 0, 0, 0 };
    if (!gh_ok(r, cudaFuncGetAttributes(&fa, kernel), "cudaFuncGetAttributes"))
        return 0;
    int compiled = fa.requiredClusterWidth > 0;
    if (compiled) {
        c[0] = (unsigned)fa.requiredClusterWidth;
        c[1] = (unsigned)(fa.requiredClusterHeight > 0 ? fa.requiredClusterHeight : 1);
        c[2] = (unsigned)(fa.requiredClusterDepth > 0 ? fa.requiredClusterDepth : 1);
        if (k->ncluster)
            return gh_fail(r, "cluster = is set, but the kernel has __cluster_dims__(%u, %u, %u)",
                           c[0], c[1], c[2]);
    } else if (k->ncluster) {
        c[1] = c[2] = 1;
        for (int i = 0; i < k->ncluster && i < 3; i++) {
            long long v;
            if (gk_value(k->cluster[i], p, &v, err, sizeof err) != 0)
                return gh_skip(r, "cluster '%s': %s", k->cluster[i], err);
            if (v < 1 || v > 8)
                return gh_skip(r, "cluster '%s' = %lld: must be 1 to 8", k->cluster[i], v);
            c[i] = (unsigned)v;
        }
    } else {
        return 1;   /* no cluster */
    }
    if (d->cc_major < 9)
        return gh_skip(r, "thread-block clusters need compute capability 9.0 or later, and this "
                       "GPU is %d.%d", d->cc_major, d->cc_minor);
    if (g.x % c[0] || g.y % c[1] || g.z % c[2])
        return gh_skip(r, "grid %ux%ux%u is not a multiple of the cluster %ux%ux%u", g.x, g.y, g.z,
                       c[0], c[1], c[2]);
    if (smem > (size_t)d->smem_per_block)
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1] = {};
    cfg.gridDim = g;
    cfg.blockDim = b;
    cfg.dynamicSmemBytes = smem;
    if (!compiled) {
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = c[0];
        attr[0].val.clusterDim.y = c[1];
        attr[0].val.clusterDim.z = c[2];
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    int n = 0;
    cudaError_t e = cudaOccupancyMaxActiveClusters(&n, kernel, &cfg);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();   /* not sticky: the reason is the skip's */
        return gh_skip(r, "a cluster of %ux%ux%u blocks of %u threads and %zu bytes of dynamic "
                       "shared memory cannot be resident: %s", c[0], c[1], c[2],
                       b.x * b.y * b.z, smem, cudaGetErrorString(e));
    }
    if (n < 1)
        return gh_skip(r, "a cluster of %ux%ux%u blocks of %u threads and %zu bytes of dynamic "
                       "shared memory cannot be resident (cudaOccupancyMaxActiveClusters = 0)",
                       c[0], c[1], c[2], b.x * b.y * b.z, smem);
    if (!compiled)
        memcpy(x->cluster, c, sizeof c);
    return 1;
}

static cudaError_t enqueue_kernel(struct gh_job *j)
{
    const struct gk_ctx *x = (const struct gk_ctx *)j->ctx;
    return x->seq ? gk_seq_enqueue(j, x->seq, 0) : launch(j, x->kernel);
}

/* A launch sequence's launch k alone (the profiler's launch-by-launch replay). */
static cudaError_t enqueue_one(struct gh_job *j, int k)
{
    return gk_seq_enqueue_one(j, ((const struct gk_ctx *)j->ctx)->seq, k);
}

/* Free a launch sequence's launches and the objects with the run (or its
 * parked copy). */
static void release_seq(struct gh_job *j)
{
    gk_seq_free(((const struct gk_ctx *)j->ctx)->seq);
    gk_objects_free(((const struct gk_ctx *)j->ctx)->objs);
}

/* ---- references (struct gh_typed.reference) ----------------------------------------- */

/* Copy every symbol of the job between the kernel's variables and the
 * reference kernel's (another library: its own variables): to_ref 1 before the
 * reference runs (all of them), 0 after it (the outputs). */
static cudaError_t ref_symbols(struct gh_job *j, int to_ref)
{
    const struct gk_ctx *x = (const struct gk_ctx *)j->ctx;
    const struct gh_typed *T = j->typed;
    for (int b = 0; b < T->n; b++) {
        const struct gh_tbuf *tb = &T->b[b];
        if (!tb->symbol || !x->ref_sym[b] || (!to_ref && !tb->out))
            continue;
        cudaError_t e = to_ref ? cudaMemcpyAsync(x->ref_sym[b], tb->sym, tb->sym_bytes,
                                                 cudaMemcpyDeviceToDevice, 0)
                               : cudaMemcpyAsync(tb->sym, x->ref_sym[b], tb->sym_bytes,
                                                 cudaMemcpyDeviceToDevice, 0);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

/* The reference variant's kernel on the inputs now on the device (and the
 * symbols set as for any run), its outputs kept there as the expected ones. */
static int kernel_reference(struct gh_job *j)
{
    const struct gk_ctx *x = (const struct gk_ctx *)j->ctx;   /* the live run's */
    char what[GL_KNAME + 48];
    snprintf(what, sizeof what, "reference kernel '%s'", x->ref_kv->name);
    return gh_typed_prepare_outputs(j) && gh_ok(j->r, ref_symbols(j, 1), what) &&
           gh_ok(j->r, x->seq ? gk_seq_enqueue(j, x->seq, 1) : launch_ref(j), what) &&
           gh_ok(j->r, ref_symbols(j, 0), what) &&
           gh_ok(j->r, cudaDeviceSynchronize(), what) && gh_typed_keep_outputs(j);
}

/* The run fails: the C reference asked gl_param_value for a name the point
 * has and it was not handed, so its values may be another point's (or
 * GL_UNSET's). A name the point does not have at all is GL_UNSET rightly (a
 * reference shared by sections that test for an optional parameter). */
static int cref_missed(struct gl_result *r, const struct gl_kernel *k, const char *name)
{
    const struct gl_param_def *d = gl_param_by_name(name);
    if (d)
        return gh_fail(r, "the C reference asked gl_param_value for %s, a built-in parameter: "
                       "it reads p->%s (gl_param_value has the named parameters only)", name,
                       d->column);
    return gh_fail(r, "the C reference read %.*s, which %s", GL_UPARAM_NAME, name,
                   k->verify_reads_all ? "the section does not set" : "verify_reads does not list");
}

/* The C reference on host copies of every buffer as it starts (inputs and
 * reset images made on the device and copied down, outputs poisoned or zero),
 * handed only the parameters it reads (cref.h); its expected values (double,
 * NaN where it sets none) to the device, where the harness keeps them for the
 * runs with the same key (harness_expected.cu). */
static int c_reference(struct gh_job *j)
{
    const struct gk_ctx *x = (const struct gk_ctx *)j->ctx;
    struct gh_host_view v;
    struct gl_params q;
    char err[GL_REASON_MAX - 64];
    int ok = gh_expected_view(j, &v);
    if (ok) {
        err[0] = '\0';
        gl_cref_params(x->kv->k, j->p, &q);
        if (x->cref_missed)
            x->cref_missed[0] = '\0';
        if (x->cref(&q, v.in, v.want, err, sizeof err) != 0)
            ok = gh_fail(j->r, "C reference %s: %s", x->kv->k->verify_c_func,
                         err[0] ? err : "failed (no reason given)");
        else if (x->cref_missed && x->cref_missed[0] &&   /* its values may be another point's */
                 (gl_param_by_name(x->cref_missed) ||
                  gl_param_value(j->p, x->cref_missed) != GL_UNSET))
            ok = cref_missed(j->r, x->kv->k, x->cref_missed);
    }
    return gh_expected_done(j, &v, ok);
}

/* ---- setting the job up at the point -------------------------------------------------- */

/* A scalar argument at p in the bytes the kernel receives (scalar.h); 0 + r
 * skipped when it has no value of its type here. */
static int scalar(struct gl_result *r, int i, const struct gl_karg *ka, const struct gl_params *p,
                  struct gk_arg *a)
{
    struct gl_scalar s;
    char err[GL_REASON_MAX - 32];
    int t = gl_ktype_at(ka->type, ka->tparam, p);
    if (t < 0)
        return gh_skip(r, "argument %d: type parameter %s has no type here", i + 1, ka->tparam);
    if (gl_scalar_eval(t, ka->expr, p, &s, err, sizeof err) != 0)
        return gh_skip(r, "argument %d: %s", i + 1, err);
    a->size = (unsigned char)s.size;
    memset(&a->v, 0, sizeof a->v);
    memcpy(&a->v, s.bytes, s.size);
    return 1;
}

/* Evaluate a launch dimension list (1..3 expressions, others 1). */
static int dims(struct gl_result *r, const char *what, int n, const char (*e)[GL_KEXPR],
                const struct gl_params *p, dim3 *d)
{
    unsigned v[3] = { 1, 1, 1 };
    char err[GL_REASON_MAX];
    for (int i = 0; i < n && i < 3; i++) {
        long long x;
        if (gk_value(e[i], p, &x, err, sizeof err) != 0)
            return gh_skip(r, "%s '%s': %s", what, e[i], err);
        if (x < 1 || x > (long long)UINT_MAX)
            return gh_skip(r, "%s '%s' = %lld: must be 1 to %u", what, e[i], x, UINT_MAX);
        v[i] = (unsigned)x;
    }
    *d = dim3(v[0], v[1], v[2]);
    return 1;
}

/* The first line of a compiler log, for a run's reason. */
static void first_line(const char *log, char *out, size_t len)
{
    size_t n = strcspn(log, "\n");
    snprintf(out, len, "%.*s", (int)n, log);
}

/* Compile (or take from the cache) and load kv's kernel at p for this device;
 * sym (NULL: not wanted) gets the address of each symbol's variable in the
 * kernel's library (NULL for the other buffers), sym_bytes its size. */
static int kernel_at(struct gl_result *r, const struct gl_kernel_variant *kv,
                     const struct gl_params *p, cudaKernel_t *out, void **sym,
                     size_t *sym_bytes)
{
    const struct gl_device *d = gh_device();
    static char log[16384];
    static char elf[GL_KERNEL_MAX_BUFFERS][GL_KEXPR];
    char line[200];
    struct gk_built b;
    cudaLibrary_t lib = NULL;
    gk_build_keep_deps();   /* a run: the headers as the sweep planned them */
    if (gk_build(kv, p, d->cc_major * 10 + d->cc_minor, &b, log, sizeof log) < 0) {
        first_line(log, line, sizeof line);
        return gh_fail(r, "compile %s: %s", kv->name, line);
    }
    if (!load_kernel(r, &b, out, &lib))
        return 0;
    if (!sym)
        return 1;
    int cline = 0;
    if (gk_symbols_check(kv->k, p, b.cubin, &cline, elf, log, sizeof log) != 0)
        return gh_fail(r, "%s", log);
    for (int i = 0; i < kv->k->nbuffers; i++) {
        sym[i] = NULL;
        if (!kv->k->buffers[i].symbol)
            continue;
        char what[GL_KEXPR + 40];
        snprintf(what, sizeof what, "cudaLibraryGetGlobal(%.*s)", GL_KEXPR, elf[i]);
        if (!gh_ok(r, cudaLibraryGetGlobal(&sym[i], &sym_bytes[i], lib, elf[i]), what))
            return 0;
    }
    return 1;
}

/* A reference variant with a kernel of its own (rk: its grid, block, smem
 * and args; the same buffers, checked when the config was read): its launch at
 * the point into x. 1, or 0 with j->r skipped. */
static int ref_shape(struct gh_job *j, struct gk_ctx *x, const struct gl_kernel *rk,
                     const struct gh_typed *T)
{
    struct gl_result *r = j->r;
    const struct gl_params *p = j->p;
    char err[GL_REASON_MAX];
    long long v = 0;
    x->ref_own = 1;
    if (!dims(r, "reference grid", rk->ngrid, rk->grid, p, &x->ref_grid) ||
        !dims(r, "reference block", rk->nblock, rk->block, p, &x->ref_block))
        return 0;
    if (rk->smem[0] && gk_value(rk->smem, p, &v, err, sizeof err) != 0)
        return gh_skip(r, "reference smem '%s': %s", rk->smem, err);
    if (v < 0 || v > INT_MAX)
        return gh_skip(r, "reference smem = %lld bytes", v);
    x->ref_smem = (size_t)v;
    x->ref_nargs = rk->nargs;
    for (int i = 0; i < rk->nargs; i++) {
        const struct gl_karg *a = &rk->args[i];
        x->ref_args[i].buf = (signed char)a->buffer;
        if (a->buffer >= 0) {
            if (a->buffer >= T->n)
                return gh_fail(r, "internal: reference argument %d names buffer %d", i + 1,
                               a->buffer);
            x->ref_args[i].out = (signed char)T->b[a->buffer].out;
            x->ref_args[i].idx = (signed char)T->b[a->buffer].idx;
            continue;
        }
        if (!scalar(r, i, a, p, &x->ref_args[i]))
            return 0;
    }
    return 1;
}

/* The job of kv at the point: its buffers (into T), arguments, launch shape,
 * kernel and reference. 1, or 0 with j->r skipped or failed. */
static int prepare(struct gh_job *j, struct gk_ctx *x, struct gh_typed *T, char *ref_name,
                   size_t ref_len, char *key, size_t key_len, const struct gl_kernel_variant *kv)
{
    const struct gl_params *p = j->p;
    const struct gl_kernel *k = kv->k;
    struct gl_result *r = j->r;
    char err[GL_REASON_MAX];
    cudaKernel_t kern = NULL, ref = NULL;
    long long v;
    int arrays = 0;

    if (gh_parse_mem(p->mem, &j->mem) != 0 || gh_parse_cold(p->cache, &j->cold) != 0)
        return gh_skip(r, "unknown mem '%s' or cache '%s'", p->mem, p->cache);
    if (k->nbuffers > GL_KERNEL_MAX_BUFFERS || k->nbuffers > GH_TYPED_MAX ||
        k->nargs > GL_KERNEL_MAX_ARGS)
        return gh_fail(r, "internal: too many buffers or arguments");
    x->kv = kv;
    /* the target against this GPU (a point of `arch = 90a` on another one) */
    {
        const struct gl_device *d = gh_device();
        int target = gl_arch_effective(k->arch, d->cc_major * 10 + d->cc_minor);
        if (gl_arch_mismatch(target, d->cc_major, d->cc_minor, err, sizeof err))
            return gh_skip(r, "%s", err);
    }
    /* the kernel first: occupancy() in buffer counts, grid, block and smem is its */
    void *sym[GL_KERNEL_MAX_BUFFERS] = {}, *rsym[GL_KERNEL_MAX_BUFFERS] = {};
    size_t sym_bytes[GL_KERNEL_MAX_BUFFERS] = {}, rsym_bytes[GL_KERNEL_MAX_BUFFERS] = {};
    device_values(NULL);
    if (!k->seq && !kernel_at(r, kv, p, &kern, sym, sym_bytes))
        return 0;
    device_values(k->seq ? NULL : (const void *)kern);

    T->n = k->nbuffers;
    for (int b = 0; b < k->nbuffers; b++) {
        const struct gl_kbuffer *kb = &k->buffers[b];
        struct gh_tbuf *tb = &T->b[b];
        if (gk_value(kb->count, p, &v, err, sizeof err) != 0)
            return gh_skip(r, "buffer %s count '%s': %s", kb->name, kb->count, err);
        int type = gl_ktype_at(kb->type, kb->tparam, p);
        if (type < 0)
            return gh_skip(r, "buffer %s: type parameter %s has no type here", kb->name,
                           kb->tparam);
        if (v < 1 || (unsigned long long)v > ((unsigned long long)1 << 40) / gl_ty_esize(type))
            return gh_skip(r, "buffer %s: %lld elements", kb->name, v);
        tb->name = kb->name;
        tb->type = type;
        tb->init = kb->init;
        if (gl_kbuffer_values(kb, p, &tb->value, &tb->value2, err, sizeof err) != 0)
            return gh_skip(r, "%s", err);
        tb->file = kb->file;
        tb->symbol = kb->symbol;
        tb->stream = (unsigned long long)kb->stream;
        tb->count = (size_t)v;
        tb->out = kb->output != 0;
        tb->unordered = kb->unordered;
        tb->arr = kb->array;
        arrays |= kb->array;
    }
    if (!gh_typed_layout(j, T))
        return 0;
    if ((arrays || k->nobjects) && !gk_objects_prepare(j, k, T, &x->objs))
        return 0;
    /* launch.NAME lines: every launch made by kernel_sequence.cu instead */
    if (k->seq && !gk_seq_prepare(j, kv, T, &x->seq))
        return 0;

    x->nargs = k->seq ? 0 : k->nargs;
    for (int i = 0; i < x->nargs; i++) {
        const struct gl_karg *a = &k->args[i];
        x->args[i].buf = (signed char)a->buffer;
        x->args[i].obj = (signed char)a->object;
        if (a->object)
            continue;
        if (a->buffer >= 0) {
            if (a->buffer >= k->nbuffers)
                return gh_fail(r, "internal: argument %d names buffer %d", i + 1, a->buffer);
            x->args[i].out = (signed char)T->b[a->buffer].out;
            x->args[i].idx = (signed char)T->b[a->buffer].idx;
            continue;
        }
        if (!scalar(r, i, a, p, &x->args[i]))
            return 0;
    }
    if (!k->seq && (!dims(r, "grid", k->ngrid, k->grid, p, &j->grid) ||
                    !dims(r, "block", k->nblock, k->block, p, &j->block)))
        return 0;
    v = 0;
    if (!k->seq && k->smem[0] && gk_value(k->smem, p, &v, err, sizeof err) != 0)
        return gh_skip(r, "smem '%s': %s", k->smem, err);
    if (v < 0 || v > INT_MAX)
        return gh_skip(r, "smem = %lld bytes", v);
    if (!k->seq)
        j->dyn_smem = (size_t)v;

    for (int b = 0; b < k->nbuffers; b++) {
        T->b[b].sym = sym[b];
        T->b[b].sym_bytes = sym_bytes[b];
    }
    x->kernel = k->seq ? j->kernel : (const void *)kern;
    T->tol = k->tolerance > 0 ? k->tolerance : 0.0;   /* 0: each output type's default */
    if (k->verify_c_func[0]) {
        if (!load_cref(r, k, &x->cref, &x->cref_missed))
            return 0;
        if (gl_cref_key(k, p, key, key_len, err, sizeof err) != 0)
            return gh_fail(r, "C reference %s: %s", k->verify_c_func, err);
        T->reference = c_reference;
        T->want_key = key;
        snprintf(ref_name, ref_len, "'c:%s'", k->verify_c_func);
    } else if (kv->reference && kv->reference != kv && kv->reference->k) {
        x->ref_kv = kv->reference;
        if (k->seq ? !gk_seq_reference(j, kv, kv->reference, x->seq)
                   : !kernel_at(r, kv->reference, p, &ref, rsym, rsym_bytes))
            return 0;
        for (int b = 0; b < k->nbuffers; b++)   /* the reference's own variables */
            x->ref_sym[b] = rsym[b] != sym[b] ? rsym[b] : NULL;
        x->ref_kernel = (const void *)ref;
        /* the reference launches with the same shape, or its own: it must fit
         * too (and gets its dynamic shared memory limit raised) */
        if (!k->seq && kv->reference->k != k && !ref_shape(j, x, kv->reference->k, T))
            return 0;
        if (!k->seq && !gh_check_launch(r, x->ref_kernel, x->ref_own ? x->ref_grid : j->grid,
                                        x->ref_own ? x->ref_block : j->block,
                                        x->ref_own ? x->ref_smem : j->dyn_smem))
            return 0;
        T->reference = kernel_reference;
        snprintf(ref_name, ref_len, "'%s'", kv->reference->name);
    }
    T->ref_name = ref_name;
    j->kernel = x->kernel;
    if (!k->seq)
        j->launches = 1;
    j->enqueue_launch = k->seq ? enqueue_one : NULL;
    j->release = k->seq || x->objs ? release_seq : NULL;
    j->tol_len = 1;
    j->enqueue = enqueue_kernel;
    j->ctx = x;
    j->ctx_size = sizeof *x;
    if (!gh_check_launch(r, j->kernel, j->grid, j->block, j->dyn_smem))
        return 0;
    if (k->seq)
        return 1;
    x->cooperative = k->cooperative;
    if (x->cooperative && !cooperative_fits(r, j->kernel, j->grid, j->block, j->dyn_smem))
        return 0;
    return x->cooperative || cluster_fits(r, x, k, p, j->kernel, j->grid, j->block, j->dyn_smem);
}

int gk_kernel_run(const struct gl_kernel_variant *kv, const struct gl_params *p,
                  const struct gl_timing *t, struct gl_result *r)
{
    struct gh_job j = {};
    struct gk_ctx x;
    struct gh_typed T;
    char ref_name[GL_KNAME + 8];
    static char key[GL_CREF_KEY_MAX];   /* the C reference's key (one run at a time) */
    int rc;
    if (!kv || !kv->k) {
        gh_result_init(r);
        return gh_fail(r, "internal: kernel_run without a kernel");
    }
    int go = gh_begin(&kv->v, p, t, r);
    if (go <= 0)
        return go;
    x = gk_ctx();   /* value-initialised: its dim3 members have constructors */
    memset(&T, 0, sizeof T);
    ref_name[0] = '\0';
    j.p = p;
    j.t = t;
    j.r = r;
    gl_devvals_trace_reset();
    double t0 = gh_now_s();
    int ok = prepare(&j, &x, &T, ref_name, sizeof ref_name, key, sizeof key, kv);
    r->step_ms[GL_ST_PREPARE] += (gh_now_s() - t0) * 1e3;
    if (!ok) {
        gk_seq_free(x.seq);   /* gh_execute did not get them */
        gk_objects_free(x.objs);
        rc = gh_context_lost() ? -1 : 0;
    } else
        rc = gh_execute(&j);
    /* the device values the point's expressions read here (sm_count, occupancy) */
    snprintf(r->device_values, sizeof r->device_values, "%s", gl_devvals_trace());
    if (r->status != GL_OK && r->nmetrics == 0 && r->metrics_reason[0] == '\0')
        snprintf(r->metrics_reason, sizeof r->metrics_reason, "not profiled: run was not ok");
    return rc;
}

/* ---- for kernel_sequence.cu ---------------------------------------------------------------- */

int gk_kernel_load(struct gl_result *r, const struct gl_kernel_variant *kv,
                   const struct gl_params *p, const void **kernel, char *expr, size_t len)
{
    const struct gl_device *d = gh_device();
    static char log[16384];
    char line[200];
    struct gk_built b;
    cudaKernel_t k = NULL;
    cudaLibrary_t lib = NULL;
    gk_build_keep_deps();   /* a run: the headers as the sweep planned them */
    if (gk_build(kv, p, d->cc_major * 10 + d->cc_minor, &b, log, sizeof log) < 0) {
        first_line(log, line, sizeof line);
        return gh_fail(r, "compile %s (%s): %s", kv->name, kv->expr, line);
    }
    snprintf(expr, len, "%s", b.expr);
    if (!load_kernel(r, &b, &k, &lib))
        return 0;
    *kernel = (const void *)k;
    return 1;
}

int gk_scalar_bytes(struct gl_result *r, int i, const struct gl_karg *ka,
                    const struct gl_params *p, unsigned long long *out)
{
    struct gk_arg a;
    memset(&a, 0, sizeof a);
    if (!scalar(r, i, ka, p, &a))
        return 0;
    *out = 0;
    memcpy(out, &a.v, sizeof a.v < sizeof *out ? sizeof a.v : sizeof *out);
    return 1;
}
