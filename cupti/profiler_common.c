/* profiler_common.c - what every file of the CUPTI engine shares: the
 * process-wide state (glc_st), the optional time trace (GPULAB_CUPTI_TRACE) and
 * its print, formatting, CUPTI's error strings, and why counters are
 * unavailable, in words.
 * Must not call CUPTI beyond its error strings, nor any other file of the
 * engine: they all call it. */
#include "profiler_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Where profiling time goes (see struct glc_trace_sums). */
static const char *const trace_name[T_N] = { "object warm-up (at set-up)", "re-enable",
    "setconfig", "counterdata init", "sync", "start (a session's first pass)",
    "start (later passes)", "flush", "run", "push/pop", "stop", "decode", "evaluate",
    "exact smem (instrumented)", "total" };
struct glc_trace_sums glc_trace;

double glc_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int glc_max_ranges(void)
{
    static int cap = 0;
    if (cap == 0) {
        const char *e = getenv("GPULAB_CUPTI_RANGES");
        long v = e && *e ? strtol(e, NULL, 10) : 0;
        cap = v >= 4 && v <= MAX_RANGES ? (int)v : MAX_RANGES;
    }
    return cap;
}

int glc_env_on(const char *name)
{
    const char *e = getenv(name);
    return e && *e && strcmp(e, "0") != 0;
}

int glc_restores_between(void)
{
    static int on = -1;
    if (on < 0)
        on = glc_env_on("GPULAB_CUPTI_RESTORE_BETWEEN");
    return on;
}

/* Add the time since *t0 to phase k and restart the clock. */
void glc_lap(int k, double *t0)
{
    if (!glc_trace.on)
        return;
    double t = glc_now_s();
    glc_trace.sum[k] += t - *t0;
    *t0 = t;
}

/* The trace's sums, per profiled run, on stderr (GPULAB_CUPTI_TRACE). */
void glc_trace_print(void)
{
    if (!glc_trace.on)
        return;
    /* one line per worker (tests/gpu/collection_reuse.sh counts them) */
    fprintf(stderr, "gpulab cupti collections: pid %ld, configurations built %ld, reused %ld; "
            "range profiler objects started %ld (new configuration %ld, range mode %ld, after "
            "instrumented replays %ld, after failures %ld, asked fresh %ld), warmed at set-up %ld\n",
            (long)getpid(), glc_trace.configs_built, glc_trace.configs_reused,
            glc_trace.objects_config + glc_trace.objects_mode + glc_trace.objects_smem +
                glc_trace.objects_broken + glc_trace.objects_asked,
            glc_trace.objects_config, glc_trace.objects_mode, glc_trace.objects_smem,
            glc_trace.objects_broken, glc_trace.objects_asked, glc_trace.objects_warmed);
    if (glc_trace.profiles == 0)
        return;
    fprintf(stderr, "gpulab cupti trace: %ld profiled runs in %ld sessions, %.2f passes/run; "
            "ms per run:", glc_trace.profiles, glc_trace.sessions,
            (double)glc_trace.passes / (double)glc_trace.profiles);
    for (int k = 0; k < T_N; k++)
        fprintf(stderr, "%s %s %.3f", k ? "," : "", trace_name[k],
                glc_trace.sum[k] * 1e3 / (double)glc_trace.profiles);
    fprintf(stderr, "\n");
}

struct glc_state glc_st;

void glc_fmt(char *buf, size_t len, const char *f, ...)
{
    va_list ap;
    if (!buf || len == 0)
        return;
    va_start(ap, f);
    vsnprintf(buf, len, f, ap);
    va_end(ap);
}

const char *glc_cupti_str(CUptiResult rc)
{
    const char *s = NULL;
    if (cuptiGetResultString(rc, &s) != CUPTI_SUCCESS || !s)
        return "unknown CUPTI error";
    return s;
}

/* The reason counters are unavailable, for the errors that mean just that. */
int glc_unavailable_reason(CUptiResult rc, const char *call, char *buf, size_t len)
{
    switch (rc) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        glc_fmt(buf, len, "no permission to read GPU performance counters (%s: %s; "
            "ERR_NVGPUCTRPERM): run as root or load the driver with "
            "NVreg_RestrictProfilingToAdminUsers=0", call, glc_cupti_str(rc));
        return 1;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
        glc_fmt(buf, len, "GPU performance counters not supported here (%s: %s)", call,
            glc_cupti_str(rc));
        return 1;
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        glc_fmt(buf, len, "GPU performance counters in use by another profiler (%s: %s; "
            "running under ncu or nsys?)", call, glc_cupti_str(rc));
        return 1;
    default:
        return 0;
    }
}
