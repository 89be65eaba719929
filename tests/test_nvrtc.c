/* test_nvrtc.c - a user's kernel compiled through the GPU plugin's
 * kernel_compile, without a GPU (NVRTC needs no device or driver): load
 * build/libgpulab_gpu.so as gpulab does, compile a templated kernel at a point
 * into a fresh kernel cache (a miss, then a hit; another point or arch another
 * miss), the -D list (named parameters, `defines = all`), the source's folder
 * on the include path, and errors: a syntax error's log names the file and
 * line, a define with no value at the point, a name expression with no kernel.
 * Kernels as users write them: cooperative groups, CUB and cuda::std (the
 * toolkit's CCCL folder) with a user header from an -I subfolder and
 * --use_fast_math, two variants compiled as one program (kernel_compile_many)
 * and then found one by one; an option NVRTC refuses (-2); a file with
 * <stdio.h> and main() (NVRTC's error carries the hint; compiler = nvcc
 * compiles it and finds a template kernel by its name expression).
 * Must not need a CUDA device, nor write outside its temporary folder. */
#include "t.h"
#include "kernel.h"
#include "params.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static void system_mkdir(const char *base, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", base, name);
    mkdir(path, 0777);
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

/* ---- kernels as users write them ------------------------------------------------------ */

static const char *cccl =
    "#include <cooperative_groups.h>\n"
    "#include <cooperative_groups/reduce.h>\n"
    "#include <cub/block/block_reduce.cuh>\n"
    "#include <cuda/std/limits>\n"
    "#include \"util.cuh\"\n"
    "namespace cg = cooperative_groups;\n"
    "template <int BS>\n"
    "__global__ void sum_cub(float *out, const float *in, int n)\n"
    "{\n"
    "    using BR = cub::BlockReduce<float, BS>;\n"
    "    __shared__ typename BR::TempStorage tmp;\n"
    "    int i = blockIdx.x * BS + threadIdx.x;\n"
    "    float s = BR(tmp).Sum(i < n ? TWICE(in[i]) : 0.0f);\n"
    "    if (threadIdx.x == 0) atomicAdd(out, s);\n"
    "}\n"
    "template <int BS>\n"
    "__global__ void sum_cg(float *out, const float *in, int n)\n"
    "{\n"
    "    cg::thread_block_tile<32> w = cg::tiled_partition<32>(cg::this_thread_block());\n"
    "    int i = blockIdx.x * BS + threadIdx.x;\n"
    "    float v = i < n ? in[i] : cuda::std::numeric_limits<float>::lowest() * 0.0f;\n"
    "    v = cg::reduce(w, v, cg::plus<float>());\n"
    "    if (w.thread_rank() == 0) atomicAdd(out, v);\n"
    "}\n";

static const char *hosty =
    "#include <stdio.h>\n"
    "#include <vector>\n"
    "template <int S>\n"
    "__global__ void scale(float *out, const float *in, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) out[i] = S * in[i];\n"
    "}\n"
    "using real = float;\n"
    "template <typename T>\n"
    "__global__ void fill(T *o) { o[0] = T(1); }\n"
    "int main() { std::vector<float> v(4); printf(\"%zu\\n\", v.size()); return 0; }\n";

/* 1 when some .name file of the cache holds text. */
static int cache_has(const char *cache, const char *text)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "grep -qs '%s' '%s'/*.name", text, cache);
    return system(cmd) == 0;
}

static void test_as_written(const struct gl_device_ops *ops, const char *cache,
                            struct gl_params *p)
{
    char log[16384], src[300];
    int res[2] = { 9, 9 }, rc;
    system_mkdir(dir, "inc");
    write_file("inc/util.cuh", "#define TWICE(x) (2.0f * (x))\n");
    write_file("cg.cu", cccl);
    snprintf(src, sizeof src, "%s/cg.cu", dir);

