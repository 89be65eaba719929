/* kernel_nvcc.cu - a user's kernel compiled with the toolkit's nvcc
 * (`compiler = nvcc`), for files NVRTC cannot take: host code in the same file,
 * main(), C/C++ library headers. nvcc has no name expressions, so a wrapper
 * .cu in a temporary folder includes the user's file (by absolute path, its
 * folder on the include path) and takes the address of each name expression,
 * which instantiates templates; `nvcc -cubin -arch=sm_XX` compiles the wrapper,
 * and each expression's lowered name is found among the cubin's kernels
 * (kernel_elf.cu) by demangling them (abi::__cxa_demangle) and comparing
 * after normalising both (no whitespace, return type or parameter list,
 * integer literals without their u/l suffixes or casts). nvcc is
 * $CUDA_HOME/bin/nvcc, else the one beside NVRTC's library (../bin/nvcc),
 * else the first on PATH.
 * Must not call the CUDA runtime or driver, nor know about the kernel cache. */
#include "fileutil.h"
#include "kernel_int.cuh"
#include "subprocess.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The nvcc to run into out; 0, or -1 with where it looked in log. */
static int find_nvcc(char *out, size_t len, char *log, size_t loglen)
{
    const char *home = getenv("CUDA_HOME");
    char looked[2048] = "";
    size_t used = 0;
    if (home && *home) {
        snprintf(out, len, "%s/bin/nvcc", home);
        if (executable(out))
            return 0;
        used += (size_t)snprintf(looked + used, sizeof looked - used, "%s, ", out);
    }
    Dl_info info;
    if (dladdr((void *)nvrtcVersion, &info) && info.dli_fname) {
        char real[PATH_MAX];
        const char *lib = realpath(info.dli_fname, real) ? real : info.dli_fname;
        const char *slash = strrchr(lib, '/');
        if (slash) {
            snprintf(out, len, "%.*s/../bin/nvcc", (int)(slash - lib), lib);
            if (executable(out))
                return 0;
            if (used < sizeof looked)
                used += (size_t)snprintf(looked + used, sizeof looked - used, "%s, ", out);
        }
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        if (n > 0) {
            snprintf(out, len, "%.*s/nvcc", (int)n, p);
            if (executable(out))
                return 0;
        }
        p += n + (colon ? 1 : 0);
    }
    gl_say(log, loglen, "compiler = nvcc: no nvcc found (looked at %sand on PATH): install the CUDA "
           "toolkit's compiler or set CUDA_HOME to the toolkit's folder", looked);
    return -1;
}

int gk_nvcc_version(char *out, size_t len, char *log, size_t loglen)
{
    static char cached[512];
    if (cached[0]) {
        snprintf(out, len, "%s", cached);
        return 0;
    }
    char nvcc[GK_PATH], text[4096];
    if (find_nvcc(nvcc, sizeof nvcc, log, loglen) != 0)
        return -1;
    char *argv[] = { nvcc, (char *)"--version", NULL };
    if (gl_run_captured(argv, text, sizeof text) != 0) {
        gl_say(log, loglen, "%s --version failed: %s", nvcc, text);
        return -1;
    }
    /* "Cuda compilation tools, release 13.0, V13.0.88" and the "Build ..." line */
    size_t o = (size_t)snprintf(cached, sizeof cached, "nvcc");
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if ((strstr(line, "release") || strncmp(line, "Build", 5) == 0) && o < sizeof cached)
            o += (size_t)snprintf(cached + o, sizeof cached - o, " %s", line);
    snprintf(out, len, "%s", cached);
    return 0;
}

/* ---- names ---------------------------------------------------------------------------- */

static int ident_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* A function's name as a demangler or a user writes it, normalised: without
 * its return type ("void "), its parameter list and whitespace; integer
 * literals without u/l suffixes or a cast ("(unsigned int)3" -> "3"). */
