/* config_int.h - what the parts of the config reader share, and nothing else
 * includes: config_read.c (text -> blocks of key = value lines, with the keys a
 * config may have), config_values.c (one value list, range or timing value),
 * config_section.c (the keys every section has: zip, where, timing, size),
 * config_parse.c (the config and its plain sections: defaults, variants,
 * parameters), config_kernel.c (kernel sections: `source =`) and
 * config_options.c (a kernel section's `compiler` and `options`).
 * Must not be included outside src/config/. */
#ifndef GL_CONFIG_INT_H
#define GL_CONFIG_INT_H

#include <stddef.h>

#include "config.h"

#define MAX_POINTS 1000000L   /* per section, and per range */

/* One `key = value` line. */
struct entry {
    char key[80];   /* buffer.NAME with a name of up to GL_KNAME - 1 characters */
    char *val;      /* points into the parser's copy of the text */
    int line;
};

/* The keys before the first section (name ""), or one [section]. */
struct block {
    char name[64];  /* "" for the keys before the first section */
    int line;
    int n, cap;
    struct entry *e;
};

/* Where errors go: "path:line: message" into err. */
struct ctx {
    const char *path;
    char *err;
    size_t errlen;
};

/* What the defaults block provided, and whether each default found a use. */
struct top_use {
    int param[GL_NPARAMS];
    int *where, *zip;      /* per entry of the top block */
};

/* Write "path:line: message" and return -1: the one error return of the reader. */
int cfg_err(struct ctx *x, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* config_read.c */
/* Split text (in place) into blocks; check every line's syntax, that each key
 * is known, allowed where it stands and not repeated. 0, or -1 (cfg_err). */
int cfg_read_blocks(struct ctx *x, char *text, struct block **out, int *nout);
/* n bytes of text are text: no NUL byte, valid UTF-8; else -1 with "not text
 * (byte 0xNN at column C)" (cfg_err). */
int cfg_check_text(struct ctx *x, const char *text, size_t n);
void cfg_free_blocks(struct block *b, int n);
struct entry *cfg_find(const struct block *b, const char *key);
char *cfg_trim(char *s);
/* Keys only a kernel section has (buffer.NAME aside), NULL-terminated. */
extern const char *const cfg_kernel_keys[];
/* Keys every section may have, NULL-terminated. */
extern const char *const cfg_section_keys[];
/* A key of a kernel section: a kernel key or buffer.NAME. */
int cfg_is_kernel_key(const char *k);

/* config_values.c */
/* The value list or range of parameter d on line e into vals. 0, or -1. */
int cfg_parse_values(struct ctx *x, const struct gl_param_def *d, const struct entry *e,
                     struct gl_values *vals);
void cfg_free_values(struct gl_values *v);
/* Timing keys: an integer in lo..hi; seconds ("2s", "500ms"); noise ("0.5%"). */
int cfg_parse_int_key(struct ctx *x, const struct entry *e, long lo, long hi, int *out);
int cfg_parse_seconds(struct ctx *x, const struct entry *e, double *out);
int cfg_parse_noise(struct ctx *x, const struct entry *e, double *out);

/* config_section.c: the section rules kernel sections share with the others. */
const struct entry *cfg_pick(const struct block *b, const struct block *top, const char *key);
int cfg_section_zip(struct ctx *x, const struct block *b, const struct block *top,
                    struct top_use *use, struct gl_section *s);
/* where lines (the defaults' that apply, then the section's own), checked
 * against the parameters the section sets, built-in and named; adds what they
 * name to sc->used_params / used_names when sc is given. */
int cfg_section_where(struct ctx *x, const struct block *b, const struct block *top,
                      struct top_use *use, struct gl_section *s, struct gl_expr_scope *sc);
int cfg_section_timing(struct ctx *x, const struct block *b, const struct block *top,
                       struct gl_section *s);
int cfg_section_size(struct ctx *x, const struct gl_section *s);
/* The values of the parameter with zip bit `bit` (GL_PBIT or GL_UBIT), and its name. */
const struct gl_values *cfg_bit_values(const struct gl_section *s, int bit, const char **name);

/* config_search.c: a section's strategy, budget, objective and search_seed (its
 * own, else the defaults'), into s->search. 0, or -1 (cfg_err). */
int cfg_section_search(struct ctx *x, const struct block *b, const struct block *top,
                       struct gl_section *s);
/* The keys of a search: not part of a kernel's hash (a longer budget resumes). */
int cfg_is_search_key(const char *k);

/* config_kernel.c: a section with `source =`, all of it. 0, or -1 (cfg_err). */
int cfg_kernel_section(struct ctx *x, const struct block *b, const struct block *top,
                       struct top_use *use, struct gl_section *s);
void cfg_kernel_free(struct gl_section *s);
/* config_options.c: a kernel section's `compiler` and `options` keys, and the
 * config's folder (k->config_dir, which the -I folders are found from). 0, or
 * -1 (cfg_err). */
int cfg_kernel_compile_keys(struct ctx *x, const struct block *b, struct gl_kernel *k);
#endif
