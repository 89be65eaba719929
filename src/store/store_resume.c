/* store_resume.c - the resume lookup: is a run with this key (study, device
 * model, family, variant, every parameter of gl_param_table, a user kernel's
 * named parameters and hash) stored with this status, or stored at all since a
 * given run id (for run claims), and what its latest ok run cost (the
 * scheduler's estimate). An ok run whose counters another run of its batch took
 * is not done (gpulab.h GL_REASON_BATCH_LOST). The WHERE clause is
 * written from the same cells that are bound, and the run_key index
 * (store_sql.c) covers the same columns. Also the one place that decides a key's
 * uparams text, for the lookup and for store_run.c alike.
 * Must not write anything. */
#include "store_int.h"

#include <stdio.h>
#include <string.h>

int store_key_uparams(gl_store *s, const struct gl_run_key *k, char *buf, size_t len,
                      const char **text)
{
    *text = NULL;
    const struct gl_params *p = k->p;
    if (p->nuser < 0 || p->nuser > GL_MAX_UPARAMS) {
        store_err(s, "run key: %d named parameters (at most %d)", p->nuser, GL_MAX_UPARAMS);
        return -1;
    }
    /* "NAME=value " each, value at most 20 characters: refuse rather than cut. */
    size_t need = 1;
    for (int i = 0; i < p->nuser; i++) {
        size_t n = strnlen(p->user[i].name, sizeof p->user[i].name);
        if (n == 0 || n == sizeof p->user[i].name) {
            store_err(s, "run key: named parameter %d has no name or an unterminated one", i);
            return -1;
        }
        need += n + 22;
    }
    if (need > len) {
        store_err(s, "run key: the named parameters need %zu bytes, %zu available", need, len);
        return -1;
    }
    gl_params_user_format(p, buf, len);
    if (k->uparams && k->uparams[0] && strcmp(k->uparams, buf) != 0) {
        store_err(s, "run key: uparams \"%s\" is not the named parameters \"%s\"", k->uparams,
                  buf);
        return -1;
    }
    if (buf[0])
        *text = buf;
    return 0;
}

/* The SQL "SELECT what FROM run WHERE <key k>[ AND status][ AND after]
 * tail" (sqlite3_malloc'd) and its cells in *w, bound from parameter 2 on
 * (parameter 1 is the device id; `after`, when >= 0, is bound after the
 * cells). An ok run whose counters another run of its batch took (an older
 * gpulab stored those: gpulab.h GL_REASON_BATCH_LOST) does not match "ok":
 * the run is not done. NULL with s->err on an error. */
static char *key_query(gl_store *s, const struct gl_run_key *k, const char *status,
                       long long after, const char *what, const char *tail, struct row *w,
                       char *ubuf)
{
    if (!k || !k->family || !k->variant || !k->p) {
        store_err(s, "run lookup: incomplete key");
        return NULL;
    }
    const char *uparams;
    if (store_key_uparams(s, k, ubuf, STORE_UPARAMS_MAX, &uparams) != 0)
        return NULL;
    /* The device matches by model (db/views.sql's device_model); every other
     * part of the key with IS, so that NULL (unset) matches only NULL. */
    row_init(w);
    row_text(w, "family", k->family);
    row_text(w, "variant", k->variant);
    row_text(w, "study", k->study);
    row_params(w, k->p);
    row_text(w, "uparams", uparams);
    row_text(w, "code_hash", k->code_hash);
    if (status)
        row_text(w, "status", status);

    sqlite3_str *q = sqlite3_str_new(s->db);
    sqlite3_str_appendf(q, "SELECT %s FROM run WHERE device_id IN (SELECT device_id FROM "
                           "device_model WHERE model_id = (SELECT model_id FROM device_model "
                           "WHERE device_id = ?))", what);
    for (int i = 0; i < w->n; i++)
        sqlite3_str_appendf(q, " AND \"%w\" IS ?", w->c[i].col);
    if (status && strcmp(status, "ok") == 0)
        sqlite3_str_appendf(q, " AND coalesce(metrics_reason, '') <> %Q AND "
                               "substr(coalesce(metrics_reason, ''), -%d) <> %Q",
                            GL_REASON_BATCH_LOST, (int)strlen(GL_REASON_OTHER_RUN),
                            GL_REASON_OTHER_RUN);
    if (after >= 0) {
        sqlite3_str_appendall(q, " AND id > ? AND session_id NOT IN (0");
        for (int i = 0; i < s->nown; i++)
            sqlite3_str_appendf(q, ", %lld", s->own[i]);
        sqlite3_str_appendall(q, ")");
    }
    sqlite3_str_appendall(q, tail);
    char *sql = sqlite3_str_finish(q);
    if (!sql)
        store_err(s, "looking up a run: out of memory");
    return sql;
}

