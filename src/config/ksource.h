/* ksource.h - what a kernel file's text says of its kernels, read without a
 * compiler: each __global__ function's name, template parameters and parameters
 * (type, name, pointer or scalar, const, element type), whether its body uses a
 * second dimension, the block size of its launches in the file's own host code
 * (`name<<<grid, 256>>>`, a #define or a const int), whether NVRTC can take the
 * file (gl_ks_needs_nvcc). For `gpulab init` (a starter config) and
 * `compiler = auto`.
 * Must not compile, run or open anything: it reads the text it is given. */
#ifndef GL_KSOURCE_H
#define GL_KSOURCE_H

#include <stddef.h>

#define GL_KS_NAME 64
#define GL_KS_MAXP 32   /* parameters of one kernel */
#define GL_KS_MAXT 8    /* template parameters of one kernel */

struct gl_ks_param {
    char name[GL_KS_NAME];
    char type[128];       /* as written, spaces folded: "const float *__restrict__" */
    char elem[GL_KS_NAME];/* the pointee or the scalar's type, qualifiers dropped: "float" */
    int is_ptr;
    int is_const;         /* a pointer to const (an input) */
    int written;          /* a pointer the body assigns through (name[...] = or ->) */
    int read;             /* a pointer the body reads (any other use) */
    int accumulated;      /* written by +=, -=, ... or through an atomic (&x[i], or x whole) */
};

struct gl_ks_tparam {
    char name[GL_KS_NAME];
    int is_type;          /* typename T / class T */
};

struct gl_ks_kernel {
    char name[GL_KS_NAME];
    int line;             /* of __global__ */
    int ntparams;
    struct gl_ks_tparam tparams[GL_KS_MAXT];
    int nparams;
    struct gl_ks_param params[GL_KS_MAXP];
    int two_d;            /* the body uses blockIdx.y, threadIdx.y or blockDim.y */
    long launch_block;    /* threads per block of a launch in the file (1-D), 0 unknown */
    int grid_sync_line;   /* the first grid-wide sync in its body (this_grid().sync(),
                             g.sync() or cg::sync(g) of a g bound to this_grid()), 0 none */
    char grid_sync[48];   /* that call as written, spaces dropped: "grid.sync()" */
    int cluster_dims[3];  /* __cluster_dims__(X, Y, Z) of integer literals, else 0 0 0 */
};

#define GL_KS_MAXM 16    /* macros a file requires */

struct gl_ks_file {
    int nkernels;
    struct gl_ks_kernel *kernels;   /* malloc'd, definitions only (a declaration is not one) */
    int nmacros;                    /* macros the file requires from the compiler's command */
    char macros[GL_KS_MAXM][GL_KS_NAME];  /* line: `#ifndef X` (or `#if !defined(X)`), then `#error` */
};

/* Read text (NUL-terminated). 0, or -1 with err (out of memory; a kernel with more
 * parameters than GL_KS_MAXP). A kernel file with no __global__ function is not an
 * error: nkernels is 0. */
int gl_ks_scan(const char *text, struct gl_ks_file *f, char *err, size_t errlen);
void gl_ks_free(struct gl_ks_file *f);
/* Why NVRTC cannot take a kernel file's text (a main(), a host launch <<<...>>>,
 * the runtime API called from host code, a C or C++ library header NVRTC lacks):
 * 1 with the reason in why ("main() at line 40"), or 0 when NVRTC can. */
int gl_ks_needs_nvcc(const char *text, char *why, size_t whylen);
/* gpulab's buffer type for a C element type ("float", "unsigned int", "__half",
 * "uint32_t", ...), or NULL when gpulab has none. */
const char *gl_ks_buffer_type(const char *elem);

#endif
