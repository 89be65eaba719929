/* cmd_run.c - `gpulab run` and `gpulab plan`: walk the expanded sweep, skip what
 * is done (and, with --shard or in a Slurm job array, what is another shard's:
 * shard.h), run the rest in the worker, store each result as it arrives, and say
 * what happened. The sweep is prepared (configs parsed, kernels compiled) before
 * the store is opened, so a config error leaves no database behind; `plan` opens
 * the database read-only, if there is one. Must not measure anything itself
 * (the worker does). */
#include "commands.h"
#include "interrupt.h"
#include "kernel_variant.h"
#include "metric_sets.h"
#include "nearest.h"
#include "progress.h"
#include "selfprof.h"
#include "registry.h"
#include "sha256.h"
#include "stats.h"
#include "sweep.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *status_word(int st)
{
    switch (st) {
    case GL_OK: return "ok";
    case GL_WRONG: return "WRONG";
    case GL_SKIPPED: return "skipped";
    default: return "FAILED";
    }
}

static void job_label(const struct gl_job *job, char *buf, size_t len)
{
    char params[256];
    gl_params_format(&job->p, params, sizeof params);
    snprintf(buf, len, "%s/%s %s", job->v->family, job->v->name, params);
}

static void result_line(const struct gl_job *job, const struct gl_result *r, char *buf, size_t len)
{
    char label[300];
    job_label(job, label, sizeof label);
    if (r->status != GL_OK) {
        snprintf(buf, len, "%s  %s: %s", label, status_word(r->status), r->reason);
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
    snprintf(buf, len, "%s  ok  %.4g ms (n=%d%s)%s%s%s", label, s.median, s.count, spread, rate, r->passes > 0 ? "  counters: " : "",
             r->passes > 0 ? "yes" : "");
}

static void print_gpu_banner(const struct gl_sweep *sw)
{
    if (!sw->gpu_wanted)
        return;
    if (!sw->gpu_ok) {
        fprintf(stderr,
                "gpulab: *** no usable GPU: %s ***\n"
                "gpulab: *** GPU variants are skipped (not stored); CPU variants run. ***\n",
                sw->gpu_why);
        return;
    }
    fprintf(stderr, "gpulab: GPU: %s (sm_%d%d, %d SMs)\n", sw->gpu.name, sw->gpu.cc_major,
            sw->gpu.cc_minor, sw->gpu.sm_count);
    if (sw->counters < 0)
        fprintf(stderr,
                "gpulab: *** hardware counters unavailable: %s ***\n"
                "gpulab: *** runs are timed and verified; metric columns stay NULL with this reason. ***\n",
                sw->counters_why);
}

/* What the sweep compiled of the users' kernels (nothing when it has none). */
static void print_kernels(const struct gl_sweep *sw, FILE *out)
{
    if (sw->kernels_why[0])
        fprintf(out, "gpulab: user kernels not compiled: %s\n", sw->kernels_why);
    else if (sw->nkernels && sw->nprograms)
        fprintf(out, "compiled %d kernel%s, %d from the cache (sm_%d; %d program%s compiled)\n",
                sw->nkernels, sw->nkernels == 1 ? "" : "s", sw->nkernels_cached, sw->arch,
                sw->nprograms, sw->nprograms == 1 ? "" : "s");
    else if (sw->nkernels)
        fprintf(out, "compiled %d kernel%s, %d from the cache (sm_%d)\n", sw->nkernels,
                sw->nkernels == 1 ? "" : "s", sw->nkernels_cached, sw->arch);
    if (sw->ncrefs)
        fprintf(out, "compiled %d C reference%s, %d from the cache\n", sw->ncrefs,
                sw->ncrefs == 1 ? "" : "s", sw->ncrefs_cached);
}

/* The sweep's watch on compiling (sweep.h): on stderr, a line rewritten in
 * place on a terminal, else a line each time (about once a second, after the
 * first second). */
static void compile_progress(void *ctx, const struct gl_compile_status *st)
{
    int tty = *(const int *)ctx;
    if (st->final) {
        if (tty)
            fputs("\r\033[K", stderr);
        return;
    }
    fprintf(stderr, "%scompiling kernels: %d/%d (%d program%s left, %.1f s)%s",
            tty ? "\r\033[K" : "", st->kernels_done, st->kernels_total, st->programs_left,
            st->programs_left == 1 ? "" : "s", st->seconds, tty ? "" : "\n");
    fflush(stderr);
}

/* The jobs that will run (not done, rejected or without their GPU) as the
 * survey before the locks found them: what the progress counts and the ETA is
 * made of. */
static int count_jobs(const struct gl_sweep *sw)
{
    int n = 0, total = 0;
    for (int i = 0; i < sw->nconfigs; i++)
        total += sw->exps[i].njobs;
    for (int i = 0; i < total; i++)
        n += !sw->surveyed || sw->surveyed[i] == GL_JOB_RUN;
    return n;
}

/* The heartbeat (worker.h's on_wait): a long run says it is still going. */
static void still_running(void *arg, double elapsed)
{
    gl_progress_tick(arg, elapsed);
}

/* GPULAB_HEARTBEAT: seconds between "still running" lines when stdout is not a
 * terminal (default 30; 0 = none). */
static double heartbeat_every(void)
{
    const char *e = getenv("GPULAB_HEARTBEAT");
    if (!e || !*e)
        return 30.0;
    double v = strtod(e, NULL);
    return v > 0 ? v : 0;
}

/* What gl_cmd_run keeps while it walks the jobs. */
struct run_state {
    struct gl_sweep *sw;
    gl_store *store;
    const char *db;                 /* its file, for messages */
    int storage_error;              /* something could not be stored, even on the retry */
    int n_lost;                     /* finished runs not stored */
    int worker_error;               /* no worker could be started */
    struct gl_progress pg;
    long long session;
    const struct gl_config *c;
    int n_ok, n_wrong, n_failed, n_skipped;
    int batch_max;                  /* GPULAB_BATCH, 1..GL_BATCH_MAX */
    const char *spec_seen;          /* metrics text batchable() resolved last ... */
    int spec_checked, spec_profiles;  /* ... and whether it collects counters */
    struct gl_selfprof *sp;         /* --profile-self, else NULL */
    /* GPU jobs waiting to run as one batch */
    int npend;
    const struct gl_job *pend[GL_BATCH_MAX];
    double started;                 /* wall clock at the start of the batch in flight */
};

/* A storage error: the file and SQLite's message. */
static void storage_message(struct run_state *st, const char *what)
{
    gl_progress_note(&st->pg, "");
    fprintf(stderr, "gpulab: storage error: %s: %s%s\n", st->db, gl_store_errmsg(st->store), what);
}

/* A finished run that could not be stored: named, so that nothing is lost unsaid. */
static void report_lost(struct run_state *st, const struct gl_job *job, const struct gl_result *res)
{
    char label[300];
    job_label(job, label, sizeof label);
    fprintf(stderr, "gpulab: lost (finished %s, not stored): %s\n", status_word(res->status), label);
    st->storage_error++;
    st->n_lost++;
}

/* A user kernel's compiler and options, for its run row (nothing for a
 * built-in variant: NULL). */
static void compile_info(const struct gl_job *job, struct gl_run_info *ri)
{
    const struct gl_kernel_variant *kv = gl_kernel_variant_of(job->v);
    if (!kv)
        return;
    ri->compiler = kv->k->compiler == GL_KC_NVCC ? "nvcc" : "nvrtc";
    ri->compile_options = kv->k->options_text;
}

/* Store a result, trying a second time when the first fails, and print its
 * line. 0, or -1 when both failed (said, and the run named as lost). */
static int finish_job(struct run_state *st, const struct gl_job *job, const struct gl_result *res,
                      double seconds)
{
    struct gl_run_key key;
    char line[1024];
    gl_sweep_key(st->sw, job, &key);
    struct gl_run_info ri = { st->session, st->c->study, st->c->sections[job->section].name,
                              &job->t, job->v->flops ? job->v->flops(job->v, &job->p) : -1,
                              job->v->min_bytes ? job->v->min_bytes(job->v, &job->p) : -1,
                              st->started, NULL, NULL };
    compile_info(job, &ri);
    /* A run the harness skipped (threads over the limit, a size it refuses) is
     * stored once: a rerun skips it again and adds no second row. */
    int ok = 0;
    double t0 = gl_now();
    for (int attempt = 0; attempt < 2 && !ok; attempt++) {
        int stored = 0;
        if (res->status == GL_SKIPPED)
            stored = gl_store_has_status(st->store, &key, "skipped");
        ok = stored > 0 || (stored == 0 && gl_store_result(st->store, &key, &ri, res) >= 0);
        if (!ok)
            storage_message(st, attempt == 0 ? " (trying once more)" : "");
    }
    if (!ok) {
        report_lost(st, job, res);
        return -1;
    }
    if (res->status == GL_OK)
        st->n_ok++;
    else if (res->status == GL_WRONG)
        st->n_wrong++;
    else if (res->status == GL_SKIPPED)
        st->n_skipped++;
    else
        st->n_failed++;
    result_line(job, res, line, sizeof line);
    if (st->sp) {
        char label[300];
        job_label(job, label, sizeof label);
        gl_selfprof_add(st->sp, label, job->v->device, res, seconds * 1e3, (gl_now() - t0) * 1e3,
                        job->t.max_seconds);
    }
    gl_progress_finish(&st->pg, line, 1, seconds);
    return 0;
}

/* A job's metrics text; none given means the default set. */
static const char *metrics_spec(const struct gl_job *job)
{
    return job->metrics && job->metrics[0] ? job->metrics : "default";
}

/* A GPU job that profiles counters: worth batching with its neighbours. The
 * spec is resolved once per distinct text (jobs of a section share it). */
static int batchable(struct run_state *st, const struct gl_job *job)
{
    static struct gl_metric_req req;
    char err[256];
    if (st->batch_max < 2 || strcmp(job->v->device, "gpu") != 0 || st->sw->counters < 0)
        return 0;
    if (job->metrics != st->spec_seen || !st->spec_checked) {
        st->spec_profiles = gl_metric_resolve(metrics_spec(job), &req, err, sizeof err) == 0 &&
                            (req.n > 0 || req.drain);
        st->spec_seen = job->metrics;
        st->spec_checked = 1;
    }
    return st->spec_profiles;
}

static int same_metrics(const struct gl_job *a, const struct gl_job *b)
{
    return strcmp(metrics_spec(a), metrics_spec(b)) == 0;
}

/* Run list[0..n) as one batch in the worker and store the results. 0, or -1
 * to stop the sweep. */
static int run_batch(struct run_state *st, const struct gl_job *const *list, int n)
{
    static struct gl_job jobs[GL_BATCH_MAX];
    static struct gl_result res[GL_BATCH_MAX];
    char label[300], msg[400], err[2048];
    if (n == 0)
        return 0;
    for (int i = 0; i < n; i++)
        jobs[i] = *list[i];
    job_label(&jobs[0], label, sizeof label);
    if (n > 1)
        snprintf(msg, sizeof msg, "%s (+%d more, profiled together)", label, n - 1);
    else
        snprintf(msg, sizeof msg, "%s", label);
    gl_progress_start(&st->pg, msg);
    st->started = gl_wall_now();
    double t0 = gl_now();
    int rc = gl_worker_run_batch(&st->sw->worker, jobs, n, res, err, sizeof err);
    if (rc == -2)
        return -1;   /* SIGINT/SIGTERM (forwarded to the worker): nothing to store */
    if (rc == -1) {
        gl_progress_note(&st->pg, err);
        st->worker_error = 1;
        return -1;
    }
    /* each run's wall: its own time in the worker and an equal share of the rest */
    double total = gl_now() - t0, inside = 0.0;
    for (int i = 0; i < n; i++)
        inside += res[i].phase_ms[GL_PH_RUN] / 1e3;
    double rest = total > inside ? (total - inside) / n : 0.0;
    for (int i = 0; i < n; i++)
        if (finish_job(st, &jobs[i], &res[i], res[i].phase_ms[GL_PH_RUN] / 1e3 + rest) != 0) {
            for (int j = i + 1; j < n; j++)   /* the store is failing: not tried */
                report_lost(st, &jobs[j], &res[j]);
            return -1;
        }
    return 0;
}

/* Run the pending batch. 0, or -1 to stop the sweep. */
static int run_pending(struct run_state *st)
{
    int n = st->npend;
    st->npend = 0;
    return run_batch(st, st->pend, n);
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

/* The device rows of a sweep prepared without a store: stored (looked up only,
 * on a read-only store). 0, or 1 with err set. */
static int sweep_devices(struct gl_sweep *sw, gl_store *store, char *err, size_t errlen)
{
    sw->cpu_id = gl_store_device(store, &sw->cpu);
    if (sw->cpu_id >= 0 && sw->gpu_ok)
        sw->gpu_id = gl_store_device(store, &sw->gpu);
    if (sw->cpu_id < 0 || (sw->gpu_ok && sw->gpu_id < 0)) {
        snprintf(err, errlen, "cannot store the device: %s", gl_store_errmsg(store));
        return 1;
    }
    return 0;
}

/* --only VARIANT must name a variant of some section of the configs (kernel
 * sections included), else nothing would run and the typo go unnoticed.
 * 0, or 2 with the message (and the nearest name) printed. */
static int check_only(const struct gl_sweep *sw, const char *only)
{
    struct gl_nearest near;
    if (!only)
        return 0;
    gl_nearest_init(&near, only);
    for (int ci = 0; ci < sw->nconfigs; ci++) {
        const struct gl_config *c = &sw->configs[ci];
        for (int si = 0; si < c->nsections; si++)
            for (int vi = 0; vi < c->sections[si].nvariants; vi++) {
                const char *name = c->sections[si].variants[vi];
                if (strcmp(name, only) == 0)
                    return 0;
                gl_nearest_offer(&near, name);
            }
    }
    if (near.best)
        fprintf(stderr, "gpulab: --only %s: no variant of the configs has that name "
                        "(did you mean '%s'?)\n", only, near.best);
    else
        fprintf(stderr, "gpulab: --only %s: no variant of the configs has that name\n", only);
    return 2;
}

/* The shard this process runs (--shard, or a Slurm job array's task): 0, or 2
 * (a usage error, said). */
static int resolve_shard(const struct gl_run_opts *o, struct gl_shard *sh)
{
    char err[512];
    if (gl_shard_resolve(o->shard, NULL, sh, err, sizeof err) != 0) {
        fprintf(stderr, "gpulab: %s\n", err);
        return 2;
    }
    return 0;
}

static void print_shard(const struct gl_shard *sh, FILE *out)
{
    if (sh->count > 0)
        fprintf(out, "gpulab: shard %d/%d (%s): the jobs whose shard key hashes to %d modulo %d\n",
                sh->index, sh->count, sh->from, sh->index, sh->count);
}

int gl_cmd_run(int npaths, char **paths, const struct gl_run_opts *o)
{
    static char err[80 * 1024];   /* a compiler log fits */
    gl_store *store = NULL;
    struct gl_sweep sw;
    double t_start = gl_now();
    struct gl_shard shard;
    if (o->dry_run)
        return gl_cmd_plan(npaths, paths, o, 1);
    if (resolve_shard(o, &shard) != 0)
        return 2;
    int tty = isatty(2);
    struct gl_sweep_watch watch = { compile_progress, &tty };
    int rc = gl_sweep_prepare(&sw, npaths, paths, o->only, o->force, o->arch, NULL, &watch, err,
                              sizeof err);
    if (rc != 0) {
        fprintf(stderr, "%s%s\n", rc == 2 ? "" : "gpulab: ", err);
        gl_sweep_free(&sw);
        return rc;
    }
    if (check_only(&sw, o->only) != 0) {
        gl_sweep_free(&sw);
        return 2;
    }
    sw.shard = shard;
    /* A file too large to check quickly is opened unchecked, and said so. */
    struct stat fst;
    if (stat(o->db, &fst) == 0 && (long long)fst.st_size > GL_STORE_CHECK_MAX)
        fprintf(stderr, "gpulab: note: %s is over %lld MiB: its integrity check (quick_check) "
                        "is skipped\n", o->db, GL_STORE_CHECK_MAX >> 20);
    rc = gl_store_open(o->db, &store, err, sizeof err);
    if (rc != 0) {
        if (strstr(err, o->db))
            fprintf(stderr, "gpulab: %s\n", err);
        else
            fprintf(stderr, "gpulab: storage error: %s: %s\n", o->db, err);
        gl_sweep_free(&sw);
        return 3;   /* damaged, foreign, newer, locked, unwritable: a storage error */
    }
    if (sweep_devices(&sw, store, err, sizeof err) != 0) {
        fprintf(stderr, "gpulab: storage error: %s: %s\n", o->db, err);
        gl_sweep_free(&sw);
        gl_store_close(store);
        return 3;
    }
    print_gpu_banner(&sw);
    print_kernels(&sw, stderr);
    print_shard(&sw.shard, stderr);

    gl_interrupt_install();

    struct run_state st;
    struct gl_selfprof sp;
    memset(&st, 0, sizeof st);
    gl_selfprof_init(&sp, stderr);
    sp.prepare_s = gl_now() - t_start;
    st.sp = o->profile_self ? &sp : NULL;
    st.sw = &sw;
    st.store = store;
    st.db = o->db;
    st.batch_max = batch_size();
    int n_done = 0, n_rejected = 0, n_nogpu = 0, n_elsewhere = 0, n_other = 0, stop = 0;
    char host[128], *argv_text = gl_join_argv(o->argc, o->argv);
    gl_hostname(host, sizeof host);
    /* One measurement per device: lock the devices the sweep will run on (waits,
     * or refuses with --no-wait: exit 4). */
    rc = gl_sweep_lock(&sw, store, !o->no_wait, argv_text, gl_interrupt_flag(), err, sizeof err);
    if (rc != 0 && rc != GL_DEVLOCK_STOPPED) {
        fprintf(stderr, "gpulab: %s\n", err);
        free(argv_text);
        gl_sweep_free(&sw);
        gl_store_close(store);
        return rc == GL_DEVLOCK_BUSY ? 4 : 1;
    }
    gl_progress_init(&st.pg, stdout, count_jobs(&sw));
    if (!st.pg.tty) {
        sw.worker.on_wait = still_running;
        sw.worker.wait_arg = &st.pg;
        sw.worker.wait_every = heartbeat_every();
    }
    static struct gl_result res;

    for (int ci = 0; ci < sw.nconfigs && !stop; ci++) {
        const struct gl_config *c = &sw.configs[ci];
        char hash[65];
        gl_sha256_hex(c->text, strlen(c->text), hash);
        struct gl_session_info si = { GL_VERSION, gl_git_revision(), host,
                                      argv_text ? argv_text : "", c->path, c->text, hash, c->study,
                                      0, 0, 0, 0, NULL };
        gl_sweep_facts(&sw, &si);
        long long session = gl_store_session_begin(store, &si);
        if (session >= 0 && sw.shard.count > 0 &&
            gl_store_session_shard(store, session, sw.shard.index, sw.shard.count) != 0)
            session = -1;
        if (session < 0) {
            storage_message(&st, " (recording the session)");
            st.storage_error++;
            break;
        }
        st.session = session;
        st.c = c;
        st.npend = 0;
        for (int ji = 0; ji < sw.exps[ci].njobs && !stop; ji++) {
            const struct gl_job *job = &sw.exps[ci].jobs[ji];
            struct gl_run_key key;
            char line[1024], label[300];
            if (gl_interrupt_signal()) {
                stop = 1;
                break;
            }
            gl_sweep_key(&sw, job, &key);
            struct gl_run_info ri = { session, c->study, c->sections[job->section].name, &job->t,
                                      job->v->flops ? job->v->flops(job->v, &job->p) : -1,
                                      job->v->min_bytes ? job->v->min_bytes(job->v, &job->p) : -1,
                                      0, NULL, NULL };
            compile_info(job, &ri);
            job_label(job, label, sizeof label);
            int js = gl_sweep_claim(&sw, store, ci, ji);   /* claimed before it runs */
            if (js < 0) {
                fprintf(stderr, "gpulab: store: %s\n", gl_store_errmsg(store));
                st.storage_error++;
                stop = 1;
                break;
            }
            switch (js) {
            case GL_JOB_OTHER_SHARD:
                n_other++;
                continue;
            case GL_JOB_ELSEWHERE:
                n_elsewhere++;
                gl_progress_finish(&st.pg, NULL, 0, 0);
                continue;
            case GL_JOB_DONE:
                n_done++;
                continue;
            case GL_JOB_NO_GPU:
                n_nogpu++;
                continue;
            case GL_JOB_REJECTED:
                if (key.device_id <= 0) {   /* a GPU variant, no GPU: no device to store it for */
                    n_nogpu++;
                    continue;
                }
                n_rejected++;
                if (gl_store_has_status(store, &key, "skipped") == 0) {
                    memset(&res, 0, sizeof res);
                    res.status = GL_SKIPPED;
                    res.max_rel_err = res.h2d_ms = res.d2h_ms = -1;
                    snprintf(res.reason, sizeof res.reason, "%s", job->skip);
                    snprintf(res.metrics_reason, sizeof res.metrics_reason, "not run: %.240s", job->skip);
                    if (gl_store_result(store, &key, &ri, &res) < 0) {
                        storage_message(&st, " (storing a rejected point as skipped)");
                        st.storage_error++;
                        stop = 1;
                        break;
                    }
                    snprintf(line, sizeof line, "%s  skipped: %s", label, job->skip);
                    gl_progress_finish(&st.pg, line, 0, 0);
                }
                continue;
            case GL_JOB_RUN:
                break;
            }
            /* GPU runs with counters wait to be run as one batch (profiled
             * together); the other runs (CPU baselines, GPU runs without
             * counters) go at once, ahead of the waiting batch, so that a CPU
             * baseline between two GPU runs does not split their batch: every
             * batch costs a CUPTI collection session, and a range profiler
             * object of its own when its range mode differs from the last. */
            if (!batchable(&st, job)) {
                if (run_batch(&st, &job, 1) != 0)
                    stop = 1;
                continue;
            }
            if (st.npend > 0 && (st.npend >= st.batch_max || !same_metrics(st.pend[0], job)) &&
                run_pending(&st) != 0) {
                stop = 1;
                break;
            }
            st.pend[st.npend++] = job;
        }
        if (!stop && !gl_interrupt_signal() && run_pending(&st) != 0)
            stop = 1;
        if (gl_store_session_end(store, session) != 0) {
            storage_message(&st, " (ending the session; its results are stored)");
            st.storage_error++;
            stop = 1;
        }
    }
    gl_progress_end(&st.pg);
    free(argv_text);
    int n_ok = st.n_ok, n_wrong = st.n_wrong, n_failed = st.n_failed, n_skipped = st.n_skipped;
    int sig = gl_interrupt_signal();

    printf("gpulab: %d ran (%d ok, %d wrong, %d failed", n_ok + n_wrong + n_failed + n_skipped,
           n_ok, n_wrong, n_failed);
    if (n_skipped)
        printf(", %d skipped by the harness", n_skipped);
    printf("), %d already done, %d rejected by check", n_done, n_rejected);
    if (n_elsewhere)
        printf(", %d run by another process", n_elsewhere);
    if (sw.shard.count > 0)
        printf(", %d in other shards (this is shard %d/%d)", n_other, sw.shard.index,
               sw.shard.count);
    if (n_nogpu)
        printf(", %d GPU runs skipped (no GPU: %s)", n_nogpu, sw.gpu_why);
    printf("\n");
    if (st.storage_error)
        printf("gpulab: stopped by a storage error on %s: %d finished run%s lost (named above), "
               "every other result is stored; run again to resume once the database is "
               "writable\n", o->db, st.n_lost, st.n_lost == 1 ? "" : "s");
    else if (sig)
        printf("gpulab: interrupted (%s): every stored result is kept, the run in flight was "
               "dropped; run again to resume\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    else if (st.worker_error)
        printf("gpulab: stopped: no worker process could be started\n");
    fflush(stdout);
    if (st.sp)
        gl_selfprof_report(st.sp, gl_now() - t_start);
    gl_selfprof_free(&sp);
    gl_sweep_free(&sw);
    gl_store_close(store);
    if (st.storage_error)
        return 3;
    if (sig)
        return gl_interrupt_exit_code();
    return (n_wrong || n_failed || st.worker_error) ? 1 : 0;
}

/* ---- plan ------------------------------------------------------------------ */

static const char *state_word(enum gl_job_state st)
{
    switch (st) {
    case GL_JOB_RUN: return "run";
    case GL_JOB_DONE: return "done";
    case GL_JOB_REJECTED: return "skip";
    case GL_JOB_ELSEWHERE: return "busy";
    case GL_JOB_OTHER_SHARD: return "other-shard";
    default: return "no-gpu";
    }
}

int gl_cmd_plan(int npaths, char **paths, const struct gl_run_opts *o, int list_all)
{
    static char err[80 * 1024];   /* a compiler log fits */
    gl_store *store = NULL;
    struct gl_sweep sw;
    struct gl_shard shard;
    if (resolve_shard(o, &shard) != 0)
        return 2;
    int tty = isatty(2);
    struct gl_sweep_watch watch = { compile_progress, &tty };
    int rc = gl_sweep_prepare(&sw, npaths, paths, o->only, o->force, o->arch, NULL, &watch, err,
                              sizeof err);
    if (rc != 0) {
        fprintf(stderr, "%s%s\n", rc == 2 ? "" : "gpulab: ", err);
        gl_sweep_free(&sw);
        return rc;
    }
    if (check_only(&sw, o->only) != 0) {
        gl_sweep_free(&sw);
        return 2;
    }
    sw.shard = shard;
    /* Read-only, and only if there is a database: none (or an empty file) is
     * planned as an empty one, everything "run". */
    struct stat fst;
    int have_db = 0;
    if (stat(o->db, &fst) == 0) {
        have_db = fst.st_size > 0;
    } else if (errno != ENOENT) {
        fprintf(stderr, "gpulab: %s: %s\n", o->db, strerror(errno));
        gl_sweep_free(&sw);
        return 2;
    }
    if (have_db && gl_store_open_readonly(o->db, &store, err, sizeof err) != 0) {
        fprintf(stderr, "gpulab: %s\n", err);
        gl_sweep_free(&sw);
        return 2;
    }
    if (store && sweep_devices(&sw, store, err, sizeof err) != 0) {
        fprintf(stderr, "gpulab: %s\n", err);
        gl_sweep_free(&sw);
        gl_store_close(store);
        return 1;
    }
    print_gpu_banner(&sw);
    print_kernels(&sw, stdout);
    print_shard(&sw.shard, stdout);
    int total[GL_JOB_STATES] = { 0 };
    for (int ci = 0; ci < sw.nconfigs; ci++) {
        const struct gl_config *c = &sw.configs[ci];
        const struct gl_expansion *e = &sw.exps[ci];
        printf("%s (study %s): %d jobs\n", c->path, c->study, e->njobs);
        for (int si = 0; si < c->nsections; si++) {
            const struct gl_section *s = &c->sections[si];
            printf("  [%s] family %s\n", s->name, s->family);
            for (int vi = 0; vi < s->nvariants; vi++) {
                int cnt[GL_JOB_STATES] = { 0 }, n = 0;
                const struct gl_variant *v = gl_section_variant(s, vi);
                for (int ji = 0; ji < e->njobs; ji++) {
                    const struct gl_job *job = &e->jobs[ji];
                    if (job->section != si || job->v != v)
                        continue;
                    enum gl_job_state st = gl_sweep_state(&sw, store, job);
                    cnt[st]++;
                    total[st]++;
                    n++;
                    if (list_all && st != GL_JOB_OTHER_SHARD) {
                        char label[300];
                        job_label(job, label, sizeof label);
                        printf("      %-9s %s%s%s\n", state_word(st), label, job->skip[0] ? "  -- " : "",
                               job->skip);
                    }
                }
                if (n == 0)
                    continue;
                printf("    %-4s %-12s %4d configurations: %d to run, %d done, %d rejected by check",
                       v->device, v->name, n, cnt[GL_JOB_RUN], cnt[GL_JOB_DONE], cnt[GL_JOB_REJECTED]);
                if (cnt[GL_JOB_NO_GPU])
                    printf(", %d need a GPU (%s)", cnt[GL_JOB_NO_GPU], sw.gpu_why);
                if (sw.shard.count > 0)
                    printf(", %d in other shards", cnt[GL_JOB_OTHER_SHARD]);
                printf("\n");
                /* Why check() rejected launches, grouped by reason (first 16 reasons). */
                const char *why[16];
                int why_n[16], nwhy = 0;
                for (int ji = 0; ji < e->njobs; ji++) {
                    const struct gl_job *job = &e->jobs[ji];
                    if (job->section != si || job->v != v || !job->skip[0] ||
                        !gl_shard_has(&sw.shard, job))
                        continue;
                    int w = 0;
                    while (w < nwhy && strcmp(why[w], job->skip) != 0)
                        w++;
                    if (w == nwhy && nwhy < 16) {
                        why[nwhy] = job->skip;
                        why_n[nwhy++] = 0;
                    }
                    if (w < nwhy)
                        why_n[w]++;
                }
                for (int w = 0; w < nwhy; w++)
                    printf("         rejected %dx: %s\n", why_n[w], why[w]);
            }
        }
        for (int ri = 0; ri < e->nrejects; ri++)
            printf("  [%s] %s: %d points dropped by %s\n", c->sections[e->rejects[ri].section].name,
                   e->rejects[ri].variant, e->rejects[ri].count, e->rejects[ri].reason);
        if (e->nduplicates)
            printf("  %d points collapsed into jobs above (parameters a variant does not read)\n",
                   e->nduplicates);
    }
    printf("total: %d to run, %d done, %d rejected by check, %d need a GPU",
           total[GL_JOB_RUN], total[GL_JOB_DONE], total[GL_JOB_REJECTED], total[GL_JOB_NO_GPU]);
    if (total[GL_JOB_ELSEWHERE])
        printf(", %d being run by another process", total[GL_JOB_ELSEWHERE]);
    if (sw.shard.count > 0)
        printf(", %d in other shards (this is shard %d/%d)", total[GL_JOB_OTHER_SHARD],
               sw.shard.index, sw.shard.count);
    printf("\n");
    gl_sweep_free(&sw);
    gl_store_close(store);
    return 0;
}
