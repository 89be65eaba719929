/* kernel_int.cuh - what the files of users' kernels share (kernel_compile.cu:
 * keys, groups and the kernel cache; kernel_nvrtc.cu and kernel_nvcc.cu: the
 * two compilers; kernel_elf.cu: a cubin's kernels; kernel_run.cu: loading,
 * launching and verifying; kernel_sequence.cu: launch sequences): a kernel as compiled for one point (its cache
 * files and lowered name), one compilation of several name expressions, and
 * the integer value of a config expression at a point.
 * Must not be included by a built-in family or by the harness's own files. */
#ifndef GL_KERNEL_INT_CUH
#define GL_KERNEL_INT_CUH

#include <stddef.h>

extern "C" {
#include "gpulab.h"
#include "kernel.h"
#include "params.h"
#include "target.h"
#include "userkernel.h"
}

#define GK_DIR 1024    /* a folder's path */
#define GK_PATH 1200   /* a file's path in such a folder */
#define GK_LOWERED 1024   /* a lowered (mangled) name and its NUL */

/* One variant's kernel compiled for one point and arch: where the cache keeps it. */
struct gk_built {
    char cubin[GK_PATH];      /* <cache>/<program key>.cubin */
    char lowered[GK_LOWERED]; /* the lowered (mangled) name of the name expression */
    char expr[GL_KEXPR];      /* the name expression after substitution */
};

/* From now on in this process, each kernel's user headers are scanned once (by
 * its source, folder, options and text), not at every gk_build: the worker's
 * runs, which use what the sweep planned. */
void gk_build_keep_deps(void);
/* Compile kv at p for sm_<arch> into the kernel cache, or find it there; fill b.
 * 1 = from the cache, 0 = compiled now, -1 = error with the compiler's log (or
 * why not) in log; -2 = the same for an option the compiler refused. Needs no
 * device. */
int gk_build(const struct gl_kernel_variant *kv, const struct gl_params *p, int arch,
             struct gk_built *b, char *log, size_t loglen);

/* The same for n variants at their points (kvs[i] at ps[i]): those that share
 * source, -D list, options, compiler and arch are compiled as one program with
 * several name expressions; res[i] gets each one's 1 (cache), 0 (compiled) or
 * -1 (failed, or not reached after a failure). Returns 0, or -1 / -2 as
 * gk_build with the first failing variant's log (in order). */
int gk_build_many(const struct gl_kernel_variant *const *kvs, const struct gl_params *const *ps,
                  int n, int arch, int *res, char *log, size_t loglen);

/* One compilation: a section's source with its options (-I the source's
 * folder, the -D list, the section's own), several name expressions. */
struct gk_compile {
    const struct gl_kernel *k;
    int arch;                     /* sm_<arch> */
    const char *const *opts;
    int nopts;
    const char *const *exprs;
    int nexprs;
};

/* kernel_nvrtc.cu: NVRTC's version as key text ("nvrtc 13.0"); 0, or -1 + log. */
int gk_nvrtc_version(char *out, size_t len, char *log, size_t loglen);
/* Compile c with NVRTC (program name = the source's path, so its log reads
 * `path(line): error ...`; the toolkit's include and CCCL folders on the
 * include path): *cubin (malloc'd) and lowered[i] for each expression. 0, -1
 * with the log (a missing C/C++ library header gets a hint), or -2 with the log
 * of an option NVRTC refused. */
int gk_nvrtc_compile(const struct gk_compile *c, char **cubin, size_t *len,
                     char (*lowered)[GK_LOWERED], char *log, size_t loglen);

/* kernel_nvcc.cu: the toolkit's nvcc's version as key text ("nvcc ... V13.0.88");
 * 0, or -1 + log (no nvcc found: where it looked). */
int gk_nvcc_version(char *out, size_t len, char *log, size_t loglen);
/* Compile c with nvcc -cubin through a generated wrapper that includes the
 * source and takes each expression's address; the lowered names are found in
 * the cubin's symbols. Returns as gk_nvrtc_compile. */
int gk_nvcc_compile(const struct gk_compile *c, char **cubin, size_t *len,
                    char (*lowered)[GK_LOWERED], char *log, size_t loglen);

/* kernel_elf.cu: the names of the kernels (global function symbols) of an
 * ELF64 cubin, as a malloc'd array of malloc'd names (*n of them; free with
 * gk_elf_free). 0, or -1 with err (not an ELF64 file, cut short). */
int gk_elf_kernels(const char *data, size_t len, char ***names, int *n, char *err,
                   size_t errlen);
