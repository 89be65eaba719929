/* cmd_info.c - the informational subcommands: `list` (variants, the
 * parameters each reads, and the file of a --plugin's), `query` (SQL on the
 * results database, read-only unless --write), `device` (the CPU and GPU
 * descriptions with the GPU's measured copy bandwidth and memory ceilings and
 * its clocks, printed and stored; the ceilings once per device row, and always
 * measured again into the machine's ceilings cache, ceilings_cache.h) and
 * `metrics` (the counters the GPU supports). Must not run sweeps. */
#include "commands.h"
#include "ceilings_cache.h"
#include "cpuinfo.h"
#include "devlock.h"
#include "gpuclocks.h"
#include "metric_sets.h"
#include "registry.h"

#include <stdio.h>
#include <string.h>

int gl_cmd_list(const char *family)
{
    if (family && !gl_family_known(family)) {
        const char *near = gl_family_nearest(family);
        if (near)
            fprintf(stderr, "gpulab: unknown family '%s' (did you mean '%s'?)\n", family, near);
        else
            fprintf(stderr, "gpulab: unknown family '%s'\n", family);
        return 2;
    }
    /* by family, in the order the families first appear in the plugins */
    int shown = 0;
    for (int f = 0; f < gl_registry_count(); f++) {
        const char *fam = gl_registry_at(f)->family;
        int first = 1;
        for (int j = 0; j < f && first; j++)
            first = strcmp(gl_registry_at(j)->family, fam) != 0;
        if (!first || (family && strcmp(fam, family) != 0))
            continue;
        printf("%s%s\n", shown++ ? "\n" : "", fam);
        for (int i = f; i < gl_registry_count(); i++) {
            const struct gl_variant *v = gl_registry_at(i);
            if (strcmp(v->family, fam) != 0)
                continue;
            char params[128] = "";
            for (int p = 0; p < GL_NPARAMS; p++) {
                if (!(v->params & GL_PBIT(p)))
                    continue;
                if (params[0])
                    strncat(params, " ", sizeof params - strlen(params) - 1);
                strncat(params, gl_param_table[p].name, sizeof params - strlen(params) - 1);
            }
            const char *from = gl_variant_origin(v);
            printf("  %-3s %-12s [%s]\n        %s%s%s%s\n", v->device, v->name, params,
                   v->desc ? v->desc : "", from ? " (plugin " : "", from ? from : "",
                   from ? ")" : "");
        }
    }
    printf("\nparameters:\n");
    for (int p = 0; p < GL_NPARAMS; p++)
        printf("  %-8s %s\n", gl_param_table[p].name, gl_param_table[p].desc);
    return 0;
}

/* Read-only unless write: then the database is opened as `run` opens it
 * (created or migrated), and statements may write. */
int gl_cmd_query(const char *db, const char *sql, enum gl_format fmt, int write)
{
    char err[1024];
    gl_store *store = NULL;
    if ((write ? gl_store_open : gl_store_open_readonly)(db, &store, err, sizeof err) != 0) {
        fprintf(stderr, "gpulab: %s\n", err);
        return 2;
    }
    int rc = gl_store_query(store, sql, fmt, stdout, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "gpulab: query: %s\n", err);
    gl_store_close(store);
    return rc != 0 ? 2 : 0;
}

