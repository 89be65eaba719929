/* store_bind.c - the plumbing every store_*.c uses (store_int.h): the error
 * convention, running and preparing statements, and the row builder, which
 * writes an INSERT from (column, value) cells and binds the values from the same
 * cells, so that a column is named once, where its value is given.
 * Must not know any table or column: the callers name them (parameters come
 * from gl_param_table). */
#include "store_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fileutil.h"

void store_err(gl_store *s, const char *fmt, ...)
{
    /* formatted whole, then fitted: a long path or input is shortened, the
     * reason after it kept */
    char small[sizeof s->err], *msg = small;
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof small && (msg = malloc((size_t)n + 1)) != NULL)
        vsnprintf(msg, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    gl_text_fit(msg ? msg : small, s->err, sizeof s->err);
    if (msg != small)
        free(msg);
    s->code = 0;
}

void store_db_err(gl_store *s, const char *what)
{
    int code = sqlite3_errcode(s->db);
    if ((code & 0xff) == SQLITE_CORRUPT)
        store_err(s, "database %s is damaged (%s: %s)", s->path ? s->path : "file", what,
                  sqlite3_errmsg(s->db));
    else if ((code & 0xff) == SQLITE_NOTADB)
        store_err(s, "%s: not a SQLite database (%s: %s)", s->path ? s->path : "the file", what,
                  sqlite3_errmsg(s->db));
    else
        store_err(s, "%s: %s", what, sqlite3_errmsg(s->db));
    s->code = code & 0xff;
}

const char *gl_store_errmsg(gl_store *s)
{
    return s ? s->err : "no store";
}

int store_exec(gl_store *s, const char *sql, const char *what)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        int code = sqlite3_errcode(s->db) & 0xff;
        if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
            store_db_err(s, what);
        else
            store_err(s, "%s: %s", what, msg ? msg : sqlite3_errmsg(s->db));
        s->code = code;
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

int store_query_int(gl_store *s, const char *sql, long long *v)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        store_db_err(s, sql);
        sqlite3_finalize(st);
        return -1;
    }
    *v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return 0;
}

int store_prepare(gl_store *s, sqlite3_stmt **st, const char *sql)
{
    if (*st && strcmp(sqlite3_sql(*st), sql) == 0)
        return 0;
    sqlite3_finalize(*st);
    *st = NULL;
    if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK) {
        store_db_err(s, "preparing a statement");
        sqlite3_finalize(*st);
        *st = NULL;
        return -1;
    }
    return 0;
}

/* ---- cells ------------------------------------------------------------------- */

void row_init(struct row *r)
{
    r->n = 0;
    r->overflow = 0;
}

static struct cell *add(struct row *r, const char *col, int type)
{
    if (r->n >= ROW_MAX) {
        r->overflow = 1;
        return NULL;
    }
    struct cell *c = &r->c[r->n++];
    memset(c, 0, sizeof *c);
    c->col = col;
    c->type = type;
    return c;
}

void row_null(struct row *r, const char *col)
{
    add(r, col, CELL_NULL);
}

void row_int(struct row *r, const char *col, long long v)
{
    struct cell *c = add(r, col, CELL_INT);
    if (c)
        c->i = v;
}

/* A field of struct gl_device or of the launch shape where 0 means "does not
 * apply / unknown". */
void row_int_nz(struct row *r, const char *col, long long v)
{
    if (v == 0)
        row_null(r, col);
    else
        row_int(r, col, v);
}

void row_real(struct row *r, const char *col, double v)
{
    if (!isfinite(v)) {
        row_null(r, col);
        return;
    }
    struct cell *c = add(r, col, CELL_REAL);
    if (c)
        c->d = v;
}

/* A measured quantity where a negative value means "not measured". */
void row_real_nonneg(struct row *r, const char *col, double v)
{
    if (isfinite(v) && v >= 0)
        row_real(r, col, v);
    else
        row_null(r, col);
}

