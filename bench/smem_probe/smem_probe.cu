/* smem_probe.cu - what CUPTI's SASS Metrics API (cupti_sass_metrics.h) says
 * about shared-memory wavefronts on this GPU, and whether it can live beside
 * gpulab's Range Profiler engine (cupti/profiler_*.c, linked in). A probe for
 * issue 22 (exact bank conflicts), built by hand (bench/smem_probe/build.sh) and
 * run on the GPU machine by bench/smem_probe/run.sh; its log is in
 * bench/results/. Must stay a probe: nothing of gpulab depends on it.
 *
 *   smem_probe list      every SASS metric of the chip: name, id, description
 *   smem_probe sass      per-instruction (function, PC offset) values of the
 *                        candidate metrics for each kernel, with the cost of each
 *                        step; then repeat/accumulation/two-kernel/eager tests
 *   smem_probe coexist   Range Profiler (gpulab's engine) -> SASS -> Range
 *                        Profiler on the same kernels, and event times before
 *                        and after the instrumented runs
 *   smem_probe plain     each kernel once, no CUPTI (for ncu)
 *   smem_probe flow      the order gpulab would use: a Range Profiler session,
 *                        then one SASS enable..disable per kernel (per-PC values
 *                        of every kernel, micro kernels included), the profiler
 *                        reconfigured, SASS again, several launches per cycle
 *   smem_probe cost N    the instrumented run's cost with metric set N (2, 4, 5)
 *   smem_probe rponly    a range profiler set up but no session, then SASS */
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_target.h>
#include <cupti_result.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern "C" {
#include "metric_sets.h"
#include "profiler.h"
}

#include "kernels.cuh"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static const char *cstr(CUptiResult rc)
{
    const char *s = NULL;
    if (cuptiGetResultString(rc, &s) != CUPTI_SUCCESS || !s)
        return "?";
    return s;
}

#define CK(call)                                                                     \
    do {                                                                             \
        cudaError_t e_ = (call);                                                     \
        if (e_ != cudaSuccess) {                                                     \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorName(e_), __FILE__, __LINE__); \
            exit(3);                                                                 \
        }                                                                            \
    } while (0)

/* ---- buffers and launches ------------------------------------------------------ */
enum { TN = 8192, MN = 3072, MICRO_BLOCKS = 1024, MICRO_THREADS = 256 };
static float *d_in, *d_out, *d_a, *d_b, *d_c, *d_micro, *d_sink;
static float4 *d_flush;
static size_t flush_n4;
static cudaKernel_t k_lib_tiled32, k_lib_padded32;

static void l_tiled32(void) { transpose_tiled<32, 8><<<dim3(TN / 32, TN / 32), dim3(32, 8)>>>(d_out, d_in, TN); }
static void l_padded32(void) { transpose_padded<32, 8><<<dim3(TN / 32, TN / 32), dim3(32, 8)>>>(d_out, d_in, TN); }
static void l_tiled16(void) { transpose_tiled<16, 8><<<dim3(TN / 16, TN / 16), dim3(16, 8)>>>(d_out, d_in, TN); }
static void l_padded16(void) { transpose_padded<16, 8><<<dim3(TN / 16, TN / 16), dim3(16, 8)>>>(d_out, d_in, TN); }
static void l_mm8(void) { matmul_shared<8, 1><<<dim3(MN / 8, MN / 8), dim3(8, 8)>>>(d_a, d_b, d_c, MN, 0, 0); }
static void lib_launch(cudaKernel_t k)
{
    int n = TN;
    void *args[3] = { &d_out, &d_in, &n };
    CK(cudaLaunchKernel((const void *)k, dim3(TN / 32, TN / 32), dim3(32, 8), args, 0, 0));
}
static void l_lib_tiled32(void) { lib_launch(k_lib_tiled32); }
static void l_lib_padded32(void) { lib_launch(k_lib_padded32); }
static cudaKernel_t k_late_tiled32, k_late_padded32;
static void l_late_tiled32(void) { lib_launch(k_late_tiled32); }
static void l_late_padded32(void) { lib_launch(k_late_padded32); }
#define MICRO(name, kern) \
    static void name(void) { kern<<<MICRO_BLOCKS, MICRO_THREADS>>>(d_micro); }
