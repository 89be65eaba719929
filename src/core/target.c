/* target.c - see target.h. */
#include "target.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gl_arch_plan_base = 90;

int gl_arch_effective(int section_arch, int base)
{
    return section_arch > 0 ? section_arch : base > 0 ? base : 90;
}

int gl_arch_parse(const char *s, int *arch, char *err, size_t errlen)
{
    const char *p = s;
    if (strncmp(p, "sm_", 3) == 0)
        p += 3;
    char *end;
    if (!isdigit((unsigned char)*p)) {
        snprintf(err, errlen, "'%s' is not a target: want a compute capability such as 90, or an "
                 "arch-specific one such as 90a or 100f", s);
        return -1;
    }
    long cc = strtol(p, &end, 10);
    int suffix = 0;
    if (*end == 'a' || *end == 'f')
        suffix = *end++;
    if (*end || cc < 30 || cc > 999) {
        snprintf(err, errlen, "'%s' is not a target: want a compute capability such as 90 "
                 "(sm_90), or an arch-specific one such as 90a or 100f", s);
        return -1;
    }
    *arch = (int)cc + (suffix == 'a' ? GL_ARCH_A : suffix == 'f' ? GL_ARCH_F : 0);
    return 0;
}

int gl_arch_cc(int arch)
{
    return arch % 1000;
}

int gl_arch_suffix(int arch)
{
    return arch >= GL_ARCH_F ? 'f' : arch >= GL_ARCH_A ? 'a' : 0;
}

void gl_arch_name(int arch, char *buf, size_t len)
{
    int sfx = gl_arch_suffix(arch);
    if (sfx)
        snprintf(buf, len, "sm_%d%c", gl_arch_cc(arch), sfx);
    else
        snprintf(buf, len, "sm_%d", gl_arch_cc(arch));
}

const char *gl_arch_mismatch(int arch, int major, int minor, char *buf, size_t len)
{
    int cc = gl_arch_cc(arch), dev = major * 10 + minor, sfx = gl_arch_suffix(arch);
    char name[16];
    gl_arch_name(arch, name, sizeof name);
    if (sfx == 'a' && cc != dev) {
        snprintf(buf, len, "target %s runs on compute capability %d.%d only, and this GPU is %d.%d",
                 name, cc / 10, cc % 10, major, minor);
        return buf;
    }
    if (cc / 10 != major || cc % 10 > minor) {
        snprintf(buf, len, "target %s runs on compute capability %d.%d%s, and this GPU is %d.%d",
                 name, cc / 10, cc % 10, cc % 10 < 9 ? " to the same major's later ones" : "",
                 major, minor);
        return buf;
    }
    return NULL;
}

long gl_arch_smem_optin(int arch)
{
    switch (gl_arch_cc(arch)) {
    case 70: return 96L * 1024;
    case 75: return 64L * 1024;
    case 80: case 87: return 163L * 1024;
    case 86: case 88: case 89: case 120: case 121: return 99L * 1024;
    case 90: case 100: case 103: case 110: return 227L * 1024;
    default: return 48L * 1024;
    }
}

/* ---- device values ---- */

static struct gl_devvals vals;
static int vals_set;
static char trace[512];

void gl_devvals_assume(struct gl_devvals *d)
{
    memset(d, 0, sizeof *d);
    d->sm_count = 132;
    d->assumed = 1;
    d->threads_per_sm = 2048;
    d->blocks_per_sm = 32;
    d->smem_per_sm = 228L * 1024;
}

void gl_devvals_set(const struct gl_devvals *d)
{
    vals = *d;
    vals_set = 1;
}

const struct gl_devvals *gl_devvals_get(void)
{
    if (!vals_set) {
        gl_devvals_assume(&vals);
        vals_set = 1;
    }
    return &vals;
}

long long gl_devvals_occupancy(long long block, long long smem, char *err, size_t errlen)
{
    const struct gl_devvals *d = gl_devvals_get();
    if (block < 1 || smem < 0) {
        snprintf(err, errlen, "occupancy(%lld, %lld): a block of at least 1 thread and 0 or more "
                 "bytes of shared memory", block, smem);
        return -1;
    }
    if (d->occupancy)
        return d->occupancy(d->ctx, block, smem, err, errlen);
    /* the estimate: warps, blocks and shared memory (1 KiB reserved per block) */
    long long warps = (block + 31) / 32 * 32;
    long long n = d->threads_per_sm / warps;
    if (n > d->blocks_per_sm)
        n = d->blocks_per_sm;
    long long per = smem + 1024;
    if (d->smem_per_sm / per < n)
        n = d->smem_per_sm / per;
    if (n < 1) {
        snprintf(err, errlen, "occupancy(%lld, %lld): no block of that shape fits on an SM", block,
                 smem);
        return -1;
    }
    return n;
}

void gl_devvals_trace_reset(void)
{
    trace[0] = '\0';
}

void gl_devvals_trace_add(const char *name, long long value)
{
    char item[96];
    snprintf(item, sizeof item, "%s=%lld", name, value);
    size_t n = strlen(item), have = strlen(trace);
    for (const char *p = trace; (p = strstr(p, item)) != NULL; p += n)
        if ((p == trace || p[-2] == ',') && (p[n] == ',' || p[n] == '\0'))
            return;   /* already there */
    if (have + n + 3 < sizeof trace)
        snprintf(trace + have, sizeof trace - have, "%s%s", have ? ", " : "", item);
}

const char *gl_devvals_trace(void)
{
    return trace;
}
