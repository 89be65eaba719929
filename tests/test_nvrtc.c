/* test_nvrtc.c - a user's kernel compiled through the GPU plugin's
 * kernel_compile, without a GPU (NVRTC needs no device or driver): load
 * build/libgpulab_gpu.so as gpulab does, compile a templated kernel at a point
 * into a fresh kernel cache (a miss, then a hit; another point or arch another
 * miss), the -D list (named parameters, `defines = all`), the source's folder
 * on the include path, and errors: a syntax error's log names the file and
 * line, a define with no value at the point, a name expression with no kernel.
 * Must not need a CUDA device, nor write outside its temporary folder. */
#include "t.h"
#include "kernel.h"
#include "params.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Files in the cache folder whose names end with suffix. */
static int count_files(const char *cache, const char *suffix)
{
    DIR *d = opendir(cache);
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t a = strlen(e->d_name), b = strlen(suffix);
        if (a > b && strcmp(e->d_name + a - b, suffix) == 0)
            n++;
    }
    closedir(d);
    return n;
}

static const char *good =
    "#include \"scale.h\"\n"
    "template <int S>\n"
    "__global__ void scale(float *out, const float *in, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = S * FACTOR * OFFSET(in[i]);\n"
    "}\n";

static const char *plain =
    "extern \"C\" __global__ void plain(float *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = N + TILE;\n"
    "}\n";

static const char *bad =
    "__global__ void broken(float *out)\n"
    "{\n"
    "    out[0] = ;\n"
    "}\n";

int main(void)
{
    t_need_gpu_plugin("test_nvrtc");
    char cache[300], src[300], src_plain[300], src_bad[300], log[8192];
    if (!t_load_plugins())
        return t_done("test_nvrtc");
    const struct gl_device_ops *ops = gl_registry_gpu();
    if (!CHECK(ops != NULL && ops->kernel_compile != NULL)) {
        printf("no GPU plugin: %s\n", gl_registry_gpu_why());
        return t_done("test_nvrtc");
    }
    snprintf(dir, sizeof dir, "/tmp/gpulab_nvrtc_XXXXXX");
    if (!CHECK(mkdtemp(dir) != NULL))
        return t_done("test_nvrtc");
    snprintf(cache, sizeof cache, "%s/cache/kernels", dir);
    setenv("GPULAB_CACHE", cache, 1);
    write_file("scale.h", "#define OFFSET(x) ((x) + 1.0f)\n");
    write_file("k.cu", good);
    write_file("bad.cu", bad);
    write_file("p.cu", plain);
    snprintf(src_plain, sizeof src_plain, "%s/p.cu", dir);
    snprintf(src, sizeof src, "%s/k.cu", dir);
    snprintf(src_bad, sizeof src_bad, "%s/bad.cu", dir);

    static struct gl_kernel k;
    static struct gl_kernel_variant kv;
    snprintf(k.source, sizeof k.source, "%s", src);
    k.text = strdup(good);
    k.ndefines = 1;
    snprintf(k.defines[0], sizeof k.defines[0], "FACTOR");
    kv.k = &k;
    snprintf(kv.family, sizeof kv.family, "t");
    snprintf(kv.name, sizeof kv.name, "scale");
    snprintf(kv.expr, sizeof kv.expr, "scale<BS>");

    struct gl_params p;
    gl_params_init(&p);
    gl_params_set(&p, GL_P_N, 1000);
    gl_params_set(&p, GL_P_BS, 4);
    CHECK(gl_params_user_set(&p, "FACTOR", 3) == 0);

    /* a miss, then a hit; the cache holds one cubin and its name */
    int rc = ops->kernel_compile(&kv, &p, 90, log, sizeof log);
    if (!CHECK(rc == 0))
        printf("log: %s\n", log);
    CHECK(ops->kernel_compile(&kv, &p, 90, log, sizeof log) == 1);
    CHECK(count_files(cache, ".cubin") == 1 && count_files(cache, ".name") == 1);
    /* another template argument, another arch: new entries */
    gl_params_set(&p, GL_P_BS, 8);
    CHECK(ops->kernel_compile(&kv, &p, 90, log, sizeof log) == 0);
    CHECK(ops->kernel_compile(&kv, &p, 80, log, sizeof log) == 0);
    CHECK(ops->kernel_compile(&kv, &p, 80, log, sizeof log) == 1);
    CHECK(count_files(cache, ".cubin") == 3);
    /* another define value: a new entry; a header change: a new entry */
    CHECK(gl_params_user_set(&p, "FACTOR", 5) == 0);
    CHECK(ops->kernel_compile(&kv, &p, 90, log, sizeof log) == 0);
    write_file("scale.h", "#define OFFSET(x) ((x) + 2.0f)\n");
    CHECK(ops->kernel_compile(&kv, &p, 90, log, sizeof log) == 0);
    CHECK(ops->kernel_compile(&kv, &p, 90, log, sizeof log) == 1);
    CHECK(count_files(cache, ".tmp") == 0);

    /* a plain extern "C" kernel with `defines = all` (N and the named TILE) */
    static struct gl_kernel kpk;
    static struct gl_kernel_variant kp;
    snprintf(kpk.source, sizeof kpk.source, "%s", src_plain);
    kpk.text = strdup(plain);
    kpk.all_defines = 1;
    kp.k = &kpk;
    snprintf(kp.name, sizeof kp.name, "plain");
    snprintf(kp.expr, sizeof kp.expr, "plain");
    CHECK(gl_params_user_set(&p, "TILE", 16) == 0);
    rc = ops->kernel_compile(&kp, &p, 90, log, sizeof log);
    if (!CHECK(rc == 0))
        printf("log: %s\n", log);
    /* without the defines the macros are missing: a compile error naming p.cu(5) */
    kpk.all_defines = 0;
    rc = ops->kernel_compile(&kp, &p, 90, log, sizeof log);
    CHECK(rc == -1 && strstr(log, "p.cu(5): error") != NULL);
    /* a define with no value at the point */
    snprintf(k.defines[0], sizeof k.defines[0], "NOPE");
    rc = ops->kernel_compile(&kv, &p, 90, log, sizeof log);
    CHECK(rc == -1 && strstr(log, "NOPE") != NULL);
    k.ndefines = 0;
    /* a name expression naming no kernel */
    snprintf(kp.expr, sizeof kp.expr, "no_such_kernel");
    CHECK(ops->kernel_compile(&kp, &p, 90, log, sizeof log) == -1 && log[0] != '\0');

    /* a syntax error: the log names the file and the line */
    static struct gl_kernel kb;
    static struct gl_kernel_variant kvb;
    snprintf(kb.source, sizeof kb.source, "%s", src_bad);
    kb.text = strdup(bad);
    kvb.k = &kb;
    snprintf(kvb.name, sizeof kvb.name, "broken");
    snprintf(kvb.expr, sizeof kvb.expr, "broken");
    rc = ops->kernel_compile(&kvb, &p, 90, log, sizeof log);
    char want[400];
    snprintf(want, sizeof want, "%s(3): error", src_bad);
    if (!CHECK(rc == -1 && strstr(log, want) != NULL))
        printf("log: %s\n", log);

    free(k.text);
    free(kpk.text);
    free(kb.text);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return t_done("test_nvrtc");
}
