/* harness_execute.cu - one run from start to end, in the order every family's
 * run shares: the plugin-level checks and the variant's own check (gh_begin),
 * then resources, reference, allocate, fill, copy, verify, time, profile (or
 * park), free (gh_execute), noting how long each phase took.
 * Must not contain the steps themselves: they live in the other harness_*.cu. */
#include "harness_int.cuh"

#include <stdio.h>
#include <stdlib.h>

extern "C" {
#include "reference.h"
}

int gh_begin(const struct gl_variant *v, const struct gl_params *p, const struct gl_timing *t,
             struct gl_result *r)
{
    char buf[GL_REASON_MAX];
    gh_result_init(r);
    if (!v || !p || !t)
        return gh_fail(r, "internal: run without variant, parameters or timing policy");
    if (!gh_st.ready)
        return gh_fail(r, "GPU not initialised");
    if (gh_st.sticky) {
        gh_fail(r, "CUDA context unusable after an earlier error");
        return -1;
    }
    const char *why = v->check ? v->check(v, p, &gh_st.dev, buf, sizeof buf) : NULL;
    if (why)
        return gh_skip(r, "%s", why);
    return 1;
}

int gh_run(const struct gl_variant *v, const struct gl_params *p, const struct gl_timing *t,
           struct gl_result *r)
{
    union {
        unsigned char bytes[GH_CTX_MAX];
        long double align;
        void *ptr;
    } ctx;
    struct gh_job j = {};
    int go = gh_begin(v, p, t, r);
    if (go <= 0)
        return go;
    memset(&ctx, 0, sizeof ctx);
    j.p = p;
    j.t = t;
    j.r = r;
    double t0 = gh_now_s();
    int ok = ((const struct gh_impl *)v->impl)->prepare(&j, &ctx);
    r->step_ms[GL_ST_PREPARE] += (gh_now_s() - t0) * 1e3;
    if (!ok)
        return gh_context_lost() ? -1 : 0;
    return gh_execute(&j);
}

/* Inputs of a built-in family: generated from the run's seed (rng.h): on the
 * device for device memory (after the timed copy, which moves the same bytes
 * from the staging buffer), on the host for zero-copy memory; managed inputs
 * are made before (gh_managed_prepare: made on the GPU and moved to the host,
 * for the timed prefetch of managed pages to move; the device's time of that
 * counts as a copy's). */
static int fill_inputs(struct gh_job *j, int on_device)
{
    unsigned long long seed = gh_seed(j->p);
    for (int i = 0; i < j->nin; i++) {
        struct gh_buf *b = &j->in[i];
        /* zero-copy: a pooled buffer that holds this input from an earlier run
         * (built-in kernels never write their inputs; it is the same memory the
         * kernel reads, so nothing of the run's state differs) */
        if (j->mem == GH_MEM_ZEROCOPY && !on_device) {
            if (b->holds_input && b->input_seed == seed && b->input_stream == (unsigned)i)
                continue;
            gl_fill_random(b->host, b->count, seed, (unsigned long long)i);
            b->holds_input = 1;
            b->input_seed = seed;
            b->input_stream = (unsigned)i;
            continue;
        }
        if (j->mem == GH_MEM_DEVICE && on_device &&
            !gh_ok(j->r, gh_fill_random_dev(j->in[i].dev, j->in[i].count, seed, (unsigned)i),
                   "input generation"))
            return 0;
    }
    return 1;
}

static double ms_since(double t0)
{
    return (gh_now_s() - t0) * 1e3;
}

