/* run_loop.c - see run_loop.h. Must not prepare the sweep, take locks or print
 * the summary. */
#include "run_loop.h"
#include "target.h"
#include "search_plan.h"
#include "interrupt.h"
#include "kernel_scalars.h"
#include "kernel_variant.h"
#include "metric_sets.h"
#include "stats.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *status_word(int st)
{
    switch (st) {
    case GL_OK: return "ok";
    case GL_WRONG: return "WRONG";
    case GL_SKIPPED: return "skipped";
    default: return "FAILED";
    }
}

void gl_job_label(const struct gl_job *job, char *buf, size_t len)
{
    char params[256];
    gl_params_format(&job->p, params, sizeof params);
    snprintf(buf, len, "%s/%s %s", job->v->family, job->v->name, params);
}

static int is_gpu(const struct gl_job *job)
{
    return strcmp(job->v->device, "gpu") == 0;
}

/* "  (GPU n)" after a GPU run's line when the sweep has several GPUs. */
static void gpu_suffix(const struct gl_run_loop *rl, const struct gl_job *job, int slot,
                       char *buf, size_t len)
{
    buf[0] = '\0';
    if (rl->sw->multi && rl->sw->gpu_ok && is_gpu(job))
        snprintf(buf, len, "  (GPU %d)", rl->sw->gpu_num[slot]);
}

static void result_line(const struct gl_run_loop *rl, const struct gl_job *job, int slot,
                        const struct gl_result *r, char *buf, size_t len)
{
    char label[300], on[32];
    gl_job_label(job, label, sizeof label);
    gpu_suffix(rl, job, slot, on, sizeof on);
    if (r->status != GL_OK) {
        snprintf(buf, len, "%s  %s: %s%s", label, status_word(r->status), r->reason, on);
        return;
    }
    struct gl_summary s;
    gl_summarize(r->samples_ms, r->nsamples, &s);
    double fl = job->v->flops ? job->v->flops(job->v, &job->p) : -1;
    double by = job->v->min_bytes ? job->v->min_bytes(job->v, &job->p) : -1;
    char rate[64] = "";
    /* Below one FLOP per byte a kernel is judged by its bandwidth (vecadd). */
    if (s.median > 0 && fl > 0 && !(by > 0 && fl < by))
        snprintf(rate, sizeof rate, "  %.1f GFLOP/s", fl / s.median / 1e6);
    else if (s.median > 0 && by > 0)
        snprintf(rate, sizeof rate, "  %.1f GB/s", by / s.median / 1e6);
    char spread[32] = "";
    if (s.count > 1 && s.rel_se == s.rel_se)
        snprintf(spread, sizeof spread, ", ±%.2f%%", s.rel_se * 100.0);
    snprintf(buf, len, "%s  ok  %.4g ms (n=%d%s)%s%s%s%s", label, s.median, s.count, spread, rate,
             r->passes > 0 ? "  counters: " : "", r->passes > 0 ? "yes" : "", on);
}

/* The heartbeat (worker.h's on_wait): a long run says it is still going. */
static void still_running(void *arg, double elapsed)
{
    struct gl_run_tick *t = arg;
    gl_progress_tick_on(&t->rl->pg, t->slot, elapsed);
}

/* Seconds from the environment variable name: dflt when it is unset or empty,
 * 0 when it is not a positive number. */
static double env_seconds(const char *name, double dflt)
{
    const char *e = getenv(name);
    if (!e || !*e)
        return dflt;
    double v = strtod(e, NULL);
    return v > 0 ? v : 0;
}

/* GPULAB_BATCH: runs profiled together (1 = one at a time); default GL_BATCH_MAX. */
static int batch_size(void)
{
    const char *e = getenv("GPULAB_BATCH");
    if (!e || !*e)
        return GL_BATCH_MAX;
    long v = strtol(e, NULL, 10);
    return v < 1 ? 1 : v > GL_BATCH_MAX ? GL_BATCH_MAX : (int)v;
}