static void print_device(const struct gl_device *d)
{
    if (strcmp(d->kind, "cpu") == 0) {
        printf("CPU: %s\n  logical cores: %d\n  L1d: %ld KiB  L2: %ld KiB  L3: %ld KiB\n", d->name,
               d->cores, d->l1d_kb, d->l2_kb, d->l3_kb);
        return;
    }
    printf("GPU: %s\n", d->name);
    printf("  UUID:                        %s\n", d->ident);
    printf("  compute capability:          %d.%d\n", d->cc_major, d->cc_minor);
    printf("  multiprocessors:             %d (%d FP32 cores each, %d total)\n", d->sm_count,
           d->cores_per_sm, d->sm_count * d->cores_per_sm);
    printf("  GPU clock:                   %.0f MHz\n", d->clock_khz / 1e3);
    printf("  memory clock:                %.0f MHz\n", d->mem_clock_khz / 1e3);
    printf("  memory bus width:            %d bit\n", d->mem_bus_bits);
    printf("  global memory:               %.1f GiB\n", (double)d->mem_bytes / (1024.0 * 1024 * 1024));
    printf("  L2 cache:                    %.1f MiB\n", d->l2_bytes / (1024.0 * 1024));
    printf("  shared memory per block:     %d KiB (opt-in %d KiB)\n", d->smem_per_block / 1024,
           d->smem_per_block_optin / 1024);
    printf("  shared memory per SM:        %d KiB\n", d->smem_per_sm / 1024);
    printf("  registers per block / SM:    %d / %d\n", d->regs_per_block, d->regs_per_sm);
    printf("  warp size:                   %d\n", d->warp_size);
    printf("  max threads per block / SM:  %d / %d\n", d->max_threads_per_block, d->max_threads_per_sm);
    printf("  max blocks per SM:           %d\n", d->max_blocks_per_sm);
    printf("  max block dims:              %d x %d x %d\n", d->max_block[0], d->max_block[1],
           d->max_block[2]);
    printf("  max grid dims:               %d x %d x %d\n", d->max_grid[0], d->max_grid[1],
           d->max_grid[2]);
    printf("  driver / runtime:            %d / %d\n", d->driver_version, d->runtime_version);
    printf("  theoretical bandwidth:       %.1f GB/s (memory clock x bus width/8 x 2)\n", d->theo_bw_gbs);
    if (d->copy_bw_gbs > 0)
        printf("  measured copy bandwidth:     %.1f GB/s (device-to-device, read + write)\n",
               d->copy_bw_gbs);
    else
        printf("  measured copy bandwidth:     not measured\n");
    printf("  FP32 peak:                   %.1f GFLOP/s (SMs x cores x 2 x clock)\n", d->fp32_peak_gflops);
}

/* One ceiling's line: its value, or "not measured". */
static void print_ceiling(const char *what, double gbs, const char *how)
{
    if (gbs > 0)
        printf("  %-29s%.1f GB/s (%s)\n", what, gbs, how);
    else
        printf("  %-29snot measured\n", what);
}

static void print_ceilings(const struct gl_ceilings *c)
{
    print_ceiling("L1 bandwidth:", c->l1_gbs, "global loads that hit L1");
    print_ceiling("shared-memory bandwidth:", c->smem_gbs, "conflict-free loads");
    print_ceiling("L2 bandwidth:", c->l2_gbs, "loads that miss L1 and hit L2");
    print_ceiling("host link, zero-copy read:", c->hostlink_gbs, "a kernel reading pinned "
                  "mapped host memory");
    print_ceiling("host link, pinned copy:", c->h2d_gbs, "cudaMemcpy host to device");
    if (c->clock_mhz > 0)
        printf("  ceilings measured at:        %.0f MHz SM clock\n", c->clock_mhz);
    if (c->why[0])
        printf("  (%s)\n", c->why);
}

/* The SM clocks as NVML sees them, or why not. */
static void print_clocks(const struct gl_device *d)
{
    struct gl_gpu_clocks c;
    char why[256];
    if (gl_clocks_read(d->ident, &c, why, sizeof why) != 0) {
        printf("  SM clock (NVML):             not known: %s\n", why);
        return;
    }
    printf("  SM clock (NVML):             %d MHz now, applications %d, default "
           "applications %d, max %d MHz\n", c.sm_mhz, c.app_mhz, c.app_default_mhz, c.max_mhz);
    if (c.have_events)
        printf("  clock event reasons:         %s\n", c.events_text[0] ? c.events_text : "none");
}

