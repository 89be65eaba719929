// buckets.cu - scatter keys into fixed-size buckets (the first pass of a
// bucket sort / hash-grid build): each key bumps its bucket's counter with
// atomicAdd and writes its index into the slot it got. The counters start at
// zero and are left holding each bucket's fill, so the same launch on the same
// buffers a second time would start where the first stopped and, without a
// bounds check, write past the last bucket.
__global__ void bucket_scatter(int *__restrict__ counts, int *__restrict__ slots,
                               const int *__restrict__ keys, int n, int cap)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const int b = keys[i];
        const int pos = atomicAdd(&counts[b], 1);
        slots[b * cap + pos] = i;   // no bounds check, as in the code this stands for
    }
}