/* The jobs that will run (not done, rejected or without their GPU) as the
 * survey before the locks found them: what the progress counts and the ETA is
 * made of. */
static int count_jobs(const struct gl_sweep *sw)
{
    int n = 0, at = 0;
    for (int ci = 0; ci < sw->nconfigs; ci++) {
        for (int ji = 0; ji < sw->exps[ci].njobs; ji++, at++)
            n += !sw->exps[ci].jobs[ji].searched &&
                 (!sw->surveyed || sw->surveyed[at] == GL_JOB_RUN);
        n += gl_search_expected(&sw->configs[ci], &sw->exps[ci]);   /* what the searches will run at most */
    }
    return n;
}

void gl_run_loop_init(struct gl_run_loop *rl, struct gl_sweep *sw, gl_store *store,
                      const char *db, struct gl_selfprof *sp)
{
    memset(rl, 0, sizeof *rl);
    rl->sw = sw;
    rl->store = store;
    rl->db = db;
    rl->sp = sp;
    rl->batch_max = batch_size();
    /* GPULAB_UNIT_MIN: with several GPUs, the smallest share of expected work
     * (in seconds) handed out as one batch: below it, the profiling session a
     * batch costs (tens of ms) outweighs the balance it buys. */
    rl->min_unit = env_seconds("GPULAB_UNIT_MIN", 0.25);
    /* GPULAB_SPEC_COST: what a worker pays to change its metrics spec (a new
     * counter collection: 0.25-0.45 s measured on an H100), so that with several
     * GPUs a worker keeps to its spec and shares another only when the work
     * left of it is worth that start (handout.h) */
    rl->spec_cost = env_seconds("GPULAB_SPEC_COST", 0.3);
    gl_progress_init(&rl->pg, stdout, count_jobs(sw));
    rl->pg.workers = sw->multi && sw->gpu_ok ? sw->nworkers : 1;
    for (int i = 0; i < sw->nworkers; i++) {
        rl->tick[i].rl = rl;
        rl->tick[i].slot = i;
        if (!rl->pg.tty) {
            sw->workers[i].on_wait = still_running;
            sw->workers[i].wait_arg = &rl->tick[i];
            /* GPULAB_HEARTBEAT: seconds between "still running" lines when
             * stdout is not a terminal (0 = none) */
            sw->workers[i].wait_every = env_seconds("GPULAB_HEARTBEAT", 30.0);
        }
    }
}

void gl_run_loop_end(struct gl_run_loop *rl)
{
    gl_progress_end(&rl->pg);
    free(rl->attempt);
    rl->attempt = NULL;
}

void gl_run_storage_message(struct gl_run_loop *rl, const char *what)
{
    gl_progress_note(&rl->pg, "");
    fprintf(stderr, "gpulab: storage error: %s: %s%s\n", rl->db, gl_store_errmsg(rl->store), what);
}

/* A finished run that could not be stored: named, so that nothing is lost unsaid. */
static void report_lost(struct gl_run_loop *rl, const struct gl_job *job,
                        const struct gl_result *res)
{
    char label[300];
    gl_job_label(job, label, sizeof label);
    fprintf(stderr, "gpulab: lost (finished %s, not stored): %s\n", status_word(res->status), label);
    rl->storage_error++;
    rl->n_lost++;
}

/* A user kernel's compiler and options, for its run row (nothing for a
 * built-in variant: NULL). */
static void compile_info(const struct gl_sweep *sw, int slot, const struct gl_job *job,
                         struct gl_run_info *ri)
{
    static struct gl_kernel_scalars sc;   /* read by the store before the next call */
    static char target[16], launch[GL_REASON_MAX];
    const struct gl_kernel_variant *kv = gl_kernel_variant_of(job->v);
    if (!kv)
        return;
    const struct gl_device *d = sw->gpu_ok && slot >= 0 && slot < sw->nworkers ? &sw->gpus[slot]
                                                                               : &sw->gpu;
    int base = sw->gpu_ok ? d->cc_major * 10 + d->cc_minor : sw->arch;
    gl_arch_name(gl_arch_effective(kv->k->arch, base), target, sizeof target);
    ri->target = target;
    gl_kernel_launch_kind(kv->k, &job->p, launch, sizeof launch);
    ri->launch_kind = launch;
    ri->compiler = kv->k->compiler == GL_KC_NVCC ? "nvcc" : "nvrtc";
    ri->compile_options = kv->k->options_text;
    gl_kernel_scalars(kv, &job->p, &sc);   /* its scalar arguments (run_scalar) */
    ri->nscalars = sc.n;
    ri->scalars = sc.row;
}

