/* kernel_scalars.h - a user kernel's scalar arguments at a run's point, as the
 * store keeps them (struct gl_run_scalar, table run_scalar): position, the
 * kernel's parameter name from the source, type, expression and value.
 * Must not store, compile or launch anything. */
#ifndef GL_KERNEL_SCALARS_H
#define GL_KERNEL_SCALARS_H

#include "kernel.h"
#include "kernel_sig.h"
#include "store.h"

/* Room for one run's scalars: the rows and the texts they point into. */
struct gl_kernel_scalars {
    int n;
    struct gl_run_scalar row[GL_KERNEL_MAX_ARGS];
    char names[GL_KSIG_MAX][GL_KSIG_NAME];
    char types[GL_KERNEL_MAX_ARGS][16];
};

/* kv's scalar arguments at p into out (out->n of them; one that has no value
 * at p is left out: its run was skipped with the reason). */
void gl_kernel_scalars(const struct gl_kernel_variant *kv, const struct gl_params *p,
                       struct gl_kernel_scalars *out);

#endif
