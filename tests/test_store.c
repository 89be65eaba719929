/* test_store.c - the SQLite store end to end on temporary files: schema creation
 * (version, tables, views, the exact `results` columns), migration of a version-1
 * file (tests/data/schema_v1.sql) through every migration keeping its rows,
 * rollback of a failed migration,
 * refusal of a newer or foreign file without touching it, views recreated on open,
 * devices (insert-or-get, NULL for what does not apply), sessions, results (samples,
 * summary statistics, metrics, NULL-not-zero), the resume lookup's exact key, the
 * derived columns and is_latest of `results`, and every query format byte for byte.
 * The SQL generated from the C tables: one `results` column per parameter and per
 * metric with a column (each reading its own metric), the run_key index over every
 * parameter, the template lists and their errors (store_sql.c, through
 * store_int.h), a file lacking a parameter's column refused, and the H100 fixture
 * (tests/data/h100_smoke_v2.db, version 2) migrated keeping every row of every table
 * and giving the same `results`, row for row, plus the new columns. Users'
 * kernels: uparams, code_hash and run_param rows written with the run (or not at
 * all), the resume key telling named parameters and hashes apart, the params view,
 * the results_<study> views (a column per name, WHERE on it, sanitized and
 * colliding names, made at session end and on open, stale ones dropped).
 * Run claims: taken once, busy while a live other process holds one, taken over
 * from a dead, reused or rebooted holder, left alone from another host, deleted
 * with the stored result, given back by unclaim_all.
 * Reads the database back through a second, plain SQLite connection.
 * Must not need a GPU or leave files behind. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktype.h"
#include "db_sql.h"
#include "metric_sets.h"
#include "params.h"
#include "store.h"
#include "store_int.h"
#include "tabfmt.h"
#include "t.h"

static char dir[64];

static void path_of(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * (fabs(b) > 1 ? fabs(b) : 1);
}

/* ---- a plain second connection ---------------------------------------------- */

static sqlite3 *raw_open(const char *path)
{
    sqlite3 *db = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK) {
        printf("cannot open %s\n", path);
        exit(1);
    }
    sqlite3_busy_timeout(db, 5000);
    return db;
}

static void raw_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        printf("raw_exec failed: %s\n  in: %.200s\n", msg ? msg : "?", sql);
        sqlite3_free(msg);
        t_failed++;
    }
}

/* The first column of the first row: its type, and value as integer/real/text. */
struct val {
    int type;   /* SQLITE_NULL, SQLITE_INTEGER, ... ; 0 = no row or error */
    long long i;
    double d;
    char s[512];
};

static struct val q(sqlite3 *db, const char *sql)
{
    struct val v;
    memset(&v, 0, sizeof v);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        printf("q failed: %s\n  in: %s\n", sqlite3_errmsg(db), sql);
        return v;
    }
    if (sqlite3_step(st) == SQLITE_ROW) {
        v.type = sqlite3_column_type(st, 0);
        v.i = sqlite3_column_int64(st, 0);
        v.d = sqlite3_column_double(st, 0);
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(v.s, sizeof v.s, "%s", t ? (const char *)t : "");
    }
    sqlite3_finalize(st);
    return v;
}

static long long qi(sqlite3 *db, const char *sql)
{
    struct val v = q(db, sql);
    return v.type == SQLITE_INTEGER ? v.i : -999999;
}

static int qnull(sqlite3 *db, const char *sql)
{
    return q(db, sql).type == SQLITE_NULL;
}

/* Column names of a query, comma-joined (sorted when asked, to compare sets). */
static void columns_of(sqlite3 *db, const char *sql, int sorted, char *buf, size_t len)
{
    sqlite3_stmt *st = NULL;
    buf[0] = '\0';
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        printf("columns_of: %s\n", sqlite3_errmsg(db));
        return;
    }
    int n = sqlite3_column_count(st);
    const char *names[256];
    for (int i = 0; i < n && i < 256; i++)
        names[i] = sqlite3_column_name(st, i);
    if (sorted)
        for (int i = 1; i < n; i++)
            for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
                const char *t = names[j];
                names[j] = names[j - 1];
                names[j - 1] = t;
            }
    size_t used = 0;
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "", names[i]);
    sqlite3_finalize(st);
}

/* Rows of a query joined as "a|b;c|d" (NULL as ~), to compare whole listings. */
static void rows_of(sqlite3 *db, const char *sql, char *buf, size_t len)
{
    sqlite3_stmt *st = NULL;
    size_t used = 0;
    buf[0] = '\0';
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        printf("rows_of: %s\n", sqlite3_errmsg(db));
        return;
    }
    int first = 1;
    while (sqlite3_step(st) == SQLITE_ROW && used < len) {
        for (int c = 0; c < sqlite3_column_count(st) && used < len; c++) {
            const unsigned char *t = sqlite3_column_text(st, c);
            used += (size_t)snprintf(buf + used, len - used, "%s%s", c ? "|" : (first ? "" : ";"),
                                     t ? (const char *)t : "~");
        }
        first = 0;
    }
    sqlite3_finalize(st);
}

/* ---- fixtures -------------------------------------------------------------------- */

static struct gl_device gpu_dev(const char *ident)
{
    struct gl_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.kind, sizeof d.kind, "gpu");
    snprintf(d.name, sizeof d.name, "Test GPU");
    snprintf(d.ident, sizeof d.ident, "%s", ident);
    d.cc_major = 9;
    d.cc_minor = 0;
    d.sm_count = 132;
    d.cores_per_sm = 128;
    d.mem_bytes = 85520809984LL;
    d.warp_size = 32;
    d.max_block[0] = 1024;
    d.max_grid[0] = 2147483647;
    d.theo_bw_gbs = 3352.3;
    return d;
}

static struct gl_device cpu_dev(void)
{
    struct gl_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.kind, sizeof d.kind, "cpu");
    snprintf(d.name, sizeof d.name, "Test CPU");
    snprintf(d.ident, sizeof d.ident, "host1/Test CPU");
    d.cores = 16;
    d.l1d_kb = 48;
    return d;
}

static struct gl_result res;   /* large: one static instance, reset per use */

static void reset_result(int status)
{
    memset(&res, 0, sizeof res);
    res.status = status;
    res.max_rel_err = -1.0;
    res.h2d_ms = res.d2h_ms = -1.0;
}

static void add_metric(const char *name, const char *unit, double v)
{
    struct gl_metric *m = &res.metrics[res.nmetrics++];
    snprintf(m->name, sizeof m->name, "%s", name);
    snprintf(m->unit, sizeof m->unit, "%s", unit);
    m->value = v;
}

static const struct gl_timing timing = { 2, 10, 1000, 0.005, 2.0, 60.0 };
static int expect_refusal;   /* set around stores that must fail: keep the log quiet */

static long long store_run_in(gl_store *s, const char *study, long long session, long long dev,
                              const char *family, const char *variant, const struct gl_params *p,
                              double flops, double bytes)
{
    struct gl_run_key k = { dev, family, variant, p, study, NULL, NULL };
    struct gl_run_info ri = { session, study, "sec", &timing, flops, bytes, 0, NULL, NULL, 0, NULL,
                              NULL, NULL };
    long long id = gl_store_result(s, &k, &ri, &res);
    if (id < 0 && !expect_refusal)
        printf("gl_store_result: %s\n", gl_store_errmsg(s));
    return id;
}

static long long store_run(gl_store *s, long long session, long long dev, const char *family,
                           const char *variant, const struct gl_params *p, double flops,
                           double bytes)
{
    return store_run_in(s, "teststudy", session, dev, family, variant, p, flops, bytes);
}

/* ---- schema creation --------------------------------------------------------------- */

static const char *const results_columns =
    "run_id,session_id,study,section,family,variant,device_kind,device_name,device_id,unit_id,status,"
    "reason,n,m,p,bs,k,r,g,threads,seed,mem,grid,cache,samples,median_ms,mean_ms,min_ms,max_ms,"
    "stddev_ms,rel_se,h2d_ms,d2h_ms,max_rel_err,flops,min_bytes,gflops,gbs,launches,grid_x,"
    "grid_y,grid_z,block_x,block_y,block_z,threads_per_block,regs_per_thread,static_smem,"
    "dynamic_smem,local_bytes,blocks_per_sm,theo_occupancy_pct,limiter,limit_regs,limit_smem,"
    "limit_warps,limit_blocks,guide_flags,passes,metrics_reason,smem_excess_reason,gpu_time_ns,"
    "achieved_occupancy_pct,l1_hit_pct,l2_hit_pct,smem_conflicts_ld,smem_conflicts_st,"
    "smem_excess_ld,smem_excess_st,dram_read_bytes,dram_write_bytes,dram_write_drain_bytes,"
    "sm_clock_hz,l1_bytes,l2_bytes,hostlink_read_sectors,hostlink_write_sectors,"
    "dram_write_total_bytes,"
    "sm_throughput_pct,mem_throughput_pct,inst_executed,smem_wavefronts_ld,smem_wavefronts_st,"
    "global_ld_bytes,global_st_bytes,measured_flop_per_byte,dram_gbs,sm_clock_mhz,hostlink_bytes,"
    "l1_flop_per_byte,l2_flop_per_byte,hostlink_flop_per_byte,offchip_level,is_latest,created_at,"
    "uparams,code_hash,started_at,compiler,compile_options,code_path,energy_j,avg_power_w,"
    "energy_reason,gflop_per_j,integrity,contaminated,target,launch_kind,device_values";

/* A malloc'd copy of s with add inserted after the first "after" (NULL: none). */
static char *insert_after(const char *s, const char *after, const char *add)
{
    const char *at = strstr(s, after);
    if (!at)
        return NULL;
    size_t head = (size_t)(at - s) + strlen(after);
    char *out = malloc(strlen(s) + strlen(add) + 1);
    if (!out)
        return NULL;
    memcpy(out, s, head);
    strcpy(out + head, add);
    strcat(out, s + head);
    return out;
}

static void test_create(void)
{
    char path[128], err[512];
    path_of(path, sizeof path, "new.db");
    gl_store *s = NULL;
    CHECK(gl_store_open(path, &s, err, sizeof err) == 0);
    if (!s) {
        printf("open: %s\n", err);
        return;
    }
    /* the version is 1 + the migrations: 001..013 (010 the launch sequences', 011 the
     * scalars', 012 energy, integrity, contamination; 013 target, launch_kind,
     * device_values) */
    CHECK(gl_nmigrations == 13 && gl_schema_version == 1 + gl_nmigrations);
    for (int i = 0; i < gl_nmigrations; i++)
        CHECK(gl_sql_migrations[i] != NULL);
    CHECK(gl_sql_migrations[gl_nmigrations] == NULL);
    sqlite3 *db = raw_open(path);
    CHECK(qi(db, "PRAGMA user_version") == 14);
    CHECK_STR(q(db, "PRAGMA journal_mode").s, "wal");
    CHECK_STR(q(db, "SELECT value FROM meta WHERE key = 'application'").s, "gpulab");
    const char *objs[] = { "table:meta", "table:device", "table:session", "table:run",
                           "table:sample", "table:metric", "table:run_param", "table:claim", "view:results",
                           "table:run_scalar", "view:scalars", "view:metrics", "view:params", "view:devices", "index:run_key" };
    for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) {
        char sql[256], type[16];
        const char *colon = strchr(objs[i], ':');
        snprintf(type, sizeof type, "%.*s", (int)(colon - objs[i]), objs[i]);
        snprintf(sql, sizeof sql, "SELECT count(*) FROM sqlite_master WHERE type = '%s' AND name = '%s'",
                 type, colon + 1);
        if (!CHECK(qi(db, sql) == 1))
            printf("  missing %s\n", objs[i]);
    }
    /* STRICT: a text in an INTEGER column is refused. */
    CHECK(sqlite3_exec(db, "INSERT INTO device (kind, ident, cores) VALUES ('cpu', 'x', 'many')",
                       NULL, NULL, NULL) != SQLITE_OK);
    /* The status CHECK holds. */
    CHECK(sqlite3_exec(db, "INSERT INTO run (session_id, device_id, family, variant, status) "
                           "VALUES (1, 1, 'f', 'v', 'great')", NULL, NULL, NULL) != SQLITE_OK);

    char cols[4096];
    columns_of(db, "SELECT * FROM results", 0, cols, sizeof cols);
    if (!CHECK_STR(cols, results_columns))
        printf("  results columns: %s\n", cols);
    /* Every parameter of the table has its column in run and in results. */
    for (int i = 0; i < GL_NPARAMS; i++) {
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT %s FROM run", gl_param_table[i].column);
        sqlite3_stmt *st = NULL;
        CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
        sqlite3_finalize(st);
        snprintf(sql, sizeof sql, "SELECT %s FROM results", gl_param_table[i].column);
        CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
        sqlite3_finalize(st);
    }
    columns_of(db, "SELECT * FROM metrics", 0, cols, sizeof cols);
    CHECK_STR(cols, "run_id,study,family,variant,name,value,unit");
    columns_of(db, "SELECT * FROM params", 0, cols, sizeof cols);
    CHECK_STR(cols, "run_id,study,family,variant,name,value");
    /* run_param is STRICT and belongs to a run. */
    CHECK(sqlite3_exec(db, "INSERT INTO run_param VALUES (1, 'TILE', 'big')", NULL, NULL, NULL) !=
          SQLITE_OK);
    sqlite3_close(db);
    gl_store_close(s);

    /* Reopening a current file changes nothing but the views. */
    if (!CHECK(gl_store_open(path, &s, err, sizeof err) == 0))
        printf("  reopen: %s\n", err);
    gl_store_close(s);
}

/* ---- migration -------------------------------------------------------------------- */

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* Object names and types of a file, sorted, and run's columns, sorted. */
static void shape_of(const char *path, char *objs, size_t olen, char *cols, size_t clen)
{
    sqlite3 *db = raw_open(path);
    char sql[] = "SELECT type || ':' || name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' "
                 "ORDER BY 1";
    rows_of(db, sql, objs, olen);
    rows_of(db, "SELECT name FROM pragma_table_info('run') ORDER BY name", cols, clen);
    sqlite3_close(db);
}

