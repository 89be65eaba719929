/* store_merge.c - `gpulab merge`'s copying: one input database into the output,
 * in one transaction on the output (store.h, gl_store_merge, says what is
 * matched by which columns). Rows are copied by column name between the two
 * connections, so the two files may have their columns in another order (a
 * migrated file's added columns come last); the input was opened with
 * gl_store_open_readonly, so it has the output's schema version (migrated in
 * memory when it was older). Ids are never copied: every device, session and
 * run gets the output's id, and the columns that point at one (device_id,
 * session_id, run_id) are mapped. A row already in the output is found by its
 * natural key and not added again, which is what makes a second merge of the
 * same input add nothing, and a merge of a shard's database that grew since add
 * exactly what it gained. Then conflicts: a run the input brings whose key has,
 * in the output, a run the input does not hold with another outcome.
 * Must not decide what a conflict means to the user (cmd_merge.c says it), nor
 * print, nor write to the input. */
#include "store_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What the input's ids became in the output, in the input's id order (rows
 * are read ORDER BY id), so that a lookup is a binary search. */
struct idmap {
    long long *from, *to;
    size_t n, cap;
};

static int idmap_add(struct idmap *m, long long from, long long to)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 256;
        long long *f = realloc(m->from, cap * sizeof *f);
        if (!f)
            return -1;
        m->from = f;
        long long *t = realloc(m->to, cap * sizeof *t);
        if (!t)
            return -1;
        m->to = t;
        m->cap = cap;
    }
    m->from[m->n] = from;
    m->to[m->n++] = to;
    return 0;
}

/* The output id of input id `from`, or -1. */
static long long idmap_get(const struct idmap *m, long long from)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->from[mid] < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->n && m->from[lo] == from ? m->to[lo] : -1;
}

static void idmap_free(struct idmap *m)
{
    free(m->from);
    free(m->to);
    memset(m, 0, sizeof *m);
}

enum { T_SKIP, T_DEVICE, T_SESSION, T_RUN, T_CHILD };

/* A table of the output, as the merge copies it: its columns (without the id
 * of device, session and run), and which of them point at another row. */
struct table {
    char *name;
    int kind;
    int ncols;
    char **cols;
    char *remap;         /* per column: 'd' device_id, 's' session_id, 'r' run_id, 0 */
    sqlite3_stmt *sel;   /* on the input: id first for device/session/run; by run_id for children */
    sqlite3_stmt *ins;   /* on the output */
};

struct merge {
    gl_store *out, *in;
    int ntables;
    struct table *t;
    struct idmap dev, ses, run;
    struct idmap added;      /* runs added: output id -> input id, output ids rising */
    struct gl_merge_counts *n;
    sqlite3_stmt *dev_find, *dev_bw, *dev_ceil, *ses_find, *ses_end, *run_find, *seen;
    int *run_key;            /* run's identity columns: indexes into the run table's cols */
    int nrun_key;
};

static void table_free(struct table *t)
{
    for (int i = 0; i < t->ncols; i++)
        sqlite3_free(t->cols[i]);
    free(t->cols);
    free(t->remap);
    sqlite3_free(t->name);
    sqlite3_finalize(t->sel);
    sqlite3_finalize(t->ins);
}

static void merge_free(struct merge *m)
{
    for (int i = 0; i < m->ntables; i++)
        table_free(&m->t[i]);
    free(m->t);
    idmap_free(&m->dev);
    idmap_free(&m->ses);
    idmap_free(&m->run);
    idmap_free(&m->added);
    sqlite3_finalize(m->dev_find);
    sqlite3_finalize(m->dev_bw);
    sqlite3_finalize(m->dev_ceil);
    sqlite3_finalize(m->ses_find);
    sqlite3_finalize(m->ses_end);
    sqlite3_finalize(m->run_find);
    sqlite3_finalize(m->seen);
    free(m->run_key);
}

/* An error of the input's connection, said on the output (the one the caller reads). */
static int in_err(struct merge *m, const char *what)
{
    store_err(m->out, "reading the input (%s): %s", what, sqlite3_errmsg(m->in->db));
    return -1;
}

static int oom(struct merge *m)
{
    store_err(m->out, "merging: out of memory");
    return -1;
}

