/* harness_buffers.cu - a run's buffers for mem = device | zerocopy | managed:
 * allocation (after the optional GPULAB_PAD spacer), the free-memory check, the
 * timed host <-> device copies of inputs and outputs (any element size, those
 * that move no content timed a few times per worker, then known), and
 * the pinned staging buffer those copies use when the data stays on the device.
 * Must not launch kernels, verify or take samples. */
#include "harness_int.cuh"

#include "compare.h"

#include <stdlib.h>
#include <string.h>

/* GPULAB_PAD=bytes: allocate that much device memory just before each run's
 * buffers, so that they land elsewhere. Where a small kernel's buffers lie moves
 * its duration by up to ~10 % (H100, stencil/global: 4.45 us with no pad or 256
 * bytes, 4.8-4.95 us with 4 KiB to 1 MiB); bench/ncu_agree can give each of
 * its processes, on both sides, another pad (PADS) to spread both over several
 * placements (not the same ones: ncu allocates in the process too). 0 when
 * unset; -1 when it is not a byte count. */
long long gh_pad_bytes(void)
{
    static long long v = -2;
    if (v == -2) {
        const char *e = getenv("GPULAB_PAD");
        char *end = NULL;
        v = 0;
        if (e && *e) {
            long long x = strtoll(e, &end, 10);
            v = (*end || x < 0 || x > ((long long)1 << 40)) ? -1 : x;
        }
    }
    return v;
}

/* One pinned host buffer, kept for the process and grown as needed: the timed
 * copies of device-memory runs whose data never has to be on the host (made
 * and checked on the device: every output, and the inputs of all but users'
 * jobs with a host reference) go through it.
 * Pinning a GiB costs a few hundred ms: paid once, not per run. */
static struct {
    void *p;
    size_t bytes;
} staging;

void *gh_staging_get(struct gl_result *r, size_t bytes)
{
    if (bytes <= staging.bytes)
        return staging.p;
    if (staging.p && !gh_st.sticky)
        cudaFreeHost(staging.p);
    staging.p = NULL;
    staging.bytes = 0;
    if (!gh_ok(r, cudaMallocHost(&staging.p, bytes), "cudaMallocHost(staging)")) {
        staging.p = NULL;
        return NULL;
    }
    staging.bytes = bytes;
    return staging.p;
}

/* The two events every run times its copies and samples with: made once per
 * worker (a run records and waits on them in turn; nothing keeps them across
 * runs but the handles). */
static cudaEvent_t ev[2];

int gh_events(struct gl_result *r, cudaEvent_t *e0, cudaEvent_t *e1)
{
    for (int i = 0; i < 2; i++)
        if (!ev[i] && !gh_ok(r, cudaEventCreate(&ev[i]), "cudaEventCreate")) {
            ev[i] = NULL;
            return 0;
        }
    *e0 = ev[0];
    *e1 = ev[1];
    return 1;
}

void gh_staging_free(void)
{
    gh_pool_trim();
    for (int i = 0; i < 2; i++) {
        if (ev[i] && !gh_st.sticky)
            cudaEventDestroy(ev[i]);
        ev[i] = NULL;
    }
    if (staging.p && !gh_st.sticky)
        cudaFreeHost(staging.p);
    staging.p = NULL;
    staging.bytes = 0;
}

/* The worker's pool of freed buffers: a run's device and zero-copy buffers go
 * back here instead of to cudaFree / cudaFreeHost, and the next run of the
 * same size takes them (a batch's runs share their sizes: pinning a zero-copy
 * matrix costs milliseconds per run, and so does cudaMalloc of a large one).
 * What a buffer holds is never relied on: inputs are written and outputs
 * poisoned before every run as for a fresh allocation. Managed memory is not
 * pooled (where its pages start is part of what a managed run measures), nor
 * anything under GPULAB_PAD (where buffers land is what it changes). Zero-copy
 * buffers are pooled by default: they are pinned host pages, so where they land
 * moves no device DRAM traffic, and pinning a 3072 x 3072 matrix costs several
 * milliseconds a run. Device buffers only with GPULAB_POOL=1: on an H100,
 * bench/agree.conf's matmul/shared read 4.1-4.3 % more DRAM bytes than ncu
 * with the pool, 3.2 % without (ncu against itself 0.4-2.1 %): where a device
 * buffer lands moves its DRAM traffic, so reuse is a choice, not the default.
 * GPULAB_POOL=0 pools nothing. The pool gives its memory back when a run needs
 * room (gh_memory_fits), and at shutdown. */
