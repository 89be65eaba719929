/* run_config.h - one config of a sweep run: its jobs through the run loop,
 * then each searched section's search (search.c), which hands its batches to
 * the same run loop.
 * Must not be called by the run loop or the search: it is above both. */
#ifndef GL_RUN_CONFIG_H
#define GL_RUN_CONFIG_H

#include "run_loop.h"

/* Run config ci in session `session`. 0, or -1 when the sweep must stop
 * (interrupted, a storage error, no worker: rl's fields say which). */
int gl_run_config(struct gl_run_loop *rl, int ci, long long session);

#endif
