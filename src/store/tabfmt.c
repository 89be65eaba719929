/* tabfmt.c - see tabfmt.h: a result table in memory and its six printed forms.
 *   table  columns separated by two spaces, numbers right-aligned, a dashed rule
 *          under the header; \n \t \r in text shown as backslash escapes.
 *   csv    RFC 4180 quoting (a field with , " CR or LF is quoted, " doubled; an empty
 *          string is "" so that it differs from NULL), lines end in LF.
 *   tsv    tab-separated; backslash, tab, LF and CR in text written as \\ \t \n \r.
 *   md     pipe table with a header rule (---: for numeric columns); | and \ are
 *          backslash-escaped, line breaks become <br>.
 *   latex  tabular (l for text, r for numeric columns) with \hline rules; the ten
 *          special characters escaped.
 *   json   an array of objects, one per row: numbers as numbers (a non-finite REAL
 *          as null), text as escaped strings, NULL as null. Always valid JSON in
 *          valid UTF-8: control characters and DEL written as \u00NN (or \n, \t,
 *          ...), and each byte that is not part of a valid UTF-8 sequence replaced
 *          by U+FFFD (the text is not Latin-1 guessed at: a bad byte is lost).
 * Must not run SQL or know about the store's tables. */
#include "tabfmt.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- building the table ---------------------------------------------------- */

int gl_table_init(struct gl_table *t, int ncols, const char *const *names)
{
    memset(t, 0, sizeof *t);
    if (ncols <= 0)
        return 0;
    t->names = calloc((size_t)ncols, sizeof *t->names);
    if (!t->names)
        return -1;
    t->ncols = ncols;
    for (int i = 0; i < ncols; i++) {
        t->names[i] = strdup(names[i] ? names[i] : "");
        if (!t->names[i])
            return -1;
    }
    return 0;
}

static int add_cell(struct gl_table *t, enum gl_cell_type type, char *text)
{
    if (t->ncells == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        struct gl_cell *nc = realloc(t->cells, cap * sizeof *nc);
        if (!nc) {
            free(text);
            return -1;
        }
        t->cells = nc;
        t->cap = cap;
    }
    t->cells[t->ncells].type = type;
    t->cells[t->ncells].text = text;
    t->ncells++;
    return 0;
}

int gl_table_add_null(struct gl_table *t)
{
    return add_cell(t, GL_CELL_NULL, NULL);
}

int gl_table_add_int(struct gl_table *t, long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    char *s = strdup(buf);
    return s ? add_cell(t, GL_CELL_INT, s) : -1;
}

void gl_format_real(double v, char *buf, size_t len)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (!isfinite(v) || strtod(buf, NULL) == v)
            return;
    }
}

int gl_table_add_real(struct gl_table *t, double v)
{
    char buf[40];
    gl_format_real(v, buf, sizeof buf);
    char *s = strdup(buf);
    return s ? add_cell(t, GL_CELL_REAL, s) : -1;
}

int gl_table_add_text(struct gl_table *t, const char *s, size_t len)
{
    char *c = malloc(len + 1);
    if (!c)
        return -1;
    memcpy(c, s, len);
    c[len] = '\0';
    return add_cell(t, GL_CELL_TEXT, c);
}

size_t gl_table_rows(const struct gl_table *t)
{
    return t->ncols > 0 ? t->ncells / (size_t)t->ncols : 0;
}

void gl_table_free(struct gl_table *t)
{
    for (int i = 0; i < t->ncols; i++)
        free(t->names ? t->names[i] : NULL);
    free(t->names);
    for (size_t i = 0; i < t->ncells; i++)
        free(t->cells[i].text);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

/* ---- escaping into a growing buffer ---------------------------------------- */

struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
};

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
    sb_putn(b, s, strlen(s));
}

/* Take the buffer's string (an empty one if nothing was written); NULL if out of memory. */
static char *sb_take(struct sbuf *b)
{
    if (!b->oom && !b->s)
        sb_putn(b, "", 0);
    if (b->oom) {
        free(b->s);
        return NULL;
    }
    return b->s;
}

static void esc_table(struct sbuf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '\n')
            sb_puts(b, "\\n");
        else if (*s == '\t')
            sb_puts(b, "\\t");
        else if (*s == '\r')
            sb_puts(b, "\\r");
        else
            sb_putn(b, s, 1);
    }
}

static void esc_md(struct sbuf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            sb_puts(b, "\\|");
        else if (*s == '\\')
            sb_puts(b, "\\\\");
        else if (*s == '\r' && s[1] == '\n')
            continue;   /* CR LF is one line break */
        else if (*s == '\n' || *s == '\r')
            sb_puts(b, "<br>");
        else
            sb_putn(b, s, 1);
    }
}

static void esc_csv(struct sbuf *b, const char *s)
{
    if (s[0] != '\0' && !strpbrk(s, ",\"\r\n")) {
        sb_puts(b, s);
        return;
    }
    sb_puts(b, "\"");
    for (; *s; s++) {
        if (*s == '"')
            sb_puts(b, "\"\"");
        else
            sb_putn(b, s, 1);
    }
    sb_puts(b, "\"");
}