void gk_elf_free(char **names, int n);

/* The __constant__ and __device__ variables of a cubin: object symbols in a
 * .nv.constantN (N > 0) or .nv.global* section, by their symbol names (a
 * namespace's mangled: _ZN2ns5tableE), with st_size. 0 (a malloc'd array, *n of
 * them: free with gk_elf_vars_free), or -1 with err. */
struct gk_elf_var {
    char name[GL_KEXPR];
    size_t size;               /* bytes */
    int constant;              /* 1: __constant__, 0: __device__ */
};
int gk_elf_vars(const char *data, size_t len, struct gk_elf_var **out, int *n, char *err,
                size_t errlen);
void gk_elf_vars_free(struct gk_elf_var *v);

/* kernel_symbols.cu: a kernel section's symbols (kernel.h gl_kbuffer.symbol)
 * against the variables of the cubin that holds its kernel, at point p: each
 * must name one (plain, or qualified as ns::table), be as large as its buffer,
 * and be a __device__ variable if it is an output. 0; or -1 with *line the
 * offending buffer's config line and the message in msg ("symbol 'c_Kernel' is
 * not in conv.cu (did you mean 'c_kernel'?)"); or -2 with msg when the cubin
 * cannot be read. elf[b] (NULL: not wanted) gets each symbol's name in the
 * cubin, for cudaLibraryGetGlobal. */
int gk_symbols_check(const struct gl_kernel *k, const struct gl_params *p, const char *cubin,
                     int *line, char (*elf)[GL_KEXPR], char *msg, size_t msglen);

/* The integer value of a config expression (expr.h) at p: 0, or -1 with err. */
int gk_value(const char *expr, const struct gl_params *p, long long *out, char *err,
             size_t errlen);

/* kernel_run.cu, for kernel_sequence.cu: kv's kernel at p compiled (or taken
 * from the cache) and loaded, its name expression as compiled in expr; a
 * scalar argument's value converted to its type, as bytes. 1, or 0 with r
 * failed or skipped. */
int gk_kernel_load(struct gl_result *r, const struct gl_kernel_variant *kv,
                   const struct gl_params *p, const void **kernel, char *expr, size_t len);
int gk_scalar_bytes(struct gl_result *r, int i, const struct gl_karg *ka,
                    const struct gl_params *p, unsigned long long *out);

/* kernel_sequence.cu: a launch sequence (launches.h) as a job. gk_seq_prepare
 * makes every launch of kv's sequence at j->p (kernels loaded, shapes checked,
 * arguments evaluated; buffers as T lays them out), into *out (freed with
 * gk_seq_free, also when it fails), and sets j's kernel, shape and launches
 * (the first launch's shape; all of them); gk_seq_reference the reference
 * variant ref's kernels for the launches that run `variant`; gk_seq_enqueue
 * enqueues every launch (ref: with those), gk_seq_enqueue_one launch k alone.
 * 1, or 0 with j->r skipped or failed. */
struct gh_job;
struct gh_typed;
struct gk_seq;
int gk_seq_prepare(struct gh_job *j, const struct gl_kernel_variant *kv, const struct gh_typed *T,
                   struct gk_seq **out);
int gk_seq_reference(struct gh_job *j, const struct gl_kernel_variant *kv,
                     const struct gl_kernel_variant *ref, struct gk_seq *q);
cudaError_t gk_seq_enqueue(struct gh_job *j, const struct gk_seq *q, int ref);
cudaError_t gk_seq_enqueue_one(struct gh_job *j, const struct gk_seq *q, int k);
void gk_seq_free(struct gk_seq *q);

/* kernel_objects.cu: a section's arrays, textures, surfaces and tensor maps for
 * the job j at j->p (kernel.h struct gl_kobject). gk_objects_prepare runs after
 * gh_typed_layout: T's arrays get their cudaArray and extent, textures and
 * surfaces over arrays are made, tensor maps evaluated and checked (kobject.h);
 * 1, or 0 with j->r skipped or failed (*out is set either way: free it with
 * gk_objects_free). gk_objects_arg is object i's bytes as a kernel argument (a
 * texture's or surface's handle, a CUtensorMap), made from the buffers' device
 * pointers of j when they are new; NULL with j->lib_err on a failure. */
struct gk_objs;
int gk_objects_prepare(struct gh_job *j, const struct gl_kernel *k, struct gh_typed *T,
                       struct gk_objs **out);
const void *gk_objects_arg(struct gh_job *j, struct gk_objs *q, int i);
void gk_objects_free(struct gk_objs *q);

#endif