static void make_v1(const char *path, int with_row)
{
    char *v1 = read_all("tests/data/schema_v1.sql");
    CHECK(v1 != NULL);
    if (!v1)
        return;
    sqlite3 *db = raw_open(path);
    raw_exec(db, v1);
    raw_exec(db, "PRAGMA user_version = 1");
    if (with_row) {
        raw_exec(db, "INSERT INTO device (id, kind, name, ident, sm_count) "
                     "VALUES (7, 'gpu', 'Old GPU', 'GPU-old', 80)");
        raw_exec(db, "INSERT INTO session (id, tool_version, study) VALUES (3, '0.0.9', 'old')");
        raw_exec(db, "INSERT INTO run (id, session_id, device_id, study, family, variant, n, bs, "
                     "status, samples, median_ms, flops, block_x, block_y, block_z, passes) VALUES "
                     "(11, 3, 7, 'old', 'matmul', 'shared', 1024, 16, 'ok', 5, 2.0, 2147483648.0, "
                     "16, 16, 1, 2)");
        raw_exec(db, "INSERT INTO metric (run_id, name, value, unit) VALUES "
                     "(11, 'gpu__time_duration.sum', 1990000, 'nsecond')");
    }
    sqlite3_close(db);
    free(v1);
}

static void test_migrate(void)
{
    char path[128], fresh[128], err[512];
    path_of(path, sizeof path, "v1.db");
    path_of(fresh, sizeof fresh, "new.db");
    make_v1(path, 1);

    gl_store *s = NULL;
    CHECK(gl_store_open(path, &s, err, sizeof err) == 0);
    if (!s) {
        printf("migrate: %s\n", err);
        return;
    }
    sqlite3 *db = raw_open(path);
    CHECK(qi(db, "PRAGMA user_version") == gl_schema_version);
    char row[1024];
    rows_of(db, "SELECT id, session_id, device_id, study, family, variant, n, bs, status, samples, "
                "median_ms, flops, passes FROM run", row, sizeof row);
    CHECK_STR(row, "11|3|7|old|matmul|shared|1024|16|ok|5|2.0|2147483648.0|2");
    /* What v1 never measured stays NULL; the new table exists, empty. */
    CHECK(qnull(db, "SELECT rel_se FROM run WHERE id = 11"));
    CHECK(qnull(db, "SELECT guide_flags FROM run WHERE id = 11"));
    CHECK(qnull(db, "SELECT min_samples FROM run WHERE id = 11"));
    CHECK(qnull(db, "SELECT uparams FROM run WHERE id = 11"));
    CHECK(qnull(db, "SELECT code_hash FROM run WHERE id = 11"));
    CHECK(qnull(db, "SELECT started_at FROM run WHERE id = 11"));
    CHECK(qnull(db, "SELECT code_path FROM run WHERE id = 11"));
    CHECK(qnull(db, "SELECT load1 FROM session WHERE id = 3"));
    CHECK(qnull(db, "SELECT gpu_procs FROM session WHERE id = 3"));
    CHECK(qi(db, "SELECT count(*) FROM session WHERE gpu_procs_reason LIKE 'not recorded%'") ==
          qi(db, "SELECT count(*) FROM session"));
    CHECK(qi(db, "SELECT count(*) FROM claim") == 0);
    CHECK(qi(db, "SELECT count(*) FROM sample") == 0);
    CHECK(qi(db, "SELECT count(*) FROM run_param") == 0);
    CHECK(qi(db, "SELECT count(*) FROM params") == 0);
    CHECK(qi(db, "SELECT count(*) FROM metric WHERE run_id = 11") == 1);
    rows_of(db, "SELECT run_id, device_name, gflops, gpu_time_ns, is_latest, threads_per_block, "
                "uparams, code_hash FROM results", row, sizeof row);
    CHECK_STR(row, "11|Old GPU|1073.741824|1990000.0|1|256|~|~");
    sqlite3_close(db);

    /* The migrated file has the objects and run columns of a new one. */
    char o1[4096], o2[4096], c1[4096], c2[4096];
    shape_of(path, o1, sizeof o1, c1, sizeof c1);
    shape_of(fresh, o2, sizeof o2, c2, sizeof c2);
    if (!CHECK_STR(o1, o2))
        printf("  migrated: %s\n  new:      %s\n", o1, o2);
    if (!CHECK_STR(c1, c2))
        printf("  migrated: %s\n  new:      %s\n", c1, c2);

    /* A v2 result goes into the migrated file. */
    struct gl_params p;
    gl_params_init(&p);
    p.n = 1024;
    p.bs = 16;
    reset_result(GL_OK);
    res.nsamples = 2;
    res.samples_ms[0] = 1.0;
    res.samples_ms[1] = 3.0;
    snprintf(res.code_path, sizeof res.code_path, "x86-64-v3 (AVX2, FMA)");
    CHECK(store_run_in(s, "old", 3, 7, "matmul", "shared", &p, -1, -1) > 11);
    gl_store_close(s);
    db = raw_open(path);
    CHECK(qi(db, "SELECT count(*) FROM sample") == 2);
    CHECK_STR(q(db, "SELECT code_path FROM results WHERE run_id > 11").s, "x86-64-v3 (AVX2, FMA)");
    CHECK(qi(db, "SELECT is_latest FROM results WHERE run_id = 11") == 0);
    sqlite3_close(db);

    /* A failed migration leaves the file as it was: version 1, no new table. A
     * "version 1" file without a run table makes 001.sql fail. */
    path_of(path, sizeof path, "broken_v1.db");
    db = raw_open(path);
    raw_exec(db, "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); PRAGMA user_version = 1;");
    sqlite3_close(db);
    s = NULL;
    err[0] = '\0';
    CHECK(gl_store_open(path, &s, err, sizeof err) == -1 && s == NULL);
    CHECK(strstr(err, "001.sql") != NULL);
    db = raw_open(path);
    CHECK(qi(db, "PRAGMA user_version") == 1);
    CHECK(qi(db, "SELECT count(*) FROM sqlite_master WHERE name IN ('sample', 'results')") == 0);
    sqlite3_close(db);
}

/* ---- refusals ------------------------------------------------------------------------ */

static void test_refuse(void)
{
    char path[128], err[512];
    gl_store *s = NULL;

    /* Newer than known: error, and the file is byte for byte the same. A file in
     * rollback-journal mode also shows that WAL was not switched on. */
    path_of(path, sizeof path, "future.db");
    sqlite3 *db = raw_open(path);
    char future[160], newer[32];
    snprintf(future, sizeof future, "CREATE TABLE run (id INTEGER PRIMARY KEY, future TEXT); "
             "PRAGMA user_version = %d;", gl_schema_version + 1);
    snprintf(newer, sizeof newer, "version %d", gl_schema_version + 1);
    raw_exec(db, future);
    sqlite3_close(db);
    char *before = read_all(path);
    struct stat st0, st1;
    CHECK(stat(path, &st0) == 0);
    err[0] = '\0';
    CHECK(gl_store_open(path, &s, err, sizeof err) == -1 && s == NULL);
    CHECK(strstr(err, "newer") != NULL && strstr(err, newer) != NULL);
    char *after = read_all(path);
    CHECK(stat(path, &st1) == 0);
    CHECK(before && after && st0.st_size == st1.st_size &&
          memcmp(before, after, (size_t)st0.st_size) == 0);
    free(before);
    free(after);
    db = raw_open(path);
    CHECK_STR(q(db, "PRAGMA journal_mode").s, "delete");
    CHECK(qi(db, "PRAGMA user_version") == gl_schema_version + 1);
    sqlite3_close(db);

    /* Not ours: user_version 0 but tables present. */
    path_of(path, sizeof path, "foreign.db");
    db = raw_open(path);
    raw_exec(db, "CREATE TABLE t (x)");
    sqlite3_close(db);
    err[0] = '\0';
    CHECK(gl_store_open(path, &s, err, sizeof err) == -1 && s == NULL);
    CHECK(strstr(err, "not a gpulab database") != NULL);
    db = raw_open(path);
    CHECK(qi(db, "SELECT count(*) FROM sqlite_master") == 1);
    CHECK_STR(q(db, "PRAGMA journal_mode").s, "delete");
    sqlite3_close(db);

    /* Not a database at all. */
    path_of(path, sizeof path, "text.db");
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("this is not an SQLite file, just text long enough to have a header........\n", f);
        fclose(f);
    }
    err[0] = '\0';
    CHECK(gl_store_open(path, &s, err, sizeof err) == -1 && s == NULL && err[0] != '\0');
}

/* ---- views recreated on open ------------------------------------------------------------ */

static void test_views_refresh(void)
{
    char path[128], err[512];
    path_of(path, sizeof path, "views.db");
    gl_store *s = NULL;
    CHECK(gl_store_open(path, &s, err, sizeof err) == 0);
    gl_store_close(s);
    sqlite3 *db = raw_open(path);
    raw_exec(db, "DROP VIEW results; CREATE VIEW results AS SELECT 1 AS stale; DROP VIEW devices;");
    sqlite3_close(db);
    CHECK(gl_store_open(path, &s, err, sizeof err) == 0);
    gl_store_close(s);
    db = raw_open(path);
    char cols[4096];
    columns_of(db, "SELECT * FROM results", 0, cols, sizeof cols);
    CHECK_STR(cols, results_columns);
    CHECK(qi(db, "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name = 'devices'") == 1);
    sqlite3_close(db);
}

/* ---- SQL generated from the C tables ---------------------------------------------------- */

/* How many columns of `results` are called name. */
static int results_has(sqlite3 *db, const char *name)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pragma_table_info('results') WHERE name = '%s'",
             name);
    return (int)qi(db, sql);
}

static void test_generated(void)
{
    char path[128], err[512], sql[512];
    path_of(path, sizeof path, "gen.db");
    gl_store *s = NULL;
    if (!CHECK(gl_store_open(path, &s, err, sizeof err) == 0)) {
        printf("open: %s\n", err);
        return;
    }
    sqlite3 *db = raw_open(path);

    /* `results`: its own columns (those of results_columns that no table row
     * makes), one per parameter and one per metric with a column, nothing else. */
    int ncols = (int)qi(db, "SELECT count(*) FROM pragma_table_info('results')");
    int own = 0, nparams = 0, nmetrics = 0;
    for (const char *c = results_columns; *c;) {
        size_t n = strcspn(c, ",");
        int made = 0;
        for (int i = 0; i < GL_NPARAMS; i++)
            made |= strlen(gl_param_table[i].column) == n && !strncmp(c, gl_param_table[i].column, n);
        for (int i = 0; i < gl_metric_count; i++)
            made |= gl_metric_table[i].column && strlen(gl_metric_table[i].column) == n &&
                    !strncmp(c, gl_metric_table[i].column, n);
        own += !made;
        c += n + (c[n] == ',');
    }
    for (int i = 0; i < GL_NPARAMS; i++, nparams++)
        if (!CHECK(results_has(db, gl_param_table[i].column) == 1))
            printf("  results lacks parameter %s\n", gl_param_table[i].column);
    for (int i = 0; i < gl_metric_count; i++) {
        if (!gl_metric_table[i].column)
            continue;
        nmetrics++;
        if (!CHECK(results_has(db, gl_metric_table[i].column) == 1))
            printf("  results lacks metric column %s\n", gl_metric_table[i].column);
    }
    if (!CHECK(ncols == own + nparams + nmetrics))
        printf("  %d columns: %d own, %d parameters, %d metrics\n", ncols, own, nparams, nmetrics);

    /* Each metric column reads its own metric: metric i stored with value i + 1. */
    struct gl_device g = gpu_dev("GPU-gen");
    long long dev = gl_store_device(s, &g);
    struct gl_session_info si = { .tool_version = "0.1.0", .git_revision = "abc", .host = "h", .argv = "a", .config_path = "p", .config_text = "t", .config_hash = "x", .study = "gen" };
    long long sid = gl_store_session_begin(s, &si);
    struct gl_params p;
    gl_params_init(&p);
    p.n = 64;
    reset_result(GL_OK);
    for (int i = 0; i < gl_metric_count && res.nmetrics < GL_MAX_METRICS; i++)
        add_metric(gl_metric_table[i].name, gl_metric_table[i].unit, i + 1);
    long long id = store_run(s, sid, dev, "gen", "all", &p, -1, -1);
    CHECK(id > 0);
    for (int i = 0; i < gl_metric_count; i++) {
        if (!gl_metric_table[i].column)
            continue;
        snprintf(sql, sizeof sql, "SELECT %s FROM results WHERE run_id = %lld",
                 gl_metric_table[i].column, id);
        if (!CHECK(q(db, sql).d == i + 1))
            printf("  %s does not read %s\n", gl_metric_table[i].column, gl_metric_table[i].name);
    }

    /* run_key covers the resume key: every parameter, study, device, family,
     * variant (and status), exactly as the store makes it; reopening keeps it. */
    char *want = store_sql_run_key();
    CHECK(want != NULL);
    CHECK_STR(q(db, "SELECT sql FROM sqlite_master WHERE name = 'run_key'").s, want ? want : "");
    CHECK(qi(db, "SELECT \"unique\" FROM pragma_index_list('run') WHERE name = 'run_key'") == 0);
    for (int i = 0; i < GL_NPARAMS; i++) {
        snprintf(sql, sizeof sql, "SELECT count(*) FROM pragma_index_info('run_key') "
                                  "WHERE name = '%s'", gl_param_table[i].column);
        if (!CHECK(qi(db, sql) == 1))
            printf("  run_key lacks %s\n", gl_param_table[i].column);
    }
    CHECK(qi(db, "SELECT count(*) FROM pragma_index_info('run_key') WHERE name IN "
                 "('device_id', 'family', 'variant', 'study', 'uparams', 'code_hash', "
                 "'status')") == 7);
    CHECK(qi(db, "SELECT count(*) FROM pragma_index_info('run_key')") == GL_NPARAMS + 7);
    /* A stale index (another column list) is remade on open. */
    raw_exec(db, "DROP INDEX run_key; CREATE INDEX run_key ON run (family)");
    sqlite3_close(db);
    gl_store_close(s);
    s = NULL;
    CHECK(gl_store_open(path, &s, err, sizeof err) == 0);
    db = raw_open(path);
    CHECK_STR(q(db, "SELECT sql FROM sqlite_master WHERE name = 'run_key'").s, want ? want : "");
    sqlite3_free(want);

    /* The lists of the templates, and their errors. */
    struct { const char *tmpl, *want; } ok[] = {
        { "x @params: $column@ y", "x n, m, p, bs, k, r, g, threads, seed, mem, grid, cache y" },
        { "  @params: $column $type@,", "  n INTEGER,\n  m INTEGER,\n  p INTEGER,\n  bs INTEGER,\n"
          "  k INTEGER,\n  r INTEGER,\n  g INTEGER,\n  threads INTEGER,\n  seed INTEGER,\n"
          "  mem TEXT,\n  grid TEXT,\n  cache TEXT," },
        { "(@metrics default: $column@)", "(gpu_time_ns, achieved_occupancy_pct, l1_hit_pct, "
          "l2_hit_pct, smem_conflicts_ld, smem_conflicts_st, smem_excess_ld, smem_excess_st, "
          "dram_read_bytes, dram_write_bytes, dram_write_drain_bytes, sm_clock_hz, l1_bytes, "
          "l2_bytes, hostlink_read_sectors, hostlink_write_sectors)" },
        { "(@metrics full: $name AS $column@)", "('sm__throughput.avg.pct_of_peak_sustained_elapsed'"
          " AS sm_throughput_pct, 'gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed'"
          " AS mem_throughput_pct, 'smsp__inst_executed.sum' AS inst_executed, "
          "'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum' AS smem_wavefronts_ld, "
          "'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum' AS smem_wavefronts_st, "
          "'l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum' AS global_ld_bytes, "
          "'l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum' AS global_st_bytes)" },
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char *got = store_sql_expand(s, ok[i].tmpl, "test");
        if (!CHECK(got && strcmp(got, ok[i].want) == 0))
            printf("  %s\n  -> %s\n", ok[i].tmpl, got ? got : gl_store_errmsg(s));
        sqlite3_free(got);
    }
    /* Lists in comments and literals are text. */
    char *got = store_sql_expand(s, "-- @params: $column@\n'@x''@'", "test");
    CHECK(got && strcmp(got, "-- @params: $column@\n'@x''@'") == 0);
    sqlite3_free(got);
    const char *bad[] = { "@param: $column@", "@metrics fast: $column@", "@params: $colum@",
                          "@params: $name@", "@metrics sass: $column@", "@params: $column",
                          "@params $column@", "@params: $column\n@", "'@x''@' @" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        got = store_sql_expand(s, bad[i], "db/test.sql");
        if (!CHECK(got == NULL && strstr(gl_store_errmsg(s), "db/test.sql, line 1: ") != NULL))
            printf("  accepted: %s\n", bad[i]);
        sqlite3_free(got);
    }
    sqlite3_close(db);
    gl_store_close(s);

    /* A file whose run lacks a parameter's column (a parameter added without its
     * migration) is refused, and left as it was. */
    path_of(path, sizeof path, "nocol.db");
    CHECK(gl_store_open(path, &s, err, sizeof err) == 0);
    gl_store_close(s);
    db = raw_open(path);
    raw_exec(db, "DROP VIEW results; DROP INDEX run_key; ALTER TABLE run DROP COLUMN cache");
    sqlite3_close(db);
    s = NULL;
    err[0] = '\0';
    CHECK(gl_store_open(path, &s, err, sizeof err) == -1 && s == NULL);
    if (!CHECK(strstr(err, "no column cache for parameter cache") != NULL))
        printf("  %s\n", err);
    db = raw_open(path);
    CHECK(qi(db, "SELECT count(*) FROM sqlite_master WHERE name IN ('results', 'run_key')") == 0);
    sqlite3_close(db);
}

