/* kernel.h - a user's kernel section, as a config declares it and the GPU plugin
 * runs it: a CUDA source file of plain __global__ functions (no gpulab header)
 * and what Kernel Tuner's tune_kernel takes - buffers, the argument list, the
 * launch shape, the parameters passed to the compiler, how to verify, and the
 * FLOP and byte counts. Every size is an expression of the config's language
 * (expr.h) over the point's parameters, built-in and named (gl_params.user),
 * evaluated per point by whoever needs the number. The config reader fills it
 * (src/config/config_kernel.c); the driver declares one variant per kernel
 * (struct gl_kernel_variant); the GPU plugin compiles and runs it.
 * Plain C, no CUDA types; must not hold anything that is not in the config or
 * the source (the plugin derives the rest). */
#ifndef GL_KERNEL_H
#define GL_KERNEL_H

#include "ktype.h"   /* the element types' names and sizes */
#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GL_KERNEL_MAX_BUFFERS 16
#define GL_KERNEL_MAX_ARGS 32
#define GL_KERNEL_MAX_DEFINES GL_MAX_UPARAMS
#define GL_KEXPR 256          /* an expression's text and its NUL */
#define GL_KNAME 64           /* a buffer's or a kernel's name and its NUL */
#define GL_KERNEL_MAX_OPTIONS 32
#define GL_KOPTION 1100       /* one compiler option and its NUL (-I and an absolute folder) */

/* Which compiler builds a section's kernels (`compiler =`). */
enum gl_kcompiler {
    GL_KC_NVRTC,              /* the default: NVRTC, in process */
    GL_KC_NVCC                /* the toolkit's nvcc -cubin, for files NVRTC cannot take */
};

/* Element and scalar types (enum gl_ktype) and what a buffer holds before a run
 * (enum gl_kinit) are in plugin.h: users' plugins describe buffers with them too.
 * Their config names and sizes are ktype.h's. */

struct gl_kseq;   /* a launch sequence: launches.h */

struct gl_kbuffer {
    char name[GL_KNAME];
    enum gl_ktype type;
    char count[GL_KEXPR];         /* elements, an expression */
    enum gl_kinit init;
    double value;                 /* GL_KI_CONST */
    int output;                   /* written by the kernel and compared with the reference */
    int unordered;                /* `output unordered`: compared as a multiset (both sides
                                     sorted, then element by element), for outputs whose
                                     order the kernel's atomics choose */
    int stream;                   /* random stream of a GL_KI_RANDOM, _RANDINT or _NORMAL
                                     buffer (declaration order) */
    int line;                     /* config line that declared it */
    /* the inits with two numbers (src/config_kinit.c): random(lo, hi) has value =
     * lo, value2 = hi (plain random: 0, 1); randint(lo, hi) the same (integers in
     * [lo, hi)); normal(mu, sigma) value = mu, value2 = sigma */
    double value2;
    /* randint's bounds as expressions over the point's parameters
     * (randint(0, VOCAB)): "" where value / value2 holds a number; evaluated per
     * point by gl_kbuffer_range (kinit.h) */
    char bound[2][GL_KEXPR];
    /* GL_KI_FILE: file(PATH), PATH as found from the config's folder, its size
     * and the sha256 (hex) of its contents (part of hash and of a C reference's key) */
    char file[1024];
    long long file_bytes;
    char file_hash[65];
    /* `symbol.NAME = ...` instead of `buffer.NAME`: not a cudaMalloc'd buffer passed
     * in args but the module's __constant__ or __device__ variable NAME, set from
     * the buffer's contents before every run (an output: a __device__ variable,
     * read back to be verified). Its size must be the variable's (checked when
     * plan compiles: experiments/gpu/kernel_symbols.cu). */
    int symbol;
    char tparam[GL_UPARAM_NAME];  /* its type is this type parameter's at the point ("" =
                                     type); read it with gl_ktype_at (scalar.h) */
    /* `array.NAME = TYPE[W, H] ...` instead of `buffer.NAME`: a cudaArray of nextent
     * (1..3) dimensions, extent[0] the width in elements; count is their product.
     * The buffer holds its contents (made, reset and checked as any buffer's),
     * copied into the array before every run; an output array is copied back
     * before it is checked. The kernel reaches it through a texture or a surface
     * (struct gl_kobject), never as an argument. */
    int array;
    int nextent;
    char extent[3][GL_KEXPR];
};

