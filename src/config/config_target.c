/* config_target.c - a kernel section's keys for today's GPUs: `launch =
 * plain | cooperative`, `arch = 90a` (the target, src/core/target.h) and the
 * checks that need the kernels' text (ksource.c): a kernel whose body makes a
 * grid-wide sync must be launched cooperatively; `cluster =` (read by
 * config_kernel.c) must not exceed the portable 8 blocks, nor contradict a
 * kernel's own __cluster_dims__.
 * Must not compile or run anything. */
#include "config_int.h"
#include "ksource.h"
#include "nearest.h"
#include "target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const launch_kinds[] = { "plain", "cooperative", NULL };

static int read_launch(struct ctx *x, const struct block *b, struct gl_kernel *k)
{
    const struct entry *e = cfg_find(b, "launch");
    if (!e)
        return 0;
    k->launch_line = e->line;
    for (int i = 0; launch_kinds[i]; i++)
        if (strcmp(e->val, launch_kinds[i]) == 0) {
            k->cooperative = i == 1;
            return 0;
        }
    struct gl_nearest near;
    gl_nearest_init(&near, e->val);
    for (int i = 0; launch_kinds[i]; i++)
        gl_nearest_offer(&near, launch_kinds[i]);
    if (near.best)
        return cfg_err(x, e->line, "launch = '%s': not a kind of launch (did you mean '%s'?)",
                       e->val, near.best);
    return cfg_err(x, e->line, "launch = '%s': not a kind of launch (plain or cooperative; a "
                   "launch sequence is launch.NAME = ...)", e->val);
}

static int read_arch(struct ctx *x, const struct block *b, struct gl_kernel *k)
{
    const struct entry *e = cfg_find(b, "arch");
    char why[200];
    if (!e)
        return 0;
    if (gl_arch_parse(e->val, &k->arch, why, sizeof why) != 0)
        return cfg_err(x, e->line, "arch: %s", why);
    if (!gl_arch_suffix(k->arch))
        return cfg_err(x, e->line, "arch = %s: a kernel section names only an arch-specific "
                       "target (%da, or %df for a family); the plain sm_%d is the GPU's own, "
                       "or the command line's --arch", e->val, k->arch, k->arch, k->arch);
    k->arch_line = e->line;
    return 0;
}

/* The constant value of a cluster expression, or 0 when it names a parameter. */
static long constant(const char *e)
{
    char *end;
    long v = strtol(e, &end, 10);
    while (*end == ' ')
        end++;
    return *end ? 0 : v;
}

/* The kernel of a variant's expression: its function's base name. */
static void base_name(const char *expr, char *out, size_t len)
{
    const char *lt = strchr(expr, '<');
    size_t n = lt ? (size_t)(lt - expr) : strlen(expr);
    while (n > 0 && expr[n - 1] == ' ')
        n--;
    const char *s = expr;
    for (size_t i = 0; i + 1 < n; i++)
        if (expr[i] == ':' && expr[i + 1] == ':')
            s = expr + i + 2;
    snprintf(out, len, "%.*s", (int)(n - (size_t)(s - expr)), s);
}

int cfg_kernel_targets(struct ctx *x, const struct block *b, const struct gl_section *s,
                       struct gl_kernel *k)
{
    if (read_launch(x, b, k) != 0 || read_arch(x, b, k) != 0)
        return -1;
    if (k->seq && (k->cooperative || k->ncluster))
        return cfg_err(x, k->cooperative ? k->launch_line : k->cluster_line, "%s applies to the "
                       "one launch of args, grid and block; a launch sequence (launch.NAME) "
                       "launches plainly", k->cooperative ? "launch = cooperative" : "cluster");
    if (k->cooperative && k->ncluster)
        return cfg_err(x, k->cluster_line, "cluster: a cooperative launch has no clusters (CUDA "
                       "does not launch both at once)");
    if (k->ncluster) {
        long c[3] = { 1, 1, 1 }, all = 1;
        int known = 1;
        for (int i = 0; i < k->ncluster; i++) {
            c[i] = constant(k->cluster[i]);
            known &= c[i] > 0;
        }
        for (int i = 0; i < 3; i++)
            all *= c[i];
        if (known && all > 8)
            return cfg_err(x, k->cluster_line, "cluster = %ld x %ld x %ld is %ld blocks: more "
                           "than the portable 8; a larger (non-portable) cluster needs the "
                           "kernel's attribute cudaFuncAttributeNonPortableClusterSizeAllowed, "
                           "which gpulab does not set: use at most 8", c[0], c[1], c[2], all);
    }
    struct gl_ks_file f;
    char err[200];
    if (gl_ks_scan(k->text, &f, err, sizeof err) != 0)
        return 0;   /* the scan's own limits: the compiler will say more */
    int rc = 0;
    for (int v = 0; v < s->nvariants && rc == 0; v++) {
        char name[GL_KEXPR];
        base_name(s->kvs[v].expr, name, sizeof name);
        for (int i = 0; i < f.nkernels && rc == 0; i++) {
            const struct gl_ks_kernel *ks = &f.kernels[i];
            if (strcmp(ks->name, name) != 0)
                continue;
            if (ks->grid_sync_line && !k->cooperative)
                rc = cfg_err(x, s->variants_line ? s->variants_line : k->source_line,
                             "variant %s: kernel %s calls a grid-wide sync (%s at %s:%d), which "
                             "needs a cooperative launch (a plain one hangs or traps): add "
                             "'launch = cooperative' to section [%s]", s->kvs[v].name, name,
                             ks->grid_sync, k->source, ks->grid_sync_line, s->name);
            if (rc == 0 && ks->cluster_dims[0] && k->ncluster)
                rc = cfg_err(x, k->cluster_line, "cluster: kernel %s has __cluster_dims__(%d, "
                             "%d, %d) (%s:%d): its cluster is compiled in; remove 'cluster ='",
                             name, ks->cluster_dims[0], ks->cluster_dims[1],
                             ks->cluster_dims[2], k->source, ks->line);
        }
    }
    gl_ks_free(&f);
    return rc;
}
