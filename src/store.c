/* store.c - see store.h: the SQLite results database. Opens (WAL, foreign keys,
 * busy timeout), creates the schema of db/schema.sql or migrates an older file
 * with db/migrations/ in one transaction, recreates the views of db/views.sql,
 * and writes devices, sessions and runs (a run, its samples and its metrics in
 * one transaction). A value that was not measured or does not apply is bound as
 * NULL, never as 0. Query output formats live in tabfmt.c.
 * Must not run kernels, parse configs or print anything itself (errors go back
 * to the caller through err / gl_store_errmsg). */
#include "store.h"

#include "db_sql.h"
#include "stats.h"
#include "tabfmt.h"

#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct gl_store {
    sqlite3 *db;
    char err[1024];
    sqlite3_stmt *has_status;   /* prepared on first use, kept until close */
    sqlite3_stmt *run_insert;
    sqlite3_stmt *sample_insert;
    sqlite3_stmt *metric_insert;
    sqlite3_stmt *device_insert;
    sqlite3_stmt *device_select;
};

static void set_err(gl_store *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
}

/* "what: sqlite's message" */
static void set_db_err(gl_store *s, const char *what)
{
    set_err(s, "%s: %s", what, sqlite3_errmsg(s->db));
}

const char *gl_store_errmsg(gl_store *s)
{
    return s ? s->err : "no store";
}

static int exec(gl_store *s, const char *sql, const char *what)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        set_err(s, "%s: %s", what, msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* One integer from a single-row query (a PRAGMA, a count). */
static int query_int(gl_store *s, const char *sql, long long *v)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        set_db_err(s, sql);
        sqlite3_finalize(st);
        return -1;
    }
    *v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return 0;
}

static int prepare(gl_store *s, sqlite3_stmt **st, const char *sql)
{
    if (*st)
        return 0;
    if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK) {
        set_db_err(s, "preparing a statement");
        *st = NULL;
        return -1;
    }
    return 0;
}

/* ---- opening: create, migrate, views ---------------------------------------- */

/* A file at user_version 0 is new only if it holds nothing: otherwise it is some
 * other program's database, and it is left alone. */
static int foreign_check(gl_store *s, const char *path)
{
    long long objects;
    if (query_int(s, "SELECT count(*) FROM sqlite_master", &objects) != 0)
        return -1;
    if (objects > 0) {
        set_err(s, "%s: not a gpulab database (user_version 0, but it holds %lld objects); "
                   "nothing was changed", path, objects);
        return -1;
    }
    return 0;
}

/* Inside the open's write transaction: bring the file to gl_schema_version and
 * (re)create the views. The version is read again here, under the write lock,
 * so that two processes opening one new file do not both create the schema.
 * Migrations run with foreign keys on (the pragma cannot change inside a
 * transaction): one that rebuilds a table must use PRAGMA defer_foreign_keys. */
static int setup_schema(gl_store *s, const char *path)
{
    long long v;
    if (query_int(s, "PRAGMA user_version", &v) != 0)
        return -1;
    if (v == 0) {
        if (foreign_check(s, path) != 0)
            return -1;
        if (exec(s, gl_sql_schema, "creating the schema (db/schema.sql)") != 0)
            return -1;
    } else if (v > gl_schema_version) {
        set_err(s, "%s: database schema version %lld is newer than this gpulab knows (%d): "
                   "use a newer gpulab; nothing was changed", path, v, gl_schema_version);
        return -1;
    } else {
        for (long long i = v; i < gl_schema_version; i++) {
            char what[128];
            snprintf(what, sizeof what, "migrating version %lld to %lld (db/migrations/%03lld.sql)",
                     i, i + 1, i);
            if (exec(s, gl_sql_migrations[i - 1], what) != 0)
                return -1;
        }
    }
    if (exec(s, gl_sql_views, "creating the views (db/views.sql)") != 0)
        return -1;
    if (v != gl_schema_version) {
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d", gl_schema_version);
        if (exec(s, sql, "setting the schema version") != 0)
            return -1;
    }
    return 0;
}

