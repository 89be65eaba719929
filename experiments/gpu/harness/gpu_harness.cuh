/* gpu_harness.cuh - the harness every GPU kernel family shares. A family
 * (matmul.cu, stencil.cu, vecadd.cu) checks its parameters, picks its kernel,
 * says how many inputs and outputs it has and enqueues its launches; the
 * harness does everything else the same way for all of them: CUDA error
 * checking (sticky vs ordinary), buffers for mem = device | zerocopy | managed,
 * random inputs (generated on the device for device memory), timed
 * host<->device copies, NaN-poisoned verification runs checked on the device
 * against the float64 reference, warm-up and event-timed samples with the L2
 * flush, per-kernel resources and occupancy limits, launch guidance, and the
 * profiled replay through cupti/profiler.h. A user's job (a kernel section's
 * run, kernel_run.cu, or a plugin's, host_gpu.cu) goes through the same steps
 * with typed buffers, several outputs and its own reference, described by
 * struct gh_typed: filled, reset and checked on the device too
 * (harness_typed.cu). The harness is split by job into harness_*.cu
 * (harness_int.cuh is their private header).
 * Must not contain a family's kernels, nor decide which variants exist. */
#ifndef GL_GPU_HARNESS_CUH
#define GL_GPU_HARNESS_CUH

#include <cuda_runtime.h>
#include <stddef.h>

extern "C" {
#include "gpulab.h"
#include "params.h"
#include "plugin.h"
}

#define GH_MAX_IN 32  /* input buffers of one problem (a user kernel's inputs and the images
                         its outputs are reset from) */
#define GH_MAX_OUT 16 /* output buffers of one problem */

enum gh_mem { GH_MEM_DEVICE, GH_MEM_ZEROCOPY, GH_MEM_MANAGED };

/* One array as both sides see it: float for the built-in families, any element
 * size for a user's kernel (host and dev are then cast). device: host is pinned
 * host memory and dev a cudaMalloc copy; zerocopy: host is mapped pinned memory
 * and dev its device alias; managed: host == dev (cudaMallocManaged). */
struct gh_buf {
    float *host;
    float *dev;
    size_t count;   /* elements */
    size_t esize;   /* bytes per element */
    /* what its host memory holds, when it is a built-in family's zero-copy input
     * made from the seed (harness_execute.cu: a pooled buffer that holds the
     * same input already is not written again); made 0 by anything else */
    int holds_input;
    unsigned long long input_seed, input_stream;
    int lent;       /* 1: shared with other runs while parked (harness_lend.cu) */
};

static inline size_t gh_buf_bytes(const struct gh_buf *b)
{
    return b->count * b->esize;
}

struct gh_job;

/* Enqueue every launch that makes up one run on the default stream, without
 * synchronizing. Returns cudaSuccess or the first error; a library failure
 * that is no CUDA error writes j->lib_err and returns cudaErrorUnknown. */
typedef cudaError_t (*gh_enqueue_fn)(struct gh_job *j);


/* On-device checks of the built-in families (harness_check.cu). A family's
 * check_dev enqueues gh_compare (gh_compare.cuh) of j->out[0].dev against its
 * float64 reference into c, on the default stream, without synchronizing. */
struct gh_cmp;
typedef cudaError_t (*gh_devcheck_fn)(struct gh_job *j, struct gh_cmp *c);

/* A device reference is known by its family, up to three sizes and the seed
 * (the inputs are a pure function of these: rng.h). */
struct gh_refkey {
    const char *family;   /* a string literal */
    long a, b, c;
    long long seed;
};
/* Enqueue the float64 reference into out (j->out_count[0] doubles of device
 * memory) from in[i] (j->in_count[i] floats each, device memory holding the
 * random stream (seed, i)), on the default stream. */
typedef cudaError_t (*gh_devref_fn)(const struct gh_job *j, float *const *in, double *out);

/* The harness gets a family's reference before it allocates the run's buffers:
 * from a cache of device arrays when j->refkey matches, else computed by
 * j->devref (synchronously, on inputs the harness generates for it) and kept,
 * into j->ref_dev (valid for the run). */
/* Have j checked on the device against the reference that fn computes, cached
 * under (family, a, b, c, the run's seed): sets devref, refkey and check_dev. */