/* Store a result (under the device of worker slot for a GPU run), trying a
 * second time when the first fails. 1 stored, 0 not (said). */
static int store_job(struct gl_run_loop *rl, const struct gl_job *job, int slot,
                     const struct gl_result *res)
{
    struct gl_run_key key;
    gl_sweep_key_on(rl->sw, job, slot, &key);
    struct gl_run_info ri = { rl->session, rl->c->study, rl->c->sections[job->section].name,
                              &job->t, job->v->flops ? job->v->flops(job->v, &job->p) : -1,
                              job->v->min_bytes ? job->v->min_bytes(job->v, &job->p) : -1,
                              rl->unit_wall[slot], NULL, NULL, 0, NULL, NULL, NULL };
    compile_info(rl->sw, slot, job, &ri);
    /* A run the harness skipped (threads over the limit, a size it refuses) is
     * stored once: a rerun skips it again and adds no second row. */
    int ok = 0;
    for (int attempt = 0; attempt < 2 && !ok; attempt++) {
        int stored = 0;
        if (res->status == GL_SKIPPED)
            stored = gl_store_has_status(rl->store, &key, "skipped");
        ok = stored > 0 || (stored == 0 && gl_store_result(rl->store, &key, &ri, res) >= 0);
        if (!ok)
            gl_run_storage_message(rl, attempt == 0 ? " (trying once more)" : "");
    }
    return ok;
}

/* Store a result (store_job) and print its line. 0, or -1 when it could not be
 * stored (said, and the run named as lost). */
static int finish_job(struct gl_run_loop *rl, const struct gl_job *job, int slot,
                      const struct gl_result *res, double seconds)
{
    char line[1100];
    double t0 = gl_now();
    if (!store_job(rl, job, slot, res)) {
        report_lost(rl, job, res);
        return -1;
    }
    if (res->status == GL_OK)
        rl->n_ok++;
    else if (res->status == GL_WRONG)
        rl->n_wrong++;
    else if (res->status == GL_SKIPPED)
        rl->n_skipped++;
    else
        rl->n_failed++;
    result_line(rl, job, slot, res, line, sizeof line);
    if (rl->sp) {
        char label[300];
        gl_job_label(job, label, sizeof label);
        gl_selfprof_add(rl->sp, label, job->v->device, res, seconds * 1e3, (gl_now() - t0) * 1e3,
                        job->t.max_seconds);
    }
    gl_progress_finish(&rl->pg, line, 1, seconds);
    return 0;
}

/* A job's metrics text; none given means the default set. */
static const char *metrics_spec(const struct gl_job *job)
{
    return job->metrics && job->metrics[0] ? job->metrics : "default";
}

/* A GPU job that profiles counters (its parked runs share a counter
 * collection). The spec is resolved once per distinct text (jobs of a section
 * share it). */
static int profiles(struct gl_run_loop *rl, const struct gl_job *job)
{
    static struct gl_metric_req req;
    char err[256];
    if (!is_gpu(job) || rl->sw->counters < 0)
        return 0;
    if (job->metrics != rl->spec_seen || !rl->spec_checked) {
        rl->spec_profiles = gl_metric_resolve(metrics_spec(job), &req, err, sizeof err) == 0 &&
                            (req.n > 0 || req.drain);
        rl->spec_seen = job->metrics;
        rl->spec_checked = 1;
    }
    return rl->spec_profiles;
}

