/* store_query.c - ad-hoc queries: run the statements of `gpulab query` (or a
 * report's), keep the last one's rows and print them in a format of tabfmt.c.
 * On a read-only store (gl_store_open_readonly) a statement that writes is
 * refused before it runs. Must not write the schema or runs itself (the SQL it
 * is given may, on a store opened for writing), nor
 * format values (tabfmt.c does). Errors go to err, as gl_store_open's. */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

#include "tabfmt.h"

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

/* A PRAGMA that writes: any assignment or argument but a table's or an index's
 * name for the pragmas that only read one, and the few that write without one. */
static int pragma_writes(const char *name, const char *arg)
{
    static const char *const read_arg[] = {
        "table_info", "table_xinfo", "index_info", "index_xinfo", "index_list",
        "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check", "table_list",
    };
    static const char *const write_noarg[] = {
        "optimize", "wal_checkpoint", "incremental_vacuum",
    };
    if (!name)
        return 1;
    if (!arg) {
        for (size_t i = 0; i < sizeof write_noarg / sizeof write_noarg[0]; i++)
            if (sqlite3_stricmp(name, write_noarg[i]) == 0)
                return 1;
        return 0;
    }
    for (size_t i = 0; i < sizeof read_arg / sizeof read_arg[0]; i++)
        if (sqlite3_stricmp(name, read_arg[i]) == 0)
            return 0;
    return 1;
}

/* The authorizer of a read-only store's queries: ATTACH (which can create a
 * file), DETACH and PRAGMA writes are refused; sqlite3_stmt_readonly() does
 * not count them as writes. */
static int deny_writes(void *ctx, int action, const char *a1, const char *a2, const char *db,
                       const char *trigger)
{
    gl_store *s = ctx;
    (void)db;
    (void)trigger;
    if (action == SQLITE_ATTACH)
        s->denied = "ATTACH";
    else if (action == SQLITE_DETACH)
        s->denied = "DETACH";
    else if (action == SQLITE_PRAGMA && pragma_writes(a1, a2))
        s->denied = "a PRAGMA that writes";
    else
        return SQLITE_OK;
    return SQLITE_DENY;
}

/* Prepare the next statement of a query; on a read-only store, refuse one that
 * writes before it runs. SQLITE_OK (*st NULL for blanks), or an error in err. */
static int prepare_query(gl_store *s, const char *p, sqlite3_stmt **st, const char **next,
                         char *err, size_t errlen)
{
    s->denied = NULL;
    if (s->readonly && sqlite3_set_authorizer(s->db, deny_writes, s) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(s->db));
        return SQLITE_ERROR;
    }
    int rc = sqlite3_prepare_v2(s->db, p, -1, st, next);
    if (s->readonly)
        sqlite3_set_authorizer(s->db, NULL, NULL);
    const char *why = s->denied;
    if (rc == SQLITE_OK && *st && s->readonly && !why && !sqlite3_stmt_readonly(*st))
        why = "it writes";
    if (why) {
        int n = 0;
        while (p[n] && p[n] != '\n' && n < 60)
            n++;
        snprintf(err, errlen, "refused (%s) on a read-only database: %.*s%s; "
                              "`gpulab query --write` allows writes", why, n, p,
                 p[n] ? "..." : "");
        sqlite3_finalize(*st);
        *st = NULL;
        return SQLITE_AUTH;
    }
    if (rc != SQLITE_OK && ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB))
        snprintf(err, errlen, "database %s is damaged (%s)", s->path, sqlite3_errmsg(s->db));
    else if (rc != SQLITE_OK)
        snprintf(err, errlen, "%s", sqlite3_errmsg(s->db));
    return rc;
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
        if (prepare_query(s, p, &st, &next, err, errlen) != SQLITE_OK)
            goto fail;
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
            int code = sqlite3_errcode(s->db) & 0xff;
            if (rc == SQLITE_NOMEM)
                snprintf(err, errlen, "out of memory");
            else if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
                snprintf(err, errlen, "database %s is damaged (%s)", s->path, sqlite3_errmsg(s->db));
            else
                snprintf(err, errlen, "%s", sqlite3_errmsg(s->db));
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
