/* store_sql.c - the SQL that is generated from the C tables: the parameter and
 * metric lists of db/schema.sql and db/views.sql, and the run_key index; and
 * the SQL generated from the data: the results_<study> views.
 *
 * db/schema.sql and db/views.sql are templates. A list is written
 *     @params: TEXT@             TEXT once per row of gl_param_table
 *     @metrics SETS: TEXT@       TEXT once per row of gl_metric_table that has a
 *                                `results` column and is in one of SETS (default
 *                                full sass, space-separated; none = all)
 * where TEXT may use $column (the SQL column), $type (INTEGER or TEXT, params)
 * and $name (the Nsight Compute name as an SQL string literal, metrics). The
 * items are joined with ", " or, when the list starts its line, with ",\n" and
 * that line's indentation. Lists in -- comments and '...' literals are left alone.
 *
 * Why at open and not at build time: the tables are C data compiled into the
 * same binary, and the store already recreates the views on every open that can
 * write, so expanding here costs microseconds, needs no generator program in the
 * build, and the SQL can never disagree with the tables the binary was built
 * with. Migrations are not expanded: what a version means must not change when
 * a table does (a new stored parameter needs its own ALTER TABLE migration).
 *
 * results_<study>: one view per study that has named parameters (users'
 * kernels), `results` of that study plus one column per name the study's
 * run_param rows hold, so that `... FROM results_transpose WHERE TILE = 32`
 * works. Names: the study with every character outside [A-Za-z0-9_] made '_';
 * when two studies (or another object) come to the same name, the later study
 * in name order gets _2, _3 ... A parameter whose name a `results` column (or
 * an earlier parameter) already has, compared without case as SQL does, is the
 * column uparam_NAME (then _2 ...). Runs without a study get no view.
 *
 * Must not hold SQL beyond the run_key index and those views: the statements
 * live in db/. */
#include "store_int.h"

#include <ctype.h>
#include <string.h>

#include "metric_sets.h"

