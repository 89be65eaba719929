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
#include "run_config.h"
#include "run_loop.h"
#include "search.h"
#include "search_plan.h"
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
#include <unistd.h>

/* The GPU the sweep has, or why none; planning says what a run would do. */
static void print_gpu_banner(const struct gl_sweep *sw, int planning)
{
    if (!sw->gpu_wanted)
        return;
    if (!sw->gpu_ok) {
        fprintf(stderr,
                "gpulab: *** no usable GPU: %s ***\n"
                "gpulab: *** %s ***\n", sw->gpu_why,
                planning ? "a run here would skip the GPU variants (not stored) and run the "
                           "CPU variants"
                         : "GPU variants are skipped (not stored); CPU variants run.");
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
        fprintf(out, "compiled %d kernel%s, %d from the cache (%s; %d program%s compiled)\n",
                sw->nkernels, sw->nkernels == 1 ? "" : "s", sw->nkernels_cached, sw->targets,
                sw->nprograms, sw->nprograms == 1 ? "" : "s");
    else if (sw->nkernels)
        fprintf(out, "compiled %d kernel%s, %d from the cache (%s)\n", sw->nkernels,
                sw->nkernels == 1 ? "" : "s", sw->nkernels_cached, sw->targets);
    if (sw->devvals_said[0])
        fprintf(out, "%s\n", sw->devvals_said);
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

/* The device rows of a sweep prepared without a store: stored (looked up only,
 * on a read-only store). 0, or 1 with err set. */
static int sweep_devices(struct gl_sweep *sw, gl_store *store, char *err, size_t errlen)
{
    sw->cpu_id = gl_store_device(store, &sw->cpu);
    int bad = sw->cpu_id < 0;
    for (int i = 0; !bad && sw->gpu_ok && i < sw->nworkers; i++)
        bad = (sw->gpu_ids[i] = gl_store_device(store, &sw->gpus[i])) < 0;
    if (bad) {
        snprintf(err, errlen, "cannot store the device: %s", gl_store_errmsg(store));
        return 1;
    }
    sw->gpu_id = sw->gpu_ids[0];
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
    int rc = gl_sweep_prepare(&sw, npaths, paths, o->only, o->force, o->arch, o->gpus, NULL,
                              &watch, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "%s%s\n", rc == 2 ? "" : "gpulab: ", err);
        gl_sweep_free(&sw);
        return rc;
    }
    if (check_only(&sw, o->only) != 0) {
        gl_sweep_free(&sw);
        return 2;
    }
    sw.clocks_base = o->clocks_base;
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
    print_gpu_banner(&sw, 0);
    print_kernels(&sw, stderr);
    print_shard(&sw.shard, stderr);

    gl_interrupt_install();

    struct gl_run_loop rl;
    struct gl_selfprof sp;
    gl_selfprof_init(&sp, stderr);
    sp.prepare_s = gl_now() - t_start;
    memcpy(sp.prep_s, sw.prep_s, sizeof sp.prep_s);
    int stop = 0;
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
    gl_sweep_warn_busy(&sw, stderr);
    if (o->clocks_base && sw.clocks_why[0])
        fprintf(stderr, "gpulab: GPU clocks%s %s\n", sw.clocks_gpus > 1 ? ":" : "", sw.clocks_why);
    gl_run_loop_init(&rl, &sw, store, o->db, o->profile_self ? &sp : NULL);
    sp.workers = rl.pg.workers;

    for (int ci = 0; ci < sw.nconfigs && !stop; ci++) {
        const struct gl_config *c = &sw.configs[ci];
        char hash[65];
        if (gl_interrupt_signal())
            break;
        gl_sha256_hex(c->text, strlen(c->text), hash);
        struct gl_session_info si;
        memset(&si, 0, sizeof si);
        si.tool_version = GL_VERSION;
        si.git_revision = gl_git_revision();
        si.host = host;
        si.argv = argv_text ? argv_text : "";
        si.config_path = c->path;
        si.config_text = c->text;
        si.config_hash = hash;
        si.study = c->study;
        gl_sweep_facts(&sw, &si);
        long long session = gl_store_session_begin(store, &si);
        if (session >= 0 && sw.shard.count > 0 &&
            gl_store_session_shard(store, session, sw.shard.index, sw.shard.count) != 0)
            session = -1;
        if (session < 0) {
            gl_run_storage_message(&rl, " (recording the session)");
            rl.storage_error++;
            break;
        }
        if (gl_run_config(&rl, ci, session) != 0)
            stop = 1;
        if (gl_store_session_end(store, session) != 0) {
            gl_run_storage_message(&rl, " (ending the session; its results are stored)");
            rl.storage_error++;
            stop = 1;
        }
    }
    gl_run_loop_end(&rl);
    free(argv_text);
    /* the clocks back as they were, before anything else can fail */
    if (gl_sweep_unlock_clocks(&sw, err, sizeof err) != 0)
        fprintf(stderr, "gpulab: the GPU's clocks stay locked: %s (reset them with "
                        "nvidia-smi -rgc)\n", err);
    int n_ok = rl.n_ok, n_wrong = rl.n_wrong, n_failed = rl.n_failed, n_skipped = rl.n_skipped;
    int sig = gl_interrupt_signal();

    printf("gpulab: %d ran (%d ok, %d wrong, %d failed", n_ok + n_wrong + n_failed + n_skipped,
           n_ok, n_wrong, n_failed);
    if (n_skipped)
        printf(", %d skipped by the harness", n_skipped);
    printf("), %d already done, %d rejected by check", rl.n_done, rl.n_rejected);
    if (rl.n_elsewhere)
        printf(", %d run by another process", rl.n_elsewhere);
    if (sw.shard.count > 0)
        printf(", %d in other shards (this is shard %d/%d)", rl.n_other, sw.shard.index,
               sw.shard.count);
    if (rl.n_nogpu)
        printf(", %d GPU runs skipped (no GPU: %s)", rl.n_nogpu, sw.gpu_why);
    printf("\n");
    if (rl.n_redone)
        printf("gpulab: %d run%s profiled again: another run of %s batch lost the CUDA context "
               "or failed its replay\n", rl.n_redone, rl.n_redone == 1 ? "" : "s",
               rl.n_redone == 1 ? "its" : "their");
    if (rl.n_unredone)
        printf("gpulab: %d run%s whose counters another run of %s batch took %s not profiled "
               "again before the sweep stopped: not stored, the next run measures %s\n",
               rl.n_unredone, rl.n_unredone == 1 ? "" : "s", rl.n_unredone == 1 ? "its" : "their",
               rl.n_unredone == 1 ? "was" : "were", rl.n_unredone == 1 ? "it" : "them");
    if (rl.storage_error)
        printf("gpulab: stopped by a storage error on %s: %d finished run%s lost (named above), "
               "every other result is stored; run again to resume once the database is "
               "writable\n", o->db, rl.n_lost, rl.n_lost == 1 ? "" : "s");
    else if (sig)
        printf("gpulab: interrupted (%s): every stored result is kept, the run%s in flight %s "
               "dropped; run again to resume\n", sig == SIGINT ? "SIGINT" : "SIGTERM",
               rl.pg.workers > 1 ? "s" : "", rl.pg.workers > 1 ? "were" : "was");
    else if (rl.worker_error)
        printf("gpulab: stopped: no worker process could be started\n");
    fflush(stdout);
    if (o->profile_self)
        gl_selfprof_report(&sp, gl_now() - t_start);
    gl_selfprof_free(&sp);
    gl_sweep_free(&sw);
    gl_store_close(store);
    if (rl.storage_error)
        return 3;
    if (sig)
        return gl_interrupt_exit_code();
    if (n_wrong || n_failed || rl.worker_error)
        return 1;
    /* Nothing executed, nothing done before, nothing left to another process,
     * and something that could not run here (no GPU, rejected, skipped by the
     * harness): a sweep that measured nothing must not look like success. A
     * sweep whose points are all done already (or that has none) stays 0. */
    if (n_ok == 0 && rl.n_done == 0 && rl.n_elsewhere == 0 &&
        rl.n_nogpu + rl.n_rejected + n_skipped > 0) {
        printf("gpulab: nothing could run here: %d point%s need%s what this machine lacks or %s "
               "skipped (exit %d)\n", rl.n_nogpu + rl.n_rejected + n_skipped,
               rl.n_nogpu + rl.n_rejected + n_skipped == 1 ? "" : "s",
               rl.n_nogpu + rl.n_rejected + n_skipped == 1 ? "s" : "",
               rl.n_nogpu + rl.n_rejected + n_skipped == 1 ? "was" : "were", GL_EXIT_NOTHING_RAN);
        return GL_EXIT_NOTHING_RAN;
    }
    return 0;
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
    int rc = gl_sweep_prepare(&sw, npaths, paths, o->only, o->force, o->arch, NULL, NULL, &watch,
                              err, sizeof err);
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
        have_db = fst.st_size > 0 || !S_ISREG(fst.st_mode);   /* a device: refused by the open */
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
    print_gpu_banner(&sw, 1);
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
            /* compiler = auto's choice of nvcc, said once per file */
            if (s->kernel && s->kernel->compiler_why[0]) {
                int said = 0;
                for (int pi = 0; pi < si; pi++)
                    said |= c->sections[pi].kernel &&
                            strcmp(c->sections[pi].kernel->source, s->kernel->source) == 0;
                if (!said)
                    printf("    %s: compiled with nvcc (compiler = auto: %s)\n", s->kernel->source,
                           s->kernel->compiler_why);
            }
            if (s->search.strategy != GL_SEARCH_EXHAUSTIVE) {   /* a search: its own account */
                gl_search_plan(&sw, store, ci, si, stdout);
                continue;
            }
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
                        gl_job_label(job, label, sizeof label);
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
            if (c->sections[e->rejects[ri].section].search.strategy == GL_SEARCH_EXHAUSTIVE)
                printf("  [%s] %s: %d points dropped by %s\n", c->sections[e->rejects[ri].section].name,
                   e->rejects[ri].variant, e->rejects[ri].count, e->rejects[ri].reason);
        if (e->nduplicates)
            printf("  %d points collapsed into jobs above (parameters a variant does not read)\n",
                   e->nduplicates);
    }
    for (int ci = 0; ci < sw.nconfigs; ci++)
        total[GL_JOB_RUN] += gl_search_expected(&sw.configs[ci], &sw.exps[ci]);
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