/* What a kernel reaches through a handle passed by value (kobject.h has the
 * rules and the names): a TMA descriptor (`tensormap.NAME`, a 128-byte
 * CUtensorMap built with cuTensorMapEncodeTiled from a buffer's device pointer
 * at each run), a texture object (`texture.NAME`, over an array or a buffer) or
 * a surface object (`surface.NAME`, over an array): cudaTextureObject_t and
 * cudaSurfaceObject_t, 8 bytes each. */
#define GL_KERNEL_MAX_OBJECTS 8
#define GL_TMAP_RANK 5

enum gl_kobj_kind { GL_KO_TENSORMAP, GL_KO_TEXTURE, GL_KO_SURFACE };

struct gl_kobject {
    char name[GL_KNAME];
    int kind;                     /* enum gl_kobj_kind */
    int line;                     /* the config line that declared it */
    int source;                   /* the buffer or array it is over (index into buffers) */
    /* a tensor map: the driver's enum values (CUtensorMapDataType ...), its rank and
     * its sizes as expressions, innermost dimension first as the driver takes them */
    int dtype;                    /* -1: from the buffer's type at the point */
    int rank;
    char dims[GL_TMAP_RANK][GL_KEXPR];       /* elements */
    char strides[GL_TMAP_RANK][GL_KEXPR];    /* bytes, of dimensions 1 .. rank-1 ([0]
                                                unused; "" = packed) */
    char box[GL_TMAP_RANK][GL_KEXPR];        /* elements */
    int elem_strides[GL_TMAP_RANK];
    int interleave, swizzle, l2, fill;
    /* a texture: filter 0 point, 1 linear; address mode per dimension (cudaAddressMode:
     * 0 wrap, 1 clamp, 2 mirror, 3 border); normalised coordinates; read mode
     * 1: normalised float (8- and 16-bit integers read as [0, 1] or [-1, 1]) */
    int filter;
    int address[3];
    int normalized;
    int read_normalized;
};

struct gl_karg {
    int buffer;                   /* index into buffers, or -1 for a scalar or an object */
    int object;                   /* 1 + index into objects (a tensor map, texture or
                                     surface: its handle passed by value), or 0 */
    enum gl_ktype type;           /* the scalar's type */
    char expr[GL_KEXPR];          /* the scalar's value (scalar.h: C's floating expressions
                                     for a floating type, the integer language else) */
    char tparam[GL_UPARAM_NAME];  /* as gl_kbuffer's: a type parameter's name, or "" */
};

