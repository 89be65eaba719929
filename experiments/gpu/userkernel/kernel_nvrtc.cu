/* kernel_nvrtc.cu - a user's kernel compiled with NVRTC (the default
 * compiler): the program is named by the source's path, so that its log reads
 * `path(line): error ...`; the toolkit's include folder and, beside it, its
 * CCCL folder (CUDA 13 keeps cooperative groups' dependencies, CUB, Thrust and
 * libcu++ `cuda::std` in include/cccl) are on the include path, after the
 * caller's options. A missing C/C++ library header (NVRTC has none) gets a
 * hint saying what to do.
 * Must not call the CUDA runtime or driver (it runs at plan time, on machines
 * without either), nor know about the kernel cache (kernel_compile.cu). */
#include "fileutil.h"
#include "kernel_int.cuh"

#include <dlfcn.h>
#include <limits.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The CUDA headers' folder as NVRTC's library location gives it (lib64/.. or
 * targets/<arch>/lib/..), else $CUDA_HOME/include, else /usr/local/cuda/include;
 * "" when none has cuda_runtime.h (or none's path fits out). */
static void cuda_include(char *out, size_t len)
{
    char cand[4][GK_PATH];
    int n = 0;
    Dl_info info;
    if (dladdr((void *)nvrtcVersion, &info) && info.dli_fname) {
        char dir[GK_DIR], real[PATH_MAX];
        gl_folder_of(info.dli_fname, dir, sizeof dir);
        snprintf(cand[n++], GK_PATH, "%s/../include", dir);
        if (realpath(info.dli_fname, real)) {
            gl_folder_of(real, dir, sizeof dir);
            snprintf(cand[n++], GK_PATH, "%s/../include", dir);
        }
    }
    const char *home = getenv("CUDA_HOME");
    if (home && *home && strlen(home) < GK_DIR)
        snprintf(cand[n++], GK_PATH, "%s/include", home);
    snprintf(cand[n++], GK_PATH, "/usr/local/cuda/include");
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        /* a candidate whose path does not fit (the probe, or out) is passed
         * over: a truncated path would name another folder */
        char probe[GK_PATH + 32];
        int w = snprintf(probe, sizeof probe, "%s/cuda_runtime.h", cand[i]);
        if (w < 0 || (size_t)w >= sizeof probe || access(probe, R_OK) != 0)
            continue;
        w = snprintf(out, len, "%s", cand[i]);
        if (w >= 0 && (size_t)w < len)
            return;
        out[0] = '\0';
    }
}

int gk_nvrtc_version(char *out, size_t len, char *log, size_t loglen)
{
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) {
        gl_say(log, loglen, "nvrtcVersion failed: NVRTC unusable");
        return -1;
    }
    snprintf(out, len, "nvrtc %d.%d", major, minor);
    return 0;
}

/* A C or C++ library header NVRTC could not open ("stdio.h", "vector"): the
 * hint appended to the log, when the log says so. */
static void missing_header_hint(char *log, size_t loglen)
{
    const char *p = strstr(log, "open source file \"");
    if (!p)
        return;
    p += 18;
    const char *q = strchr(p, '"');
    if (!q || q - p > 200)
        return;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(q - p), p);
    const char *dot = strrchr(name, '.');
    /* a user's own header (.cuh, .hpp, ...) that is missing is not the case */
    if (dot && strcmp(dot, ".h") != 0)
        return;
    size_t n = strlen(log);
    if (n + 1 >= loglen)
        return;
    snprintf(log + n, loglen - n,
             "%shint: NVRTC has no C/C++ library headers; if \"%s\" is one: remove the #include, "
             "guard it with #ifndef __CUDACC_RTC__ ... #endif, or set `compiler = nvcc` in the "
             "kernel section (nvcc compiles files with host code, main() and library headers)\n",
             n > 0 && log[n - 1] != '\n' ? "\n" : "", name);
}