/* A GPU job: handed out in a batch with its neighbours of the same spec, with
 * counters or without (a batch is one trip to the worker and one commit; with
 * counters also one collection session). */
static int batchable(struct gl_run_loop *rl, const struct gl_job *job)
{
    return rl->batch_max >= 2 && is_gpu(job);
}

/* A point the variant's check rejected: stored once as skipped (for the
 * device it would have run on). 0, or -1 on a storage error. */
static int store_rejected(struct gl_run_loop *rl, const struct gl_job *job, int slot)
{
    static struct gl_result res;
    struct gl_run_key key;
    char line[1100], label[300];
    gl_sweep_key_on(rl->sw, job, slot, &key);
    if (key.device_id <= 0) {   /* a GPU variant, no GPU: no device to store it for */
        rl->n_nogpu++;
        return 0;
    }
    rl->n_rejected++;
    if (gl_store_has_status(rl->store, &key, "skipped") != 0)
        return 0;
    struct gl_run_info ri = { rl->session, rl->c->study, rl->c->sections[job->section].name,
                              &job->t, job->v->flops ? job->v->flops(job->v, &job->p) : -1,
                              job->v->min_bytes ? job->v->min_bytes(job->v, &job->p) : -1, 0,
                              NULL, NULL, 0, NULL, NULL, NULL };
    compile_info(rl->sw, 0, job, &ri);
    memset(&res, 0, sizeof res);
    res.status = GL_SKIPPED;
    res.max_rel_err = res.h2d_ms = res.d2h_ms = -1;
    snprintf(res.reason, sizeof res.reason, "%s", job->skip);
    snprintf(res.metrics_reason, sizeof res.metrics_reason, "not run: %.240s", job->skip);
    if (gl_store_result(rl->store, &key, &ri, &res) < 0) {
        gl_run_storage_message(rl, " (storing a rejected point as skipped)");
        rl->storage_error++;
        return -1;
    }
    gl_job_label(job, label, sizeof label);
    snprintf(line, sizeof line, "%s  skipped: %s", label, job->skip);
    gl_progress_finish(&rl->pg, line, 0, 0);
    return 0;
}

/* handout.h's claim: job ji is about to be handed to worker slot. 1 it runs, 0
 * it does not (counted, said), -1 stop. */
static int claim_job(void *arg, int ji, int slot)
{
    struct gl_run_loop *rl = arg;
    const struct gl_job *job = &rl->sw->exps[rl->ci].jobs[ji];
    if (gl_interrupt_signal()) {
        rl->interrupted = 1;
        return -1;
    }
    int js = gl_sweep_claim_on(rl->sw, rl->store, rl->ci, ji, slot);   /* claimed before it runs */
    if (js < 0) {
        fprintf(stderr, "gpulab: store: %s\n", gl_store_errmsg(rl->store));
        rl->storage_error++;
        return -1;
    }
    switch (js) {
    case GL_JOB_OTHER_SHARD:   /* another shard's (--shard): not run, not stored */
        rl->n_other++;
        return 0;
    case GL_JOB_ELSEWHERE:
        rl->n_elsewhere++;
        gl_progress_finish(&rl->pg, NULL, 0, 0);
        return 0;
    case GL_JOB_DONE:
        rl->n_done++;
        return 0;
    case GL_JOB_NO_GPU:
        rl->n_nogpu++;
        return 0;
    case GL_JOB_REJECTED:
        return store_rejected(rl, job, slot) == 0 ? 0 : -1;
    case GL_JOB_RUN:
        return 1;
    default:
        return 0;   /* a state this loop does not run */
    }
}

/* Hand jobs idx[0..k) of the config to worker slot. The worker's answer: 0 in
 * flight, 1 complete already, -1 no worker (said), -2 interrupted. */