/* Open path read-only through a URI with immutable=1 (SQLite then needs neither
 * a lock nor the -shm file). '%', '?' and '#' are percent-encoded. */
static int open_immutable(gl_store *s, const char *path)
{
    size_t len = strlen(path);
    char *uri = malloc(len * 3 + 32);
    if (!uri) {
        set_err(s, "%s: out of memory", path);
        return -1;
    }
    char *o = uri + sprintf(uri, "file:");
    for (const char *c = path; *c; c++) {
        if (*c == '%' || *c == '?' || *c == '#')
            o += sprintf(o, "%%%02x", (unsigned char)*c);
        else
            *o++ = *c;
    }
    strcpy(o, "?immutable=1");
    int rc = sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (rc != SQLITE_OK) {
        set_err(s, "%s: %s", path, s->db ? sqlite3_errmsg(s->db) : "cannot open");
        return -1;
    }
    return 0;
}

int gl_store_open(const char *path, gl_store **out, char *err, size_t errlen)
{
    *out = NULL;
    gl_store *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, s->db ? sqlite3_errmsg(s->db) : "cannot open");
        gl_store_close(s);
        return -1;
    }
    sqlite3_busy_timeout(s->db, 5000);

    /* Refuse a newer file before anything writes to it (WAL mode is a write). */
    long long v;
    if (query_int(s, "PRAGMA user_version", &v) != 0) {
        int code = sqlite3_errcode(s->db) & 0xff;
        if (code != SQLITE_READONLY && code != SQLITE_CANTOPEN)
            goto fail;
        /* A WAL-mode file in a folder we cannot write (no -shm can be made): read
         * it as immutable, which is what it is to us. */
        sqlite3_close(s->db);
        s->db = NULL;
        if (open_immutable(s, path) != 0 || query_int(s, "PRAGMA user_version", &v) != 0)
            goto fail;
    }
    if (v > gl_schema_version) {
        set_err(s, "%s: database schema version %lld is newer than this gpulab knows (%d): "
                   "use a newer gpulab; nothing was changed", path, v, gl_schema_version);
        goto fail;
    }
    if (v == 0 && foreign_check(s, path) != 0)
        goto fail;
    int readonly = sqlite3_db_readonly(s->db, "main") == 1;
    if (!readonly && exec(s, "PRAGMA journal_mode = WAL", "setting WAL mode") != 0)
        goto fail;
    long long fk = 0;
    if (exec(s, "PRAGMA foreign_keys = ON", "enabling foreign keys") != 0 ||
        query_int(s, "PRAGMA foreign_keys", &fk) != 0)
        goto fail;
    if (fk != 1) {
        set_err(s, "%s: this SQLite does not enforce foreign keys", path);
        goto fail;
    }
    if (readonly) {
        /* A read-only file can be queried as it is, if it needs no change. */
        if (v != gl_schema_version) {
            set_err(s, "%s: read-only, and its schema version %lld needs %s to %d", path, v,
                    v == 0 ? "creating" : "migrating", gl_schema_version);
            goto fail;
        }
    } else {
        if (exec(s, "BEGIN IMMEDIATE", "starting the schema transaction") != 0)
            goto fail;
        if (setup_schema(s, path) != 0) {
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
            goto fail;
        }
        if (exec(s, "COMMIT", "committing the schema") != 0) {
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
            goto fail;
        }
    }
    *out = s;
    return 0;
fail:
    snprintf(err, errlen, "%s", s->err);
    gl_store_close(s);
    return -1;
}

void gl_store_close(gl_store *s)
{
    if (!s)
        return;
    sqlite3_finalize(s->has_status);
    sqlite3_finalize(s->run_insert);
    sqlite3_finalize(s->sample_insert);
    sqlite3_finalize(s->metric_insert);
    sqlite3_finalize(s->device_insert);
    sqlite3_finalize(s->device_select);
    sqlite3_close(s->db);
    free(s);
}