/* The committed H100 database (schema version 2): opening it migrates it to the
 * current version and remakes the views and run_key from the C tables; every row
 * of every table stays, and `results` gives every row as the views it was
 * written with gave, plus the new columns (NULL: built-in variants only). */
static void test_fixture(void)
{
    char path[128], err[512], cmd[512];
    path_of(path, sizeof path, "h100.db");
    snprintf(cmd, sizeof cmd, "cp tests/data/h100_smoke_v2.db '%s'", path);
    if (system(cmd) != 0) {
        printf("note: tests/data/h100_smoke_v2.db absent, not checked\n");
        return;
    }
    static const char *const tables[] = { "meta", "device", "session", "run", "sample", "metric" };
    enum { NT = sizeof tables / sizeof tables[0] };
    size_t len = 1 << 20;
    char *before = malloc(len), *after = malloc(len), *tb[NT] = { 0 }, *ta = malloc(len);
    char cb[4096], ca[4096], rcols[4096], sql[4200];
    for (int i = 0; i < NT; i++)
        tb[i] = malloc(len);
    int ok = before && after && ta;
    for (int i = 0; i < NT; i++)
        ok = ok && tb[i];
    if (!CHECK(ok))
        goto out;
    sqlite3 *db = raw_open(path);
    CHECK(qi(db, "PRAGMA user_version") == 2);
    long long runs = qi(db, "SELECT count(*) FROM run");
    columns_of(db, "SELECT * FROM results", 0, cb, sizeof cb);
    rows_of(db, "SELECT * FROM results", before, len);
    columns_of(db, "SELECT * FROM run", 0, rcols, sizeof rcols);
    char scols[4096], dcols[4096];
    columns_of(db, "SELECT * FROM session", 0, scols, sizeof scols);
    columns_of(db, "SELECT * FROM device", 0, dcols, sizeof dcols);
    for (int i = 0; i < NT; i++) {
        snprintf(sql, sizeof sql, "SELECT * FROM %s ORDER BY 1, 2", tables[i]);
        rows_of(db, sql, tb[i], len);
    }
    sqlite3_close(db);
    gl_store *s = NULL;
    if (!CHECK(gl_store_open(path, &s, err, sizeof err) == 0))
        printf("  %s\n", err);
    gl_store_close(s);
    db = raw_open(path);
    CHECK(qi(db, "PRAGMA user_version") == gl_schema_version);
    CHECK(qi(db, "SELECT count(*) FROM run") == runs && runs > 0);
    CHECK(qi(db, "SELECT count(*) FROM run WHERE uparams IS NULL AND code_hash IS NULL") == runs);
    CHECK(qi(db, "SELECT count(*) FROM run WHERE compiler IS NULL AND compile_options IS NULL") ==
          runs);   /* not recorded before version 6: NULL, not guessed */
    CHECK(qi(db, "SELECT count(*) FROM run_param") == 0);
    CHECK(qi(db, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'results\\_%' ESCAPE '\\'") ==
          0);
    /* Every table keeps every row, column for column (run's by its old columns). */
    for (int i = 0; i < NT; i++) {
        snprintf(sql, sizeof sql, "SELECT %s FROM %s ORDER BY 1, 2",
                 strcmp(tables[i], "run") == 0       ? rcols
                 : strcmp(tables[i], "session") == 0 ? scols
                 : strcmp(tables[i], "device") == 0  ? dcols
                                                     : "*",
                 tables[i]);
        rows_of(db, sql, ta, len);
        if (!CHECK(strlen(tb[i]) > 0 && strcmp(ta, tb[i]) == 0))
            printf("  table %s changed\n", tables[i]);
    }
    /* what the migrations added: NULL (never measured) or with a reason */
    CHECK(qi(db, "SELECT count(*) FROM device WHERE kind = 'gpu' AND l1_bw_gbs IS NULL AND "
                 "ceilings_at IS NULL AND ceilings_reason LIKE 'not measured%'") ==
          qi(db, "SELECT count(*) FROM device WHERE kind = 'gpu'"));
    CHECK(qi(db, "SELECT count(*) FROM session WHERE clocks_locked IS NULL AND sm_clock_mhz IS "
                 "NULL AND nvml_reason LIKE 'not recorded%'") ==
          qi(db, "SELECT count(*) FROM session"));
    CHECK(qi(db, "SELECT count(*) FROM results WHERE sm_clock_mhz IS NOT NULL OR l1_bytes IS NOT "
                 "NULL OR hostlink_bytes IS NOT NULL") == 0);
    CHECK(qi(db, "SELECT count(*) FROM results WHERE energy_j IS NULL AND energy_reason LIKE "
                 "'not recorded%' AND integrity IS NULL AND contaminated IS NULL") == runs);
    columns_of(db, "SELECT * FROM results", 0, ca, sizeof ca);
    CHECK_STR(ca, results_columns);
    /* v1's columns in their order, the later ones where they belong: the exact
     * conflicts' reason after metrics_reason, their metrics after the hardware
     * conflict counters (the default set's order), the roofline's where the
     * default set and the view put them (left out here), the rest at the end */
    static const char *const roofline_cols[] = {
        ",sm_clock_hz", ",l1_bytes", ",l2_bytes", ",hostlink_read_sectors",
        ",hostlink_write_sectors", ",sm_clock_mhz", ",hostlink_bytes", ",l1_flop_per_byte",
        ",l2_flop_per_byte", ",hostlink_flop_per_byte", ",offchip_level" };
    char old_cols[4200];
    snprintf(old_cols, sizeof old_cols, ",%.4000s,", ca);
    for (size_t i = 0; i < sizeof roofline_cols / sizeof roofline_cols[0]; i++) {
        char pat[64];
        snprintf(pat, sizeof pat, "%s,", roofline_cols[i]);
        char *at = strstr(old_cols, pat);
        if (CHECK(at != NULL))
            memmove(at, at + strlen(roofline_cols[i]), strlen(at + strlen(roofline_cols[i])) + 1);
    }
    old_cols[strlen(old_cols) - 1] = '\0';
    char *v1_cols = insert_after(cb, "metrics_reason,", "smem_excess_reason,");
    char *v1_more = v1_cols ? insert_after(v1_cols, "smem_conflicts_st,", "smem_excess_ld,smem_excess_st,")
                            : NULL;
    snprintf(sql, sizeof sql, ",%.3900s,uparams,code_hash,started_at,compiler,compile_options,"
             "code_path,energy_j,avg_power_w,energy_reason,gflop_per_j,integrity,contaminated,"
             "target,launch_kind,device_values",
             v1_more ? v1_more : cb);
    CHECK_STR(old_cols, sql);
    free(v1_cols);
    free(v1_more);
    snprintf(sql, sizeof sql, "SELECT %s FROM results", cb);
    rows_of(db, sql, after, len);
    CHECK(strlen(after) > 1000 && strlen(after) < len - 1);
    CHECK_STR(after, before);
    sqlite3_close(db);
out:
    free(before);
    free(after);
    free(ta);
    for (int i = 0; i < NT; i++)
        free(tb[i]);
}

/* ---- devices, sessions, results ---------------------------------------------------------- */

static void test_device_session(gl_store *s, sqlite3 *db)
{
    struct gl_device g = gpu_dev("GPU-1111");
    long long a = gl_store_device(s, &g);
    CHECK(a > 0);
    g.sm_count = 999;   /* same ident: the stored row is returned as it is */
    CHECK(gl_store_device(s, &g) == a);
    struct gl_device g2 = gpu_dev("GPU-2222");
    long long b = gl_store_device(s, &g2);
    CHECK(b > 0 && b != a);
    struct gl_device c = cpu_dev();
    long long cid = gl_store_device(s, &c);
    CHECK(cid > 0 && cid != a && cid != b);
    CHECK(gl_store_device(s, &c) == cid);
    CHECK(qi(db, "SELECT count(*) FROM device") == 3);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT sm_count FROM device WHERE id = %lld", a);
    CHECK(qi(db, sql) == 132);
    /* 0 means "does not apply": NULL; but compute capability 9.0 keeps its 0. */
    snprintf(sql, sizeof sql, "SELECT cc_minor FROM device WHERE id = %lld", a);
    CHECK(qi(db, sql) == 0);
    snprintf(sql, sizeof sql, "SELECT cores FROM device WHERE id = %lld", a);
    CHECK(qnull(db, sql));
    snprintf(sql, sizeof sql, "SELECT copy_bw_gbs FROM device WHERE id = %lld", a);
    CHECK(qnull(db, sql));
    snprintf(sql, sizeof sql, "SELECT mem_bytes FROM device WHERE id = %lld", a);
    CHECK(qi(db, sql) == 85520809984LL);
    snprintf(sql, sizeof sql, "SELECT cc_major IS NULL AND cc_minor IS NULL AND cores = 16 "
                              "FROM device WHERE id = %lld", cid);
    CHECK(qi(db, sql) == 1);
    snprintf(sql, sizeof sql, "SELECT cc || '/' || total_cores FROM devices WHERE device_id = %lld", a);
    CHECK_STR(q(db, sql).s, "9.0/16896");
    struct gl_device bad = cpu_dev();
    bad.ident[0] = '\0';
    CHECK(gl_store_device(s, &bad) == -1 && strstr(gl_store_errmsg(s), "ident") != NULL);
    snprintf(bad.ident, sizeof bad.ident, "weird");
    snprintf(bad.kind, sizeof bad.kind, "tpu");
    CHECK(gl_store_device(s, &bad) == -1);

    /* the memory ceilings: NULL with a reason until measured; none measured
     * writes only the reason (a later sweep tries again); then the measured
     * ones, NULL for the others with the reason, once (the first stays) */
    snprintf(sql, sizeof sql, "SELECT ceilings_reason FROM device WHERE id = %lld", a);
    CHECK_STR(q(db, sql).s, "not measured yet");
    snprintf(sql, sizeof sql, "SELECT ceilings_reason FROM device WHERE id = %lld", cid);
    CHECK(qnull(db, sql));
    CHECK(gl_store_device_has_ceilings(s, a) == 0);
    struct gl_ceilings ce;
    memset(&ce, 0, sizeof ce);
    snprintf(ce.why, sizeof ce.why, "ceilings not measured: no GPU");
    CHECK(gl_store_device_ceilings(s, a, &ce) == 0);
    CHECK(gl_store_device_has_ceilings(s, a) == 0);
    snprintf(sql, sizeof sql, "SELECT ceilings_reason || '|' || (l1_bw_gbs IS NULL) || "
                              "(ceilings_at IS NULL) FROM device WHERE id = %lld", a);
    CHECK_STR(q(db, sql).s, "not measured: ceilings not measured: no GPU|11");
    ce.l1_gbs = 32000.0;
    ce.smem_gbs = 32500.0;
    ce.l2_gbs = 7000.0;
    ce.h2d_gbs = 54.0;
    ce.clock_mhz = 1970.0;
    snprintf(ce.why, sizeof ce.why, "host link (zero-copy read) not measured: cudaHostAlloc");
    CHECK(gl_store_device_ceilings(s, a, &ce) == 0);
    CHECK(gl_store_device_has_ceilings(s, a) == 1);
    snprintf(sql, sizeof sql, "SELECT l1_bw_gbs || '|' || smem_bw_gbs || '|' || l2_bw_gbs || '|' || "
                              "(hostlink_bw_gbs IS NULL) || '|' || h2d_bw_gbs || '|' || "
                              "ceilings_clock_mhz || '|' || ceilings_reason FROM device WHERE id = %lld", a);
    CHECK_STR(q(db, sql).s, "32000.0|32500.0|7000.0|1|54.0|1970.0|host link (zero-copy read) not "
                            "measured: cudaHostAlloc");
    ce.l1_gbs = 1.0;   /* a later measurement does not replace the first */
    CHECK(gl_store_device_ceilings(s, a, &ce) == 0);
    snprintf(sql, sizeof sql, "SELECT CAST(l1_bw_gbs AS INTEGER) FROM device WHERE id = %lld", a);
    CHECK(qi(db, sql) == 32000);
    snprintf(sql, sizeof sql, "SELECT l1_bw_gbs || '/' || hostlink_bw_gbs IS NULL FROM devices "
                              "WHERE device_id = %lld", a);
    CHECK(qi(db, sql) == 1);

    struct gl_session_info si = { .tool_version = "0.1.0", .git_revision = "abc123", .host = "host1", .argv = "gpulab run x.conf", .config_path = "configs/x.conf", .config_text = "study = x\n", .config_hash = "deadbeef", .study = "x" };
    long long sid = gl_store_session_begin(s, &si);
    CHECK(sid > 0);
    snprintf(sql, sizeof sql,
             "SELECT tool_version || '|' || git_revision || '|' || host || '|' || argv || '|' || "
             "config_path || '|' || config_text || '|' || config_hash || '|' || study "
             "FROM session WHERE id = %lld", sid);
    CHECK_STR(q(db, sql).s, "0.1.0|abc123|host1|gpulab run x.conf|configs/x.conf|study = x\n|deadbeef|x");
    snprintf(sql, sizeof sql, "SELECT ended_at FROM session WHERE id = %lld", sid);
    CHECK(qnull(db, sql));
    snprintf(sql, sizeof sql, "SELECT started_at LIKE '20__-__-__T__:__:__.___Z' FROM session "
                              "WHERE id = %lld", sid);
    CHECK(qi(db, sql) == 1);
    CHECK(gl_store_session_end(s, sid) == 0);
    snprintf(sql, sizeof sql, "SELECT ended_at >= started_at FROM session WHERE id = %lld", sid);
    CHECK(qi(db, sql) == 1);
    CHECK(gl_store_session_end(s, 424242) == -1);
}

static void test_results(gl_store *s, sqlite3 *db)
{
    struct gl_device g = gpu_dev("GPU-1111"), c = cpu_dev();
    long long gpu = gl_store_device(s, &g), cpu = gl_store_device(s, &c);
    struct gl_session_info si = { .tool_version = "0.1.0", .git_revision = "abc", .host = "h", .argv = "a", .config_path = "p", .config_text = "t", .config_hash = "x", .study = "teststudy" };
    long long sid = gl_store_session_begin(s, &si);
    char sql[512], row[2048];

    /* A GPU ok run with a known sample set, launch info and metrics. */
    struct gl_params p;
    gl_params_init(&p);
    p.n = 2048;
    p.bs = 16;
    p.k = 1;
    gl_params_set_text(&p, GL_P_MEM, "device");
    reset_result(GL_OK);
    double xs[5] = { 5.0, 1.0, 4.0, 2.0, 3.0 };
    res.nsamples = 5;
    memcpy(res.samples_ms, xs, sizeof xs);
    res.max_rel_err = 1e-6;
    res.h2d_ms = 0.5;
    res.d2h_ms = 0.25;
    res.launches = 1;
    res.grid[0] = 128; res.grid[1] = 128; res.grid[2] = 1;
    res.block[0] = 16; res.block[1] = 16; res.block[2] = 1;
    res.regs_per_thread = 32;
    res.static_smem = 0;     /* a real 0: stored as 0 */
    res.dynamic_smem = 0;
    res.local_bytes = 0;
    res.blocks_per_sm = 8;
    res.theo_occupancy = 100.0;
    snprintf(res.limiter, sizeof res.limiter, "warps");
    res.limit_regs = 8; res.limit_smem = 32; res.limit_warps = 8; res.limit_blocks = 32;
    res.guide_flags = 0;     /* no guidance flag: 0, not NULL */
    res.passes = 2;
    add_metric("gpu__time_duration.sum", "nsecond", 2.5e6);
    add_metric("dram__bytes_read.sum", "byte", 3.0e7);
    add_metric("dram__bytes_write.sum", "byte", 1.2e7);
    add_metric("gpulab__dram__bytes_write_drain.sum", "byte", 4.0e6);
    add_metric("lts__t_sector_hit_rate.pct", "%", NAN);   /* not measured: no row */
    add_metric("l1tex__t_sector_hit_rate.pct", "%", 0.0); /* measured 0: a row */
    double flops = 2.0 * 2048 * 2048 * 2048, bytes = 12.0 * 2048 * 2048;
    long long r1 = store_run(s, sid, gpu, "matmul", "shared", &p, flops, bytes);
    CHECK(r1 > 0);

    snprintf(sql, sizeof sql, "SELECT samples, median_ms, mean_ms, min_ms, max_ms, stddev_ms, rel_se "
                              "FROM run WHERE id = %lld", r1);
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW);
    if (st) {
        double sd = sqrt(2.5);
        CHECK(sqlite3_column_int(st, 0) == 5);
        CHECK(near(sqlite3_column_double(st, 1), 3.0));
        CHECK(near(sqlite3_column_double(st, 2), 3.0));
        CHECK(near(sqlite3_column_double(st, 3), 1.0));
        CHECK(near(sqlite3_column_double(st, 4), 5.0));
        CHECK(near(sqlite3_column_double(st, 5), sd));
        CHECK(near(sqlite3_column_double(st, 6), sd / sqrt(5.0) / 3.0));
    }
    sqlite3_finalize(st);
    snprintf(sql, sizeof sql, "SELECT group_concat(idx || ':' || ms, ' ') FROM "
                              "(SELECT idx, ms FROM sample WHERE run_id = %lld ORDER BY idx)", r1);
    CHECK_STR(q(db, sql).s, "0:5.0 1:1.0 2:4.0 3:2.0 4:3.0");   /* order kept */
    snprintf(sql, sizeof sql, "SELECT warmup, min_samples, max_samples, max_noise, max_seconds, "
                              "study, section FROM run WHERE id = %lld", r1);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "2|10|1000|0.005|2.0|teststudy|sec");
    snprintf(sql, sizeof sql, "SELECT count(*) FROM metric WHERE run_id = %lld", r1);
    CHECK(qi(db, sql) == 5);
    snprintf(sql, sizeof sql, "SELECT unit FROM metric WHERE run_id = %lld AND name = "
                              "'gpu__time_duration.sum'", r1);
    CHECK_STR(q(db, sql).s, "nsecond");
    snprintf(sql, sizeof sql,
             "SELECT n, m, bs, k, mem, grid, static_smem, guide_flags, limiter, passes, "
             "threads_per_block, l2_hit_pct, l1_hit_pct, device_kind, status FROM results "
             "WHERE run_id = %lld", r1);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "2048|~|16|1|device|~|0|0|warps|2|256|~|0.0|gpu|ok");
    /* Derived numbers. */
    snprintf(sql, sizeof sql, "SELECT gflops, gbs, dram_write_total_bytes, measured_flop_per_byte, "
                              "dram_gbs, gpu_time_ns FROM results WHERE run_id = %lld", r1);
    CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW);
    if (st) {
        CHECK(near(sqlite3_column_double(st, 0), flops / 3.0 / 1e6));
        CHECK(near(sqlite3_column_double(st, 1), bytes / 3.0 / 1e6));
        CHECK(near(sqlite3_column_double(st, 2), 1.6e7));
        CHECK(near(sqlite3_column_double(st, 3), flops / 4.6e7));
        CHECK(near(sqlite3_column_double(st, 4), 4.6e7 / 2.5e6));
        CHECK(near(sqlite3_column_double(st, 5), 2.5e6));
    }
    sqlite3_finalize(st);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM metrics WHERE run_id = %lld AND study = "
                              "'teststudy' AND family = 'matmul' AND variant = 'shared'", r1);
    CHECK(qi(db, sql) == 5);

    /* A CPU run: nothing measured beyond time, nothing launched. */
    struct gl_params pc;
    gl_params_init(&pc);
    pc.n = 2048;
    pc.threads = 16;
    reset_result(GL_OK);
    res.nsamples = 1;
    res.samples_ms[0] = 100.0;
    snprintf(res.metrics_reason, sizeof res.metrics_reason, "CPU run");
    long long r2 = store_run(s, sid, cpu, "matmul", "omp_ikj", &pc, flops, -1);
    CHECK(r2 > r1);
    snprintf(sql, sizeof sql,
             "SELECT max_rel_err, h2d_ms, d2h_ms, min_bytes, gbs, stddev_ms, rel_se, launches, grid_x, "
             "block_z, threads_per_block, regs_per_thread, static_smem, theo_occupancy_pct, limiter, "
             "limit_warps, guide_flags, passes, gpu_time_ns, dram_read_bytes, dram_write_total_bytes, "
             "measured_flop_per_byte, dram_gbs, achieved_occupancy_pct, reason FROM results "
             "WHERE run_id = %lld", r2);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "~|~|~|~|~|~|~|~|~|~|~|~|~|~|~|~|~|~|~|~|~|~|~|~|~");
    snprintf(sql, sizeof sql, "SELECT samples || '|' || median_ms || '|' || metrics_reason || '|' || "
                              "device_kind || '|' || threads FROM results WHERE run_id = %lld", r2);
    CHECK_STR(q(db, sql).s, "1|100.0|CPU run|cpu|16");
    snprintf(sql, sizeof sql, "SELECT gflops FROM results WHERE run_id = %lld", r2);
    CHECK(near(q(db, sql).d, flops / 100.0 / 1e6));

    /* A library call: launches known, no kernel shape of its own. Read and write
     * counted without the drain: the totals that need the drain stay NULL. */
    struct gl_params pb;
    gl_params_init(&pb);
    pb.n = 2048;
    reset_result(GL_OK);
    res.nsamples = 1;
    res.samples_ms[0] = 0.5;
    res.launches = 1;
    add_metric("dram__bytes_read.sum", "byte", 3.0e7);
    add_metric("dram__bytes_write.sum", "byte", 1.2e7);
    add_metric("gpu__time_duration.sum", "nsecond", 5e5);
    long long r3 = store_run(s, sid, gpu, "matmul", "cublas", &pb, flops, bytes);
    snprintf(sql, sizeof sql, "SELECT launches, block_x, regs_per_thread, guide_flags, "
                              "dram_write_bytes, dram_write_drain_bytes, dram_write_total_bytes, "
                              "measured_flop_per_byte, dram_gbs FROM results WHERE run_id = %lld", r3);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "1|~|~|~|12000000.0|~|~|~|~");

    /* The exact shared-memory conflicts: measured (a 0 is a real 0, the reason
     * NULL), absent with the run's reason, absent for a run without counters
     * (its metrics_reason), and one direction only (no reason: one was measured). */
    struct gl_params ps = p;
    ps.bs = 8;
    reset_result(GL_OK);
    res.nsamples = 1;
    res.samples_ms[0] = 11.0;
    res.passes = 2;
    add_metric("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "", 1.71e7);
    add_metric(GL_METRIC_SMEM_EXCESS_LD, "", 0.0);
    add_metric(GL_METRIC_SMEM_EXCESS_ST, "", 0.0);
    long long rx = store_run(s, sid, gpu, "matmul", "shared", &ps, flops, bytes);
    snprintf(sql, sizeof sql, "SELECT smem_conflicts_st, smem_excess_ld, smem_excess_st, "
                              "smem_excess_reason FROM results WHERE run_id = %lld", rx);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "17100000.0|0.0|0.0|~");
    reset_result(GL_OK);
    res.nsamples = 1;
    res.samples_ms[0] = 1.0;
    res.passes = 2;
    add_metric("gpu__time_duration.sum", "nsecond", 1e6);
    snprintf(res.smem_reason, sizeof res.smem_reason, "not measured: the kernel uses no shared memory");
    ps.bs = 4;
    long long ry = store_run(s, sid, gpu, "matmul", "shared", &ps, flops, bytes);
    snprintf(sql, sizeof sql, "SELECT ifnull(smem_excess_ld, '~') || '|' || smem_excess_reason || '|' || "
                              "ifnull(metrics_reason, '~') FROM results WHERE run_id = %lld", ry);
    CHECK_STR(q(db, sql).s, "~|not measured: the kernel uses no shared memory|~");
    snprintf(sql, sizeof sql, "SELECT smem_excess_reason FROM run WHERE id = %lld", ry);
    CHECK_STR(q(db, sql).s, "not measured: the kernel uses no shared memory");
    reset_result(GL_OK);
    res.nsamples = 1;
    res.samples_ms[0] = 1.0;
    snprintf(res.metrics_reason, sizeof res.metrics_reason, "not requested (metrics = none)");
    ps.bs = 2;
    long long rz = store_run(s, sid, gpu, "matmul", "shared", &ps, flops, bytes);
    snprintf(sql, sizeof sql, "SELECT smem_excess_reason FROM results WHERE run_id = %lld", rz);
    CHECK_STR(q(db, sql).s, "not requested (metrics = none)");
    snprintf(sql, sizeof sql, "SELECT count(*) FROM run WHERE id = %lld AND smem_excess_reason IS NULL", rz);
    CHECK(qi(db, sql) == 1);
    reset_result(GL_OK);
    res.nsamples = 1;
    res.samples_ms[0] = 1.0;
    res.passes = 1;
    add_metric(GL_METRIC_SMEM_EXCESS_LD, "", 65011712.0);
    ps.bs = 1;
    long long rw = store_run(s, sid, gpu, "matmul", "shared", &ps, flops, bytes);
    snprintf(sql, sizeof sql, "SELECT smem_excess_ld, smem_excess_st, smem_excess_reason FROM results "
                              "WHERE run_id = %lld", rw);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "65011712.0|~|~");

    /* A wrong run: no performance number, the error kept. */
    reset_result(GL_WRONG);
    snprintf(res.reason, sizeof res.reason, "element 5: 1.5 vs 1.0");
    res.max_rel_err = 0.5;
    res.nsamples = 1;
    res.samples_ms[0] = 1.0;
    struct gl_params pw = p;
    pw.bs = 32;
    long long r4 = store_run(s, sid, gpu, "matmul", "shared", &pw, flops, bytes);
    snprintf(sql, sizeof sql, "SELECT status, reason, max_rel_err, gflops, gbs, median_ms "
                              "FROM results WHERE run_id = %lld", r4);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "wrong|element 5: 1.5 vs 1.0|0.5|~|~|1.0");

    /* Refused before anything is written. */
    reset_result(GL_OK);
    res.nsamples = 2;
    res.samples_ms[0] = 1.0;
    res.samples_ms[1] = NAN;
    long long runs = qi(db, "SELECT count(*) FROM run");
    expect_refusal = 1;
    CHECK(store_run(s, sid, gpu, "matmul", "shared", &p, -1, -1) == -1);
    reset_result(7);
    CHECK(store_run(s, sid, gpu, "matmul", "shared", &p, -1, -1) == -1);
    reset_result(GL_OK);
    add_metric("dram__bytes_read.sum", "byte", 1);
    add_metric("dram__bytes_read.sum", "byte", 2);   /* duplicate: the whole result rolls back */
    CHECK(store_run(s, sid, gpu, "matmul", "shared", &p, -1, -1) == -1);
    CHECK(strstr(gl_store_errmsg(s), "dram__bytes_read.sum") != NULL);
    reset_result(GL_OK);
    CHECK(store_run(s, 999999, gpu, "matmul", "shared", &p, -1, -1) == -1);   /* no such session */
    expect_refusal = 0;
    CHECK(qi(db, "SELECT count(*) FROM run") == runs);
    CHECK(qi(db, "SELECT count(*) FROM sample WHERE run_id NOT IN (SELECT id FROM run)") == 0);

}

