/* harness_batch.cu - the profiled replay: runs handed to the CUPTI engine
 * (cupti/profiler.h) with the replay flush before each, alone or parked in a
 * batch (buffers and ctx kept) until gh_batch_end profiles them together; which
 * runs get the instrumented replay of the exact shared-memory conflicts (their
 * kernel uses shared memory and is not too long for it), which take another
 * run's (src/core/smem_share.h: a built-in family's runs that differ only in
 * their memory kind), and why the others not.
 * Must not time or verify: a run is parked only once it is timed and right. */
#include "harness_int.cuh"

#include <math.h>
#include <stdio.h>
#include <string.h>

extern "C" {
#include "profiler.h"
#include "smem_share.h"
#include "stats.h"
}

struct replay_ctx {
    struct gh_job *j;
    cudaError_t err;
    struct gh_touch touch;   /* j's pages, read by the flush before j */
};

static void replay_run(void *c)
{
    struct replay_ctx *x = (struct replay_ctx *)c;
    cudaError_t e = x->j->enqueue(x->j);
    if (e != cudaSuccess && x->err == cudaSuccess)
        x->err = e;
}

/* Before the flush that comes before j's run: what j puts back
 * (harness_restore.cu), so every pass replays the same work. */
static void replay_restore(void *c)
{
    struct replay_ctx *x = (struct replay_ctx *)c;
    cudaError_t e = gh_restore_enqueue(x->j);
    if (e != cudaSuccess && x->err == cudaSuccess)
        x->err = e;
}

static void replay_launch(void *c, int k)
{
    struct replay_ctx *x = (struct replay_ctx *)c;
    cudaError_t e = x->j->enqueue_launch(x->j, k);
    if (e != cudaSuccess && x->err == cudaSuccess)
        x->err = e;
}

static void replay_flush(void *c)
{
    struct replay_ctx *x = (struct replay_ctx *)c;
    cudaError_t e = gh_flush_enqueue(1, &x->touch);
    if (e != cudaSuccess && x->err == cudaSuccess)
        x->err = e;
}

/* Share a batch's replay time (total_ms) among its runs. The profiler gave
 * each run its share of the sessions it was in (prof_ms, cupti/profiler.h):
 * its replays' time (measured where CUPTI serializes the launches), of which
 * passes * (median + flush) (rp[i].est_ms) counts as its kernels' time, as the
 * samples do, and the rest as profiling; and an even share of its own session's
 * rest; so the range-mode change that a library call's session needs (a
 * fresh range profiler object, ~0.4 s on an H100) is charged to the runs of
 * that session, not to every run of the batch. What the batch took outside
 * its sessions (a fresh object for a new metric set) is split evenly.
 * Split by count alone, a batch holding one slow run (a zero-copy matmul)
 * would charge its kernels to the fast ones as host overhead. The instrumented
 * replays of the exact conflicts (smem_ms, measured per run) are each run's
 * own profiling time, not its kernels' (the instrumentation makes them slow). */
static void attribute_replays(const struct glc_replay *rp, struct gl_result *const *rs, int n,
                              double total_ms, const double *smem_ms, const double *prof_ms,
                              const double *own_ms)
{
    double est[GLC_BATCH_MAX] = {}, counters[GLC_BATCH_MAX], busy[GLC_BATCH_MAX];
    double ranges[GLC_BATCH_MAX];
    for (int i = 0; i < n && i < GLC_BATCH_MAX; i++)
        est[i] = rs[i]->passes > 0 ? rs[i]->passes * rp[i].est_ms : 0.0;
    gl_share_sessions(n, total_ms, smem_ms, prof_ms, own_ms, est, counters, busy, ranges);
    for (int i = 0; i < n; i++) {
        rs[i]->phase_ms[GL_PH_PROFILE] += counters[i] + smem_ms[i];
        /* not the kernels': their ranges' own cost, and the sessions' */
        rs[i]->step_ms[GL_ST_COUNTERS] += ranges[i];
        rs[i]->step_ms[GL_ST_SESSIONS] += counters[i] - busy[i] - ranges[i];
        rs[i]->step_ms[GL_ST_SMEM] += smem_ms[i];
        rs[i]->busy_ms += busy[i];
    }
}

