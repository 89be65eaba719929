/* kernel_run.cu - one run of a user's kernel (kernel.h) in the worker: compile
 * it or take it from the kernel cache (kernel_compile.cu) for the device's
 * compute capability, load the cubin (cudaLibraryLoadData, kept loaded for the
 * process), evaluate the buffer counts, arguments, grid, block and dynamic
 * shared memory at the point, and hand the harness a job like a built-in
 * family's (gh_execute: timing, cold L2, resources, guidance, profiling,
 * parking) whose hooks do what differs: typed buffers with init kinds, several
 * outputs, outputs reset to their init before every run, and verification
 * against the reference variant's kernel run on the same inputs, or against the
 * expected values of a C reference (verify = c:FILE:FUNC, dlopen'ed once per
 * process) called on host copies of the buffers (floats within the tolerance,
 * integers exactly, NaN never) or, without either, that no output element is
 * left poisoned.
 * The runtime takes a cudaKernel_t wherever it takes `const void *func`
 * (cudaLaunchKernel, cudaFuncGetAttributes, cudaFuncSetAttribute, occupancy):
 * the harness uses the handle as it uses a built-in kernel's address.
 * Must not link or call libcuda directly, time or profile anything itself, or
 * decide which variants exist (the config does). */
#include "gpu_harness.cuh"
#include "kernel_int.cuh"
#include "host_buffers.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "reference.h"
}

/* ---- loaded kernels --------------------------------------------------------------- */

#define GK_MAX_LIBS 1024

/* Libraries stay loaded until shutdown: a run parked for batch profiling
 * launches its kernel again after kernel_run returned. */
static struct gk_lib {
    char cubin[GK_PATH];
    cudaLibrary_t lib;
    cudaKernel_t kernel;
} libs[GK_MAX_LIBS];
static int nlibs;

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = (char *)malloc((size_t)n)) != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf)
        *len = (size_t)n;
    return buf;
}

/* The kernel of b, loaded once per process (the cache key is in the path). */
static int load_kernel(struct gl_result *r, const struct gk_built *b, cudaKernel_t *out)
{
    for (int i = 0; i < nlibs; i++)
        if (strcmp(libs[i].cubin, b->cubin) == 0) {
            *out = libs[i].kernel;
            return 1;
        }
    size_t len = 0;
    char *data = read_file(b->cubin, &len);
    if (!data)
        return gh_fail(r, "kernel cache: cannot read %s", b->cubin);
    cudaLibrary_t lib = NULL;
    cudaKernel_t k = NULL;
    int ok = gh_ok(r, cudaLibraryLoadData(&lib, data, NULL, NULL, 0, NULL, NULL, 0),
                   "cudaLibraryLoadData");
    free(data);
    if (!ok)
        return 0;
    if (!gh_ok(r, cudaLibraryGetKernel(&k, lib, b->lowered), "cudaLibraryGetKernel")) {
        if (!gh_context_lost())
            cudaLibraryUnload(lib);
        return 0;
    }
    if (nlibs < GK_MAX_LIBS) {   /* beyond that, loaded per run and never unloaded */
        snprintf(libs[nlibs].cubin, sizeof libs[nlibs].cubin, "%s", b->cubin);
        libs[nlibs].lib = lib;
        libs[nlibs].kernel = k;
        nlibs++;
    }
    *out = k;
    return 1;
}

void gk_shutdown(void)
{
    if (!gh_context_lost())
        for (int i = 0; i < nlibs; i++)
            cudaLibraryUnload(libs[i].lib);
    nlibs = 0;
}

/* ---- C references (verify = c:FILE:FUNC) --------------------------------------------- */

#define GK_MAX_CREFS 64

/* Loaded once per process and kept (dlclose would unload code a later run calls). */
static struct gk_cref {
    char so[sizeof(((struct gl_kernel *)0)->verify_c_so)];
    char func[GL_KNAME];
    gl_kernel_cref_fn fn;
} crefs[GK_MAX_CREFS];
static int ncrefs;

