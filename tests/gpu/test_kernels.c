/* test_kernels.c - users' kernels (kernel.h) on a real device through the GPU
 * plugin's kernel_compile and kernel_run: a .cu written to a temporary folder
 * with a copy kernel, a templated copy, a kernel with a wrong element, one that
 * leaves an element unwritten, an integer histogram whose output starts from
 * zero before every run (atomics), its serial reference, and an out-of-bounds
 * writer; the kernel structs are built by hand as the config reader would.
 * Checks: a cache miss then a hit; ok runs with samples, resources and (when
 * counters are available) metrics, alone and parked in a profiling batch;
 * wrong results detected against the reference and without one; device,
 * managed and zero-copy memory; and the out-of-bounds write failing with the
 * CUDA error and a -1 (the worker would restart), as the last run.
 * Needs a GPU (make test-gpu). Must not call CUDA itself. */
#include "t.h"
#include "kernel.h"
#include "params.h"
#include "plugin.h"
#include "util.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct gl_device_ops *ops;
static struct gl_timing tm = { 2, 5, 20, 0.05, 0.5, 60.0 };
static struct gl_result res;   /* large: not on the stack */
static char dir[256];

static const char *src_text =
    "extern \"C\" __global__ void copy(float *out, const float *in, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = in[i];\n"
    "}\n"
    "template <int B>\n"
    "__global__ void copy_t(float *out, const float *in, int n)\n"
    "{\n"
    "    int i = blockIdx.x * B + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = in[i] * SCALE;\n"
    "}\n"
    "__global__ void off_by_one(float *out, const float *in, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = in[i] + (i == 7 ? 1.0f : 0.0f);\n"
    "}\n"
    "__global__ void partial(float *out, const float *in, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n && i != 3)\n"
    "        out[i] = in[i];\n"
    "}\n"
    "__global__ void oob(float *out, const float *in, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i + ((size_t)1 << 40)] = in[i];\n"
    "}\n"
    "__global__ void smem_copy(float *out, const float *in, int n)\n"
    "{\n"
    "    extern __shared__ float s[];\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    s[threadIdx.x * 100] = i < n ? in[i] : 0.0f;\n"
    "    __syncthreads();\n"
    "    if (i < n)\n"
    "        out[i] = s[threadIdx.x * 100];\n"
    "}\n"
    "__global__ void hist(unsigned *h, const unsigned *in, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        atomicAdd(&h[in[i] % 16], 1u);\n"
    "}\n"
    "__global__ void hist_serial(unsigned *h, const unsigned *in, int n)\n"
    "{\n"
    "    if (blockIdx.x != 0 || threadIdx.x >= 16)\n"
    "        return;\n"
    "    unsigned c = 0;\n"
    "    for (int i = 0; i < n; i++)\n"
    "        c += in[i] % 16 == threadIdx.x;\n"
    "    h[threadIdx.x] = c;\n"
    "}\n";

static const struct gl_device_ops *load(void)
{
    char exe[1024], path[1200];
    const char *env = getenv("GPULAB_PLUGIN");
    if (env && env[0]) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        gl_exe_dir(exe, sizeof exe);   /* build/tests/gpu */
        snprintf(path, sizeof path, "%s/../../libgpulab_gpu.so", exe);
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("dlopen %s: %s\n", path, dlerror());
        return NULL;
    }
    gl_plugin_fn fn;
    *(void **)&fn = dlsym(h, GL_PLUGIN_SYMBOL);
    const struct gl_plugin *pl = fn ? fn(NULL) : NULL;
    return pl ? pl->device : NULL;
}

/* A section like the configs' copy section: in/out float[N], args out, in, int N. */
static struct gl_kernel kf, kh;

static void float_section(struct gl_kernel *k, const char *source)
{
    memset(k, 0, sizeof *k);
    snprintf(k->source, sizeof k->source, "%s", source);
    k->text = strdup(src_text);
    k->ndefines = 1;
    snprintf(k->defines[0], sizeof k->defines[0], "SCALE");
    k->nbuffers = 2;
    snprintf(k->buffers[0].name, GL_KNAME, "out");
    k->buffers[0].type = GL_KT_FLOAT;
    snprintf(k->buffers[0].count, GL_KEXPR, "N");
    k->buffers[0].init = GL_KI_POISON;
    k->buffers[0].output = 1;
    snprintf(k->buffers[1].name, GL_KNAME, "in");
    k->buffers[1].type = GL_KT_FLOAT;
    snprintf(k->buffers[1].count, GL_KEXPR, "N");
    k->buffers[1].init = GL_KI_RANDOM;
    k->nargs = 3;
    k->args[0].buffer = 0;
    k->args[1].buffer = 1;
    k->args[2].buffer = -1;
    k->args[2].type = GL_KT_INT;
    snprintf(k->args[2].expr, GL_KEXPR, "N");
    k->ngrid = 1;
    snprintf(k->grid[0], GL_KEXPR, "(N + BS - 1) / BS");
    k->nblock = 1;
    snprintf(k->block[0], GL_KEXPR, "BS");
}

