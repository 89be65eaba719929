/* harness_int.cuh - what the harness's own files (harness_*.cu) share and the
 * families must not see: the harness state (the device, stickiness, the flush
 * buffer), the pages the replay flush touches, and each step of a run that
 * gh_execute strings together. Each step fills j->r (through gh_ok / gh_skip /
 * gh_fail) and returns 1 when the run can go on, 0 when it cannot.
 * Must not be included by a family (matmul.cu ...) or by the plugin entry. */
#ifndef GL_HARNESS_INT_CUH
#define GL_HARNESS_INT_CUH

#include "gpu_harness.cuh"

#include <stdlib.h>
#include <string.h>

#define GH_MEM_MARGIN (64ull << 20)   /* device memory left free beyond a run's buffers */

/* The harness state: one device per worker process (harness_device.cu). */
struct gh_state {
    int ready;                /* gh_device_set succeeded */
    int ordinal;
    struct gl_device dev;
    int reserved_smem;        /* shared memory the driver reserves per block, bytes */
    int sticky;               /* a sticky error made the context unusable */
    int passes;               /* current profiler configuration; <= 0: none */
    float4 *flush_buf;        /* 2 x L2, read by the flush kernel */
    size_t flush_n4;
    float *flush_sink;        /* the one word the flush kernel may write */
    double flush_ms;          /* one L2 flush, timed when the buffer was made */
};

extern struct gh_state gh_st;

/* Words whose pages the next profiled run uses, one per 2 MiB page. Reading
 * 100 MB of flush buffer also evicts the address translations of the run's
 * buffers, which ncu's cache invalidation leaves in place (its replay keeps the
 * kernel's pages mapped and hot): the first accesses of a 5-10 us kernel then
 * pay for page walks: over the smoke kernels gpulab's durations were a median
 * 1.9 % above ncu's without this and 0.7 % with it (H100, the same ncu records,
 * 5 processes each side, buffers padded so that the touched word lay outside
 * them; 2-3 % on the 128^2 global and 100x90x70 naive matmuls).
 * Each block reading the first word of every page puts the translations back on
 * every SM.
 * The price: that word's sector is in L2 when the run starts, one L2 hit and
 * 32 bytes of DRAM read less per page (1 in 2,048 sectors of a 64 KiB buffer,
 * 1 in 65,536 of a large one). Padding buffers to touch outside them was tried
 * and dropped: it moves where buffers land, which alone shifts a small
 * kernel's time by a few percent. */
#define GH_TOUCH_MAX 32
#define GH_PAGE ((size_t)2 << 20)
struct gh_touch {
    const float *p[GH_TOUCH_MAX];
    int n;
};

/* harness_errors.cu */
double gh_now_s(void);   /* monotonic seconds */

/* harness_flush.cu */
/* Enqueue one flush: code = also evict the instruction caches (the replay's);
 * touch = NULL or the next run's pages. */
cudaError_t gh_flush_enqueue(int code, const struct gh_touch *touch);
/* Add b's device pages to t (device memory only). */
void gh_touch_add(struct gh_touch *t, const struct gh_buf *b, enum gh_mem mem);
/* Allocate the flush buffer once per process and flush once. */
int gh_flush_ready(struct gl_result *r);

/* harness_resources.cu */
/* Registers, shared memory, occupancy and the blocks/SM each resource allows, into j->r. */
int gh_resources(struct gh_job *j);
/* GL_GUIDE_* flags of one launch shape. */
int gh_guidance(dim3 grid, dim3 block, int sm_count);

/* 1 when the environment variable var is value (a harness's switch:
 * GPULAB_COPIES=each and GPULAB_SMEM=each do for every run what is otherwise
 * done once, GPULAB_LIB_RANGES=user counts no library call's kernels); read
 * once into *cached, which starts at -1. */
static inline int gh_env_is(const char *var, const char *value, int *cached)
{
    if (*cached < 0) {
        const char *e = getenv(var);
        *cached = e && strcmp(e, value) == 0;
    }
    return *cached;
}

