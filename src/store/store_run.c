/* store_run.c - writing one run: its run row (key, every parameter, a user
 * kernel's named parameters, hash, compiler and options, outcome, timing policy and summary,
 * analytic counts, launch shape and resources), its run_param rows (the named
 * parameters one by one), its samples and its metrics, in one transaction.
 * Values are bound by column name through the row builder (store_bind.c); the
 * parameters come from gl_param_table. What was not measured or does not apply
 * is NULL, never 0. The run's claim (store_claim.c) goes in the same transaction.
 * Must not decide whether a run is needed (store_resume.c) nor read results. */
#include "store_int.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "ktype.h"
#include "stats.h"

static const char *status_text(int st)
{
    switch (st) {
    case GL_OK: return "ok";
    case GL_WRONG: return "wrong";
    case GL_SKIPPED: return "skipped";
    case GL_FAILED: return "failed";
    default: return NULL;
    }
}

/* The run row itself (the transaction is the caller's). */
static int insert_run(gl_store *s, const struct gl_run_key *k, const char *uparams,
                      const struct gl_run_info *ri, const struct gl_result *r,
                      const struct gl_summary *sum)
{
    static const char *const grid_cols[3] = { "grid_x", "grid_y", "grid_z" };
    static const char *const block_cols[3] = { "block_x", "block_y", "block_z" };
    static const struct gl_timing no_timing;
    struct row w;
    row_init(&w);
    row_int(&w, "session_id", ri->session_id);
    row_int(&w, "device_id", k->device_id);
    row_text(&w, "study", ri->study);
    row_text(&w, "section", ri->section);
    row_text(&w, "family", k->family);
    row_text(&w, "variant", k->variant);
    row_params(&w, k->p);
    row_text(&w, "uparams", uparams);
    row_text(&w, "code_hash", k->code_hash);
    row_text(&w, "compiler", ri->compiler);
    /* a kernel section's options as written: "" when it has none (a row of a
     * kernel section, unlike a built-in one's NULL) */
    row_text_empty(&w, "compile_options", ri->compiler ? ri->compile_options : NULL);

    row_text(&w, "status", status_text(r->status));
    row_textn(&w, "reason", r->reason, sizeof r->reason);
    row_real_nonneg(&w, "max_rel_err", r->max_rel_err);
    row_textn(&w, "check_method", r->check, sizeof r->check);
    if (r->check[0])
        row_int(&w, "check_points", r->check_points);
    else
        row_null(&w, "check_points");

    /* The timing policy applied, when the caller says. */
    const struct gl_timing *t = ri->t ? ri->t : &no_timing;
    int mark = w.n;
    row_int(&w, "warmup", t->warmup);
    row_int(&w, "min_samples", t->min_samples);
    row_int(&w, "max_samples", t->max_samples);
    row_real(&w, "max_noise", t->max_noise);
    row_real(&w, "max_seconds", t->max_seconds);
    if (!ri->t)
        row_null_from(&w, mark);

    row_int(&w, "samples", sum->count);
    row_real(&w, "median_ms", sum->median);   /* NaN (no samples) is NULL */
    row_real(&w, "mean_ms", sum->mean);
    row_real(&w, "min_ms", sum->min);
    row_real(&w, "max_ms", sum->max);
    row_real(&w, "stddev_ms", sum->stddev);
    row_real(&w, "rel_se", sum->rel_se);
    row_real_nonneg(&w, "h2d_ms", r->h2d_ms);
    row_real_nonneg(&w, "d2h_ms", r->d2h_ms);
    row_real_nonneg(&w, "flops", ri->flops);
    row_real_nonneg(&w, "min_bytes", ri->min_bytes);

    /* Launch shape: 0 launches / dimensions mean none (CPU runs, runs that never
     * launched); the per-kernel resources exist only when a kernel shape does (a
     * library call such as cuBLAS has launches but no shape of its own). */
    row_int_nz(&w, "launches", r->launches);
    for (int i = 0; i < 3; i++)
        row_int_nz(&w, grid_cols[i], r->grid[i]);
    for (int i = 0; i < 3; i++)
        row_int_nz(&w, block_cols[i], r->block[i]);
    mark = w.n;
    row_int(&w, "regs_per_thread", r->regs_per_thread);
    row_int(&w, "static_smem", r->static_smem);
    row_int(&w, "dynamic_smem", r->dynamic_smem);
    row_int(&w, "local_bytes", r->local_bytes);
    row_int(&w, "blocks_per_sm", r->blocks_per_sm);
    row_real(&w, "theo_occupancy_pct", r->theo_occupancy);
    row_textn(&w, "limiter", r->limiter, sizeof r->limiter);
    row_int(&w, "limit_regs", r->limit_regs);
    row_int(&w, "limit_smem", r->limit_smem);
    row_int(&w, "limit_warps", r->limit_warps);
    row_int(&w, "limit_blocks", r->limit_blocks);
    row_int(&w, "guide_flags", r->guide_flags);
    if (r->block[0] <= 0)
        row_null_from(&w, mark);
    row_int_nz(&w, "passes", r->passes);
    row_textn(&w, "metrics_reason", r->metrics_reason, sizeof r->metrics_reason);
    row_textn(&w, "smem_excess_reason", r->smem_reason, sizeof r->smem_reason);
    row_textn(&w, "launch_reason", r->launch_reason, sizeof r->launch_reason);
    char started[40];
    if (ri->started > 0) {
        time_t sec = (time_t)ri->started;
        struct tm tm;
        gmtime_r(&sec, &tm);
        size_t n = strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(started + n, sizeof started - n, ".%03dZ",
                 (int)((ri->started - (double)sec) * 1000.0) % 1000);
        row_text(&w, "started_at", started);
    } else {
        row_null(&w, "started_at");
    }
    row_textn(&w, "code_path", r->code_path, sizeof r->code_path);
    /* energy: both numbers or neither, and then a reason (never a bare NULL) */
    if (r->energy_j > 0 && r->avg_power_w > 0 && isfinite(r->energy_j) &&
        isfinite(r->avg_power_w)) {
        row_real(&w, "energy_j", r->energy_j);
        row_real(&w, "avg_power_w", r->avg_power_w);
        row_null(&w, "energy_reason");
    } else {
        row_null(&w, "energy_j");
        row_null(&w, "avg_power_w");
        if (r->energy_reason[0])
            row_textn(&w, "energy_reason", r->energy_reason, sizeof r->energy_reason);
        else
            row_text(&w, "energy_reason", "not measured");
    }
    row_textn(&w, "integrity", r->integrity, sizeof r->integrity);
    row_textn(&w, "contaminated", r->contaminated, sizeof r->contaminated);
    row_text(&w, "target", ri->target);
    row_text(&w, "launch_kind", ri->launch_kind);
    row_textn(&w, "device_values", r->device_values, sizeof r->device_values);

    return row_insert(s, &s->run_insert, "run", &w, "", "storing the run");
}