static int prep(gl_store *s, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
        store_db_err(s, "preparing the merge");
        return -1;
    }
    return 0;
}

static int col_index(const struct table *t, const char *name)
{
    for (int i = 0; i < t->ncols; i++)
        if (strcmp(t->cols[i], name) == 0)
            return i;
    return -1;
}

/* 1 when the input's table `table` has column `col`, 0 when not, -1 error. */
static int in_has_column(struct merge *m, const char *table, const char *col)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(m->in->db, "SELECT 1 FROM pragma_table_info(?, 'main') WHERE name = ?",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    return in_err(m, "its columns");
}

/* Read one table of the output (columns, kind) and prepare its statements. */
static int table_setup(struct merge *m, struct table *t)
{
    static const struct { const char *name; int kind; } known[] = {
        { "meta", T_SKIP }, { "claim", T_SKIP },   /* the file's own; live processes' */
        { "device", T_DEVICE }, { "session", T_SESSION }, { "run", T_RUN },
    };
    t->kind = -1;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(t->name, known[i].name) == 0)
            t->kind = known[i].kind;
    if (t->kind == T_SKIP)
        return 0;
    sqlite3_stmt *st = NULL;
    if (prep(m->out, "SELECT name FROM pragma_table_info(?, 'main') ORDER BY cid", &st) != 0)
        return -1;
    sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
    int rc, has_run_id = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        if (!c)
            continue;
        if (strcmp(c, "run_id") == 0)
            has_run_id = 1;
        if (strcmp(c, "id") == 0)
            continue;   /* the output gives the id */
        char **cols = realloc(t->cols, (size_t)(t->ncols + 1) * sizeof *cols);
        char *remap = realloc(t->remap, (size_t)(t->ncols + 1));
        if (cols)
            t->cols = cols;
        if (remap)
            t->remap = remap;
        if (!cols || !remap || !(t->cols[t->ncols] = sqlite3_mprintf("%s", c))) {
            sqlite3_finalize(st);
            return oom(m);
        }
        t->remap[t->ncols++] = strcmp(c, "device_id") == 0 ? 'd' : strcmp(c, "session_id") == 0 ? 's'
                               : strcmp(c, "run_id") == 0 ? 'r' : 0;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(m->out, "reading the tables");
        return -1;
    }
    if (t->kind == -1) {
        if (!has_run_id) {
            store_err(m->out, "table %s: merge does not know how to match its rows (it has no "
                              "run_id column); nothing was merged", t->name);
            return -1;
        }
        t->kind = T_CHILD;
    }
    for (int i = 0; i < t->ncols; i++) {
        int has = in_has_column(m, t->name, t->cols[i]);
        if (has < 0)
            return -1;
        if (!has) {
            store_err(m->out, "the input's table %s has no column %s (another schema); nothing "
                              "was merged", t->name, t->cols[i]);
            return -1;
        }
    }
    sqlite3_str *sel = sqlite3_str_new(m->in->db), *ins = sqlite3_str_new(m->out->db);
    sqlite3_str_appendall(sel, t->kind == T_CHILD ? "SELECT " : "SELECT id");
    sqlite3_str_appendf(ins, "INSERT INTO main.\"%w\" (", t->name);
    for (int i = 0; i < t->ncols; i++) {
        sqlite3_str_appendf(sel, "%s\"%w\"", i || t->kind != T_CHILD ? ", " : "", t->cols[i]);
        sqlite3_str_appendf(ins, "%s\"%w\"", i ? ", " : "", t->cols[i]);
    }
    sqlite3_str_appendf(sel, " FROM main.\"%w\" %s", t->name,
                        t->kind == T_CHILD ? "WHERE run_id = ?" : "ORDER BY id");
    sqlite3_str_appendall(ins, ") VALUES (");
    for (int i = 0; i < t->ncols; i++)
        sqlite3_str_appendall(ins, i ? ", ?" : "?");
    sqlite3_str_appendall(ins, ")");
    char *sel_sql = sqlite3_str_finish(sel), *ins_sql = sqlite3_str_finish(ins);
    rc = !sel_sql || !ins_sql ? oom(m) : 0;
    if (rc == 0 && sqlite3_prepare_v2(m->in->db, sel_sql, -1, &t->sel, NULL) != SQLITE_OK)
        rc = in_err(m, t->name);
    if (rc == 0)
        rc = prep(m->out, ins_sql, &t->ins);
    sqlite3_free(sel_sql);
    sqlite3_free(ins_sql);
    return rc;
}

