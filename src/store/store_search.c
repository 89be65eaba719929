/* store_search.c - what a search (src/sweep/search.c) reads of the database:
 * a point's latest run with its objective (a column of the results view) and
 * the seconds it took the search, whether a column can be an objective, and
 * how many runs a searched section has stored (for `plan`).
 * The seconds of a run: from the previous run (not skipped) of its study and
 * section in its session, or from its own start (run.started_at) when it is
 * the first, to its created_at. A batch's results arrive together, so its
 * first run carries the batch's time and the others about none: summed, they
 * are the search's wall time inside its sessions (plots/search_progress.sql
 * computes the same).
 * Must not write anything. */
#include "store_int.h"
#include "nearest.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static double column_double(sqlite3_stmt *st, int i)
{
    int t = sqlite3_column_type(st, i);
    return t == SQLITE_INTEGER || t == SQLITE_FLOAT ? sqlite3_column_double(st, i) : NAN;
}

int gl_store_search_point(gl_store *s, const struct gl_run_key *k, const char *column,
                          struct gl_search_point *out)
{
    memset(out, 0, sizeof *out);
    out->value = NAN;
    int f = store_latest_run(s, k, &out->run_id, out->status, sizeof out->status);
    if (f <= 0)
        return f;
    if (strcmp(out->status, "ok") == 0) {
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT \"%s\" FROM results WHERE run_id = ?", column);
        if (store_prepare(s, &s->search_value, sql) != 0)
            return -1;
        sqlite3_bind_int64(s->search_value, 1, out->run_id);
        int rc = sqlite3_step(s->search_value);
        if (rc == SQLITE_ROW)
            out->value = column_double(s->search_value, 0);
        else if (rc != SQLITE_DONE)
            store_db_err(s, "reading a searched point's objective");
        sqlite3_reset(s->search_value);
        sqlite3_clear_bindings(s->search_value);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            return -1;
    }
    static const char secs[] =
        "SELECT 86400.0 * (julianday(r.created_at) - julianday(coalesce("
        " (SELECT o.created_at FROM run o WHERE o.session_id = r.session_id AND o.id < r.id"
        "  AND o.study IS r.study AND o.section IS r.section AND o.status <> 'skipped'"
        "  ORDER BY o.id DESC LIMIT 1), r.started_at, r.created_at)))"
        " FROM run r WHERE r.id = ?";
    if (store_prepare(s, &s->search_secs, secs) != 0)
        return -1;
    sqlite3_bind_int64(s->search_secs, 1, out->run_id);
    int rc = sqlite3_step(s->search_secs);
    if (rc == SQLITE_ROW) {
        out->seconds = column_double(s->search_secs, 0);
        if (!(out->seconds >= 0))
            out->seconds = 0;
    } else if (rc != SQLITE_DONE) {
        store_db_err(s, "reading a searched point's time");
    }
    sqlite3_reset(s->search_secs);
    sqlite3_clear_bindings(s->search_secs);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 1 : -1;
}

int gl_store_results_column(gl_store *s, const char *column, char *near, size_t nearlen)
{
    sqlite3_stmt *st = NULL;
    struct gl_nearest n;
    static char names[256][64];   /* the nearest's text outlives the loop */
    int found = 0, text = 0, count = 0;
    gl_nearest_init(&n, column);
    if (sqlite3_prepare_v2(s->db, "SELECT name, type FROM pragma_table_info('results')", -1, &st,
                           NULL) != SQLITE_OK) {
        store_db_err(s, "reading the results view's columns");
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *type = (const char *)sqlite3_column_text(st, 1);
        if (!name)
            continue;
        if (strcmp(name, column) == 0) {
            found = 1;
            text = type && strcasecmp(type, "TEXT") == 0;
        }
        if (count < 256) {
            snprintf(names[count], sizeof names[count], "%s", name);
            gl_nearest_offer(&n, names[count++]);
        }
    }
    if (rc != SQLITE_DONE) {
        store_db_err(s, "reading the results view's columns");
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    if (near)
        snprintf(near, nearlen, "%s", n.best ? n.best : "");
    return found ? (text ? 2 : 1) : 0;
}

long long gl_store_section_runs(gl_store *s, const char *study, const char *section)
{
    sqlite3_stmt *st = NULL;
    long long n = -1;
    if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM run WHERE study IS ? AND section IS ? "
                                  "AND status <> 'skipped'", -1, &st, NULL) != SQLITE_OK) {
        store_db_err(s, "counting a section's runs");
        return -1;
    }
    sqlite3_bind_text(st, 1, study, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, section, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    else
        store_db_err(s, "counting a section's runs");
    sqlite3_finalize(st);
    return n;
}
