// tests/gpu/data/compare_work.cu - a kernel with planted extra work for
// tests/gpu/compare.sh: every variant copies in to out (so each verifies
// against `base`), after a chain of REPS dependent multiply-adds per element
// whose result decides nothing (the compiler cannot drop it). extra1 and extra3
// run 1 % and 3 % more of the chain: the time of a compute-bound kernel grows
// by about that much.
__device__ void chain(float *out, const float *in, int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i];
    for (int r = 0; r < reps; r++)
        x = x * 0.999f + 0.001f;
    out[i] = x == -1.0f ? x : in[i];
}

extern "C" __global__ void base(float *out, const float *in, int n)
{
    chain(out, in, n, REPS);
}

extern "C" __global__ void extra1(float *out, const float *in, int n)
{
    chain(out, in, n, REPS + REPS / 100);
}

extern "C" __global__ void extra3(float *out, const float *in, int n)
{
    chain(out, in, n, REPS + 3 * REPS / 100);
}
