/* fake_nvml.c - a test-only stand-in for libnvidia-ml.so.1 (loaded by
 * src/host/gpuclocks.c through GPULAB_NVML_LIB=build/tests/fakes/libfake_nvml.so),
 * for the clock paths that no machine without NVML (and no shared GPU machine,
 * where changing clocks is not allowed) can exercise: reading the SM clocks,
 * locking them to base, the refusals, and the reset at the end of a sweep.
 * It exports the few NVML functions gpulab calls, with NVML's signatures, and
 * appends one line per call that changes something to $FAKE_NVML_LOG ("lock
 * UUID MIN MAX", "reset UUID"), so that a test sees what happened and in which
 * order, from every process. Behaviour, from the environment:
 *   FAKE_NVML_INIT=fail      nvmlInit fails (NVML_ERROR_DRIVER_NOT_LOADED)
 *   FAKE_NVML_LOCK=denied    SetGpuLockedClocks: NVML_ERROR_NO_PERMISSION
 *   FAKE_NVML_LOCK=unsupported   ... NVML_ERROR_NOT_SUPPORTED
 *   FAKE_NVML_UUID=GPU-...   the one GPU it knows (default: any UUID, up to
 *                            FAKE_GPUS of them, each with its own clocks)
 *   FAKE_NVML_EVENTS=0x20    the clock event reasons it reports (default: none)
 *   FAKE_NVML_ENERGY=unsupported   TotalEnergyConsumption: NVML_ERROR_NOT_SUPPORTED
 *   FAKE_NVML_ENERGY_PERIOD_MS=20  the energy counter steps once per period ...
 *   FAKE_NVML_POWER_W=100          ... by period x power: millijoules, from the
 *                            monotonic clock, so it is what a GPU drawing that
 *                            power steadily would show with that resolution
 * Clocks: 1755 MHz now (1410, the "base", while locked), applications and
 * default applications 1755, max 1980; event reasons none (applications clocks
 * setting while locked). Must not be linked into gpulab: tests only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_UNINITIALIZED = 1
};
#define TDP 0xffffff01u
#define BASE_MHZ 1410u

struct fake_device {
    char uuid[96];
    int locked;
};

#define FAKE_GPUS 16
static struct fake_device devs[FAKE_GPUS];
static int ndevs;
static int initialised;

/* The device a handle points at, or NULL when it is none of ours. */
static struct fake_device *dev_of(void *d)
{
    for (int i = 0; i < ndevs; i++)
        if (d == &devs[i])
            return &devs[i];
    return NULL;
}

static void log_line(const char *fmt, const char *a, unsigned x, unsigned y)
{
    const char *path = getenv("FAKE_NVML_LOG");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    fprintf(f, fmt, a, x, y);
    fputc('\n', f);
    fclose(f);
}

static int env_is(const char *name, const char *value)
{
    const char *e = getenv(name);
    return e && strcmp(e, value) == 0;
}

int nvmlInit_v2(void)
{
    if (env_is("FAKE_NVML_INIT", "fail"))
        return NVML_ERROR_DRIVER_NOT_LOADED;
    initialised = 1;
    return NVML_SUCCESS;
}

int nvmlShutdown(void)
{
    initialised = 0;
    return NVML_SUCCESS;
}

const char *nvmlErrorString(int rc)
{
    switch (rc) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
    }
}

int nvmlDeviceGetHandleByUUID(const char *uuid, void **device)
{
    const char *known = getenv("FAKE_NVML_UUID");
    if (!initialised)
        return NVML_ERROR_UNINITIALIZED;
    if (!uuid || !device)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (known && *known && strcmp(known, uuid) != 0)
        return NVML_ERROR_NOT_FOUND;
    for (int i = 0; i < ndevs; i++)
        if (strcmp(devs[i].uuid, uuid) == 0) {
            *device = &devs[i];
            return NVML_SUCCESS;
        }
    if (ndevs == FAKE_GPUS)
        return NVML_ERROR_NOT_FOUND;
    snprintf(devs[ndevs].uuid, sizeof devs[ndevs].uuid, "%s", uuid);
    *device = &devs[ndevs++];
    return NVML_SUCCESS;
}

