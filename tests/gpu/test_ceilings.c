/* test_ceilings.c - the memory levels' ceilings on a real device: dlopen
 * build/libgpulab_gpu.so, describe device 0, measure its copy bandwidth and
 * its ceilings (gl_device_ops.ceilings) twice, print both, and check that each
 * is measured, within what the hardware can do (L1 and shared memory at most
 * 128 bytes per SM clock, L2 under L1, the copy under the theoretical DRAM
 * bandwidth), ordered as the hierarchy is (L1 > L2 > DRAM copy > host link),
 * measured at a clock near the device's, and repeatable (the two measurements
 * within 25 % of each other). Needs a GPU (make test-gpu).
 * Must not call CUDA itself: everything goes through the plugin's table. */
#include "t.h"
#include "plugin.h"
#include "util.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct gl_plugin *load(void)
{
    char dir[1024], path[1200];
    const char *env = getenv("GPULAB_PLUGIN");
    if (env && env[0]) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        gl_exe_dir(dir, sizeof dir);   /* build/tests/gpu */
        snprintf(path, sizeof path, "%s/../../libgpulab_gpu.so", dir);
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("dlopen %s: %s\n", path, dlerror());
        return NULL;
    }
    gl_plugin_fn fn;
    *(void **)&fn = dlsym(h, GL_PLUGIN_SYMBOL);
    return fn ? fn(NULL) : NULL;
}

static void show(const char *what, const struct gl_ceilings *c, double copy)
{
    printf("%s: L1 %.0f GB/s, shared %.0f GB/s, L2 %.0f GB/s, DRAM copy %.0f GB/s, host link "
           "zero-copy read %.1f GB/s, pinned H2D %.1f GB/s, at %.0f MHz%s%s\n", what, c->l1_gbs,
           c->smem_gbs, c->l2_gbs, copy, c->hostlink_gbs, c->h2d_gbs, c->clock_mhz,
           c->why[0] ? "; " : "", c->why);
}

/* a and b within 25 % of each other */
static int close_to(double a, double b)
{
    return a > 0 && b > 0 && fabs(a - b) <= 0.25 * fmax(a, b);
}

int main(void)
{
    char err[1024] = "";
    struct gl_device dev;
    struct gl_ceilings c1, c2;
    const struct gl_plugin *plugin = load();
    if (!CHECK(plugin != NULL) || !CHECK(plugin->api == GL_PLUGIN_API) ||
        !CHECK(plugin->device != NULL) || !CHECK(plugin->device->ceilings != NULL))
        return t_done("gpu_ceilings");
    const struct gl_device_ops *ops = plugin->device;
    if (!CHECK(ops->init(0, &dev, err, sizeof err) == 0)) {
        printf("init: %s\n", err);
        return t_done("gpu_ceilings");
    }
    double copy1 = ops->copy_bandwidth(), copy2;
    CHECK(ops->ceilings(&c1) == 0);
    copy2 = ops->copy_bandwidth();
    CHECK(ops->ceilings(&c2) == 0);
    show("first ", &c1, copy1);
    show("second", &c2, copy2);
    CHECK(c1.why[0] == '\0');

    /* every level measured, and what the hardware allows: L1 and shared memory
     * move at most 128 bytes per SM per clock (at the measured clock, 10 % slack) */
    double clock_hz = c1.clock_mhz * 1e6, max_hz = dev.clock_khz * 1e3;
    double l1_peak = 128.0 * dev.sm_count * clock_hz / 1e9;
    CHECK(c1.clock_mhz > 0.3 * max_hz / 1e6 && c1.clock_mhz < 1.1 * max_hz / 1e6);
    CHECK(c1.l1_gbs > 0 && c1.l1_gbs <= 1.1 * l1_peak);
    CHECK(c1.smem_gbs > 0 && c1.smem_gbs <= 1.1 * l1_peak);
    CHECK(c1.l2_gbs > 0 && c1.hostlink_gbs > 0 && c1.h2d_gbs > 0);
    CHECK(copy1 > 0 && copy1 <= 1.05 * dev.theo_bw_gbs);
    /* the hierarchy: each level below the one above it */
    if (!CHECK(c1.l1_gbs > c1.l2_gbs && c1.smem_gbs > c1.l2_gbs && c1.l2_gbs > copy1 &&
               copy1 > c1.hostlink_gbs))
        printf("  not ordered L1 > L2 > DRAM > host link\n");
    /* a small kernel's measurement is repeatable */
    CHECK(close_to(c1.clock_mhz, c2.clock_mhz));
    CHECK(close_to(c1.l1_gbs, c2.l1_gbs) && close_to(c1.smem_gbs, c2.smem_gbs));
    CHECK(close_to(c1.l2_gbs, c2.l2_gbs) && close_to(copy1, copy2));
    CHECK(close_to(c1.hostlink_gbs, c2.hostlink_gbs) && close_to(c1.h2d_gbs, c2.h2d_gbs));
    ops->shutdown();
    return t_done("gpu_ceilings");
}