/* ---- run claims (store_claim.c) ----------------------------------------------------------- */

/* A claim row of another holder, as another process would have written it. */
static void plant_claim(sqlite3 *db, const char *key, const char *host, const char *boot, long pid,
                        long long start)
{
    char sql[512];
    snprintf(sql, sizeof sql, "UPDATE claim SET host = '%s', boot_id = '%s', pid = %ld, "
                              "pid_start = %lld WHERE key = '%s'", host, boot, pid, start, key);
    raw_exec(db, sql);
}

/* A launch sequence's run: a launch row per launch, a launch_metric row per
 * launch and finite value, the launch_metrics view beside the whole's value;
 * a sequence without per-launch counters stores its launch_reason. */
static void test_launches(gl_store *s, sqlite3 *db)
{
    struct gl_device g = gpu_dev("GPU-launches");
    long long dev = gl_store_device(s, &g);
    struct gl_session_info si = { .tool_version = "0.1.0", .git_revision = "abc", .host = "h",
                                  .argv = "a", .config_path = "p", .config_text = "t",
                                  .config_hash = "x", .study = "seq" };
    long long sid = gl_store_session_begin(s, &si);
    struct gl_params p;
    gl_params_init(&p);
    p.n = 4096;
    reset_result(GL_OK);
    res.nsamples = 1;
    res.samples_ms[0] = 1.0;
    add_metric("dram__bytes_read.sum", "byte", 1000.0);
    add_metric("lts__t_sector_hit_rate.pct", "%", 50.0);
    res.launches = res.nlaunch = 3;
    res.nlaunch_items = 2;
    snprintf(res.launch_item[0].label, sizeof res.launch_item[0].label, "pass");
    snprintf(res.launch_item[0].kernel, sizeof res.launch_item[0].kernel, "reduce<256>");
    snprintf(res.launch_item[1].label, sizeof res.launch_item[1].label, "merge");
    snprintf(res.launch_item[1].kernel, sizeof res.launch_item[1].kernel, "merge");
    for (int i = 0; i < 3; i++) {
        res.launch[i].item = i < 2 ? 0 : 1;
        res.launch[i].iter = i < 2 ? i : 0;
        res.launch[i].grid[0] = 16 >> i;
        res.launch[i].grid[1] = res.launch[i].grid[2] = 1;
        res.launch[i].block[0] = 256;
        res.launch[i].block[1] = res.launch[i].block[2] = 1;
    }
    res.nlaunch_profiled = 3;
    for (int i = 0; i < 3; i++) {
        res.launch_values[i][0] = 300.0 + i;
        res.launch_values[i][1] = i == 1 ? NAN : 40.0;   /* not measured: no row */
    }
    long long id = store_run_in(s, "seq", sid, dev, "passes", "shared", &p, -1, -1);
    CHECK(id > 0);
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM launch WHERE run_id = %lld", id);
    CHECK(qi(db, sql) == 3);
    snprintf(sql, sizeof sql, "SELECT group_concat(name || ':' || kernel || ':' || iter || ':' || "
             "grid_x, ' ') FROM (SELECT * FROM launch WHERE run_id = %lld ORDER BY idx)", id);
    CHECK_STR(q(db, sql).s, "pass:reduce<256>:0:16 pass:reduce<256>:1:8 merge:merge:0:4");
    snprintf(sql, sizeof sql, "SELECT count(*) FROM launch_metric WHERE run_id = %lld", id);
    CHECK(qi(db, sql) == 5);
    snprintf(sql, sizeof sql, "SELECT CAST(sum(value) AS INTEGER) FROM launch_metrics WHERE run_id = %lld AND "
             "name = 'dram__bytes_read.sum' AND run_value = 1000", id);
    CHECK(qi(db, sql) == 903);
    snprintf(sql, sizeof sql, "SELECT launch_reason IS NULL FROM run WHERE id = %lld", id);
    CHECK(qi(db, sql) == 1);
    char cols[1024];
    columns_of(db, "SELECT * FROM launch_metrics", 0, cols, sizeof cols);
    CHECK_STR(cols, "run_id,study,family,variant,launch,launch_name,kernel,iter,grid_x,block_x,"
                    "name,value,unit,run_value");

    /* too many launches to measure one by one: launch rows, no launch_metric, the reason */
    res.nlaunch_profiled = 0;
    snprintf(res.launch_reason, sizeof res.launch_reason, "not measured launch by launch");
    p.n = 8192;
    id = store_run_in(s, "seq", sid, dev, "passes", "shared", &p, -1, -1);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM launch WHERE run_id = %lld", id);
    CHECK(id > 0 && qi(db, sql) == 3);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM launch_metric WHERE run_id = %lld", id);
    CHECK(qi(db, sql) == 0);
    snprintf(sql, sizeof sql, "SELECT launch_reason FROM run WHERE id = %lld", id);
    CHECK_STR(q(db, sql).s, "not measured launch by launch");

    /* out of range: refused, nothing stored */
    res.nlaunch_profiled = 4;
    expect_refusal = 1;
    p.n = 16384;
    CHECK(store_run_in(s, "seq", sid, dev, "passes", "shared", &p, -1, -1) < 0);
    expect_refusal = 0;
    CHECK(qi(db, "SELECT count(*) FROM run WHERE n = 16384") == 0);
    reset_result(GL_OK);
}

