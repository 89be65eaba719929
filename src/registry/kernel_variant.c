/* kernel_variant.c - see kernel_variant.h: a user kernel's check, counts and run
 * as a variant's, and the keys of its compilations. The check is pure (no
 * device call): every expression of the section evaluated at the point, sizes
 * that must be positive, and the limits of the given GPU, or of every CUDA GPU
 * when none is known (1024 threads and 1024 x 1024 x 64 per block, a grid of
 * 2^31-1 x 65535 x 65535, 48 KiB of dynamic shared memory).
 * Must not compile or launch anything itself, nor parse configs. */
#include "kernel_variant.h"
#include "kobject.h"
#include "kinit.h"
#include "expr.h"
#include "kernel_launches.h"
#include "launches.h"
#include "registry.h"
#include "scalar.h"
#include "target.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static long max_threads(const struct gl_device *d)
{
    return d && d->max_threads_per_block > 0 ? d->max_threads_per_block : 1024;
}

static long block_max(const struct gl_device *d, int axis)
{
    static const long stat[3] = { 1024, 1024, 64 };
    return d && d->max_block[axis] > 0 ? d->max_block[axis] : stat[axis];
}

static long grid_max(const struct gl_device *d, int axis)
{
    static const long stat[3] = { 0x7fffffffL, 65535, 65535 };
    return d && d->max_grid[axis] > 0 ? d->max_grid[axis] : stat[axis];
}

/* The GPU's opt-in maximum, or without one the target's (target.h: sm_90 227 KiB). */
static long smem_max(const struct gl_device *d, const struct gl_kernel *k)
{
    if (d && d->smem_per_block_optin > 0)
        return d->smem_per_block_optin;
    if (d && d->smem_per_block > 0)
        return d->smem_per_block;
    return gl_arch_smem_optin(gl_arch_effective(k->arch, gl_arch_plan_base));
}

#define SMEM_SKIP "dynamic shared memory of "

int gl_kernel_skip_is_smem(const char *reason)
{
    return strncmp(reason, SMEM_SKIP, strlen(SMEM_SKIP)) == 0;
}

static const char *value(const char *what, const char *e, const struct gl_params *p,
                         long long *out, char *buf, size_t len);

/* cluster = X, Y, Z at p: each dimension divides the grid's, 8 blocks at most. */
static const char *cluster_check(const struct gl_kernel *k, const struct gl_params *p,
                                 const long long g[3], char *buf, size_t len)
{
    long long c[3] = { 1, 1, 1 };
    static const char axis[3] = { 'x', 'y', 'z' };
    const char *why;
    for (int i = 0; i < k->ncluster; i++) {
        if ((why = value("cluster", k->cluster[i], p, &c[i], buf, len)))
            return why;
        if (c[i] < 1) {
            snprintf(buf, len, "cluster %s = %lld blocks (must be at least 1)", k->cluster[i],
                     c[i]);
            return buf;
        }
    }
    if (c[0] * c[1] * c[2] > 8) {
        snprintf(buf, len, "cluster %lld x %lld x %lld is %lld blocks, more than the portable 8 "
                 "(a non-portable size needs the kernel attribute "
                 "cudaFuncAttributeNonPortableClusterSizeAllowed)", c[0], c[1], c[2],
                 c[0] * c[1] * c[2]);
        return buf;
    }
    for (int i = 0; i < 3; i++)
        if (g[i] % c[i] != 0) {
            snprintf(buf, len, "grid %c = %lld blocks is not a multiple of the cluster's %lld "
                     "(cluster %lld x %lld x %lld)", axis[i], g[i], c[i], c[0], c[1], c[2]);
            return buf;
        }
    return NULL;
}

/* Evaluate what (its text e) at p; NULL with *out, or the reason in buf. */
static const char *value(const char *what, const char *e, const struct gl_params *p,
                         long long *out, char *buf, size_t len)
{
    char msg[200];
    if (gl_expr_value(e, p, out, msg, sizeof msg) == 0)
        return NULL;
    snprintf(buf, len, "%s '%s': %s", what, e, msg);
    return buf;
}

