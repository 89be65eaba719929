/* cpu_dispatch.c - see cpu_dispatch.h: the instruction-set levels, which of
 * them this CPU supports, the one a run uses, and the sequential and OpenMP
 * drivers of a kernel's row function. Must not contain a kernel. */
#include "cpu_dispatch.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_harness.h"

static const char *const names[GL_ISA_COUNT] = { "x86-64", "x86-64-v3", "x86-64-v4" };
static const char *const labels[GL_ISA_COUNT] = {
    "x86-64 (SSE2)", "x86-64-v3 (AVX2, FMA)", "x86-64-v4 (AVX-512)"
};

const char *gl_isa_name(enum gl_isa isa)
{
#if defined(__x86_64__)
    return isa >= 0 && isa < GL_ISA_COUNT ? names[isa] : "?";
#else
    return isa == GL_ISA_BASE ? "generic" : "?";
#endif
}

const char *gl_isa_label(enum gl_isa isa)
{
#if defined(__x86_64__)
    return isa >= 0 && isa < GL_ISA_COUNT ? labels[isa] : "?";
#else
    return isa == GL_ISA_BASE ? "generic (the compiler's default target)" : "?";
#endif
}

/* The level GL_CPU_ISA_MAX_ENV names; GL_ISA_COUNT when unset or empty, -1
 * when it names no level. */
static int isa_cap(void)
{
    const char *cap = getenv(GL_CPU_ISA_MAX_ENV);
    if (!cap || !cap[0])
        return GL_ISA_COUNT;
    for (int i = 0; i < GL_ISA_COUNT; i++)
        if (strcmp(cap, gl_isa_name((enum gl_isa)i)) == 0)
            return i;
    return -1;
}

int gl_isa_supported(enum gl_isa isa)
{
    if (isa == GL_ISA_BASE)
        return 1;
    if (isa_cap() >= 0 && (int)isa > isa_cap())
        return 0;
#if defined(__x86_64__)
    __builtin_cpu_init();
#if defined(__clang__) || __GNUC__ < 12
    /* no level names in this compiler's builtin: the features the loops use */
    if (isa == GL_ISA_V3)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
               __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
    if (isa == GL_ISA_V4)
        return gl_isa_supported(GL_ISA_V3) && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq");
#else
    if (isa == GL_ISA_V3)
        return __builtin_cpu_supports("x86-64-v3") != 0;
    if (isa == GL_ISA_V4)
        return __builtin_cpu_supports("x86-64-v4") != 0;
#endif
#endif
    return 0;
}

enum gl_isa gl_isa_best(void)
{
    for (int i = GL_ISA_COUNT - 1; i > GL_ISA_BASE; i--)
        if (gl_isa_supported((enum gl_isa)i))
            return (enum gl_isa)i;
    return GL_ISA_BASE;
}

int gl_isa_pick(char *err, size_t errlen)
{
    const char *want = getenv(GL_CPU_ISA_ENV);
    if (isa_cap() < 0) {
        snprintf(err, errlen, "%s=%s: unknown level (one of %s, %s, %s)", GL_CPU_ISA_MAX_ENV,
                 getenv(GL_CPU_ISA_MAX_ENV), gl_isa_name(GL_ISA_BASE), gl_isa_name(GL_ISA_V3),
                 gl_isa_name(GL_ISA_V4));
        return -1;
    }
    if (!want || !want[0])
        return (int)gl_isa_best();
    for (int i = 0; i < GL_ISA_COUNT; i++) {
        if (strcmp(want, gl_isa_name((enum gl_isa)i)) != 0)
            continue;
        if (gl_isa_supported((enum gl_isa)i))
            return i;
        snprintf(err, errlen, "%s=%s: this CPU cannot run %s code%s%s", GL_CPU_ISA_ENV, want,
                 gl_isa_label((enum gl_isa)i), isa_cap() < GL_ISA_COUNT ? " (capped by " : "",
                 isa_cap() < GL_ISA_COUNT ? GL_CPU_ISA_MAX_ENV ")" : "");
        return -1;
    }
    snprintf(err, errlen, "%s=%s: unknown level (one of %s, %s, %s)", GL_CPU_ISA_ENV, want,
             gl_isa_name(GL_ISA_BASE), gl_isa_name(GL_ISA_V3), gl_isa_name(GL_ISA_V4));
    return -1;
}

void gl_cpu_rows_seq(const struct gl_cpu_job *j, const struct gl_cpu_rows *k, long n)
{
    k->fn[j->isa](j, 0, n);
}

void gl_cpu_rows_omp(const struct gl_cpu_job *j, const struct gl_cpu_rows *k, long n)
{
    const gl_cpu_rows_fn fn = k->fn[j->isa];
#pragma omp parallel num_threads(j->threads)
    {
        /* schedule(static) by hand: n / T rows each, the first n % T threads one more */
        const long t = omp_get_thread_num(), nt = omp_get_num_threads();
        const long q = n / nt, rem = n % nt;
        const long i0 = t * q + (t < rem ? t : rem), i1 = i0 + q + (t < rem);
        if (i1 > i0)
            fn(j, i0, i1);
    }
}