void gh_use_devref(struct gh_job *j, gh_devref_fn fn, const char *family, long a, long b, long c);
/* The run's seed (42 when unset). */
static inline unsigned long long gh_seed(const struct gl_params *p)
{
    return p->seed == GL_UNSET ? 42ull : (unsigned long long)p->seed;
}
/* Fill dev[0..n) (device-accessible) with the random stream (seed, stream) of
 * rng.h, on the device; enqueued on the default stream. */
cudaError_t gh_fill_random_dev(float *dev, size_t n, unsigned long long seed,
                               unsigned long long stream);

/* Fill dev[0..n) (device-accessible, elements of type, enum gl_ktype) as
 * init says (enum gl_kinit; typed.h: the numbers host_buffers.c's gl_hb_fill
 * makes), on the device; enqueued on the default stream. */
cudaError_t gh_typed_fill_dev(void *dev, int type, int init, double value, size_t n,
                              unsigned long long seed, unsigned long long stream);
/* The same with a kernel section's two numbers (typed.h gl_ty_init_value2:
 * random(a, b), randint(a, b), normal(a, b), const(a)). Not for init file. */
cudaError_t gh_typed_fill_dev2(void *dev, int type, int init, double a, double b, size_t n,
                               unsigned long long seed, unsigned long long stream);

/* What a user's job (kernel_run.cu, host_gpu.cu) has that a built-in family
 * has not: typed buffers with init kinds (plugin.h enum gl_kinit), several
 * outputs, outputs reset to their init before every run, and a reference of
 * its own. The job's adapter describes the buffers and the reference;
 * harness_typed.cu makes the inputs (on the device for device memory, unless
 * the reference reads them on the host), poisons and resets the outputs, and
 * checks them on the device (typed.h's rules), bringing back the verdict only.
 * Lives as long as the run (not copied when it is parked). */
#define GH_TYPED_MAX 16   /* buffers of one user's job (kernel.h, plugin.h: 16) */

struct gh_tbuf {              /* one buffer, in the order the kernel or plugin declares it */
    const char *name;
    int type;                 /* enum gl_ktype */
    int init;                 /* enum gl_kinit: an input's poison is random */
    double value;             /* init const; random, randint: lo; normal: mu */
    double value2;            /* random, randint: hi (plain random: 1); normal: sigma */
    const char *file;         /* init file: its path */
    unsigned long long stream;/* init random: its stream of the run's seed */
    size_t count;             /* elements */
    int out;                  /* an output */
    int unordered;            /* ... compared as a multiset (host_buffers.h gl_hb_unordered:
                                 both sides copied to the host and sorted) */
    int idx;                  /* set by gh_typed_layout: index in j->in or j->out */
    int img;                  /* ... an output's reset image in j->in (init const, ramp or
                                 random; zero is a memset), or an input's pristine copy
                                 (harness_restore.cu), or -1 */
    /* A kernel section's symbol (kernel.h gl_kbuffer.symbol): the module's variable,
     * set before every run from the buffer (an input: j->in[idx] holds its contents;
     * an output: its starting state, and read back into j->out[idx] before checks).
     * symbol 0: an ordinary buffer, passed as a pointer. */
    int symbol;
    void *sym;                /* the variable's device address (the adapter sets it) */
    size_t sym_bytes;
    /* A kernel section's array (kernel.h gl_kbuffer.array): a cudaArray the buffer is
     * copied into before every run, and (an output) read back from before checks,
     * as a symbol's variable. arr is set before gh_typed_layout; array (a
     * cudaArray_t) and ext (its width, height and depth in elements, 1 where it
     * has fewer dimensions) by the adapter before gh_execute. */
    int arr;
    void *array;
    size_t ext[3];
};