/* harness_buffers.cu */
/* GPULAB_PAD in bytes: 0 when unset, -1 when not a byte count. */
long long gh_pad_bytes(void);
/* 1 when zero-copy buffers are kept in the pool (not under GPULAB_POOL=0). */
int gh_pool_zerocopy_on(void);
/* count elements of esize bytes (0 = float). */
int gh_buf_alloc(struct gl_result *r, struct gh_buf *b, size_t count, size_t esize,
                 enum gh_mem mem, int host_copy);
/* The pinned staging buffer, at least bytes long (grown as needed, kept for
 * the process): timed copies whose contents do not matter go through it, and
 * the host copies a keyed reference reads (harness_expected.cu). NULL + r. */
void *gh_staging_get(struct gl_result *r, size_t bytes);
/* Free the pinned staging buffer (at shutdown). */
void gh_staging_free(void);   /* with the buffer pool and the run events */
/* The worker's run events (created once). 1, or 0 with r failed. */
int gh_events(struct gl_result *r, cudaEvent_t *e0, cudaEvent_t *e1);
/* Free every pooled buffer (harness_buffers.cu: runs of one size reuse them). */
void gh_pool_trim(void);
/* Device memory the pool holds, bytes. */
size_t gh_pool_device_bytes(void);
/* Bytes of every input and output of the job. */
size_t gh_job_bytes(const struct gh_job *j);
void gh_buf_free(struct gh_buf *b, enum gh_mem mem);
/* The run's device memory fits in what is free (else skipped). */
int gh_memory_fits(struct gh_job *j);
int gh_elapsed_ms(struct gl_result *r, cudaEvent_t a, cudaEvent_t b, double *ms);
/* Inputs to the device, timed into r->h2d_ms (*device_ms: the device's time
 * spent, 0 where the transfer's time was known and it was not made). */
int gh_copy_inputs(struct gh_job *j, cudaEvent_t e0, cudaEvent_t e1, double *device_ms);
/* harness_lend.cu: a built-in family's zero-copy buffers shared while parked.
 * Borrow j's input (output = 0) or output k from a parked run: 1 when it did
 * (the buffer is set; an input holds its values), 0: allocate it. */
int gh_lend_borrow(struct gh_job *j, int output, int k);
/* Lend the buffers of j, a parked run (its own copy), to later runs. */
void gh_lend_park(struct gh_job *j);
/* For gh_buf_free: 1 when b was lent and other runs still hold it (b is
 * cleared); 0 when its memory is to be given back as usual. */
int gh_lend_release(struct gh_buf *b);
/* At shutdown, under GPULAB_LEND_TRACE: how many buffers were borrowed. */
void gh_lend_report(void);
/* Output pages to the device (managed only; untimed). */
int gh_place_output(struct gh_job *j);
/* A built-in family's managed buffers made ready: inputs made from the seed
 * and placed on the host, outputs placed on the device, in bulk, outside the
 * timed copies; the device's time for it (the generation and the page moves,
 * between events e0 and e1) into *ms (0 for other runs). 1, or 0 (r says why). */
int gh_managed_prepare(struct gh_job *j, cudaEvent_t e0, cudaEvent_t e1, double *ms);
/* Output to the host, timed into *ms (*device_ms as for the inputs). */
int gh_copy_output(struct gh_job *j, cudaEvent_t e0, cudaEvent_t e1, double *ms,
                   double *device_ms);

/* harness_measure.cu */
/* Check the outputs on the device (a mismatch: status wrong). The first
 * check also times the copy back into d2h_ms. */
int gh_check_output(struct gh_job *j, cudaEvent_t e0, cudaEvent_t e1);
/* The verification run on a NaN-poisoned output (a user's job's as it starts),
 * event-timed after the flush when cold; checked. When it alone lasted the
 * time cap it is the run's one sample (*long_run set). */
int gh_verify_run(struct gh_job *j, cudaEvent_t e0, cudaEvent_t e1, int *long_run);
/* Warm-up, then timed samples until the timing policy is met. */
int gh_timed_samples(struct gh_job *j, cudaEvent_t e0, cudaEvent_t e1, double since);

/* harness_integrity.cu */
/* Reset the persisting-L2 lines when the set-aside is not 0 (before a timed
 * launch). 1, or 0 with j->r failed. */
