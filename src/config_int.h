/* config_int.h - what the three parts of the config reader share, and nothing
 * else includes: config_read.c (text -> blocks of key = value lines, with the
 * keys a config may have), config_values.c (one value list, range or timing
 * value) and config.c (the section rules: defaults, variants, parameters, zip,
 * where). Must not be included outside src/config*.c. */
#ifndef GL_CONFIG_INT_H
#define GL_CONFIG_INT_H

#include <stddef.h>

#include "config.h"

#define MAX_POINTS 1000000L   /* per section, and per range */

/* One `key = value` line. */
struct entry {
    char key[32];
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

/* Write "path:line: message" and return -1: the one error return of the reader. */
int cfg_err(struct ctx *x, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* config_read.c */
/* Split text (in place) into blocks; check every line's syntax, that each key
 * is known, allowed where it stands and not repeated. 0, or -1 (cfg_err). */
int cfg_read_blocks(struct ctx *x, char *text, struct block **out, int *nout);
void cfg_free_blocks(struct block *b, int n);
struct entry *cfg_find(const struct block *b, const char *key);
char *cfg_trim(char *s);

/* config_values.c */
/* The value list or range of parameter d on line e into vals. 0, or -1. */
int cfg_parse_values(struct ctx *x, const struct gl_param_def *d, const struct entry *e,
                     struct gl_values *vals);
void cfg_free_values(struct gl_values *v);
/* Timing keys: an integer in lo..hi; seconds ("2s", "500ms"); noise ("0.5%"). */
int cfg_parse_int_key(struct ctx *x, const struct entry *e, long lo, long hi, int *out);
int cfg_parse_seconds(struct ctx *x, const struct entry *e, double *out);
int cfg_parse_noise(struct ctx *x, const struct entry *e, double *out);

#endif