MICRO(m_ld32, (micro_ld<1, 1, 32>))
MICRO(m_ld64, (micro_ld<2, 2, 32>))
MICRO(m_ld128, (micro_ld<4, 4, 32>))
MICRO(m_ld64_half, (micro_ld<2, 2, 16>))
MICRO(m_ld128_half, (micro_ld<4, 4, 16>))
MICRO(m_ld128_quarter, (micro_ld<4, 4, 8>))
MICRO(m_ld32_one, (micro_ld<1, 1, 1>))
MICRO(m_ld128_bcast, (micro_ld<4, 0, 32>))
MICRO(m_ld32_bcast, (micro_ld<1, 0, 32>))
MICRO(m_ld32_2way, (micro_ld<1, 2, 32>))
MICRO(m_ld32_32way, (micro_ld<1, 32, 32>))
MICRO(m_ld64_2way, (micro_ld<2, 4, 32>))
MICRO(m_ld128_2way, (micro_ld<4, 8, 32>))
MICRO(m_st32, (micro_st<1, 1, 32>))
MICRO(m_st64, (micro_st<2, 2, 32>))
MICRO(m_st128, (micro_st<4, 4, 32>))
MICRO(m_st32_same, (micro_st<1, 0, 32>))
MICRO(m_st32_32way, (micro_st<1, 32, 32>))
MICRO(m_st128_2way, (micro_st<4, 8, 32>))
MICRO(m_st64_half, (micro_st<2, 2, 16>))

struct kdesc {
    const char *label;
    void (*launch)(void);
    const char *what;
};
static const struct kdesc mains[] = {
    { "tiled32", l_tiled32, "transpose_tiled<32,8> N=8192" },
    { "padded32", l_padded32, "transpose_padded<32,8> N=8192" },
    { "tiled16", l_tiled16, "transpose_tiled<16,8> N=8192" },
    { "padded16", l_padded16, "transpose_padded<16,8> N=8192" },
    { "mm_shared8", l_mm8, "matmul_shared<8,1> N=3072" },
    { "lib_tiled32", l_lib_tiled32, "cubin (cudaLibraryLoadData) tiled 32" },
    { "lib_padded32", l_lib_padded32, "cubin (cudaLibraryLoadData) padded 32" },
};
static const struct kdesc micros[] = {
    { "ld32", m_ld32, "LDS 32-bit contiguous, 32 lanes" },
    { "ld64", m_ld64, "LDS.64 contiguous, 32 lanes" },
    { "ld128", m_ld128, "LDS.128 contiguous, 32 lanes" },
    { "ld64_half", m_ld64_half, "LDS.64 contiguous, lanes 0-15" },
    { "ld128_half", m_ld128_half, "LDS.128 contiguous, lanes 0-15" },
    { "ld128_quarter", m_ld128_quarter, "LDS.128 contiguous, lanes 0-7" },
    { "ld32_one", m_ld32_one, "LDS 32-bit, lane 0 only" },
    { "ld128_bcast", m_ld128_bcast, "LDS.128 every lane the same address" },
    { "ld32_bcast", m_ld32_bcast, "LDS 32-bit every lane the same address" },
    { "ld32_2way", m_ld32_2way, "LDS 32-bit stride 2 words (2-way)" },
    { "ld32_32way", m_ld32_32way, "LDS 32-bit stride 32 words (32-way)" },
    { "ld64_2way", m_ld64_2way, "LDS.64 stride 4 words (2-way)" },
    { "ld128_2way", m_ld128_2way, "LDS.128 stride 8 words (2-way)" },
    { "st32", m_st32, "STS 32-bit contiguous" },
    { "st64", m_st64, "STS.64 contiguous" },
    { "st128", m_st128, "STS.128 contiguous" },
    { "st32_same", m_st32_same, "STS 32-bit all lanes one address" },
    { "st32_32way", m_st32_32way, "STS 32-bit stride 32 words (32-way)" },
    { "st128_2way", m_st128_2way, "STS.128 stride 8 words (2-way)" },
    { "st64_half", m_st64_half, "STS.64 contiguous, lanes 0-15" },
};
#define NMAIN ((int)(sizeof mains / sizeof mains[0]))
#define NMICRO ((int)(sizeof micros / sizeof micros[0]))

static int dev_index;
static CUcontext ctx;
static char chip[64];

static void load_lib(cudaKernel_t *tiled, cudaKernel_t *padded);
static void setup(int need_lib)
{
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    dev_index = 0;
    if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) {
        printf("no context\n");
        exit(3);
    }
    size_t tb = (size_t)TN * TN * sizeof(float), mb = (size_t)MN * MN * sizeof(float);
    CK(cudaMalloc(&d_in, tb));
    CK(cudaMalloc(&d_out, tb));
    CK(cudaMalloc(&d_a, mb));
    CK(cudaMalloc(&d_b, mb));
    CK(cudaMalloc(&d_c, mb));
    CK(cudaMalloc(&d_micro, (size_t)MICRO_BLOCKS * MICRO_THREADS * sizeof(float)));
    CK(cudaMalloc(&d_sink, sizeof(float)));
    flush_n4 = (size_t)120 << 20 >> 4;
    CK(cudaMalloc(&d_flush, flush_n4 * sizeof(float4)));
    CK(cudaMemset(d_in, 0x3c, tb));
    CK(cudaMemset(d_a, 0x3c, mb));
    CK(cudaMemset(d_b, 0x3c, mb));
    CK(cudaMemset(d_flush, 0, flush_n4 * sizeof(float4)));
    if (need_lib)
        load_lib(&k_lib_tiled32, &k_lib_padded32);
    CK(cudaDeviceSynchronize());
}