/* The histogram's section: h uint[16] zero output, in uint[N] random. */
static void hist_section(struct gl_kernel *k, const char *source)
{
    float_section(k, source);
    k->buffers[0].type = GL_KT_UINT;
    snprintf(k->buffers[0].count, GL_KEXPR, "16");
    k->buffers[0].init = GL_KI_ZERO;
    k->buffers[1].type = GL_KT_UINT;
}

static void variant(struct gl_kernel_variant *kv, const struct gl_kernel *k, const char *name,
                    const char *expr, const struct gl_kernel_variant *ref)
{
    memset(kv, 0, sizeof *kv);
    kv->k = k;
    snprintf(kv->family, sizeof kv->family, "usertest");
    snprintf(kv->name, sizeof kv->name, "%s", name);
    snprintf(kv->expr, sizeof kv->expr, "%s", expr);
    kv->v.family = kv->family;
    kv->v.name = kv->name;
    kv->v.device = "gpu";
    kv->v.desc = kv->expr;
    kv->reference = ref;
}

static int run(const struct gl_kernel_variant *kv, const struct gl_params *p)
{
    int rc = ops->kernel_run(kv, p, &tm, &res);
    printf("%-12s rc %d status %d samples %d median-ish %.4f ms regs %d blocks/SM %d err %g "
           "passes %d metrics %d '%s' '%s'\n", kv->name, rc, res.status, res.nsamples,
           res.nsamples ? res.samples_ms[res.nsamples / 2] : -1.0, res.regs_per_thread,
           res.blocks_per_sm, res.max_rel_err, res.passes, res.nmetrics, res.reason,
           res.metrics_reason);
    return rc;
}

