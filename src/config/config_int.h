/* config_int.h - what the parts of the config reader share, and nothing else
 * includes: config_read.c (text -> blocks of key = value lines, with the keys a
 * config may have), config_values.c (one value list, range or timing value),
 * config_section.c (the keys every section has: zip, where, timing, size),
 * config_parse.c (the config and its plain sections: defaults, variants,
 * parameters), config_kernel.c (kernel sections: `source =`), config_options.c
 * (a kernel section's `compiler` and `options`), config_kinit.c (buffer inits and
 * symbols) and config_launches.c (its `launch.NAME` lines).
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
/* The keys before the first section of a config without kernel sections: a
 * kernel key or unknown identifier there is an error. 0, or -1 (cfg_err). */
int cfg_check_top(struct ctx *x, const struct block *bl, int nb);
/* A key of every section, a built-in parameter, `study` or `description`. */
int cfg_is_known_key(const char *k);
struct entry *cfg_find(const struct block *b, const char *key);
char *cfg_trim(char *s);
/* Keys only a kernel section has (buffer.NAME aside), NULL-terminated. */
extern const char *const cfg_kernel_keys[];
/* Keys every section may have, NULL-terminated. */
extern const char *const cfg_section_keys[];
/* A key of a kernel section: a kernel key or buffer.NAME. */
int cfg_is_kernel_key(const char *k);
/* grid.NAME, block.NAME, smem.NAME or args.NAME: one variant's own launch shape. */
int cfg_is_variant_key(const char *k);

/* config_defaults.c: the keys before the first section as defaults of kernel
 * sections. cfg_kernel_block: into m (its entries owned, the values the
 * blocks'), b's lines and the defaults b takes (used[i] set for each top entry
 * taken). cfg_top_unused: a kernel default that no section took is an error.
 * cfg_grid_is_param: a grid value of the built-in parameter's words. 0, or -1. */
int cfg_kernel_block(struct ctx *x, const struct block *top, const struct block *b, int *used,
                     struct block *m);
int cfg_top_unused(struct ctx *x, const struct block *top, const int *used, int nkernel);
int cfg_grid_is_param(const char *val);
int cfg_is_kernel_default(const struct entry *e);

/* config_values.c */
/* The value list or range of parameter d on line e into vals. 0, or -1. */
int cfg_parse_values(struct ctx *x, const struct gl_param_def *d, const struct entry *e,
                     struct gl_values *vals);
void cfg_free_values(struct gl_values *v);
/* Timing keys: an integer in lo..hi; seconds ("2s", "500ms"); noise ("0.5%"). */
int cfg_parse_int_key(struct ctx *x, const struct entry *e, long lo, long hi, int *out);
int cfg_parse_seconds(struct ctx *x, const struct entry *e, double *out);
int cfg_parse_noise(struct ctx *x, const struct entry *e, double *out);

/* config_text.c: the text helpers of kernel sections' readers. */
extern const char *const cfg_function_names[];   /* the expression language's, NULL-ended */
/* a C identifier's first character, a later one, and a whole identifier */
int cfg_ident_start(char c);
int cfg_ident_char(char c);
int cfg_is_ident(const char *s);
/* Append ", item" (or "item" first) to the list in buf, as far as it fits. */
void cfg_add_to_list(char *buf, size_t len, const char *item);
/* The next comma-separated item of *p outside parentheses (and <...> when
 * angle), trimmed, cut in place; NULL at the end. */
char *cfg_next_item(char **p, int angle);
/* The names of the __global__ functions text declares (at most max). */
int cfg_global_names(const char *text, char names[][GL_KNAME], int max);
/* 1 when text uses name as an identifier. */
int cfg_has_ident(const char *text, const char *name);
/* 1 when k's source or a user header it includes (deps.h's scan) uses name
 * as an identifier: a kernel defined in an included header can be named. With
 * n, names gets the __global__ functions of all of them (at most max, *n). */
int cfg_kernel_has_ident(const struct gl_kernel *k, const char *name, char names[][GL_KNAME],
                         int max, int *n);
/* A kernel expression: its function name (trimmed, namespaces kept) into func,
 * and 1 when it is a name or a template-id f<ARGS>, else 0. */
int cfg_kernel_expr(const char *expr, char *func, size_t len);
/* 1 when key is symbol.NAME (NAME a C++ name, possibly qualified: ns::c_table). */
int cfg_is_symbol_key(const char *key);

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
/* After every section is read: each `verify = NAME` that names a variant of
 * another kernel section of the config (SECTION.NAME, or a name only one other
 * section has) is checked against this section's buffers and parameters and
 * becomes its variants' reference. 0, or -1 (cfg_err). */
