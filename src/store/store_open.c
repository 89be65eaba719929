/* store_open.c - opening and closing the results database: WAL, foreign keys,
 * busy timeout; on a file that can be written, one transaction that creates the
 * schema (db/schema.sql) or migrates an older file (db/migrations/), checks that
 * `run` has a column for every parameter, remakes the run_key index when the
 * parameter table changed it, and recreates the views (db/views.sql, then the
 * results_<study> views of the studies with named parameters). The lists in
 * schema.sql and views.sql are expanded from the C tables by store_sql.c.
 * gl_store_open_readonly opens an existing file without writing to it at all
 * (no WAL switch, no migration): the views are made in the connection's TEMP
 * schema, where they hide the file's own (missing or made by an older gpulab);
 * a file of an older schema version is copied into memory and the copy migrated;
 * it leaves no -wal or -shm behind (store_path.c). What may be opened at all,
 * and the words for a file that cannot be, are store_path.c's.
 * Must not write anything but that schema, nor touch a file it refuses (newer
 * version, another program's database, a directory or device), nor print. */
#include "store_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db_sql.h"

/* A file at user_version 0 is new only if it holds nothing: otherwise it is some
 * other program's database, and it is left alone. */
static int foreign_check(gl_store *s, const char *path)
{
    long long objects;
    if (store_query_int(s, "SELECT count(*) FROM sqlite_master", &objects) != 0)
        return -1;
    if (objects > 0) {
        store_err(s, "%s: not a gpulab database (user_version 0, but it holds %lld objects); "
                     "nothing was changed", path, objects);
        return -1;
    }
    return 0;
}

/* The early look at a file that read user_version 0, before anything writes:
 * version and object count again, in one statement (one read transaction), so
 * that a file another process has just created (schema and version committed
 * together) is seen whole, never as "objects but version 0". *v gets the
 * version seen; 0, or -1 with s->err when it is some other program's file. */
static int fresh_check(gl_store *s, const char *path, long long *v)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT (SELECT user_version FROM pragma_user_version), "
                                       "(SELECT count(*) FROM sqlite_master)", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        store_db_err(s, "reading the schema version");
        sqlite3_finalize(st);
        return -1;
    }
    long long version = sqlite3_column_int64(st, 0), objects = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    *v = version;
    if (version == 0 && objects > 0) {
        store_err(s, "%s: not a gpulab database (user_version 0, but it holds %lld objects); "
                     "nothing was changed", path, objects);
        return -1;
    }
    if (version > gl_schema_version) {
        store_err(s, "%s: database schema version %lld is newer than this gpulab knows (%d): "
                     "use a newer gpulab; nothing was changed", path, version, gl_schema_version);
        return -1;
    }
    return 0;
}

/* PRAGMA journal_mode = WAL. Changing the mode needs the file to itself, and
 * SQLite answers SQLITE_BUSY at once (no busy handler) while another connection
 * reads it, as happens when two processes create one new file together: so it
 * is tried again for up to 10 s. A file already in WAL mode changes nothing. */
