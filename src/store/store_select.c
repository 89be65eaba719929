/* store_select.c - the runs one side of `gpulab compare` selects: the ok runs of
 * the `results` view that a WHERE clause (written by the command, with bound
 * values and a user's `where` expression) keeps, with what identifies their
 * point, the SM clock they ran at, the counters asked for (columns the view may
 * lack: an older file, or a column a later gpulab adds) and every timed sample.
 * Only reads: the store is gl_store_open_readonly's, and a clause that is more
 * than one expression is refused before it runs. Must not decide what a point
 * is or compute statistics (src/cli/cmd_compare.c, src/core/compare.c do). */
#include "store_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const fixed_dims[GL_SEL_FIXED] = { "study", "family", "variant", "device" };

const char *gl_sel_dim_name(int i)
{
    if (i < 0 || i >= GL_SEL_NDIMS)
        return NULL;
    return i < GL_SEL_FIXED ? fixed_dims[i] : gl_param_table[i - GL_SEL_FIXED].column;
}

int gl_store_has_column(gl_store *s, const char *view, const char *col)
{
    sqlite3_stmt *st = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st,
                           NULL) != SQLITE_OK) {
        store_db_err(s, "reading the columns of a view");
        return -1;
    }
    sqlite3_bind_text(st, 1, view, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        found = 1;
    else if (rc != SQLITE_DONE)
        found = -1;
    sqlite3_finalize(st);
    if (found < 0)
        store_db_err(s, "reading the columns of a view");
    return found;
}

int gl_store_named_param_names(gl_store *s, void (*fn)(void *arg, const char *name), void *arg)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT DISTINCT name FROM run_param ORDER BY name", -1, &st,
                           NULL) != SQLITE_OK) {
        store_db_err(s, "reading the named parameters");
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        fn(arg, (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, "reading the named parameters");
        return -1;
    }
    return 0;
}

static char *dup_col(sqlite3_stmt *st, int c)
{
    if (sqlite3_column_type(st, c) == SQLITE_NULL)
        return NULL;
    const char *t = (const char *)sqlite3_column_text(st, c);
    return strdup(t ? t : "");
}

static double real_col(sqlite3_stmt *st, int c)
{
    return sqlite3_column_type(st, c) == SQLITE_NULL ? NAN : sqlite3_column_double(st, c);
}

void gl_selection_free(struct gl_selection *sel)
{
    for (int i = 0; i < sel->nruns; i++) {
        struct gl_sel_run *r = &sel->runs[i];
        for (int d = 0; d < GL_SEL_NDIMS; d++)
            free(r->dim[d]);
        free(r->uparams);
        free(r->code_hash);
        free(r->counter);
        free(r->samples);
    }
    free(sel->runs);
    free(sel->present);
    memset(sel, 0, sizeof *sel);
}

/* The samples of every run, in the order taken. */
static int read_samples(gl_store *s, struct gl_selection *sel)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT ms FROM sample WHERE run_id = ? ORDER BY idx", -1, &st,
                           NULL) != SQLITE_OK) {
        store_db_err(s, "reading samples");
        return -1;
    }
    for (int i = 0; i < sel->nruns; i++) {
        struct gl_sel_run *r = &sel->runs[i];
        int cap = 0, rc;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, r->run_id);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            if (r->nsamples == cap) {
                cap = cap ? 2 * cap : 64;
                double *p = realloc(r->samples, (size_t)cap * sizeof *p);
                if (!p) {
                    sqlite3_finalize(st);
                    store_err(s, "out of memory reading samples");
                    return -1;
                }
                r->samples = p;
            }
            r->samples[r->nsamples++] = sqlite3_column_double(st, 0);
        }
        if (rc != SQLITE_DONE) {
            sqlite3_finalize(st);
            store_db_err(s, "reading samples");
            return -1;
        }
    }
    sqlite3_finalize(st);
    return 0;
}