#define GH_POOL_MAX 48
#define GH_POOL_BYTES ((size_t)8 << 30)   /* all pooled buffers together */
static struct pooled {
    struct gh_buf b;
    enum gh_mem mem;
    size_t bytes;
    unsigned long long age;
} pool[GH_POOL_MAX];
static int npool;
static size_t pool_bytes;
static unsigned long long pool_clock;

/* GPULAB_POOL: unset (or anything else) zero-copy only, 1 device too, 0 none. */
static int pool_on(enum gh_mem mem)
{
    static int level = -1;
    if (level < 0) {
        const char *e = getenv("GPULAB_POOL");
        level = e && strcmp(e, "1") == 0 ? 2 : e && strcmp(e, "0") == 0 ? 0 : 1;
    }
    if (mem == GH_MEM_MANAGED || gh_pad_bytes() != 0 || gh_st.sticky)
        return 0;
    return mem == GH_MEM_ZEROCOPY ? level >= 1 : level >= 2;
}

int gh_pool_zerocopy_on(void)
{
    return pool_on(GH_MEM_ZEROCOPY);
}

static void pool_drop(int i)
{
    struct pooled *q = &pool[i];
    if (!gh_st.sticky) {
        if (q->b.dev && q->mem == GH_MEM_DEVICE)
            cudaFree(q->b.dev);
        if (q->b.host)
            cudaFreeHost(q->b.host);
    }
    pool_bytes -= q->bytes;
    pool[i] = pool[--npool];
}

void gh_pool_trim(void)
{
    while (npool > 0)
        pool_drop(npool - 1);
}

size_t gh_pool_device_bytes(void)
{
    size_t n = 0;
    for (int i = 0; i < npool; i++)
        if (pool[i].mem == GH_MEM_DEVICE)
            n += gh_buf_bytes(&pool[i].b);
    return n;
}

/* A pooled buffer of this kind and size (with a pinned host copy or not). */
static int pool_take(struct gh_buf *b, enum gh_mem mem, int host_copy)
{
    size_t bytes = gh_buf_bytes(b);
    for (int i = 0; i < npool; i++) {
        struct pooled *q = &pool[i];
        if (q->mem != mem || gh_buf_bytes(&q->b) != bytes ||
            (mem == GH_MEM_DEVICE && (q->b.host != NULL) != (host_copy != 0)))
            continue;
        b->host = q->b.host;
        b->dev = q->b.dev;
        b->holds_input = q->b.holds_input;   /* the caller keeps it only for an input */
        b->input_seed = q->b.input_seed;
        b->input_stream = q->b.input_stream;
        pool_bytes -= q->bytes;
        pool[i] = pool[--npool];
        return 1;
    }
    return 0;
}

static int pool_put(const struct gh_buf *b, enum gh_mem mem)
{
    size_t bytes = gh_buf_bytes(b) * (mem == GH_MEM_DEVICE && b->host ? 2 : 1);
    size_t cap = GH_POOL_BYTES;   /* and at most an eighth of the device's memory */
    if (gh_st.dev.mem_bytes > 0 && (size_t)gh_st.dev.mem_bytes / 8 < cap)
        cap = (size_t)gh_st.dev.mem_bytes / 8;
    if (!pool_on(mem) || bytes > cap)
        return 0;
    while (npool > 0 && (npool == GH_POOL_MAX || pool_bytes + bytes > cap)) {
        int old = 0;   /* the longest unused goes first */
        for (int i = 1; i < npool; i++)
            if (pool[i].age < pool[old].age)
                old = i;
        pool_drop(old);
    }
    pool[npool].b = *b;
    pool[npool].mem = mem;
    pool[npool].bytes = bytes;
    pool[npool].age = ++pool_clock;
    npool++;
    pool_bytes += bytes;
    return 1;
}