int cfg_kernel_cross_verify(struct ctx *x, struct gl_config *c);
/* An expression of a kernel section's key (what names it in messages) in the
 * scope sc (the parameters it names are marked used), copied into out (NULL:
 * not kept). 0, or -1 (cfg_err). */
int cfg_kernel_check_expr(struct ctx *x, int line, const char *what, const char *e,
                          struct gl_expr_scope *sc, const struct gl_section *s, char *out);
/* config_objects.c: the section's tensormap.NAME, texture.NAME and surface.NAME
 * lines (kernel.h struct gl_kobject) over its buffers and arrays, read before
 * `args` names them. 0, or -1 (cfg_err). */
int cfg_kernel_objects(struct ctx *x, const struct block *b, struct gl_section *s,
                       struct gl_kernel *k, struct gl_expr_scope *sc);
/* config_section.c: every identifier of text (a variant's template arguments)
 * that names a parameter of section s marked used in sc. */
void cfg_mark_names(const char *text, const struct gl_section *s, struct gl_expr_scope *sc);
/* config_read.c: the object key prefixes ("tensormap.", "texture.",
 * "surface."): the kind (enum gl_kobj_kind) of key, or -1. */
int cfg_object_kind(const char *key);

/* config_kinit.c: what follows TYPE[COUNT] on a buffer.NAME or symbol.NAME
 * line (p, modified): the init and `output` into bf, its random stream from
 * *nrandom. 0, or -1 (cfg_err; what names the key). */
struct gl_kbuffer;
int cfg_kbuffer_inits(struct ctx *x, int line, const char *what, char *p, struct gl_kbuffer *bf,
                      int *nrandom);
/* config_options.c: a kernel section's `compiler` and `options` keys, and the
 * config's folder (k->config_dir, which the -I folders are found from). 0, or
 * -1 (cfg_err). */
int cfg_kernel_compile_keys(struct ctx *x, const struct block *b, struct gl_kernel *k);
/* config_target.c: `launch =`, `arch =`, and the checks of the kernels' text
 * against them and `cluster` (grid-wide syncs, __cluster_dims__), after the
 * variants and the launch shape are read. 0, or -1 (cfg_err). */
int cfg_kernel_targets(struct ctx *x, const struct block *b, const struct gl_section *s,
                       struct gl_kernel *k);
/* config_launches.c: a kernel section's launch.NAME lines (src/core/launches.h).
 * cfg_has_launches: 1 when b has any. cfg_kernel_launch_variants: the one
 * variant of a section with launch lines and no `variants` (named like the
 * section). cfg_kernel_launches: the lines into k->seq, after the buffers and
 * variants are read; what they read is added to sc. 0, or -1 (cfg_err). */
int cfg_has_launches(const struct block *b);
int cfg_kernel_launch_variants(struct ctx *x, const struct block *b, struct gl_section *s,
                               struct gl_kernel *k);
int cfg_kernel_launches(struct ctx *x, const struct block *b, struct gl_section *s,
                        struct gl_kernel *k, struct gl_expr_scope *sc);
/* config_scalar.c: types and scalars of a kernel section. */
/* `NAME = float, double`: 1 with vals (the types, ktype.h's encoding) when the
 * values are types, 0 when they are not (an integer parameter), -1 (cfg_err)
 * for a mix or a misspelt type. */
int cfg_type_param(struct ctx *x, const struct entry *e, struct gl_values *vals);
/* An integer parameter's values must not be the encoding of a type. 0, or -1. */
int cfg_check_not_type_value(struct ctx *x, const struct entry *e, const struct gl_values *vals);
/* Named parameter u of s is a type parameter: 1, else 0; the mask of them all. */
int cfg_is_type_param(const struct gl_section *s, int u);
unsigned cfg_type_params(const struct gl_section *s);
/* A buffer's or scalar's type word: a type's name (*t, tparam "") or a type
 * parameter of s (*t its first type, tparam its name, its bit in *used_names).
 * 0, or -1 (cfg_err with the nearest type). */
int cfg_kernel_type(struct ctx *x, int line, const char *what, const struct gl_section *s,
                    const char *word, enum gl_ktype *t, char *tparam, unsigned *used_names);
/* The named parameters an expression added to used_names (before -> after)
 * include a type parameter: -1 (cfg_err naming it), else 0. */
int cfg_kernel_no_types(struct ctx *x, int line, const char *what, const struct gl_section *s,
                        unsigned before, unsigned after);
/* A scalar argument `WORD EXPR` into a (type, tparam, expr): checked for each
 * type it may take, and evaluated now when it names no parameter. 0, or -1. */
int cfg_kernel_scalar(struct ctx *x, int line, const struct gl_section *s,
                      struct gl_expr_scope *sc, const char *word, const char *expr,
                      struct gl_karg *a);
#endif