static void normalise(const char *in, char *out, size_t len)
{
    char tmp[GK_LOWERED * 2];
    size_t o = 0;
    while (*in == ' ')
        in++;
    if (strncmp(in, "void ", 5) == 0)
        in += 5;
    /* cut the parameter list: the first '(' outside template arguments */
    int angle = 0;
    for (const char *s = in; *s && o + 1 < sizeof tmp; s++) {
        if (*s == '<')
            angle++;
        else if (*s == '>' && angle > 0)
            angle--;
        else if (*s == '(' && angle == 0)
            break;
        if (*s != ' ' && *s != '\t')
            tmp[o++] = *s;
    }
    tmp[o] = '\0';
    o = 0;
    for (size_t i = 0; tmp[i] && o + 1 < len;) {
        /* a cast before a literal: "(type)" followed by a digit or '-' */
        if (tmp[i] == '(') {
            size_t j = i + 1;
            while (ident_char(tmp[j]))
                j++;
            if (j > i + 1 && tmp[j] == ')' &&
                ((tmp[j + 1] >= '0' && tmp[j + 1] <= '9') || tmp[j + 1] == '-')) {
                i = j + 1;
                continue;
            }
        }
        if (tmp[i] >= '0' && tmp[i] <= '9' && (i == 0 || !ident_char(tmp[i - 1]))) {
            while (ident_char(tmp[i]) && !(tmp[i] == 'u' || tmp[i] == 'U' || tmp[i] == 'l' ||
                                           tmp[i] == 'L') && o + 1 < len)
                out[o++] = tmp[i++];
            while (tmp[i] == 'u' || tmp[i] == 'U' || tmp[i] == 'l' || tmp[i] == 'L')
                i++;
            continue;
        }
        out[o++] = tmp[i++];
    }
    out[o] = '\0';
}

/* Find each expression's kernel among names (mangled): lowered[i]. 0, or -1
 * with the kernels found in log. */
static int match_names(const struct gk_compile *c, char **names, int n,
                       char (*lowered)[GK_LOWERED], char *log, size_t loglen)
{
    char **plain = (char **)calloc((size_t)(n ? n : 1), sizeof *plain);
    char want[GK_LOWERED], have[GK_LOWERED];
    int rc = 0;
    if (!plain) {
        gl_say(log, loglen, "out of memory");
        return -1;
    }
    for (int j = 0; j < n; j++) {
        int st = 0;
        char *d = abi::__cxa_demangle(names[j], NULL, NULL, &st);
        plain[j] = st == 0 && d ? d : strdup(names[j]);   /* extern "C": as it is */
        if (st != 0)
            free(d);
    }
    for (int i = 0; i < c->nexprs && rc == 0; i++) {
        int found = -1, count = 0;
        normalise(c->exprs[i], want, sizeof want);
        for (int j = 0; j < n; j++) {
            if (!plain[j])
                continue;
            normalise(plain[j], have, sizeof have);
            if (strcmp(want, have) == 0) {
                if (count++ == 0)
                    found = j;
            }
        }
        if (count == 1 && strlen(names[found]) < GK_LOWERED) {
            snprintf(lowered[i], GK_LOWERED, "%s", names[found]);
            continue;
        }
        size_t o = (size_t)snprintf(log, loglen, "%s: compiler = nvcc: %s kernel '%s' in the "
                                    "cubin (kernels found:", c->k->source,
                                    count == 0 ? "no" : "more than one", c->exprs[i]);
        for (int j = 0; j < n && o < loglen; j++)
            o += (size_t)snprintf(log + o, loglen - o, "%s %s", j ? "," : "",
                                  plain[j] ? plain[j] : names[j]);
        if (o < loglen)
            snprintf(log + o, loglen - o, "%s)", n ? "" : " none");
        rc = -1;
    }
    for (int j = 0; j < n; j++)
        free(plain[j]);
    free(plain);
    return rc;
}

/* ---- the compilation ------------------------------------------------------------------ */

