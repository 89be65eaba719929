/* bench/cupti_host_cost.c - what CUPTI's profiler host API costs when a worker
 * sets up a metric set (cupti/profiler_setup.c), measured without a GPU: the
 * host side needs only the chip's name. Times, three times over: the first host
 * object for the chip (it loads the chip's metric tables) and later ones, the
 * one-by-one check of the default set's names (glc_validate_names), the set
 * added whole (add_all), its configuration image and pass count.
 * Built (with the plugin's cupti/gpu_host_shim.o) and run by bench/cupti_host_cost;
 * must not need a CUDA device. */
#include "metric_sets.h"
#include "../cupti/host_shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHIP "GH100"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(void)
{
    /* the default set as the profiler gets it, less gpulab's own names */
    static struct gl_metric_req req;
    const char *names[GL_MAX_METRICS];
    char err[256];
    int n = 0;
    if (gl_metric_resolve("default", &req, err, sizeof err) != 0) {
        fprintf(stderr, "cupti_host_cost: %s\n", err);
        return 1;
    }
    for (int i = 0; i < req.n; i++)
        if (strncmp(req.names[i], "gpulab__", 8) != 0)
            names[n++] = req.names[i];
    printf("cupti_host_cost: chip %s, the default set's %d CUPTI names, ms:\n", CHIP, n);
    printf("  %-6s %12s %12s %12s %10s %10s %7s\n", "round", "host object", "one by one",
           "added whole", "image", "passes", "n");
    for (int round = 1; round <= 3; round++) {
        glh_host *h = NULL;
        double t0 = now_ms();
        int rc = glh_create(CHIP, NULL, &h);
        double t1 = now_ms();
        for (int i = 0; rc == 0 && i < n; i++)
            rc = glh_add_metric(h, names[i]);
        double t2 = now_ms();
        glh_destroy(h);
        h = NULL;
        rc |= glh_create(CHIP, NULL, &h);
        double t3 = now_ms();
        rc |= glh_add_metrics(h, names, (size_t)n);
        double t4 = now_ms();
        uint8_t *img = NULL;
        size_t size = 0, np = 0;
        rc |= glh_config_image(h, &img, &size);
        double t5 = now_ms();
        rc |= glh_num_passes(img, size, &np);
        double t6 = now_ms();
        free(img);
        glh_destroy(h);
        if (rc != 0) {
            fprintf(stderr, "cupti_host_cost: CUPTI refused a step (%d)\n", rc);
            return 1;
        }
        printf("  %-6d %12.2f %12.2f %12.2f %10.3f %10.3f %7zu\n", round, t1 - t0, t2 - t1,
               t4 - t3, t5 - t4, t6 - t5, np);
    }
    return 0;
}