#define NVRTC_OK(call)                                                                         \
    do {                                                                                       \
        nvrtcResult rc_ = (call);                                                              \
        if (rc_ != NVRTC_SUCCESS) {                                                            \
            gl_say(log, loglen, "%s: %s", #call, nvrtcGetErrorString(rc_));                    \
            goto fail;                                                                         \
        }                                                                                      \
    } while (0)

#define GK_NVRTC_OWN 8   /* options of gpulab's own besides the caller's */

int gk_nvrtc_compile(const struct gk_compile *c, char **cubin, size_t *cubin_len,
                     char (*lowered)[GK_LOWERED], char *log, size_t loglen)
{
    nvrtcProgram prog = NULL;
    const struct gl_kernel *k = c->k;
    const char **opts = (const char **)calloc((size_t)c->nopts + GK_NVRTC_OWN, sizeof *opts);
    char o_arch[48], inc[GK_DIR], o_inc[GK_DIR + 4], o_cccl[GK_DIR + 12];
    int n = 0, rc = -1;
    size_t size = 0;
    *cubin = NULL;
    if (!opts) {
        gl_say(log, loglen, "out of memory");
        return -1;
    }
    char target[16];
    gl_arch_name(c->arch, target, sizeof target);
    snprintf(o_arch, sizeof o_arch, "--gpu-architecture=%s", target);
    opts[n++] = o_arch;
    opts[n++] = "-std=c++17";
    opts[n++] = "-default-device";
    opts[n++] = "-lineinfo";
    for (int i = 0; i < c->nopts; i++)
        opts[n++] = c->opts[i];
    cuda_include(inc, sizeof inc);
    if (inc[0]) {
        struct stat st;
        snprintf(o_inc, sizeof o_inc, "-I%s", inc);
        opts[n++] = o_inc;
        snprintf(o_cccl, sizeof o_cccl, "-I%s/cccl", inc);
        if (stat(o_cccl + 2, &st) == 0 && S_ISDIR(st.st_mode))
            opts[n++] = o_cccl;
    }
    NVRTC_OK(nvrtcCreateProgram(&prog, k->text, k->source, 0, NULL, NULL));
    for (int i = 0; i < c->nexprs; i++)
        NVRTC_OK(nvrtcAddNameExpression(prog, c->exprs[i]));
    {
        nvrtcResult r = nvrtcCompileProgram(prog, n, opts);
        if (r != NVRTC_SUCCESS) {
            size_t ln = 0;
            if (nvrtcGetProgramLogSize(prog, &ln) == NVRTC_SUCCESS && ln > 1) {
                char *l = (char *)malloc(ln);
                if (l && nvrtcGetProgramLog(prog, l) == NVRTC_SUCCESS)
                    gl_say(log, loglen, "%s", l);
                else
                    gl_say(log, loglen, "%s: %s", k->source, nvrtcGetErrorString(r));
                free(l);
            } else {
                gl_say(log, loglen, "%s: %s", k->source, nvrtcGetErrorString(r));
            }
            if (r == NVRTC_ERROR_INVALID_OPTION) {
                rc = -2;
            } else {
                missing_header_hint(log, loglen);
            }
            goto fail;
        }
    }
    for (int i = 0; i < c->nexprs; i++) {
        const char *low = NULL;
        NVRTC_OK(nvrtcGetLoweredName(prog, c->exprs[i], &low));
        if (!low || strlen(low) >= GK_LOWERED) {
            gl_say(log, loglen, "%s: the lowered name of '%s' is missing or too long", k->source,
                   c->exprs[i]);
            goto fail;
        }
        snprintf(lowered[i], GK_LOWERED, "%s", low);
    }
    NVRTC_OK(nvrtcGetCUBINSize(prog, &size));
    if (size == 0) {
        gl_say(log, loglen, "%s: NVRTC produced no cubin", k->source);
        goto fail;
    }
    if (!(*cubin = (char *)malloc(size))) {
        gl_say(log, loglen, "out of memory for a %zu-byte cubin", size);
        goto fail;
    }
    NVRTC_OK(nvrtcGetCUBIN(prog, *cubin));
    *cubin_len = size;
    nvrtcDestroyProgram(&prog);
    free(opts);
    return 0;
fail:
    free(*cubin);
    *cubin = NULL;
    if (prog)
        nvrtcDestroyProgram(&prog);
    free(opts);
    return rc;
}