static void test_claims(gl_store *s, sqlite3 *db)
{
    struct gl_device g = gpu_dev("GPU-claims"), g2 = gpu_dev("GPU-claims-twin");
    long long dev = gl_store_device(s, &g), dev2 = gl_store_device(s, &g2);
    struct gl_session_info si = { .tool_version = "0.1.0", .git_revision = "abc", .host = "h", .argv = "a", .config_path = "p", .config_text = "t", .config_hash = "x", .study = "claims" };
    long long sid = gl_store_session_begin(s, &si);
    struct gl_params p;
    gl_params_init(&p);
    p.n = 96;
    p.bs = 16;
    struct gl_run_key k = { dev, "matmul", "global", &p, "claims", NULL, NULL };
    struct gl_run_key twin = { dev2, "matmul", "global", &p, "claims", NULL, NULL };
    char holder[256], key[65];
    struct gl_procid me;
    gl_procid_self(&me);

    /* Taken, once: ours again on a second claim; the row names this process. */
    CHECK(gl_store_claim(s, &k, 0, -1, holder, sizeof holder) == GL_CLAIM_TAKEN);
    CHECK(gl_store_claim(s, &k, 0, -1, holder, sizeof holder) == GL_CLAIM_TAKEN);
    CHECK(qi(db, "SELECT count(*) FROM claim") == 1);
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM claim WHERE pid = %ld AND pid_start = %lld "
                              "AND host = '%s'", me.pid, me.start, me.host);
    CHECK(qi(db, sql) == 1);
    CHECK(gl_store_claim_held(s, &k) == 0);   /* held, but by us */
    CHECK(store_claim_key(s, &k, key) == 0);
    char twin_key[65];
    CHECK(store_claim_key(s, &twin, twin_key) == 0 && strcmp(key, twin_key) == 0);   /* by model */

    /* Held by a live other process (a child, its real start time): busy. */
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    CHECK(child > 0);
    long long cstart = -1;
    for (int i = 0; i < 100 && cstart < 0; i++)
        cstart = gl_procid_start(child);
    plant_claim(db, key, me.host, me.boot, (long)child, cstart);
    holder[0] = '\0';
    CHECK(gl_store_claim(s, &twin, 0, -1, holder, sizeof holder) == GL_CLAIM_BUSY);
    char want[64];
    snprintf(want, sizeof want, "pid %ld on ", (long)child);
    if (!CHECK(strstr(holder, want) != NULL))
        printf("  holder: %s\n", holder);
    CHECK(gl_store_claim_held(s, &k) == 1);
    /* The child dies: its claim is taken over. */
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    CHECK(gl_store_claim_held(s, &k) == 0);
    CHECK(gl_store_claim(s, &k, 0, -1, holder, sizeof holder) == GL_CLAIM_TAKEN);
    CHECK(qi(db, sql) == 1);
    /* A pid that lives but started at another time (reused): taken over. */
    plant_claim(db, key, me.host, me.boot, 1, gl_procid_start(1) + 12345);
    CHECK(gl_store_claim(s, &k, 0, -1, holder, sizeof holder) == GL_CLAIM_TAKEN);
    /* Same host, another boot: rebooted since, taken over. */
    plant_claim(db, key, me.host, "another-boot", (long)me.pid, me.start);
    CHECK(gl_store_claim(s, &k, 0, -1, holder, sizeof holder) == GL_CLAIM_TAKEN);
    /* Another host: nothing can be checked from here, left alone. */
    plant_claim(db, key, "some-other-host", "b", 1, 1);
    CHECK(gl_store_claim(s, &k, 0, -1, holder, sizeof holder) == GL_CLAIM_BUSY);
    CHECK(strstr(holder, "some-other-host") != NULL);
    raw_exec(db, "DELETE FROM claim");

    /* Storing the result deletes the claim in its transaction; then the key is done
     * (unless force). */
    CHECK(gl_store_claim(s, &k, 0, -1, holder, sizeof holder) == GL_CLAIM_TAKEN);
    reset_result(GL_OK);
    res.nsamples = 1;
    res.samples_ms[0] = 1.0;
    CHECK(store_run_in(s, "claims", sid, dev, "matmul", "global", &p, -1, -1) > 0);
    CHECK(qi(db, "SELECT count(*) FROM claim") == 0);
    CHECK(gl_store_claim(s, &twin, 0, -1, holder, sizeof holder) == GL_CLAIM_DONE);
    CHECK(qi(db, "SELECT count(*) FROM claim") == 0);
    CHECK(gl_store_claim(s, &k, 1, -1, holder, sizeof holder) == GL_CLAIM_TAKEN);
    CHECK(gl_store_unclaim(s, &k) == 0);
    CHECK(qi(db, "SELECT count(*) FROM claim") == 0);

    /* A run of the key stored after `since` (another process ran it, even failed)
     * is done for this claimer, --force or not; one stored before is not. */
    p.n = 99;
    long long since = gl_store_last_run(s);
    CHECK(since > 0 && since == qi(db, "SELECT max(id) FROM run"));
    CHECK(gl_store_claim(s, &k, 1, since, holder, sizeof holder) == GL_CLAIM_TAKEN);
    CHECK(gl_store_unclaim(s, &k) == 0);
    reset_result(GL_FAILED);
    snprintf(res.reason, sizeof res.reason, "crashed");
    /* ... by this handle's own session: not another process's */
    CHECK(store_run_in(s, "claims", sid, dev, "matmul", "global", &p, -1, -1) > since);
    CHECK(gl_store_claim(s, &twin, 1, since, holder, sizeof holder) == GL_CLAIM_TAKEN);
    CHECK(gl_store_unclaim(s, &k) == 0);
    /* ... by a session of another process */
    raw_exec(db, "INSERT INTO session (study) VALUES ('other process')");
    snprintf(sql, sizeof sql, "UPDATE run SET session_id = %lld WHERE id = (SELECT max(id) FROM run)",
             qi(db, "SELECT max(id) FROM session"));
    raw_exec(db, sql);
    CHECK(gl_store_claim(s, &twin, 0, since, holder, sizeof holder) == GL_CLAIM_ELSEWHERE);
    CHECK(gl_store_claim(s, &k, 1, since, holder, sizeof holder) == GL_CLAIM_ELSEWHERE);
    CHECK(gl_store_claim(s, &k, 0, gl_store_last_run(s), holder, sizeof holder) == GL_CLAIM_TAKEN);
    CHECK(gl_store_unclaim(s, &k) == 0);

    /* Claims never stored are given back by unclaim_all (and by close). */
    p.n = 97;
    CHECK(gl_store_claim(s, &k, 0, -1, holder, sizeof holder) == GL_CLAIM_TAKEN);
    p.n = 98;
    CHECK(gl_store_claim(s, &k, 0, -1, holder, sizeof holder) == GL_CLAIM_TAKEN);
    CHECK(qi(db, "SELECT count(*) FROM claim") == 2);
    CHECK(gl_store_unclaim_all(s) == 0);
    CHECK(qi(db, "SELECT count(*) FROM claim") == 0);
}