/* ---- binding: unset / not measured becomes NULL ----------------------------- */

struct binder {
    sqlite3_stmt *st;
    int i;    /* next parameter index */
    int rc;   /* first failure */
};

static void b_check(struct binder *b, int rc)
{
    if (rc != SQLITE_OK && b->rc == SQLITE_OK)
        b->rc = rc;
    b->i++;
}

static void b_null(struct binder *b)
{
    b_check(b, sqlite3_bind_null(b->st, b->i));
}

static void b_int(struct binder *b, long long v)
{
    b_check(b, sqlite3_bind_int64(b->st, b->i, v));
}

/* The integer, or NULL when it is 0 (a field of struct gl_device or of the launch
 * shape where 0 means "does not apply / unknown"). */
static void b_int_nz(struct binder *b, long long v)
{
    if (v == 0)
        b_null(b);
    else
        b_int(b, v);
}

static void b_real(struct binder *b, double v)
{
    if (isfinite(v))
        b_check(b, sqlite3_bind_double(b->st, b->i, v));
    else
        b_null(b);
}

/* A measured quantity where a negative value means "not measured". */
static void b_real_nonneg(struct binder *b, double v)
{
    if (isfinite(v) && v >= 0)
        b_real(b, v);
    else
        b_null(b);
}

static void b_real_nz(struct binder *b, double v)
{
    if (v == 0)
        b_null(b);
    else
        b_real(b, v);
}

/* Text from a fixed-size field (bounded even if the worker sent no NUL); "" is NULL. */
static void b_textn(struct binder *b, const char *s, size_t cap)
{
    size_t n = s ? strnlen(s, cap) : 0;
    if (n == 0)
        b_null(b);
    else
        b_check(b, sqlite3_bind_text(b->st, b->i, s, (int)n, SQLITE_TRANSIENT));
}

static void b_text(struct binder *b, const char *s)
{
    b_textn(b, s, s ? strlen(s) : 0);
}

static void b_params(struct binder *b, const struct gl_params *p)
{
    for (int i = 0; i < GL_NPARAMS; i++) {
        enum gl_param_id id = (enum gl_param_id)i;
        if (!gl_params_is_set(p, id))
            b_null(b);
        else if (gl_param_table[i].is_text)
            b_textn(b, gl_params_get_text(p, id), GL_WORD);
        else
            b_int(b, gl_params_get(p, id));
    }
}

