/* rng.h - the one definition of gpulab's random inputs, compiled for the CPU
 * (reference.c, the CPU baselines) and for the GPU (harness_check.cu, the
 * families' on-device checks), so that both sides make the same numbers from
 * a seed: element i of (seed, stream) is the (i+1)-th output of splitmix64
 * (Steele, Lea, Flood 2014) started from a state mixed from seed and stream,
 * top 24 bits as a multiple of 2^-24 in [0, 1) (sums of a few thousand are
 * exact in double). A counter-based stream: any element is computed alone.
 * Must not hold state or allocate. */
#ifndef GL_RNG_H
#define GL_RNG_H

#ifdef __CUDACC__
#define GL_RNG_FN static inline __host__ __device__
#else
#define GL_RNG_FN static inline
#endif

#define GL_RNG_GOLDEN 0x9E3779B97F4A7C15ull   /* splitmix64's increment */

/* splitmix64's output function. */
GL_RNG_FN unsigned long long gl_rng_mix(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The starting state of (seed, stream): each passes through the mixer alone,
 * so nearby seeds and streams start far apart. */
GL_RNG_FN unsigned long long gl_rng_state(unsigned long long seed, unsigned long long stream)
{
    return gl_rng_mix(gl_rng_mix(seed + GL_RNG_GOLDEN) ^ gl_rng_mix(stream * 2 + 1));
}

/* Element i of the stream that starts at state s0. */
GL_RNG_FN float gl_rng_float(unsigned long long s0, unsigned long long i)
{
    unsigned long long z = gl_rng_mix(s0 + (i + 1) * GL_RNG_GOLDEN);
    return (float)(z >> 40) * (1.0f / 16777216.0f);
}

#endif