static int clock_of(void *d, int type, unsigned *mhz, unsigned value)
{
    if (!initialised)
        return NVML_ERROR_UNINITIALIZED;
    if (!dev_of(d) || !mhz || type != 1)   /* NVML_CLOCK_SM only */
        return NVML_ERROR_INVALID_ARGUMENT;
    *mhz = value;
    return NVML_SUCCESS;
}

int nvmlDeviceGetClockInfo(void *d, int type, unsigned *mhz)
{
    struct fake_device *f = dev_of(d);
    return clock_of(d, type, mhz, f && f->locked ? BASE_MHZ : 1755u);
}

int nvmlDeviceGetMaxClockInfo(void *d, int type, unsigned *mhz)
{
    return clock_of(d, type, mhz, 1980u);
}

int nvmlDeviceGetApplicationsClock(void *d, int type, unsigned *mhz)
{
    return clock_of(d, type, mhz, 1755u);
}

int nvmlDeviceGetDefaultApplicationsClock(void *d, int type, unsigned *mhz)
{
    return clock_of(d, type, mhz, 1755u);
}

int nvmlDeviceGetCurrentClocksEventReasons(void *d, unsigned long long *reasons)
{
    if (!initialised)
        return NVML_ERROR_UNINITIALIZED;
    struct fake_device *f = dev_of(d);
    if (!f || !reasons)
        return NVML_ERROR_INVALID_ARGUMENT;
    const char *ev = getenv("FAKE_NVML_EVENTS");
    *reasons = ev && *ev ? strtoull(ev, NULL, 0) : f->locked ? 0x2ull : 0ull;
    return NVML_SUCCESS;
}

int nvmlDeviceGetTotalEnergyConsumption(void *d, unsigned long long *mj)
{
    if (!initialised)
        return NVML_ERROR_UNINITIALIZED;
    if (!dev_of(d) || !mj)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (env_is("FAKE_NVML_ENERGY", "unsupported"))
        return NVML_ERROR_NOT_SUPPORTED;
    const char *p = getenv("FAKE_NVML_ENERGY_PERIOD_MS"), *w = getenv("FAKE_NVML_POWER_W");
    double period_ms = p && *p ? atof(p) : 20.0, watts = w && *w ? atof(w) : 100.0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
    unsigned long long steps = (unsigned long long)(ms / period_ms);
    *mj = (unsigned long long)((double)steps * period_ms * watts);
    return NVML_SUCCESS;
}

int nvmlDeviceSetGpuLockedClocks(void *d, unsigned min_mhz, unsigned max_mhz)
{
    if (!initialised)
        return NVML_ERROR_UNINITIALIZED;
    struct fake_device *f = dev_of(d);
    if (!f)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (env_is("FAKE_NVML_LOCK", "denied"))
        return NVML_ERROR_NO_PERMISSION;
    if (env_is("FAKE_NVML_LOCK", "unsupported"))
        return NVML_ERROR_NOT_SUPPORTED;
    if ((min_mhz == TDP) != (max_mhz == TDP))
        return NVML_ERROR_INVALID_ARGUMENT;   /* symbolic and numeric do not mix */
    f->locked = 1;
    log_line("lock %s %u %u", f->uuid, min_mhz == TDP ? BASE_MHZ : min_mhz,
             max_mhz == TDP ? BASE_MHZ : max_mhz);
    return NVML_SUCCESS;
}

int nvmlDeviceResetGpuLockedClocks(void *d)
{
    if (!initialised)
        return NVML_ERROR_UNINITIALIZED;
    struct fake_device *f = dev_of(d);
    if (!f)
        return NVML_ERROR_INVALID_ARGUMENT;
    f->locked = 0;
    log_line("reset %s", f->uuid, 0, 0);
    return NVML_SUCCESS;
}