/* Append ", name" (no comma before the first) for each name; counts them in *n. */
static size_t add_names(char *buf, size_t len, size_t used, int *n, const char *const *names,
                        int count)
{
    for (int i = 0; i < count && used < len; i++, (*n)++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", *n ? ", " : "", names[i]);
    return used;
}

static int count_names(const char *const *names)
{
    int n = 0;
    while (names && names[n])
        n++;
    return n;
}

/* "INSERT INTO table (c1, ..., cn) VALUES (?, ..., ?)suffix" into buf: the columns
 * of `before`, then (with_params) those of src/params.c's table, then `after`.
 * A truncated statement does not prepare, so it cannot go unnoticed. */
static void insert_sql(char *buf, size_t len, const char *table, const char *const *before,
                       int with_params, const char *const *after, const char *suffix)
{
    const char *params[GL_NPARAMS];
    for (int i = 0; i < GL_NPARAMS; i++)
        params[i] = gl_param_table[i].column;
    int n = 0;
    size_t used = (size_t)snprintf(buf, len, "INSERT INTO %s (", table);
    used = add_names(buf, len, used, &n, before, count_names(before));
    used = add_names(buf, len, used, &n, params, with_params ? GL_NPARAMS : 0);
    used = add_names(buf, len, used, &n, after, count_names(after));
    if (used < len)
        used += (size_t)snprintf(buf + used, len - used, ") VALUES (");
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s?", i ? ", " : "");
    if (used < len)
        snprintf(buf + used, len - used, ")%s", suffix);
}

/* ---- devices and sessions ---------------------------------------------------- */

static const char *const device_cols[] = {
    "kind", "name", "ident", "cores", "l1d_kb", "l2_kb", "l3_kb", "cc_major", "cc_minor",
    "sm_count", "cores_per_sm", "clock_khz", "mem_clock_khz", "mem_bus_bits", "mem_bytes",
    "l2_bytes", "smem_per_block", "smem_per_block_optin", "smem_per_sm", "regs_per_block",
    "regs_per_sm", "warp_size", "max_threads_per_block", "max_threads_per_sm", "max_blocks_per_sm",
    "max_block_x", "max_block_y", "max_block_z", "max_grid_x", "max_grid_y", "max_grid_z",
    "driver_version", "runtime_version", "theo_bw_gbs", "copy_bw_gbs", "fp32_peak_gflops", NULL
};

long long gl_store_device(gl_store *s, const struct gl_device *d)
{
    size_t identlen = strnlen(d->ident, sizeof d->ident);
    if (identlen == 0) {
        set_err(s, "device '%.*s' has no identity (ident)", (int)strnlen(d->name, sizeof d->name),
                d->name);
        return -1;
    }
    char sql[2048];
    insert_sql(sql, sizeof sql, "device", device_cols, 0, NULL, " ON CONFLICT (ident) DO NOTHING");
    if (prepare(s, &s->device_insert, sql) != 0 ||
        prepare(s, &s->device_select, "SELECT id FROM device WHERE ident = ?") != 0)
        return -1;

    struct binder b = { s->device_insert, 1, SQLITE_OK };
    b_textn(&b, d->kind, sizeof d->kind);
    b_textn(&b, d->name, sizeof d->name);
    b_textn(&b, d->ident, sizeof d->ident);
    b_int_nz(&b, d->cores);
    b_int_nz(&b, d->l1d_kb);
    b_int_nz(&b, d->l2_kb);
    b_int_nz(&b, d->l3_kb);
    b_int_nz(&b, d->cc_major);
    if (d->cc_major > 0)   /* 9.0: a minor version of 0 is real */
        b_int(&b, d->cc_minor);
    else
        b_null(&b);
    b_int_nz(&b, d->sm_count);
    b_int_nz(&b, d->cores_per_sm);
    b_int_nz(&b, d->clock_khz);
    b_int_nz(&b, d->mem_clock_khz);
    b_int_nz(&b, d->mem_bus_bits);
    b_int_nz(&b, d->mem_bytes);
    b_int_nz(&b, d->l2_bytes);
    b_int_nz(&b, d->smem_per_block);
    b_int_nz(&b, d->smem_per_block_optin);
    b_int_nz(&b, d->smem_per_sm);
    b_int_nz(&b, d->regs_per_block);
    b_int_nz(&b, d->regs_per_sm);
    b_int_nz(&b, d->warp_size);
    b_int_nz(&b, d->max_threads_per_block);
    b_int_nz(&b, d->max_threads_per_sm);
    b_int_nz(&b, d->max_blocks_per_sm);
    for (int i = 0; i < 3; i++)
        b_int_nz(&b, d->max_block[i]);
    for (int i = 0; i < 3; i++)
        b_int_nz(&b, d->max_grid[i]);
    b_int_nz(&b, d->driver_version);
    b_int_nz(&b, d->runtime_version);
    b_real_nz(&b, d->theo_bw_gbs);
    b_real_nz(&b, d->copy_bw_gbs);
    b_real_nz(&b, d->fp32_peak_gflops);

    long long id = -1;
    int rc = b.rc;
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s->device_insert);
    if (rc != SQLITE_DONE && rc != SQLITE_OK) {
        set_db_err(s, "storing the device");
    } else {
        rc = sqlite3_bind_text(s->device_select, 1, d->ident, (int)identlen, SQLITE_TRANSIENT);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(s->device_select);
        if (rc == SQLITE_ROW)
            id = sqlite3_column_int64(s->device_select, 0);
        else
            set_db_err(s, "looking up the device");
    }
    sqlite3_reset(s->device_insert);
    sqlite3_clear_bindings(s->device_insert);
    sqlite3_reset(s->device_select);
    return id;
}