int gh_execute(struct gh_job *j)
{
    struct gl_result *r = j->r;
    cudaEvent_t e0 = NULL, e1 = NULL;
    int nalloc = 0, nout_alloc = 0, parked = 0, long_run = 0;
    double since, st, copied = 0.0, placed = 0.0, t0 = gh_now_s();

    j->spacer = NULL;
    j->ref_dev = NULL;
    if (gh_st.sticky) {
        gh_fail(r, "CUDA context unusable after an earlier error");
        return -1;
    }
    if (!gh_st.ready) {
        gh_fail(r, "GPU not initialised");
        return 0;
    }
    if (j->nout == 0)
        j->nout = 1;
    if (j->nin < (j->typed ? 0 : 1) || j->nin > GH_MAX_IN || j->nout < 1 ||
        j->nout > GH_MAX_OUT || j->naux < 0 || j->naux > j->nin || !j->enqueue ||
        (j->typed ? j->typed->n < 1 : !j->check_dev || j->nout != 1)) {
        gh_fail(r, "internal: incomplete job description");
        return 0;
    }
    r->launches = j->launches;
    if (j->kernel) {   /* a library call's launch shape is its own: left 0 */
        r->grid[0] = (int)j->grid.x;
        r->grid[1] = (int)j->grid.y;
        r->grid[2] = (int)j->grid.z;
        r->block[0] = (int)j->block.x;
        r->block[1] = (int)j->block.y;
        r->block[2] = (int)j->block.z;
        r->dynamic_smem = (int)j->dyn_smem;
        r->guide_flags = gh_guidance(j->grid, j->block, gh_st.dev.sm_count);
        st = gh_now_s();
        if (!gh_resources(j))
            goto out;
        r->step_ms[GL_ST_RESOURCES] += ms_since(st);
        if (r->blocks_per_sm == 0) {
            gh_skip(r, "no block of this shape fits on an SM (occupancy 0)");
            goto out;
        }
    }
    gh_batch_make_room(j);   /* profile the parked runs to make room */
    /* the float64 reference first, while the run's own buffers do not exist yet;
     * a keyed host reference's expected outputs (or their memory) likewise */
    st = gh_now_s();
    if (!j->typed && (!gh_devref_get(j) || r->status != GL_OK))
        goto out;
    if (j->typed && (!gh_expected_get(j) || r->status != GL_OK))
        goto out;
    r->step_ms[GL_ST_REFERENCE] += ms_since(st);
    st = gh_now_s();
    if (!gh_memory_fits(j))
        goto out;

    if (gh_pad_bytes() < 0) {
        gh_fail(r, "GPULAB_PAD: not a byte count: '%s'", getenv("GPULAB_PAD"));
        goto out;
    }
    if (gh_pad_bytes() > 0 && j->mem == GH_MEM_DEVICE &&
        !gh_ok(r, cudaMalloc(&j->spacer, (size_t)gh_pad_bytes()), "cudaMalloc(GPULAB_PAD spacer)"))
        goto out;
    /* each buffer borrowed from a parked run (harness_lend.cu), else allocated */
    for (; nalloc < j->nin; nalloc++)
        if (!gh_lend_borrow(j, 0, nalloc) &&
            !gh_buf_alloc(r, &j->in[nalloc], j->in_count[nalloc], j->in_esize[nalloc], j->mem,
                          j->typed && j->typed->host_inputs)) {
            nalloc++;
            goto out;
        }
    for (; nout_alloc < j->nout; nout_alloc++)
        if (!gh_lend_borrow(j, 1, nout_alloc) &&
            !gh_buf_alloc(r, &j->out[nout_alloc], j->out_count[nout_alloc],
                          j->out_esize[nout_alloc], j->mem, 0)) {
            nout_alloc++;
            goto out;
        }
    /* what a pooled buffer held counts only for a built-in family's inputs */
    for (int i = 0; i < j->nout; i++)
        j->out[i].holds_input = 0;
    for (int i = 0; j->typed && i < j->nin; i++)
        j->in[i].holds_input = 0;
    if (!gh_events(r, &e0, &e1))
        goto out;
    r->step_ms[GL_ST_ALLOC] += ms_since(st);
    st = gh_now_s();
    if (!gh_managed_prepare(j, e0, e1, &placed) ||
        (j->typed ? !gh_typed_fill(j, 0) : !fill_inputs(j, 0)))
        goto out;
    /* managed inputs made on the GPU and moved to the host: the device's time,
     * as a timed copy's (busy), the rest the host's */
    r->step_ms[GL_ST_INPUTS] += ms_since(st) - placed;
    r->busy_ms += placed;
    st = gh_now_s();
    if (!gh_copy_inputs(j, e0, e1, &copied))
        goto out;
    /* the copies' own time (event-timed, stored as h2d_ms) is the device's, as
     * the kernels' is: busy, not host overhead (none when the time was known) */
    r->step_ms[GL_ST_UPLOAD] += ms_since(st) - copied;
    r->busy_ms += copied;
    st = gh_now_s();
    if (!(j->typed ? gh_typed_fill(j, 1) : fill_inputs(j, 1)))
        goto out;
    r->step_ms[GL_ST_INPUTS] += ms_since(st);
    /* pristine copies of a user's inputs, and what goes back before every run */
    st = gh_now_s();
    if (j->typed && !gh_restore_plan(j))
        goto out;
    r->step_ms[GL_ST_RESTORE] += ms_since(st);
    /* A user's reference: another kernel run on the inputs now on the device,
     * or a host function on their host copies (not when its expected outputs
     * were kept from an earlier run). */
    st = gh_now_s();
    if (j->typed && j->typed->reference && !j->typed->want_ready &&
        (!j->typed->reference(j) || r->status != GL_OK))
        goto out;
    r->step_ms[GL_ST_REFERENCE] += ms_since(st);
    st = gh_now_s();
    if ((j->cold || gh_st.passes > 0) && !gh_flush_ready(r))
        goto out;
    r->step_ms[GL_ST_FLUSH_SETUP] += ms_since(st);
    r->phase_ms[GL_PH_SETUP] += ms_since(t0);

    /* Verify first: a wrong kernel is not timed or profiled. */
    since = gh_now_s();
    if (!gh_verify_run(j, e0, e1, &long_run) || r->status != GL_OK)
        goto out;
    /* inputs the kernel left alone need not go back */
    if (j->typed && !gh_restore_prune(j))
        goto out;
    r->phase_ms[GL_PH_VERIFY] += ms_since(since);
    if (!long_run) {
        if (!gh_place_output(j) || !gh_timed_samples(j, e0, e1, since))
            goto out;
        /* Check the last sample's output too, poisoned before it: catches
         * results that change from run to run, and kernels that compute once
         * and return early after (without running the kernel once more). */
        double c0 = gh_now_s();
        if (!gh_ok(r, cudaDeviceSynchronize(), "kernel (timed)") || !gh_check_output(j, e0, e1))
            goto out;
        if (r->status == GL_WRONG) {
            char was[GL_REASON_MAX];
            snprintf(was, sizeof was, "%s", r->reason);
            snprintf(r->reason, sizeof r->reason, "last timed sample (outputs poisoned before "
                     "it; the first run was right): %.150s", was);
        }
        if (r->status != GL_OK)
            goto out;
        r->phase_ms[GL_PH_VERIFY] += ms_since(c0);
    } else {
        gh_integrity_add(r, GL_INTEGRITY_POISON_FIRST);
        if (j->cold)
            gh_integrity_add(r, GL_INTEGRITY_L2_FLUSH);
        gh_integrity_add(r, GL_INTEGRITY_L2_PERSIST);
    }
    /* the energy of its launches, once they are known to be right */
    if (!gh_energy_window(j))
        goto out;
    if (gh_st.passes > 0) {
        if (!gh_place_output(j))
            goto out;
        if (gh_park(j)) {
            parked = 1;
        } else {
            struct gh_job *one = j;
            gh_profile_jobs(&one, 1);
        }
    }

out:
    st = gh_now_s();
    for (int i = 0; i < nout_alloc && !parked; i++)
        gh_buf_free(&j->out[i], j->mem);
    for (int i = 0; i < nalloc && !parked; i++)
        gh_buf_free(&j->in[i], j->mem);
    if (!parked)
        gh_spacer_free(j);
    if (!parked && j->release)
        j->release(j);
    if (j->typed)
        gh_typed_release(j);
    r->step_ms[GL_ST_FREE] += ms_since(st);
    if (r->status != GL_OK && r->nmetrics == 0 && r->metrics_reason[0] == '\0')
        snprintf(r->metrics_reason, sizeof r->metrics_reason, "not profiled: run was not ok");
    return gh_st.sticky ? -1 : 0;
}