struct gl_kernel {
    char source[1024];            /* the .cu file, as found from the config's folder */
    int source_line;              /* the config line that named it */
    char *text;                   /* its contents, owned */
    char hash[65];                /* sha256 (hex) of the source, the user headers it
                                     includes (src/core/deps.h) and the section's text:
                                     part of every run's resume key */
    int all_defines;              /* `defines = all`: every parameter of the point */
    int ndefines;
    char defines[GL_KERNEL_MAX_DEFINES][GL_UPARAM_NAME];  /* passed as -D NAME=value */
    int nbuffers;
    struct gl_kbuffer buffers[GL_KERNEL_MAX_BUFFERS];
    int nargs;
    struct gl_karg args[GL_KERNEL_MAX_ARGS];
    int nobjects;
    struct gl_kobject objects[GL_KERNEL_MAX_OBJECTS];
    int args_line;                /* the config line of `args` (its plan-time check's errors) */
    int ngrid, nblock;            /* 1..3 expressions each */
    char grid[3][GL_KEXPR], block[3][GL_KEXPR];
    char smem[GL_KEXPR];          /* dynamic shared memory bytes ("" = 0) */
    char verify[GL_KNAME];        /* the variant whose outputs are the reference ("" = none) */
    /* `verify = c:FILE:FUNC`: the expected outputs come from a C function instead
     * (then verify is "" and no variant is the reference). FILE is relative to the
     * config's folder: a .c file gpulab compiles (cc -O2 -shared -fPIC -fopenmp
     * -DGL_CREF_BUILD -I <gpulab's src/core>) into the kernel cache as <cache>/cref2-<sha256 of the
     * source>.so, at plan/run time in the compile child, or a .so used as is. Its
     * function (gl_kernel_cref_fn) is called in the worker with the host copy of
     * every buffer. verify_c_so is computed when the config is read, before the
     * worker is forked, so that the worker can dlopen it. */
    char verify_c_path[1024];     /* FILE as found from the config's folder ("" = none) */
    char verify_c_so[1200];       /* the .so to load: verify_c_path or the cached build */
    char verify_c_func[GL_KNAME]; /* FUNC */
    char verify_c_hash[65];       /* sha256 (hex) of FILE's contents (folded into hash) */
    int verify_c_compile;         /* 1: verify_c_path is C source to compile */
    int verify_line;              /* the config line of `verify` */
    int verify_none;              /* `verify = none`: outputs nothing can check are stored
                                     with check_method 'none' (not verified) */
    int verify_cross;             /* verify names a variant of another section (its own
                                     kernel: own shape, compiled with its own defines) */
    /* What the C reference reads of the point besides its buffers: `verify_reads
     * = PER, N` names them (they count as read; the reference is handed only
     * those, the other parameters unset: experiments/cref.h). Without the key a
     * C reference reads every parameter (verify_reads_all). */
    int verify_reads_all;
    unsigned verify_reads_params; /* GL_PBIT() of the built-in ones named */
    int nverify_reads;            /* the named parameters named */
    char verify_reads[GL_MAX_UPARAMS][GL_UPARAM_NAME];
    double tolerance;             /* relative; 0 = the built-in default */
    char flops[GL_KEXPR], bytes[GL_KEXPR];   /* "" = not given (stored as NULL) */
    /* `options =`: extra compiler options, split like a shell splits words; an
     * include folder (-I DIR, -IDIR, --include-path[=]DIR) becomes one option
     * -I<DIR made absolute from the config's folder>. Passed after gpulab's own
     * options and the -D list; part of the cache key (as written) and, as a
     * line of the section, of hash. */
    char options_text[1024];      /* the value as written ("" = none) */
    int options_line;             /* its config line (0 = none) */
    int noptions;
    char options[GL_KERNEL_MAX_OPTIONS][GL_KOPTION];
    int compiler;                 /* enum gl_kcompiler (`compiler =`) */
    int compiler_line;            /* 0: no `compiler =` line, gpulab chose (compiler_why) */
    char compiler_why[128];       /* without `compiler =`: why nvcc ("main() at line 40"), or
                                     "" for NVRTC, the first choice */
    char config_dir[1024];        /* the config's folder, absolute: user headers are named
                                     relative to it in hash and in the cache key ("" = the
                                     source's folder) */
    struct gl_kseq *seq;          /* `launch.NAME` lines (launches.h), owned; NULL: one
                                     launch of grid, block, smem and args */
    /* How the one launch is made (docs/kernels.md, launches for today's GPUs):
     * `launch = cooperative` (cudaLaunchKernelEx with the cooperative attribute:
     * grid.sync() works; the grid must be co-resident), `cluster = X, Y, Z`
     * (expressions: blocks per thread-block cluster, launched with the cluster
     * attribute), `arch = 90a` (the target, target.h; 0 = the GPU's own, or the
     * command line's --arch). */
    int cooperative;
    int launch_line;              /* the line of `launch =` (0: none) */
    int ncluster;                 /* 0: no `cluster =` */
    char cluster[3][GL_KEXPR];
    int cluster_line;
    int arch;                     /* target.h's int, 0 = not set */
    int arch_line;
};

/* A C reference (`verify = c:FILE:FUNC`): from the inputs, the expected
 * outputs. in[i] is the host copy of the section's i-th buffer in declaration
 * order (inputs with their contents; outputs as they are before the run:
 * poisoned - all bits set, NaN for floats - or their init), expected[k] the
 * k-th output buffer's expected values in double (its element count of them,
 * NaN on entry: an element left so fails). Returns 0, or -1 with a reason in
 * err (the run fails). p holds the parameters the section says the reference
 * reads (`verify_reads`; all of them without that key), the others unset
 * (GL_UNSET): p->n, ..., and p->user[0..p->nuser), the named ones (name,
 * value): read them with gl_param_value(p, "TILE") (plugin.h). Its expected
 * outputs are computed once per distinct key (experiments/cref.h: the
 * reference, the buffers, the seed and what it reads) and reused by every run
 * with that key, so it must depend on nothing else. Runs in the worker; may use
 * OpenMP. */
typedef int (*gl_kernel_cref_fn)(const struct gl_params *p, const void *const *in,
                                 double *const *expected, char *err, size_t errlen);

/* One kernel of a section as a variant: the registry and the jobs hold &kv->v. */
struct gl_kernel_variant {
    struct gl_variant v;          /* first member: (struct gl_kernel_variant *)v is valid */
    const struct gl_kernel *k;
    char family[GL_KNAME];        /* the section's family (its `family`, or the section name) */
    char name[GL_KNAME];          /* the variant's name */
    char expr[GL_KEXPR];          /* the kernel: a function name, or a template-id whose
                                     arguments are parameters (tiled<TILE, BLOCK_ROWS>) */
    const struct gl_kernel_variant *reference;   /* k->verify's variant, or NULL */
};

#ifdef __cplusplus
}
#endif

#endif