static const char *const session_cols[] = {
    "tool_version", "git_revision", "host", "argv", "study", "config_path", "config_text",
    "config_hash", NULL
};

long long gl_store_session_begin(gl_store *s, const struct gl_session_info *si)
{
    char sql[512];
    sqlite3_stmt *st = NULL;
    insert_sql(sql, sizeof sql, "session", session_cols, 0, NULL, "");
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        set_db_err(s, "recording the session");
        return -1;
    }
    struct binder b = { st, 1, SQLITE_OK };
    b_text(&b, si->tool_version);
    b_text(&b, si->git_revision);
    b_text(&b, si->host);
    b_text(&b, si->argv);
    b_text(&b, si->study);
    b_text(&b, si->config_path);
    b_text(&b, si->config_text);
    b_text(&b, si->config_hash);
    int rc = b.rc == SQLITE_OK ? sqlite3_step(st) : b.rc;
    long long id = -1;
    if (rc == SQLITE_DONE)
        id = sqlite3_last_insert_rowid(s->db);
    else
        set_db_err(s, "recording the session");
    sqlite3_finalize(st);
    return id;
}

int gl_store_session_end(gl_store *s, long long session_id)
{
    sqlite3_stmt *st = NULL;
    const char *sql = "UPDATE session SET ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?";
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, session_id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) {
        set_db_err(s, "ending the session");
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    if (sqlite3_changes(s->db) != 1) {
        set_err(s, "ending the session: no session %lld", session_id);
        return -1;
    }
    return 0;
}

/* ---- resume lookups ------------------------------------------------------------ */

int gl_store_has_status(gl_store *s, const struct gl_run_key *k, const char *status)
{
    if (!k || !k->family || !k->variant || !k->p || !status) {
        set_err(s, "run lookup: incomplete key");
        return -1;
    }
    if (!s->has_status) {
        /* Every parameter compared with IS, so that NULL (unset) matches only NULL. */
        char sql[1024];
        size_t used = (size_t)snprintf(sql, sizeof sql,
                                       "SELECT 1 FROM run WHERE device_id IN (SELECT device_id FROM "
                                       "device_model WHERE model_id = (SELECT model_id FROM "
                                       "device_model WHERE device_id = ?)) AND family = ? AND "
                                       "variant = ? AND study IS ?");
        for (int i = 0; i < GL_NPARAMS && used < sizeof sql; i++)
            used += (size_t)snprintf(sql + used, sizeof sql - used, " AND %s IS ?",
                                     gl_param_table[i].column);
        if (used < sizeof sql)
            snprintf(sql + used, sizeof sql - used, " AND status = ? LIMIT 1");
        if (prepare(s, &s->has_status, sql) != 0)
            return -1;
    }
    struct binder b = { s->has_status, 1, SQLITE_OK };
    b_int(&b, k->device_id);
    b_text(&b, k->family);
    b_text(&b, k->variant);
    b_text(&b, k->study);
    b_params(&b, k->p);
    b_text(&b, status);
    int rc = b.rc == SQLITE_OK ? sqlite3_step(s->has_status) : b.rc;
    int found = -1;
    if (rc == SQLITE_ROW)
        found = 1;
    else if (rc == SQLITE_DONE)
        found = 0;
    else
        set_db_err(s, "looking up a run");
    sqlite3_reset(s->has_status);
    sqlite3_clear_bindings(s->has_status);
    return found;
}

int gl_store_has_ok(gl_store *s, const struct gl_run_key *k)
{
    return gl_store_has_status(s, k, "ok");
}

