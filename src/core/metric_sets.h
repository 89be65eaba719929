/* metric_sets.h - the one table of hardware-counter metrics gpulab knows by
 * name: Nsight Compute name, `results` view column, unit, the set it belongs to
 * (default | full | sass) and its meaning; plus parsing of a config's `metrics =`
 * spec into a request, units and columns by name, and "did you mean" suggestions.
 * Pure C: must not include CUDA or CUPTI headers (it is compiled into the driver),
 * and must not know how metrics are collected (that is cupti/profiler_*.c). */
#ifndef GL_METRIC_SETS_H
#define GL_METRIC_SETS_H

#include <stddef.h>

#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Not a CUPTI metric: DRAM bytes written while the L2 flush that follows a run
 * evicts the run's output lines still dirty in L2 (measured by gpulab). */
#define GL_METRIC_DRAIN "gpulab__dram__bytes_write_drain.sum"
/* The CUPTI metric the drain is measured with (on the flush's range). */
#define GL_METRIC_DRAM_WRITE "dram__bytes_write.sum"
/* Not CUPTI metrics either: the exact shared-memory bank conflicts of a run,
 * loads and stores - the wavefronts its LDS/STS instructions took beyond the
 * ideal, summed over the instructions, from CUPTI's instrumented SASS counts
 * (cupti/profiler_smem.c; src/core/smem_excess.h says how they add up). */
#define GL_METRIC_SMEM_EXCESS_LD "gpulab__smem_excess_wavefronts_ld.sum"
#define GL_METRIC_SMEM_EXCESS_ST "gpulab__smem_excess_wavefronts_st.sum"
/* The name that stands for both in a `metrics =` list (`-smem_excess` leaves
 * the instrumented replay out). */
#define GL_METRIC_SMEM_EXCESS_SET "smem_excess"

enum gl_metric_set {
    GL_SET_DEFAULT = 1,   /* collected unless a config says otherwise */
    GL_SET_FULL = 2,      /* `metrics = full`: default + these */
    GL_SET_SASS = 4       /* instrumented SASS counts: only when named (`sass`) */
};

struct gl_metric_def {
    const char *name;     /* Nsight Compute name (or GL_METRIC_DRAIN) */
    const char *column;   /* column of the `results` view; NULL if it has none */
    const char *unit;     /* "ns", "%", "byte" or "" (a count) */
    int set;              /* enum gl_metric_set: the smallest set that holds it */
    int derived;          /* 1 = measured by gpulab, not a CUPTI metric name */
    const char *desc;     /* one line */
};

extern const struct gl_metric_def gl_metric_table[];
extern const int gl_metric_count;

/* The table row of name (exact), or NULL. */
const struct gl_metric_def *gl_metric_find(const char *name);

/* Unit of any metric name: the table's, else by rule (".pct", "pct_of_peak" -> "%";
 * gpu__time_* -> "ns"; *bytes* -> "byte"; ".per_second" adds "/s"; else ""). */
const char *gl_metric_unit(const char *name);

/* `results` column of name, or NULL when the view has none. */
const char *gl_metric_column(const char *name);

/* 1 if name is shaped like a counter metric name: letters, digits, '_' and '.',
 * starting with a letter, with "unit__counter" and a ".rollup" after it, no
 * empty part, shorter than GL_METRIC_NAME; names starting "gpulab__" must be ours
 * (a row of the table measured by gpulab). */
int gl_metric_name_ok(const char *name);

/* Parse a `metrics =` spec: comma-separated set names (default, full, sass,
 * smem_excess: the two exact-conflict metrics) and metric names, or "none"
 * alone; an entry "-X" (X a set or metric name) leaves X out, whatever the order
 * of the entries ("default, -smem_excess": the default counters without the
 * instrumented replay). Sets expand in table order, duplicates are dropped
 * (first one kept), req->drain is set when the default set (or the drain
 * metric) is included and not left out, and then dram__bytes_write.sum is
 * always in req->names. The drain metric itself is never in req->names; the
 * exact-conflict ones are (the profiler knows them by their gpulab__ prefix).
 * Returns 0, or -1 with err naming every bad entry (also a list that leaves
 * nothing). Names are checked for shape only: whether the GPU knows them is the
 * profiler's job. */
int gl_metric_resolve(const char *spec, struct gl_metric_req *req, char *err, size_t errlen);

/* The nout (or fewer) names of known nearest to name by edit distance, nearest
 * first (ties: earlier in known first). Returns how many were written to out. */
int gl_metric_suggest(const char *name, const char *const *known, int nknown,
                      const char **out, int nout);

/* gpulab metrics PATTERN...: does name match any pattern? A pattern with a
 * glob character (* ? [) is a shell glob over the whole name, any other is a
 * substring; case matters (metric names are lower case). No patterns: 1. */
int gl_metric_match(const char *name, char *const *pats, int npats);

#ifdef __cplusplus
}
#endif

#endif
