/* test_cref_reads.c - a C reference that reads a named parameter its section's
 * verify_reads does not list is caught, not left to compute with GL_UNSET: the
 * reference is built as gpulab builds one (src/registry/cref_build.c, with
 * -DGL_CREF_BUILD), handed what experiments/cref.c hands it, and its
 * gl_cref_missed (src/core/plugin.h) names the first parameter it asked for and
 * was not handed; the worker (experiments/gpu/userkernel/kernel_run.cu) fails the
 * run with that name. Compiles with the C compiler into a temporary folder.
 * Must not need a GPU. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cref.h"
#include "cref_build.h"
#include "kernel.h"
#include "params.h"
#include "t.h"

static const char *ref_c =
    "#include \"plugin.h\"\n"
    "#include \"kernel.h\"\n"
    "int scale_ref(const struct gl_params *p, const void *const *in, double *const *want,\n"
    "              char *err, size_t errlen)\n"
    "{\n"
    "    long tile = gl_param_value(p, \"TILE\");\n"
    "    long unroll = gl_param_value(p, \"UNROLL\");\n"
    "    (void)in; (void)err; (void)errlen;\n"
    "    want[0][0] = (double)tile * (double)(unroll == GL_UNSET ? 1 : unroll);\n"
    "    return 0;\n"
    "}\n";

/* Run the reference with verify_reads = the names in reads (NULL: all); the
 * name it missed ("" none) into missed. 0, or -1 (said). */
static int call(void *h, const struct gl_kernel *k0, const char *const *reads, int nreads,
                char *missed, size_t len, double *value)
{
    struct gl_kernel k = *k0;
    struct gl_params p, q;
    gl_params_init(&p);
    gl_params_user_set(&p, "TILE", 16);
    gl_params_user_set(&p, "UNROLL", 4);
    k.verify_reads_all = reads == NULL;
    k.nverify_reads = nreads;
    for (int i = 0; i < nreads; i++)
        snprintf(k.verify_reads[i], sizeof k.verify_reads[i], "%s", reads[i]);
    gl_cref_params(&k, &p, &q);
    void *f = dlsym(h, "scale_ref");
    char *trace = (char *)dlsym(h, "gl_cref_missed");
    if (!CHECK(f != NULL) || !CHECK(trace != NULL))
        return -1;
    gl_kernel_cref_fn fn;
    memcpy(&fn, &f, sizeof fn);
    trace[0] = '\0';
    double out = 0, *want[1] = { &out };
    char err[64] = "";
    if (!CHECK(fn(&q, NULL, want, err, sizeof err) == 0))
        return -1;
    snprintf(missed, len, "%s", trace);
    *value = out;
    return 0;
}

int main(void)
{
    char dir[] = "/tmp/gl_cref_reads_XXXXXX", log[4096], missed[64];
    double v = 0;
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("GPULAB_INCLUDE", "src/core", 1);
    struct gl_kernel k;
    memset(&k, 0, sizeof k);
    snprintf(k.verify_c_path, sizeof k.verify_c_path, "%s/ref.c", dir);
    snprintf(k.verify_c_so, sizeof k.verify_c_so, "%s/cref2-test.so", dir);
    snprintf(k.verify_c_func, sizeof k.verify_c_func, "scale_ref");
    k.verify_c_compile = 1;
    FILE *f = fopen(k.verify_c_path, "w");
    if (!f || fputs(ref_c, f) < 0 || fclose(f) != 0) {
        perror(k.verify_c_path);
        return 1;
    }
    int rc = gl_cref_build(&k, log, sizeof log);
    if (!CHECK(rc == 0))
        printf("  build: %s\n", log);
    void *h = rc == 0 ? dlopen(k.verify_c_so, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (CHECK(h != NULL)) {
        /* verify_reads = TILE: UNROLL is asked for and not handed */
        const char *tile[] = { "TILE" };
        if (call(h, &k, tile, 1, missed, sizeof missed, &v) == 0) {
            CHECK_STR(missed, "UNROLL");
            CHECK(v == 16.0);   /* what it computed with GL_UNSET: the run must not trust it */
        }
        /* verify_reads = TILE, UNROLL: nothing missed, the value is the point's */
        const char *both[] = { "TILE", "UNROLL" };
        if (call(h, &k, both, 2, missed, sizeof missed, &v) == 0) {
            CHECK_STR(missed, "");
            CHECK(v == 64.0);
        }
        /* no verify_reads: it is handed everything */
        if (call(h, &k, NULL, 0, missed, sizeof missed, &v) == 0) {
            CHECK_STR(missed, "");
            CHECK(v == 64.0);
        }
        dlclose(h);
    }
    unlink(k.verify_c_path);
    unlink(k.verify_c_so);
    rmdir(dir);
    return t_done("test_cref_reads");
}
