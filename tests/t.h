/* t.h - the tests' only framework: count checks, print failures with file:line,
 * and close each test program with "name: N passed, N failed".
 * Must not hide a failure: every CHECK counts, and main returns non-zero on any. */
#ifndef GL_T_H
#define GL_T_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "registry.h"

static int t_passed, t_failed, t_skipped;

static int t_check(int ok, const char *what, const char *file, int line)
{
    if (ok) {
        t_passed++;
    } else {
        t_failed++;
        printf("FAIL %s:%d: %s\n", file, line, what);
    }
    return ok;
}

#define CHECK(cond) t_check((cond) != 0, #cond, __FILE__, __LINE__)
#define CHECK_STR(a, b) t_check(strcmp((a), (b)) == 0, #a " == " #b, __FILE__, __LINE__)

/* Load the built plugins (build/libgpulab_cpu.so and libgpulab_gpu.so) as gpulab
 * does from its own folder; tests run from the repository root. 1 on success. */
__attribute__((unused)) static int t_load_plugins(void)
{
    char err[1024];
    if (gl_registry_load("build", err, sizeof err) == 0)
        return 1;
    printf("FAIL loading plugins: %s\n", err);
    t_failed++;
    return 0;
}

/* A program that needs the GPU plugin (its variant tables, NVRTC) on a tree built
 * without a CUDA compiler (the Makefile leaves build/libgpulab_gpu.so out then):
 * says so and exits with "name: 0 passed, 0 failed, 1 skipped", which
 * tests/run.sh counts as skipped. Where the file exists, it must load: a plugin
 * that is there but broken is a failure, not a skip. */
__attribute__((unused)) static void t_need_gpu_plugin(const char *name)
{
    FILE *f = fopen("build/libgpulab_gpu.so", "rb");
    if (f) {
        fclose(f);
        return;
    }
    printf("%s: skipped: needs build/libgpulab_gpu.so (built without a CUDA compiler)\n", name);
    printf("%s: 0 passed, 0 failed, 1 skipped\n", name);
    fflush(stdout);
    _exit(0);
}

/* 1 when build/libgpulab_gpu.so exists; 0 (one check counted as skipped) when
 * the tree was built without a CUDA compiler. For a check that needs the GPU
 * plugin's variants inside a program that mostly does not. */
__attribute__((unused)) static int t_have_gpu_plugin(void)
{
    if (access("build/libgpulab_gpu.so", F_OK) == 0)
        return 1;
    t_skipped++;
    return 0;
}

static int t_done(const char *name)
{
    if (t_skipped)
        printf("%s: %d passed, %d failed, %d skipped\n", name, t_passed, t_failed, t_skipped);
    else
        printf("%s: %d passed, %d failed\n", name, t_passed, t_failed);
    return t_failed ? 1 : 0;
}

#endif
