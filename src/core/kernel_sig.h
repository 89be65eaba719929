/* kernel_sig.h - a kernel's parameters, as its lowered (mangled) name says them
 * (the Itanium C++ ABI names that NVRTC's nvrtcGetLoweredName and nvcc's cubin
 * symbols give: _Z5saxpyPfPKffi is saxpy(float *, const float *, float, int);
 * an instance of a template carries its parameters' types too:
 * _Z5axpbyIfEviT_PKS0_S0_PS0_), their names from the source text, and the check
 * of a kernel section's `args` against them (count, pointer or scalar, the
 * scalar's type, a pointer's element type), run where the lowered name is
 * known: the GPU plugin's compile (plan time, and the worker's own).
 * Must not know about configs beyond struct gl_kernel, nor compile anything;
 * a name it cannot read (extern "C", a construct it does not know) is no
 * error: the check is then not made. */
#ifndef GL_KERNEL_SIG_H
#define GL_KERNEL_SIG_H

#include <stddef.h>

#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GL_KSIG_MAX 64        /* parameters of one kernel */
#define GL_KSIG_TYPE 128      /* a parameter's type as C++ writes it, and its NUL */
#define GL_KSIG_NAME 64       /* a parameter's name from the source, and its NUL */

/* The start of a compile log that is a failed `args` check, not the compiler's
 * (the plan reports it on the `args` line of the config). */
#define GL_KSIG_LOG_MARK "gpulab: args check: "

struct gl_ksig_param {
    char type[GL_KSIG_TYPE];  /* "const float *", "int", "__half" */
    int pointer;              /* 1: a pointer (or reference) */
    int elem;                 /* a scalar's type or a pointer's element type (enum
                                 gl_ktype), -1 when gpulab has none for it */
};

struct gl_ksig {
    char name[GL_KSIG_TYPE];  /* "saxpy", "ns::k2" */
    int nparams;
    struct gl_ksig_param params[GL_KSIG_MAX];
};

/* Read an Itanium-mangled function name: 0 with *sig, or -1 when it is not one
 * or uses what this reader does not know. */
int gl_ksig_parse(const char *lowered, struct gl_ksig *sig);

/* The names of the nparams parameters of the __global__ function func (its
 * unqualified name) in the source text: 1 with names[i] ("" where a parameter
 * has none), or 0 when no such definition is found (names all ""). */
int gl_ksig_names(const char *text, const char *func, int nparams,
                  char names[][GL_KSIG_NAME]);

/* Check k's args at point p against sig (names: gl_ksig_names'), the kernel
 * called `display` in messages (its name expression, saxpy<float>): 0, or -1
 * with the first mismatch in msg ("args: 3rd argument 'int N' but saxpy's 3rd
 * parameter is float a"). */
int gl_ksig_check(const struct gl_kernel *k, const struct gl_params *p, const char *display,
                  const struct gl_ksig *sig, char names[][GL_KSIG_NAME], char *msg,
                  size_t len);

/* All three for k's kernel compiled as `lowered` at p: 0 (matches, or cannot
 * be checked: an unreadable name, or a kernel without an `args` line,
 * k->args_line 0), or -1 with msg. */
int gl_ksig_check_lowered(const struct gl_kernel *k, const struct gl_params *p,
                          const char *display, const char *lowered, char *msg, size_t len);

#ifdef __cplusplus
}
#endif

#endif
