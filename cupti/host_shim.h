/* host_shim.h - plain C entry points to the CUPTI profiler host API, whose header
 * (cupti_profiler_host.h) includes <string> and so cannot be compiled as C.
 * Implemented in cupti/gpu_host_shim.cpp, the only C++ file of gpulab. Each
 * function returns the CUptiResult of the call it wraps (0 = success). Must not
 * hold state or policy: the engine (cupti/profiler_*.c) decides what to call and when. */
#ifndef GL_HOST_SHIM_H
#define GL_HOST_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A CUPTI profiler host object (CUpti_Profiler_Host_Object), opaque to C. */
typedef struct glh_host glh_host;

/* A range-profiler host object for chip; avail may be NULL (then every counter of
 * the chip is assumed available: fine for names, wrong for pass counts). */
int glh_create(const char *chip, const uint8_t *avail, glh_host **out);
void glh_destroy(glh_host *h);

/* Add one metric to h's configuration (to find out whether it is accepted). */
int glh_add_metric(glh_host *h, const char *name);

/* Add n metrics in one call: CUPTI schedules counters into passes per call, so
 * one call gives the fewest passes (GH100 default set: 2 passes; 9 if added one
 * by one). */
int glh_add_metrics(glh_host *h, const char *const *names, size_t n);

/* The configuration image of every metric added so far, in a malloc'd buffer
 * (*img, *size); the caller frees it. */
int glh_config_image(glh_host *h, uint8_t **img, size_t *size);

/* Replay passes a configuration image needs. */
int glh_num_passes(const uint8_t *img, size_t size, size_t *passes);

/* Values of n metrics for one range of a decoded counter-data image. */
int glh_evaluate(glh_host *h, const uint8_t *counter_data, size_t size, size_t range,
                 const char *const *names, size_t n, double *values);

/* Call cb(base, suffix, ctx) for every metric name h's chip supports: the full
 * name is base followed by suffix (".sum", ".avg.pct_of_peak_sustained_active"...).
 * Stops at the first failing call and returns its result. */
int glh_each_metric(glh_host *h, void (*cb)(const char *base, const char *suffix, void *ctx),
                    void *ctx);

#ifdef __cplusplus
}
#endif
#endif
