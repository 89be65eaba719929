/* store_cmpfile.c - a saved comparison (`gpulab compare --save FILE`): struct
 * gl_cmp_result as a SQLite file of its own, so that `compare --load`, `make
 * report COMPARE=FILE` and any SQLite client read it back. Its tables (format 1):
 *   meta        key/value: application = 'gpulab-compare', format = 1
 *   comparison  one row: the sides and their files, runs per side, threshold
 *               and its source, confidence, resamples, seed, clock_verdicts,
 *               the geometric mean with its interval, the count per verdict,
 *               notes, tool, created_at
 *   point       one row per matched point, in the printed order (rank from 1):
 *               key, label, run ids, samples, medians, ratio and interval, clocks
 *               and the ratio of cycles, verdict, note, every counter _a and _b
 *   unmatched   the points only one side has (side 'A' or 'B', key)
 * Must not open a results database (the command never writes one) nor compute. */
#include "store.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"

#define CMPFILE_APP "gpulab-compare"
#define CMPFILE_FORMAT 1

static const char *const point_cols[] = {
    "key", "label", "run_a", "run_b", "samples_a", "samples_b", "median_a_ms", "median_b_ms",
    "ratio", "lo", "hi", "clock_a_mhz", "clock_b_mhz", "ratio_clk", "lo_clk", "hi_clk",
    "verdict", "note",
};
#define NPOINT_COLS (int)(sizeof point_cols / sizeof point_cols[0])

static void bind_real(sqlite3_stmt *st, int i, double v)
{
    if (isnan(v) || isinf(v))
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_double(st, i, v);
}

static double col_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static char *col_dup(sqlite3_stmt *st, int i)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
    return strdup(t ? t : "");
}

/* 1 when path is a saved comparison, 0 when it is something else, -1 when
 * it cannot be read. */