/* The launch shape at p into g and b (unused dimensions 1) and the smem bytes. */
static const char *shape(const struct gl_kernel *k, const struct gl_params *p, long long g[3],
                         long long b[3], long long *smem, char *buf, size_t len)
{
    const char *why;
    for (int i = 0; i < 3; i++)
        g[i] = b[i] = 1;
    *smem = 0;
    for (int i = 0; i < k->ngrid; i++) {
        if ((why = value("grid", k->grid[i], p, &g[i], buf, len)))
            return why;
        if (g[i] < 1) {
            snprintf(buf, len, "grid %s = %lld blocks (must be at least 1)", k->grid[i], g[i]);
            return buf;
        }
    }
    for (int i = 0; i < k->nblock; i++) {
        if ((why = value("block", k->block[i], p, &b[i], buf, len)))
            return why;
        if (b[i] < 1) {
            snprintf(buf, len, "block %s = %lld threads (must be at least 1)", k->block[i], b[i]);
            return buf;
        }
    }
    if (k->smem[0] && (why = value("smem", k->smem, p, smem, buf, len)))
        return why;
    if (*smem < 0) {
        snprintf(buf, len, "smem %s = %lld bytes (must be 0 or more)", k->smem, *smem);
        return buf;
    }
    return NULL;
}

static const char *kv_check(const struct gl_variant *v, const struct gl_params *p,
                            const struct gl_device *dev, char *buf, size_t len)
{
    const struct gl_kernel_variant *kv = (const struct gl_kernel_variant *)v;
    const struct gl_kernel *k = kv->k;
    long long g[3], b[3], smem, n;
    const char *why;
    static const char axis[3] = { 'x', 'y', 'z' };
    if (k->seq && (why = gl_kseq_check(kv, p, dev, buf, len)))   /* launch.NAME lines */
        return why;
    if ((why = shape(k, p, g, b, &smem, buf, len)))
        return why;
    for (int i = 0; i < 3; i++) {
        if (b[i] > block_max(dev, i)) {
            snprintf(buf, len, "block %c = %lld threads exceeds the device limit of %ld", axis[i],
                     b[i], block_max(dev, i));
            return buf;
        }
        if (g[i] > grid_max(dev, i)) {
            snprintf(buf, len, "grid %c = %lld blocks exceeds the device limit of %ld", axis[i],
                     g[i], grid_max(dev, i));
            return buf;
        }
    }
    long long threads = b[0] * b[1] * b[2];   /* each side is at most 1024 here */
    if (threads > max_threads(dev)) {
        snprintf(buf, len, "block of %lld threads exceeds the device limit of %ld", threads,
                 max_threads(dev));
        return buf;
    }
    if (smem > smem_max(dev, k)) {
        char t[16];
        gl_arch_name(gl_arch_effective(k->arch, gl_arch_plan_base), t, sizeof t);
        snprintf(buf, len, SMEM_SKIP "%lld bytes exceeds the %s limit of %ld", smem,
                 dev ? "device" : t, smem_max(dev, k));
        return buf;
    }
    if (k->ncluster && (why = cluster_check(k, p, g, buf, len)))
        return why;
    if (dev && dev->cc_major > 0) {
        int target = gl_arch_effective(k->arch, dev->cc_major * 10 + dev->cc_minor);
        if ((why = gl_arch_mismatch(target, dev->cc_major, dev->cc_minor, buf, len)))
            return why;
        if (k->ncluster && dev->cc_major < 9) {
            snprintf(buf, len, "thread-block clusters need compute capability 9.0 or later, and "
                     "this GPU is %d.%d", dev->cc_major, dev->cc_minor);
            return buf;
        }
    }
    double total = 0;
    for (int i = 0; i < k->nbuffers; i++) {
        const struct gl_kbuffer *bf = &k->buffers[i];
        char what[GL_KNAME + 8];
        snprintf(what, sizeof what, "buffer.%s", bf->name);
        if ((why = value(what, bf->count, p, &n, buf, len)))
            return why;
        if (n < 1) {
            snprintf(buf, len, "buffer.%s: %s = %lld elements (must be at least 1)", bf->name,
                     bf->count, n);
            return buf;
        }
        int t = gl_ktype_at(bf->type, bf->tparam, p);
        if (t < 0) {
            snprintf(buf, len, "buffer.%s: type parameter %s has no type here", bf->name,
                     bf->tparam);
            return buf;
        }
        double lo, hi;
        if (gl_kbuffer_values(bf, p, &lo, &hi, buf, len) != 0)
            return buf;
        if (bf->init == GL_KI_FILE && n * (long long)gl_ktype_size(t) != bf->file_bytes) {
            snprintf(buf, len, "buffer.%s: %s = %lld elements (%lld bytes), but file %s holds "
                     "%lld bytes", bf->name, bf->count, n,
                     n * (long long)gl_ktype_size(t), bf->file, bf->file_bytes);
            return buf;
        }
        total += (double)n * (double)gl_ktype_size(t);
    }
    if (dev && dev->mem_bytes > 0 && total > (double)dev->mem_bytes) {
        snprintf(buf, len, "the buffers take %.0f MiB, more than the GPU's %lld MiB",
                 total / 1048576.0, dev->mem_bytes / 1048576);
        return buf;
    }
    for (int i = 0; i < k->nargs; i++) {
        const struct gl_karg *a = &k->args[i];
        if (a->buffer >= 0 || a->object)
            continue;
        /* the value in its type: out of range, not a number, or rounding to 0 skips */
        struct gl_scalar sv;
        char msg[300];
        int t = gl_ktype_at(a->type, a->tparam, p);
        if (t < 0 || gl_scalar_eval(t, a->expr, p, &sv, msg, sizeof msg) != 0) {
            snprintf(buf, len, "args: %s", t < 0 ? "a type parameter has no type here" : msg);
            return buf;
        }
    }
    for (int i = 0; i < k->nobjects; i++) {   /* tensor maps: the driver's rules at p */
        const struct gl_kobject *o = &k->objects[i];
        char msg[300];
        if (o->kind == GL_KO_TENSORMAP && gl_tmap_eval(k, o, p, 0, NULL, msg, sizeof msg) != 0) {
            snprintf(buf, len, "tensormap.%s (line %d): %s", o->name, o->line, msg);
            return buf;
        }
    }
    if (k->flops[0] && (why = value("flops", k->flops, p, &n, buf, len)))
        return why;
    if (k->bytes[0] && (why = value("bytes", k->bytes, p, &n, buf, len)))
        return why;
    return NULL;
}