int gl_cmd_device(const char *db)
{
    char err[1024];
    struct gl_device cpu, gpu;
    gl_store *store = NULL;
    int rc = 0;
    gl_cpu_describe(&cpu);
    print_device(&cpu);
    if (gl_store_open(db, &store, err, sizeof err) != 0) {
        fprintf(stderr, "gpulab: %s\n", err);
        return 2;
    }
    if (gl_store_device(store, &cpu) < 0)
        rc = 1;
    const struct gl_device_ops *api = gl_registry_gpu();
    if (!api)
        snprintf(err, sizeof err, "%s", gl_registry_gpu_why());
    if (!api || api->init(0, &gpu, err, sizeof err) != 0) {
        printf("GPU: none usable: %s\n", err);
    } else {
        /* the copy bandwidth is a measurement: only while holding the GPU's lock */
        struct gl_devlocks locks;
        const struct gl_device *devs[1] = { &gpu };
        char lerr[512];
        memset(&locks, 0, sizeof locks);
        struct gl_ceilings ceil;
        char at[40] = "";
        memset(&ceil, 0, sizeof ceil);
        snprintf(ceil.why, sizeof ceil.why, "the GPU plugin does not measure them");
        if (gl_devlock_take(&locks, devs, 1, 1, "gpulab device", NULL, stderr, lerr,
                            sizeof lerr) == 0) {
            if (api->copy_bandwidth)
                gpu.copy_bw_gbs = api->copy_bandwidth();
            if (api->ceilings && api->ceilings(&ceil) >= 0)
                (void)gl_ceilings_cache_save(&gpu, &ceil, at, sizeof at);   /* for new databases */
            gl_devlock_release(&locks);
        } else {
            fprintf(stderr, "gpulab: copy bandwidth and ceilings not measured: %s\n", lerr);
            snprintf(ceil.why, sizeof ceil.why, "the device's lock: %.200s", lerr);
        }
        print_device(&gpu);
        print_ceilings(&ceil);
        print_clocks(&gpu);
        long long id = gl_store_device(store, &gpu);
        int have = id > 0 ? gl_store_device_has_ceilings(store, id) : -1;
        if (id < 0 || have < 0 || gl_store_device_bandwidth(store, id, gpu.copy_bw_gbs) != 0 ||
            (have == 0 && gl_store_device_ceilings_at(store, id, &ceil, at[0] ? at : NULL) != 0))
            rc = 1;
        api->shutdown();
    }
    if (rc)
        fprintf(stderr, "gpulab: could not store the device: %s\n", gl_store_errmsg(store));
    else
        printf("(stored in %s)\n", db);
    gl_store_close(store);
    return rc;
}

struct name_filter {
    char *const *pats;
    int npats;
    int shown, total;
};

static void print_name(const char *name, void *ctx)
{
    struct name_filter *f = ctx;
    f->total++;
    if (!gl_metric_match(name, f->pats, f->npats))
        return;
    printf("%s\n", name);
    f->shown++;
}

int gl_cmd_metrics(int npats, char *const *pats)
{
    char err[1024];
    struct gl_device gpu;
    const struct gl_device_ops *api = gl_registry_gpu();
    if (!api)
        snprintf(err, sizeof err, "%s", gl_registry_gpu_why());
    if (!api || api->init(0, &gpu, err, sizeof err) != 0) {
        fprintf(stderr, "gpulab: no usable GPU: %s\n", err);
        return 1;
    }
    struct name_filter f = { pats, npats, 0, 0 };
    if (api->list_metrics(print_name, &f, err, sizeof err) != 0) {
        fprintf(stderr, "gpulab: cannot list metrics: %s\n", err);
        api->shutdown();
        return 1;
    }
    api->shutdown();
    if (npats > 0) {
        fprintf(stderr, "gpulab: %d of %d counter metrics on %s match\n", f.shown, f.total, gpu.name);
        return f.shown > 0 ? 0 : 1;
    }
    fprintf(stderr, "gpulab: %d counter metrics on %s\n", f.total, gpu.name);
    return 0;
}