static struct table *table_of(struct merge *m, int kind)
{
    for (int i = 0; i < m->ntables; i++)
        if (m->t[i].kind == kind)
            return &m->t[i];
    return NULL;
}

/* Every table of the output, and the statements that find a row again. */
static int setup(struct merge *m)
{
    sqlite3_stmt *st = NULL;
    if (prep(m->out, "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE "
                     "'sqlite\\_%' ESCAPE '\\' ORDER BY name", &st) != 0)
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct table *t = realloc(m->t, (size_t)(m->ntables + 1) * sizeof *t);
        if (!t) {
            sqlite3_finalize(st);
            return oom(m);
        }
        m->t = t;
        t = &m->t[m->ntables++];
        memset(t, 0, sizeof *t);
        if (!(t->name = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, 0)))) {
            sqlite3_finalize(st);
            return oom(m);
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(m->out, "reading the tables");
        return -1;
    }
    for (int i = 0; i < m->ntables; i++)
        if (table_setup(m, &m->t[i]) != 0)
            return -1;
    struct table *run = table_of(m, T_RUN);
    if (!table_of(m, T_DEVICE) || !table_of(m, T_SESSION) || !run) {
        store_err(m->out, "the output has no device, session or run table");
        return -1;
    }
    if (prep(m->out, "SELECT id, copy_bw_gbs IS NULL FROM main.device WHERE ident = ?",
             &m->dev_find) != 0 ||
        prep(m->out, "UPDATE main.device SET copy_bw_gbs = ? WHERE id = ?", &m->dev_bw) != 0 ||
        prep(m->out, "UPDATE main.device SET l1_bw_gbs = ?, smem_bw_gbs = ?, l2_bw_gbs = ?, "
                     "hostlink_bw_gbs = ?, h2d_bw_gbs = ?, ceilings_clock_mhz = ?, "
                     "ceilings_at = ?, ceilings_reason = ? WHERE id = ? AND ceilings_at IS NULL",
             &m->dev_ceil) != 0 ||
        prep(m->out, "SELECT id, ended_at IS NULL FROM main.session WHERE host IS ? AND "
                     "started_at IS ? AND study IS ? AND config_path IS ? AND config_hash IS ? "
                     "AND argv IS ? ORDER BY id LIMIT 1", &m->ses_find) != 0 ||
        prep(m->out, "UPDATE main.session SET ended_at = ? WHERE id = ?", &m->ses_end) != 0 ||
        prep(m->out, "INSERT OR IGNORE INTO temp.merge_seen (id) VALUES (?)", &m->seen) != 0)
        return -1;
    /* a run is found again by its session, device and every column below */
    static const char *const fixed[] = { "created_at", "started_at", "study", "section", "family",
                                         "variant", "uparams", "code_hash", "status" };
    int nfixed = (int)(sizeof fixed / sizeof fixed[0]);
    m->run_key = malloc((size_t)(nfixed + GL_NPARAMS) * sizeof *m->run_key);
    if (!m->run_key)
        return oom(m);
    sqlite3_str *q = sqlite3_str_new(m->out->db);
    sqlite3_str_appendall(q, "SELECT id FROM main.run WHERE session_id = ? AND device_id = ?");
    for (int i = 0; i < nfixed + GL_NPARAMS; i++) {
        const char *c = i < nfixed ? fixed[i] : gl_param_table[i - nfixed].column;
        int at = col_index(run, c);
        if (at < 0) {
            sqlite3_free(sqlite3_str_finish(q));
            store_err(m->out, "table run has no column %s", c);
            return -1;
        }
        m->run_key[m->nrun_key++] = at;
        sqlite3_str_appendf(q, " AND \"%w\" IS ?", c);
    }
    sqlite3_str_appendall(q, " LIMIT 1");
    char *sql = sqlite3_str_finish(q);
    if (!sql)
        return oom(m);
    rc = prep(m->out, sql, &m->run_find);
    sqlite3_free(sql);
    return rc;
}

