/* harness_errors.cu - the harness's vocabulary for outcomes: a fresh result,
 * skip / fail with a reason, CUDA error checking (an ordinary error is cleared,
 * a sticky one marks the context lost for good), the mem / cache words, the
 * int-indexing limit and the monotonic clock.
 * Must not allocate, launch or synchronize beyond what deciding stickiness needs. */
#include "harness_int.cuh"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void gh_result_init(struct gl_result *r)
{
    memset(r, 0, sizeof *r);
    r->status = GL_OK;
    r->max_rel_err = -1.0;
    r->h2d_ms = -1.0;
    r->d2h_ms = -1.0;
}

static void set_reason(struct gl_result *r, int status, const char *fmt, va_list ap)
{
    r->status = status;
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
}

int gh_skip(struct gl_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_reason(r, GL_SKIPPED, fmt, ap);
    va_end(ap);
    return 0;
}

int gh_fail(struct gl_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_reason(r, GL_FAILED, fmt, ap);
    va_end(ap);
    return 0;
}

/* Errors after which every later call of this context fails too. */
static int sticky_code(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
        return 1;
    default:
        return 0;
    }
}

int gh_ok(struct gl_result *r, cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 1;
    /* An ordinary error is cleared by reading it; a sticky one comes back from
     * the next call that touches the context. */
    (void)cudaGetLastError();
    if (sticky_code(e) || cudaDeviceSynchronize() != cudaSuccess)
        gh_st.sticky = 1;
    if (r->status != GL_FAILED || r->reason[0] == '\0') {
        r->status = GL_FAILED;
        snprintf(r->reason, sizeof r->reason, "%s: %s (%s)%s", what, cudaGetErrorName(e),
                 cudaGetErrorString(e), gh_st.sticky ? "; CUDA context unusable" : "");
    }
    return 0;
}

int gh_context_lost(void)
{
    return gh_st.sticky;
}

int gh_parse_mem(const char *s, enum gh_mem *m)
{
    if (!s || !s[0] || strcmp(s, "device") == 0)
        *m = GH_MEM_DEVICE;
    else if (strcmp(s, "zerocopy") == 0)
        *m = GH_MEM_ZEROCOPY;
    else if (strcmp(s, "managed") == 0)
        *m = GH_MEM_MANAGED;
    else
        return -1;
    return 0;
}

int gh_parse_cold(const char *s, int *cold)
{
    if (!s || !s[0] || strcmp(s, "cold") == 0)
        *cold = 1;
    else if (strcmp(s, "warm") == 0)
        *cold = 0;
    else
        return -1;
    return 0;
}

int gh_fits_int(size_t n)
{
    return n > 0 && n <= 0x7fffffffu;
}

double gh_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
