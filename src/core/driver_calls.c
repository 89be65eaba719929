/* driver_calls.c - see driver_calls.h. Names, not CUPTI's callback ids, so
 * that the rule is one table that a test without a GPU can check.
 * Must not call CUDA or CUPTI. */
#include "driver_calls.h"

#include <string.h>

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Kernel launches: cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel
 * and their per-thread-stream (_ptsz) forms. Other work: every other cuLaunch*
 * (cuLaunchHostFunc, cuLaunchCooperativeKernelMultiDevice, the old cuLaunch and
 * cuLaunchGrid*), graph launches, copies and memsets. */
static const char *const kernel_prefix[] = { "cuLaunchKernel", "cuLaunchCooperativeKernel" };
static const char *const work_prefix[] = { "cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset" };

enum gl_driver_call gl_driver_call_kind(const char *name)
{
    if (!name)
        return GL_CALL_NONE;
    for (size_t i = 0; i < sizeof kernel_prefix / sizeof kernel_prefix[0]; i++)
        if (starts_with(name, kernel_prefix[i]) && !strstr(name, "MultiDevice"))
            return GL_CALL_KERNEL;
    for (size_t i = 0; i < sizeof work_prefix / sizeof work_prefix[0]; i++)
        if (starts_with(name, work_prefix[i]))
            return GL_CALL_WORK;
    return GL_CALL_NONE;
}