/* The instrumented replay of the exact conflicts costs about 1-2.5 ns per
 * warp-level shared-memory instruction the run executes (H100: 10 ms for a
 * 0.2-0.3 ms transpose, 1.45 s for an 11 ms matmul/shared at BS = 8, whose inner
 * loop is mostly shared loads: 130 times its time; cupti/profiler_int.h). Runs
 * that could take longer than this under it, at that worst measured rate (with
 * room), are not replayed instrumented: their kernel would keep the worker
 * past its watchdog or make a sweep crawl. */
#define GH_SMEM_SLOWDOWN 200.0       /* assumed instrumented / plain time */
#define GH_SMEM_MAX_S 120.0          /* at most this long instrumented, per run */

/* Whether run j (its samples summarized in sum) has its exact conflicts
 * measured (GL_SMEM_MEASURE), could take them from another run only
 * (GL_SMEM_TOO_LONG) or neither (GL_SMEM_NONE); why not in buf. */
static int smem_want(const struct gh_job *j, const struct gl_summary *sum, char *buf, size_t len)
{
    const struct gl_result *r = j->r;
    buf[0] = '\0';
    if (!j->kernel) {
        snprintf(buf, len, "not measured: a library call (gpulab does not know its kernels' shared memory)");
        return GL_SMEM_NONE;
    }
    if (r->static_smem + r->dynamic_smem <= 0) {
        snprintf(buf, len, "not measured: the kernel uses no shared memory");
        return GL_SMEM_NONE;
    }
    double limit_s = GH_SMEM_MAX_S;
    if (j->t && j->t->timeout_s > 0 && j->t->timeout_s / 4 < limit_s)
        limit_s = j->t->timeout_s / 4;
    if (sum->count > 0 && sum->median * GH_SMEM_SLOWDOWN > limit_s * 1e3) {
        snprintf(buf, len, "not measured: a %.0f ms run could take %.0f s instrumented "
                 "(runs over %.0f ms are not instrumented)", sum->median,
                 sum->median * GH_SMEM_SLOWDOWN / 1e3, limit_s * 1e3 / GH_SMEM_SLOWDOWN);
        return GL_SMEM_TOO_LONG;
    }
    return GL_SMEM_MEASURE;
}

/* The exact conflicts measured in this worker (smem_share.h), and whether
 * runs may share them: not under GPULAB_SMEM=each. */
static struct gl_smem_memo smem_memo;

static int smem_each(void)
{
    static int each = -1;
    return gh_env_is("GPULAB_SMEM", "each", &each);
}

/* Runs that may share: a built-in family's (a user's kernel's inputs depend
 * on its section too). */
static int smem_may_share(const struct gh_job *j)
{
    return !smem_each() && gh_builtin(j);
}

/* Profile jobs[0..n) together (n <= GLC_BATCH_MAX). A CUDA error during the
 * replay takes every run's metrics and fails the run that caused it (all of
 * them when the error surfaced only at the final synchronize). */