static void test_has_ok(gl_store *s, sqlite3 *db)
{
    struct gl_device g = gpu_dev("GPU-keys"), g2 = gpu_dev("GPU-other"), g3 = gpu_dev("GPU-twin");
    snprintf(g2.name, sizeof g2.name, "Other GPU");
    long long dev = gl_store_device(s, &g), dev2 = gl_store_device(s, &g2);
    long long dev3 = gl_store_device(s, &g3);   /* the same model as dev, another UUID */
    struct gl_session_info si = { .tool_version = "0.1.0", .git_revision = "abc", .host = "h", .argv = "a", .config_path = "p", .config_text = "t", .config_hash = "x", .study = "keys" };
    long long sid = gl_store_session_begin(s, &si);
    (void)db;

    struct gl_params p;
    gl_params_init(&p);
    p.n = 64;
    p.bs = 16;
    gl_params_set_text(&p, GL_P_MEM, "device");
    struct gl_run_key k = { dev, "matmul", "global", &p, "teststudy", NULL, NULL };
    CHECK(gl_store_has_ok(s, &k) == 0);
    reset_result(GL_OK);
    res.nsamples = 1;
    res.samples_ms[0] = 1.0;
    CHECK(store_run(s, sid, dev, "matmul", "global", &p, -1, -1) > 0);
    CHECK(gl_store_has_ok(s, &k) == 1);
    CHECK(gl_store_has_status(s, &k, "ok") == 1);
    CHECK(gl_store_has_status(s, &k, "skipped") == 0);

    /* Every part of the key counts, NULL (unset) matching only NULL. */
    struct gl_params q1 = p;
    q1.seed = 42;                   /* set where the stored one is NULL */
    struct gl_run_key kq = { dev, "matmul", "global", &q1, "teststudy", NULL, NULL };
    CHECK(gl_store_has_ok(s, &kq) == 0);
    struct gl_params q2 = p;
    gl_params_set_text(&q2, GL_P_MEM, "");   /* unset where the stored one is set */
    kq.p = &q2;
    CHECK(gl_store_has_ok(s, &kq) == 0);
    struct gl_params q3 = p;
    q3.n = 128;
    kq.p = &q3;
    CHECK(gl_store_has_ok(s, &kq) == 0);
    struct gl_params q4 = p;
    gl_params_set_text(&q4, GL_P_MEM, "managed");
    kq.p = &q4;
    CHECK(gl_store_has_ok(s, &kq) == 0);
    struct gl_params q5 = p;
    q5.k = 0;                        /* 0 is a value, not unset */
    kq.p = &q5;
    CHECK(gl_store_has_ok(s, &kq) == 0);
    kq.p = &p;
    kq.variant = "shared";
    CHECK(gl_store_has_ok(s, &kq) == 0);
    kq.variant = "global";
    kq.family = "stencil";
    CHECK(gl_store_has_ok(s, &kq) == 0);
    kq.family = "matmul";
    kq.device_id = dev2;
    CHECK(gl_store_has_ok(s, &kq) == 0);
    kq.device_id = dev3;            /* resumes on another GPU of the same model */
    CHECK(dev3 != dev && gl_store_has_ok(s, &kq) == 1);
    g3.sm_count = 114;              /* same name, fewer SMs: another model */
    snprintf(g3.ident, sizeof g3.ident, "GPU-cut");
    kq.device_id = gl_store_device(s, &g3);
    CHECK(kq.device_id > 0 && gl_store_has_ok(s, &kq) == 0);
    kq.device_id = dev;
    kq.study = "otherstudy";        /* a point two studies share runs for each */
    CHECK(gl_store_has_ok(s, &kq) == 0);
    kq.study = NULL;
    CHECK(gl_store_has_ok(s, &kq) == 0);
    kq.study = "teststudy";
    CHECK(gl_store_has_ok(s, &kq) == 1);

    /* Only status ok counts as done. */
    for (int st = GL_WRONG; st <= GL_FAILED; st++) {
        struct gl_params pf = p;
        pf.n = 1000 + st;
        struct gl_run_key kf = { dev, "matmul", "global", &pf, "teststudy", NULL, NULL };
        reset_result(st);
        snprintf(res.reason, sizeof res.reason, "why %d", st);
        CHECK(store_run(s, sid, dev, "matmul", "global", &pf, -1, -1) > 0);
        CHECK(gl_store_has_ok(s, &kf) == 0);
        CHECK(gl_store_has_status(s, &kf, st == GL_WRONG ? "wrong" : st == GL_SKIPPED ? "skipped"
                                                                                    : "failed") == 1);
    }
    /* An incomplete key is an error, not "not found". */
    struct gl_run_key kb = { dev, NULL, "global", &p, "teststudy", NULL, NULL };
    CHECK(gl_store_has_ok(s, &kb) == -1);

    /* An ok run whose counters another run of its batch took is not done (an
     * older gpulab stored such rows), nor is one whose batch's replay failed
     * in another run; one whose counters are missing for another reason is. */
    const char *why_not[3] = { GL_REASON_BATCH_LOST,
                               "profiled replay failed: cudaErrorIllegalAddress" GL_REASON_OTHER_RUN,
                               "counters unavailable: permission" };
    for (int i = 0; i < 3; i++) {
        struct gl_params pl = p;
        pl.n = 2000 + i;
        struct gl_run_key kl = { dev, "matmul", "global", &pl, "teststudy", NULL, NULL };
        reset_result(GL_OK);
        res.nsamples = 1;
        res.samples_ms[0] = 1.0;
        snprintf(res.metrics_reason, sizeof res.metrics_reason, "%s", why_not[i]);
        CHECK(store_run(s, sid, dev, "matmul", "global", &pl, -1, -1) > 0);
        CHECK(gl_store_has_ok(s, &kl) == (i == 2));
        CHECK(gl_store_has_status(s, &kl, "skipped") == 0);
        if (i < 2) {   /* its next run, with counters, is done */
            res.metrics_reason[0] = '\0';
            res.passes = 1;
            add_metric("dram__bytes_read.sum", "byte", 1.0);
            CHECK(store_run(s, sid, dev, "matmul", "global", &pl, -1, -1) > 0);
            CHECK(gl_store_has_ok(s, &kl) == 1);
        }
    }

    /* The scheduler's estimate: the latest ok run's median times the kernel's
     * executions, plus its copies; -1 without one. */
    struct gl_params pc = p;
    pc.n = 3000;
    struct gl_run_key kc = { dev3, "matmul", "global", &pc, "teststudy", NULL, NULL };
    CHECK(gl_store_run_cost(s, &kc) == -1);
    reset_result(GL_OK);
    res.nsamples = 3;
    res.samples_ms[0] = res.samples_ms[1] = res.samples_ms[2] = 2.0;
    res.passes = 2;
    res.h2d_ms = 1.5;
    CHECK(store_run(s, sid, dev, "matmul", "global", &pc, -1, -1) > 0);
    /* (1 verification + 2 warm-up + 3 samples + 2 passes) x 2 ms + 1.5 ms */
    CHECK(near(gl_store_run_cost(s, &kc), 17.5));
    reset_result(GL_FAILED);
    snprintf(res.reason, sizeof res.reason, "crashed");
    CHECK(store_run(s, sid, dev, "matmul", "global", &pc, -1, -1) > 0);
    CHECK(near(gl_store_run_cost(s, &kc), 17.5));   /* a failed run says nothing */
    kc.device_id = dev2;
    CHECK(gl_store_run_cost(s, &kc) == -1);          /* another model */
}

static void test_latest(gl_store *s, sqlite3 *db)
{
    struct gl_device g = gpu_dev("GPU-latest");
    long long dev = gl_store_device(s, &g);
    struct gl_session_info si = { .tool_version = "0.1.0", .git_revision = "abc", .host = "h", .argv = "a", .config_path = "p", .config_text = "t", .config_hash = "x", .study = "latest" };
    long long sid = gl_store_session_begin(s, &si);
    struct gl_params p;
    gl_params_init(&p);
    p.n = 256;   /* everything else NULL: NULLs must group together */
    reset_result(GL_OK);
    res.nsamples = 1;
    res.samples_ms[0] = 2.0;
    long long a = store_run(s, sid, dev, "vecadd", "global", &p, -1, -1);
    long long b = store_run(s, sid, dev, "vecadd", "global", &p, -1, -1);
    reset_result(GL_FAILED);
    long long c = store_run(s, sid, dev, "vecadd", "global", &p, -1, -1);
    struct gl_params p2 = p;
    p2.bs = 128;
    reset_result(GL_OK);
    res.nsamples = 1;
    res.samples_ms[0] = 2.0;
    long long d = store_run(s, sid, dev, "vecadd", "global", &p2, -1, -1);
    char sql[256], row[256];
    snprintf(sql, sizeof sql, "SELECT group_concat(is_latest, ',') FROM (SELECT is_latest FROM results "
                              "WHERE run_id IN (%lld, %lld, %lld, %lld) ORDER BY run_id)", a, b, c, d);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "0,0,1,1");
    /* The same point in another study is latest there and leaves the first alone. */
    long long e = store_run_in(s, "otherstudy", sid, dev, "vecadd", "global", &p2, -1, -1);
    snprintf(sql, sizeof sql, "SELECT group_concat(is_latest, ',') FROM (SELECT is_latest FROM results "
                              "WHERE run_id IN (%lld, %lld) ORDER BY run_id)", d, e);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "1,1");
    /* A later run on another GPU of the same model supersedes it. */
    struct gl_device twin = gpu_dev("GPU-latest-twin");
    long long f = store_run_in(s, "otherstudy", sid, gl_store_device(s, &twin), "vecadd", "global",
                               &p2, -1, -1);
    snprintf(sql, sizeof sql, "SELECT group_concat(is_latest, ',') FROM (SELECT is_latest FROM results "
                              "WHERE run_id IN (%lld, %lld) ORDER BY run_id)", e, f);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "0,1");
    /* results.device_id is the model, unit_id the very device */
    snprintf(sql, sizeof sql, "SELECT (SELECT device_id FROM results WHERE run_id = %lld) = "
                              "(SELECT device_id FROM results WHERE run_id = %lld)", e, f);
    CHECK(qi(db, sql) == 1);
    snprintf(sql, sizeof sql, "SELECT (SELECT unit_id FROM results WHERE run_id = %lld) <> "
                              "(SELECT unit_id FROM results WHERE run_id = %lld)", e, f);
    CHECK(qi(db, sql) == 1);
    snprintf(sql, sizeof sql, "SELECT unit_id = %lld FROM results WHERE run_id = %lld", dev, e);
    CHECK(qi(db, sql) == 1);
    /* One latest row per key over the whole file. */
    CHECK(qi(db, "SELECT count(*) FROM (SELECT r.study, d.kind, d.name, d.cores, d.sm_count, "
                 "d.cc_major, d.cc_minor, r.family, r.variant, r.n, r.m, r.p, r.bs, r.k, r.r, r.g, "
                 "r.threads, r.seed, r.mem, r.grid, r.cache, sum(v.is_latest) AS l FROM run r "
                 "JOIN device d ON d.id = r.device_id JOIN results v ON v.run_id = r.id "
                 "GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21 "
                 "HAVING l <> 1)") == 0);
    /* The view lists runs in run order. */
    CHECK(qi(db, "SELECT count(*) FROM (SELECT run_id, lag(run_id) OVER () AS prev FROM results) "
                 "WHERE prev >= run_id") == 0);

    /* ON DELETE CASCADE removes samples and metrics with their run. */
    char err[256];
    snprintf(sql, sizeof sql, "DELETE FROM run WHERE id = %lld", a);
    CHECK(gl_store_query(s, sql, GL_FMT_CSV, stdout, err, sizeof err) == 0);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM sample WHERE run_id = %lld", a);
    CHECK(qi(db, sql) == 0);
}

/* ---- users' kernels: named parameters and the kernel's hash ---------------------------- */

/* Store a run of a user's kernel (ms: its one sample); uparams as the key gives it. */
static long long store_user(gl_store *s, const char *study, long long session, long long dev,
                            const char *variant, const struct gl_params *p, const char *uparams,
                            const char *hash, double ms)
{
    struct gl_run_key k = { dev, "transpose", variant, p, study, uparams, hash };
    static const struct gl_run_scalar sc[2] = { { 3, "alpha", "float", "1/sqrt(N)", 1, 0,
                                                  0.03125 },
                                                { 4, NULL, "int", "N", 0, 1024, 0 } };
    struct gl_run_info ri = { session, study, "transpose", &timing, -1, 8.0 * 1024 * 1024, 0,
                              "nvrtc", strcmp(variant, "tiled") == 0 ? "-I inc" : "", 2, sc,
                              "sm_90", "plain" };
    reset_result(GL_OK);
    res.nsamples = 1;
    res.samples_ms[0] = ms;
    long long id = gl_store_result(s, &k, &ri, &res);
    if (id < 0 && !expect_refusal)
        printf("gl_store_result: %s\n", gl_store_errmsg(s));
    return id;
}

static int has_ok_user(gl_store *s, long long dev, const char *study, const char *variant,
                       const struct gl_params *p, const char *uparams, const char *hash)
{
    struct gl_run_key k = { dev, "transpose", variant, p, study, uparams, hash };
    return gl_store_has_ok(s, &k);
}