static void load_lib(cudaKernel_t *tiled, cudaKernel_t *padded)
{
    {
        FILE *f = fopen("bench/smem_probe/lib_transpose.cubin", "rb");
        if (!f)
            f = fopen(".probe-sass/lib_transpose.cubin", "rb");
        if (!f) {
            printf("lib_transpose.cubin not found\n");
            exit(3);
        }
        static char img[1 << 20];
        size_t n = fread(img, 1, sizeof img, f);
        fclose(f);
        (void)n;
        cudaLibrary_t lib;
        CK(cudaLibraryLoadData(&lib, img, NULL, NULL, 0, NULL, NULL, 0));
        CK(cudaLibraryGetKernel(tiled, lib, "lib_tiled32"));
        CK(cudaLibraryGetKernel(padded, lib, "lib_padded32"));
    }
}

/* median of 5 event-timed launches after one warm-up, ms */
static double time_kernel(void (*launch)(void))
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    launch();
    CK(cudaDeviceSynchronize());
    double t[5];
    for (int i = 0; i < 5; i++) {
        CK(cudaEventRecord(a));
        launch();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        t[i] = ms;
    }
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            if (t[j] < t[i]) {
                double x = t[i];
                t[i] = t[j];
                t[j] = x;
            }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return t[2];
}

static void chip_name(void)
{
    CUpti_Profiler_Initialize_Params ip;
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
    CUptiResult rc = cuptiProfilerInitialize(&ip);
    if (rc != CUPTI_SUCCESS)
        printf("cuptiProfilerInitialize: %s\n", cstr(rc));
    CUpti_Device_GetChipName_Params cp;
    memset(&cp, 0, sizeof cp);
    cp.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
    cp.deviceIndex = (size_t)dev_index;
    rc = cuptiDeviceGetChipName(&cp);
    if (rc != CUPTI_SUCCESS || !cp.pChipName) {
        printf("cuptiDeviceGetChipName: %s\n", cstr(rc));
        exit(3);
    }
    snprintf(chip, sizeof chip, "%s", cp.pChipName);
    printf("chip %s\n", chip);
}

/* ---- list ------------------------------------------------------------------------ */
static int do_list(void)
{
    setup(0);
    chip_name();
    CUpti_SassMetrics_GetNumOfMetrics_Params np;
    memset(&np, 0, sizeof np);
    np.structSize = CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE;
    np.pChipName = chip;
    CUptiResult rc = cuptiSassMetricsGetNumOfMetrics(&np);
    if (rc != CUPTI_SUCCESS) {
        printf("cuptiSassMetricsGetNumOfMetrics: %s\n", cstr(rc));
        return 1;
    }
    CUpti_SassMetrics_MetricDetails *m =
        (CUpti_SassMetrics_MetricDetails *)calloc(np.numOfMetrics, sizeof *m);
    CUpti_SassMetrics_GetMetrics_Params gp;
    memset(&gp, 0, sizeof gp);
    gp.structSize = CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE;
    gp.pChipName = chip;
    gp.numOfMetrics = np.numOfMetrics;
    gp.pMetricsList = m;
    rc = cuptiSassMetricsGetMetrics(&gp);
    if (rc != CUPTI_SUCCESS) {
        printf("cuptiSassMetricsGetMetrics: %s\n", cstr(rc));
        return 1;
    }
    printf("%zu SASS metrics\n", np.numOfMetrics);
    for (size_t i = 0; i < np.numOfMetrics; i++)
        printf("SASSMETRIC\t%s\t%llu\t%s\n", m[i].pMetricName ? m[i].pMetricName : "?",
               (unsigned long long)m[i].metricId,
               m[i].pMetricDescription ? m[i].pMetricDescription : "");
    return 0;
}

/* ---- SASS collection ---------------------------------------------------------------- */
static const char *const candidates[] = {
    "smsp__sass_inst_executed",
    "smsp__sass_thread_inst_executed",
    "smsp__sass_thread_inst_executed_pred_on",
    "smsp__sass_inst_executed_op_shared_ld",
    "smsp__sass_inst_executed_op_shared_st",
    "smsp__sass_inst_executed_op_shared_atom",
    "smsp__sass_inst_executed_op_ldsm",
    "smsp__sass_inst_executed_op_memory_32b",
    "smsp__sass_inst_executed_op_memory_64b",
    "smsp__sass_inst_executed_op_memory_128b",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld_ideal",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st_ideal",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_ideal",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_op_ld",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_op_st",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_op_ld_ideal",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_op_st_ideal",
    "smsp__sass_data_bytes_mem_shared",
    "smsp__sass_data_bytes_mem_shared_op_ld",
    "smsp__sass_data_bytes_mem_shared_op_st",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ld",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_st",
};
#define NCAND ((int)(sizeof candidates / sizeof candidates[0]))
#define MAXM 64
static int nm;
static const char *mname[MAXM];
static uint64_t mid[MAXM];
static FILE *pc_out;