static int set_wal(gl_store *s)
{
    for (int tries = 0;; tries++) {
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(st);
        int wal = rc == SQLITE_ROW && sqlite3_column_text(st, 0) &&
                  sqlite3_stricmp((const char *)sqlite3_column_text(st, 0), "wal") == 0;
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            store_db_err(s, "setting WAL mode");
        sqlite3_finalize(st);
        if (wal)
            return 0;
        int busy = (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED || rc == SQLITE_ROW;
        if (!busy || tries >= 1000) {
            if (rc == SQLITE_ROW)
                store_err(s, "setting WAL mode: the database stays in another journal mode");
            return -1;
        }
        sqlite3_sleep(10);
    }
}

/* Run a template of db/ once its lists are expanded. */
static int exec_template(gl_store *s, const char *tmpl, const char *what)
{
    char *sql = store_sql_expand(s, tmpl, what);
    if (!sql)
        return -1;
    int rc = store_exec(s, sql, what);
    sqlite3_free(sql);
    return rc;
}

/* Every parameter is stored in its own column of run; one the file lacks was
 * added to gl_param_table without the migration that adds the column. */
static int check_param_columns(gl_store *s, const char *path)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM pragma_table_info('run') WHERE name = ?", -1, &st,
                           NULL) != SQLITE_OK) {
        store_db_err(s, "reading run's columns");
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < GL_NPARAMS && rc == 0; i++) {
        const char *col = gl_param_table[i].column;
        sqlite3_bind_text(st, 1, col, -1, SQLITE_STATIC);
        int step = sqlite3_step(st);
        if (step == SQLITE_DONE) {
            store_err(s, "%s: table run has no column %s for parameter %s: db/migrations/ needs "
                         "one that adds it", path, col, gl_param_table[i].name);
            rc = -1;
        } else if (step != SQLITE_ROW) {
            store_db_err(s, "reading run's columns");
            rc = -1;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The run_key index as store_sql_run_key() makes it: left alone when the file's
 * is the same text, else dropped and made again (once, after a parameter was
 * added or on a file made by an older gpulab). */
static int sync_run_key(gl_store *s)
{
    char *want = store_sql_run_key();
    if (!want) {
        store_err(s, "making the run_key index: out of memory");
        return -1;
    }
    sqlite3_stmt *st = NULL;
    int same = 0, rc = sqlite3_prepare_v2(s->db, "SELECT sql FROM sqlite_master WHERE "
                                                 "type = 'index' AND name = 'run_key'", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *have = (const char *)sqlite3_column_text(st, 0);
        same = have && strcmp(have, want) == 0;
    } else if (rc != SQLITE_DONE) {
        store_db_err(s, "reading the run_key index");
        sqlite3_finalize(st);
        sqlite3_free(want);
        return -1;
    }
    sqlite3_finalize(st);
    rc = 0;
    if (!same && (store_exec(s, "DROP INDEX IF EXISTS run_key", "dropping the run_key index") != 0 ||
                  store_exec(s, want, "making the run_key index") != 0))
        rc = -1;
    sqlite3_free(want);
    return rc;
}

int store_study_views(gl_store *s)
{
    char *sql = store_sql_study_views(s);
    if (!sql)
        return -1;
    int rc = store_exec(s, sql, "making the results_<study> views");
    sqlite3_free(sql);
    return rc;
}

/* Inside the open's write transaction: bring the file to gl_schema_version and
 * (re)create the derived objects (run_key, the views). The version is read again
 * here, under the write lock, so that two processes opening one new file do not
 * both create the schema. Migrations run with foreign keys on (the pragma cannot
 * change inside a transaction): one that rebuilds a table must use PRAGMA
 * defer_foreign_keys. */
static int setup_schema(gl_store *s, const char *path)
{
    long long v;
    if (store_query_int(s, "PRAGMA user_version", &v) != 0)
        return -1;
    if (v == 0) {
        if (foreign_check(s, path) != 0)
            return -1;
        if (exec_template(s, gl_sql_schema, "creating the schema (db/schema.sql)") != 0)
            return -1;
    } else if (v > gl_schema_version) {
        store_err(s, "%s: database schema version %lld is newer than this gpulab knows (%d): "
                     "use a newer gpulab; nothing was changed", path, v, gl_schema_version);
        return -1;
    } else {
        for (long long i = v; i < gl_schema_version; i++) {
            char what[128];
            snprintf(what, sizeof what, "migrating version %lld to %lld (db/migrations/%03lld.sql)",
                     i, i + 1, i);
            if (store_exec(s, gl_sql_migrations[i - 1], what) != 0)
                return -1;
        }
    }
    if (check_param_columns(s, path) != 0 || sync_run_key(s) != 0)
        return -1;
    if (exec_template(s, gl_sql_views, "creating the views (db/views.sql)") != 0 ||
        store_study_views(s) != 0)
        return -1;
    if (v != gl_schema_version) {
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d", gl_schema_version);
        if (store_exec(s, sql, "setting the schema version") != 0)
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
        store_err(s, "%s: out of memory", path);
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
        store_err(s, "%s: %s", path, s->db ? sqlite3_errmsg(s->db) : "cannot open");
        s->code = s->db ? sqlite3_errcode(s->db) & 0xff : SQLITE_CANTOPEN;
        return -1;
    }
    return 0;
}

/* PRAGMA quick_check on a file about to be written, so that a damaged one is
 * refused before anything lands in it. 0 when it is sound (or too large to
 * check: GL_STORE_CHECK_MAX), -2 with s->err "database PATH is damaged
 * (quick_check: ...)", -1 when the check itself cannot run. */
static int quick_check(gl_store *s, const char *path)
{
    struct stat st;
    sqlite3_stmt *q = NULL;
    if (stat(path, &st) == 0 && (long long)st.st_size > GL_STORE_CHECK_MAX)
        return 0;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA quick_check", -1, &q, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        const char *r = (const char *)sqlite3_column_text(q, 0);
        int sound = r && strcmp(r, "ok") == 0;
        if (!sound)
            store_err(s, "database %s is damaged (quick_check: %.400s)", path, r ? r : "no answer");
        sqlite3_finalize(q);
        return sound ? 0 : -2;
    }
    int code = sqlite3_errcode(s->db) & 0xff;
    if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) {
        store_err(s, "database %s is damaged (quick_check: %s)", path, sqlite3_errmsg(s->db));
        rc = -2;
    } else {
        store_err(s, "%s: cannot check the file (quick_check): %s", path, sqlite3_errmsg(s->db));
        rc = -1;
    }
    sqlite3_finalize(q);
    return rc;
}