int gh_buf_alloc(struct gl_result *r, struct gh_buf *b, size_t count, size_t esize,
                 enum gh_mem mem, int host_copy)
{
    b->count = count;
    b->esize = esize ? esize : sizeof(float);
    size_t bytes = gh_buf_bytes(b);
    b->host = b->dev = NULL;
    b->holds_input = 0;
    b->lent = 0;
    if (pool_on(mem) && pool_take(b, mem, host_copy))
        return 1;
    switch (mem) {
    case GH_MEM_DEVICE:
        if (host_copy && !gh_ok(r, cudaMallocHost((void **)&b->host, bytes), "cudaMallocHost"))
            return 0;
        return gh_ok(r, cudaMalloc((void **)&b->dev, bytes), "cudaMalloc");
    case GH_MEM_ZEROCOPY:
        if (!gh_ok(r, cudaHostAlloc((void **)&b->host, bytes, cudaHostAllocMapped),
                   "cudaHostAlloc(mapped)"))
            return 0;
        return gh_ok(r, cudaHostGetDevicePointer((void **)&b->dev, b->host, 0),
                     "cudaHostGetDevicePointer");
    case GH_MEM_MANAGED:
        if (!gh_ok(r, cudaMallocManaged((void **)&b->dev, bytes, cudaMemAttachGlobal),
                   "cudaMallocManaged"))
            return 0;
        b->host = b->dev;
        return 1;
    }
    return 0;
}

void gh_buf_free(struct gh_buf *b, enum gh_mem mem)
{
    if (gh_st.sticky) {   /* the context is gone: freeing would only fail */
        b->host = b->dev = NULL;
        return;
    }
    if (gh_lend_release(b))   /* parked runs hold it still */
        return;
    if ((b->host || b->dev) && pool_put(b, mem)) {
        b->host = b->dev = NULL;
        return;
    }
    switch (mem) {
    case GH_MEM_DEVICE:
        if (b->dev)
            cudaFree(b->dev);
        if (b->host)
            cudaFreeHost(b->host);
        break;
    case GH_MEM_ZEROCOPY:
        if (b->host)
            cudaFreeHost(b->host);
        break;
    case GH_MEM_MANAGED:
        if (b->dev)
            cudaFree(b->dev);
        break;
    }
    b->host = b->dev = NULL;
}

/* Device memory the run needs must fit in what the card has free (managed
 * memory included: over-subscribing it can hang the GPU). */