static const char *name_of(uint64_t id)
{
    for (int i = 0; i < nm; i++)
        if (mid[i] == id)
            return mname[i];
    return "?";
}

/* ids of the names this chip offers, from names[0..n) */
static void pick_list(const char *const *names, int n)
{
    nm = 0;
    for (int i = 0; i < n && nm < MAXM; i++) {
        const char *nmi = names[i];
        CUpti_SassMetrics_GetProperties_Params p;
        memset(&p, 0, sizeof p);
        p.structSize = CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE;
        p.pChipName = chip;
        p.pMetricName = nmi;
        CUptiResult rc = cuptiSassMetricsGetProperties(&p);
        if (rc != CUPTI_SUCCESS) {
            printf("metric %s: not offered (%s)\n", nmi, cstr(rc));
            continue;
        }
        mname[nm] = nmi;
        mid[nm] = p.metric.metricId;
        printf("metric %s: id %llu: %s\n", nmi, (unsigned long long)p.metric.metricId,
               p.metric.pMetricDescription ? p.metric.pMetricDescription : "");
        nm++;
    }
}

/* the candidates and any extra names from argv */
static void pick_metrics(int argc, char **argv)
{
    static const char *all[NCAND + MAXM];
    int n = 0;
    for (int i = 0; i < NCAND; i++)
        all[n++] = candidates[i];
    for (int i = 0; i < argc && n < NCAND + MAXM; i++)
        all[n++] = argv[i];
    pick_list(all, n);
}

/* the few a collection would need (the cost test and the fallback) */
static const char *const minimal[] = {
    "smsp__sass_inst_executed_op_shared_ld",
    "smsp__sass_inst_executed_op_shared_st",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld_ideal",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st_ideal",
    "smsp__sass_thread_inst_executed",
};
#define NMIN ((int)(sizeof minimal / sizeof minimal[0]))

static int set_config(int first, int count)
{
    CUpti_SassMetrics_Config cfg[MAXM];
    for (int i = 0; i < count; i++) {
        cfg[i].metricId = mid[first + i];
        cfg[i].outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
    }
    CUpti_SassMetricsSetConfig_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE;
    sp.numOfMetricConfig = (size_t)count;
    sp.pConfigs = cfg;
    sp.deviceIndex = (uint32_t)dev_index;
    double t0 = now_ms();
    CUptiResult rc = cuptiSassMetricsSetConfig(&sp);
    printf("cuptiSassMetricsSetConfig(%d metrics): %s, %.2f ms\n", count, cstr(rc), now_ms() - t0);
    return rc == CUPTI_SUCCESS ? 0 : -1;
}

static void unset_config(void)
{
    CUpti_SassMetricsUnsetConfig_Params up;
    memset(&up, 0, sizeof up);
    up.structSize = CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE;
    up.deviceIndex = (uint32_t)dev_index;
    double t0 = now_ms();
    CUptiResult rc = cuptiSassMetricsUnsetConfig(&up);
    printf("cuptiSassMetricsUnsetConfig: %s, %.2f ms\n", cstr(rc), now_ms() - t0);
}

/* Data properties and flush of what was collected since the last flush: per-PC
 * values to pc_out under label, sums printed. */