int main(void)
{
    char err[512], log[8192], src[300], cache[300];
    struct gl_device dev;
    ops = load();
    if (!CHECK(ops && ops->kernel_compile && ops->kernel_run))
        return t_done("test_kernels");
    if (ops->init(0, &dev, err, sizeof err) != 0) {
        printf("FAIL init: %s\n", err);
        t_failed++;
        return t_done("test_kernels");
    }
    snprintf(dir, sizeof dir, "/tmp/gpulab_kernels_XXXXXX");
    if (!CHECK(mkdtemp(dir) != NULL))
        return t_done("test_kernels");
    snprintf(cache, sizeof cache, "%s/cache", dir);
    setenv("GPULAB_CACHE", cache, 1);
    snprintf(src, sizeof src, "%s/user.cu", dir);
    FILE *f = fopen(src, "w");
    if (f) {
        fputs(src_text, f);
        fclose(f);
    }
    float_section(&kf, src);
    hist_section(&kh, src);
    static struct gl_kernel ks;
    static struct gl_kernel_variant v_smem;
    float_section(&ks, src);
    snprintf(ks.smem, GL_KEXPR, "BS * 100 * 4");   /* 51200 bytes: above the 48 KiB default */
    variant(&v_smem, &ks, "smem_copy", "smem_copy", NULL);
    static struct gl_kernel_variant v_copy, v_copy_t, v_off, v_partial, v_oob, v_hist, v_serial;
    variant(&v_copy, &kf, "copy", "copy", NULL);
    variant(&v_copy_t, &kf, "copy_t", "copy_t<BS>", &v_copy);
    variant(&v_off, &kf, "off_by_one", "off_by_one", &v_copy);
    variant(&v_partial, &kf, "partial", "partial", NULL);
    variant(&v_oob, &kf, "oob", "oob", NULL);
    variant(&v_serial, &kh, "hist_serial", "hist_serial", NULL);
    variant(&v_hist, &kh, "hist", "hist", &v_serial);

    struct gl_params p;
    gl_params_init(&p);
    gl_params_set(&p, GL_P_N, 100000);
    gl_params_set(&p, GL_P_BS, 128);
    gl_params_set(&p, GL_P_SEED, 7);
    CHECK(gl_params_user_set(&p, "SCALE", 1) == 0);

    /* compile: a miss, then a hit (arch = the device's) */
    int arch = dev.cc_major * 10 + dev.cc_minor;
    int rc = ops->kernel_compile(&v_copy_t, &p, arch, log, sizeof log);
    if (!CHECK(rc == 0))
        printf("log: %s\n", log);
    CHECK(ops->kernel_compile(&v_copy_t, &p, arch, log, sizeof log) == 1);

    /* counters, when the device allows them */
    struct gl_metric_req req;
    memset(&req, 0, sizeof req);
    req.n = 2;
    snprintf(req.names[0], GL_METRIC_NAME, "gpu__time_duration.sum");
    snprintf(req.names[1], GL_METRIC_NAME, "dram__bytes_read.sum");
    int passes = ops->profiler_setup(&req, err, sizeof err);
    if (passes <= 0)
        printf("note: no counters (%s): metrics not checked\n", err);

    /* ok: every output written (no reference), resources, samples, metrics */
    CHECK(run(&v_copy, &p) == 0);
    CHECK(res.status == GL_OK && res.nsamples >= 5 && res.regs_per_thread > 0 &&
          res.blocks_per_sm > 0 && res.grid[0] == 782 && res.block[0] == 128 &&
          res.launches == 1 && res.h2d_ms >= 0 && res.d2h_ms >= 0);
    CHECK(passes <= 0 || (res.passes > 0 && res.nmetrics >= 2));
    /* ok against the reference, template argument from BS */
    CHECK(run(&v_copy_t, &p) == 0);
    CHECK(res.status == GL_OK && res.max_rel_err == 0.0 && res.nsamples >= 5);
    /* SCALE = 2: every element differs from copy's */
    CHECK(gl_params_user_set(&p, "SCALE", 2) == 0);
    CHECK(run(&v_copy_t, &p) == 0);
    CHECK(res.status == GL_WRONG && strstr(res.reason, "differ from 'copy'") != NULL);
    CHECK(gl_params_user_set(&p, "SCALE", 1) == 0);
    /* one wrong element against the reference */
    CHECK(run(&v_off, &p) == 0);
    CHECK(res.status == GL_WRONG && strstr(res.reason, "1 of 100000") != NULL &&
          strstr(res.reason, "first at 7") != NULL && res.nsamples == 0);
    /* an unwritten element without a reference */
    CHECK(run(&v_partial, &p) == 0);
    CHECK(res.status == GL_WRONG && strstr(res.reason, "not written") != NULL);
    /* integers, an output reset to zero before every run (else the counts grow) */
    CHECK(run(&v_hist, &p) == 0);
    CHECK(res.status == GL_OK && res.max_rel_err == 0.0 && res.nsamples >= 5);
    /* dynamic shared memory over the default limit: the kernel's limit is raised */
    CHECK(run(&v_smem, &p) == 0);
    CHECK(res.status == GL_OK && res.dynamic_smem == 51200 && res.blocks_per_sm > 0);
    /* managed and zero-copy memory */
    CHECK(gl_params_set_text(&p, GL_P_MEM, "managed") == 0);
    CHECK(run(&v_copy_t, &p) == 0 && res.status == GL_OK);
    CHECK(gl_params_set_text(&p, GL_P_MEM, "zerocopy") == 0);
    CHECK(run(&v_hist, &p) == 0 && res.status == GL_OK);
    CHECK(gl_params_set_text(&p, GL_P_MEM, "device") == 0);
    /* a compile error fails the run (the context stays usable) */
    static struct gl_kernel_variant v_none;
    variant(&v_none, &kf, "none", "no_such_kernel", NULL);
    CHECK(run(&v_none, &p) == 0 && res.status == GL_FAILED && strstr(res.reason, "compile"));

    /* parked in a profiling batch: metrics arrive at batch_end */
    if (passes > 0) {
        static struct gl_result r1, r2;
        struct gl_params p1 = p, p2 = p;
        ops->batch_begin();
        CHECK(ops->kernel_run(&v_copy_t, &p1, &tm, &r1) == 0);
        CHECK(ops->kernel_run(&v_hist, &p2, &tm, &r2) == 0);
        CHECK(ops->batch_end() == 0);
        CHECK(r1.status == GL_OK && r1.passes > 0 && r1.nmetrics >= 2);
        CHECK(r2.status == GL_OK && r2.passes > 0 && r2.nmetrics >= 2);
        if (r1.nmetrics < 2 || r2.nmetrics < 2)
            printf("batch: '%s' '%s'\n", r1.metrics_reason, r2.metrics_reason);
    }

    /* last: an out-of-bounds write fails with the CUDA error, rc -1 */
    CHECK(run(&v_oob, &p) == -1);
    CHECK(res.status == GL_FAILED && strstr(res.reason, "cudaError") != NULL);
    free(kf.text);
    free(kh.text);
    free(ks.text);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return t_done("test_kernels");
}
