/* config.h - experiment configs: parse a .conf file (INI sections, lists, ranges,
 * where-constraints, zipped parameters; sections of built-in variants, and kernel
 * sections - `source =` - that declare a user's CUDA kernels, src/core/kernel.h)
 * and expand it into the list of jobs a sweep runs. Errors are "file:line:
 * message" naming the offending text.
 * Must not run anything, touch the database or know about CUDA. */
#ifndef GL_CONFIG_H
#define GL_CONFIG_H

#include "gpulab.h"
#include "params.h"
#include "registry.h"
#include "expr.h"
#include "kernel.h"

#define GL_MAX_VARIANTS 32
#define GL_MAX_WHERE 16
#define GL_MAX_ZIP 8

/* A named parameter of a kernel section in a zip mask (built-in ones: GL_PBIT). */
#define GL_UBIT(u) (1u << (GL_NPARAMS + (u)))
_Static_assert(GL_NPARAMS + GL_MAX_UPARAMS <= 32, "zip masks hold every parameter");

/* The values one parameter sweeps over, as written on one config line. */
struct gl_values {
    int set;                 /* 0 = the section does not set this parameter */
    int line;                /* config line that set it */
    int n;                   /* number of values */
    long *ints;              /* integer params: n values */
    char (*words)[GL_WORD];  /* text params: n values */
    char **dev;              /* NULL, or n entries: the text of a value that names a device
                                value (sm_count, occupancy: src/core/target.h), evaluated
                                again by gl_config_device_values once the GPU is known */
};

/* A section's search (config_search.c, run by src/sweep/search.c): how its
 * points are chosen. GL_SEARCH_EXHAUSTIVE (the default) runs the whole product. */
enum gl_strategy {
    GL_SEARCH_EXHAUSTIVE, GL_SEARCH_RANDOM, GL_SEARCH_ANNEALING, GL_SEARCH_GENETIC,
    GL_SEARCH_LOCAL, GL_SEARCH_STRATEGIES
};
extern const char *const gl_strategy_names[GL_SEARCH_STRATEGIES];
struct gl_search {
    enum gl_strategy strategy;
    int strategy_line;          /* 0: not set */
    long budget_evals;          /* evaluations (> 0), or 0 */
    double budget_pct;          /* percent of the section's launchable points, or 0 */
    double budget_seconds;      /* seconds of the search's runs, or 0 */
    int budget_line;
    char objective[64];         /* a numeric column of the results view (time: median_ms) */
    int maximize;               /* objective written "-column": larger is better */
    char objective_text[64];    /* as written */
    int objective_line;
    unsigned long long seed;    /* search_seed: the same seed and results, the same points */
    int seed_line;
};

struct gl_section {
    char name[64];
    int line;                            /* line of the [name] header */
    char family[32];
    int nvariants;
    char variants[GL_MAX_VARIANTS][64];  /* "all", "cpu" and "gpu" are expanded at parse time */
    int variants_line;
    struct gl_values values[GL_NPARAMS];
    int nwhere;
    char *where[GL_MAX_WHERE];           /* expression text, AND-ed */
    int where_line[GL_MAX_WHERE];
    int nzip;
    unsigned zip[GL_MAX_ZIP];            /* GL_PBIT | GL_UBIT mask of params that move together */
    int zip_line[GL_MAX_ZIP];
    struct gl_timing timing;
    int time_cap_given;       /* time_cap set (else CPU variants get GL_TIME_CAP_CPU) */
    char metrics[512];                   /* none | default | full | list of names (with set names) */
    int metrics_line;
    /* A kernel section (`source =`): its kernel and one variant per item of
     * `variants` (variants[i] is kvs[i].name); NULL for built-in variants. */
    struct gl_kernel *kernel;
    struct gl_kernel_variant *kvs;
    /* A variant with a launch of its own (grid.NAME, block.NAME, smem.NAME,
     * args.NAME): its own copy of kernel with those replaced (kvs[i].k), owned;
     * NULL: kvs[i].k is kernel. */
    struct gl_kernel *kshape[GL_MAX_VARIANTS];
    /* Named parameters (kernel sections): name and values, in config order. */
    int nuser;
    char uname[GL_MAX_UPARAMS][GL_UPARAM_NAME];
    struct gl_values uvalues[GL_MAX_UPARAMS];
    struct gl_search search;             /* strategy, budget, objective, search_seed */
};

