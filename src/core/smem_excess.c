/* smem_excess.c - see smem_excess.h: CUPTI's per-instruction shared-memory
 * counts summed into the excess wavefronts of loads and stores. Pure C; must not
 * call CUPTI (cupti/profiler_smem.c does) nor know how the result is stored. */
#include "smem_excess.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const gl_smem_sass_metric[GL_SMEM_NKINDS] = {
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "smsp__sass_inst_executed_op_shared_ld",
    "smsp__sass_inst_executed_op_shared_st",
};

static int by_instruction(const void *a, const void *b)
{
    const struct gl_smem_record *x = (const struct gl_smem_record *)a;
    const struct gl_smem_record *y = (const struct gl_smem_record *)b;
    if (x->cubin != y->cubin)
        return x->cubin < y->cubin ? -1 : 1;
    if (x->function != y->function)
        return x->function < y->function ? -1 : 1;
    if (x->pc != y->pc)
        return x->pc < y->pc ? -1 : 1;
    return x->kind - y->kind;
}

static int same_instruction(const struct gl_smem_record *x, const struct gl_smem_record *y)
{
    return x->cubin == y->cubin && x->function == y->function && x->pc == y->pc;
}

int gl_smem_excess(struct gl_smem_record *rec, size_t n, struct gl_smem_totals *t, char *err,
                   size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (errlen)
        err[0] = '\0';
    for (size_t i = 0; i < n; i++)
        if (rec[i].kind < 0 || rec[i].kind >= GL_SMEM_NKINDS) {
            snprintf(err, errlen, "internal: SASS record of unknown kind %d", rec[i].kind);
            return -1;
        }
    if (n > 1)
        qsort(rec, n, sizeof *rec, by_instruction);
    for (size_t i = 0; i < n;) {
        /* one instruction: its records are together now; a kind may come twice
         * (two flushes of one run): they add up */
        unsigned long long v[GL_SMEM_NKINDS] = { 0 };
        size_t j = i;
        for (; j < n && same_instruction(&rec[i], &rec[j]); j++)
            v[rec[j].kind] += rec[j].value;
        const struct gl_smem_record *at = &rec[i];
        i = j;
        unsigned long long w = v[GL_SMEM_WAVEFRONTS], ideal = v[GL_SMEM_IDEAL];
        if (w < ideal) {
            snprintf(err, errlen, "the instruction at PC 0x%x of function %u (module %08x) took %llu "
                     "shared-memory wavefronts, fewer than its ideal %llu", at->pc, at->function,
                     at->cubin, w, ideal);
            return -1;
        }
        if (v[GL_SMEM_INST_LD] && v[GL_SMEM_INST_ST]) {
            snprintf(err, errlen, "the instruction at PC 0x%x of function %u (module %08x) is "
                     "counted as a shared load and as a shared store", at->pc, at->function,
                     at->cubin);
            return -1;
        }
        int d = v[GL_SMEM_INST_LD] ? GL_SMEM_LD : v[GL_SMEM_INST_ST] ? GL_SMEM_ST : -1;
        if (d < 0) {
            if (w > 0) {
                t->other_wavefronts += (double)w;
                t->other_instructions++;
            }
            continue;
        }
        t->excess[d] += (double)(w - ideal);
        t->wavefronts[d] += (double)w;
        t->ideal[d] += (double)ideal;
        t->executed[d] += (double)v[d == GL_SMEM_LD ? GL_SMEM_INST_LD : GL_SMEM_INST_ST];
        t->instructions[d]++;
    }
    return 0;
}