void row_real_nz(struct row *r, const char *col, double v)
{
    if (v == 0)
        row_null(r, col);
    else
        row_real(r, col, v);
}

/* Text from a fixed-size field (bounded even if the worker sent no NUL). */
void row_textn(struct row *r, const char *col, const char *t, size_t cap)
{
    size_t n = t ? strnlen(t, cap) : 0;
    if (n == 0) {
        row_null(r, col);
        return;
    }
    struct cell *c = add(r, col, CELL_TEXT);
    if (c) {
        c->t = t;
        c->tlen = (int)n;
    }
}

void row_text(struct row *r, const char *col, const char *t)
{
    row_textn(r, col, t, t ? strlen(t) : 0);
}

void row_text_empty(struct row *r, const char *col, const char *t)
{
    if (!t) {
        row_null(r, col);
        return;
    }
    struct cell *c = add(r, col, CELL_TEXT);
    if (c) {
        c->t = t;
        c->tlen = (int)strlen(t);
    }
}

void row_params(struct row *r, const struct gl_params *p)
{
    for (int i = 0; i < GL_NPARAMS; i++) {
        enum gl_param_id id = (enum gl_param_id)i;
        const char *col = gl_param_table[i].column;
        if (!gl_params_is_set(p, id))
            row_null(r, col);
        else if (gl_param_table[i].is_text)
            row_textn(r, col, gl_params_get_text(p, id), GL_WORD);
        else
            row_int(r, col, gl_params_get(p, id));
    }
}

void row_null_from(struct row *r, int from)
{
    for (int i = from; i < r->n; i++)
        r->c[i].type = CELL_NULL;
}

/* ---- statements from rows --------------------------------------------------------- */

int row_bind(gl_store *s, sqlite3_stmt *st, const struct row *r, int first)
{
    if (r->overflow) {
        store_err(s, "more than %d columns in one row", ROW_MAX);
        return -1;
    }
    for (int i = 0; i < r->n; i++) {
        const struct cell *c = &r->c[i];
        int rc, at = first + i;
        switch (c->type) {
        case CELL_INT: rc = sqlite3_bind_int64(st, at, c->i); break;
        case CELL_REAL: rc = sqlite3_bind_double(st, at, c->d); break;
        case CELL_TEXT: rc = sqlite3_bind_text(st, at, c->t, c->tlen, SQLITE_TRANSIENT); break;
        default: rc = sqlite3_bind_null(st, at); break;
        }
        if (rc != SQLITE_OK) {
            store_err(s, "binding %s: %s", c->col, sqlite3_errstr(rc));
            return -1;
        }
    }
    return 0;
}

int row_insert(gl_store *s, sqlite3_stmt **st, const char *table, const struct row *r,
               const char *suffix, const char *what)
{
    sqlite3_str *q = sqlite3_str_new(s->db);
    sqlite3_str_appendf(q, "INSERT INTO \"%w\" (", table);
    for (int i = 0; i < r->n; i++)
        sqlite3_str_appendf(q, "%s\"%w\"", i ? ", " : "", r->c[i].col);
    sqlite3_str_appendall(q, ") VALUES (");
    for (int i = 0; i < r->n; i++)
        sqlite3_str_appendall(q, i ? ", ?" : "?");
    sqlite3_str_appendf(q, ")%s", suffix);
    char *sql = sqlite3_str_finish(q);
    if (!sql) {
        store_err(s, "%s: out of memory", what);
        return -1;
    }
    int rc = store_prepare(s, st, sql);
    sqlite3_free(sql);
    if (rc != 0) {
        store_db_err(s, what);   /* e.g. "storing the run: table run has no column named x" */
        return -1;
    }
    if (row_bind(s, *st, r, 1) != 0) {
        sqlite3_clear_bindings(*st);
        return -1;
    }
    rc = sqlite3_step(*st);
    sqlite3_reset(*st);
    sqlite3_clear_bindings(*st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, what);
        return -1;
    }
    return 0;
}