/* Bind the row `sel` stands on (its columns from `first` on, in t's order) to
 * ins, the pointing columns mapped; run_to is the run a child row goes with. */
static int bind_row(struct merge *m, const struct table *t, int first, long long run_to)
{
    for (int i = 0; i < t->ncols; i++) {
        int rc;
        sqlite3_value *v = sqlite3_column_value(t->sel, first + i);
        if (t->remap[i] && sqlite3_value_type(v) != SQLITE_NULL) {
            long long to = t->remap[i] == 'r' ? run_to
                           : idmap_get(t->remap[i] == 'd' ? &m->dev : &m->ses,
                                       sqlite3_value_int64(v));
            if (to < 0) {
                store_err(m->out, "the input's %s row points at %s %lld, which it does not hold",
                          t->name, t->cols[i], sqlite3_value_int64(v));
                return -1;
            }
            rc = sqlite3_bind_int64(t->ins, i + 1, to);
        } else {
            rc = sqlite3_bind_value(t->ins, i + 1, v);
        }
        if (rc != SQLITE_OK) {
            store_db_err(m->out, "merging");
            return -1;
        }
    }
    return 0;
}

/* Step ins once; 0 with the new row id in *id, or -1. */
static int insert(struct merge *m, struct table *t, long long *id)
{
    int rc = sqlite3_step(t->ins);
    sqlite3_reset(t->ins);
    sqlite3_clear_bindings(t->ins);
    if (rc != SQLITE_DONE) {
        char what[128];
        snprintf(what, sizeof what, "adding a %s row", t->name);
        store_db_err(m->out, what);
        return -1;
    }
    if (id)
        *id = sqlite3_last_insert_rowid(m->out->db);
    return 0;
}

/* Step a lookup on the output: 1 with the first column in *id (and the second
 * in *flag, if asked), 0 none, -1. Resets st. */
static int lookup(struct merge *m, sqlite3_stmt *st, long long *id, int *flag)
{
    int rc = sqlite3_step(st);
    int found = rc == SQLITE_ROW;
    if (found) {
        *id = sqlite3_column_int64(st, 0);
        if (flag)
            *flag = sqlite3_column_int(st, 1);
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (!found && rc != SQLITE_DONE) {
        store_db_err(m->out, "looking a row up");
        return -1;
    }
    return found;
}

/* Run an update bound with (value of column `col` of sel, id). */
static int update(struct merge *m, sqlite3_stmt *st, const struct table *t, int col, long long id)
{
    sqlite3_bind_value(st, 1, sqlite3_column_value(t->sel, 1 + col));
    sqlite3_bind_int64(st, 2, id);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        store_db_err(m->out, "updating a row");
        return -1;
    }
    return 0;
}

static int bind_col(struct merge *m, sqlite3_stmt *st, int param, const struct table *t,
                    const char *col)
{
    int at = col_index(t, col);
    if (at < 0) {
        store_err(m->out, "table %s has no column %s", t->name, col);
        return -1;
    }
    if (sqlite3_bind_value(st, param, sqlite3_column_value(t->sel, 1 + at)) != SQLITE_OK) {
        store_db_err(m->out, "merging");
        return -1;
    }
    return 0;
}

/* The input device's memory ceilings into the output's row `to` when it has
 * none and the input has them (measured once per device row, as the copy
 * bandwidth). 0, or -1. */
static int merge_ceilings(struct merge *m, const struct table *t, long long to)
{
    static const char *const cols[] = { "l1_bw_gbs", "smem_bw_gbs", "l2_bw_gbs",
                                        "hostlink_bw_gbs", "h2d_bw_gbs", "ceilings_clock_mhz",
                                        "ceilings_at", "ceilings_reason" };
    int at = col_index(t, "ceilings_at");
    if (at < 0 || sqlite3_column_type(t->sel, 1 + at) == SQLITE_NULL)
        return 0;
    int n = (int)(sizeof cols / sizeof cols[0]);
    for (int i = 0; i < n; i++)
        if (bind_col(m, m->dev_ceil, i + 1, t, cols[i]) != 0) {
            sqlite3_clear_bindings(m->dev_ceil);
            return -1;
        }
    sqlite3_bind_int64(m->dev_ceil, n + 1, to);
    int rc = sqlite3_step(m->dev_ceil);
    sqlite3_reset(m->dev_ceil);
    sqlite3_clear_bindings(m->dev_ceil);
    if (rc != SQLITE_DONE) {
        store_db_err(m->out, "updating a device's ceilings");
        return -1;
    }
    return 0;
}