int gh_l2_persist_reset(struct gh_job *j);
/* Append a GL_INTEGRITY_* token to r->integrity (once). */
void gh_integrity_add(struct gl_result *r, const char *token);
/* The checks of a run timed by gh_timed_samples, into j->r->integrity. */
void gh_integrity_note(struct gh_job *j);

/* harness_energy.cu */
/* The run's energy window (energy.h) after its checked samples: r->energy_j
 * and avg_power_w, or energy_reason. 1, or 0 with j->r failed (a launch). */
int gh_energy_window(struct gh_job *j);

/* harness_check.cu */
/* Blocks of 256 threads for a grid-stride loop over n elements: enough to
 * fill the GPU (8 per SM), fewer for small n. */
unsigned gh_stride_blocks(size_t n);
/* j->ref_dev from the device reference cache, or computed by j->devref. */
int gh_devref_get(struct gh_job *j);
/* Free every cached device reference (memory is short, or shutdown), or every
 * one but keep (the reference of the run being made). */
void gh_devref_release(void);
void gh_devref_trim(const double *keep);
/* Check j->out[0] on the device (j->check_dev): a mismatch makes the run wrong
 * with gl_verify_full's summary; 0 only on a CUDA error. */
int gh_check_device(struct gh_job *j);
void gh_check_shutdown(void);

/* harness_typed.cu: a user's job (j->typed) */
/* Make the inputs and reset images: on the host where the kernel reads host
 * memory or the reference reads them there (on_device 0, before the copy),
 * else on the device (on_device 1, after the timed copy). */
int gh_typed_fill(struct gh_job *j, int on_device);
/* Check every output on the device against T->want (or that it was written). */
int gh_typed_check(struct gh_job *j);
/* Device bytes the expected outputs will take (0 once they are allocated). */
size_t gh_typed_want_bytes(const struct gh_job *j);
/* Free the expected outputs. */
void gh_typed_release(struct gh_job *j);

/* harness_restore.cu: what goes back before every run (j->restore) */
/* After the inputs are made on the device: each input's pristine copy made,
 * and the list of what goes back (outputs with an init, inputs, symbols). 1, or
 * 0 with j->r set. */
int gh_restore_plan(struct gh_job *j);
/* Enqueue j->restore (copies and memsets, no kernel). Safe on a parked job. */
cudaError_t gh_restore_enqueue(const struct gh_job *j);
/* 1 when j's restore writes j's own memory only (its buffers and arrays), none
 * of a module's variables, which the module's other parked runs use too: the
 * profiler may then put it back at each pass's start (glc_replay.restore_early). */
int gh_restore_private(const struct gh_job *j);
/* After the verification run: the inputs the kernel left as they were are not
 * restored again (their pristine copies freed). 1, or 0 with j->r set. */
int gh_restore_prune(struct gh_job *j);
/* Enqueue the copies of the output symbols into their j->out buffers. */
cudaError_t gh_symbols_collect(struct gh_job *j);

/* harness_expected.cu: the expected outputs of keyed host references */
/* For a job with a want_key (before its buffers are allocated): the expected
 * outputs from the cache (want_ready), or their device memory allocated for
 * the reference to fill. 1, or 0 with j->r skipped (no memory) or failed. */
int gh_expected_get(struct gh_job *j);
/* Device bytes gh_expected_get will allocate for j (0: none, or cached). */
size_t gh_expected_need(const struct gh_job *j);
/* Free every cached entry but the one keep uses (NULL: every one). */
void gh_expected_trim(const struct gh_typed *keep);
void gh_expected_release(void);
/* Free the host reference's view (pageable, kept for the process). */
void gh_expected_view_free(void);

/* harness_batch.cu */
/* Profile jobs[0..n) together now (n <= GLC_BATCH_MAX). */
void gh_profile_jobs(struct gh_job *const *jobs, int n);
/* Keep j, buffers and all, for the open batch: 1 when parked. */
int gh_park(struct gh_job *j);
/* Profile the parked runs now if j's buffers would not fit next to them. */
void gh_batch_make_room(const struct gh_job *j);
void gh_spacer_free(struct gh_job *j);

#endif