void gh_profile_jobs(struct gh_job *const *jobs, int n)
{
    struct replay_ctx x[GLC_BATCH_MAX];
    struct glc_replay rp[GLC_BATCH_MAX];
    const struct glc_replay *rpp[GLC_BATCH_MAX] = {};
    struct gl_result *rs[GLC_BATCH_MAX] = {};
    double smem_ms[GLC_BATCH_MAX] = {};
    double prof_ms[GLC_BATCH_MAX] = {};
    double own_ms[GLC_BATCH_MAX] = {};
    struct gl_smem_key key[GLC_BATCH_MAX] = {};
    int want[GLC_BATCH_MAX] = {}, share[GLC_BATCH_MAX] = {}, from[GLC_BATCH_MAX] = {};
    char why[GL_REASON_MAX];
    for (int i = 0; i < n; i++) {
        x[i].j = jobs[i];
        x[i].err = cudaSuccess;
        memset(&x[i].touch, 0, sizeof x[i].touch);
        for (int k = 0; k < jobs[i]->nin; k++)
            gh_touch_add(&x[i].touch, &jobs[i]->in[k], jobs[i]->mem);
        for (int k = 0; k < jobs[i]->nout; k++)
            gh_touch_add(&x[i].touch, &jobs[i]->out[k], jobs[i]->mem);
        rp[i].run = replay_run;
        rp[i].flush = replay_flush;
        rp[i].restore = jobs[i]->nrestore > 0 ? replay_restore : NULL;
        rp[i].restore_early = jobs[i]->nrestore > 0 && gh_restore_private(jobs[i]);
        rp[i].ctx = &x[i];
        rp[i].single_kernel = jobs[i]->kernel ? jobs[i]->launches == 1 : jobs[i]->lib_kernels == 1;
        rp[i].counted = !jobs[i]->kernel && rp[i].single_kernel;
        struct gl_summary sum;
        gl_summarize(jobs[i]->r->samples_ms, jobs[i]->r->nsamples, &sum);
        want[i] = smem_want(jobs[i], &sum, why, sizeof why);
        share[i] = smem_may_share(jobs[i]) ? want[i] : GL_SMEM_NONE;
        unsigned g[3] = { jobs[i]->grid.x, jobs[i]->grid.y, jobs[i]->grid.z };
        unsigned b[3] = { jobs[i]->block.x, jobs[i]->block.y, jobs[i]->block.z };
        gl_smem_key_set(&key[i], jobs[i]->kernel, g, b, jobs[i]->dyn_smem, jobs[i]->launches,
                        jobs[i]->p);
        rp[i].smem_ms = &smem_ms[i];
        rp[i].est_ms = sum.count > 0 ? sum.median + gh_st.flush_ms : 0.0;
        rp[i].prof_ms = &prof_ms[i];
        rp[i].own_ms = &own_ms[i];
        /* a launch sequence: measured launch by launch too */
        rp[i].nlaunches = jobs[i]->enqueue_launch ? jobs[i]->launches : 0;
        rp[i].run_launch = jobs[i]->enqueue_launch ? replay_launch : NULL;
        snprintf(jobs[i]->r->smem_reason, sizeof jobs[i]->r->smem_reason, "%s", why);
        rpp[i] = &rp[i];
        rs[i] = jobs[i]->r;
    }
    /* which runs take another's exact conflicts (the note in their smem_reason) */
    gl_smem_share_plan(&smem_memo, key, share, n, from, rs);
    for (int i = 0; i < n; i++)
        rp[i].smem = want[i] == GL_SMEM_MEASURE && from[i] < 0;
    double t0 = gh_now_s();
    (void)glc_profile_batch(rpp, rs, n);
    for (int i = 0; i < n; i++)   /* a sequence of one launch at this point: it is the whole */
        if (jobs[i]->enqueue_launch && jobs[i]->launches == 1 && rs[i]->nmetrics > 0) {
            for (int m = 0; m < GL_MAX_METRICS; m++)
                rs[i]->launch_values[0][m] = m < rs[i]->nmetrics ? rs[i]->metrics[m].value : NAN;
            rs[i]->nlaunch_profiled = 1;
            rs[i]->launch_reason[0] = '\0';
        }
    attribute_replays(rp, rs, n, (gh_now_s() - t0) * 1e3, smem_ms, prof_ms, own_ms);
    int culprit = -1;
    for (int i = 0; i < n && culprit < 0; i++)
        if (x[i].err != cudaSuccess)
            culprit = i;
    cudaError_t e = culprit >= 0 ? x[culprit].err : cudaDeviceSynchronize();
    if (e == cudaSuccess) {
        gl_smem_share_apply(&smem_memo, key, share, from, rs, n);
        return;
    }
    for (int i = 0; i < n; i++) {
        rs[i]->nmetrics = 0;
        rs[i]->passes = 0;
        if (from[i] >= 0)
            rs[i]->smem_reason[0] = '\0';   /* the note: nothing was shared */
        snprintf(rs[i]->metrics_reason, sizeof rs[i]->metrics_reason,
                 "profiled replay failed: %s%s", cudaGetErrorName(e),
                 culprit >= 0 && culprit != i ? GL_REASON_OTHER_RUN : "");
        if (culprit < 0 || culprit == i)
            (void)gh_ok(rs[i], e, "profiled replay");
    }
}

/* Runs parked for the current profiling batch: a copy of each job (its ctx
 * copied too) whose device buffers are kept until the batch is profiled. */
#define GH_BATCH_HOST_MAX (1ull << 30)   /* zero-copy bytes parked at most */