/* Devices by ident: a new one is added; a known one keeps its row, and gets
 * the input's measured copy bandwidth and memory ceilings when it has none. */
static int merge_devices(struct merge *m)
{
    struct table *t = table_of(m, T_DEVICE);
    int bw = col_index(t, "copy_bw_gbs"), rc;
    while ((rc = sqlite3_step(t->sel)) == SQLITE_ROW) {
        long long from = sqlite3_column_int64(t->sel, 0), to = -1;
        int no_bw = 0;
        if (bind_col(m, m->dev_find, 1, t, "ident") != 0)
            return -1;
        int found = lookup(m, m->dev_find, &to, &no_bw);
        if (found < 0)
            return -1;
        if (!found) {
            if (bind_row(m, t, 1, -1) != 0 || insert(m, t, &to) != 0)
                return -1;
            m->n->devices++;
        } else if ((no_bw && bw >= 0 && sqlite3_column_type(t->sel, 1 + bw) != SQLITE_NULL &&
                    update(m, m->dev_bw, t, bw, to) != 0) ||
                   merge_ceilings(m, t, to) != 0) {
            return -1;
        }
        if (idmap_add(&m->dev, from, to) != 0)
            return oom(m);
    }
    return rc == SQLITE_DONE ? 0 : in_err(m, "device");
}

/* Sessions by their identity; a known one whose end the output lacks gets it
 * (the input was copied while that session ran, the first time). */
static int merge_sessions(struct merge *m)
{
    static const char *const ident[] = { "host", "started_at", "study", "config_path",
                                         "config_hash", "argv" };
    struct table *t = table_of(m, T_SESSION);
    int end = col_index(t, "ended_at"), rc;
    while ((rc = sqlite3_step(t->sel)) == SQLITE_ROW) {
        long long from = sqlite3_column_int64(t->sel, 0), to = -1;
        int no_end = 0;
        for (int i = 0; i < 6; i++)
            if (bind_col(m, m->ses_find, i + 1, t, ident[i]) != 0)
                return -1;
        int found = lookup(m, m->ses_find, &to, &no_end);
        if (found < 0)
            return -1;
        if (!found) {
            if (bind_row(m, t, 1, -1) != 0 || insert(m, t, &to) != 0)
                return -1;
            m->n->sessions++;
        } else if (no_end && end >= 0 && sqlite3_column_type(t->sel, 1 + end) != SQLITE_NULL) {
            if (update(m, m->ses_end, t, end, to) != 0)
                return -1;
            m->n->sessions_ended++;
        }
        if (idmap_add(&m->ses, from, to) != 0)
            return oom(m);
    }
    return rc == SQLITE_DONE ? 0 : in_err(m, "session");
}

/* The rows of every child table that go with input run `from`, as rows of run `to`. */
static int merge_children(struct merge *m, long long from, long long to)
{
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = &m->t[i];
        if (t->kind != T_CHILD)
            continue;
        sqlite3_bind_int64(t->sel, 1, from);
        int rc;
        while ((rc = sqlite3_step(t->sel)) == SQLITE_ROW) {
            if (bind_row(m, t, 0, to) != 0 || insert(m, t, NULL) != 0) {
                sqlite3_reset(t->sel);
                return -1;
            }
            m->n->rows++;
        }
        sqlite3_reset(t->sel);
        if (rc != SQLITE_DONE)
            return in_err(m, t->name);
    }
    return 0;
}

/* Runs in the input's id order (a key's newer run stays the newer, as
 * is_latest reads it): one the output has (same session, device and identity
 * columns) is marked seen; any other is added with its child rows. */
