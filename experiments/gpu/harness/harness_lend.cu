/* harness_lend.cu - a built-in family's zero-copy buffers shared while their
 * run is parked. A run parked for its batch's profiling (harness_batch.cu)
 * keeps its buffers until the batch is profiled, so the worker's pool cannot
 * give them to the runs after it, which then pin their own: on an H100 host,
 * cudaHostAlloc of S1's three 36 MB matrices at N = 3072 took 50-60 ms a run,
 * and their inputs 10-20 ms more to write. Instead, a parked run's zero-copy
 * buffers are lent to later runs of a built-in family: an input to a run that
 * reads the same seed's values (built-in kernels never write their inputs),
 * an output to any run (a parked run's output is written again only by its own
 * replays, whose results nothing reads; a live run poisons and checks its own
 * before it is parked, and runs never overlap). Each lent buffer counts the
 * runs holding it; the last one's free gives it back to the pool (or frees it).
 * Not with GPULAB_POOL=0 (nothing kept), not for users' kernels (their inputs
 * may be written, and their outputs may start from an init).
 * Must not allocate or free memory itself: harness_buffers.cu does. */
#include "harness_int.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GH_LENT_MAX 128
static struct lent {
    float *host, *dev;
    size_t bytes;
    int input;                              /* 1: holds the values below, lent as input */
    unsigned long long seed, stream;
    int refs;                               /* runs holding it */
} lent[GH_LENT_MAX];
static int nlent;
static unsigned long long nborrowed, bytes_borrowed;   /* for gh_lend_report */

static int lends(const struct gh_job *j)
{
    return j->mem == GH_MEM_ZEROCOPY && gh_builtin(j) && gh_pool_zerocopy_on();
}

/* Is host memory p one of j's buffers already (inputs before in_k, outputs
 * before out_k)? A run never gets one buffer twice. */
static int used_by(const struct gh_job *j, const float *p, int in_k, int out_k)
{
    for (int i = 0; i < in_k; i++)
        if (j->in[i].host == p)
            return 1;
    for (int i = 0; i < out_k; i++)
        if (j->out[i].host == p)
            return 1;
    return 0;
}

int gh_lend_borrow(struct gh_job *j, int output, int k)
{
    if (!lends(j))
        return 0;
    struct gh_buf *b = output ? &j->out[k] : &j->in[k];
    size_t count = output ? j->out_count[k] : j->in_count[k];
    size_t esize = output ? j->out_esize[k] : j->in_esize[k];
    unsigned long long seed = gh_seed(j->p), stream = (unsigned long long)k;
    b->count = count;
    b->esize = esize ? esize : sizeof(float);
    for (int e = 0; e < nlent; e++) {
        struct lent *l = &lent[e];
        if (l->bytes != gh_buf_bytes(b) || l->input == output ||
            (!output && (l->seed != seed || l->stream != stream)) ||
            used_by(j, l->host, output ? j->nin : k, output ? k : 0))
            continue;
        b->host = l->host;
        b->dev = l->dev;
        b->lent = 1;
        b->holds_input = !output;
        b->input_seed = seed;
        b->input_stream = stream;
        l->refs++;
        nborrowed++;
        bytes_borrowed += l->bytes;
        return 1;
    }
    return 0;
}

/* Put b in the table (refs 1: the parked run's). */
static void lend_one(struct gh_buf *b, int input)
{
    if (b->lent || !b->host || nlent == GH_LENT_MAX || (input && !b->holds_input))
        return;
    struct lent *l = &lent[nlent++];
    l->host = b->host;
    l->dev = b->dev;
    l->bytes = gh_buf_bytes(b);
    l->input = input;
    l->seed = b->input_seed;
    l->stream = b->input_stream;
    l->refs = 1;
    b->lent = 1;
}

void gh_lend_park(struct gh_job *j)
{
    if (!lends(j))
        return;
    for (int i = 0; i < j->nin; i++)
        lend_one(&j->in[i], 1);
    for (int i = 0; i < j->nout; i++)
        lend_one(&j->out[i], 0);
}

int gh_lend_release(struct gh_buf *b)
{
    if (!b->lent)
        return 0;
    b->lent = 0;
    for (int e = 0; e < nlent; e++)
        if (lent[e].host == b->host) {
            if (--lent[e].refs > 0) {
                b->host = b->dev = NULL;
                return 1;
            }
            lent[e] = lent[--nlent];
            return 0;   /* the last holder: the caller gives the memory back */
        }
    return 0;
}

void gh_lend_report(void)
{
    if (getenv("GPULAB_LEND_TRACE"))
        fprintf(stderr, "gpulab lend: %llu zero-copy buffers borrowed from parked runs "
                "(%.1f MB not pinned again)\n", nborrowed, bytes_borrowed / 1e6);
}
