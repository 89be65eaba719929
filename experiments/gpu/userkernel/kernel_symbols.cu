/* kernel_symbols.cu - a kernel section's symbols (`symbol.NAME = TYPE[COUNT]
 * ...`: the module's __constant__ or __device__ variable NAME, kernel.h)
 * matched with the variables of the compiled cubin (kernel_elf.cu): found by
 * name (a variable in a namespace by its qualified name, ns::table, which the
 * cubin holds mangled), the same size in bytes as the buffer at the point, and
 * a __device__ variable when it is an output (a kernel cannot write a
 * __constant__ one). Used by plan (kernel_compile.cu, after compiling: no GPU
 * needed) and by each run (kernel_run.cu, which then asks the loaded library
 * for the variable's address by the name found here).
 * Must not call the CUDA runtime or driver. */
#include "kernel_int.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "expr.h"
#include "fileutil.h"
#include "ktype.h"
#include "nearest.h"
}

/* The C++ name of a variable's symbol: _ZN2ns5tableE -> ns::table, _Z5table
 * -> table, anything else as it is. */
static void demangle(const char *sym, char *out, size_t len)
{
    const char *s = sym;
    size_t o = 0;
    int nested = 0;
    snprintf(out, len, "%s", sym);
    if (strncmp(s, "_Z", 2) != 0)
        return;
    s += 2;
    if (*s == 'N') {
        nested = 1;
        s++;
    }
    char buf[GL_KEXPR];
    buf[0] = '\0';
    while (*s >= '0' && *s <= '9') {
        char *end;
        long n = strtol(s, &end, 10);
        if (n <= 0 || (long)strlen(end) < n || o + (size_t)n + 3 >= sizeof buf)
            return;
        if (o) {
            memcpy(buf + o, "::", 2);
            o += 2;
        }
        memcpy(buf + o, end, (size_t)n);
        o += (size_t)n;
        buf[o] = '\0';
        s = end + n;
        if (!nested)
            break;
    }
    if (o == 0 || (nested ? strcmp(s, "E") != 0 : *s != '\0'))
        return;
    snprintf(out, len, "%s", buf);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int gk_symbols_check(const struct gl_kernel *k, const struct gl_params *p, const char *cubin,
                     int *line, char (*elf)[GL_KEXPR], char *msg, size_t msglen)
{
    int nsym = 0;
    for (int b = 0; b < k->nbuffers; b++)
        nsym += k->buffers[b].symbol != 0;
    if (nsym == 0)
        return 0;
    size_t len = 0;
    char err[300];
    char *data = gl_file_read(cubin, &len, err, sizeof err);
    if (!data) {
        snprintf(msg, msglen, "cannot read the cubin %s: %s", cubin, err);
        return -2;
    }
    struct gk_elf_var *v = NULL;
    int n = 0;
    if (gk_elf_vars(data, len, &v, &n, err, sizeof err) != 0) {
        free(data);
        snprintf(msg, msglen, "%s: %s", cubin, err);
        return -2;
    }
    free(data);
    /* each variable's C++ name (the suggestions point into this) */
    char (*cxxs)[GL_KEXPR] = (char (*)[GL_KEXPR])calloc((size_t)(n > 0 ? n : 1), GL_KEXPR);
    if (!cxxs) {
        gk_elf_vars_free(v);
        snprintf(msg, msglen, "out of memory");
        return -2;
    }
    for (int i = 0; i < n; i++)
        demangle(v[i].name, cxxs[i], GL_KEXPR);
    int rc = 0;
    for (int b = 0; b < k->nbuffers && rc == 0; b++) {
        const struct gl_kbuffer *kb = &k->buffers[b];
        if (!kb->symbol)
            continue;
        int found = -1;
        struct gl_nearest near;
        gl_nearest_init(&near, kb->name);
        for (int i = 0; i < n && found < 0; i++) {
            if (strcmp(cxxs[i], kb->name) == 0 || strcmp(v[i].name, kb->name) == 0)
                found = i;
            else
                gl_nearest_offer(&near, cxxs[i]);
        }
        *line = kb->line;
        if (found < 0) {
            char list[400] = "";
            size_t o = 0;
            for (int i = 0; i < n && o + 4 < sizeof list; i++) {
                int w = snprintf(list + o, sizeof list - o, "%s%s", o ? ", " : "", cxxs[i]);
                o = w < 0 ? sizeof list : o + (size_t)w;
            }
            if (near.best)
                snprintf(msg, msglen, "symbol '%s' is not in %s (did you mean '%s'?)", kb->name,
                         base_name(k->source), near.best);
            else
                snprintf(msg, msglen, "symbol '%s' is not in %s (its __constant__ and __device__ "
                         "variables: %s)", kb->name, base_name(k->source), n ? list : "none");
            rc = -1;
            break;
        }
        long long count = 0;
        char e[200];
        if (gl_expr_value(kb->count, p, &count, e, sizeof e) != 0) {
            snprintf(msg, msglen, "symbol '%s': count '%s': %s", kb->name, kb->count, e);
            rc = -1;
            break;
        }
        size_t es = gl_ktype_size(kb->type);
        if ((size_t)count * es != v[found].size) {
            snprintf(msg, msglen, "symbol '%s': %s[%s] is %lld bytes (%lld elements), but "
                     "%s %s in %s is %zu bytes (%zu %s elements)", kb->name,
                     gl_ktype_name(kb->type), kb->count, count * (long long)es, count,
                     v[found].constant ? "__constant__" : "__device__", kb->name,
                     base_name(k->source), v[found].size, v[found].size / es,
                     gl_ktype_name(kb->type));
            rc = -1;
            break;
        }
        if (kb->output && v[found].constant) {
            snprintf(msg, msglen, "symbol '%s' is an output, but it is __constant__ in %s: a "
                     "kernel cannot write it (make it __device__)", kb->name, base_name(k->source));
            rc = -1;
            break;
        }
        if (elf)
            snprintf(elf[b], GL_KEXPR, "%s", v[found].name);
    }
    free(cxxs);
    gk_elf_vars_free(v);
    return rc;
}