static int is_cmpfile(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'application'", -1, &st,
                           NULL) == SQLITE_OK) {
        rc = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) &&
             strcmp((const char *)sqlite3_column_text(st, 0), CMPFILE_APP) == 0;
    } else if (db) {
        rc = 0;   /* no meta table: not ours (or not SQLite at all) */
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

int gl_cmpfile_is(const char *path)
{
    if (access(path, F_OK) != 0)
        return -1;
    return is_cmpfile(path) == 1 ? 1 : 0;
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int write_all(sqlite3 *db, const struct gl_cmp_result *r, char *err, size_t errlen)
{
    sqlite3_str *q = sqlite3_str_new(db);
    sqlite3_str_appendf(q,
        "PRAGMA user_version = %d;"
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
        "INSERT INTO meta VALUES ('application', '%s'), ('format', '%d');"
        "CREATE TABLE comparison (a_spec TEXT, b_spec TEXT, a_db TEXT, b_db TEXT, a_runs INTEGER,"
        " b_runs INTEGER, threshold REAL, threshold_source TEXT, confidence REAL, resamples INTEGER,"
        " seed INTEGER, clock_verdicts INTEGER, geomean REAL, geomean_lo REAL, geomean_hi REAL,"
        " faster INTEGER, slower INTEGER, same INTEGER, unsure INTEGER, notes TEXT, tool TEXT,"
        " created_at TEXT);"
        "CREATE TABLE unmatched (side TEXT, key TEXT);"
        "CREATE TABLE point (rank INTEGER PRIMARY KEY",
        CMPFILE_FORMAT, CMPFILE_APP, CMPFILE_FORMAT);
    for (int i = 0; i < NPOINT_COLS; i++)
        sqlite3_str_appendf(q, ", %s", point_cols[i]);
    for (int i = 0; i < GL_CMP_NCOUNTERS; i++)
        sqlite3_str_appendf(q, ", %s_a REAL, %s_b REAL", gl_cmp_counters[i].name,
                            gl_cmp_counters[i].name);
    sqlite3_str_appendall(q, ");");
    char *ddl = sqlite3_str_finish(q);
    if (!ddl) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = exec(db, ddl, err, errlen);
    sqlite3_free(ddl);
    if (rc != 0)
        return -1;

    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "INSERT INTO comparison VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
                               "?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
        goto dberr;
    sqlite3_bind_text(st, 1, r->a_spec, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, r->b_spec, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->a_db, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, r->b_db, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 5, r->a_runs);
    sqlite3_bind_int(st, 6, r->b_runs);
    bind_real(st, 7, r->threshold);
    sqlite3_bind_text(st, 8, r->threshold_src, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 9, GL_CMP_CONFIDENCE);
    sqlite3_bind_int(st, 10, r->resamples);
    sqlite3_bind_int64(st, 11, (sqlite3_int64)r->seed);
    sqlite3_bind_int(st, 12, r->by_clock);
    bind_real(st, 13, r->geo.ratio);
    bind_real(st, 14, r->geo.lo);
    bind_real(st, 15, r->geo.hi);
    sqlite3_bind_int(st, 16, r->counts[GL_FASTER]);
    sqlite3_bind_int(st, 17, r->counts[GL_SLOWER]);
    sqlite3_bind_int(st, 18, r->counts[GL_SAME]);
    sqlite3_bind_int(st, 19, r->counts[GL_UNSURE]);
    sqlite3_bind_text(st, 20, r->notes ? r->notes : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 21, r->tool ? r->tool : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 22, r->created_at ? r->created_at : "", -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        goto dberr;
    sqlite3_finalize(st);
    st = NULL;

    if (sqlite3_prepare_v2(db, "INSERT INTO unmatched VALUES (?, ?)", -1, &st, NULL) != SQLITE_OK)
        goto dberr;
    for (int side = 0; side < 2; side++) {
        int n = side ? r->nonly_b : r->nonly_a;
        char **keys = side ? r->only_b : r->only_a;
        for (int i = 0; i < n; i++) {
            sqlite3_reset(st);
            sqlite3_bind_text(st, 1, side ? "B" : "A", -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 2, keys[i], -1, SQLITE_STATIC);
            if (sqlite3_step(st) != SQLITE_DONE)
                goto dberr;
        }
    }
    sqlite3_finalize(st);
    st = NULL;

    q = sqlite3_str_new(db);
    sqlite3_str_appendall(q, "INSERT INTO point VALUES (?");
    for (int i = 0; i < NPOINT_COLS + 2 * GL_CMP_NCOUNTERS; i++)
        sqlite3_str_appendall(q, ", ?");
    sqlite3_str_appendall(q, ")");
    char *ins = sqlite3_str_finish(q);
    if (!ins) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    rc = sqlite3_prepare_v2(db, ins, -1, &st, NULL);
    sqlite3_free(ins);
    if (rc != SQLITE_OK)
        goto dberr;
    for (int i = 0; i < r->npoints; i++) {
        const struct gl_cmp_point *p = &r->points[i];
        int c = 1;
        sqlite3_reset(st);
        sqlite3_bind_int(st, c++, i + 1);
        sqlite3_bind_text(st, c++, p->key, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, c++, p->label, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, c++, p->run_a);
        sqlite3_bind_int64(st, c++, p->run_b);
        sqlite3_bind_int(st, c++, p->na);
        sqlite3_bind_int(st, c++, p->nb);
        bind_real(st, c++, p->med_a);
        bind_real(st, c++, p->med_b);
        bind_real(st, c++, p->ci.ratio);
        bind_real(st, c++, p->ci.lo);
        bind_real(st, c++, p->ci.hi);
        bind_real(st, c++, p->clock_a);
        bind_real(st, c++, p->clock_b);
        bind_real(st, c++, p->clk.ratio);
        bind_real(st, c++, p->clk.lo);
        bind_real(st, c++, p->clk.hi);
        sqlite3_bind_text(st, c++, gl_verdict_name(p->verdict), -1, SQLITE_STATIC);
        sqlite3_bind_text(st, c++, p->note, -1, SQLITE_STATIC);
        for (int k = 0; k < GL_CMP_NCOUNTERS; k++) {
            bind_real(st, c++, p->ca[k]);
            bind_real(st, c++, p->cb[k]);
        }
        if (sqlite3_step(st) != SQLITE_DONE)
            goto dberr;
    }
    sqlite3_finalize(st);
    return 0;
dberr:
    snprintf(err, errlen, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return -1;
}

int gl_cmpfile_save(const char *path, const struct gl_cmp_result *r, char *err, size_t errlen)
{
    if (access(path, F_OK) == 0 && is_cmpfile(path) != 1) {
        snprintf(err, errlen, "%s exists and is not a saved comparison: not replaced", path);
        return -1;
    }
    size_t n = strlen(path) + 8;
    char *tmp = malloc(n);
    if (!tmp) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(tmp, n, "%s.tmp", path);
    unlink(tmp);
    sqlite3 *db = NULL;
    char why[512] = "";
    int rc = -1;
    if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        snprintf(why, sizeof why, "%s", db ? sqlite3_errmsg(db) : "cannot open");
    else if (exec(db, "BEGIN", why, sizeof why) == 0 && write_all(db, r, why, sizeof why) == 0 &&
             exec(db, "COMMIT", why, sizeof why) == 0)
        rc = 0;
    if (sqlite3_close(db) != SQLITE_OK && rc == 0) {
        snprintf(why, sizeof why, "closing the file failed");
        rc = -1;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        snprintf(why, sizeof why, "cannot rename %s to %s", tmp, path);
        rc = -1;
    }
    if (rc != 0) {
        unlink(tmp);
        snprintf(err, errlen, "cannot save the comparison to %s: %s", path, why);
    }
    free(tmp);
    return rc;
}

static char **add_key(char **list, int *n, const char *key)
{
    char **p = realloc(list, (size_t)(*n + 1) * sizeof *p);
    if (!p)
        return NULL;
    p[*n] = strdup(key ? key : "");
    if (!p[*n])
        return NULL;
    (*n)++;
    return p;
}

static int read_all(sqlite3 *db, struct gl_cmp_result *r)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT a_spec, b_spec, a_db, b_db, a_runs, b_runs, threshold,"
                               " threshold_source, resamples, seed, clock_verdicts, geomean,"
                               " geomean_lo, geomean_hi, faster, slower, same, unsure, notes, tool,"
                               " created_at FROM comparison", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return -1;
    }
    r->a_spec = col_dup(st, 0);
    r->b_spec = col_dup(st, 1);
    r->a_db = col_dup(st, 2);
    r->b_db = col_dup(st, 3);
    r->a_runs = sqlite3_column_int(st, 4);
    r->b_runs = sqlite3_column_int(st, 5);
    r->threshold = col_real(st, 6);
    const char *src = (const char *)sqlite3_column_text(st, 7);
    snprintf(r->threshold_src, sizeof r->threshold_src, "%s", src ? src : "");
    r->resamples = sqlite3_column_int(st, 8);
    r->seed = (unsigned long long)sqlite3_column_int64(st, 9);
    r->by_clock = sqlite3_column_int(st, 10);
    r->geo.ratio = col_real(st, 11);
    r->geo.lo = col_real(st, 12);
    r->geo.hi = col_real(st, 13);
    r->counts[GL_FASTER] = sqlite3_column_int(st, 14);
    r->counts[GL_SLOWER] = sqlite3_column_int(st, 15);
    r->counts[GL_SAME] = sqlite3_column_int(st, 16);
    r->counts[GL_UNSURE] = sqlite3_column_int(st, 17);
    r->notes = col_dup(st, 18);
    r->tool = col_dup(st, 19);
    r->created_at = col_dup(st, 20);
    sqlite3_finalize(st);
    if (!r->a_spec || !r->b_spec || !r->a_db || !r->b_db || !r->notes || !r->tool ||
        !r->created_at)
        return -1;

    if (sqlite3_prepare_v2(db, "SELECT side, key FROM unmatched ORDER BY rowid", -1, &st, NULL) !=
        SQLITE_OK)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *side = (const char *)sqlite3_column_text(st, 0);
        const char *key = (const char *)sqlite3_column_text(st, 1);
        char **l = side && side[0] == 'B' ? add_key(r->only_b, &r->nonly_b, key)
                                          : add_key(r->only_a, &r->nonly_a, key);
        if (!l) {
            sqlite3_finalize(st);
            return -1;
        }
        if (side && side[0] == 'B')
            r->only_b = l;
        else
            r->only_a = l;
    }
    sqlite3_finalize(st);

    sqlite3_str *q = sqlite3_str_new(db);
    sqlite3_str_appendall(q, "SELECT rank");
    for (int i = 0; i < NPOINT_COLS; i++)
        sqlite3_str_appendf(q, ", %s", point_cols[i]);
    for (int i = 0; i < GL_CMP_NCOUNTERS; i++)
        sqlite3_str_appendf(q, ", %s_a, %s_b", gl_cmp_counters[i].name, gl_cmp_counters[i].name);
    sqlite3_str_appendall(q, " FROM point ORDER BY rank");
    char *sql = sqlite3_str_finish(q);
    if (!sql)
        return -1;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    sqlite3_free(sql);
    if (rc != SQLITE_OK)
        return -1;
    int cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (r->npoints == cap) {
            cap = cap ? 2 * cap : 64;
            struct gl_cmp_point *p = realloc(r->points, (size_t)cap * sizeof *p);
            if (!p)
                break;
            r->points = p;
        }
        struct gl_cmp_point *p = &r->points[r->npoints++];
        memset(p, 0, sizeof *p);
        int c = 1;
        p->key = col_dup(st, c++);
        p->label = col_dup(st, c++);
        p->run_a = sqlite3_column_int64(st, c++);
        p->run_b = sqlite3_column_int64(st, c++);
        p->na = sqlite3_column_int(st, c++);
        p->nb = sqlite3_column_int(st, c++);
        p->med_a = col_real(st, c++);
        p->med_b = col_real(st, c++);
        p->ci.ratio = col_real(st, c++);
        p->ci.lo = col_real(st, c++);
        p->ci.hi = col_real(st, c++);
        p->clock_a = col_real(st, c++);
        p->clock_b = col_real(st, c++);
        p->clk.ratio = col_real(st, c++);
        p->clk.lo = col_real(st, c++);
        p->clk.hi = col_real(st, c++);
        const char *v = (const char *)sqlite3_column_text(st, c++);
        p->verdict = GL_UNSURE;
        for (int k = 0; k < 4 && v; k++)
            if (strcmp(v, gl_verdict_name((enum gl_verdict)k)) == 0)
                p->verdict = (enum gl_verdict)k;
        const char *note = (const char *)sqlite3_column_text(st, c++);
        snprintf(p->note, sizeof p->note, "%s", note ? note : "");
        for (int k = 0; k < GL_CMP_NCOUNTERS; k++) {
            p->ca[k] = col_real(st, c++);
            p->cb[k] = col_real(st, c++);
        }
        if (!p->key || !p->label) {
            rc = SQLITE_NOMEM;
            break;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int gl_cmpfile_load(const char *path, struct gl_cmp_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (access(path, F_OK) != 0) {
        snprintf(err, errlen, "no saved comparison %s", path);
        return -1;
    }
    if (is_cmpfile(path) != 1) {
        snprintf(err, errlen, "%s is not a saved comparison (gpulab compare --save)", path);
        return -1;
    }
    sqlite3 *db = NULL;
    int rc = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
        rc = read_all(db, r);
    if (rc != 0) {
        snprintf(err, errlen, "%s: cannot read the saved comparison (%s)", path,
                 db ? sqlite3_errmsg(db) : "cannot open");
        gl_cmp_result_free(r);
    }
    sqlite3_close(db);
    return rc;
}