struct gh_typed {
    int n;
    struct gh_tbuf b[GH_TYPED_MAX];
    /* The reference, once the inputs are made: sets the expected outputs with
     * gh_typed_keep_outputs (a kernel run on the device's buffers),
     * gh_typed_host_done (a host reference's doubles, gh_host_view) or, with a
     * want_key, gh_expected_done (gh_expected_view). NULL: none (an output
     * without init then only has to be written). 1, or 0 with j->r set. */
    int (*reference)(struct gh_job *j);
    int host_inputs;          /* the reference reads the inputs on the host: they are made
                                 there and copied, not made on the device */
    /* The key of a host reference's expected outputs (a kernel section's C
     * reference: experiments/cref.h), or NULL. With a key, the harness takes
     * them from its cache when it holds the key, and reference is not called;
     * else it allocates them before the run's own buffers, reference fills them
     * through gh_expected_view / gh_expected_done, and they are kept for the
     * runs that follow (harness_expected.cu). host_inputs stays 0: the inputs
     * are made on the device and copied down for the reference. */
    const char *want_key;
    double tol;               /* relative tolerance of float outputs; 0: each output
                                 type's default (typed.h gl_ty_default_tol) */
    const char *ref_name;     /* the reference as reasons name it: "the reference", "'naive'" */
    /* set by the harness */
    int want_double;          /* want holds doubles (a host reference's), else each output's
                                 own type (a reference kernel's) */
    void *want[GH_MAX_OUT];   /* the expected outputs, device memory */
    int want_ready;           /* want came from the cache: reference is not called */
    int want_kept;            /* want is the cache's: not freed with the run */
};

/* Lay T's buffers out in j: counts and element sizes of j's inputs (the
 * kernel's, then the reset images) and outputs, and each buffer's idx / img.
 * 1, or 0 with j->r failed (too many buffers). */
int gh_typed_layout(struct gh_job *j, struct gh_typed *T);
/* Enqueue the outputs' starting state (a copy of the image, zeros, or with
 * poison every bit set) and wait: before the verification run and before a
 * reference kernel runs on the job's buffers. 1, or 0 with j->r set. */
int gh_typed_prepare_outputs(struct gh_job *j);
/* Keep the outputs the reference kernel just wrote as the expected ones. */
int gh_typed_keep_outputs(struct gh_job *j);
/* What a host reference reads and writes: in[b], buffer b as it starts
 * (inputs and reset images: their host copies; an output that starts as zeros:
 * memory of its own; an output without init: NULL from gh_typed_host_view, a
 * poisoned copy from gh_expected_view), and want[o], output o's expected
 * values (out_count[o] doubles, NaN on entry). */
struct gh_host_view {
    const void *in[GH_TYPED_MAX];
    void *own[GH_TYPED_MAX];
    double *want[GH_MAX_OUT];
};
/* Make v for j (host_inputs: a plugin's reference). 1, or 0 with j->r failed
 * (gh_typed_host_done still frees). */
int gh_typed_host_view(struct gh_job *j, struct gh_host_view *v);
/* When ok, v's expected outputs to the device as the run's; then free v.
 * Returns ok, or 0 with j->r failed. */
int gh_typed_host_done(struct gh_job *j, struct gh_host_view *v, int ok);
/* The same for a job with a want_key (harness_expected.cu): v from copies of
 * the buffers made on the device (outputs without image: zeros or poison),
 * in the pinned staging buffer (v->own stays NULL), want NaN; then, when ok,
 * the expected outputs into the run's (allocated by the harness) and kept in
 * the cache under the key. */
int gh_expected_view(struct gh_job *j, struct gh_host_view *v);
int gh_expected_done(struct gh_job *j, struct gh_host_view *v, int ok);

/* One copy or memset that puts a buffer back before a run (harness_restore.cu). */
#define GH_RESTORE_MAX (2 * GH_TYPED_MAX)   /* an output array takes two: its buffer, then
                                               the array from it */
struct gh_restore_op {
    void *dst;
    const void *src;          /* NULL: memset dst to byte */
    void *array;              /* not NULL: a cudaArray_t that src (linear, ext[0] elements of
                                 esize bytes a row) is copied into; dst is unused */
    size_t ext[3], esize;
    size_t bytes;
    int byte;
    int input;                /* an input's pristine copy (kept only if the kernel writes
                                 the input) */
    int buf;                  /* the typed buffer it is for */
};