static void collect(const char *label, double *t_prop, double *t_flush)
{
    double t0 = now_ms();
    CUpti_SassMetricsGetDataProperties_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE;
    dp.ctx = ctx;
    CUptiResult rc = cuptiSassMetricsGetDataProperties(&dp);
    *t_prop = now_ms() - t0;
    size_t nrec = rc == CUPTI_SUCCESS ? dp.numOfPatchedInstructionRecords : 0;
    size_t ninst = rc == CUPTI_SUCCESS ? dp.numOfInstances : 0;
    if (rc != CUPTI_SUCCESS)
        printf("[%s] cuptiSassMetricsGetDataProperties: %s\n", label, cstr(rc));
    double sums[MAXM];
    memset(sums, 0, sizeof sums);
    int nfunc = 0, more = 0;
    char funcs[8][256];
    *t_flush = 0;
    if (nrec > 0 && ninst > 0) {
        CUpti_SassMetrics_Data *d = (CUpti_SassMetrics_Data *)calloc(nrec, sizeof *d);
        size_t per = ninst * (size_t)nm;
        CUpti_SassMetrics_InstanceValue *v =
            (CUpti_SassMetrics_InstanceValue *)calloc(nrec * per + 1, sizeof *v);
        /* a sentinel id: the values CUPTI did not write (does a record hold one
         * metric's instances, or every metric's?) */
        memset(v, 0xff, (nrec * per + 1) * sizeof *v);
        for (size_t i = 0; i < nrec; i++) {
            d[i].structSize = sizeof d[i];
            d[i].pInstanceValues = v + i * per;
        }
        CUpti_SassMetricsFlushData_Params fp;
        memset(&fp, 0, sizeof fp);
        fp.structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE;
        fp.ctx = ctx;
        fp.numOfPatchedInstructionRecords = nrec;
        fp.numOfInstances = ninst;
        fp.pMetricsData = d;
        t0 = now_ms();
        rc = cuptiSassMetricsFlushData(&fp);
        *t_flush = now_ms() - t0;
        if (rc != CUPTI_SUCCESS) {
            printf("[%s] cuptiSassMetricsFlushData: %s\n", label, cstr(rc));
        } else {
            for (size_t i = 0; i < nrec; i++) {
                const char *fn = d[i].functionName ? d[i].functionName : "?";
                int seen = 0;
                for (int k = 0; k < nfunc; k++)
                    seen |= strcmp(funcs[k], fn) == 0;
                if (!seen && nfunc < 8)
                    snprintf(funcs[nfunc++], sizeof funcs[0], "%s", fn);
                for (size_t k = 0; k < per; k++) {
                    const CUpti_SassMetrics_InstanceValue *iv = &d[i].pInstanceValues[k];
                    if (iv->metricId == ~0ull)
                        break;
                    if (k >= ninst)
                        more = 1;
                    if (pc_out)
                        fprintf(pc_out, "%s\t%u\t%u\t%s\t%u\t%s\t%llu\n", label, d[i].cubinCrc,
                                d[i].functionIndex, fn, d[i].pcOffset, name_of(iv->metricId),
                                (unsigned long long)iv->value);
                    for (int m = 0; m < nm; m++)
                        if (mid[m] == iv->metricId)
                            sums[m] += (double)iv->value;
                }
            }
        }
        free(d);
        free(v);
    }
    printf("[%s] records %zu instances %zu functions %d%s; ms: props %.2f flush %.2f\n", label,
           nrec, ninst, nfunc, more ? " (a record holds more than numOfInstances values)" : "",
           *t_prop, *t_flush);
    for (int k = 0; k < nfunc; k++)
        printf("[%s]   function %s\n", label, funcs[k]);
    for (int m = 0; m < nm; m++)
        printf("[%s]   sum %-64s %.0f\n", label, mname[m], sums[m]);
}

/* One enable .. disable cycle around launches (flush_each: collect after each
 * launch, else once at the end). Returns 0 or -1. */
static int cycle2(const char *label, void (*const *launch)(void), int nlaunch, int lazy,
                  int flush_each)
{
    CK(cudaDeviceSynchronize());
    double t0 = now_ms(), t_en, t_run = 0, t_prop = 0, t_flush = 0, t_dis;
    CUpti_SassMetricsEnable_Params ep;
    memset(&ep, 0, sizeof ep);
    ep.structSize = CUpti_SassMetricsEnable_Params_STRUCT_SIZE;
    ep.ctx = ctx;
    ep.enableLazyPatching = (uint8_t)lazy;
    CUptiResult rc = cuptiSassMetricsEnable(&ep);
    t_en = now_ms() - t0;
    if (rc != CUPTI_SUCCESS) {
        printf("[%s] cuptiSassMetricsEnable: %s\n", label, cstr(rc));
        return -1;
    }
    for (int i = 0; i < nlaunch; i++) {
        t0 = now_ms();
        launch[i]();
        cudaError_t ce = cudaDeviceSynchronize();
        t_run += now_ms() - t0;
        if (ce != cudaSuccess)
            printf("[%s] kernel: %s\n", label, cudaGetErrorName(ce));
        if (flush_each || i == nlaunch - 1) {
            char lab[96];
            double a, b;
            if (flush_each)
                snprintf(lab, sizeof lab, "%s#%d", label, i);
            else
                snprintf(lab, sizeof lab, "%s", label);
            collect(lab, &a, &b);
            t_prop += a;
            t_flush += b;
        }
    }
    t0 = now_ms();
    CUpti_SassMetricsDisable_Params xp;
    memset(&xp, 0, sizeof xp);
    xp.structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE;
    xp.ctx = ctx;
    rc = cuptiSassMetricsDisable(&xp);
    t_dis = now_ms() - t0;
    printf("[%s] COST ms: enable %.2f run+sync %.2f props %.2f flush %.2f disable %.2f (%s, "
           "dropped %zu)\n", label, t_en, t_run, t_prop, t_flush, t_dis, cstr(rc),
           xp.numOfDroppedRecords);
    fflush(stdout);
    return 0;
}

static int cycle(const char *label, void (*const *launch)(void), int nlaunch, int lazy)
{
    return cycle2(label, launch, nlaunch, lazy, 0);
}