/* One row per named parameter: the same values as run.uparams, for SQL. */
static int insert_params(gl_store *s, long long run_id, const struct gl_params *p)
{
    for (int i = 0; i < p->nuser; i++) {
        struct row w;
        row_init(&w);
        row_int(&w, "run_id", run_id);
        row_textn(&w, "name", p->user[i].name, sizeof p->user[i].name);
        int t = gl_ktype_of_param(p->user[i].v);   /* a type parameter: its type's name */
        row_int(&w, "value", t >= 0 ? t : p->user[i].v);
        row_text(&w, "text", t >= 0 ? gl_ktype_name(t) : NULL);
        if (row_insert(s, &s->param_insert, "run_param", &w, "", "storing a named parameter") != 0)
            return -1;
    }
    return 0;
}

/* One row per scalar argument of a user kernel's run. */
static int insert_scalars(gl_store *s, long long run_id, const struct gl_run_info *ri)
{
    for (int i = 0; i < ri->nscalars; i++) {
        const struct gl_run_scalar *sc = &ri->scalars[i];
        struct row w;
        row_init(&w);
        row_int(&w, "run_id", run_id);
        row_int(&w, "idx", sc->idx);
        row_text(&w, "name", sc->name && sc->name[0] ? sc->name : NULL);
        row_text(&w, "type", sc->type);
        row_text(&w, "expr", sc->expr);
        if (sc->is_real)
            row_real(&w, "value", sc->d);
        else
            row_int(&w, "value", sc->i);
        if (row_insert(s, &s->scalar_insert, "run_scalar", &w, "", "storing a scalar argument") !=
            0)
            return -1;
    }
    return 0;
}