int gh_memory_fits(struct gh_job *j)
{
    if (j->mem == GH_MEM_ZEROCOPY)
        return 1;
    size_t need = gh_job_bytes(j) + (j->typed ? gh_typed_want_bytes(j) : 0);
    if (!gh_st.flush_buf && gh_st.dev.l2_bytes > 0)
        need += 2 * (size_t)gh_st.dev.l2_bytes;
    size_t free_b = 0, total_b = 0;
    if (!gh_ok(j->r, cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo"))
        return 0;
    if (need + GH_MEM_MARGIN > free_b) {   /* the pool and the other cached references
                                              make room first */
        gh_pool_trim();
        gh_devref_trim(j->ref_dev);
        gh_expected_trim(j->typed);
        if (!gh_ok(j->r, cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo"))
            return 0;
    }
    if (need + GH_MEM_MARGIN > free_b)
        return gh_skip(j->r, "needs %.1f MiB of device memory, %.1f MiB free",
                       (double)need / 1048576.0, (double)free_b / 1048576.0);
    return 1;
}

static struct cudaMemLocation location(int host)
{
    struct cudaMemLocation loc;
    memset(&loc, 0, sizeof loc);
    loc.type = host ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    loc.id = host ? 0 : gh_st.ordinal;
    return loc;
}

int gh_elapsed_ms(struct gl_result *r, cudaEvent_t a, cudaEvent_t b, double *ms)
{
    float f = 0.0f;
    if (!gh_ok(r, cudaEventSynchronize(b), "cudaEventSynchronize") ||
        !gh_ok(r, cudaEventElapsedTime(&f, a, b), "cudaEventElapsedTime"))
        return 0;
    *ms = f;
    return 1;
}

/* ---- copies that move no content: timed a few times, then known --------------------
 * A device-memory buffer without a host copy is copied from or to the staging
 * buffer only to time the transfer (its content is made and checked on the
 * device). The same bytes over the same bus take the same time, so a worker
 * times each such transfer (direction and byte counts of the buffers) in its
 * first GH_COPY_TIMED runs, and later runs with the same buffers store the
 * median of those as their h2d_ms / d2h_ms without copying again: a sweep of
 * configurations over one size does not move its matrices once per
 * configuration. GPULAB_COPIES=each times every run's copies. Copies that move
 * content (a host copy for a host reference, managed pages prefetched: where
 * they lie is part of what a managed run measures) are made and timed every
 * run. */
#define GH_COPY_TIMED 3
#define GH_COPY_KEYS 32
#define GH_COPY_BUFS (GH_MAX_IN > GH_MAX_OUT ? GH_MAX_IN : GH_MAX_OUT)
static struct copy_memo {
    int dir, n;                   /* dir: 0 host -> device, 1 device -> host; n 0: unused */
    size_t bytes[GH_COPY_BUFS];
    int nms;
    double ms[GH_COPY_TIMED];
    unsigned long long age;
} memo[GH_COPY_KEYS];
static unsigned long long memo_clock;

static int copies_each(void)
{
    static int each = -1;
    return gh_env_is("GPULAB_COPIES", "each", &each);
}

/* The entry of these buffers' transfer (a new one, the longest unused
 * replaced, when none exists); NULL when every copy is to be timed. */
static struct copy_memo *memo_find(int dir, const struct gh_buf *b, int n)
{
    struct copy_memo *old = &memo[0];
    if (copies_each() || n < 1 || n > GH_COPY_BUFS)
        return NULL;
    for (int k = 0; k < GH_COPY_KEYS; k++) {
        struct copy_memo *m = &memo[k];
        int same = m->n == n && m->dir == dir;
        for (int i = 0; same && i < n; i++)
            same = m->bytes[i] == gh_buf_bytes(&b[i]);
        if (same) {
            m->age = ++memo_clock;
            return m;
        }
        if (m->n == 0 || (old->n > 0 && m->age < old->age))
            old = m;
    }
    memset(old, 0, sizeof *old);
    old->dir = dir;
    old->n = n;
    for (int i = 0; i < n; i++)
        old->bytes[i] = gh_buf_bytes(&b[i]);
    old->age = ++memo_clock;
    return old;
}

/* The median of the entry's timed copies once it has them all, else -1. */
static double memo_known(const struct copy_memo *m)
{
    double v[GH_COPY_TIMED];
    if (!m || m->nms < GH_COPY_TIMED)
        return -1.0;
    memcpy(v, m->ms, sizeof v);
    return gl_median_inplace(v, GH_COPY_TIMED);
}

static void memo_add(struct copy_memo *m, double ms)
{
    if (m && m->nms < GH_COPY_TIMED)
        m->ms[m->nms++] = ms;
}

/* No buffer of these has a host copy (the transfer moves no content). */
static int no_host_copy(const struct gh_buf *b, int n)
{
    for (int i = 0; i < n; i++)
        if (b[i].host)
            return 0;
    return 1;
}

/* Device memory of the job's buffers, bytes (element sizes as gh_buf_alloc sets them). */
size_t gh_job_bytes(const struct gh_job *j)
{
    size_t b = 0;
    for (int i = 0; i < j->nin; i++)
        b += j->in_count[i] * (j->in_esize[i] ? j->in_esize[i] : sizeof(float));
    for (int i = 0; i < j->nout; i++)
        b += j->out_count[i] * (j->out_esize[i] ? j->out_esize[i] : sizeof(float));
    return b;
}

/* The largest of the job's buffers, bytes. */
static size_t largest(const struct gh_job *j)
{
    size_t m = 0;
    for (int i = 0; i < j->nin; i++)
        m = gh_buf_bytes(&j->in[i]) > m ? gh_buf_bytes(&j->in[i]) : m;
    for (int i = 0; i < j->nout; i++)
        m = gh_buf_bytes(&j->out[i]) > m ? gh_buf_bytes(&j->out[i]) : m;
    return m;
}

/* A device-memory buffer without a host copy is copied from / to the staging
 * buffer: the same bytes over the same bus, its content not needed. */
static cudaError_t input_to_device(struct gh_job *j, int i, const void *stage)
{
    size_t bytes = gh_buf_bytes(&j->in[i]);
    const void *src = j->in[i].host ? (const void *)j->in[i].host : stage;
    return j->mem == GH_MEM_DEVICE
        ? cudaMemcpyAsync(j->in[i].dev, src, bytes, cudaMemcpyHostToDevice, 0)
        : cudaMemPrefetchAsync(j->in[i].dev, bytes, location(0), 0, 0);
}

/* The first timed inputs host -> device between events e0 and e1, into *ms. */
static int copy_timed_inputs(struct gh_job *j, int timed, cudaEvent_t e0, cudaEvent_t e1,
                             const char *what, double *ms)
{
    struct gl_result *r = j->r;
    void *stage = NULL;
    if (j->mem == GH_MEM_DEVICE && !j->in[0].host && !(stage = gh_staging_get(r, largest(j))))
        return 0;
    if (!gh_ok(r, cudaEventRecord(e0, 0), "cudaEventRecord"))
        return 0;
    for (int i = 0; i < timed; i++)
        if (!gh_ok(r, input_to_device(j, i, stage), what))
            return 0;
    return gh_ok(r, cudaEventRecord(e1, 0), "cudaEventRecord") && gh_elapsed_ms(r, e0, e1, ms);
}

/* Inputs host -> device, timed: device = cudaMemcpy; managed = prefetch to the
 * device; zerocopy = 0 (no copy exists); a device transfer that moves no
 * content and is known (the memo above) is not made. A user's job's reset
 * images (the last naux inputs) follow, untimed, where they were made on the
 * host. *device_ms: the time the device spent copying (0 when known). */
int gh_copy_inputs(struct gh_job *j, cudaEvent_t e0, cudaEvent_t e1, double *device_ms)
{
    struct gl_result *r = j->r;
    const char *what = j->mem == GH_MEM_DEVICE ? "cudaMemcpy(H2D)" : "cudaMemPrefetchAsync(device)";
    int timed = j->nin - j->naux;
    struct copy_memo *m = NULL;
    *device_ms = 0.0;
    if (j->mem == GH_MEM_ZEROCOPY) {
        r->h2d_ms = 0.0;
        return 1;
    }
    if (j->mem == GH_MEM_DEVICE && no_host_copy(j->in, timed))
        m = memo_find(0, j->in, timed);
    r->h2d_ms = memo_known(m);
    if (r->h2d_ms < 0.0) {   /* not known: made and timed */
        if (!copy_timed_inputs(j, timed, e0, e1, what, device_ms))
            return 0;
        r->h2d_ms = *device_ms;
        memo_add(m, *device_ms);
    }
    /* reset images made on the device need no copy (nor the staging buffer:
     * those copied come from their host copy, or are managed pages) */
    for (int i = timed; i < j->nin; i++)
        if ((j->in[i].host || j->mem != GH_MEM_DEVICE) &&
            !gh_ok(r, input_to_device(j, i, NULL), what))
            return 0;
    return gh_ok(r, cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

/* Output pages to the device before runs (managed only; untimed). */
int gh_place_output(struct gh_job *j)
{
    if (j->mem != GH_MEM_MANAGED)
        return 1;
    for (int i = 0; i < j->nout; i++)
        if (!gh_ok(j->r, cudaMemPrefetchAsync(j->out[i].dev, gh_buf_bytes(&j->out[i]), location(0),
                                              0, 0),
                   "cudaMemPrefetchAsync(output to device)"))
            return 0;
    return gh_ok(j->r, cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

/* A built-in family's managed buffers made ready before the run: the inputs
 * made from the seed and placed on the host, where inputs written by the host
 * start (their timed move to the device, h2d_ms, follows as before), and the
 * outputs placed on the device, where they are poisoned. Written by the host
 * page by page, the inputs took 2-32 ms a run on an H100 host (S1's 8-75 MB,
 * a fault a page); here each is placed on the device in bulk, made there by
 * the same generator as device inputs (equal to the host's bit for bit:
 * test_devcheck) and moved to the host in bulk: the same values in the same
 * place. Not a timed copy (h2d_ms), but the device's work, timed by events
 * into *ms: the caller counts it as device time, not host overhead. */
int gh_managed_prepare(struct gh_job *j, cudaEvent_t e0, cudaEvent_t e1, double *ms)
{
    *ms = 0.0;
    if (j->mem != GH_MEM_MANAGED || j->typed)
        return 1;
    struct gl_result *r = j->r;
    unsigned long long seed = gh_seed(j->p);
    if (!gh_ok(r, cudaEventRecord(e0, 0), "cudaEventRecord"))
        return 0;
    for (int i = 0; i < j->nin; i++) {
        size_t bytes = gh_buf_bytes(&j->in[i]);
        if (!gh_ok(r, cudaMemPrefetchAsync(j->in[i].dev, bytes, location(0), 0, 0),
                   "cudaMemPrefetchAsync(new input to device)") ||
            !gh_ok(r, gh_fill_random_dev(j->in[i].dev, j->in[i].count, seed, (unsigned)i),
                   "input generation") ||
            !gh_ok(r, cudaMemPrefetchAsync(j->in[i].dev, bytes, location(1), 0, 0),
                   "cudaMemPrefetchAsync(input to host)"))
            return 0;
    }
    for (int i = 0; i < j->nout; i++)
        if (!gh_ok(r, cudaMemPrefetchAsync(j->out[i].dev, gh_buf_bytes(&j->out[i]), location(0),
                                           0, 0),
                   "cudaMemPrefetchAsync(new output to device)"))
            return 0;
    return gh_ok(r, cudaEventRecord(e1, 0), "cudaEventRecord") && gh_elapsed_ms(r, e0, e1, ms);
}

/* Outputs device -> host, timed together into *ms (device = cudaMemcpy,
 * managed = prefetch to the host, zerocopy = 0; known transfers that move no
 * content: the memo's median, not copied). *device_ms: the device's time. */
int gh_copy_output(struct gh_job *j, cudaEvent_t e0, cudaEvent_t e1, double *ms,
                   double *device_ms)
{
    struct gl_result *r = j->r;
    void *stage = NULL;
    struct copy_memo *m = NULL;
    *ms = 0.0;
    *device_ms = 0.0;
    if (j->mem == GH_MEM_ZEROCOPY)
        return gh_ok(r, cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    if (j->mem == GH_MEM_DEVICE && no_host_copy(j->out, j->nout))
        m = memo_find(1, j->out, j->nout);
    double known = memo_known(m);
    if (known >= 0.0) {
        *ms = known;
        return gh_ok(r, cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }
    if (j->mem == GH_MEM_DEVICE && !j->out[0].host && !(stage = gh_staging_get(r, largest(j))))
        return 0;
    if (!gh_ok(r, cudaEventRecord(e0, 0), "cudaEventRecord"))
        return 0;
    for (int i = 0; i < j->nout; i++) {
        size_t bytes = gh_buf_bytes(&j->out[i]);
        void *dst = j->out[i].host ? (void *)j->out[i].host : stage;
        cudaError_t e = j->mem == GH_MEM_DEVICE
            ? cudaMemcpyAsync(dst, j->out[i].dev, bytes, cudaMemcpyDeviceToHost, 0)
            : cudaMemPrefetchAsync(j->out[i].dev, bytes, location(1), 0, 0);
        if (!gh_ok(r, e, j->mem == GH_MEM_DEVICE ? "cudaMemcpy(D2H)" : "cudaMemPrefetchAsync(host)"))
            return 0;
    }
    if (!gh_ok(r, cudaEventRecord(e1, 0), "cudaEventRecord") || !gh_elapsed_ms(r, e0, e1, ms))
        return 0;
    *device_ms = *ms;
    memo_add(m, *ms);
    return 1;
}