static int sass_all(int argc, char **argv)
{
    pick_metrics(argc, argv);
    if (nm == 0)
        return -1;
    if (set_config(0, nm) != 0) {
        printf("whole set refused: the minimal set instead\n");
        pick_list(minimal, NMIN);
        if (nm == 0 || set_config(0, nm) != 0) {
            printf("minimal set refused too; one metric at a time:\n");
            const char *keep[MAXM];
            int nk = 0;
            pick_metrics(0, NULL);
            for (int i = 0; i < nm; i++) {
                int ok = set_config(i, 1) == 0;
                printf("  %s: %s\n", mname[i], ok ? "accepted" : "refused");
                if (ok) {
                    keep[nk++] = mname[i];
                    unset_config();
                }
            }
            pick_list(keep, nk);
            if (nm == 0 || set_config(0, nm) != 0)
                return -1;
        }
    }
    for (int i = 0; i < NMAIN; i++) {
        void (*l[1])(void) = { mains[i].launch };
        printf("== %s: %s\n", mains[i].label, mains[i].what);
        cycle(mains[i].label, l, 1, 1);
    }
    for (int i = 0; i < NMICRO; i++) {
        void (*l[1])(void) = { micros[i].launch };
        printf("== %s: %s\n", micros[i].label, micros[i].what);
        cycle(micros[i].label, l, 1, 1);
    }
    /* the same kernel again (cost once patched; same values?) */
    {
        void (*l[1])(void) = { l_tiled32 };
        cycle("tiled32_again", l, 1, 1);
        cycle("tiled32_third", l, 1, 1);
        void (*l2[2])(void) = { l_padded32, l_padded32 };
        cycle("padded32_twice", l2, 2, 1);
        void (*l3[2])(void) = { l_tiled32, l_padded32 };
        cycle("tiled32_then_padded32", l3, 2, 1);
        void (*l4[2])(void) = { l_mm8, l_tiled16 };
        cycle("mm8_then_tiled16", l4, 2, 1);
        void (*l5[1])(void) = { l_padded16 };
        cycle("padded16_eager", l5, 1, 0);
        cycle("padded16_lazy_after_eager", l5, 1, 1);
        void (*l6[3])(void) = { l_tiled32, l_tiled32, l_padded32 };
        cycle2("flush_each", l6, 3, 1, 1);
    }
    /* cost with the few metrics a collection needs */
    unset_config();
    pick_list(minimal, NMIN);
    if (nm > 0 && set_config(0, nm) == 0) {
        FILE *keep = pc_out;
        pc_out = NULL;
        for (int r = 0; r < 2; r++)
            for (int i = 0; i < NMAIN; i++) {
                void (*l[1])(void) = { mains[i].launch };
                char lab[64];
                snprintf(lab, sizeof lab, "min%d_%s", r, mains[i].label);
                cycle(lab, l, 1, 1);
            }
        pc_out = keep;
    }
    return 0;
}

static int do_sass(int argc, char **argv)
{
    setup(1);
    chip_name();
    pc_out = fopen(getenv("PC_TSV") ? getenv("PC_TSV") : "pc.tsv", "w");
    if (pc_out)
        fprintf(pc_out, "label\tcrc\tfindex\tfunction\tpc\tmetric\tvalue\n");
    double before[NMAIN];
    for (int i = 0; i < NMAIN; i++)
        before[i] = time_kernel(mains[i].launch);
    int rc = sass_all(argc, argv);
    for (int i = 0; i < NMAIN; i++)
        printf("time %-14s before SASS %.4f ms, after disable %.4f ms\n", mains[i].label,
               before[i], time_kernel(mains[i].launch));
    unset_config();
    for (int i = 0; i < NMAIN; i++)
        printf("time %-14s after unset %.4f ms\n", mains[i].label, time_kernel(mains[i].launch));
    if (pc_out)
        fclose(pc_out);
    return rc == 0 ? 0 : 1;
}

/* ---- coexistence with gpulab's Range Profiler engine ------------------------------------ */
struct rctx {
    void (*launch)(void);
};
static void r_run(void *c) { ((struct rctx *)c)->launch(); }
static void r_flush(void *c)
{
    (void)c;
    flush_kernel<<<1056, 256>>>(d_flush, flush_n4, d_sink);
}

static const char *const rp_names[] = {
    "gpu__time_duration.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "smsp__inst_executed.sum",
};
#define NRP ((int)(sizeof rp_names / sizeof rp_names[0]))

static double rp_val[2][NMAIN][NRP];

