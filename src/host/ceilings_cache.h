/* ceilings_cache.h - a GPU's memory ceilings (struct gl_ceilings), kept on the
 * machine beside the kernel cache, so that a new database on the same GPU
 * takes the ones measured before instead of measuring them again (about 0.35 s
 * on an H100: a fresh database per sweep paid it every time). One file per
 * GPU, <kernel cache>/ceilings-<UUID>.txt, written whole (temporary file and
 * rename) and only when every ceiling was measured. It is used only by the
 * same GPU (UUID) under the same driver version, for at most a week after it
 * was measured; `gpulab device` always measures and rewrites it, and deleting
 * it is always safe. The device row records when the ceilings were measured
 * (device.ceilings_at), not when a database took them.
 * Must not measure anything or touch the store. */
#ifndef GL_CEILINGS_CACHE_H
#define GL_CEILINGS_CACHE_H

#include <stddef.h>

#include "gpulab.h"

#define GL_CEILINGS_MAX_AGE_S (7 * 24 * 3600)

/* The ceilings kept for gpu into c, and when they were measured (UTC, as
 * device.ceilings_at is written) into at: 1; 0 when there are none usable
 * (no file, another driver, older than GL_CEILINGS_MAX_AGE_S, damaged). */
int gl_ceilings_cache_load(const struct gl_device *gpu, struct gl_ceilings *c, char *at,
                           size_t atlen);

/* Keep c for gpu, measured now, when every ceiling was measured (c->why empty),
 * and the time it wrote into at (when at is not NULL), so that the database
 * records the same time. 0, or -1 (not kept: the next new database measures
 * again; at is then ""). */
int gl_ceilings_cache_save(const struct gl_device *gpu, const struct gl_ceilings *c, char *at,
                           size_t atlen);

#endif