/* The file's schema version (PRAGMA user_version) into *v: 0, or -1 with s->err
 * and s->code; a file that is not SQLite's or is damaged said so, by name. */
static int read_version(gl_store *s, const char *path, long long *v)
{
    if (store_query_int(s, "PRAGMA user_version", v) == 0)
        return 0;
    int code = s->code;
    if (code == SQLITE_NOTADB)
        store_err(s, "%s: not a SQLite database (%s)", path, sqlite3_errmsg(s->db));
    else if (code == SQLITE_CORRUPT)
        store_err(s, "database %s is damaged (reading its schema version: %s)", path,
                  sqlite3_errmsg(s->db));
    s->code = code;
    return -1;
}

/* Open path with flags and read its schema version into *v, refusing a newer
 * one before anything is written. A WAL-mode file in a folder we cannot write
 * (no -shm can be made) is read as immutable, which is what it is to us. 0;
 * -1 when SQLite could not open the file at all; 1 on any other refusal (s->err
 * says why either way). */
static void sql_views_hash(sqlite3_context *ctx, int argc, sqlite3_value **argv);

static int open_versioned(gl_store *s, const char *path, int flags, long long *v)
{
    if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
        store_err(s, "%s: %s", path, s->db ? sqlite3_errmsg(s->db) : "cannot open");
        s->code = s->db ? sqlite3_errcode(s->db) & 0xff : SQLITE_CANTOPEN;
        return -1;
    }
    sqlite3_busy_timeout(s->db, 5000);
    sqlite3_create_function(s->db, "gl_views_hash", 0, SQLITE_UTF8, s, sql_views_hash, NULL,
                            NULL);
    if (read_version(s, path, v) != 0) {
        if (s->code != SQLITE_READONLY && s->code != SQLITE_CANTOPEN)
            return 1;
        sqlite3_close(s->db);
        s->db = NULL;
        if (open_immutable(s, path) != 0 || read_version(s, path, v) != 0)
            return 1;
    }
    if (*v > gl_schema_version) {
        store_err(s, "%s: database schema version %lld is newer than this gpulab knows (%d): "
                     "use a newer gpulab; nothing was changed", path, *v, gl_schema_version);
        return 1;
    }
    return 0;
}

/* A new handle for path (s->path set), or NULL with err. */
static gl_store *store_new(const char *path, char *err, size_t errlen)
{
    gl_store *s = calloc(1, sizeof *s);
    if (s && !(s->path = strdup(path))) {
        free(s);
        s = NULL;
    }
    if (!s)
        snprintf(err, errlen, "%.200s: out of memory", path);
    return s;
}

/* A failed open's message into err, s closed: the cause on disk when SQLite
 * could not open, read or write the file; and the file's name in every
 * message (the callers print it as it is). */