/* One run of one variant, as the family describes it to gh_execute(). */
struct gh_job {
    /* set by the family */
    const struct gl_params *p;
    const struct gl_timing *t;
    struct gl_result *r;
    int nin;
    size_t in_count[GH_MAX_IN];   /* elements per input */
    int nout;                     /* outputs (0 = 1) */
    size_t out_count[GH_MAX_OUT]; /* elements per output */
    /* element sizes and the untimed inputs: user kernels only (0 = float, none) */
    size_t in_esize[GH_MAX_IN], out_esize[GH_MAX_OUT];
    int naux;                     /* the last naux inputs are not the kernel's: copied
                                     to the device untimed (h2d_ms leaves them out) */
    struct gh_typed *typed;       /* a user's job (live run only); NULL: a built-in
                                     family (one float output checked against the
                                     float64 reference) */
    enum gh_mem mem;
    int cold;                     /* flush L2 before each timed sample */
    const void *kernel;           /* the variant's kernel; NULL for a library call */
    dim3 grid, block;             /* shape of one launch (0 when unknown: library) */
    size_t dyn_smem;              /* dynamic shared memory per block, bytes */
    int launches;                 /* launches that make up one run */
    int lib_kernels;              /* set by the harness: a library call's kernel launches,
                                     counted at its verification run when the run is
                                     profiled (0: not counted; one is profiled in auto
                                     ranges, as a kernel of ours) */
    long tol_len;                 /* reduction length for the tolerance */
    gh_enqueue_fn enqueue;
    gh_devcheck_fn check_dev;     /* built-in families only: the on-device check */
    gh_devref_fn devref;          /* ... and its reference kernel (NULL: the check
                                     computes the reference inline) */
    struct gh_refkey refkey;      /* ... what the reference depends on */
    long row_len;                 /* output row length, to place a mismatch (0 = one row) */
    const void *ctx;              /* the family's own data for enqueue/reference */
    size_t ctx_size;              /* ... its size: plain values, copied when the run is
                                     parked for a profiling batch (<= GH_CTX_MAX) */
    char lib_err[128];            /* set by enqueue on a library (non-CUDA) failure */
    /* A launch sequence (a kernel section's launch.NAME lines): enqueue is its
     * `launches` launches and enqueue_launch(j, k) enqueues launch k alone, for
     * the counters of each launch (the profiler replays the run launch by launch
     * too: cupti/profiler.h); NULL for any other job. release, when set, is
     * called once when the run's buffers are freed (at the end of gh_execute,
     * or after its batch is profiled when it was parked), with the parked copy's
     * ctx: it frees what ctx points to. */
    cudaError_t (*enqueue_launch)(struct gh_job *j, int k);
    void (*release)(struct gh_job *j);
    /* set by the harness */
    struct gh_buf in[GH_MAX_IN];
    struct gh_buf out[GH_MAX_OUT];
    void *spacer;                 /* GPULAB_PAD bytes allocated just before in[0], or NULL */
    const double *ref_dev;        /* the reference from j->devref (device memory), or NULL */
    /* What goes back before every run (the verification run, each warm-up run and
     * sample, each profiled pass): a user's job's outputs with an init, its inputs
     * the kernel writes, its symbols (harness_restore.cu). Plain values: a parked
     * job's copy keeps them. */
    int nrestore;
    struct gh_restore_op restore[GH_RESTORE_MAX];
};

/* A built-in family's job (it set check_dev; a user's job never does): its
 * inputs follow from its family and parameters, and its kernels never write
 * them. Parked copies keep check_dev (not typed), so this holds for them too. */
static inline int gh_builtin(const struct gh_job *j)
{
    return j->check_dev != NULL;
}

/* ---- the device, as the plugin's init found it ---------------------------- */

/* Record the device (after init succeeded); reads the per-block reserved shared
 * memory itself. 0, or -1 with err. */
int gh_device_set(int ordinal, const struct gl_device *dev, char *err, size_t errlen);
/* The device, or NULL before a successful init. */
const struct gl_device *gh_device(void);
int gh_device_ordinal(void);
/* Profiler passes of the current counter configuration (<= 0: no profiling). */
void gh_set_profiling(int passes);
/* 1 once a sticky CUDA error has left the context unusable. */
int gh_context_lost(void);
/* Free the flush buffer and the harness's events. */
void gh_shutdown(void);
/* The memory levels' bandwidth ceilings (ceilings.cu), as the plugin's
 * ceilings operation: 0 all measured, 1 some not (c->why), -1 context lost. */
int gh_measure_ceilings(struct gl_ceilings *c);

/* ---- helpers for families ------------------------------------------------- */

