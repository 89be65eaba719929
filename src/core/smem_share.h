/* smem_share.h - the exact shared-memory conflicts of a run measured once and
 * shared with the runs that differ from it only in their memory kind.
 *
 * A run's exact conflicts (gpulab__smem_excess_*, one instrumented replay of
 * CUPTI's SASS metrics, 10-200 times the kernel's time) count the wavefronts
 * of its shared-memory instructions. They follow from the kernel, its launch
 * shape and the data it reads, never from where its global buffers live:
 * mem = device, zerocopy and managed runs of one point execute the same
 * shared-memory instructions at the same addresses. So a worker measures them
 * on the first such run (of a batch, or remembered from an earlier batch) and
 * gives the others its values, with a note saying where they came from (run.
 * smem_excess_reason beside the values). GPULAB_SMEM=each measures every run.
 * Used by the GPU harness (experiments/gpu/harness/harness_batch.cu); plain C
 * so that the plan and the copying are tested without a GPU. Must not decide
 * whether a run can be instrumented (the harness does) nor run anything. */
#ifndef GL_SMEM_SHARE_H
#define GL_SMEM_SHARE_H

#include <stddef.h>

#include "gpulab.h"

/* What must be equal for two runs to share their exact conflicts: the kernel
 * (its address in the worker), one launch's shape, the launches of a run and
 * every parameter but the memory kind (the inputs follow from the family and
 * its parameters: built-in families only). Compared whole: set by
 * gl_smem_key_set, which zeroes it first. */
struct gl_smem_key {
    struct {
        const void *kernel;
        unsigned grid[3], block[3];
        size_t dyn_smem;
        int launches;
        struct gl_params p;   /* mem cleared */
    } id;
    char mem[GL_WORD];        /* the run's own memory kind ("device" when unset) */
};

void gl_smem_key_set(struct gl_smem_key *k, const void *kernel, const unsigned grid[3],
                     const unsigned block[3], size_t dyn_smem, int launches,
                     const struct gl_params *p);
int gl_smem_key_same(const struct gl_smem_key *a, const struct gl_smem_key *b);

/* The values measured in a worker, by key: the most recent GL_SMEM_MEMO_KEYS. */
#define GL_SMEM_MEMO_KEYS 32
struct gl_smem_memo {
    struct gl_smem_memo_entry {
        int used;
        struct gl_smem_key key;
        int nm;                          /* the exact-conflict metrics measured (1 or 2) */
        struct gl_metric m[2];
        unsigned long long age;
    } e[GL_SMEM_MEMO_KEYS];
    unsigned long long clock;
};

/* What the harness says of each run of a batch before it is profiled. */
enum {
    GL_SMEM_NONE = 0,     /* not measured, not shared (no shared memory, a library, a
                             user's kernel, the conflicts not asked for, GPULAB_SMEM=each) */
    GL_SMEM_MEASURE = 1,  /* to be measured */
    GL_SMEM_TOO_LONG = 2  /* would be measured but its instrumented replay would take too
                             long: takes another run's values when one has them */
};

/* For runs 0..n-1 of a batch (keys k, what the harness said in want): from[i]
 * = -1 when run i is measured or left alone as want[i] says; j in 0..n-1 when
 * it takes run j's values after the batch (j is measured); n + e when it takes
 * memo entry e's. A run to be measured takes the values of an earlier one; a
 * run that is too long, those of any. A run that takes values gets the note
 * saying whose in r[i]->smem_reason now (while it is profiled it stands for
 * the reason its exact conflicts are not measured there). */
void gl_smem_share_plan(const struct gl_smem_memo *m, const struct gl_smem_key *k,
                        const int *want, int n, int *from, struct gl_result *const *r);

/* After the batch was profiled: remember the values of each run that was
 * measured, and give the planned ones theirs (appended to r[i]->metrics, the
 * note in smem_reason), or say why not (the source has none, the run's other
 * counters failed). k, want, from as gl_smem_share_plan used them. */
void gl_smem_share_apply(struct gl_smem_memo *m, const struct gl_smem_key *k, const int *want,
                         const int *from, struct gl_result *const *r, int n);

#endif