/* Prepare the key query into the cached *cache and bind it. 0, or -1. */
static int key_prepare(gl_store *s, sqlite3_stmt **cache, const struct gl_run_key *k,
                       const char *status, long long after, const char *what, const char *tail)
{
    char ubuf[STORE_UPARAMS_MAX];
    struct row w;
    char *sql = key_query(s, k, status, after, what, tail, &w, ubuf);
    if (!sql)
        return -1;
    int rc = store_prepare(s, cache, sql);
    sqlite3_free(sql);
    if (rc != 0)
        return -1;
    rc = sqlite3_bind_int64(*cache, 1, k->device_id);
    if (rc == SQLITE_OK && after >= 0)
        rc = sqlite3_bind_int64(*cache, w.n + 2, after);
    if (rc != SQLITE_OK) {
        store_db_err(s, "looking up a run");
        sqlite3_reset(*cache);
        sqlite3_clear_bindings(*cache);
        return -1;
    }
    if (row_bind(s, *cache, &w, 2) != 0) {
        sqlite3_reset(*cache);
        sqlite3_clear_bindings(*cache);
        return -1;
    }
    return 0;
}

/* A run of key k (with this status, when status is not NULL; stored after run
 * id `after` by a session this handle did not begin, when after >= 0) through
 * the cached statement *cache. 1, 0, -1. */
static int find_run(gl_store *s, sqlite3_stmt **cache, const struct gl_run_key *k,
                    const char *status, long long after)
{
    if (key_prepare(s, cache, k, status, after, "1", " LIMIT 1") != 0)
        return -1;
    int found = -1;
    int rc = sqlite3_step(*cache);
    if (rc == SQLITE_ROW)
        found = 1;
    else if (rc == SQLITE_DONE)
        found = 0;
    else
        store_db_err(s, "looking up a run");
    sqlite3_reset(*cache);
    sqlite3_clear_bindings(*cache);
    return found;
}

double gl_store_run_cost(gl_store *s, const struct gl_run_key *k)
{
    /* The kernel ran for verification, warm-up, samples and each profiler
     * pass; the copies are timed apart. */
    static const char what[] =
        "median_ms * (1 + coalesce(warmup, 0) + samples + coalesce(passes, 0)) + "
        "coalesce(h2d_ms, 0) + coalesce(d2h_ms, 0)";
    if (key_prepare(s, &s->run_cost, k, "ok", -1, what, " ORDER BY id DESC LIMIT 1") != 0)
        return -2;
    double ms = -1;
    int rc = sqlite3_step(s->run_cost);
    if (rc == SQLITE_ROW && sqlite3_column_type(s->run_cost, 0) != SQLITE_NULL)
        ms = sqlite3_column_double(s->run_cost, 0);
    else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        store_db_err(s, "looking up a run's time");
        ms = -2;
    }
    sqlite3_reset(s->run_cost);
    sqlite3_clear_bindings(s->run_cost);
    return ms;
}

int store_latest_run(gl_store *s, const struct gl_run_key *k, long long *id, char *status,
                     size_t len)
{
    if (key_prepare(s, &s->latest_run, k, NULL, -1, "id, status",
                    " ORDER BY status = 'ok' DESC, id DESC LIMIT 1") != 0)
        return -1;
    int found = -1, rc = sqlite3_step(s->latest_run);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(s->latest_run, 0);
        const unsigned char *t = sqlite3_column_text(s->latest_run, 1);
        snprintf(status, len, "%s", t ? (const char *)t : "");
        found = 1;
    } else if (rc == SQLITE_DONE) {
        found = 0;
    } else {
        store_db_err(s, "looking up a searched point");
    }
    sqlite3_reset(s->latest_run);
    sqlite3_clear_bindings(s->latest_run);
    return found;
}

int gl_store_has_status(gl_store *s, const struct gl_run_key *k, const char *status)
{
    if (!status) {
        store_err(s, "run lookup: no status");
        return -1;
    }
    /* "ok" has a clause of its own: a statement of its own, so that the two
     * lookups a sweep alternates do not re-prepare each other */
    return find_run(s, strcmp(status, "ok") == 0 ? &s->has_ok : &s->has_status, k, status, -1);
}

int store_ran_since(gl_store *s, const struct gl_run_key *k, long long after)
{
    return find_run(s, &s->ran_since, k, NULL, after);
}

long long gl_store_last_run(gl_store *s)
{
    long long v = 0;
    if (store_query_int(s, "SELECT coalesce(max(id), 0) FROM run", &v) != 0)
        return -1;
    return v;
}

int gl_store_has_ok(gl_store *s, const struct gl_run_key *k)
{
    return gl_store_has_status(s, k, "ok");
}