static void open_failed(gl_store *s, const char *path, int existed, char *err, size_t errlen)
{
    int c = s->code;
    if (c == SQLITE_CANTOPEN || c == SQLITE_READONLY || c == SQLITE_PERM || c == SQLITE_IOERR ||
        c == SQLITE_AUTH)
        store_path_why(s, path, existed, NULL);
    if (!strstr(s->err, path)) {
        char why[sizeof s->err];
        snprintf(why, sizeof why, "%s", s->err);
        store_err(s, "%s: %s", path, why);
    }
    snprintf(err, errlen, "%s", s->err);
    gl_store_close(s);   /* a reader's -wal and -shm go even so (s->tidy) */
}

int gl_store_open(const char *path, gl_store **out, char *err, size_t errlen)
{
    int ret = -1;   /* -2: the file is damaged */
    *out = NULL;
    if (path[0] == '\0') {
        snprintf(err, errlen, "empty database path");
        return -1;
    }
    gl_store *s = store_new(path, err, errlen);
    if (!s)
        return -1;
    /* Not a directory or a device: SQLite never sees those. */
    int existed = 0;
    if (store_path_check(s, path, &existed) != 0)
        goto fail;
    /* A file this user cannot write, or in a folder it cannot write: refused
     * before SQLite opens it (it would open it read-only, and make a -wal and
     * -shm where it can). */
    if (existed && !store_path_writable(path) && store_path_why(s, path, 1, NULL))
        goto fail;
    /* Refuse a newer file before anything writes to it (WAL mode is a write). */
    long long v;
    int orc = open_versioned(s, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &v);
    if (orc != 0)
        goto fail;
    if (v == 0 && fresh_check(s, path, &v) != 0)
        goto fail;
    if ((ret = quick_check(s, path)) != 0)
        goto fail;
    /* Every caller writes (run, device, merge's output, query --write): a file
     * that cannot be written is refused now, with why, not at the first row. */
    if (sqlite3_db_readonly(s->db, "main") == 1) {
        if (!store_path_why(s, path, existed, NULL))
            store_err(s, "%s: cannot write the database (SQLite opened it read-only)", path);
        goto fail;
    }
    if (set_wal(s) != 0)
        goto fail;
    long long fk = 0;
    if (store_exec(s, "PRAGMA foreign_keys = ON", "enabling foreign keys") != 0 ||
        store_query_int(s, "PRAGMA foreign_keys", &fk) != 0)
        goto fail;
    if (fk != 1) {
        store_err(s, "%s: this SQLite does not enforce foreign keys", path);
        goto fail;
    }
    if (store_exec(s, "BEGIN IMMEDIATE", "starting the schema transaction") != 0)
        goto fail;
    if (setup_schema(s, path) != 0) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        goto fail;
    }
    if (store_exec(s, "COMMIT", "committing the schema") != 0) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        goto fail;
    }
    *out = s;
    return 0;
fail:
    open_failed(s, path, existed, err, errlen);
    return ret == -2 ? -2 : -1;
}

/* db/views.sql made in TEMP: every "CREATE VIEW " becomes "CREATE TEMP VIEW "
 * and every "DROP VIEW IF EXISTS " drops only from temp (the file's views are
 * not touched; the TEMP ones come first in name lookup). Then the
 * results_<study> views, which store_sql.c writes as TEMP on a read-only store. */
/* FNV-1a of text, as 16 hex digits into out[17]. */
static void views_hash(const char *text, char *out)
{
    unsigned long long h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    snprintf(out, 17, "%016llx", h);
}

/* SQL gl_views_hash(): the hash of the views this gpulab makes (db/views.sql
 * expanded), so that a snapshot of `results` (report/tables/_snapshot.sql)
 * records which definition it holds. */
static void sql_views_hash(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    (void)argv;
    gl_store *s = sqlite3_user_data(ctx);
    char *sql = store_sql_expand(s, gl_sql_views, "hashing the views");
    if (!sql) {
        sqlite3_result_error(ctx, "cannot expand db/views.sql", -1);
        return;
    }
    char h[17];
    views_hash(sql, h);
    sqlite3_free(sql);
    sqlite3_result_text(ctx, h, -1, SQLITE_TRANSIENT);
}

