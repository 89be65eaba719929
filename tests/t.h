/* t.h - the tests' only framework: count checks, print failures with file:line,
 * and close each test program with "name: N passed, N failed".
 * Must not hide a failure: every CHECK counts, and main returns non-zero on any. */
#ifndef GL_T_H
#define GL_T_H

#include <stdio.h>
#include <string.h>

#include "registry.h"

static int t_passed, t_failed;

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

static int t_done(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, t_passed, t_failed);
    return t_failed ? 1 : 0;
}

#endif