/* ---- results ------------------------------------------------------------------- */

static const char *const run_cols_key[] = {
    "session_id", "device_id", "study", "section", "family", "variant", NULL
};
static const char *const run_cols_rest[] = {
    "status", "reason", "max_rel_err",
    "warmup", "min_samples", "max_samples", "max_noise", "max_seconds",
    "samples", "median_ms", "mean_ms", "min_ms", "max_ms", "stddev_ms", "rel_se",
    "h2d_ms", "d2h_ms", "flops", "min_bytes",
    "launches", "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z",
    "regs_per_thread", "static_smem", "dynamic_smem", "local_bytes", "blocks_per_sm",
    "theo_occupancy_pct", "limiter", "limit_regs", "limit_smem", "limit_warps", "limit_blocks",
    "guide_flags", "passes", "metrics_reason", NULL
};

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
static int insert_run(gl_store *s, const struct gl_run_key *k, const struct gl_run_info *ri,
                      const struct gl_result *r, const struct gl_summary *sum)
{
    char sql[2048];
    insert_sql(sql, sizeof sql, "run", run_cols_key, 1, run_cols_rest, "");
    if (prepare(s, &s->run_insert, sql) != 0)
        return -1;
    struct binder b = { s->run_insert, 1, SQLITE_OK };
    b_int(&b, ri->session_id);
    b_int(&b, k->device_id);
    b_text(&b, ri->study);
    b_text(&b, ri->section);
    b_text(&b, k->family);
    b_text(&b, k->variant);
    b_params(&b, k->p);

    b_text(&b, status_text(r->status));
    b_textn(&b, r->reason, sizeof r->reason);
    b_real_nonneg(&b, r->max_rel_err);
    const struct gl_timing *t = ri->t;
    if (t) {
        b_int(&b, t->warmup);
        b_int(&b, t->min_samples);
        b_int(&b, t->max_samples);
        b_real(&b, t->max_noise);
        b_real(&b, t->max_seconds);
    } else {
        for (int i = 0; i < 5; i++)
            b_null(&b);
    }
    b_int(&b, sum->count);
    b_real(&b, sum->median);   /* NaN (no samples) binds as NULL */
    b_real(&b, sum->mean);
    b_real(&b, sum->min);
    b_real(&b, sum->max);
    b_real(&b, sum->stddev);
    b_real(&b, sum->rel_se);
    b_real_nonneg(&b, r->h2d_ms);
    b_real_nonneg(&b, r->d2h_ms);
    b_real_nonneg(&b, ri->flops);
    b_real_nonneg(&b, ri->min_bytes);

    /* Launch shape: 0 launches / dimensions mean none (CPU runs, runs that never
     * launched); the per-kernel resources exist only when a kernel shape does (a
     * library call such as cuBLAS has launches but no shape of its own). */
    int kernel = r->block[0] > 0;
    b_int_nz(&b, r->launches);
    for (int i = 0; i < 3; i++)
        b_int_nz(&b, r->grid[i]);
    for (int i = 0; i < 3; i++)
        b_int_nz(&b, r->block[i]);
    if (kernel) {
        b_int(&b, r->regs_per_thread);
        b_int(&b, r->static_smem);
        b_int(&b, r->dynamic_smem);
        b_int(&b, r->local_bytes);
        b_int(&b, r->blocks_per_sm);
        b_real(&b, r->theo_occupancy);
        b_textn(&b, r->limiter, sizeof r->limiter);
        b_int(&b, r->limit_regs);
        b_int(&b, r->limit_smem);
        b_int(&b, r->limit_warps);
        b_int(&b, r->limit_blocks);
        b_int(&b, r->guide_flags);
    } else {
        for (int i = 0; i < 12; i++)
            b_null(&b);
    }
    b_int_nz(&b, r->passes);
    b_textn(&b, r->metrics_reason, sizeof r->metrics_reason);

    int rc = b.rc == SQLITE_OK ? sqlite3_step(s->run_insert) : b.rc;
    sqlite3_reset(s->run_insert);
    sqlite3_clear_bindings(s->run_insert);
    if (rc != SQLITE_DONE) {
        set_db_err(s, "storing the run");
        return -1;
    }
    return 0;
}