/* A snapshot of `results` in the file (results_snapshot, written by the report
 * into its own copy of a database: report/tables/_snapshot.sql) stands in for
 * the view when it is of these very runs and metrics and of this definition:
 * the view computes every run's metric columns and newest flag on each query
 * (tens of microseconds a run), the table is read. Its key row says what it
 * was taken of; anything else (a run added, a metric, another gpulab) and the
 * view is used as it is. 0, or -1 (s->err). */
static int snapshot_results(gl_store *s, const char *views_sql)
{
    sqlite3_stmt *st = NULL;
    const char *q =
        "SELECT 1 FROM main.results_snapshot_key k WHERE k.views = ?1"
        " AND k.max_run IS (SELECT max(id) FROM main.run)"
        " AND k.runs = (SELECT count(*) FROM main.run)"
        " AND k.metrics = (SELECT count(*) FROM main.metric)"
        " AND EXISTS (SELECT 1 FROM main.sqlite_master WHERE type = 'table'"
        "             AND name = 'results_snapshot')";
    if (sqlite3_prepare_v2(s->db, q, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return 0;   /* no snapshot (no key table): the view */
    }
    char h[17];
    views_hash(views_sql, h);
    sqlite3_bind_text(st, 1, h, -1, SQLITE_TRANSIENT);
    int use = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (!use)
        return 0;
    return store_exec(s, "DROP VIEW temp.results; "
                         "CREATE TEMP VIEW results AS SELECT * FROM main.results_snapshot",
                      "using the snapshot of results");
}

static int temp_views(gl_store *s)
{
    static const struct { const char *from, *to; } subst[] = {
        { "CREATE VIEW ", "CREATE TEMP VIEW " },
        { "DROP VIEW IF EXISTS ", "DROP VIEW IF EXISTS temp." },
    };
    const char *what = "creating the views (db/views.sql) in TEMP";
    char *sql = store_sql_expand(s, gl_sql_views, what);
    if (!sql)
        return -1;
    sqlite3_str *o = sqlite3_str_new(s->db);
    for (const char *p = sql; *p;) {
        size_t i, n = 0;
        for (i = 0; i < sizeof subst / sizeof subst[0]; i++) {
            n = strlen(subst[i].from);
            if (strncmp(p, subst[i].from, n) == 0)
                break;
        }
        if (i < sizeof subst / sizeof subst[0]) {
            sqlite3_str_appendall(o, subst[i].to);
            p += n;
        } else {
            sqlite3_str_appendchar(o, 1, *p++);
        }
    }
    char *expanded = sql;
    if (sqlite3_str_errcode(o) != SQLITE_OK) {
        sqlite3_free(expanded);
        sqlite3_free(sqlite3_str_finish(o));
        store_err(s, "%s: out of memory", what);
        return -1;
    }
    sql = sqlite3_str_finish(o);
    if (!sql) {
        sqlite3_free(expanded);
        store_err(s, "%s: out of memory", what);
        return -1;
    }
    int rc = store_exec(s, sql, what);
    sqlite3_free(sql);
    if (rc == 0)
        rc = snapshot_results(s, expanded);
    sqlite3_free(expanded);
    if (rc != 0)
        return -1;
    return store_study_views(s);
}

/* An older file read-only: copied into memory (sqlite3_backup) and the copy
 * migrated as gl_store_open would migrate the file, which is never written.
 * On failure: the older-schema message, with why. */
static int migrate_copy(gl_store *s, const char *path, long long v)
{
    sqlite3 *mem = NULL;
    int rc = sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_backup *b = sqlite3_backup_init(mem, "main", s->db, "main");
        if (!b) {
            rc = sqlite3_errcode(mem);
        } else {
            rc = sqlite3_backup_step(b, -1);
            int frc = sqlite3_backup_finish(b);
            rc = rc == SQLITE_DONE ? frc : rc;
        }
    }
    if (rc != SQLITE_OK) {
        store_err(s, "%s: older schema (version %lld), and it cannot be read into memory (%s): "
                     "run `gpulab run` or `gpulab device` on it once to migrate", path, v,
                  mem ? sqlite3_errmsg(mem) : sqlite3_errstr(rc));
        sqlite3_close(mem);
        return -1;
    }
    sqlite3_close(s->db);
    s->db = mem;
    s->readonly = 0;   /* the copy's migration writes, to memory only */
    rc = store_exec(s, "PRAGMA foreign_keys = ON", "enabling foreign keys");
    if (rc == 0)
        rc = store_exec(s, "BEGIN", "starting the migration of the copy");
    if (rc == 0 && setup_schema(s, path) != 0) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        rc = -1;
    }
    if (rc == 0)
        rc = store_exec(s, "COMMIT", "committing the migration of the copy");
    s->readonly = 1;
    if (rc != 0) {
        char why[sizeof s->err];
        snprintf(why, sizeof why, "%s", s->err);
        store_err(s, "%s: older schema (version %lld) that cannot be read as version %d (%.600s): "
                     "run `gpulab run` or `gpulab device` on it once to migrate", path, v,
                  gl_schema_version, why);
        return -1;
    }
    return 0;
}

