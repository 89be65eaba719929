/* profiler.h - the CUPTI measurement engine as the GPU harness sees it: set up the
 * Range Profiler once per worker for a metric list, then profile one run by
 * replaying it once per pass (user replay), with an L2 flush before each pass, and
 * evaluate every metric. Implemented in cupti/gpu_profiler.c (+ the C++ shim for
 * cupti_profiler_host.h). C header; must not include CUDA or CUPTI headers. */
#ifndef GL_PROFILER_H
#define GL_PROFILER_H

#include "gpulab.h"
#include "gpu_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the engine replays one run. All callbacks enqueue work on the default
 * stream of the current context and return; the engine synchronizes. */
struct glc_replay {
    void (*run)(void *ctx);    /* every launch that makes up one run (all of a 1-D or single-block geometry) */
    void (*flush)(void *ctx);  /* read a buffer of >= 2x L2 size: leaves L2 holding clean lines */
    void *ctx;
};

/* After the CUDA context exists (cudaFree(0)); may be called again with another
 * list (reconfigures). Validates every name one by one, builds the config image.
 * Returns passes (>= 1), 0 when req->n == 0, -1 + err when counters are
 * unavailable (no permission: ERR_NVGPUCTRPERM, unsupported chip, ...), -2 + err
 * when a name is unknown to this GPU (err names it and the nearest valid ones). */
int glc_setup(const struct gl_metric_req *req, char *err, size_t errlen);

/* Profile one run. On success fills r->passes and r->metrics (names, units,
 * values; plus gpulab__dram__bytes_write_drain.sum when req->drain) and returns 0.
 * On failure leaves metrics empty, writes r->metrics_reason and returns -1. */
int glc_profile(const struct glc_replay *rp, struct gl_result *r);

/* Every counter metric name the current GPU supports. */
int glc_list(void (*cb)(const char *name, void *ctx), void *ctx, char *err, size_t errlen);

void glc_shutdown(void);

#ifdef __cplusplus
}
#endif
#endif