static void test_named(void)
{
    char path[128], err[512], sql[512], row[2048], cols[4096];
    path_of(path, sizeof path, "named.db");
    gl_store *s = NULL;
    if (!CHECK(gl_store_open(path, &s, err, sizeof err) == 0)) {
        printf("open: %s\n", err);
        return;
    }
    sqlite3 *db = raw_open(path);
    struct gl_device g = gpu_dev("GPU-named");
    long long dev = gl_store_device(s, &g);
    struct gl_session_info si = { .tool_version = "0.1.0", .git_revision = "abc", .host = "h", .argv = "a", .config_path = "p", .config_text = "t", .config_hash = "x", .study = "transpose" };
    long long sid = gl_store_session_begin(s, &si);
    CHECK(dev > 0 && sid > 0);

    struct gl_params p16, p32, pb;
    gl_params_init(&p16);
    p16.n = 1024;
    CHECK(gl_params_user_set(&p16, "TILE", 16) == 0);
    CHECK(gl_params_user_set(&p16, "BLOCK_ROWS", 8) == 0);
    p32 = p16;
    CHECK(gl_params_user_set(&p32, "TILE", 32) == 0);
    gl_params_init(&pb);   /* a built-in variant's point: no named parameters */
    pb.n = 1024;

    /* Stored: uparams as gl_params_user_format writes them, the hash, one
     * run_param row per name. The key's uparams may be left NULL (made from p). */
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &p16, NULL, "hashA") == 0);
    long long a = store_user(s, "transpose", sid, dev, "tiled", &p16, NULL, "hashA", 4.0);
    long long b = store_user(s, "transpose", sid, dev, "tiled", &p32, "BLOCK_ROWS=8 TILE=32",
                             "hashA", 2.0);
    CHECK(a > 0 && b > a);
    snprintf(sql, sizeof sql, "SELECT uparams, code_hash FROM run WHERE id IN (%lld, %lld) "
                              "ORDER BY id", a, b);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "BLOCK_ROWS=8 TILE=16|hashA;BLOCK_ROWS=8 TILE=32|hashA");
    /* how it was compiled: in the run row and the results view */
    snprintf(sql, sizeof sql, "SELECT compiler, compile_options FROM results WHERE run_id IN "
                              "(%lld, %lld) ORDER BY run_id", a, b);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "nvrtc|-I inc;nvrtc|-I inc");
    snprintf(sql, sizeof sql, "SELECT run_id - %lld, name, value FROM run_param ORDER BY 1, 2", a);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "0|BLOCK_ROWS|8;0|TILE|16;1|BLOCK_ROWS|8;1|TILE|32");
    /* its scalar arguments: one row each, the value in its type (REAL or INTEGER) */
    snprintf(sql, sizeof sql, "SELECT idx, coalesce(name, '-'), type, expr, value, typeof(value) "
                              "FROM scalars WHERE run_id = %lld ORDER BY idx", a);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "3|alpha|float|1/sqrt(N)|0.03125|real;4|-|int|N|1024|integer");
    /* a type parameter: its type's name in uparams, run_param.text and the views */
    struct gl_params pt = p16;
    CHECK(gl_params_user_set(&pt, "T", GL_KT_PARAM_BASE + GL_KT_DOUBLE) == 0);
    long long tid = store_user(s, "transpose", sid, dev, "tiled", &pt, NULL, "hashA", 2.5);
    CHECK(tid > b);
    snprintf(sql, sizeof sql, "SELECT r.uparams, p.value, p.text, v.value FROM run r JOIN "
                              "run_param p ON p.run_id = r.id AND p.name = 'T' JOIN params v ON "
                              "v.run_id = r.id AND v.name = 'T' WHERE r.id = %lld", tid);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "BLOCK_ROWS=8 T=double TILE=16|1|double|double");
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &pt, "BLOCK_ROWS=8 T=double TILE=16",
                      "hashA") == 1);
    snprintf(sql, sizeof sql, "DELETE FROM run_scalar WHERE run_id = %lld; DELETE FROM "
                              "run_param WHERE run_id = %lld; DELETE FROM sample WHERE run_id = "
                              "%lld; DELETE FROM run WHERE id = %lld", tid, tid, tid, tid);
    raw_exec(db, sql);

    /* The resume key: named parameters and hash count, NULL matching only NULL. */
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &p16, NULL, "hashA") == 1);
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &p16, "", "hashA") == 1);
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &p16, "BLOCK_ROWS=8 TILE=16", "hashA") == 1);
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &p32, NULL, "hashA") == 1);
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &p16, NULL, "hashB") == 0);   /* edited */
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &p16, NULL, NULL) == 0);
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &pb, NULL, "hashA") == 0);
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &pb, NULL, NULL) == 0);
    struct gl_params p16x = p16;
    CHECK(gl_params_user_set(&p16x, "PAD", 0) == 0);   /* one name more */
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &p16x, NULL, "hashA") == 0);
    /* A built-in run of the same point is not the user's, nor the other way round. */
    long long c = store_user(s, "transpose", sid, dev, "tiled", &pb, NULL, NULL, 3.0);
    CHECK(c > b);
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &pb, NULL, NULL) == 1);
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &pb, NULL, "hashA") == 0);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM run_param WHERE run_id = %lld", c);
    CHECK(qi(db, sql) == 0);
    CHECK(qnull(db, "SELECT uparams FROM run ORDER BY id DESC LIMIT 1"));
    /* A key whose uparams is not its parameters' text is refused, and nothing stored. */
    expect_refusal = 1;
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &p16, "TILE=16", "hashA") == -1);
    CHECK(strstr(gl_store_errmsg(s), "uparams") != NULL);
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &pb, "TILE=16", NULL) == -1);
    long long nruns = qi(db, "SELECT count(*) FROM run");
    CHECK(store_user(s, "transpose", sid, dev, "tiled", &p16, "TILE=16", "hashA", 1.0) == -1);
    /* A run_param row that cannot be written takes its run with it (one transaction). */
    struct gl_params pd = pb;
    pd.nuser = 2;
    snprintf(pd.user[0].name, sizeof pd.user[0].name, "X");
    snprintf(pd.user[1].name, sizeof pd.user[1].name, "X");
    CHECK(store_user(s, "transpose", sid, dev, "tiled", &pd, NULL, "hashA", 1.0) == -1);
    CHECK(strstr(gl_store_errmsg(s), "named parameter") != NULL);
    pd.nuser = GL_MAX_UPARAMS + 1;
    CHECK(store_user(s, "transpose", sid, dev, "tiled", &pd, NULL, "hashA", 1.0) == -1);
    expect_refusal = 0;
    CHECK(qi(db, "SELECT count(*) FROM run") == nruns);
    CHECK(qi(db, "SELECT count(*) FROM run_param") == 4);

    /* More runs: another section of the study with a name of its own, and two
     * studies whose names sanitize alike, one with names that collide. */
    struct gl_params pp = p16;
    CHECK(gl_params_user_set(&pp, "PAD", 1) == 0);
    long long d = store_user(s, "transpose", sid, dev, "padded", &pp, NULL, "hashP", 5.0);
    struct gl_params po;
    gl_params_init(&po);
    CHECK(gl_params_user_set(&po, "TILE", 4) == 0);
    CHECK(gl_params_user_set(&po, "tile", 5) == 0);
    CHECK(gl_params_user_set(&po, "variant", 6) == 0);
    long long e = store_user(s, "other study", sid, dev, "tiled", &po, NULL, "hashO", 1.0);
    struct gl_params pq;
    gl_params_init(&pq);
    CHECK(gl_params_user_set(&pq, "W", 7) == 0);
    long long f = store_user(s, "other-study", sid, dev, "tiled", &pq, NULL, "hashQ", 1.0);
    long long h = store_user(s, "", sid, dev, "tiled", &pq, NULL, "hashQ", 1.0);
    CHECK(d > 0 && e > d && f > e && h > f);
    /* a kernel section without `options` stores '' (NULL is a built-in row's) */
    snprintf(sql, sizeof sql, "SELECT compiler, quote(compile_options) FROM run WHERE id = %lld", d);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "nvrtc|''");

    /* Ending the session makes the results_<study> views. */
    CHECK(qi(db, "SELECT count(*) FROM sqlite_master WHERE name = 'results_transpose'") == 0);
    CHECK(gl_store_session_end(s, sid) == 0);
    rows_of(db, "SELECT name FROM sqlite_master WHERE type = 'view' AND name LIKE 'results%' "
                "ORDER BY name", row, sizeof row);
    CHECK_STR(row, "results;results_other_study;results_other_study_2;results_transpose");

    /* params: the long form with run context. */
    snprintf(sql, sizeof sql, "SELECT run_id - %lld, study, family, variant, name, value FROM params "
                              "WHERE run_id IN (%lld, %lld) ORDER BY 1, 5", a, a, d);
    rows_of(db, sql, row, sizeof row);
    snprintf(sql, sizeof sql, "0|transpose|transpose|tiled|BLOCK_ROWS|8;0|transpose|transpose|tiled|"
                              "TILE|16;%lld|transpose|transpose|padded|BLOCK_ROWS|8;%lld|transpose|"
                              "transpose|padded|PAD|1;%lld|transpose|transpose|padded|TILE|16",
             d - a, d - a, d - a);
    CHECK_STR(row, sql);

    /* results_transpose: every results column, then one per name, in name order;
     * every run of the study (the built-in one with NULLs). */
    columns_of(db, "SELECT * FROM results_transpose", 0, cols, sizeof cols);
    snprintf(row, sizeof row, "%s,BLOCK_ROWS,PAD,TILE", results_columns);
    CHECK_STR(cols, row);
    rows_of(db, "SELECT variant, TILE, median_ms FROM results_transpose WHERE TILE = 32", row,
            sizeof row);
    CHECK_STR(row, "tiled|32|2.0");
    snprintf(sql, sizeof sql, "SELECT group_concat((run_id - %lld) || ':' || ifnull(TILE, '~') || ':' "
                              "|| ifnull(PAD, '~') || ':' || is_latest, ',') FROM results_transpose",
             a);
    rows_of(db, sql, row, sizeof row);
    snprintf(sql, sizeof sql, "0:16:~:1,1:32:~:1,2:~:~:1,%lld:16:1:1", d - a);
    if (!CHECK_STR(row, sql))
        printf("  got %s\n", row);
    CHECK(qi(db, "SELECT count(*) FROM results_transpose WHERE gbs > 0") == 4);
    CHECK(qi(db, "SELECT count(*) FROM results_transpose") ==
          qi(db, "SELECT count(*) FROM results WHERE study = 'transpose'"));
    /* Names that collide: "TILE" first, then "tile" and "variant" (results has
     * a variant column) as uparam_*; "other-study" comes second in name order. */
    columns_of(db, "SELECT * FROM results_other_study", 0, cols, sizeof cols);
    snprintf(row, sizeof row, "%s,TILE,uparam_tile,uparam_variant", results_columns);
    CHECK_STR(cols, row);
    snprintf(sql, sizeof sql, "SELECT run_id = %lld, variant, TILE, uparam_tile FROM "
                              "results_other_study WHERE uparam_variant = 6", e);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "1|tiled|4|5");
    snprintf(sql, sizeof sql, "SELECT run_id = %lld, study, W FROM results_other_study_2", f);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "1|other-study|7");

    /* An edited kernel's run (new hash) of a point is its latest. */
    long long a2 = store_user(s, "transpose", sid, dev, "tiled", &p16, NULL, "hashB", 3.5);
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &p16, NULL, "hashB") == 1);
    CHECK(has_ok_user(s, dev, "transpose", "tiled", &p16, NULL, "hashA") == 1);
    snprintf(sql, sizeof sql, "SELECT group_concat(is_latest, ',') FROM (SELECT is_latest FROM "
                              "results WHERE run_id IN (%lld, %lld, %lld) ORDER BY run_id)", a, b, a2);
    rows_of(db, sql, row, sizeof row);
    CHECK_STR(row, "0,1,1");

    /* Opening for writing remakes them too: a new study gets its view, a stale
     * results_* view goes, and so does the view of a study whose runs are gone. */
    struct gl_params pl;
    gl_params_init(&pl);
    CHECK(gl_params_user_set(&pl, "UNROLL", 4) == 0);
    CHECK(store_user(s, "late", sid, dev, "tiled", &pl, NULL, "hashL", 1.0) > 0);
    snprintf(sql, sizeof sql, "DELETE FROM run WHERE id = %lld", f);
    CHECK(gl_store_query(s, sql, GL_FMT_CSV, stdout, err, sizeof err) == 0);
    CHECK(qi(db, "SELECT count(*) FROM run_param WHERE name = 'W' AND run_id <> 0") == 1);
    raw_exec(db, "CREATE VIEW results_gone AS SELECT 1 AS x");
    gl_store_close(s);
    s = NULL;
    CHECK(gl_store_open(path, &s, err, sizeof err) == 0);
    rows_of(db, "SELECT name FROM sqlite_master WHERE type = 'view' AND name LIKE 'results%' "
                "ORDER BY name", row, sizeof row);
    CHECK_STR(row, "results;results_late;results_other_study;results_transpose");
    CHECK(qi(db, "SELECT UNROLL FROM results_late") == 4);
    sqlite3_close(db);
    gl_store_close(s);
}

/* ---- query formats ------------------------------------------------------------------------- */

static const char *fixture_sql =
    "SELECT 'plain' AS name, 1 AS n, 2.5 AS v_ms "
    "UNION ALL SELECT 'a|b,\"c\"', NULL, -0.125 "
    "UNION ALL SELECT 'x_{1}^~\\ 50% #&$', 30, NULL "
    "UNION ALL SELECT 'tab' || char(9) || 'nl' || char(10) || 'x', 1000000, 0.1";