static void esc_tsv(struct sbuf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            sb_puts(b, "\\\\");
        else if (*s == '\t')
            sb_puts(b, "\\t");
        else if (*s == '\n')
            sb_puts(b, "\\n");
        else if (*s == '\r')
            sb_puts(b, "\\r");
        else
            sb_putn(b, s, 1);
    }
}

static void esc_latex(struct sbuf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': case '%': case '$': case '#': case '_': case '{': case '}':
            sb_puts(b, "\\");
            sb_putn(b, s, 1);
            break;
        case '~': sb_puts(b, "\\textasciitilde{}"); break;
        case '^': sb_puts(b, "\\textasciicircum{}"); break;
        case '\\': sb_puts(b, "\\textbackslash{}"); break;
        case '\n': case '\r': case '\t': sb_puts(b, " "); break;
        default: sb_putn(b, s, 1); break;
        }
    }
}

static void esc_json(struct sbuf *b, const char *s)
{
    sb_puts(b, "\"");
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = u[i];
        if (c >= 0x80) {
            size_t len = gl_utf8_len(u + i, n - i);
            if (len == 0) {
                sb_puts(b, "\xEF\xBF\xBD");   /* U+FFFD, the replacement character */
            } else {
                sb_putn(b, s + i, len);
                i += len - 1;
            }
            continue;
        }
        switch (c) {
        case '"': sb_puts(b, "\\\""); break;
        case '\\': sb_puts(b, "\\\\"); break;
        case '\b': sb_puts(b, "\\b"); break;
        case '\f': sb_puts(b, "\\f"); break;
        case '\n': sb_puts(b, "\\n"); break;
        case '\r': sb_puts(b, "\\r"); break;
        case '\t': sb_puts(b, "\\t"); break;
        default:
            if (c < 0x20 || c == 0x7F) {
                char e[8];
                snprintf(e, sizeof e, "\\u%04x", c);
                sb_puts(b, e);
            } else {
                sb_putn(b, s + i, 1);
            }
        }
    }
    sb_puts(b, "\"");
}

/* ---- helpers shared by the aligned formats ---------------------------------- */

/* Characters on screen: UTF-8 continuation bytes take no column. */
static size_t display_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

/* A column is numeric when it holds at least one number and nothing but numbers and NULLs. */
static int column_numeric(const struct gl_table *t, int c)
{
    int seen = 0;
    size_t rows = gl_table_rows(t);
    for (size_t r = 0; r < rows; r++) {
        enum gl_cell_type ty = t->cells[r * (size_t)t->ncols + (size_t)c].type;
        if (ty == GL_CELL_TEXT)
            return 0;
        if (ty != GL_CELL_NULL)
            seen = 1;
    }
    return seen;
}

static void pad(struct sbuf *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sb_putn(b, " ", 1);
}

/* Escaped text of every header name and cell (names first, then cells), with the
 * escaper of the format; NULL cells stay NULL. */
static char **escape_all(const struct gl_table *t, void (*esc)(struct sbuf *, const char *))
{
    size_t n = (size_t)t->ncols + t->ncells;
    char **e = calloc(n ? n : 1, sizeof *e);
    if (!e)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const char *src = i < (size_t)t->ncols ? t->names[i] : t->cells[i - (size_t)t->ncols].text;
        if (!src)
            continue;
        struct sbuf b = { 0 };
        esc(&b, src);
        e[i] = sb_take(&b);
        if (!e[i]) {
            for (size_t j = 0; j < i; j++)
                free(e[j]);
            free(e);
            return NULL;
        }
    }
    return e;
}

static void free_all(char **e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(e[i]);
    free(e);
}

/* ---- the formats ------------------------------------------------------------ */