static int insert_samples(gl_store *s, long long run_id, const struct gl_result *r)
{
    for (int i = 0; i < r->nsamples; i++) {
        struct row w;
        row_init(&w);
        row_int(&w, "run_id", run_id);
        row_int(&w, "idx", i);
        row_real(&w, "ms", r->samples_ms[i]);
        if (row_insert(s, &s->sample_insert, "sample", &w, "", "storing a sample") != 0)
            return -1;
    }
    return 0;
}

/* A metric whose value is not a finite number was not measured: no row. */
static int insert_metrics(gl_store *s, long long run_id, const struct gl_result *r)
{
    for (int i = 0; i < r->nmetrics; i++) {
        const struct gl_metric *m = &r->metrics[i];
        size_t namelen = strnlen(m->name, sizeof m->name);
        if (namelen == 0) {
            store_err(s, "storing metrics: metric %d has no name", i);
            return -1;
        }
        if (!isfinite(m->value))
            continue;
        struct row w;
        char what[GL_METRIC_NAME + 32];
        row_init(&w);
        row_int(&w, "run_id", run_id);
        row_textn(&w, "name", m->name, sizeof m->name);
        row_real(&w, "value", m->value);
        row_textn(&w, "unit", m->unit, sizeof m->unit);
        snprintf(what, sizeof what, "storing metric %.*s", (int)namelen, m->name);
        if (row_insert(s, &s->metric_insert, "metric", &w, "", what) != 0)
            return -1;
    }
    return 0;
}

long long gl_store_result(gl_store *s, const struct gl_run_key *k, const struct gl_run_info *ri,
                          const struct gl_result *r)
{
    if (!k || !k->family || !k->variant || !k->p || !ri || !r) {
        store_err(s, "storing a result: incomplete key or result");
        return -1;
    }
    if (!status_text(r->status)) {
        store_err(s, "storing a result: unknown status %d", r->status);
        return -1;
    }
    if (r->nsamples < 0 || r->nsamples > GL_MAX_SAMPLES || r->nmetrics < 0 ||
        r->nmetrics > GL_MAX_METRICS) {
        store_err(s, "storing a result: %d samples, %d metrics (out of range)", r->nsamples,
                  r->nmetrics);
        return -1;
    }
    for (int i = 0; i < r->nsamples; i++)
        if (!isfinite(r->samples_ms[i])) {
            store_err(s, "storing a result: sample %d is not a finite number of ms", i);
            return -1;
        }
    char ubuf[STORE_UPARAMS_MAX], claim[65];
    const char *uparams;
    if (store_key_uparams(s, k, ubuf, sizeof ubuf, &uparams) != 0)
        return -1;
    if (s->claims && store_claim_key(s, k, claim) != 0)
        return -1;
    struct gl_summary sum;
    gl_summarize(r->samples_ms, r->nsamples, &sum);

    if (store_exec(s, s->batch ? "SAVEPOINT result" : "BEGIN IMMEDIATE", "storing a result") != 0)
        return -1;
    long long id = -1;
    if (insert_run(s, k, uparams, ri, r, &sum) == 0) {
        id = sqlite3_last_insert_rowid(s->db);
        if (insert_params(s, id, k->p) != 0 || insert_scalars(s, id, ri) != 0 ||
            insert_samples(s, id, r) != 0 || insert_metrics(s, id, r) != 0 ||
            store_launches(s, id, r) != 0 || (s->claims && store_claim_drop(s, claim) != 0))
            id = -1;
    }
    if (s->batch) {
        if (id < 0) {
            sqlite3_exec(s->db, "ROLLBACK TO result", NULL, NULL, NULL);
            sqlite3_exec(s->db, "RELEASE result", NULL, NULL, NULL);
            return -1;
        }
        return store_exec(s, "RELEASE result", "storing a result") == 0 ? id : -1;
    }
    if (id < 0 || store_exec(s, "COMMIT", "committing a result") != 0) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return id;
}

int gl_store_batch_begin(gl_store *s)
{
    if (s->batch || s->readonly)
        return -1;
    if (store_exec(s, "BEGIN IMMEDIATE", "starting a batch's results") != 0)
        return -1;
    s->batch = 1;
    return 0;
}

int gl_store_batch_commit(gl_store *s)
{
    if (!s->batch)
        return -1;
    s->batch = 0;
    if (store_exec(s, "COMMIT", "committing a batch's results") != 0) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}
