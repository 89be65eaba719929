/* profiler_count.c - glc_count_begin / glc_count_end: how many kernels a
 * library call launches, counted through CUPTI's driver-API callbacks while it
 * is enqueued once (the harness counts at its verification run), so that a
 * call of one kernel is profiled in auto ranges as a kernel of ours is: no
 * range profiler object of its own, no user range around it.
 * Must not profile (no range profiler call), and must not keep the callbacks
 * on outside one begin..end. */
#include "profiler_int.h"
#include "driver_calls.h"

#include <cupti_callbacks.h>

#include <stdio.h>
#include <string.h>

static struct {
    int subscribed;            /* 0 not yet, 1 yes, -1 cannot be (why) */
    char why[GL_REASON_MAX];
    CUpti_SubscriberHandle sub;
    int on;                    /* between a begin and its end */
    int kernels;               /* kernel launches seen */
    char other[64];            /* the first call seen that is not a kernel launch but
                                  does work on the GPU (a copy, a memset, a graph, ...) */
} cnt;

/* A driver-API call made while counting, at its entry: a kernel launch counts;
 * a call that puts other work on the GPU makes the count unusable
 * (src/core/driver_calls.c says which is which). */
static void CUPTIAPI on_call(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                             const void *cbdata)
{
    (void)userdata;
    (void)cbid;
    const CUpti_CallbackData *d = (const CUpti_CallbackData *)cbdata;
    if (!cnt.on || domain != CUPTI_CB_DOMAIN_DRIVER_API || d->callbackSite != CUPTI_API_ENTER ||
        !d->functionName)
        return;
    enum gl_driver_call k = gl_driver_call_kind(d->functionName);
    if (k == GL_CALL_KERNEL)
        cnt.kernels++;
    else if (k == GL_CALL_WORK && !cnt.other[0])
        glc_fmt(cnt.other, sizeof cnt.other, "%s", d->functionName);
}

int glc_count_begin(char *why, size_t len)
{
    if (cnt.subscribed == 0) {
        CUptiResult rc = cuptiSubscribe(&cnt.sub, (CUpti_CallbackFunc)on_call, NULL);
        if (rc == CUPTI_SUCCESS) {
            cnt.subscribed = 1;
        } else {
            cnt.subscribed = -1;
            glc_fmt(cnt.why, sizeof cnt.why, "cuptiSubscribe: %s", glc_cupti_str(rc));
        }
    }
    if (cnt.subscribed < 0) {
        glc_fmt(why, len, "%s", cnt.why);
        return -1;
    }
    cnt.kernels = 0;
    cnt.other[0] = '\0';
    CUptiResult rc = cuptiEnableDomain(1, cnt.sub, CUPTI_CB_DOMAIN_DRIVER_API);
    if (rc != CUPTI_SUCCESS) {
        glc_fmt(why, len, "cuptiEnableDomain: %s", glc_cupti_str(rc));
        return -1;
    }
    cnt.on = 1;
    return 0;
}

int glc_count_end(char *why, size_t len)
{
    if (!cnt.on) {
        glc_fmt(why, len, "not counting");
        return -1;
    }
    cnt.on = 0;
    CUptiResult rc = cuptiEnableDomain(0, cnt.sub, CUPTI_CB_DOMAIN_DRIVER_API);
    if (rc != CUPTI_SUCCESS) {
        glc_fmt(why, len, "cuptiEnableDomain (off): %s", glc_cupti_str(rc));
        return -1;
    }
    if (cnt.other[0]) {
        glc_fmt(why, len, "the call also made %s", cnt.other);
        if (glc_trace.on)
            fprintf(stderr, "gpulab cupti count: a library call of %d kernel(s) also made %s\n",
                    cnt.kernels, cnt.other);
        return -1;
    }
    if (glc_trace.on)
        fprintf(stderr, "gpulab cupti count: a library call of %d kernel(s)\n", cnt.kernels);
    return cnt.kernels;
}

void glc_count_shutdown(void)
{
    if (cnt.subscribed > 0)
        (void)cuptiUnsubscribe(cnt.sub);
    memset(&cnt, 0, sizeof cnt);
}