/* k's C reference function (the plan's compile step built the .so). */
static int load_cref(struct gl_result *r, const struct gl_kernel *k, gl_kernel_cref_fn *out)
{
    for (int i = 0; i < ncrefs; i++)
        if (strcmp(crefs[i].so, k->verify_c_so) == 0 && strcmp(crefs[i].func, k->verify_c_func) == 0) {
            *out = crefs[i].fn;
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
    if (ncrefs < GK_MAX_CREFS) {
        snprintf(crefs[ncrefs].so, sizeof crefs[ncrefs].so, "%s", k->verify_c_so);
        snprintf(crefs[ncrefs].func, sizeof crefs[ncrefs].func, "%s", k->verify_c_func);
        crefs[ncrefs++].fn = fn;
    }
    *out = fn;
    return 1;
}

/* ---- the job ------------------------------------------------------------------------ */

struct gk_arg {
    signed char buf;              /* kernel buffer index, or -1 for a scalar */
    unsigned char size;           /* the scalar's bytes */
    union {
        int i;
        unsigned u;
        long long ll;
        unsigned long long ull;
        float f;
        double d;
    } v;
};

/* The job's ctx: plain values (copied when the run is parked). */
struct gk_ctx {
    const struct gl_kernel_variant *kv;
    const struct gl_kernel_variant *ref_kv;   /* the reference variant, or NULL */
    const void *kernel;                       /* cudaKernel_t */
    const void *ref_kernel;                   /* the reference's, or NULL */
    int nargs;
    struct gk_arg args[GL_KERNEL_MAX_ARGS];
    signed char is_out[GL_KERNEL_MAX_BUFFERS];   /* per kernel buffer: an output */
    signed char idx[GL_KERNEL_MAX_BUFFERS];      /* its index in j->in or j->out */
    signed char img[GL_KERNEL_MAX_BUFFERS];      /* an output's reset image in j->in, or -1 */
    void *ref[GH_MAX_OUT];                       /* the reference's outputs (host, malloc'd) */
    gl_kernel_cref_fn cref;                      /* the C reference, or NULL */
    double *refd[GH_MAX_OUT];                    /* its expected outputs (malloc'd) */
};

static const char *type_name(enum gl_ktype t)
{
    static const char *const n[] = { "float", "double", "int", "uint", "int64", "uint64" };
    return (unsigned)t < 6 ? n[t] : "?";
}

/* Fill a buffer's host side as its init says (host_buffers.h: random floats are
 * multiples of 2^-24 in [0, 1), integers u * 2^24). 1, or 0 with r failed. */
static int fill_buffer(struct gl_result *r, const struct gl_kbuffer *kb, void *host, size_t n,
                       unsigned long long seed)
{
    if (gl_hb_fill(host, kb->type, n, kb->init, kb->value, seed,
                   (unsigned long long)kb->stream) != 0)
        return gh_fail(r, "out of host memory filling buffer '%s'", kb->name);
    return 1;
}

static cudaError_t launch(struct gh_job *j, const void *kernel)
{
    const struct gk_ctx *x = (const struct gk_ctx *)j->ctx;
    void *ptrs[GL_KERNEL_MAX_ARGS];
    void *args[GL_KERNEL_MAX_ARGS];
    for (int i = 0; i < x->nargs; i++) {
        const struct gk_arg *a = &x->args[i];
        if (a->buf >= 0) {
            int k = x->idx[(int)a->buf];
            ptrs[i] = x->is_out[(int)a->buf] ? (void *)j->out[k].dev : (void *)j->in[k].dev;
            args[i] = &ptrs[i];
        } else {
            args[i] = (void *)&a->v;
        }
    }
    return cudaLaunchKernel(kernel, j->grid, j->block, args, j->dyn_smem, 0);
}

static cudaError_t enqueue_kernel(struct gh_job *j)
{
    return launch(j, ((const struct gk_ctx *)j->ctx)->kernel);
}

/* ---- hooks (gpu_harness.cuh struct gh_hooks) ------------------------------------------- */

static int hook_fill(struct gh_job *j, unsigned long long seed)
{
    const struct gk_ctx *x = (const struct gk_ctx *)j->ctx;
    const struct gl_kernel *k = x->kv->k;
    for (int b = 0; b < k->nbuffers; b++) {
        const struct gl_kbuffer *kb = &k->buffers[b];
        if (!x->is_out[b]) {
            struct gl_kbuffer in = *kb;
            if (in.init == GL_KI_POISON)   /* an input without init is random */
                in.init = GL_KI_RANDOM;
            if (!fill_buffer(j->r, &in, j->in[(int)x->idx[b]].host, j->in[(int)x->idx[b]].count,
                             seed))
                return 0;
        } else if (x->img[b] >= 0 &&
                   !fill_buffer(j->r, kb, j->in[(int)x->img[b]].host,
                                j->in[(int)x->img[b]].count, seed)) {
            return 0;
        }
    }
    return 1;
}

/* Enqueue the outputs' initial state: poisoned (all bits set: NaN for floats),
 * zero, or a copy of the reset image; poison = 0 leaves outputs without init as
 * they are. */
static cudaError_t init_outputs(struct gh_job *j, int poison)
{
    const struct gk_ctx *x = (const struct gk_ctx *)j->ctx;
    const struct gl_kernel *k = x->kv->k;
    for (int b = 0; b < k->nbuffers; b++) {
        if (!x->is_out[b])
            continue;
        const struct gh_buf *o = &j->out[(int)x->idx[b]];
        cudaError_t e = cudaSuccess;
        if (x->img[b] >= 0)
            e = cudaMemcpyAsync(o->dev, j->in[(int)x->img[b]].dev, gh_buf_bytes(o),
                                cudaMemcpyDefault, 0);
        else if (k->buffers[b].init == GL_KI_ZERO)
            e = cudaMemsetAsync(o->dev, 0, gh_buf_bytes(o), 0);
        else if (poison)
            e = cudaMemsetAsync(o->dev, 0xff, gh_buf_bytes(o), 0);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

static cudaError_t hook_reset(struct gh_job *j)
{
    return init_outputs(j, 0);
}

static int hook_prepare(struct gh_job *j)
{
    return gh_ok(j->r, init_outputs(j, 1), "output poison/init") &&
           gh_ok(j->r, cudaDeviceSynchronize(), "output poison/init");
}

/* The C reference on host copies of every buffer: inputs as filled, outputs
 * as they start (their reset image, zeros or poison); expected values in
 * x->refd for check. */
static int c_reference(struct gh_job *j, struct gk_ctx *x)
{
    const struct gl_kernel *k = x->kv->k;
    const void *in[GL_KERNEL_MAX_BUFFERS];
    void *own[GL_KERNEL_MAX_BUFFERS] = { 0 };
    char err[GL_REASON_MAX - 64];
    int ok = 1;
    for (int b = 0; b < k->nbuffers && ok; b++) {
        const struct gl_kbuffer *kb = &k->buffers[b];
        if (!x->is_out[b]) {
            in[b] = j->in[(int)x->idx[b]].host;
        } else if (x->img[b] >= 0) {
            in[b] = j->in[(int)x->img[b]].host;
        } else {
            const struct gh_buf *o = &j->out[(int)x->idx[b]];
            own[b] = malloc(gh_buf_bytes(o));
            if (!own[b]) {
                ok = gh_fail(j->r, "out of host memory for the C reference's inputs");
                break;
            }
            memset(own[b], kb->init == GL_KI_ZERO ? 0 : 0xff, gh_buf_bytes(o));
            in[b] = own[b];
        }
    }
    for (int o = 0; o < j->nout && ok; o++) {
        x->refd[o] = (double *)malloc(j->out[o].count * sizeof(double));
        if (!x->refd[o]) {
            ok = gh_fail(j->r, "out of host memory for the C reference's outputs");
            break;
        }
        for (size_t i = 0; i < j->out[o].count; i++)
            x->refd[o][i] = NAN;
    }
    if (ok) {
        err[0] = '\0';
        if (x->cref(j->p, in, x->refd, err, sizeof err) != 0)
            ok = gh_fail(j->r, "C reference %s: %s", k->verify_c_func,
                         err[0] ? err : "failed (no reason given)");
    }
    for (int b = 0; b < k->nbuffers; b++)
        free(own[b]);
    return ok;
}

/* Run the reference variant's kernel on the inputs now on the device and keep
 * its outputs (host copies) for check; or the C reference on the host copies. */
static int hook_reference(struct gh_job *j)
{
    struct gk_ctx *x = (struct gk_ctx *)j->ctx;   /* the run's own ctx, not a parked copy */
    char what[GL_KNAME + 48];
    if (x->cref)
        return c_reference(j, x);
    if (!x->ref_kernel)
        return 1;
    snprintf(what, sizeof what, "reference kernel '%s'", x->ref_kv->name);
    if (!hook_prepare(j) || !gh_ok(j->r, launch(j, x->ref_kernel), what) ||
        !gh_ok(j->r, cudaDeviceSynchronize(), what))
        return 0;
    for (int o = 0; o < j->nout; o++) {
        size_t bytes = gh_buf_bytes(&j->out[o]);
        x->ref[o] = malloc(bytes);
        if (!x->ref[o])
            return gh_fail(j->r, "out of host memory for the reference's outputs");
        if (!gh_ok(j->r, cudaMemcpy(x->ref[o], j->out[o].dev, bytes, cudaMemcpyDefault),
                   "cudaMemcpy(reference output D2H)"))
            return 0;
    }
    return 1;
}


static void wrong(struct gl_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void wrong(struct gl_result *r, const char *fmt, ...)
{
    if (r->status != GL_OK)
        return;
    va_list ap;
    va_start(ap, fmt);
    r->status = GL_WRONG;
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
}

static int hook_check(struct gh_job *j)
{
    const struct gk_ctx *x = (const struct gk_ctx *)j->ctx;
    const struct gl_kernel *k = x->kv->k;
    struct gl_result *r = j->r;
    double tol = k->tolerance > 0 ? k->tolerance : 1e-5;
    double atol = tol / 10.0;   /* absolute floor: near-zero values (1e-6 by default) */
    for (int b = 0; b < k->nbuffers; b++) {
        if (!x->is_out[b])
            continue;
        const struct gl_kbuffer *kb = &k->buffers[b];
        int o = x->idx[b];
        const void *got = j->out[o].host;
        const void *want = x->ref[o];
        const double *wantd = x->refd[o];   /* the C reference's, in double */
        size_t n = j->out[o].count, nbad = 0, first = 0;
        double maxerr = 0.0;
        if (!want && !wantd) {   /* no reference: every element written (poison left = unwritten) */
            if (kb->init != GL_KI_POISON)
                continue;
            if (!r->check[0])
                snprintf(r->check, sizeof r->check, "%s", GL_CHECK_WRITTEN);
            for (size_t i = 0; i < n; i++)
                if (gl_hb_unwritten(got, kb->type, i))
                    if (nbad++ == 0)
                        first = i;
            if (nbad)
                wrong(r, "output '%s': %zu of %zu elements not written (first at %zu)", kb->name,
                      nbad, n, first);
            continue;
        }
        snprintf(r->check, sizeof r->check, "%s", GL_CHECK_FULL);
        r->check_points += (long long)n;
        for (size_t i = 0; i < n; i++) {
            double g = gl_hb_get(got, kb->type, i), w = wantd ? wantd[i] : gl_hb_get(want, kb->type, i);
            double err;
            int bad;
            if (gl_hb_is_float(kb->type)) {
                double d = fabs(g - w);
                err = isnan(g) || isnan(w) ? INFINITY : g == w ? 0.0 : w != 0.0 ? d / fabs(w) : d;
                bad = isnan(err) || !(g == w || d <= atol + tol * fabs(w));
            } else if (wantd) {
                bad = isnan(w) || g != w;
                err = !bad ? 0.0 : w != 0.0 ? fabs(g - w) / fabs(w) : fabs(g - w);
                if (bad && !(err > 0.0))
                    err = INFINITY;
            } else {
                bad = gl_hb_esize(kb->type) == 8
                    ? ((const uint64_t *)got)[i] != ((const uint64_t *)want)[i]
                    : ((const uint32_t *)got)[i] != ((const uint32_t *)want)[i];
                err = bad ? (w != 0.0 ? fabs(g - w) / fabs(w) : fabs(g - w)) : 0.0;
                if (bad && err == 0.0)
                    err = INFINITY;   /* differ beyond a double's precision */
            }
            if (isnan(err))
                err = INFINITY;
            if (err > maxerr)
                maxerr = err;
            if (bad && nbad++ == 0)
                first = i;
        }
        if (maxerr > r->max_rel_err)
            r->max_rel_err = maxerr;
        if (nbad) {
            char tl[40] = "";
            if (gl_hb_is_float(kb->type))
                snprintf(tl, sizeof tl, " (tolerance %.1e)", tol);
            char rn[GL_KNAME + 4];
            snprintf(rn, sizeof rn, "%s%s", wantd ? "c:" : "",
                     wantd ? k->verify_c_func : x->ref_kv->name);
            wrong(r, "output '%s': %zu of %zu elements differ from '%s'%s; first at %zu: got %.9g "
                     "want %.9g", kb->name, nbad, n, rn, tl, first, gl_hb_get(got, kb->type, first),
                  wantd ? wantd[first] : gl_hb_get(want, kb->type, first));
        }
    }
    return 1;
}

static const struct gh_hooks hooks_reset = { hook_fill, hook_reference, hook_prepare, hook_check,
                                             hook_reset };
static const struct gh_hooks hooks_plain = { hook_fill, hook_reference, hook_prepare, hook_check,
                                             NULL };

/* ---- setting the job up at the point -------------------------------------------------- */

/* A scalar argument's value converted to its type; 0 + r when out of range. */
static int scalar(struct gl_result *r, int i, enum gl_ktype t, long long v, struct gk_arg *a)
{
    a->size = (unsigned char)gl_hb_esize(t);
    switch (t) {
    case GL_KT_INT:
        if (v < INT_MIN || v > INT_MAX)
            break;
        a->v.i = (int)v;
        return 1;
    case GL_KT_UINT:
        if (v < 0 || v > (long long)UINT_MAX)
            break;
        a->v.u = (unsigned)v;
        return 1;
    case GL_KT_INT64:
        a->v.ll = v;
        return 1;
    case GL_KT_UINT64:
        if (v < 0)
            break;
        a->v.ull = (unsigned long long)v;
        return 1;
    case GL_KT_FLOAT:
        a->v.f = (float)v;
        return 1;
    case GL_KT_DOUBLE:
        a->v.d = (double)v;
        return 1;
    }
    return gh_skip(r, "argument %d: %lld is out of range for %s", i + 1, v, type_name(t));
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

/* Compile (or take from the cache) and load kv's kernel at p for this device. */
static int kernel_at(struct gl_result *r, const struct gl_kernel_variant *kv,
                     const struct gl_params *p, cudaKernel_t *out)
{
    const struct gl_device *d = gh_device();
    static char log[16384];
    char line[200];
    struct gk_built b;
    if (gk_build(kv, p, d->cc_major * 10 + d->cc_minor, &b, log, sizeof log) < 0) {
        first_line(log, line, sizeof line);
        return gh_fail(r, "compile %s: %s", kv->name, line);
    }
    return load_kernel(r, &b, out);
}

static int prepare(struct gh_job *j, struct gk_ctx *x, const struct gl_kernel_variant *kv)
{
    const struct gl_params *p = j->p;
    const struct gl_kernel *k = kv->k;
    struct gl_result *r = j->r;
    char err[GL_REASON_MAX];
    cudaKernel_t kern = NULL, ref = NULL;
    long long v;
    int nin = 0, nout = 0, nimg = 0;

    if (gh_parse_mem(p->mem, &j->mem) != 0 || gh_parse_cold(p->cache, &j->cold) != 0)
        return gh_skip(r, "unknown mem '%s' or cache '%s'", p->mem, p->cache);
    if (k->nbuffers > GL_KERNEL_MAX_BUFFERS || k->nargs > GL_KERNEL_MAX_ARGS)
        return gh_fail(r, "internal: too many buffers or arguments");
    x->kv = kv;
    for (int b = 0; b < k->nbuffers; b++) {
        const struct gl_kbuffer *kb = &k->buffers[b];
        if (gk_value(kb->count, p, &v, err, sizeof err) != 0)
            return gh_skip(r, "buffer %s count '%s': %s", kb->name, kb->count, err);
        if (v < 1 || (unsigned long long)v > ((unsigned long long)1 << 40) / gl_hb_esize(kb->type))
            return gh_skip(r, "buffer %s: %lld elements", kb->name, v);
        x->is_out[b] = (signed char)(kb->output != 0);
        x->img[b] = -1;
        if (kb->output) {
            x->idx[b] = (signed char)nout;
            j->out_count[nout] = (size_t)v;
            j->out_esize[nout] = gl_hb_esize(kb->type);
            nout++;
        } else {
            x->idx[b] = (signed char)nin;
            j->in_count[nin] = (size_t)v;
            j->in_esize[nin] = gl_hb_esize(kb->type);
            nin++;
        }
    }
    if (nout < 1 || nout > GH_MAX_OUT)
        return gh_fail(r, "internal: %d output buffers (1 to %d)", nout, GH_MAX_OUT);
    /* reset images of outputs whose init is not zero (zero is a memset): inputs
     * the kernel never sees, after the real ones */
    for (int b = 0; b < k->nbuffers; b++) {
        const struct gl_kbuffer *kb = &k->buffers[b];
        if (!kb->output || kb->init == GL_KI_POISON || kb->init == GL_KI_ZERO)
            continue;
        int i = nin + nimg++;
        x->img[b] = (signed char)i;
        j->in_count[i] = j->out_count[(int)x->idx[b]];
        j->in_esize[i] = gl_hb_esize(kb->type);
    }
    j->nin = nin + nimg;
    j->naux = nimg;
    j->nout = nout;

    x->nargs = k->nargs;
    for (int i = 0; i < k->nargs; i++) {
        const struct gl_karg *a = &k->args[i];
        x->args[i].buf = (signed char)a->buffer;
        if (a->buffer >= 0) {
            if (a->buffer >= k->nbuffers)
                return gh_fail(r, "internal: argument %d names buffer %d", i + 1, a->buffer);
            continue;
        }
        if (gk_value(a->expr, p, &v, err, sizeof err) != 0)
            return gh_skip(r, "argument %d '%s': %s", i + 1, a->expr, err);
        if (!scalar(r, i, a->type, v, &x->args[i]))
            return 0;
    }
    if (!dims(r, "grid", k->ngrid, k->grid, p, &j->grid) ||
        !dims(r, "block", k->nblock, k->block, p, &j->block))
        return 0;
    v = 0;
    if (k->smem[0] && gk_value(k->smem, p, &v, err, sizeof err) != 0)
        return gh_skip(r, "smem '%s': %s", k->smem, err);
    if (v < 0 || v > INT_MAX)
        return gh_skip(r, "smem = %lld bytes", v);
    j->dyn_smem = (size_t)v;

    if (!kernel_at(r, kv, p, &kern))
        return 0;
    x->kernel = (const void *)kern;
    if (k->verify_c_func[0]) {
        if (!load_cref(r, k, &x->cref))
            return 0;
    } else if (kv->reference && kv->reference != kv && kv->reference->k) {
        x->ref_kv = kv->reference;
        if (!kernel_at(r, kv->reference, p, &ref))
            return 0;
        x->ref_kernel = (const void *)ref;
        /* the reference launches with the same shape: it must fit too (and gets
         * its dynamic shared memory limit raised) */
        if (!gh_check_launch(r, x->ref_kernel, j->grid, j->block, j->dyn_smem))
            return 0;
    }
    j->kernel = x->kernel;
    j->launches = 1;
    j->tol_len = 1;
    j->enqueue = enqueue_kernel;
    /* outputs with an init are reset before every run; without any, no reset step */
    j->hooks = &hooks_plain;
    for (int b = 0; b < k->nbuffers; b++)
        if (k->buffers[b].output && k->buffers[b].init != GL_KI_POISON)
            j->hooks = &hooks_reset;
    j->ctx = x;
    j->ctx_size = sizeof *x;
    return gh_check_launch(r, j->kernel, j->grid, j->block, j->dyn_smem);
}

int gk_kernel_run(const struct gl_kernel_variant *kv, const struct gl_params *p,
                  const struct gl_timing *t, struct gl_result *r)
{
    struct gh_job j = {};
    struct gk_ctx x;
    int rc;
    if (!kv || !kv->k) {
        gh_result_init(r);
        return gh_fail(r, "internal: kernel_run without a kernel");
    }
    int go = gh_begin(&kv->v, p, t, r);
    if (go <= 0)
        return go;
    memset(&x, 0, sizeof x);
    j.p = p;
    j.t = t;
    j.r = r;
    if (!prepare(&j, &x, kv))
        rc = gh_context_lost() ? -1 : 0;
    else
        rc = gh_execute(&j);
    for (int o = 0; o < GH_MAX_OUT; o++) {
        free(x.ref[o]);
        free(x.refd[o]);
    }
    if (r->status != GL_OK && r->nmetrics == 0 && r->metrics_reason[0] == '\0')
        snprintf(r->metrics_reason, sizeof r->metrics_reason, "not profiled: run was not ok");
    return rc;
}