/* table and md share the layout: escaped cells padded to the column's width. */
static int print_aligned(const struct gl_table *t, int md, FILE *out)
{
    size_t rows = gl_table_rows(t), nc = (size_t)t->ncols;
    char **e = escape_all(t, md ? esc_md : esc_table);
    size_t *w = calloc(nc, sizeof *w);
    int *num = calloc(nc, sizeof *num);
    struct sbuf b = { 0 };
    int rc = -1;
    if (!e || !w || !num)
        goto done;
    for (size_t c = 0; c < nc; c++) {
        num[c] = column_numeric(t, (int)c);
        w[c] = display_width(e[c]);
        if (md && w[c] < 3)
            w[c] = 3;
        for (size_t r = 0; r < rows; r++) {
            const char *s = e[nc + r * nc + c];
            size_t dw = s ? display_width(s) : 0;
            if (dw > w[c])
                w[c] = dw;
        }
    }
    for (size_t r = 0; r <= rows + 1; r++) {
        /* line 0: header, line 1: rule, lines 2..: rows */
        size_t start = b.len;
        if (md)
            sb_puts(&b, "|");
        for (size_t c = 0; c < nc; c++) {
            if (md)
                sb_puts(&b, " ");
            else if (c > 0)
                sb_puts(&b, "  ");
            if (r == 1) {
                size_t dashes = md && num[c] ? w[c] - 1 : w[c];
                for (size_t i = 0; i < dashes; i++)
                    sb_puts(&b, "-");
                if (md && num[c])
                    sb_puts(&b, ":");
            } else {
                const char *s = r == 0 ? e[c] : e[nc + (r - 2) * nc + c];
                size_t dw = s ? display_width(s) : 0;
                if (num[c])
                    pad(&b, w[c] - dw);
                if (s)
                    sb_puts(&b, s);
                if (!num[c])
                    pad(&b, w[c] - dw);
            }
            if (md)
                sb_puts(&b, " |");
        }
        if (!md)   /* no trailing blanks */
            while (b.len > start && !b.oom && b.s[b.len - 1] == ' ')
                b.s[--b.len] = '\0';
        sb_puts(&b, "\n");
    }
    if (b.oom)
        goto done;
    rc = fwrite(b.s, 1, b.len, out) == b.len ? 0 : -1;
done:
    if (e)
        free_all(e, nc + t->ncells);
    free(w);
    free(num);
    free(b.s);
    return rc;
}

static int print_separated(const struct gl_table *t, int tsv, FILE *out)
{
    size_t rows = gl_table_rows(t), nc = (size_t)t->ncols;
    struct sbuf b = { 0 };
    for (size_t r = 0; r <= rows; r++) {
        for (size_t c = 0; c < nc; c++) {
            if (c > 0)
                sb_puts(&b, tsv ? "\t" : ",");
            const char *s = r == 0 ? t->names[c] : t->cells[(r - 1) * nc + c].text;
            if (s) {
                if (tsv)
                    esc_tsv(&b, s);
                else
                    esc_csv(&b, s);
            }
        }
        sb_puts(&b, "\n");
    }
    int rc = !b.oom && fwrite(b.s, 1, b.len, out) == b.len ? 0 : -1;
    free(b.s);
    return rc;
}

static int print_latex(const struct gl_table *t, FILE *out)
{
    size_t rows = gl_table_rows(t), nc = (size_t)t->ncols;
    struct sbuf b = { 0 };
    sb_puts(&b, "\\begin{tabular}{");
    for (size_t c = 0; c < nc; c++)
        sb_puts(&b, column_numeric(t, (int)c) ? "r" : "l");
    sb_puts(&b, "}\n\\hline\n");
    for (size_t r = 0; r <= rows; r++) {
        for (size_t c = 0; c < nc; c++) {
            if (c > 0)
                sb_puts(&b, " & ");
            const char *s = r == 0 ? t->names[c] : t->cells[(r - 1) * nc + c].text;
            if (s)
                esc_latex(&b, s);
        }
        sb_puts(&b, " \\\\\n");
        if (r == 0)
            sb_puts(&b, "\\hline\n");
    }
    sb_puts(&b, "\\hline\n\\end{tabular}\n");
    int rc = !b.oom && fwrite(b.s, 1, b.len, out) == b.len ? 0 : -1;
    free(b.s);
    return rc;
}

static int print_json(const struct gl_table *t, FILE *out)
{
    size_t rows = gl_table_rows(t), nc = (size_t)t->ncols;
    struct sbuf b = { 0 };
    sb_puts(&b, rows ? "[\n" : "[");
    for (size_t r = 0; r < rows; r++) {
        sb_puts(&b, "  {");
        for (size_t c = 0; c < nc; c++) {
            const struct gl_cell *cell = &t->cells[r * nc + c];
            if (c > 0)
                sb_puts(&b, ", ");
            esc_json(&b, t->names[c]);
            sb_puts(&b, ": ");
            if (cell->type == GL_CELL_NULL)
                sb_puts(&b, "null");
            else if (cell->type == GL_CELL_TEXT)
                esc_json(&b, cell->text);
            else if (cell->type == GL_CELL_REAL && !isfinite(strtod(cell->text, NULL)))
                sb_puts(&b, "null");   /* JSON has no infinity */
            else
                sb_puts(&b, cell->text);
        }
        sb_puts(&b, r + 1 < rows ? "},\n" : "}\n");
    }
    sb_puts(&b, "]\n");
    int rc = !b.oom && fwrite(b.s, 1, b.len, out) == b.len ? 0 : -1;
    free(b.s);
    return rc;
}

int gl_table_print(const struct gl_table *t, enum gl_format fmt, FILE *out)
{
    if (t->ncols <= 0)
        return 0;
    switch (fmt) {
    case GL_FMT_TABLE: return print_aligned(t, 0, out);
    case GL_FMT_MD: return print_aligned(t, 1, out);
    case GL_FMT_CSV: return print_separated(t, 0, out);
    case GL_FMT_TSV: return print_separated(t, 1, out);
    case GL_FMT_LATEX: return print_latex(t, out);
    case GL_FMT_JSON: return print_json(t, out);
    }
    return -1;
}