/* An optional count: -1 (stored as NULL) when absent or not computable. */
static double count(const char *e, const struct gl_params *p)
{
    long long n;
    char msg[200];
    if (!e[0] || gl_expr_value(e, p, &n, msg, sizeof msg) != 0)
        return -1;
    return (double)n;
}

static double kv_flops(const struct gl_variant *v, const struct gl_params *p)
{
    return count(((const struct gl_kernel_variant *)v)->k->flops, p);
}

static double kv_bytes(const struct gl_variant *v, const struct gl_params *p)
{
    return count(((const struct gl_kernel_variant *)v)->k->bytes, p);
}

static int kv_run(const struct gl_variant *v, const struct gl_params *p, const struct gl_timing *t,
                  struct gl_result *r)
{
    const struct gl_device_ops *ops = gl_registry_gpu();
    if (!ops || !ops->kernel_run) {
        r->status = GL_FAILED;
        snprintf(r->reason, sizeof r->reason, "user kernels need the GPU plugin's kernel_run: %s",
                 ops ? "this plugin has none" : gl_registry_gpu_why());
        return 0;
    }
    return ops->kernel_run((const struct gl_kernel_variant *)v, p, t, r);
}

void gl_kernel_variant_init(struct gl_kernel_variant *kv)
{
    struct gl_variant *v = &kv->v;
    v->family = kv->family;
    v->name = kv->name;
    v->device = "gpu";
    v->desc = !kv->expr[0] && kv->k && kv->k->seq ? kv->k->seq->desc : kv->expr;
    v->check = kv_check;
    v->flops = kv_flops;
    v->min_bytes = kv_bytes;
    v->run = kv_run;
    v->impl = kv;
}

const struct gl_kernel_variant *gl_kernel_variant_of(const struct gl_variant *v)
{
    return v && v->run == kv_run ? (const struct gl_kernel_variant *)v : NULL;
}

int gl_kernel_compile_key(const struct gl_kernel_variant *kv, const struct gl_params *p, char *buf,
                          size_t len)
{
    char name[4096], prog[3500];
    int rc = kv->k->seq ? gl_kseq_name_exprs(kv, p, name, sizeof name)   /* every launch's */
                        : gl_kernel_name_expr(kv, p, name, sizeof name);
    if (rc != 0 ||
        gl_kernel_program_key(kv, p, prog, sizeof prog) != 0)
        return -1;
    int w = snprintf(buf, len, "%s|%s", prog, name);
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

void gl_kernel_launch_kind(const struct gl_kernel *k, const struct gl_params *p, char *buf,
                           size_t len)
{
    long long c[3] = { 1, 1, 1 };
    char msg[200];
    if (k->cooperative) {
        snprintf(buf, len, "cooperative");
        return;
    }
    if (!k->ncluster) {
        snprintf(buf, len, "%s", k->seq ? "sequence" : "plain");
        return;
    }
    for (int i = 0; i < k->ncluster; i++)
        if (gl_expr_value(k->cluster[i], p, &c[i], msg, sizeof msg) != 0)
            c[i] = 0;
    snprintf(buf, len, "cluster %lldx%lldx%lld", c[0], c[1], c[2]);
}
