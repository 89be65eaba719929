/* params.h - the one table of run parameters (name in configs, SQL column, type,
 * meaning) and small accessors over struct gl_params.
 * Must not know about configs, variants or storage beyond naming the column. */
#ifndef GL_PARAMS_H
#define GL_PARAMS_H

#include "gpulab.h"

enum gl_param_id {
    GL_P_N, GL_P_M, GL_P_P, GL_P_BS, GL_P_K, GL_P_R, GL_P_G, GL_P_THREADS, GL_P_SEED,
    GL_P_MEM, GL_P_GRID, GL_P_CACHE,
    GL_NPARAMS
};

#define GL_PBIT(id) (1u << (id))

struct gl_param_def {
    enum gl_param_id id;
    const char *name;     /* as written in configs: N, BS, mem ... */
    const char *column;   /* SQL column in run / results / run_key: the store generates
                           * those lists from this table (src/store/store_sql.c); a new
                           * column also needs a db/migrations/ file adding it to run */
    int is_text;          /* 0 = integer, 1 = word from choices */
    const char *const *choices; /* NULL-terminated, text params only */
    long min;             /* smallest valid integer value */
    /* What a run gets when the config leaves it unset: a number or a choice,
     * the name of another parameter whose value it takes ("N": square
     * problems), or NULL for none (the config must set it). */
    const char *deflt;
    const char *desc;
};

extern const struct gl_param_def gl_param_table[GL_NPARAMS];

const struct gl_param_def *gl_param_by_name(const char *name);      /* exact, NULL if none */
const char *gl_param_nearest(const char *name);  /* closest known name (for "did you mean") */
void gl_params_init(struct gl_params *p);        /* everything unset */
long gl_params_get(const struct gl_params *p, enum gl_param_id id);       /* GL_UNSET if unset */
void gl_params_set(struct gl_params *p, enum gl_param_id id, long v);
const char *gl_params_get_text(const struct gl_params *p, enum gl_param_id id); /* "" if unset */
int gl_params_set_text(struct gl_params *p, enum gl_param_id id, const char *v); /* -1 if not a choice */
int gl_params_is_set(const struct gl_params *p, enum gl_param_id id);
/* Give every parameter in mask that is unset its default (the table's deflt),
 * then keep only the parameters in mask; others become unset. */
void gl_params_complete(struct gl_params *p, unsigned mask);
/* Keep only the parameters in mask; others become unset. */
void gl_params_mask(struct gl_params *p, unsigned mask);
/* Named parameters (kernel sections): set name to v, keeping them sorted by
 * name. 0, or -1 when the name is empty, too long or all slots are taken. */
int gl_params_user_set(struct gl_params *p, const char *name, long v);
/* The named parameter, or NULL. */
const struct gl_uparam *gl_params_user_find(const struct gl_params *p, const char *name);
/* "BLOCK_ROWS=8 TILE=16": the named parameters in name order ("" for none), as
 * stored with a run (part of its resume key). */
void gl_params_user_format(const struct gl_params *p, char *buf, size_t len);
/* "N=2048 BS=16 mem=device TILE=16": set parameters in table order, then the
 * named ones. */
void gl_params_format(const struct gl_params *p, char *buf, size_t len);

#endif
