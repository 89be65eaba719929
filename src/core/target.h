/* target.h - the GPU code a kernel is compiled for (its target: sm_90, the
 * arch-specific sm_90a, the family-specific sm_100f) as one int, and what the
 * expressions of a config may ask of the GPU (sm_count, occupancy()).
 *
 * A target is the compute capability times 10 (90 = sm_90) plus GL_ARCH_A for
 * an arch-specific target (1090 = sm_90a: runs on compute capability 9.0 only,
 * with its own instructions: wgmma, setmaxnreg) or GL_ARCH_F for a
 * family-specific one (2100 = sm_100f: runs on 10.x from 10.0 up). That int is
 * what the kernel cache keys on and what gl_device_ops.kernel_compile is handed.
 *
 * The device values of expressions: `sm_count` is the GPU's number of SMs and
 * `occupancy(BLOCK, SMEM)` the blocks of the kernel being launched that fit on
 * one SM at BLOCK threads and SMEM bytes of dynamic shared memory (the
 * occupancy API). Whoever evaluates expressions sets them: the driver from the
 * GPU it found (or an assumed H100 SXM without one, said by `plan`), the worker
 * for each run from its device and the kernel it launches. Each value an
 * evaluation used is traced, so that a run stores the ones it was shaped by.
 * Must not call CUDA or know configs; plain C. */
#ifndef GL_TARGET_H
#define GL_TARGET_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GL_ARCH_A 1000
#define GL_ARCH_F 2000

/* "90", "sm_90", "90a", "sm_90a", "100f" into *arch: 0, or -1 with why. */
int gl_arch_parse(const char *s, int *arch, char *err, size_t errlen);
/* "sm_90a" */
void gl_arch_name(int arch, char *buf, size_t len);
/* the compute capability part: 90 for 90, 1090 and 2090 */
int gl_arch_cc(int arch);
/* 'a', 'f' or 0 */
int gl_arch_suffix(int arch);
/* NULL when code for arch runs on a GPU of compute capability major.minor,
 * else why not (written into buf). */
const char *gl_arch_mismatch(int arch, int major, int minor, char *buf, size_t len);
/* The most dynamic shared memory a block may opt in to on the GPUs of arch
 * (bytes: sm_90 227 KiB, sm_80 163 KiB, sm_86/89/120 99 KiB, sm_75 64 KiB). */
long gl_arch_smem_optin(int arch);

/* A kernel's target: its section's (kernel.h's arch, set from `arch =` or the
 * command line's --arch 90a) when it has one, else base (the GPU's compute
 * capability, or --arch / 90 without a GPU). */
int gl_arch_effective(int section_arch, int base);
/* The driver's base target without a GPU (--arch's compute capability, else
 * 90): a point's shared-memory limit in plan is its target's opt-in maximum. */
extern int gl_arch_plan_base;

/* ---- device values of expressions ---- */
typedef long long (*gl_occupancy_fn)(void *ctx, long long block, long long smem, char *err,
                                     size_t errlen);
struct gl_devvals {
    long long sm_count;          /* > 0 */
    int assumed;                 /* 1: no GPU was asked (plan says what it assumed) */
    /* per-SM limits for the estimate without a kernel: threads, blocks, shared memory */
    long long threads_per_sm, blocks_per_sm, smem_per_sm;
    gl_occupancy_fn occupancy;   /* the kernel being launched's, or NULL: the estimate */
    void *ctx;
};
/* The values expressions see from now on (copied). */
void gl_devvals_set(const struct gl_devvals *d);
const struct gl_devvals *gl_devvals_get(void);
/* An H100 SXM's: 132 SMs, 2048 threads, 32 blocks and 228 KiB per SM, assumed. */
void gl_devvals_assume(struct gl_devvals *d);
/* Blocks per SM at (block, smem): the kernel's (occupancy set) or the estimate
 * from the thread, block and shared-memory limits (registers not counted).
 * -1 with err when the shape cannot fit or the function failed. */
long long gl_devvals_occupancy(long long block, long long smem, char *err, size_t errlen);
/* The trace of device values read since the last reset: "sm_count=132,
 * occupancy(256,0)=8" ("" none). */
void gl_devvals_trace_reset(void);
void gl_devvals_trace_add(const char *name, long long value);
const char *gl_devvals_trace(void);

#ifdef __cplusplus
}
#endif

#endif
