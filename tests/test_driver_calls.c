/* test_driver_calls.c - gl_driver_call_kind on the driver API names CUPTI's
 * callbacks give: launches of one kernel count, other work on the GPU makes a
 * library call's count unusable, the rest is nothing. Must not call CUDA. */
#include "driver_calls.h"
#include "t.h"

static const struct {
    const char *name;
    enum gl_driver_call kind;
} cases[] = {
    /* launches of one kernel on this device */
    { "cuLaunchKernel", GL_CALL_KERNEL },
    { "cuLaunchKernel_ptsz", GL_CALL_KERNEL },
    { "cuLaunchKernelEx", GL_CALL_KERNEL },
    { "cuLaunchKernelEx_ptsz", GL_CALL_KERNEL },
    { "cuLaunchCooperativeKernel", GL_CALL_KERNEL },
    { "cuLaunchCooperativeKernel_ptsz", GL_CALL_KERNEL },
    /* launches that are not one kernel on this device, or no kernel at all */
    { "cuLaunchCooperativeKernelMultiDevice", GL_CALL_WORK },
    { "cuLaunchHostFunc", GL_CALL_WORK },
    { "cuLaunchHostFunc_ptsz", GL_CALL_WORK },
    { "cuLaunch", GL_CALL_WORK },
    { "cuLaunchGrid", GL_CALL_WORK },
    { "cuLaunchGridAsync", GL_CALL_WORK },
    { "cuGraphLaunch", GL_CALL_WORK },
    { "cuGraphLaunch_ptsz", GL_CALL_WORK },
    /* copies and memsets */
    { "cuMemcpyAsync", GL_CALL_WORK },
    { "cuMemcpyHtoDAsync_v2", GL_CALL_WORK },
    { "cuMemcpy2DAsync_v2_ptsz", GL_CALL_WORK },
    { "cuMemsetD32Async", GL_CALL_WORK },
    { "cuMemsetD8_v2", GL_CALL_WORK },
    /* nothing that runs on the GPU */
    { "", GL_CALL_NONE },
    { "cuCtxGetCurrent", GL_CALL_NONE },
    { "cuFuncGetAttribute", GL_CALL_NONE },
    { "cuFuncSetAttribute", GL_CALL_NONE },
    { "cuStreamGetCaptureInfo_v2", GL_CALL_NONE },
    { "cuMemAlloc_v2", GL_CALL_NONE },
    { "cuEventRecord", GL_CALL_NONE },
    { "cuKernelGetFunction", GL_CALL_NONE },
    /* a prefix match only: the name must start with the call's */
    { "xcuLaunchKernel", GL_CALL_NONE },
    { "cuLaunc", GL_CALL_NONE },
};

int main(void)
{
    CHECK(gl_driver_call_kind(NULL) == GL_CALL_NONE);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (!CHECK(gl_driver_call_kind(cases[i].name) == cases[i].kind))
            printf("  for '%s'\n", cases[i].name);
    return t_done("test_driver_calls");
}
