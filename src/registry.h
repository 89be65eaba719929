/* registry.h - the variant registry: every kernel variant and CPU baseline gpulab
 * knows, with the parameters it reads, the launches it rejects, and its analytic
 * FLOP and byte counts. The table itself is experiments/registry.c, the one place
 * a variant is declared. Must not contain kernels or timing code. */
#ifndef GL_REGISTRY_H
#define GL_REGISTRY_H

#include "gpulab.h"
#include "params.h"

/* CPU family entry points (experiments/cpu_*.c): run one variant of the family
 * with params p: set up random inputs (seed p->seed), warm up, take samples as
 * policy t says, verify against the float64 reference; fill r. Return 0, or -1
 * on an internal error (r->status = GL_FAILED, r->reason set). */
typedef int (*gl_cpu_fn)(const char *variant, const struct gl_params *p,
                         const struct gl_timing *t, struct gl_result *r);

struct gl_variant {
    const char *family;   /* matmul | stencil | vecadd */
    const char *name;     /* unique within the family; the table row's name */
    const char *device;   /* "cpu" | "gpu" */
    const char *desc;     /* one line */
    unsigned params;      /* GL_PBIT() of each parameter the variant reads */
    /* NULL if the run can be made, else the reason it cannot (static string or
     * written into buf). gpu is NULL when no GPU is known: static limits apply. */
    const char *(*check)(const struct gl_params *p, const struct gl_device *gpu,
                         char *buf, size_t len);
    double (*flops)(const struct gl_params *p);      /* analytic FLOP count */
    double (*min_bytes)(const struct gl_params *p);  /* each input read once, output written once */
    gl_cpu_fn cpu_run;    /* CPU variants only; NULL for GPU variants */
};

extern const struct gl_variant gl_variants[];
extern const int gl_nvariants;

const struct gl_variant *gl_variant_find(const char *family, const char *name);
/* Nearest variant name within the family (for "did you mean"), or NULL. */
const char *gl_variant_nearest(const char *family, const char *name);
int gl_family_known(const char *family);

/* Fill the defaults a variant needs for parameters the config left unset
 * (seed 42, threads 0 -> all cores, cache cold, mem device, grid 2d, K 1, G 0,
 * M and P = N for square problems), then drop those it does not read. */
void gl_variant_complete(const struct gl_variant *v, struct gl_params *p);

#endif