static int rp_round(int round)
{
    struct gl_metric_req req;
    memset(&req, 0, sizeof req);
    for (int i = 0; i < NRP; i++)
        snprintf(req.names[req.n++], sizeof req.names[0], "%s", rp_names[i]);
    char err[512];
    double t0 = now_ms();
    int passes = glc_setup(&req, err, sizeof err);
    printf("RP round %d: glc_setup -> %d passes (%s), %.1f ms\n", round, passes, err,
           now_ms() - t0);
    if (passes <= 0)
        return -1;
    static struct gl_result *rs[NMAIN];
    struct rctx c[NMAIN];
    struct glc_replay rp[NMAIN];
    const struct glc_replay *rpp[NMAIN];
    for (int i = 0; i < NMAIN; i++) {
        if (!rs[i])
            rs[i] = (struct gl_result *)calloc(1, sizeof(struct gl_result));
        c[i].launch = mains[i].launch;
        rp[i].run = r_run;
        rp[i].flush = r_flush;
        rp[i].ctx = &c[i];
        rp[i].single_kernel = 1;
        rp[i].smem = 0;
        rp[i].smem_ms = NULL;
        rp[i].restore = NULL;
        rp[i].restore_early = 0;
        rp[i].nlaunches = 0;        /* one launch: not split */
        rp[i].run_launch = NULL;
        rpp[i] = &rp[i];
    }
    t0 = now_ms();
    int rc = glc_profile_batch(rpp, rs, NMAIN);
    printf("RP round %d: glc_profile_batch -> %d, %.1f ms\n", round, rc, now_ms() - t0);
    for (int i = 0; i < NMAIN; i++) {
        if (rs[i]->nmetrics == 0)
            printf("RP round %d %s: no metrics: %s\n", round, mains[i].label, rs[i]->metrics_reason);
        for (int k = 0; k < NRP; k++) {
            rp_val[round][i][k] = NAN;
            for (int m = 0; m < rs[i]->nmetrics; m++)
                if (strcmp(rs[i]->metrics[m].name, rp_names[k]) == 0)
                    rp_val[round][i][k] = rs[i]->metrics[m].value;
        }
    }
    return rc;
}

static int do_coexist(int argc, char **argv)
{
    setup(1);
    double before[NMAIN];
    for (int i = 0; i < NMAIN; i++)
        before[i] = time_kernel(mains[i].launch);
    rp_round(0);
    /* the engine initialised CUPTI and enabled a range profiler object on the context */
    chip_name();
    pc_out = NULL;
    pick_metrics(argc, argv);
    int sass_ok = set_config(0, nm) == 0;
    double t0 = now_ms();
    if (sass_ok) {
        for (int i = 0; i < NMAIN; i++) {
            void (*l[1])(void) = { mains[i].launch };
            if (cycle(mains[i].label, l, 1, 1) != 0)
                sass_ok = 0;
        }
    }
    printf("SASS with the range profiler enabled: %s (%.1f ms)\n", sass_ok ? "ran" : "FAILED",
           now_ms() - t0);
    if (!sass_ok) {
        printf("retry: glc_shutdown (range profiler disabled), SASS again\n");
        glc_shutdown();
        unset_config();
        if (set_config(0, nm) == 0)
            for (int i = 0; i < NMAIN; i++) {
                void (*l[1])(void) = { mains[i].launch };
                cycle(mains[i].label, l, 1, 1);
            }
    }
    for (int i = 0; i < NMAIN; i++)
        printf("time %-14s before %.4f ms, after SASS (config still set) %.4f ms\n",
               mains[i].label, before[i], time_kernel(mains[i].launch));
    rp_round(1);
    unset_config();
    for (int i = 0; i < NMAIN; i++) {
        printf("RP %-14s", mains[i].label);
        for (int k = 0; k < NRP; k++)
            printf(" | %s %.6g -> %.6g", rp_names[k], rp_val[0][i][k], rp_val[1][i][k]);
        printf("\n");
    }
    glc_shutdown();
    return 0;
}

/* ---- round 2: the flow gpulab would use ---------------------------------------------- */
static const char *const set_full[] = {
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "smsp__sass_inst_executed_op_shared_ld",
    "smsp__sass_inst_executed_op_shared_st",
    "smsp__sass_inst_executed_op_shared_atom",
    "smsp__sass_inst_executed_op_ldsm",
    "smsp__sass_inst_executed_op_shared",
    "smsp__sass_inst_executed_op_memory_32b",
    "smsp__sass_inst_executed_op_memory_64b",
    "smsp__sass_inst_executed_op_memory_128b",
    "smsp__sass_thread_inst_executed_op_shared_pred_on",
};
static const char *const set4[] = {
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "smsp__sass_inst_executed_op_shared_ld",
    "smsp__sass_inst_executed_op_shared_st",
};
static const char *const set2[] = {
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
};
static const char *const set5[] = {
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "smsp__sass_inst_executed_op_shared_ld",
    "smsp__sass_inst_executed_op_shared_st",
    "smsp__sass_inst_executed_op_memory_32b",
};
#define NOF(a) ((int)(sizeof a / sizeof a[0]))

static void one(const char *label, void (*launch)(void))
{
    void (*l[1])(void) = { launch };
    cycle(label, l, 1, 1);
}

/* RP batch, SASS on every kernel (per-PC data), RP reconfigured, SASS again,
 * multi-launch tests, event times at the end */