    static struct gl_kernel k;
    static struct gl_kernel_variant v[2];
    snprintf(k.source, sizeof k.source, "%s", src);
    k.text = strdup(cccl);
    snprintf(k.options_text, sizeof k.options_text, "--use_fast_math -I inc");
    k.noptions = 2;
    snprintf(k.options[0], sizeof k.options[0], "--use_fast_math");
    snprintf(k.options[1], sizeof k.options[1], "-I%s/inc", dir);
    for (int i = 0; i < 2; i++) {
        v[i].k = &k;
        snprintf(v[i].name, sizeof v[i].name, i ? "cg" : "cub");
        snprintf(v[i].expr, sizeof v[i].expr, i ? "sum_cg<BS>" : "sum_cub<BS>");
    }
    gl_params_set(p, GL_P_BS, 128);
    const struct gl_kernel_variant *kvs[2] = { &v[0], &v[1] };
    const struct gl_params *ps[2] = { p, p };
    int cubins = count_files(cache, ".cubin"), names = count_files(cache, ".name");
    /* one program for both variants: one cubin, a record each */
    rc = ops->kernel_compile_many(kvs, ps, 2, 90, res, log, sizeof log);
    if (!CHECK(rc == 0 && res[0] == 0 && res[1] == 0))
        printf("log: %s\n", log);
    CHECK(count_files(cache, ".cubin") == cubins + 1 && count_files(cache, ".name") == names + 2);
    CHECK(cache_has(cache, "_Z7sum_cubILi128EEvPfPKfi") && cache_has(cache, "_Z6sum_cgILi128EEvPfPKfi"));
    /* each found alone, as the worker looks for it */
    CHECK(ops->kernel_compile(&v[0], p, 90, log, sizeof log) == 1);
    CHECK(ops->kernel_compile(&v[1], p, 90, log, sizeof log) == 1);
    res[0] = res[1] = 9;
    CHECK(ops->kernel_compile_many(kvs, ps, 2, 90, res, log, sizeof log) == 0 && res[0] == 1 &&
          res[1] == 1);
    /* the user header in the -I folder is part of the key */
    write_file("inc/util.cuh", "#define TWICE(x) ((x) + (x))\n");
    CHECK(ops->kernel_compile(&v[0], p, 90, log, sizeof log) == 0);
    /* an option NVRTC refuses: -2, its message */
    snprintf(k.options[0], sizeof k.options[0], "--no-such-option");
    snprintf(k.options_text, sizeof k.options_text, "--no-such-option -I inc");
    rc = ops->kernel_compile_many(kvs, ps, 2, 90, res, log, sizeof log);
    if (!CHECK(rc == -2 && strstr(log, "--no-such-option") && res[0] == -1))
        printf("rc %d log: %s\n", rc, log);
    free(k.text);

    /* a file as written for nvcc: <stdio.h>, <vector>, main() */
    write_file("hosty.cu", hosty);
    static struct gl_kernel kh;
    static struct gl_kernel_variant vh;
    snprintf(kh.source, sizeof kh.source, "%s/hosty.cu", dir);
    kh.text = strdup(hosty);
    vh.k = &kh;
    snprintf(vh.name, sizeof vh.name, "scale");
    snprintf(vh.expr, sizeof vh.expr, "scale<BS>");
    rc = ops->kernel_compile(&vh, p, 90, log, sizeof log);
    char want[400];
    snprintf(want, sizeof want, "%s/hosty.cu(1): catastrophic error", dir);
    if (!CHECK(rc == -1 && strstr(log, want) && strstr(log, "stdio.h") &&
               strstr(log, "#ifndef __CUDACC_RTC__") && strstr(log, "compiler = nvcc")))
        printf("log: %s\n", log);
    kh.compiler = GL_KC_NVCC;
    rc = ops->kernel_compile(&vh, p, 90, log, sizeof log);
    if (!CHECK(rc == 0))
        printf("nvcc log: %s\n", log);
    CHECK(cache_has(cache, "_Z5scaleILi128EEvPfPKfi"));
    CHECK(ops->kernel_compile(&vh, p, 90, log, sizeof log) == 1);
    /* a name expression whose kernel the cubin has under another spelling (an
     * alias is not what the demangler prints): the error lists the kernels */
    snprintf(vh.expr, sizeof vh.expr, "fill<real>");
    rc = ops->kernel_compile(&vh, p, 90, log, sizeof log);
    if (!CHECK(rc == -1 && strstr(log, "no kernel 'fill<real>'") &&
               strstr(log, "fill<float>(float*)")))
        printf("log: %s\n", log);
    free(kh.text);
}

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

    test_as_written(ops, cache, &p);

    free(k.text);
    free(kpk.text);
    free(kb.text);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return t_done("test_nvrtc");
}