struct gh_parked {
    struct gh_job j;
    union {
        unsigned char bytes[GH_CTX_MAX];
        double align_d;
        void *align_p;
    } ctx;
};

static struct {
    int open;
    int n;
    size_t host_bytes;   /* mapped host memory held by parked zero-copy runs */
    struct gh_parked runs[GLC_BATCH_MAX];
} batch;

void gh_spacer_free(struct gh_job *j)
{
    if (j->spacer)
        cudaFree(j->spacer);
    j->spacer = NULL;
}

static void job_free(struct gh_job *j)
{
    if (j->release)
        j->release(j);
    for (int i = 0; i < j->nout; i++)
        gh_buf_free(&j->out[i], j->mem);
    for (int i = 0; i < j->nin; i++)
        gh_buf_free(&j->in[i], j->mem);
    gh_spacer_free(j);
}

static size_t job_bytes(const struct gh_job *j)
{
    return gh_job_bytes(j);
}

/* Profile the parked runs and free their buffers. */
static void batch_flush(void)
{
    struct gh_job *jobs[GLC_BATCH_MAX] = {};
    int n = batch.n;
    if (n == 0)
        return;
    for (int i = 0; i < n; i++)
        jobs[i] = &batch.runs[i].j;
    if (gh_st.sticky) {
        for (int i = 0; i < n; i++) {
            jobs[i]->r->nmetrics = 0;
            jobs[i]->r->passes = 0;
            snprintf(jobs[i]->r->metrics_reason, sizeof jobs[i]->r->metrics_reason, "%s",
                     GL_REASON_BATCH_LOST);
        }
    } else {
        gh_profile_jobs(jobs, n);
    }
    for (int i = 0; i < n; i++)
        job_free(jobs[i]);
    batch.n = 0;
    batch.host_bytes = 0;
}

/* Would j's buffers fit next to the parked ones? */
static int batch_has_room(const struct gh_job *j)
{
    if (batch.n >= GLC_BATCH_MAX)
        return 0;
    if (j->mem == GH_MEM_ZEROCOPY)
        return batch.host_bytes + job_bytes(j) <= GH_BATCH_HOST_MAX;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
        return 0;
    free_b += gh_pool_device_bytes();   /* the pool gives its buffers back when needed */
    /* and a keyed reference's expected outputs, allocated before the buffers */
    return job_bytes(j) + gh_expected_need(j) + 2 * GH_MEM_MARGIN <= free_b;
}

/* Keep j (buffers and all) for batch_flush. 1 when parked. */
int gh_park(struct gh_job *j)
{
    if (!batch.open || batch.n >= GLC_BATCH_MAX || j->ctx_size > GH_CTX_MAX)
        return 0;
    struct gh_parked *p = &batch.runs[batch.n++];
    p->j = *j;
    memcpy(p->ctx.bytes, j->ctx, j->ctx_size);
    p->j.ctx = p->ctx.bytes;
    p->j.typed = NULL;   /* the live run's: a replay only enqueues */
    if (j->mem == GH_MEM_DEVICE) {   /* the pinned host copies are not replayed: free now */
        for (int i = 0; i < j->nin; i++) {
            cudaFreeHost(p->j.in[i].host);
            p->j.in[i].host = NULL;
        }
        for (int i = 0; i < j->nout; i++) {
            cudaFreeHost(p->j.out[i].host);
            p->j.out[i].host = NULL;
        }
    } else if (j->mem == GH_MEM_ZEROCOPY) {   /* the host memory it pinned itself */
        for (int i = 0; i < j->nin; i++)
            batch.host_bytes += j->in[i].lent ? 0 : gh_buf_bytes(&j->in[i]);
        for (int i = 0; i < j->nout; i++)
            batch.host_bytes += j->out[i].lent ? 0 : gh_buf_bytes(&j->out[i]);
        gh_lend_park(&p->j);
    }
    return 1;
}

void gh_batch_begin(void)
{
    batch_flush();
    batch.open = 1;
}

int gh_batch_end(void)
{
    batch_flush();
    batch.open = 0;
    return gh_st.sticky ? -1 : 0;
}

/* Profile the parked runs now if j's buffers would not fit next to them. */
void gh_batch_make_room(const struct gh_job *j)
{
    if (batch.n > 0 && !batch_has_room(j))
        batch_flush();
}
