/* test_cupti_host.c - CUPTI's profiler host API as the GPU plugin uses it
 * (cupti/gpu_host_shim.cpp), without a GPU: the host side needs only the
 * chip's name, so the metric sets gpulab declares (src/core/metric_sets.c), as
 * the profiler gets them (gl_metric_resolve), are checked against the H100's
 * chip (GH100) here, in CI. The default and the full
 * set are taken as a whole, into few passes; a set that holds one unknown name
 * is refused as a whole, which is what lets glc_setup (cupti/profiler_setup.c)
 * skip the one-by-one check of the names unless the set is refused; that check
 * tells the unknown name from the known ones; and the chip's list of names
 * holds the table's.
 * Loads build/libgpulab_gpu.so as gpulab does (its glh_* functions); skipped
 * on a tree built without a CUDA compiler. Must not need a CUDA device. */
#include "t.h"
#include "metric_sets.h"
#include "../cupti/host_shim.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHIP "GH100"

static struct {
    int (*create)(const char *, const uint8_t *, glh_host **);
    void (*destroy)(glh_host *);
    int (*add_metric)(glh_host *, const char *);
    int (*add_metrics)(glh_host *, const char *const *, size_t);
    int (*config_image)(glh_host *, uint8_t **, size_t *);
    int (*num_passes)(const uint8_t *, size_t, size_t *);
    int (*each_metric)(glh_host *, void (*)(const char *, const char *, void *), void *);
} h;

static int load(void)
{
    void *so = dlopen("build/libgpulab_gpu.so", RTLD_NOW | RTLD_LOCAL);
    if (!so) {
        printf("FAIL dlopen build/libgpulab_gpu.so: %s\n", dlerror());
        return 0;
    }
    *(void **)&h.create = dlsym(so, "glh_create");
    *(void **)&h.destroy = dlsym(so, "glh_destroy");
    *(void **)&h.add_metric = dlsym(so, "glh_add_metric");
    *(void **)&h.add_metrics = dlsym(so, "glh_add_metrics");
    *(void **)&h.config_image = dlsym(so, "glh_config_image");
    *(void **)&h.num_passes = dlsym(so, "glh_num_passes");
    *(void **)&h.each_metric = dlsym(so, "glh_each_metric");
    return h.create && h.destroy && h.add_metric && h.add_metrics && h.config_image &&
           h.num_passes && h.each_metric;
}

/* The CUPTI names of a metrics spec as the profiler gets them (gl_metric_resolve,
 * less gpulab's own gpulab__ names), pointing into req. Their count, or -1. */
static int spec_names(const char *spec, struct gl_metric_req *req, const char **out)
{
    char err[256];
    if (gl_metric_resolve(spec, req, err, sizeof err) != 0)
        return -1;
    int n = 0;
    for (int i = 0; i < req->n; i++)
        if (strncmp(req->names[i], "gpulab__", 8) != 0)
            out[n++] = req->names[i];
    return n;
}

/* Passes of names added in one call to a fresh host object; -1 when refused. */
static long passes_of(const char *const *names, int n)
{
    glh_host *o = NULL;
    if (h.create(CHIP, NULL, &o) != 0 || !o)
        return -2;
    long passes = -1;
    uint8_t *img = NULL;
    size_t size = 0, p = 0;
    if (h.add_metrics(o, names, (size_t)n) == 0 && h.config_image(o, &img, &size) == 0 &&
        size > 0 && h.num_passes(img, size, &p) == 0)
        passes = (long)p;
    free(img);
    h.destroy(o);
    return passes;
}

/* 0 when CUPTI takes name alone, its error otherwise. */
static int alone(const char *name)
{
    glh_host *o = NULL;
    if (h.create(CHIP, NULL, &o) != 0 || !o)
        return -2;
    int rc = h.add_metric(o, name);
    h.destroy(o);
    return rc;
}

struct seen {
    const char **want;
    int nwant, found[GL_MAX_METRICS];
    long count;
};

static void on_name(const char *base, const char *suffix, void *ctx)
{
    struct seen *s = ctx;
    char full[256];
    snprintf(full, sizeof full, "%s%s", base, suffix);
    s->count++;
    for (int i = 0; i < s->nwant; i++)
        if (strcmp(full, s->want[i]) == 0)
            s->found[i] = 1;
}

int main(void)
{
    t_need_gpu_plugin("cupti_host");
    if (!CHECK(load()))
        return t_done("cupti_host");
    static struct gl_metric_req rdef, rfull;
    const char *def[GL_MAX_METRICS], *full[GL_MAX_METRICS], *bad[GL_MAX_METRICS + 1];
    int ndef = spec_names("default", &rdef, def);
    int nfull = spec_names("full", &rfull, full);
    CHECK(ndef >= 10 && nfull > ndef);

    /* the default set as a whole: few passes (2 on GH100 with CUPTI 13.0, 9 when
     * added one by one: profiler_setup.c's add_all) */
    long pd = passes_of(def, ndef);
    if (!CHECK(pd >= 1 && pd <= 2))
        printf("  default set: %ld passes\n", pd);
    long pf = passes_of(full, nfull);
    if (!CHECK(pf >= pd && pf <= 16))
        printf("  full set: %ld passes\n", pf);

    /* one unknown name, in the middle of the default set: the set is refused as a
     * whole (so a set taken whole needs no name checked alone) */
    int nb = 0;
    for (int i = 0; i < ndef; i++) {
        if (i == ndef / 2)
            bad[nb++] = "dram__bytez_read.sum";
        bad[nb++] = def[i];
    }
    CHECK(passes_of(bad, nb) == -1);
    /* ... and checked alone, it is the one refused */
    CHECK(alone("dram__bytez_read.sum") != 0);
    int refused = 0;
    for (int i = 0; i < ndef; i++)
        if (alone(def[i]) != 0) {
            refused++;
            printf("  refused alone: %s\n", def[i]);
        }
    CHECK(refused == 0);

    /* the chip's list of names holds every name of the sets */
    glh_host *o = NULL;
    struct seen s;
    memset(&s, 0, sizeof s);
    s.want = full;
    s.nwant = nfull;
    if (CHECK(h.create(CHIP, NULL, &o) == 0 && o)) {
        CHECK(h.each_metric(o, on_name, &s) == 0);
        h.destroy(o);
    }
    CHECK(s.count > 10000);
    int missing = 0;
    for (int i = 0; i < nfull; i++)
        if (!s.found[i]) {
            missing++;
            printf("  not in %s's list: %s\n", CHIP, full[i]);
        }
    CHECK(missing == 0);
    return t_done("cupti_host");
}