static int insert_samples(gl_store *s, long long run_id, const struct gl_result *r)
{
    if (prepare(s, &s->sample_insert, "INSERT INTO sample (run_id, idx, ms) VALUES (?, ?, ?)") != 0)
        return -1;
    for (int i = 0; i < r->nsamples; i++) {
        struct binder b = { s->sample_insert, 1, SQLITE_OK };
        b_int(&b, run_id);
        b_int(&b, i);
        b_real(&b, r->samples_ms[i]);
        int rc = b.rc == SQLITE_OK ? sqlite3_step(s->sample_insert) : b.rc;
        sqlite3_reset(s->sample_insert);
        if (rc != SQLITE_DONE) {
            set_db_err(s, "storing a sample");
            return -1;
        }
    }
    return 0;
}

/* A metric whose value is not a finite number was not measured: no row. */
static int insert_metrics(gl_store *s, long long run_id, const struct gl_result *r)
{
    if (prepare(s, &s->metric_insert,
                "INSERT INTO metric (run_id, name, value, unit) VALUES (?, ?, ?, ?)") != 0)
        return -1;
    for (int i = 0; i < r->nmetrics; i++) {
        const struct gl_metric *m = &r->metrics[i];
        size_t namelen = strnlen(m->name, sizeof m->name);
        if (namelen == 0) {
            set_err(s, "storing metrics: metric %d has no name", i);
            return -1;
        }
        if (!isfinite(m->value))
            continue;
        struct binder b = { s->metric_insert, 1, SQLITE_OK };
        b_int(&b, run_id);
        b_textn(&b, m->name, sizeof m->name);
        b_real(&b, m->value);
        b_textn(&b, m->unit, sizeof m->unit);
        int rc = b.rc == SQLITE_OK ? sqlite3_step(s->metric_insert) : b.rc;
        sqlite3_reset(s->metric_insert);
        sqlite3_clear_bindings(s->metric_insert);
        if (rc != SQLITE_DONE) {
            set_err(s, "storing metric %.*s: %s", (int)namelen, m->name, sqlite3_errmsg(s->db));
            return -1;
        }
    }
    return 0;
}

long long gl_store_result(gl_store *s, const struct gl_run_key *k, const struct gl_run_info *ri,
                          const struct gl_result *r)
{
    if (!k || !k->family || !k->variant || !k->p || !ri || !r) {
        set_err(s, "storing a result: incomplete key or result");
        return -1;
    }
    if (!status_text(r->status)) {
        set_err(s, "storing a result: unknown status %d", r->status);
        return -1;
    }
    if (r->nsamples < 0 || r->nsamples > GL_MAX_SAMPLES || r->nmetrics < 0 ||
        r->nmetrics > GL_MAX_METRICS) {
        set_err(s, "storing a result: %d samples, %d metrics (out of range)", r->nsamples,
                r->nmetrics);
        return -1;
    }
    for (int i = 0; i < r->nsamples; i++)
        if (!isfinite(r->samples_ms[i])) {
            set_err(s, "storing a result: sample %d is not a finite number of ms", i);
            return -1;
        }
    struct gl_summary sum;
    gl_summarize(r->samples_ms, r->nsamples, &sum);

    if (exec(s, "BEGIN IMMEDIATE", "storing a result") != 0)
        return -1;
    long long id = -1;
    if (insert_run(s, k, ri, r, &sum) == 0) {
        id = sqlite3_last_insert_rowid(s->db);
        if (insert_samples(s, id, r) != 0 || insert_metrics(s, id, r) != 0)
            id = -1;
    }
    if (id < 0 || exec(s, "COMMIT", "committing a result") != 0) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return id;
}

