/* launches.h - a kernel section's launch sequence: `launch.NAME = KERNEL<<<GRID,
 * BLOCK[, SMEM]>>>(ARGS) [for VAR < COUNT]` lines, run in the order written as
 * one run (timed as one unit, verified after the last launch). Each launch has
 * its own kernel (a function or template-id of the section's file, or
 * `variant`: the kernel of the variant being run), grid, block, dynamic shared
 * memory and arguments; buffers are the section's, shared by name. A launch
 * with `for VAR < COUNT` is launched COUNT times (COUNT an expression of the
 * point), VAR = 0, 1, ... usable in its own grid, block, smem and scalar
 * arguments. The config reader fills it (src/config_launches.c); the plan's
 * checks (src/kernel_launches.c) and the GPU plugin
 * (experiments/gpu/kernel_sequence.cu) read it through the helpers below.
 * Plain C, no CUDA types; must not parse config text (the reader does). */
#ifndef GL_LAUNCHES_H
#define GL_LAUNCHES_H

#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GL_KSEQ_MAX 16              /* launch.NAME lines of one section */
#define GL_KSEQ_MAX_REPEAT 1024     /* a launch's repeat count at most (GL_MAX_LAUNCHES
                                       bounds the sum: gpulab.h) */

struct gl_klaunch {
    char label[GL_KNAME];         /* NAME of launch.NAME */
    int line;                     /* its config line */
    int variant;                  /* 1: the kernel is the variant's own (`variant<<<...>>>`) */
    char expr[GL_KEXPR];          /* else the kernel: a function name or template-id */
    int ngrid, nblock;            /* 1..3 expressions each */
    char grid[3][GL_KEXPR], block[3][GL_KEXPR];
    char smem[GL_KEXPR];          /* dynamic shared memory bytes ("" = 0) */
    int nargs;
    struct gl_karg args[GL_KERNEL_MAX_ARGS];
    char loop[GL_UPARAM_NAME];    /* the loop variable ("" = launched once) */
    char count[GL_KEXPR];         /* how many times, an expression ("" = once) */
};

struct gl_kseq {
    int n;
    struct gl_klaunch l[GL_KSEQ_MAX];
    char desc[GL_KEXPR];          /* "partials + merge": the variant's description when the
                                     section lists no variants */
};

/* The kernel of launch l when variant kv runs: kv's own or the launch's. */
static inline const char *gl_klaunch_kernel(const struct gl_kernel_variant *kv,
                                            const struct gl_klaunch *l)
{
    return l->variant ? kv->expr : l->expr;
}

/* How many times launch l runs at p (1 without a loop): 0 with *n, or -1 with
 * err (an expression that cannot be evaluated, a count below 0 or above
 * GL_KSEQ_MAX_REPEAT). */
int gl_klaunch_count(const struct gl_klaunch *l, const struct gl_params *p, long long *n,
                     char *err, size_t errlen);

/* p with l's loop variable set to iter, into q (l without a loop: p as it is).
 * 0, or -1 with err when p has no slot left for it. */
int gl_klaunch_params(const struct gl_klaunch *l, const struct gl_params *p, long iter,
                      struct gl_params *q, char *err, size_t errlen);

/* The launches of the whole sequence at p: 0 with *total (1 .. GL_MAX_LAUNCHES),
 * or -1 with err (a count as gl_klaunch_count refuses it, no launch at all, more
 * than GL_MAX_LAUNCHES). err names the launch ("launch.pass: ..."). */
int gl_kseq_total(const struct gl_kseq *s, const struct gl_params *p, int *total, char *err,
                  size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
