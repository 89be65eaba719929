/* gpuclocks.c - see gpuclocks.h. NVML's few functions are declared here by
 * hand (nvml.h is not needed to build): every one takes or returns plain C
 * types and an opaque device handle, and returns nvmlReturn_t (0 = success).
 * Must not print, nor reset a lock it did not take. */
#include "gpuclocks.h"
#include "nvml_lib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void *nvml_device;
enum { NVML_SUCCESS = 0, NVML_ERROR_NO_PERMISSION = 4, NVML_CLOCK_SM = 1 };
#define NVML_CLOCK_LIMIT_ID_TDP 0xffffff01u

static struct {
    struct gl_nvml n;         /* loaded and initialised (nvml_lib.h) */
    int looked;               /* the clock functions below looked up */
    int (*clock_info)(nvml_device, int, unsigned *);
    int (*max_clock_info)(nvml_device, int, unsigned *);
    int (*app_clock)(nvml_device, int, unsigned *);
    int (*default_app_clock)(nvml_device, int, unsigned *);
    int (*event_reasons)(nvml_device, unsigned long long *);
    int (*set_locked)(nvml_device, unsigned, unsigned);
    int (*reset_locked)(nvml_device);
} nv;

#define GL_CLOCKS_MAX 16
static nvml_device locked[GL_CLOCKS_MAX];
static char locked_uuid[GL_CLOCKS_MAX][96];
static int nlocked;
static pid_t locker;        /* the process that took the locks (a forked child is not it) */
static int atexit_set;

static void *sym(const char *name, int needed)
{
    return gl_nvml_sym(&nv.n, name, needed);
}

/* NVML loaded and initialised, and the clock functions looked up, once. 1 when
 * usable, else 0 with nv.n.why. */
static int nvml_ready(void)
{
    if (!gl_nvml_ready(&nv.n))
        return 0;
    if (!nv.looked) {
        nv.looked = 1;
        *(void **)&nv.clock_info = sym("nvmlDeviceGetClockInfo", 1);
        *(void **)&nv.max_clock_info = sym("nvmlDeviceGetMaxClockInfo", 0);
        *(void **)&nv.app_clock = sym("nvmlDeviceGetApplicationsClock", 0);
        *(void **)&nv.default_app_clock = sym("nvmlDeviceGetDefaultApplicationsClock", 0);
        *(void **)&nv.event_reasons = sym("nvmlDeviceGetCurrentClocksEventReasons", 0);
        if (!nv.event_reasons)   /* the older name of the same call */
            *(void **)&nv.event_reasons = sym("nvmlDeviceGetCurrentClocksThrottleReasons", 0);
        *(void **)&nv.set_locked = sym("nvmlDeviceSetGpuLockedClocks", 0);
        *(void **)&nv.reset_locked = sym("nvmlDeviceResetGpuLockedClocks", 0);
    }
    return nv.n.ok;
}

static int handle_of(const char *uuid, nvml_device *d, char *why, size_t whylen)
{
    if (!nvml_ready()) {
        snprintf(why, whylen, "%s", nv.n.why);
        return -1;
    }
    return gl_nvml_device(&nv.n, uuid, d, why, whylen);
}

static const struct {
    unsigned long long bit;
    const char *name;
} event_names[] = {
    { 0x1ull, "idle" },
    { 0x2ull, "applications clocks setting" },
    { 0x4ull, "software power cap" },
    { 0x8ull, "hardware slowdown" },
    { 0x10ull, "sync boost" },
    { 0x20ull, "software thermal slowdown" },
    { 0x40ull, "hardware thermal slowdown" },
    { 0x80ull, "hardware power brake slowdown" },
    { 0x100ull, "display clock setting" },
};

static void events_text(unsigned long long ev, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof event_names / sizeof event_names[0]; i++) {
        if (!(ev & event_names[i].bit))
            continue;
        ev &= ~event_names[i].bit;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", event_names[i].name);
        if (w < 0 || (size_t)w >= len - used)
            return;
        used += (size_t)w;
    }
    if (ev)
        snprintf(buf + used, len - used, "%sother (0x%llx)", used ? ", " : "", ev);
}

