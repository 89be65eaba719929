// partial.cuh - a user header from an include folder (cccl.conf: -I inc).
#pragma once
#include <cuda/std/type_traits>

template <typename T>
__device__ inline T load(const T *p, int i, int n)
{
    static_assert(cuda::std::is_floating_point<T>::value, "sums of floating-point values");
    return i < n ? p[i] : T(0);
}
