/* driver_calls.h - what a CUDA driver API call puts on the GPU, by its name as
 * CUPTI's driver-API callbacks give it: a kernel launch, other work (a copy, a
 * memset, a graph, a host function in a stream, a launch on several devices),
 * or nothing that runs there. cupti/profiler_count.c counts a library call's
 * kernels with it. Must not call CUDA or CUPTI. */
#ifndef GL_DRIVER_CALLS_H
#define GL_DRIVER_CALLS_H

enum gl_driver_call { GL_CALL_NONE = 0, GL_CALL_KERNEL, GL_CALL_WORK };

/* The kind of driver call name ("cuLaunchKernel_ptsz", "cuMemsetD32Async",
 * ...); GL_CALL_NONE for NULL. */
enum gl_driver_call gl_driver_call_kind(const char *name);

#endif
