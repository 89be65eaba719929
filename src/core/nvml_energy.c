/* nvml_energy.c - the GPU plugin's one view of NVML: the total-energy counter
 * of a GPU, by UUID (energy.h). NVML is dlopen'ed ("libnvidia-ml.so.1", or
 * $GPULAB_NVML_LIB for tests: build/tests/fakes/libfake_nvml.so), as the
 * driver's src/host/gpuclocks.c does for the clocks, which the plugin may not
 * call; its functions are declared here by hand (plain C types, an opaque
 * device handle, 0 = success). Once per process; the answer is kept.
 * Must not print, nor change anything on the GPU. */
#include "energy.h"
#include "nvml_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    int tried, ok;
    char why[256];
    void *lib;
    int (*init)(void);
    const char *(*error_string)(int);
    int (*by_uuid)(const char *, void **);
    int (*energy)(void *, unsigned long long *);
} nv;

static const char *nvml_err(int rc)
{
    const char *s = nv.error_string ? nv.error_string(rc) : NULL;
    return s ? s : "unknown NVML error";
}

static int nvml_ready(void)
{
    if (nv.tried)
        return nv.ok;
    nv.tried = 1;
    if (!(nv.lib = gl_nvml_open(nv.why, sizeof nv.why)))
        return 0;
    *(void **)&nv.init = dlsym(nv.lib, "nvmlInit_v2");
    *(void **)&nv.error_string = dlsym(nv.lib, "nvmlErrorString");
    *(void **)&nv.by_uuid = dlsym(nv.lib, "nvmlDeviceGetHandleByUUID");
    *(void **)&nv.energy = dlsym(nv.lib, "nvmlDeviceGetTotalEnergyConsumption");
    if (!nv.init || !nv.by_uuid || !nv.energy) {
        snprintf(nv.why, sizeof nv.why, "this NVML has no %s",
                 !nv.init ? "nvmlInit_v2" : !nv.by_uuid ? "nvmlDeviceGetHandleByUUID"
                                                        : "nvmlDeviceGetTotalEnergyConsumption");
        return 0;
    }
    int rc = nv.init();
    if (rc != 0) {
        snprintf(nv.why, sizeof nv.why, "nvmlInit failed: %s", nvml_err(rc));
        return 0;
    }
    nv.ok = 1;
    return 1;
}

int gl_nvml_energy_open(const char *uuid, void **dev, char *why, size_t len)
{
    unsigned long long mj;
    if (!nvml_ready()) {
        snprintf(why, len, "%s", nv.why);
        return -1;
    }
    if (!uuid || !*uuid) {
        snprintf(why, len, "the GPU has no UUID to find it by in NVML");
        return -1;
    }
    int rc = nv.by_uuid(uuid, dev);
    if (rc != 0) {
        snprintf(why, len, "NVML does not know GPU %.96s: %s", uuid, nvml_err(rc));
        return -1;
    }
    return gl_nvml_energy_read(*dev, &mj, why, len);   /* supported at all? */
}

int gl_nvml_energy_read(void *dev, unsigned long long *mj, char *why, size_t len)
{
    int rc = nv.ok ? nv.energy(dev, mj) : -1;
    if (rc != 0) {
        snprintf(why, len, "nvmlDeviceGetTotalEnergyConsumption: %s",
                 nv.ok ? nvml_err(rc) : "NVML not loaded");
        return -1;
    }
    return 0;
}