int gl_store_open_readonly(const char *path, gl_store **out, char *err, size_t errlen)
{
    *out = NULL;
    if (path[0] == '\0') {
        snprintf(err, errlen, "empty database path");
        return -1;
    }
    gl_store *s = store_new(path, err, errlen);
    if (!s)
        return -1;
    s->readonly = 1;
    int existed = 0;
    if (store_path_check(s, path, &existed) != 0)
        goto fail;
    if (!existed) {
        snprintf(err, errlen, "no database %s", path);
        gl_store_close(s);
        return -1;
    }
    /* Nothing is left behind: with no -wal there, no connection has the file
     * open; a reader's connection would make the -wal and -shm, so on a file
     * this user cannot write (nobody but its owner can be writing it), with no
     * rollback journal of a crashed writer beside it either, the file
     * is read as the immutable thing it is, and on one it can, the two files
     * are removed at close the way SQLite removes them (store_path_tidy). */
    long long v;
    int orc;
    if (store_path_wal_size(path) < 0 && !store_path_has_journal(path) &&
        !store_path_writable(path)) {
        orc = open_immutable(s, path) != 0 ? -1 : 0;
        if (orc == 0 && read_version(s, path, &v) != 0)
            orc = 1;
        if (orc == 0 && v > gl_schema_version) {
            store_err(s, "%s: database schema version %lld is newer than this gpulab knows (%d): "
                         "use a newer gpulab; nothing was changed", path, v, gl_schema_version);
            orc = 1;
        }
    } else {
        s->tidy = store_path_wal_size(path) <= 0;   /* none, or another reader's (empty) */
        orc = open_versioned(s, path, SQLITE_OPEN_READONLY, &v);
    }
    if (orc != 0)
        goto fail;
    if (v == 0) {
        if (foreign_check(s, path) == 0)
            store_err(s, "%s: empty, not a gpulab database yet", path);
        goto fail;
    }
    if (v < gl_schema_version) {
        if (migrate_copy(s, path, v) != 0)
            goto fail;
    } else if (check_param_columns(s, path) != 0 || temp_views(s) != 0) {
        goto fail;
    }
    *out = s;
    return 0;
fail:
    open_failed(s, path, existed, err, errlen);
    return -1;
}

void gl_store_close(gl_store *s)
{
    if (!s)
        return;
    if (s->claims)
        gl_store_unclaim_all(s);   /* runs claimed and never stored are free again */
    sqlite3_finalize(s->has_status);
    sqlite3_finalize(s->ran_since);
    sqlite3_finalize(s->run_cost);
    sqlite3_finalize(s->has_ok);
    sqlite3_finalize(s->run_insert);
    sqlite3_finalize(s->param_insert);
    sqlite3_finalize(s->scalar_insert);
    sqlite3_finalize(s->sample_insert);
    sqlite3_finalize(s->metric_insert);
    sqlite3_finalize(s->launch_insert);
    sqlite3_finalize(s->launch_metric_insert);
    sqlite3_finalize(s->device_insert);
    sqlite3_finalize(s->device_select);
    sqlite3_finalize(s->latest_run);
    sqlite3_finalize(s->search_value);
    sqlite3_finalize(s->search_secs);
    sqlite3_close(s->db);
    if (s->tidy && s->path && store_path_wal_size(s->path) >= 0)
        store_path_tidy(s->path);
    free(s->path);
    free(s->own);
    free(s);
}