static int do_flow(void)
{
    setup(1);
    double before[NMAIN];
    for (int i = 0; i < NMAIN; i++)
        before[i] = time_kernel(mains[i].launch);
    rp_round(0);
    chip_name();
    pc_out = fopen(getenv("PC_TSV") ? getenv("PC_TSV") : "pc.tsv", "w");
    if (pc_out)
        fprintf(pc_out, "label\tcrc\tfindex\tfunction\tpc\tmetric\tvalue\n");
    pick_list(set_full, NOF(set_full));
    if (set_config(0, nm) != 0)
        return 1;
    for (int i = 0; i < NMAIN; i++)
        one(mains[i].label, mains[i].launch);
    for (int i = 0; i < NMICRO; i++)
        one(micros[i].label, micros[i].launch);
    /* the range profiler reconfigured (a fresh object), a session, then SASS again */
    rp_round(1);
    one("after_rp_tiled32", l_tiled32);
    one("after_rp_padded16", l_padded16);
    void (*l2[2])(void) = { l_padded16, l_padded16 };
    cycle("padded16_twice", l2, 2, 1);
    void (*l3[2])(void) = { l_tiled32, l_padded32 };
    cycle("tiled32_then_padded32", l3, 2, 1);
    void (*l4[3])(void) = { l_tiled16, l_tiled16, l_padded32 };
    cycle2("flush_each", l4, 3, 1, 1);
    one("last_tiled32", l_tiled32);
    /* a module loaded after the SASS configuration was set (a user's kernel
     * compiled later in a worker) */
    load_lib(&k_late_tiled32, &k_late_padded32);
    one("late_lib_tiled32", l_late_tiled32);
    one("late_lib_padded32", l_late_padded32);
    for (int i = 0; i < NMAIN; i++)
        printf("time %-14s before %.4f ms, at the end (config set) %.4f ms\n", mains[i].label,
               before[i], time_kernel(mains[i].launch));
    unset_config();
    for (int i = 0; i < NMAIN; i++)
        printf("time %-14s after unset %.4f ms\n", mains[i].label, time_kernel(mains[i].launch));
    if (pc_out)
        fclose(pc_out);
    glc_shutdown();
    return 0;
}

/* cost of the instrumented run with a metric set: RP session first (as gpulab) */
static int do_cost(const char *which)
{
    setup(1);
    double plain[NMAIN];
    for (int i = 0; i < NMAIN; i++)
        plain[i] = time_kernel(mains[i].launch);
    rp_round(0);
    chip_name();
    pc_out = NULL;
    if (strcmp(which, "4") == 0)
        pick_list(set4, NOF(set4));
    else if (strcmp(which, "5") == 0)
        pick_list(set5, NOF(set5));
    else
        pick_list(set2, NOF(set2));
    if (set_config(0, nm) != 0)
        return 1;
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < NMAIN; i++) {
            char lab[64];
            snprintf(lab, sizeof lab, "cost%s_r%d_%s", which, r, mains[i].label);
            double t0 = now_ms();
            one(lab, mains[i].launch);
            printf("CYCLE %s set %s: whole cycle %.2f ms, plain kernel %.4f ms\n", mains[i].label,
                   which, now_ms() - t0, plain[i]);
        }
    unset_config();
    glc_shutdown();
    return 0;
}

/* range profiler enabled (set up) but no session yet: does SASS collect each cycle? */
static int do_rponly(void)
{
    setup(1);
    struct gl_metric_req req;
    memset(&req, 0, sizeof req);
    snprintf(req.names[req.n++], sizeof req.names[0], "%s", "gpu__time_duration.sum");
    char err[256];
    printf("rponly: glc_setup -> %d\n", glc_setup(&req, err, sizeof err));
    chip_name();
    pc_out = NULL;
    pick_list(set4, NOF(set4));
    if (set_config(0, nm) != 0)
        return 1;
    one("rponly_tiled32", l_tiled32);
    one("rponly_padded32", l_padded32);
    one("rponly_tiled32_again", l_tiled32);
    unset_config();
    glc_shutdown();
    return 0;
}

static int do_plain(void)
{
    setup(1);
    for (int i = 0; i < NMAIN; i++)
        mains[i].launch();
    for (int i = 0; i < NMICRO; i++)
        micros[i].launch();
    CK(cudaDeviceSynchronize());
    printf("plain: %d + %d kernels ran\n", NMAIN, NMICRO);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        fprintf(stderr, "usage: smem_probe list|sass|coexist|plain [extra SASS metric names]\n");
        return 2;
    }
    if (strcmp(argv[1], "list") == 0)
        return do_list();
    if (strcmp(argv[1], "sass") == 0)
        return do_sass(argc - 2, argv + 2);
    if (strcmp(argv[1], "coexist") == 0)
        return do_coexist(argc - 2, argv + 2);
    if (strcmp(argv[1], "plain") == 0)
        return do_plain();
    if (strcmp(argv[1], "flow") == 0)
        return do_flow();
    if (strcmp(argv[1], "cost") == 0)
        return do_cost(argc > 2 ? argv[2] : "4");
    if (strcmp(argv[1], "rponly") == 0)
        return do_rponly();
    fprintf(stderr, "unknown mode %s\n", argv[1]);
    return 2;
}