/* ---- ad-hoc queries ---------------------------------------------------------------- */

/* Past blanks, semicolons and comments: where the next statement starts. */
static const char *skip_blank(const char *p)
{
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == ';')
            p++;
        if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n')
                p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
        } else {
            return p;
        }
    }
}

static int fill_table(sqlite3_stmt *st, struct gl_table *t)
{
    int nc = sqlite3_column_count(st);
    const char **names = calloc(nc > 0 ? (size_t)nc : 1, sizeof *names);
    if (!names)
        return SQLITE_NOMEM;
    for (int c = 0; c < nc; c++)
        names[c] = sqlite3_column_name(st, c);
    int rc = gl_table_init(t, nc, names) == 0 ? SQLITE_OK : SQLITE_NOMEM;
    free(names);
    while (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc != SQLITE_ROW)
            break;
        rc = SQLITE_OK;
        for (int c = 0; c < nc && rc == SQLITE_OK; c++) {
            int bad = 0;
            switch (sqlite3_column_type(st, c)) {
            case SQLITE_NULL:
                bad = gl_table_add_null(t);
                break;
            case SQLITE_INTEGER:
                bad = gl_table_add_int(t, sqlite3_column_int64(st, c));
                break;
            case SQLITE_FLOAT:
                bad = gl_table_add_real(t, sqlite3_column_double(st, c));
                break;
            case SQLITE_BLOB: {
                /* Blobs print as hex digits. */
                const unsigned char *p = sqlite3_column_blob(st, c);
                int n = sqlite3_column_bytes(st, c);
                char *hex = malloc((size_t)n * 2 + 1);
                if (!hex) {
                    bad = -1;
                    break;
                }
                for (int i = 0; i < n; i++)
                    snprintf(hex + 2 * i, 3, "%02x", p[i]);
                hex[2 * n] = '\0';
                bad = gl_table_add_text(t, hex, (size_t)n * 2);
                free(hex);
                break;
            }
            default: {
                const unsigned char *p = sqlite3_column_text(st, c);
                int n = sqlite3_column_bytes(st, c);
                bad = gl_table_add_text(t, p ? (const char *)p : "", p ? (size_t)n : 0);
                break;
            }
            }
            if (bad)
                rc = SQLITE_NOMEM;
        }
    }
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int gl_store_query(gl_store *s, const char *sql, enum gl_format fmt, FILE *out, char *err,
                   size_t errlen)
{
    const char *p = skip_blank(sql);
    if (*p == '\0') {
        snprintf(err, errlen, "no SQL statement");
        return -1;
    }
    struct gl_table t;
    int have = 0;
    while (*p) {
        sqlite3_stmt *st = NULL;
        const char *next = NULL;
        if (sqlite3_prepare_v2(s->db, p, -1, &st, &next) != SQLITE_OK) {
            snprintf(err, errlen, "%s", sqlite3_errmsg(s->db));
            goto fail;
        }
        p = skip_blank(next);
        if (!st)
            continue;
        int rc;
        if (*p == '\0') {   /* the last statement: its rows are the answer */
            rc = fill_table(st, &t);
            have = 1;
        } else {
            while ((rc = sqlite3_step(st)) == SQLITE_ROW)
                ;
            if (rc == SQLITE_DONE)
                rc = SQLITE_OK;
        }
        if (rc != SQLITE_OK) {
            snprintf(err, errlen, "%s", rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(s->db));
            sqlite3_finalize(st);
            goto fail;
        }
        sqlite3_finalize(st);
    }
    if (!have)
        return 0;
    int rc = gl_table_print(&t, fmt, out);
    if (rc == 0 && fflush(out) != 0)
        rc = -1;
    gl_table_free(&t);
    if (rc != 0)
        snprintf(err, errlen, "cannot write the output");
    return rc;
fail:
    if (have)
        gl_table_free(&t);
    return -1;
}
