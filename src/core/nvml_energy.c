/* nvml_energy.c - the GPU plugin's one view of NVML: the total-energy counter
 * of a GPU, by UUID (energy.h). NVML is loaded and initialised by nvml_lib.c
 * ($GPULAB_NVML_LIB for tests: build/tests/fakes/libfake_nvml.so), as for the
 * driver's src/host/gpuclocks.c, whose clocks the plugin may not call. Once per
 * process; the answer is kept.
 * Must not print, nor change anything on the GPU. */
#include "energy.h"
#include "nvml_lib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    struct gl_nvml n;         /* loaded and initialised (nvml_lib.h) */
    int looked;
    int (*energy)(void *, unsigned long long *);
} nv;

static int nvml_ready(void)
{
    if (!gl_nvml_ready(&nv.n))
        return 0;
    if (!nv.looked) {
        nv.looked = 1;
        *(void **)&nv.energy = gl_nvml_sym(&nv.n, "nvmlDeviceGetTotalEnergyConsumption", 1);
    }
    return nv.n.ok;
}

int gl_nvml_energy_open(const char *uuid, void **dev, char *why, size_t len)
{
    unsigned long long mj;
    if (!nvml_ready()) {
        snprintf(why, len, "%s", nv.n.why);
        return -1;
    }
    if (gl_nvml_device(&nv.n, uuid, dev, why, len) != 0)
        return -1;
    return gl_nvml_energy_read(*dev, &mj, why, len);   /* supported at all? */
}

int gl_nvml_energy_read(void *dev, unsigned long long *mj, char *why, size_t len)
{
    int rc = nv.n.ok ? nv.energy(dev, mj) : -1;
    if (rc != 0) {
        snprintf(why, len, "nvmlDeviceGetTotalEnergyConsumption: %s",
                 nv.n.ok ? gl_nvml_error(&nv.n, rc) : "NVML not loaded");
        return -1;
    }
    return 0;
}
