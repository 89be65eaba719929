/* shard.h - `--shard I/N`: which jobs of a plan one shard (one task of a Slurm
 * job array, one machine) runs. A job belongs to shard I of N when the first 8
 * bytes of the SHA-256 of its shard key, read as a big-endian integer, are I
 * modulo N. The shard key is the run key without what a node only learns once it
 * runs (the device: which GPU it lands on) and without the kernel's code hash:
 * study, family, variant, the variant's device kind (cpu | gpu), every parameter
 * it reads (threads = 0, "every core", as 0, not the node's core count) and the
 * named parameters. So every node computes the same slices, the slices are
 * disjoint and cover the plan, and adding points to a config moves no other
 * point to another shard. I counts from 0 (0 .. N-1), as Slurm's array task ids
 * usually do. Without --shard, I/N comes from a Slurm job array's environment
 * (gl_shard_resolve says how).
 * Must not decide anything else about a job (sweep.c classifies it), touch the
 * database or print. */
#ifndef GL_SHARD_H
#define GL_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct gl_shard {
    int index;          /* 0 .. count-1 */
    int count;          /* 0: not sharded, the whole plan */
    char from[160];     /* where I/N came from: "--shard" or the Slurm variables */
};

/* "I/N" (0 <= I < N, 1 <= N <= 1000000) into sh. 0, or -1 with err naming text. */
int gl_shard_parse(const char *text, struct gl_shard *sh, char *err, size_t errlen);

/* The shard of a run: opt when given (--shard I/N; "0/1" is the whole plan,
 * also inside a job array); else, inside a Slurm job array (SLURM_ARRAY_TASK_ID
 * set), I = (ID - MIN) / STEP and N = SLURM_ARRAY_TASK_COUNT, from
 * SLURM_ARRAY_TASK_MIN, _MAX and _STEP (1 when unset), so that --array=0-7,
 * --array=1-8 and --array=0-14:2 all give shards 0..7 of 8; an array whose ids
 * are not MIN, MIN+STEP, ... MAX (--array=1,3,7, or a resubmission of some of
 * the tasks) is refused, since its count is not the number of shards: pass
 * --shard explicitly then. Else not sharded (count 0). env: getenv, or a stand-in
 * (tests). 0, or -1 with err (a usage error). */
int gl_shard_resolve(const char *opt, const char *(*env)(const char *name), struct gl_shard *sh,
                     char *err, size_t errlen);

/* The 64-bit hash of job's shard key (above). */
uint64_t gl_shard_hash(const struct gl_job *job);

/* 1 when job belongs to sh (always, when sh is NULL or not sharded), else 0. */
int gl_shard_has(const struct gl_shard *sh, const struct gl_job *job);

#endif