static int start_unit(struct gl_run_loop *rl, int slot, const int *idx, int k)
{
    static struct gl_job jobs[GL_BATCH_MAX];
    char label[300], msg[420], err[2048], on[32];
    for (int i = 0; i < k; i++) {
        jobs[i] = rl->sw->exps[rl->ci].jobs[idx[i]];
        rl->unit_job[slot][i] = idx[i];
    }
    gl_job_label(&jobs[0], label, sizeof label);
    gpu_suffix(rl, &jobs[0], slot, on, sizeof on);
    if (k > 1)
        snprintf(msg, sizeof msg, "%s (+%d more, profiled together)%s", label, k - 1, on);
    else
        snprintf(msg, sizeof msg, "%s%s", label, on);
    gl_progress_start_on(&rl->pg, slot, msg);
    rl->unit_wall[slot] = gl_wall_now();
    rl->unit_t0[slot] = gl_now();
    int rc = gl_worker_submit(&rl->sw->workers[slot], jobs, k, err, sizeof err);
    if (rc == -1) {
        gl_progress_note(&rl->pg, err);
        rl->worker_error = 1;
    } else if (rc == -2) {
        rl->interrupted = 1;
    }
    if (rc < 0) {
        gl_progress_idle(&rl->pg, slot);
        gl_handout_finished(&rl->handout, slot);
    }
    return rc;
}

/* Worker slot's unit is complete: store its results, and give the runs whose
 * counters another run of the batch took back to the same worker (a fresh
 * one when the context was lost), as a batch without the runs that failed;
 * a second loss sends them one at a time, where no other run can take their
 * counters. 0, or -1 when the store is failing (the rest named as lost). */
static int finish_unit(struct gl_run_loop *rl, int slot)
{
    struct gl_worker *w = &rl->sw->workers[slot];
    int n = w->n, redo[GL_BATCH_MAX], nredo = 0, single = 0, rc = 0;
    gl_progress_idle(&rl->pg, slot);
    /* each run's wall: its own time in the worker and an equal share of the rest */
    double total = gl_now() - rl->unit_t0[slot], inside = 0.0;
    for (int i = 0; i < n; i++)
        inside += w->res[i].phase_ms[GL_PH_RUN] / 1e3;
    double rest = total > inside ? (total - inside) / n : 0.0;
    int lost = 0;   /* some run of the batch may have taken the others' counters */
    for (int i = 0; n > 1 && i < n; i++)
        lost |= w->lost || w->res[i].status == GL_FAILED;
    /* the batch's results in one transaction: one commit, not one per run */
    int batched = n > 1 && gl_store_batch_begin(rl->store) == 0, done[GL_BATCH_MAX], ndone = 0;
    for (int i = 0; i < n; i++) {
        const struct gl_job *job = &w->jobs[i];
        const struct gl_result *r = &w->res[i];
        int ji = rl->unit_job[slot][i];
        if (rc != 0) {   /* the store is failing: not tried */
            report_lost(rl, job, r);
            continue;
        }
        if (lost && r->status == GL_OK && r->passes == 0 && r->nmetrics == 0 &&
            batchable(rl, job) && profiles(rl, job)) {
            single |= rl->attempt[ji] > 0;
            if (rl->attempt[ji] < 255)
                rl->attempt[ji]++;
            redo[nredo++] = ji;
            continue;
        }
        if (finish_job(rl, job, slot, r, r->phase_ms[GL_PH_RUN] / 1e3 + rest) != 0)
            rc = -1;
        else
            done[ndone++] = i;
    }
    if (batched) {
        double c0 = gl_now();
        if (gl_store_batch_commit(rl->store) != 0) {   /* rolled back: each alone */
            gl_run_storage_message(rl, " (the batch's results: storing each alone)");
            for (int k = 0; k < ndone; k++)
                if (!store_job(rl, &w->jobs[done[k]], slot, &w->res[done[k]])) {
                    report_lost(rl, &w->jobs[done[k]], &w->res[done[k]]);
                    rc = -1;
                }
        }
        if (rl->sp && ndone > 0) {   /* the commit, shared by the runs it stored */
            int gpu_ok = 0;
            for (int k = 0; k < ndone; k++)
                gpu_ok += strcmp(w->jobs[done[k]].v->device, "gpu") == 0 &&
                          w->res[done[k]].status == GL_OK;
            gl_selfprof_store_more(rl->sp, ndone, gpu_ok, (gl_now() - c0) * 1e3);
        }
    }
    if (nredo > 0 && rc != 0) {
        rl->n_unredone += nredo;   /* not stored: the next run measures them */
    } else if (nredo > 0) {
        char note[300];
        snprintf(note, sizeof note, "gpulab: %d run%s of this batch lost %s counters to another "
                 "run of it; profiling %s again%s", nredo, nredo == 1 ? "" : "s",
                 nredo == 1 ? "its" : "their", nredo == 1 ? "it" : "them",
                 single ? ", one at a time" : w->lost ? " in a fresh worker" : "");
        gl_progress_note(&rl->pg, note);
        rl->n_redone += nredo;
        gl_handout_redo(&rl->handout, slot, redo, nredo, single);
    }
    gl_handout_finished(&rl->handout, slot);
    return rc;
}