/* Output of gl_store_query as a string (caller frees); NULL if it failed. */
static char *run_query(gl_store *s, const char *sql, enum gl_format fmt, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int rc = gl_store_query(s, sql, fmt, f, err, errlen);
    fclose(f);
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void check_format(gl_store *s, enum gl_format fmt, const char *name, const char *want)
{
    char err[256] = "";
    char *got = run_query(s, fixture_sql, fmt, err, sizeof err);
    if (!CHECK(got != NULL && strcmp(got, want) == 0))
        printf("  format %s (%s):\n--- got\n%s--- want\n%s---\n", name, err, got ? got : "(null)", want);
    free(got);
}

static void test_formats(gl_store *s)
{
    check_format(s, GL_FMT_TABLE, "table",
                 "name                    n    v_ms\n"
                 "----------------  -------  ------\n"
                 "plain                   1     2.5\n"
                 "a|b,\"c\"                    -0.125\n"
                 "x_{1}^~\\ 50% #&$       30\n"
                 "tab\\tnl\\nx        1000000     0.1\n");
    check_format(s, GL_FMT_CSV, "csv",
                 "name,n,v_ms\n"
                 "plain,1,2.5\n"
                 "\"a|b,\"\"c\"\"\",,-0.125\n"
                 "x_{1}^~\\ 50% #&$,30,\n"
                 "\"tab\tnl\nx\",1000000,0.1\n");
    check_format(s, GL_FMT_TSV, "tsv",
                 "name\tn\tv_ms\n"
                 "plain\t1\t2.5\n"
                 "a|b,\"c\"\t\t-0.125\n"
                 "x_{1}^~\\\\ 50% #&$\t30\t\n"
                 "tab\\tnl\\nx\t1000000\t0.1\n");
    check_format(s, GL_FMT_MD, "md",
                 "| name              |       n |   v_ms |\n"
                 "| ----------------- | ------: | -----: |\n"
                 "| plain             |       1 |    2.5 |\n"
                 "| a\\|b,\"c\"          |         | -0.125 |\n"
                 "| x_{1}^~\\\\ 50% #&$ |      30 |        |\n"
                 "| tab\tnl<br>x       | 1000000 |    0.1 |\n");
    check_format(s, GL_FMT_LATEX, "latex",
                 "\\begin{tabular}{lrr}\n"
                 "\\hline\n"
                 "name & n & v\\_ms \\\\\n"
                 "\\hline\n"
                 "plain & 1 & 2.5 \\\\\n"
                 "a|b,\"c\" &  & -0.125 \\\\\n"
                 "x\\_\\{1\\}\\textasciicircum{}\\textasciitilde{}\\textbackslash{} 50\\% \\#\\&\\$ & 30 &  \\\\\n"
                 "tab nl x & 1000000 & 0.1 \\\\\n"
                 "\\hline\n"
                 "\\end{tabular}\n");
    check_format(s, GL_FMT_JSON, "json",
                 "[\n"
                 "  {\"name\": \"plain\", \"n\": 1, \"v_ms\": 2.5},\n"
                 "  {\"name\": \"a|b,\\\"c\\\"\", \"n\": null, \"v_ms\": -0.125},\n"
                 "  {\"name\": \"x_{1}^~\\\\ 50% #&$\", \"n\": 30, \"v_ms\": null},\n"
                 "  {\"name\": \"tab\\tnl\\nx\", \"n\": 1000000, \"v_ms\": 0.1}\n"
                 "]\n");

    char err[256];
    char *out;
    /* No rows: the header still comes (csv), an empty array (json). */
    out = run_query(s, "SELECT 1 AS a, 'x' AS b WHERE 0", GL_FMT_CSV, err, sizeof err);
    CHECK(out && strcmp(out, "a,b\n") == 0);
    free(out);
    out = run_query(s, "SELECT 1 AS a WHERE 0", GL_FMT_JSON, err, sizeof err);
    CHECK(out && strcmp(out, "[]\n") == 0);
    free(out);
    /* An empty string is not NULL in csv; a control character in json. */
    out = run_query(s, "SELECT '' AS e, NULL AS z", GL_FMT_CSV, err, sizeof err);
    CHECK(out && strcmp(out, "e,z\n\"\",\n") == 0);
    free(out);
    out = run_query(s, "SELECT char(1) || '\xc3\xa9' AS c", GL_FMT_JSON, err, sizeof err);
    CHECK(out && strcmp(out, "[\n  {\"c\": \"\\u0001\xc3\xa9\"}\n]\n") == 0);
    free(out);
    /* Several statements: the last one's rows; comments and blanks after it are fine. */
    out = run_query(s, "CREATE TEMP TABLE q1 (x INTEGER); INSERT INTO q1 VALUES (1), (2);\n"
                       "SELECT x * 10 AS y FROM q1 ORDER BY x; -- the answer\n  ",
                    GL_FMT_CSV, err, sizeof err);
    CHECK(out && strcmp(out, "y\n10\n20\n") == 0);
    free(out);
    /* The last statement returns no columns: nothing printed. */
    out = run_query(s, "INSERT INTO q1 VALUES (3)", GL_FMT_TABLE, err, sizeof err);
    CHECK(out && strcmp(out, "") == 0);
    free(out);
    /* Errors: bad SQL, a failing later statement, an empty query. */
    err[0] = '\0';
    CHECK(run_query(s, "SELECT nosuchcolumn FROM results", GL_FMT_CSV, err, sizeof err) == NULL);
    CHECK(strstr(err, "nosuchcolumn") != NULL);
    err[0] = '\0';
    CHECK(run_query(s, "SELECT 1; SELECT * FROM nosuchtable", GL_FMT_CSV, err, sizeof err) == NULL);
    CHECK(strstr(err, "nosuchtable") != NULL);
    CHECK(run_query(s, "  -- nothing\n ; ", GL_FMT_CSV, err, sizeof err) == NULL);
    /* A runtime error while stepping the last statement prints nothing. */
    CHECK(run_query(s, "SELECT abs(-9223372036854775807 - 1)", GL_FMT_JSON, err, sizeof err) == NULL);

    /* Reals: shortest text that reads back exactly. */
    char buf[40];
    gl_format_real(0.1, buf, sizeof buf);
    CHECK_STR(buf, "0.1");
    gl_format_real(1.0 / 3.0, buf, sizeof buf);
    CHECK(strtod(buf, NULL) == 1.0 / 3.0 && strlen(buf) <= 19);
    gl_format_real(1e20, buf, sizeof buf);
    CHECK_STR(buf, "1e+20");
    out = run_query(s, "SELECT 1e999 AS inf", GL_FMT_JSON, err, sizeof err);
    CHECK(out && strcmp(out, "[\n  {\"inf\": null}\n]\n") == 0);
    free(out);
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("could not remove %s\n", dir);
}

/* ---- read-only opens --------------------------------------------------------------------- */

/* The bytes of a file, malloc'd (*len set); NULL if it cannot be read. */
static char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)*len + 1)) && fread(buf, 1, (size_t)*len, f) != (size_t)*len) {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    return buf;
}

static void test_readonly(void)
{
    char path[128], err[512];
    gl_store *s = NULL;

    /* Refused: an empty path, a missing file (not created). */
    err[0] = '\0';
    CHECK(gl_store_open_readonly("", &s, err, sizeof err) == -1 && s == NULL);
    CHECK(strstr(err, "empty database path") != NULL);
    CHECK(gl_store_open("", &s, err, sizeof err) == -1 && s == NULL);
    path_of(path, sizeof path, "ro_missing.db");
    CHECK(gl_store_open_readonly(path, &s, err, sizeof err) == -1 && s == NULL);
    CHECK(strstr(err, "no database") != NULL && access(path, F_OK) != 0);

    /* A file with stale and missing views, in rollback mode (so that its bytes
     * are all there is): the views come from TEMP, the file is not touched. */
    path_of(path, sizeof path, "ro.db");
    if (!CHECK(gl_store_open(path, &s, err, sizeof err) == 0))
        return;
    struct gl_device g = gpu_dev("GPU-ro-1");
    long long gid = gl_store_device(s, &g);
    CHECK(gid > 0);
    gl_store_close(s);
    sqlite3 *db = raw_open(path);
    raw_exec(db, "PRAGMA journal_mode = DELETE; DROP VIEW results; "
                 "CREATE VIEW results AS SELECT 1 AS stale; DROP VIEW devices;");
    sqlite3_close(db);
    long len0 = 0, len1 = 0;
    char *before = slurp(path, &len0);
    if (!CHECK(gl_store_open_readonly(path, &s, err, sizeof err) == 0)) {
        printf("open read-only: %s\n", err);
        free(before);
        return;
    }
    char cols[4096];
    columns_of(s->db, "SELECT * FROM results", 0, cols, sizeof cols);
    CHECK_STR(cols, results_columns);
    char *got = run_query(s, "SELECT count(*) AS n FROM devices", GL_FMT_CSV, err, sizeof err);
    CHECK(got && strcmp(got, "n\n1\n") == 0);
    free(got);
    /* writes are refused before they run, ATTACH and PRAGMA assignments too */
    static const char *const writes[] = {
        "DELETE FROM device", "SELECT 1; INSERT INTO session (id) VALUES (7)",
        "ATTACH 'ro_attached.db' AS a", "PRAGMA user_version = 1", "PRAGMA journal_mode = WAL",
        "CREATE TEMP TABLE t (x)",
    };
    for (size_t i = 0; i < sizeof writes / sizeof writes[0]; i++) {
        err[0] = '\0';
        got = run_query(s, writes[i], GL_FMT_CSV, err, sizeof err);
        if (!CHECK(got == NULL && strstr(err, "refused") != NULL))
            printf("  not refused: %s (%s)\n", writes[i], err);
        free(got);
    }
    got = run_query(s, "PRAGMA table_info('run'); PRAGMA user_version", GL_FMT_CSV, err, sizeof err);
    CHECK(got != NULL);
    free(got);
    /* devices are looked up, not stored: by ident, else by model, else 0 */
    CHECK(gl_store_device(s, &g) == gid);
    struct gl_device g2 = gpu_dev("GPU-ro-2");
    CHECK(gl_store_device(s, &g2) == gid);
    g2.sm_count = 7;
    CHECK(gl_store_device(s, &g2) == 0);
    struct gl_device c = cpu_dev();
    CHECK(gl_store_device(s, &c) == 0);
    gl_store_close(s);
    char *after = slurp(path, &len1);
    CHECK(before && after && len0 == len1 && memcmp(before, after, (size_t)len0) == 0);
    free(before);
    free(after);
    db = raw_open(path);
    CHECK(qi(db, "SELECT count(*) FROM sqlite_master WHERE name = 'devices'") == 0);
    CHECK(qi(db, "SELECT count(*) FROM device") == 1);
    sqlite3_close(db);

    /* An older schema version: migrated in memory, the file left as it was. */
    db = raw_open(path);
    raw_exec(db, "DROP INDEX IF EXISTS run_key; DROP VIEW IF EXISTS params; DROP VIEW IF EXISTS search_evals; "
                 "DROP VIEW IF EXISTS scalars; DROP TABLE run_scalar; "
                 "DROP TABLE run_param; ALTER TABLE run DROP COLUMN uparams; "
                 "ALTER TABLE run DROP COLUMN code_hash; DROP TABLE claim; DROP VIEW results; "
                 "ALTER TABLE run DROP COLUMN started_at; ALTER TABLE session DROP COLUMN load1; "
                 "ALTER TABLE session DROP COLUMN lock_wait_s; ALTER TABLE session DROP COLUMN "
                 "gpu_procs; ALTER TABLE session DROP COLUMN gpu_procs_reason; "
                 "ALTER TABLE run DROP COLUMN check_method; ALTER TABLE run DROP COLUMN "
                 "check_points; ALTER TABLE run DROP COLUMN compiler; ALTER TABLE run DROP "
                 "COLUMN compile_options;");
    /* the roofline's columns (db/migrations/009.sql), the last columns first */
    static const char *const added[] = {
        "device l1_bw_gbs", "device smem_bw_gbs", "device l2_bw_gbs", "device hostlink_bw_gbs",
        "device h2d_bw_gbs", "device ceilings_clock_mhz", "device ceilings_at",
        "device ceilings_reason", "session clocks_asked", "session clocks_locked",
        "session clocks_reason", "session sm_clock_mhz", "session sm_app_clock_mhz",
        "session sm_app_default_mhz", "session sm_max_clock_mhz", "session clock_events",
        "session nvml_reason", "run energy_j", "run avg_power_w", "run energy_reason",
        "run integrity", "run contaminated", "run target", "run launch_kind",
        "run device_values" };
    /* code_path (008) before the columns after it: SQLite's DROP COLUMN of a last
     * column looks back for a comma, and code_path's comment has one */
    raw_exec(db, "ALTER TABLE run DROP COLUMN code_path;");
    for (size_t k = sizeof added / sizeof added[0]; k-- > 0;) {   /* the last column first */
        char drop[128];
        const char *sp = strchr(added[k], ' ');
        snprintf(drop, sizeof drop, "ALTER TABLE %.*s DROP COLUMN %s", (int)(sp - added[k]),
                 added[k], sp + 1);
        raw_exec(db, drop);
    }
    raw_exec(db, "ALTER TABLE session DROP COLUMN shard_index; ALTER TABLE session DROP COLUMN "
                 "shard_count; ALTER TABLE run DROP COLUMN smem_excess_reason; "
                 "DROP VIEW IF EXISTS launch_metrics; "
                 "DROP TABLE launch; DROP TABLE launch_metric; "
                 "ALTER TABLE run DROP COLUMN launch_reason; PRAGMA user_version = 2;");
    sqlite3_close(db);
    before = slurp(path, &len0);
    if (CHECK(gl_store_open_readonly(path, &s, err, sizeof err) == 0)) {
        columns_of(s->db, "SELECT * FROM results", 0, cols, sizeof cols);
        CHECK_STR(cols, results_columns);
        gl_store_close(s);
    } else {
        printf("open read-only, version 2: %s\n", err);
    }
    after = slurp(path, &len1);
    CHECK(before && after && len0 == len1 && memcmp(before, after, (size_t)len0) == 0);
    free(before);
    free(after);
}

/* ---- the file as a file: what is refused before SQLite, and what is left behind ---------- */

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static void test_paths(void)
{
    char path[160], side[200], err[1024], want[400];
    gl_store *s = NULL;

    /* a directory, a device: refused with the file's name and the cause */
    CHECK(gl_store_open(dir, &s, err, sizeof err) == -1 && s == NULL);
    snprintf(want, sizeof want, "%s: is a directory, not a database file", dir);
    CHECK_STR(err, want);
    CHECK(gl_store_open_readonly(dir, &s, err, sizeof err) == -1 && s == NULL);
    CHECK_STR(err, want);
    int journal = exists("/dev/null-journal"), wal = exists("/dev/null-wal");
    CHECK(gl_store_open("/dev/null", &s, err, sizeof err) == -1 && s == NULL);
    CHECK_STR(err, "/dev/null: is not a regular file (a character device), not a database file");
    CHECK(exists("/dev/null-journal") == journal && exists("/dev/null-wal") == wal);

    /* a text file: not SQLite, said without SQL */
    path_of(path, sizeof path, "text.db");
    FILE *f = fopen(path, "w");
    if (CHECK(f != NULL)) {
        fputs("not a database at all, just some words that fill the header\n", f);
        fclose(f);
    }
    CHECK(gl_store_open_readonly(path, &s, err, sizeof err) == -1);
    snprintf(want, sizeof want, "%s: not a SQLite database (file is not a database)", path);
    CHECK_STR(err, want);
    CHECK(gl_store_open(path, &s, err, sizeof err) == -1);
    CHECK(strstr(err, path) != NULL && strstr(err, "PRAGMA") == NULL);

    /* a read-only open of a WAL file leaves no -wal or -shm; a -wal another
     * connection holds open stays */
    path_of(path, sizeof path, "tidy.db");
    if (!CHECK(gl_store_open(path, &s, err, sizeof err) == 0))
        return;
    gl_store_close(s);
    snprintf(side, sizeof side, "%s-wal", path);
    CHECK(!exists(side));
    if (CHECK(gl_store_open_readonly(path, &s, err, sizeof err) == 0)) {
        CHECK(exists(side));   /* the reader's, while it reads */
        gl_store_close(s);
    }
    CHECK(!exists(side));
    snprintf(side, sizeof side, "%s-shm", path);
    CHECK(!exists(side));
    sqlite3 *other = raw_open(path);
    raw_exec(other, "SELECT count(*) FROM run");
    if (CHECK(gl_store_open_readonly(path, &s, err, sizeof err) == 0))
        gl_store_close(s);
    CHECK(exists(side));   /* the other connection's, kept */
    sqlite3_close(other);
    CHECK(!exists(side));
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/gl_test_store_XXXXXX");
    if (!mkdtemp(dir)) {
        printf("mkdtemp failed\n");
        return 1;
    }
    test_create();
    test_migrate();
    test_refuse();
    test_views_refresh();
    test_readonly();
    test_paths();
    test_generated();
    test_fixture();
    test_named();

    char path[128], err[512];
    path_of(path, sizeof path, "main.db");
    gl_store *s = NULL;
    if (CHECK(gl_store_open(path, &s, err, sizeof err) == 0)) {
        sqlite3 *db = raw_open(path);
        test_device_session(s, db);
        test_results(s, db);
        test_has_ok(s, db);
        test_claims(s, db);
        test_launches(s, db);
        test_latest(s, db);
        test_formats(s);
        sqlite3_close(db);
        gl_store_close(s);
    } else {
        printf("open: %s\n", err);
    }
    remove_dir();
    return t_done("store");
}