int gl_clocks_read(const char *uuid, struct gl_gpu_clocks *c, char *why, size_t whylen)
{
    nvml_device d;
    unsigned v;
    memset(c, 0, sizeof *c);
    if (handle_of(uuid, &d, why, whylen) != 0)
        return -1;
    int rc = nv.clock_info(d, NVML_CLOCK_SM, &v);
    if (rc != NVML_SUCCESS) {
        snprintf(why, whylen, "nvmlDeviceGetClockInfo: %s", gl_nvml_error(&nv.n, rc));
        return -1;
    }
    c->sm_mhz = (int)v;
    if (nv.app_clock && nv.app_clock(d, NVML_CLOCK_SM, &v) == NVML_SUCCESS)
        c->app_mhz = (int)v;
    if (nv.default_app_clock && nv.default_app_clock(d, NVML_CLOCK_SM, &v) == NVML_SUCCESS)
        c->app_default_mhz = (int)v;
    if (nv.max_clock_info && nv.max_clock_info(d, NVML_CLOCK_SM, &v) == NVML_SUCCESS)
        c->max_mhz = (int)v;
    if (nv.event_reasons && nv.event_reasons(d, &c->events) == NVML_SUCCESS) {
        c->have_events = 1;
        events_text(c->events, c->events_text, sizeof c->events_text);
    }
    return 0;
}

/* exit() without the sweep's own reset (an error path): give the locks back. */
static void reset_at_exit(void)
{
    char why[256];
    if (getpid() == locker)
        (void)gl_clocks_reset(why, sizeof why);
}

int gl_clocks_lock_base(const char *uuid, char *why, size_t whylen)
{
    nvml_device d;
    if (handle_of(uuid, &d, why, whylen) != 0)
        return -1;
    for (int i = 0; i < nlocked; i++)
        if (strcmp(locked_uuid[i], uuid) == 0)
            return 0;   /* already ours */
    if (!nv.set_locked || !nv.reset_locked) {
        snprintf(why, whylen, "this NVML cannot lock clocks (no nvmlDeviceSetGpuLockedClocks)");
        return -1;
    }
    if (nlocked >= GL_CLOCKS_MAX) {
        snprintf(why, whylen, "more than %d GPUs locked", GL_CLOCKS_MAX);
        return -1;
    }
    int rc = nv.set_locked(d, NVML_CLOCK_LIMIT_ID_TDP, NVML_CLOCK_LIMIT_ID_TDP);
    if (rc != NVML_SUCCESS) {
        snprintf(why, whylen, "nvmlDeviceSetGpuLockedClocks: %s%s", gl_nvml_error(&nv.n, rc),
                 rc == NVML_ERROR_NO_PERMISSION ? " (locking clocks needs root)" : "");
        return -1;
    }
    locked[nlocked] = d;
    snprintf(locked_uuid[nlocked], sizeof locked_uuid[nlocked], "%s", uuid);
    nlocked++;
    locker = getpid();
    if (!atexit_set && atexit(reset_at_exit) == 0)
        atexit_set = 1;
    return 0;
}

int gl_clocks_reset(char *why, size_t whylen)
{
    int n = 0, failed = 0;
    if (whylen)
        why[0] = '\0';
    for (int i = 0; i < nlocked; i++) {
        int rc = nv.reset_locked(locked[i]);
        if (rc == NVML_SUCCESS) {
            n++;
        } else if (!failed) {
            failed = 1;
            snprintf(why, whylen, "nvmlDeviceResetGpuLockedClocks(%.96s): %s", locked_uuid[i],
                     gl_nvml_error(&nv.n, rc));
        }
    }
    nlocked = 0;   /* once: a failed reset is not retried at exit */
    return failed ? -1 : n;
}

int gl_clocks_held(void)
{
    return nlocked;
}