/* The spec of a job as a number: the first section of the config with the
 * same metrics text. */
static int spec_of(const struct gl_config *c, const struct gl_job *job)
{
    const char *mine = metrics_spec(job);
    for (int s = 0; s < c->nsections; s++) {
        const char *m = c->sections[s].metrics[0] ? c->sections[s].metrics : "default";
        if (strcmp(m, mine) == 0)
            return s;
    }
    return job->section;
}

/* Interrupted: every worker with a unit in flight gets the signal. */
static void interrupt_all(struct gl_run_loop *rl)
{
    rl->interrupted = 1;
    for (int i = 0; i < rl->sw->nworkers; i++)
        if (rl->sw->workers[i].busy) {
            gl_worker_interrupt(&rl->sw->workers[i]);
            gl_progress_idle(&rl->pg, i);
            gl_handout_finished(&rl->handout, i);
        }
}

/* The handout item of job ji of the config (its cost given). */
static void make_item(struct gl_run_loop *rl, int ji, double cost, struct gl_handout_job *it)
{
    struct gl_sweep *sw = rl->sw;
    const struct gl_job *job = &sw->exps[rl->ci].jobs[ji];
    int off = 0;
    for (int i = 0; i < rl->ci; i++)
        off += sw->exps[i].njobs;
    int state = sw->surveyed ? sw->surveyed[off + ji] : GL_JOB_RUN;
    it->job = ji;
    it->cost = cost;
    it->spec = spec_of(rl->c, job);
    int runs = state == GL_JOB_RUN || state == GL_JOB_ELSEWHERE;
    it->flags = (runs ? 0 : GL_HANDOUT_NORUN) | (is_gpu(job) ? 0 : GL_HANDOUT_CPU) |
                (batchable(rl, job) ? GL_HANDOUT_BATCH : 0) |
                (batchable(rl, job) && !profiles(rl, job) ? GL_HANDOUT_LIGHT : 0);
}

static int drive(struct gl_run_loop *rl, struct gl_handout_job *items, int n);

int gl_run_config_jobs(struct gl_run_loop *rl, int ci, long long session)
{
    struct gl_sweep *sw = rl->sw;
    const struct gl_expansion *e = &sw->exps[ci];
    int n = e->njobs, k = 0;
    rl->ci = ci;
    rl->session = session;
    rl->c = &sw->configs[ci];
    free(rl->attempt);
    rl->attempt = calloc((size_t)(n > 0 ? n : 1), 1);
    struct gl_handout_job *items = malloc((size_t)(n > 0 ? n : 1) * sizeof *items);
    double *cost = calloc((size_t)(n > 0 ? n : 1), sizeof *cost);
    if (!rl->attempt || !items || !cost) {
        free(items);
        free(cost);
        gl_progress_note(&rl->pg, "gpulab: out of memory");
        rl->worker_error = 1;
        return -1;
    }
    if (sw->multi)
        gl_sweep_costs(sw, rl->store, ci, cost);
    /* a searched section's jobs wait for its search (after the others) */
    for (int ji = 0; ji < n; ji++)
        if (!e->jobs[ji].searched)
            make_item(rl, ji, cost[ji], &items[k++]);
    free(cost);
    int rc = drive(rl, items, k);
    free(items);
    return rc;
}

