/* harness_device.cu - the device the plugin's init picked, as the rest of the
 * harness reads it (gh_st), and the profiler pass count it runs under.
 * Must not query the device beyond what init did not (the reserved shared memory). */
#include "harness_int.cuh"

#include <stdio.h>

struct gh_state gh_st;

int gh_device_set(int ordinal, const struct gl_device *dev, char *err, size_t errlen)
{
    int reserved = 0;
    cudaError_t e = cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock,
                                           ordinal);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "cudaDeviceGetAttribute(reserved shared memory): %s",
                 cudaGetErrorString(e));
        return -1;
    }
    gh_st.ordinal = ordinal;
    gh_st.dev = *dev;
    gh_st.reserved_smem = reserved;
    gh_st.ready = 1;
    return 0;
}

const struct gl_device *gh_device(void)
{
    return gh_st.ready ? &gh_st.dev : NULL;
}

int gh_device_ordinal(void)
{
    return gh_st.ordinal;
}

void gh_set_profiling(int passes)
{
    gh_st.passes = passes;
}