static int merge_runs(struct merge *m)
{
    struct table *t = table_of(m, T_RUN);
    int si = col_index(t, "session_id"), di = col_index(t, "device_id"), rc;
    while ((rc = sqlite3_step(t->sel)) == SQLITE_ROW) {
        long long from = sqlite3_column_int64(t->sel, 0), to = -1;
        long long ses = idmap_get(&m->ses, sqlite3_column_int64(t->sel, 1 + si));
        long long dev = idmap_get(&m->dev, sqlite3_column_int64(t->sel, 1 + di));
        if (ses < 0 || dev < 0) {
            store_err(m->out, "the input's run %lld points at a session or device it does not hold",
                      from);
            return -1;
        }
        sqlite3_bind_int64(m->run_find, 1, ses);
        sqlite3_bind_int64(m->run_find, 2, dev);
        for (int k = 0; k < m->nrun_key; k++)
            sqlite3_bind_value(m->run_find, 3 + k, sqlite3_column_value(t->sel, 1 + m->run_key[k]));
        int found = lookup(m, m->run_find, &to, NULL);
        if (found < 0)
            return -1;
        if (found) {
            m->n->runs_present++;
            sqlite3_bind_int64(m->seen, 1, to);
            int s = sqlite3_step(m->seen);
            sqlite3_reset(m->seen);
            if (s != SQLITE_DONE) {
                store_db_err(m->out, "merging");
                return -1;
            }
        } else {
            if (bind_row(m, t, 1, -1) != 0 || insert(m, t, &to) != 0 ||
                merge_children(m, from, to) != 0)
                return -1;
            if (idmap_add(&m->added, to, from) != 0)
                return oom(m);
            m->n->runs++;
        }
        if (idmap_add(&m->run, from, to) != 0)
            return oom(m);
    }
    return rc == SQLITE_DONE ? 0 : in_err(m, "run");
}

static const char *text_at(sqlite3_stmt *st, int i)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
    return t ? t : "";
}

static double real_at(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* The runs added (id > before) whose key has a run in the output that the
 * input does not hold (not seen) with another outcome. Each through on_conflict. */
static int find_conflicts(struct merge *m, long long before,
                          void (*on_conflict)(void *, const struct gl_merge_conflict *), void *arg)
{
    sqlite3_str *q = sqlite3_str_new(m->out->db);
    sqlite3_str_appendall(q,
        "SELECT n.id, o.id, n.study, n.family, n.variant, d.name, n.uparams, "
        "n.status, n.reason, n.median_ms, n.max_rel_err, ns.host, ns.started_at, "
        "o.status, o.reason, o.median_ms, o.max_rel_err, os.host, os.started_at");
    for (int i = 0; i < GL_NPARAMS; i++)
        sqlite3_str_appendf(q, ", n.\"%w\"", gl_param_table[i].column);
    sqlite3_str_appendall(q,
        " FROM main.run n JOIN main.device d ON d.id = n.device_id"
        " JOIN main.run o ON o.id <= ?1 AND o.family = n.family AND o.variant = n.variant"
        " AND o.study IS n.study");
    for (int i = 0; i < GL_NPARAMS; i++)
        sqlite3_str_appendf(q, " AND o.\"%w\" IS n.\"%w\"", gl_param_table[i].column,
                            gl_param_table[i].column);
    sqlite3_str_appendall(q,
        " AND o.uparams IS n.uparams AND o.code_hash IS n.code_hash"
        " AND o.device_id IN (SELECT device_id FROM main.device_model WHERE model_id ="
        "     (SELECT model_id FROM main.device_model WHERE device_id = n.device_id))"
        " LEFT JOIN main.session ns ON ns.id = n.session_id"
        " LEFT JOIN main.session os ON os.id = o.session_id"
        " WHERE n.id > ?1 AND o.id NOT IN (SELECT id FROM temp.merge_seen)"
        " AND NOT (o.status IS n.status AND o.median_ms IS n.median_ms"
        "          AND o.max_rel_err IS n.max_rel_err)"
        " ORDER BY n.id, o.id");
    char *sql = sqlite3_str_finish(q);
    if (!sql)
        return oom(m);
    sqlite3_stmt *st = NULL;
    int rc = prep(m->out, sql, &st);
    sqlite3_free(sql);
    if (rc != 0)
        return -1;
    sqlite3_bind_int64(st, 1, before);
    const int p0 = 19;   /* the first parameter column */
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char params[1024] = "";
        size_t used = 0;
        for (int i = 0; i < GL_NPARAMS && used < sizeof params; i++) {
            if (sqlite3_column_type(st, p0 + i) == SQLITE_NULL)
                continue;
            int w = snprintf(params + used, sizeof params - used, "%s%s=%s", used ? " " : "",
                             gl_param_table[i].name, text_at(st, p0 + i));
            used = w < 0 ? sizeof params : used + (size_t)w;
        }
        if (sqlite3_column_type(st, 6) != SQLITE_NULL && used < sizeof params)
            snprintf(params + used, sizeof params - used, "%s%s", used ? " " : "", text_at(st, 6));
        long long got_out = sqlite3_column_int64(st, 0);
        long long got_in = -1;
        for (size_t lo = 0, hi = m->added.n; lo < hi;) {   /* added.from: output ids, rising */
            size_t mid = lo + (hi - lo) / 2;
            if (m->added.from[mid] < got_out) {
                lo = mid + 1;
            } else {
                if (m->added.from[mid] == got_out)
                    got_in = m->added.to[mid];
                hi = mid;
            }
        }
        struct gl_merge_conflict c = {
            text_at(st, 2), text_at(st, 3), text_at(st, 4), text_at(st, 5), params,
            { sqlite3_column_int64(st, 1), text_at(st, 13), text_at(st, 14), real_at(st, 15),
              real_at(st, 16), text_at(st, 17), text_at(st, 18) },
            { got_in, text_at(st, 7), text_at(st, 8), real_at(st, 9), real_at(st, 10),
              text_at(st, 11), text_at(st, 12) },
        };
        m->n->conflicts++;
        if (on_conflict)
            on_conflict(arg, &c);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(m->out, "looking for conflicts");
        return -1;
    }
    return 0;
}

