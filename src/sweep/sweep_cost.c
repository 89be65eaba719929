/* sweep_cost.c - what each job of a config is expected to cost, so that
 * `run --gpus` hands the largest out first and sizes its batches (handout.h).
 * A job's cost, in seconds: its kernel's time (the latest ok run of its key, or
 * the analytic FLOP and byte counts against the device's FP32 peak and
 * bandwidth; for a user's kernel without either, the bytes of its buffers)
 * times the kernel's executions (verification, warm-up, samples,
 * profiler passes), plus the copies and a fixed host overhead per run. The
 * analytic times are scaled by the median ratio of stored to analytic where a
 * config has both, so that the two kinds of estimate can be compared.
 * An estimate only orders and sizes the hand-out: a wrong one costs balance,
 * never a result. Must not run or store anything. */
#include "sweep.h"
#include "expr.h"
#include "kernel_variant.h"
#include "scalar.h"
#include "stats.h"

#include <stdlib.h>
#include <string.h>

/* Host work of a run that neither estimate counts (setup, verification on the
 * host, the round trip to the worker): MEASURED.md saw medians of 9-72 ms per
 * GPU run on the H100. */
#define RUN_OVERHEAD_S 0.02
/* Profiler passes of a run with counters, when the plan does not know them. */
#define PASSES_GUESS 2

static double median(double *a, int n)
{
    struct gl_summary s;
    if (n <= 0)
        return -1;
    gl_summarize(a, n, &s);
    return s.median;
}

/* The bytes of a user kernel's buffers at the job's point (each read or written
 * once): its size when it declares neither `flops` nor `bytes`. -1 if none. */
static double buffer_bytes(const struct gl_job *job)
{
    const struct gl_kernel_variant *kv = gl_kernel_variant_of(job->v);
    double sum = -1;
    for (int i = 0; kv && i < kv->k->nbuffers; i++) {
        const struct gl_kbuffer *b = &kv->k->buffers[i];
        long long n;
        char msg[200];
        if (gl_expr_value(b->count, &job->p, &n, msg, sizeof msg) != 0 || n <= 0)
            continue;
        int t = gl_ktype_at(b->type, b->tparam, &job->p);
        int size = t < 0 ? 4 : (int)gl_ktype_size(t);
        sum = (sum < 0 ? 0 : sum) + (double)n * size;
    }
    return sum;
}

/* The analytic kernel time of a job times its executions, in seconds; -1 when
 * neither count is known. */
static double analytic(const struct gl_sweep *sw, const struct gl_job *job)
{
    const struct gl_variant *v = job->v;
    const struct gl_device *d = strcmp(v->device, "gpu") == 0 ? &sw->gpu : &sw->cpu;
    double fl = v->flops ? v->flops(v, &job->p) : -1;
    double by = v->min_bytes ? v->min_bytes(v, &job->p) : -1;
    double peak = d->fp32_peak_gflops * 1e9;
    double bw = (d->copy_bw_gbs > 0 ? d->copy_bw_gbs : d->theo_bw_gbs) * 1e9;
    if (peak <= 0)
        peak = 1e11;   /* a CPU: no peak known; only the order of its jobs matters */
    if (bw <= 0)
        bw = 1e11;
    if (fl <= 0 && by <= 0)
        by = buffer_bytes(job);
    if (fl <= 0 && by <= 0)
        return -1;
    double t = (fl > 0 ? fl / peak : 0) + (by > 0 ? by / bw : 0);
    return t * (1 + job->t.warmup + job->t.min_samples + PASSES_GUESS);
}

void gl_sweep_costs(struct gl_sweep *sw, gl_store *store, int ci, double *cost)
{
    const struct gl_expansion *e = &sw->exps[ci];
    int n = e->njobs, off = 0;
    for (int i = 0; i < ci; i++)
        off += sw->exps[i].njobs;
    double *an = malloc((size_t)(n > 0 ? n : 1) * sizeof *an);
    double *st = malloc((size_t)(n > 0 ? n : 1) * sizeof *st);
    double *tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof *tmp);
    if (!an || !st || !tmp) {   /* no estimates: every job alike (plan order) */
        for (int i = 0; i < n; i++)
            cost[i] = 1.0;
        free(an);
        free(st);
        free(tmp);
        return;
    }
    for (int i = 0; i < n; i++) {
        const struct gl_job *job = &e->jobs[i];
        int state = sw->surveyed ? sw->surveyed[off + i] : GL_JOB_RUN;
        an[i] = st[i] = -1;
        cost[i] = 0;
        if (state != GL_JOB_RUN && state != GL_JOB_ELSEWHERE)
            continue;
        if (store) {
            struct gl_run_key k;
            gl_sweep_key(sw, job, &k);
            double ms = gl_store_run_cost(store, &k);
            st[i] = ms >= 0 ? ms / 1e3 : -1;
        }
        an[i] = analytic(sw, job);
    }
    /* scale: stored / analytic where a job has both, else the medians' ratio */
    int nb = 0, ns = 0, na = 0;
    for (int i = 0; i < n; i++)
        if (st[i] > 0 && an[i] > 0)
            tmp[nb++] = st[i] / an[i];
    double scale = median(tmp, nb);
    if (scale <= 0) {
        for (int i = 0; i < n; i++)
            if (st[i] > 0)
                tmp[ns++] = st[i];
        double ms = median(tmp, ns);
        for (int i = 0; i < n; i++)
            if (an[i] > 0)
                tmp[na++] = an[i];
        double ma = median(tmp, na);
        scale = ms > 0 && ma > 0 ? ms / ma : 1.0;
    }
    int nk = 0;
    for (int i = 0; i < n; i++) {
        if (st[i] >= 0)
            cost[i] = st[i];
        else if (an[i] >= 0)
            cost[i] = an[i] * scale;
        else
            cost[i] = -1;
        if (cost[i] >= 0)
            tmp[nk++] = cost[i];
    }
    double typical = median(tmp, nk);   /* for the jobs nothing is known of */
    for (int i = 0; i < n; i++) {
        int state = sw->surveyed ? sw->surveyed[off + i] : GL_JOB_RUN;
        if (state != GL_JOB_RUN && state != GL_JOB_ELSEWHERE)
            continue;
        if (cost[i] < 0)
            cost[i] = typical > 0 ? typical : 0;
        cost[i] += RUN_OVERHEAD_S;
    }
    free(an);
    free(st);
    free(tmp);
}