int gl_run_jobs(struct gl_run_loop *rl, const int *jobs, int n)
{
    struct gl_handout_job *items = malloc((size_t)(n > 0 ? n : 1) * sizeof *items);
    if (!items) {
        gl_progress_note(&rl->pg, "gpulab: out of memory");
        rl->worker_error = 1;
        return -1;
    }
    for (int i = 0; i < n; i++)
        make_item(rl, jobs[i], 0, &items[i]);
    int rc = drive(rl, items, n);
    free(items);
    return rc;
}

/* Hand items[0..n) out to the workers until every one is stored (or the sweep
 * stops). 0, or -1 when it must stop. */
static int drive(struct gl_run_loop *rl, struct gl_handout_job *items, int n)
{
    struct gl_sweep *sw = rl->sw;
    int workers = sw->multi && sw->gpu_ok ? sw->nworkers : 1;
    int rc = gl_handout_init(&rl->handout, items, n, workers, rl->batch_max, sw->multi,
                             rl->min_unit, claim_job, rl);
    if (rc == 0)
        gl_handout_set_spec_cost(&rl->handout, rl->spec_cost);
    if (rc != 0) {
        gl_progress_note(&rl->pg, "gpulab: out of memory");
        rl->worker_error = 1;
        return -1;
    }
    struct gl_worker *ws[GL_GPUS_MAX];
    for (int i = 0; i < workers; i++)
        ws[i] = &sw->workers[i];
    int stop = 0;
    for (;;) {
        /* every idle worker gets its next unit (one answered at once is stored
         * at once, and the worker asks again) */
        for (int slot = 0; slot < workers && !stop; slot++) {
            while (!stop && !ws[slot]->busy) {
                int out[GL_BATCH_MAX];
                int k = gl_handout_next(&rl->handout, slot, out);
                if (k < 0)
                    stop = 1;
                if (k <= 0)
                    break;
                int src = start_unit(rl, slot, out, k);
                if (src < 0)
                    stop = 1;
                else if (src == 1 && finish_unit(rl, slot) != 0)
                    stop = 1;
                if (src == -2)
                    interrupt_all(rl);
            }
        }
        int busy = 0;
        for (int i = 0; i < workers; i++)
            busy += ws[i]->busy;
        if (!busy)
            break;
        /* after a stop (a storage error, no worker) the units in flight still
         * finish and are stored or named as lost; a signal ends them */
        int ready[GL_GPUS_MAX];
        int nr = gl_worker_wait(ws, workers, ready);
        if (nr < 0) {
            if (nr != -3) {
                gl_progress_note(&rl->pg, "gpulab: waiting for the workers failed");
                rl->worker_error = 1;
            }
            interrupt_all(rl);
            stop = 1;
            continue;
        }
        for (int slot = 0; slot < workers; slot++) {
            char err[2048];
            if (!ready[slot] || !ws[slot]->busy)
                continue;
            int src = gl_worker_step(ws[slot], err, sizeof err);
            if (src == 0)
                continue;
            if (src == 1) {
                if (finish_unit(rl, slot) != 0)
                    stop = 1;
                continue;
            }
            gl_progress_idle(&rl->pg, slot);
            gl_handout_finished(&rl->handout, slot);
            stop = 1;
            if (src == -1) {
                gl_progress_note(&rl->pg, err);
                rl->worker_error = 1;
            } else {
                interrupt_all(rl);   /* a signal: the other workers' runs are dropped too */
            }
        }
    }
    /* runs waiting to be profiled again when the sweep stopped: not stored */
    int waiting = 0;
    for (int i = 0; i < GL_HANDOUT_SLOTS; i++)
        waiting += rl->handout.nredo[i];
    rl->n_unredone += waiting;
    gl_handout_free(&rl->handout);
    if (stop || rl->interrupted || gl_interrupt_signal())
        return -1;
    return 0;
}