int gl_store_merge(gl_store *out, gl_store *in, int allow_conflicts,
                   void (*on_conflict)(void *arg, const struct gl_merge_conflict *c), void *arg,
                   struct gl_merge_counts *n)
{
    struct merge m;
    memset(&m, 0, sizeof m);
    memset(n, 0, sizeof *n);
    m.out = out;
    m.in = in;
    m.n = n;
    if (out->readonly) {
        store_err(out, "merging: the output is open read-only");
        return -1;
    }
    if (store_exec(out, "BEGIN IMMEDIATE", "starting the merge") != 0)
        return -1;
    /* one snapshot of the input, even if something writes it meanwhile */
    if (sqlite3_exec(in->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        in_err(&m, "starting a read");
        sqlite3_exec(out->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    long long before = 0;
    int rc = store_exec(out, "CREATE TEMP TABLE IF NOT EXISTS merge_seen (id INTEGER PRIMARY KEY); "
                             "DELETE FROM temp.merge_seen", "starting the merge");
    if (rc == 0)
        rc = store_query_int(out, "SELECT coalesce(max(id), 0) FROM main.run", &before);
    if (rc == 0)
        rc = setup(&m);
    if (rc == 0)
        rc = merge_devices(&m);
    if (rc == 0)
        rc = merge_sessions(&m);
    if (rc == 0)
        rc = merge_runs(&m);
    if (rc == 0)
        rc = find_conflicts(&m, before, on_conflict, arg);
    if (rc == 0 && n->conflicts > 0 && !allow_conflicts)
        rc = 1;
    /* a study's first named parameters get their results_<study> view */
    if (rc == 0 && n->runs > 0)
        rc = store_study_views(out);
    merge_free(&m);   /* statements finalized before the transactions end */
    sqlite3_exec(in->db, "COMMIT", NULL, NULL, NULL);
    if (rc == 0 && store_exec(out, "COMMIT", "committing the merge") != 0)
        rc = -1;
    if (rc != 0) {
        sqlite3_exec(out->db, "ROLLBACK", NULL, NULL, NULL);
        long long conflicts = n->conflicts;
        memset(n, 0, sizeof *n);
        n->conflicts = conflicts;
    }
    return rc;
}