/* Monotonic seconds (a family times its own launch setup with it: GL_ST_PREPARE). */
double gh_now_s(void);
/* A fresh result: status ok, nothing measured yet. */
void gh_result_init(struct gl_result *r);
/* Mark the run skipped (it cannot be made as asked) with a reason; returns 0. */
int gh_skip(struct gl_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Mark the run failed with a reason; returns 0 (the context is still usable). */
int gh_fail(struct gl_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 1 if e is cudaSuccess; otherwise record "what: error" in r (status failed),
 * decide whether the error is sticky, and return 0. */
int gh_ok(struct gl_result *r, cudaError_t e, const char *what);
/* Parse mem / cache words ("" = the default: device, cold). 0, or -1. Pure
 * string functions: the variants' plan-time checks call them too. */
int gh_parse_mem(const char *s, enum gh_mem *m);
int gh_parse_cold(const char *s, int *cold);
/* Check a launch shape against the device limits: block threads and sides,
 * grid sides, static + dynamic shared memory (raising the kernel's dynamic
 * limit when more than the default is needed). 1 if it can launch; else
 * records a skip reason in r and returns 0. */
int gh_check_launch(struct gl_result *r, const void *kernel, dim3 grid, dim3 block,
                    size_t dyn_smem);
/* Sizes must stay in int arithmetic inside kernels: 1 if n floats fit. */
int gh_fits_int(size_t n);

/* Run the job: allocate, fill, copy, verify, time, measure resources, profile,
 * free. Fills j->r completely - except inside a profiling batch, where a run to
 * be profiled is parked instead (its device buffers kept, j->r filled but for
 * the metrics) and profiled with the others by gh_batch_end(). Returns 0, or -1
 * when the CUDA context is unusable afterwards (the worker must exit). */
int gh_execute(struct gh_job *j);

/* Space for a parked run's copy of the family's ctx. Each family's ctx is
 * checked against it at compile time (static_assert): a ctx over it would not
 * be parked, and every run of the family would be profiled alone (a counter
 * session each, and a fresh range profiler object after each exact-conflict
 * replay: ~0.4 s a run on an H100, measured when users' kernels' ctx outgrew
 * 1024 bytes). */
#define GH_CTX_MAX 4096

/* Open a profiling batch: gh_execute parks the runs it would profile (as many
 * as GLC_BATCH_MAX, and as device memory allows) until gh_batch_end profiles
 * them together and frees their buffers. Each parked run's j->r, j->p and j->t
 * must stay valid until then. gh_batch_end returns 0, or -1 when the CUDA
 * context is unusable (parked runs then carry the reason instead of metrics). */
void gh_batch_begin(void);
int gh_batch_end(void);

/* ---- the families, as the plugin puts them together ------------------------ */

/* The start of every variant's run (struct gl_variant.run): a fresh result,
 * then the checks the plugin made before a run (parameters given, device
 * initialised, context usable) and the variant's own check against the device.
 * 1 when the run can go on; else r says why and the run must return the value
 * (0, or -1 when the context is lost). */
int gh_begin(const struct gl_variant *v, const struct gl_params *p, const struct gl_timing *t,
             struct gl_result *r);

/* What a built-in variant's impl points to: prepare fills the job for the point
 * (kernel, launch shape, buffers, enqueue, reference) and ctx, GH_CTX_MAX zeroed
 * bytes for the family's own data (aligned for any type; j->ctx points to it).
 * prepare returns 1 to run, or 0 when it recorded a failure in j->r. */
struct gh_impl {
    int (*prepare)(struct gh_job *j, void *ctx);
};

/* The run of every built-in GPU variant (struct gl_variant.run): gh_begin, the
 * variant's prepare (v->impl is a struct gh_impl), gh_execute. */
int gh_run(const struct gl_variant *v, const struct gl_params *p, const struct gl_timing *t,
           struct gl_result *r);

/* Each family's variants, declared once next to its kernels (matmul.cu,
 * stencil.cu, vecadd.cu); gpu_plugin.cu puts them end to end. */
extern const struct gl_variant gh_matmul_variants[];
extern const int gh_matmul_nvariants;
extern const struct gl_variant gh_stencil_variants[];
extern const int gh_stencil_nvariants;
extern const struct gl_variant gh_vecadd_variants[];
extern const int gh_vecadd_nvariants;

/* Free what a family keeps between runs (the cuBLAS handle); from the plugin's shutdown. */
void gh_matmul_shutdown(void);

/* A user's plugin's GPU run (plugin.h struct gl_host_job), as the plugin's
 * gl_host.gpu_execute: host_gpu.cu. */
int gh_host_execute(const struct gl_host_job *job);

#endif
