/* tabfmt.h - a result table held in memory (column names, rows of typed cells)
 * and its printing as aligned text, CSV, TSV, Markdown, LaTeX or JSON: the output
 * side of `gpulab query`. Must not know where the rows come from (the store runs
 * the SQL and fills the table). */
#ifndef GL_TABFMT_H
#define GL_TABFMT_H

#include <stdio.h>
#include "store.h"   /* enum gl_format */

enum gl_cell_type { GL_CELL_NULL, GL_CELL_INT, GL_CELL_REAL, GL_CELL_TEXT };

struct gl_cell {
    enum gl_cell_type type;
    char *text;   /* the value as printed (numbers already formatted); NULL for NULL */
};

struct gl_table {
    int ncols;
    char **names;
    size_t ncells, cap;      /* rows = ncells / ncols */
    struct gl_cell *cells;   /* row-major */
};

/* Columns first (names copied), then cells row by row. 0, or -1 when out of memory. */
int gl_table_init(struct gl_table *t, int ncols, const char *const *names);
int gl_table_add_null(struct gl_table *t);
int gl_table_add_int(struct gl_table *t, long long v);
int gl_table_add_real(struct gl_table *t, double v);
int gl_table_add_text(struct gl_table *t, const char *s, size_t len);
size_t gl_table_rows(const struct gl_table *t);
void gl_table_free(struct gl_table *t);

/* Print the whole table. NULL is empty in every format but JSON (null); a table
 * with no columns prints nothing. 0, or -1 on a write error. */
int gl_table_print(const struct gl_table *t, enum gl_format fmt, FILE *out);

/* The shortest %g form (15 to 17 significant digits) that reads back as v. */
void gl_format_real(double v, char *buf, size_t len);

#endif