/* The section's i-th variant: a kernel variant's &kvs[i].v, or the registry's. */
const struct gl_variant *gl_section_variant(const struct gl_section *s, int i);

struct gl_config {
    char path[512];
    char *text;              /* whole file, stored with each session (and hashed) */
    char study[64];          /* `study = ` before the first section; default: file basename */
    char description[256];
    int nsections;
    struct gl_section *sections;
};

/* 0 on success; -1 with "path:line: message" in err. */
int gl_config_load(const char *path, struct gl_config *c, char *err, size_t errlen);
int gl_config_parse(const char *path, const char *text, struct gl_config *c, char *err, size_t errlen);
void gl_config_free(struct gl_config *c);
/* Evaluate again every parameter value that names a device value (`G =
 * sm_count`, `G = 2*sm_count`) with the values set now (gl_devvals_set: the
 * GPU found, or the assumed one). 1 when some value named one, 0 when none,
 * -1 with "path:line: message" in err. */
int gl_config_device_values(struct gl_config *c, char *err, size_t errlen);
/* The timing policy used when a config says nothing (documented in docs/measurement.md). */
void gl_timing_defaults(struct gl_timing *t);
/* The time cap of CPU baselines when their section sets none (seconds): a CPU
 * run of a second needs no 2 s of samples, and a sweep's CPU rows would
 * otherwise cost 2-4 s each whatever their length. */
#define GL_TIME_CAP_CPU 0.3

/* One run the sweep wants. */
struct gl_job {
    int section;                  /* index into config sections */
    const struct gl_variant *v;
    struct gl_params p;           /* completed (gl_variant_complete) and masked */
    struct gl_timing t;
    const char *metrics;          /* the section's metrics text (owned by the config) */
    const char *study;            /* the config's study (owned by the config) */
    char skip[GL_REASON_MAX];     /* non-empty: variant check() rejected it; stored as skipped */
    int threads_all;              /* the point asked for every core (threads = 0): p.threads
                                     is this machine's count, the shard key (shard.c) reads 0 */
    int searched;                 /* its section has a strategy other than exhaustive: a
                                     search (src/sweep/search.c) picks whether it runs */
};

/* A group of candidate points dropped before becoming jobs, with why. */
struct gl_reject {
    int section;
    char variant[64];
    char reason[GL_REASON_MAX];   /* e.g. "where: N % (2*BS) == 0" */
    int count;
};

struct gl_expansion {
    int njobs;
    struct gl_job *jobs;
    int nrejects;
    struct gl_reject *rejects;
    int nduplicates;              /* points that collapsed into one job (params the variant does not read) */
};

/* config_section.c: the values of section s's parameter with zip bit `bit`
 * (GL_PBIT position, or GL_NPARAMS + a named parameter's index), and its name
 * in *name (name may be NULL). */
const struct gl_values *gl_section_values(const struct gl_section *s, int bit, const char **name);

/* One axis of a section's product: a parameter, or a zip group that advances
 * together. */
struct gl_axis {
    unsigned params;   /* its parameters' bits */
    int len;           /* its number of values */
};
#define GL_MAX_AXES (GL_NPARAMS + GL_MAX_UPARAMS)
/* expand.c: the axes of section s in the product's order (the last one
 * fastest), into ax[0..GL_MAX_AXES); their number. */
int gl_section_axes(const struct gl_section *s, struct gl_axis *ax);

/* Expand every section: cartesian product of the parameter values (zipped
 * groups advance together), dropped where a `where` is false (counted in rejects),
 * completed and masked per variant, de-duplicated, then check()ed against gpu
 * (NULL = static limits) so rejected launches become jobs with skip set.
 * only != NULL keeps only that variant name. 0, or -1 with "path:line: message". */
int gl_expand(const struct gl_config *c, const struct gl_device *gpu, const char *only,
              struct gl_expansion *out, char *err, size_t errlen);
void gl_expansion_free(struct gl_expansion *e);

#endif