int gk_nvcc_compile(const struct gk_compile *c, char **cubin, size_t *cubin_len,
                    char (*lowered)[GK_LOWERED], char *log, size_t loglen)
{
    char nvcc[GK_PATH], dir[256], wrap[GK_PATH], out[GK_PATH], src[PATH_MAX], arch[32];
    char **argv = NULL, **names = NULL;
    int nnames = 0, rc = -1, argc = 0;
    FILE *f = NULL;
    *cubin = NULL;
    if (find_nvcc(nvcc, sizeof nvcc, log, loglen) != 0)
        return -1;
    if (!realpath(c->k->source, src)) {
        gl_say(log, loglen, "%s: %s", c->k->source, strerror(errno));
        return -1;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/gpulab-nvcc-XXXXXX", tmp && *tmp && strlen(tmp) < 200 ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        gl_say(log, loglen, "compiler = nvcc: cannot make a temporary folder %s: %s", dir,
               strerror(errno));
        return -1;
    }
    snprintf(wrap, sizeof wrap, "%s/gpulab_kernels.cu", dir);
    snprintf(out, sizeof out, "%s/gpulab_kernels.cubin", dir);
    if (!(f = fopen(wrap, "w"))) {
        gl_say(log, loglen, "compiler = nvcc: %s: %s", wrap, strerror(errno));
        goto out;
    }
    fprintf(f, "// generated by gpulab: the kernels of %s to compile\n#include \"%s\"\n",
            c->k->source, src);
    for (int i = 0; i < c->nexprs; i++)
        fprintf(f, "static const void *const gpulab_ref_%d = (const void *)&%s;\n", i,
                c->exprs[i]);
    if (fclose(f) != 0) {
        f = NULL;
        gl_say(log, loglen, "compiler = nvcc: writing %s failed", wrap);
        goto out;
    }
    f = NULL;
    if (!(argv = (char **)calloc((size_t)c->nopts + 16, sizeof *argv))) {
        gl_say(log, loglen, "out of memory");
        goto out;
    }
    char target[16];
    gl_arch_name(c->arch, target, sizeof target);
    snprintf(arch, sizeof arch, "-arch=%s", target);
    argv[argc++] = nvcc;
    argv[argc++] = (char *)"-cubin";
    argv[argc++] = arch;
    argv[argc++] = (char *)"-std=c++17";
    argv[argc++] = (char *)"-lineinfo";
    argv[argc++] = (char *)"-diag-suppress";
    argv[argc++] = (char *)"177";   /* the wrapper's references are never used */
    for (int i = 0; i < c->nopts; i++)
        argv[argc++] = (char *)c->opts[i];
    argv[argc++] = (char *)"-o";
    argv[argc++] = out;
    argv[argc++] = wrap;
    argv[argc] = NULL;
    {
        int st = gl_run_captured(argv, log, loglen);
        if (st != 0) {
            if (st > 0 && strstr(log, "nvcc fatal") && c->k->noptions > 0)
                rc = -2;   /* an option nvcc refused (the wrapper is gpulab's own) */
            if (!log[0])
                gl_say(log, loglen, "%s exited with %d", nvcc, st);
            goto out;
        }
    }
    if (!(*cubin = gl_file_read(out, cubin_len, NULL, 0)) || *cubin_len == 0) {
        gl_say(log, loglen, "compiler = nvcc: no cubin at %s", out);
        goto out;
    }
    {
        char e[256];
        if (gk_elf_kernels(*cubin, *cubin_len, &names, &nnames, e, sizeof e) != 0) {
            gl_say(log, loglen, "compiler = nvcc: %s", e);
            goto out;
        }
    }
    log[0] = '\0';   /* nvcc's warnings, if any, are not an error */
    rc = match_names(c, names, nnames, lowered, log, loglen);
out:
    if (f)
        fclose(f);
    if (rc != 0) {
        free(*cubin);
        *cubin = NULL;
    }
    gk_elf_free(names, nnames);
    free(argv);
    unlink(wrap);
    unlink(out);
    rmdir(dir);
    return rc;
}
