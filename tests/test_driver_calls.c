/* test_driver_calls.c - gl_driver_call_kind on the driver API names CUPTI's
 * callbacks give: launches of one kernel count, other work on the GPU makes a
 * library call's count unusable, the rest is nothing. Must not call CUDA. */
#include "driver_calls.h"
#include "t.h"

static void test_kernels(void)
{
    CHECK(gl_driver_call_kind("cuLaunchKernel") == GL_CALL_KERNEL);
    CHECK(gl_driver_call_kind("cuLaunchKernel_ptsz") == GL_CALL_KERNEL);
    CHECK(gl_driver_call_kind("cuLaunchKernelEx") == GL_CALL_KERNEL);
    CHECK(gl_driver_call_kind("cuLaunchKernelEx_ptsz") == GL_CALL_KERNEL);
    CHECK(gl_driver_call_kind("cuLaunchCooperativeKernel") == GL_CALL_KERNEL);
    CHECK(gl_driver_call_kind("cuLaunchCooperativeKernel_ptsz") == GL_CALL_KERNEL);
}

static void test_other_work(void)
{
    /* launches that are not one kernel on this device, or no kernel at all */
    CHECK(gl_driver_call_kind("cuLaunchCooperativeKernelMultiDevice") == GL_CALL_WORK);
    CHECK(gl_driver_call_kind("cuLaunchHostFunc") == GL_CALL_WORK);
    CHECK(gl_driver_call_kind("cuLaunchHostFunc_ptsz") == GL_CALL_WORK);
    CHECK(gl_driver_call_kind("cuLaunch") == GL_CALL_WORK);
    CHECK(gl_driver_call_kind("cuLaunchGrid") == GL_CALL_WORK);
    CHECK(gl_driver_call_kind("cuLaunchGridAsync") == GL_CALL_WORK);
    CHECK(gl_driver_call_kind("cuGraphLaunch") == GL_CALL_WORK);
    CHECK(gl_driver_call_kind("cuGraphLaunch_ptsz") == GL_CALL_WORK);
    /* copies and memsets */
    CHECK(gl_driver_call_kind("cuMemcpyAsync") == GL_CALL_WORK);
    CHECK(gl_driver_call_kind("cuMemcpyHtoDAsync_v2") == GL_CALL_WORK);
    CHECK(gl_driver_call_kind("cuMemcpy2DAsync_v2_ptsz") == GL_CALL_WORK);
    CHECK(gl_driver_call_kind("cuMemsetD32Async") == GL_CALL_WORK);
    CHECK(gl_driver_call_kind("cuMemsetD8_v2") == GL_CALL_WORK);
}

static void test_nothing(void)
{
    CHECK(gl_driver_call_kind(NULL) == GL_CALL_NONE);
    CHECK(gl_driver_call_kind("") == GL_CALL_NONE);
    CHECK(gl_driver_call_kind("cuCtxGetCurrent") == GL_CALL_NONE);
    CHECK(gl_driver_call_kind("cuFuncGetAttribute") == GL_CALL_NONE);
    CHECK(gl_driver_call_kind("cuFuncSetAttribute") == GL_CALL_NONE);
    CHECK(gl_driver_call_kind("cuStreamGetCaptureInfo_v2") == GL_CALL_NONE);
    CHECK(gl_driver_call_kind("cuMemAlloc_v2") == GL_CALL_NONE);
    CHECK(gl_driver_call_kind("cuEventRecord") == GL_CALL_NONE);
    CHECK(gl_driver_call_kind("cuKernelGetFunction") == GL_CALL_NONE);
    /* a prefix match only: the name must start with the call's */
    CHECK(gl_driver_call_kind("xcuLaunchKernel") == GL_CALL_NONE);
    CHECK(gl_driver_call_kind("cuLaunc") == GL_CALL_NONE);
}

int main(void)
{
    test_kernels();
    test_other_work();
    test_nothing();
    return t_done("test_driver_calls");
}
