/* smem_excess.h - a run's exact shared-memory bank conflicts from CUPTI's
 * per-instruction SASS counts: for every shared-memory instruction the kernel
 * executed, the wavefronts it took and the ideal (the fewest its addresses,
 * width and active threads need: CUPTI's instrumentation computes it per
 * executed warp instruction), summed over its executions; the excess
 * (wavefronts - ideal) of the load instructions (LDS, LD to shared) and of the
 * store instructions (STS, ST to shared) is the exact conflict count of each
 * direction. Other shared-memory instructions (atomics, LDSM, LDGSTS, STSM,
 * GMMA) are in neither, as in the hardware counters' op_ld / op_st.
 * Pure C: must not include CUDA or CUPTI headers (the engine,
 * cupti/profiler_smem.c, turns CUPTI's records into gl_smem_record; the unit
 * test feeds its own). */
#ifndef GL_SMEM_EXCESS_H
#define GL_SMEM_EXCESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The SASS metrics one instruction is counted with. */
enum gl_smem_kind {
    GL_SMEM_WAVEFRONTS,   /* shared-memory wavefronts the instruction took */
    GL_SMEM_IDEAL,        /* ... the ideal number */
    GL_SMEM_INST_LD,      /* its warp-level executions as a shared load (0: not one) */
    GL_SMEM_INST_ST,      /* ... as a shared store */
    GL_SMEM_NKINDS
};

/* CUPTI's SASS metric name of each kind (cupti_sass_metrics.h; GH100, CUPTI 13.0). */
extern const char *const gl_smem_sass_metric[GL_SMEM_NKINDS];

/* One value of one instruction: CUPTI gives one per (instruction, metric) that is
 * not 0, in no particular order. */
struct gl_smem_record {
    uint32_t cubin;       /* the module's CRC */
    uint32_t function;    /* function index in the module */
    uint32_t pc;          /* PC offset in the function */
    int kind;             /* enum gl_smem_kind */
    unsigned long long value;
};

enum { GL_SMEM_LD = 0, GL_SMEM_ST = 1 };

struct gl_smem_totals {
    double excess[2];       /* [GL_SMEM_LD], [GL_SMEM_ST]: sum of wavefronts - ideal */
    double wavefronts[2];
    double ideal[2];
    double executed[2];     /* warp-level instructions executed */
    int instructions[2];    /* distinct instructions (PCs) */
    double other_wavefronts;   /* of instructions that are neither loads nor stores */
    int other_instructions;
};

/* Sum n records (sorted in place by instruction) into t. Returns 0, or -1 with
 * err when they cannot be right: an unknown kind, an instruction counted as
 * both a load and a store, or one with fewer wavefronts than its ideal. */
int gl_smem_excess(struct gl_smem_record *rec, size_t n, struct gl_smem_totals *t, char *err,
                   size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
