/* fuzz_config.c - libFuzzer target for the config reader (src/config*.c) and the
 * expression language (src/core/expr.c). Built and run by tests/integration/fuzz.sh
 * under ASan + UBSan; seeds in tests/fuzz/corpus/, crash inputs kept as
 * regression tests in tests/fuzz/regressions/.
 * The input is parsed as a whole config (errors are fine, crashes are not), then
 * its first line (up to 255 bytes) is checked and evaluated as an expression, on
 * its own and inside two fixed expressions. The CPU plugin is registered in-process
 * once (linked in, not loaded) so that sections of real families parse deeply. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "expr.h"
#include "params.h"
#include "plugin.h"
#include "registry.h"

const struct gl_plugin *gpulab_plugin(const struct gl_host *host);
/* src/host/util.c wants the revision the Makefile generates (build/gen/version.c). */
const char gl_build_revision[] = "fuzz";

static void setup(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    /* Kernel sections may look for a kernel cache: keep it out of $HOME. */
    setenv("GPULAB_CACHE", "build/fuzz/cache", 1);
    char err[512];
    if (gl_registry_add(gpulab_plugin(gl_registry_host()), "fuzz-cpu", err, sizeof err) != 0) {
        fprintf(stderr, "fuzz_config: registering the CPU plugin: %s\n", err);
        abort();
    }
}

static void expr(const char *e, const struct gl_params *p)
{
    char err[512];
    long long v;
    gl_expr_check(e, ~0u, err, sizeof err);
    gl_expr_check(e, GL_PBIT(GL_P_N) | GL_PBIT(GL_P_BS), err, sizeof err);
    gl_expr_eval(e, p, err, sizeof err);
    gl_expr_value(e, p, &v, err, sizeof err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    struct gl_config c;
    char err[2048];
    memset(&c, 0, sizeof c);
    if (gl_config_parse("fuzz/input.conf", text, &c, err, sizeof err) == 0)
        gl_config_free(&c);

    /* The first line as an expression, alone and in two fixed contexts. */
    char line[256], wrap[600];
    size_t n = strcspn(text, "\n");
    if (n >= sizeof line)
        n = sizeof line - 1;
    memcpy(line, text, n);
    line[n] = '\0';

    struct gl_params p;
    gl_params_init(&p);
    gl_params_set(&p, GL_P_N, 1024);
    gl_params_set(&p, GL_P_BS, 16);
    gl_params_set(&p, GL_P_THREADS, 4);
    gl_params_user_set(&p, "TILE", 32);
    expr(line, &p);
    snprintf(wrap, sizeof wrap, "N %% (%s) == 0 && BS <= N", line);
    expr(wrap, &p);
    snprintf(wrap, sizeof wrap, "(%s) * TILE - -(%s)", line, line);
    expr(wrap, &p);
    free(text);
    return 0;
}