/* A column name must be a plain identifier: it is pasted into SQL unquoted. */
static int plain_ident(const char *c)
{
    if (!c || !(isalpha((unsigned char)*c) || *c == '_'))
        return 0;
    for (; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_')
            return 0;
    return 1;
}

static int set_bits(const char *p, const char *end, int *bits)
{
    static const struct { const char *name; int bit; } sets[] = {
        { "default", GL_SET_DEFAULT }, { "full", GL_SET_FULL }, { "sass", GL_SET_SASS },
    };
    *bits = 0;
    while (p < end) {
        while (p < end && *p == ' ')
            p++;
        const char *w = p;
        while (p < end && *p != ' ')
            p++;
        if (p == w)
            break;
        size_t i, n = sizeof sets / sizeof sets[0];
        for (i = 0; i < n; i++)
            if (strlen(sets[i].name) == (size_t)(p - w) && memcmp(sets[i].name, w, (size_t)(p - w)) == 0)
                break;
        if (i == n)
            return -1;
        *bits |= sets[i].bit;
    }
    if (*bits == 0)
        *bits = GL_SET_DEFAULT | GL_SET_FULL | GL_SET_SASS;
    return 0;
}

/* One item: TEXT (item .. item_end) with $column, $type, $name replaced. */
static int item(sqlite3_str *o, const char *t, const char *end, const char *column,
                const char *type, const char *name)
{
    while (t < end) {
        if (*t != '$') {
            sqlite3_str_appendchar(o, 1, *t++);
            continue;
        }
        static const char *const vars[] = { "column", "type", "name" };
        const char *vals[] = { column, type, name };
        size_t v;
        for (v = 0; v < 3; v++) {
            size_t n = strlen(vars[v]);
            if ((size_t)(end - t - 1) >= n && memcmp(t + 1, vars[v], n) == 0 &&
                !(t + 1 + n < end && (isalnum((unsigned char)t[1 + n]) || t[1 + n] == '_')))
                break;
        }
        if (v == 3 || !vals[v])
            return -1;
        if (v == 2)
            sqlite3_str_appendf(o, "%Q", vals[v]);
        else
            sqlite3_str_appendall(o, vals[v]);
        t += 1 + strlen(vars[v]);
    }
    return 0;
}

/* Expand the list at p ('@'); *next is set past its closing '@'. indent is the
 * width of the blanks before it when it starts its line, else -1. 0 or -1 + why. */
static int expand_list(sqlite3_str *o, const char *p, const char **next, int indent,
                       const char **why)
{
    const char *close = strchr(p + 1, '@');
    const char *colon = strchr(p + 1, ':');
    const char *nl = strchr(p + 1, '\n');
    if (!close || (nl && nl < close) || !colon || colon > close) {
        *why = "a list is @params: TEXT@ or @metrics SETS: TEXT@ on one line";
        return -1;
    }
    *next = close + 1;
    const char *head = p + 1, *text = colon + 1;
    while (text < close && *text == ' ')
        text++;
    int params = 0, bits = 0;
    if ((size_t)(colon - head) == 6 && memcmp(head, "params", 6) == 0) {
        params = 1;
    } else if ((size_t)(colon - head) >= 7 && memcmp(head, "metrics", 7) == 0 &&
               (colon - head == 7 || head[7] == ' ')) {
        if (set_bits(head + 7, colon, &bits) != 0) {
            *why = "unknown metric set (default, full, sass)";
            return -1;
        }
    } else {
        *why = "unknown list (params, metrics)";
        return -1;
    }
    int n = 0;
    int count = params ? GL_NPARAMS : gl_metric_count;
    for (int i = 0; i < count; i++) {
        const char *column, *type = NULL, *name = NULL;
        if (params) {
            column = gl_param_table[i].column;
            type = gl_param_table[i].is_text ? "TEXT" : "INTEGER";
        } else {
            const struct gl_metric_def *d = &gl_metric_table[i];
            if (!d->column || !(d->set & bits))
                continue;
            column = d->column;
            name = d->name;
        }
        if (!plain_ident(column)) {
            *why = "a column of the C table is not a plain SQL name";
            return -1;
        }
        if (n++) {
            if (indent >= 0) {
                sqlite3_str_appendall(o, ",\n");
                sqlite3_str_appendchar(o, indent, ' ');
            } else {
                sqlite3_str_appendall(o, ", ");
            }
        }
        if (item(o, text, close, column, type, name) != 0) {
            *why = "unknown $variable (column, type; name for metrics)";
            return -1;
        }
    }
    if (n == 0) {   /* the commas around it would dangle */
        *why = "the list is empty";
        return -1;
    }
    return 0;
}

char *store_sql_expand(gl_store *s, const char *tmpl, const char *what)
{
    sqlite3_str *o = sqlite3_str_new(s->db);
    const char *p = tmpl, *line = tmpl;
    while (*p) {
        if (p[0] == '-' && p[1] == '-') {          /* comment: copied as it is */
            const char *e = strchr(p, '\n');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            sqlite3_str_append(o, p, (int)n);
            p += n;
        } else if (*p == '\'') {                    /* literal, '' included */
            const char *e = p + 1;
            while (*e && !(e[0] == '\'' && e[1] != '\''))
                e += e[0] == '\'' ? 2 : 1;
            if (*e)
                e++;
            sqlite3_str_append(o, p, (int)(e - p));
            p = e;
        } else if (*p == '@') {
            int indent = (int)(p - line);
            for (const char *b = line; b < p; b++)
                if (*b != ' ')
                    indent = -1;
            const char *why = NULL, *next = p;
            if (expand_list(o, p, &next, indent, &why) != 0) {
                int lineno = 1;
                for (const char *c = tmpl; c < p; c++)
                    lineno += *c == '\n';
                store_err(s, "%s, line %d: %s", what, lineno, why);
                sqlite3_free(sqlite3_str_finish(o));
                return NULL;
            }
            p = next;
        } else {
            if (*p == '\n')
                line = p + 1;
            sqlite3_str_appendchar(o, 1, *p++);
        }
    }
    char *sql = sqlite3_str_finish(o);
    if (!sql)
        store_err(s, "%s: out of memory", what);
    return sql;
}

/* The resume key of gl_store_has_status (device, family, variant, study, every
 * parameter) and status. Not UNIQUE: a key is run again after a failure, and
 * is_latest picks the newest of equal keys. The store compares this text with
 * the file's and remakes the index when they differ (a parameter was added). */
char *store_sql_run_key(void)
{
    sqlite3_str *o = sqlite3_str_new(NULL);
    sqlite3_str_appendall(o, "CREATE INDEX run_key ON run (device_id, family, variant, study");
    for (int i = 0; i < GL_NPARAMS; i++)
        sqlite3_str_appendf(o, ", \"%w\"", gl_param_table[i].column);
    sqlite3_str_appendall(o, ", uparams, code_hash, status)");
    return sqlite3_str_finish(o);
}

/* ---- results_<study> --------------------------------------------------------- */

/* Names compared without case, as SQLite compares identifiers. */
struct names {
    char **v;
    int n, cap;
};

static int names_has(const struct names *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (sqlite3_stricmp(l->v[i], name) == 0)
            return 1;
    return 0;
}

/* Add (takes) name, sqlite3_malloc'd; 0, or -1 when out of memory (name freed). */
static int names_take(struct names *l, char *name)
{
    if (!name)
        return -1;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        char **v = sqlite3_realloc64(l->v, (sqlite3_uint64)cap * sizeof *v);
        if (!v) {
            sqlite3_free(name);
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = name;
    return 0;
}

static void names_free(struct names *l)
{
    for (int i = 0; i < l->n; i++)
        sqlite3_free(l->v[i]);
    sqlite3_free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

/* Append the first column of every row of sql to l. 0 or -1 + s->err. */
static int names_read(gl_store *s, struct names *l, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        if (names_take(l, sqlite3_mprintf("%s", t ? t : "")) != 0) {
            sqlite3_finalize(st);
            store_err(s, "making the results_<study> views: out of memory");
            return -1;
        }
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE) {
        store_db_err(s, "making the results_<study> views");
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

/* The first of `first` (unless NULL), base, base_2, base_3 ... that neither a
 * nor b holds; added to b. Owned by b; NULL when out of memory. */
static const char *fresh_name(const struct names *a, struct names *b, const char *first,
                              const char *base)
{
    char *c = sqlite3_mprintf("%s", first ? first : base);
    int k = first ? 1 : 2;   /* the next try: base when 1, else base_k */
    while (c && ((a && names_has(a, c)) || names_has(b, c))) {
        sqlite3_free(c);
        c = k == 1 ? sqlite3_mprintf("%s", base) : sqlite3_mprintf("%s_%d", base, k);
        k++;
    }
    if (names_take(b, c) != 0)
        return NULL;
    return b->v[b->n - 1];
}

/* The end of the view of study, if one is being written. */
static void end_view(sqlite3_str *o, const char *study)
{
    if (study)
        sqlite3_str_appendf(o, "\nFROM results r WHERE r.study = %Q ORDER BY r.run_id;\n", study);
}

char *store_sql_study_views(gl_store *s)
{
    /* taken: the names of every object but the results_* views (which go);
     * rcols: the columns of `results`; cols: those of the view being written. */
    struct names stale = { 0 }, taken = { 0 }, rcols = { 0 }, cols = { 0 };
    sqlite3_str *o = sqlite3_str_new(s->db);
    sqlite3_stmt *st = NULL;
    char *study = NULL, *sql = NULL;
    int rc = -1, step;
    if (names_read(s, &stale, "SELECT name FROM sqlite_master WHERE type = 'view' AND "
                              "name LIKE 'results\\_%' ESCAPE '\\' ORDER BY name") != 0 ||
        names_read(s, &taken, "SELECT name FROM sqlite_master WHERE NOT (type = 'view' AND "
                              "name LIKE 'results\\_%' ESCAPE '\\')") != 0 ||
        names_read(s, &rcols, "SELECT name FROM pragma_table_info('results')") != 0)
        goto done;
    for (int i = 0; i < stale.n && !s->readonly; i++)
        sqlite3_str_appendf(o, "DROP VIEW \"%w\";\n", stale.v[i]);

    if (sqlite3_prepare_v2(s->db, "SELECT DISTINCT r.study, p.name FROM run_param p JOIN run r "
                                  "ON r.id = p.run_id WHERE r.study <> '' ORDER BY 1, 2", -1, &st,
                           NULL) != SQLITE_OK) {
        store_db_err(s, "making the results_<study> views");
        goto done;
    }
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *st_study = (const char *)sqlite3_column_text(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        if (!st_study || !name)
            continue;
        if (!study || strcmp(study, st_study) != 0) {
            end_view(o, study);
            sqlite3_free(study);
            names_free(&cols);
            study = sqlite3_mprintf("%s", st_study);
            char *base = sqlite3_mprintf("results_%s", st_study);
            if (!study || !base) {
                sqlite3_free(base);
                goto oom;
            }
            for (char *c = base + 8; *c; c++)
                if (!isalnum((unsigned char)*c) && *c != '_')
                    *c = '_';
            const char *view = fresh_name(NULL, &taken, NULL, base);
            sqlite3_free(base);
            if (!view)
                goto oom;
            sqlite3_str_appendf(o, "CREATE %sVIEW \"%w\" AS SELECT r.*",
                                s->readonly ? "TEMP " : "", view);
        }
        char *base = sqlite3_mprintf("uparam_%s", name);
        const char *col = base ? fresh_name(&rcols, &cols, name, base) : NULL;
        sqlite3_free(base);
        if (!col)
            goto oom;
        sqlite3_str_appendf(o, ",\n    (SELECT coalesce(text, value) FROM run_param "
                               "WHERE run_id = r.run_id AND name = %Q) AS \"%w\"", name, col);
    }
    if (step != SQLITE_DONE) {
        store_db_err(s, "making the results_<study> views");
        goto done;
    }
    end_view(o, study);
    if (sqlite3_str_errcode(o) != SQLITE_OK)
        goto oom;
    rc = 0;
    goto done;
oom:
    store_err(s, "making the results_<study> views: out of memory");
done:
    sqlite3_finalize(st);
    sqlite3_free(study);
    names_free(&stale);
    names_free(&taken);
    names_free(&rcols);
    names_free(&cols);
    if (rc == 0 && sqlite3_str_length(o) == 0) {   /* finish would give NULL for "" */
        sqlite3_free(sqlite3_str_finish(o));
        sql = sqlite3_mprintf("%s", "");
    } else {
        sql = sqlite3_str_finish(o);
    }
    if (rc != 0) {
        sqlite3_free(sql);
        return NULL;
    }
    if (!sql)
        store_err(s, "making the results_<study> views: out of memory");
    return sql;
}