int gl_store_select(gl_store *s, const char *where, const struct gl_sel_bind *b, int nb,
                    const char *const *counters, int ncounters, struct gl_selection *out,
                    char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->ncounters = ncounters;
    out->present = calloc(ncounters > 0 ? (size_t)ncounters : 1, sizeof *out->present);
    if (!out->present) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sqlite3_str *q = sqlite3_str_new(s->db);
    sqlite3_str_appendall(q, "SELECT r.run_id, r.session_id, r.study, r.family, r.variant, "
                             "r.device_name");
    for (int i = 0; i < GL_NPARAMS; i++)
        sqlite3_str_appendf(q, ", r.%s", gl_param_table[i].column);
    /* the SM clock: the run's profiled replay, else the clock its session locked */
    sqlite3_str_appendall(q, ", r.uparams, r.code_hash, coalesce(r.sm_clock_mhz, "
                             "(SELECT CASE WHEN se.clocks_locked = 1 THEN se.sm_app_clock_mhz END "
                             "FROM session se WHERE se.id = r.session_id))");
    for (int i = 0; i < ncounters; i++) {
        int has = gl_store_has_column(s, "results", counters[i]);
        if (has < 0) {
            sqlite3_free(sqlite3_str_finish(q));
            snprintf(err, errlen, "%s", s->err);
            return -1;
        }
        out->present[i] = has;
        if (has)
            sqlite3_str_appendf(q, ", r.\"%w\"", counters[i]);
        else
            sqlite3_str_appendall(q, ", NULL");
    }
    /* runs marked contaminated (a column a later gpulab adds) are left out, and counted */
    int marks = gl_store_has_column(s, "results", "contaminated");
    if (marks < 0) {
        sqlite3_free(sqlite3_str_finish(q));
        snprintf(err, errlen, "%s", s->err);
        return -1;
    }
    sqlite3_str_appendf(q, ", %s FROM results r WHERE r.status = 'ok' AND (%s) ORDER BY r.run_id",
                        marks ? "r.contaminated" : "NULL", where && *where ? where : "1");
    char *sql = sqlite3_str_finish(q);
    if (!sql) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, &tail);
    if (rc == SQLITE_OK && tail && strspn(tail, " \t\r\n;") != strlen(tail)) {
        sqlite3_finalize(st);
        st = NULL;
        snprintf(err, errlen, "more than one statement (a `where` is one expression)");
        sqlite3_free(sql);
        return -1;
    }
    if (rc != SQLITE_OK || !st || !sqlite3_stmt_readonly(st)) {
        snprintf(err, errlen, "%s", rc != SQLITE_OK ? sqlite3_errmsg(s->db) : "it would write");
        sqlite3_finalize(st);
        sqlite3_free(sql);
        return -1;
    }
    sqlite3_free(sql);
    for (int i = 0; i < nb; i++) {
        if (b[i].is_int)
            sqlite3_bind_int64(st, i + 1, b[i].i);
        else
            sqlite3_bind_text(st, i + 1, b[i].t, -1, SQLITE_TRANSIENT);
    }
    int cap = 0;
    const int c0 = 2, cu = 2 + GL_SEL_NDIMS, cc = cu + 3, cm = cc + ncounters;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, cm) != SQLITE_NULL) {
            out->contaminated++;
            continue;
        }
        if (out->nruns == cap) {
            cap = cap ? 2 * cap : 64;
            struct gl_sel_run *p = realloc(out->runs, (size_t)cap * sizeof *p);
            if (!p)
                goto oom;
            out->runs = p;
        }
        struct gl_sel_run *r = &out->runs[out->nruns++];
        memset(r, 0, sizeof *r);
        r->run_id = sqlite3_column_int64(st, 0);
        r->session_id = sqlite3_column_int64(st, 1);
        for (int d = 0; d < GL_SEL_NDIMS; d++)
            r->dim[d] = dup_col(st, c0 + d);
        r->uparams = dup_col(st, cu);
        r->code_hash = dup_col(st, cu + 1);
        r->clock_mhz = real_col(st, cu + 2);
        r->counter = malloc((ncounters > 0 ? (size_t)ncounters : 1) * sizeof *r->counter);
        if (!r->counter)
            goto oom;
        for (int i = 0; i < ncounters; i++)
            r->counter[i] = real_col(st, cc + i);
    }
    if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(s->db));
        sqlite3_finalize(st);
        gl_selection_free(out);
        return -1;
    }
    sqlite3_finalize(st);
    if (read_samples(s, out) != 0) {
        snprintf(err, errlen, "%s", s->err);
        gl_selection_free(out);
        return -1;
    }
    return 0;
oom:
    sqlite3_finalize(st);
    gl_selection_free(out);
    snprintf(err, errlen, "out of memory");
    return -1;
}
