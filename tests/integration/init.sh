#!/bin/sh
# tests/integration/init.sh - `gpulab init FILE.cu`: a starter config read from a
# kernel file's text, in the style of public code (host code and main(), a
# CUDA_CHECK macro, a template, float scalars, a launch with a #define'd block
# size, an accumulating atomic, a 2-D kernel, a macro the file wants with -D),
# that `gpulab plan` takes as written: buffers of the parameters' element types,
# const pointers inputs and the others outputs (zeros for an atomic's target),
# sizes as N, the block size of the file's own launch, template parameters as
# named parameters, compiler = nvcc for a file with host code; -o -, refusal to
# overwrite, a file without kernels; and every kernel file of tests/collection/
# (init's config plans unedited). Must not need a GPU; the planning checks need
# the GPU plugin (NVRTC) and nvcc, and are skipped without it.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0; skip=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL init: $2"; fi; }
plugin=1; [ -e build/libgpulab_gpu.so ] || plugin=0

cat >"$T/saxpy.cu" <<'CU'
#include <cstdio>
#include <cuda_runtime.h>
#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)
#define THREADS 128

// y = a * x + y
__global__ void saxpy(int n, float a, const float *__restrict__ x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

/* a histogram: every block adds into bins */
__global__ void hist(const unsigned int *in, unsigned int *bins, int n, int nbins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[in[i] % nbins], 1u);
}

template <int BLOCK_SIZE>
__global__ void __launch_bounds__(BLOCK_SIZE) scale(double *out, const double *in, double s, int len)
{
    int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (i < len) out[i] = s * in[i];
}

__global__ void add2d(float *c, const float *a, const float *b, int width)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < width) c[y * width + x] = a[y * width + x] + b[y * width + x];
}

int main()
{
    const int n = 1 << 20;
    float *x, *y;
    CUDA_CHECK(cudaMalloc(&x, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&y, n * sizeof(float)));
    saxpy<<<(n + THREADS - 1) / THREADS, THREADS>>>(n, 2.0f, x, y);
    CUDA_CHECK(cudaDeviceSynchronize());
    printf("done\n");
    return 0;
}
CU
$G init "$T/saxpy.cu" >"$T/out" 2>&1; rc=$?
c="$T/saxpy.conf"
check '[ $rc -eq 0 ] && [ -f "$c" ] && grep -q "wrote $c: 4 sections" "$T/out"' "init saxpy.cu: exit $rc: $(cat "$T/out")"
sec() { awk -v s="[$1]" '$0 == s { on = 1; next } /^\[/ { on = 0 } on' "$c"; }
check 'sec saxpy | grep -qx "source = saxpy.cu"' "the source is not named from the config's folder: $(sec saxpy | grep source)"
check 'sec saxpy | grep -q "^compiler = nvcc"' "a file with main() is not compiled with nvcc"
check 'sec saxpy | grep -qx "buffer.x = float\[N\] random"' "const float *x is not an input: $(sec saxpy | grep buffer.x)"
check 'sec saxpy | grep -q "^buffer.y = float\[N\] random output"' "y (read and written) is not a random output: $(sec saxpy | grep buffer.y)"
check 'sec saxpy | grep -qx "args = int N, float 1, x, y"' "saxpy args: $(sec saxpy | grep args)"
check 'sec saxpy | grep -q "^block = 128 "' "the launch's THREADS (128) is not the block: $(sec saxpy | grep block)"
check 'sec hist | grep -q "^buffer.bins = uint\[N\] zero output"' "an atomic's target does not start from zeros: $(sec hist | grep bins)"
check 'sec hist | grep -qx "buffer.in = uint\[N\] random"' "hist's input: $(sec hist | grep buffer.in)"
check 'sec hist | grep -q "^nbins = 1 " && sec hist | grep -qx "args = in, bins, int N, int nbins"' \
    "an integer scalar that is no size is not a named parameter: $(sec hist | grep -E 'nbins|args')"
check 'sec scale | grep -qx "variants = scale = scale<BLOCK_SIZE>" && sec scale | grep -q "^BLOCK_SIZE = 256 "' \
    "the template parameter: $(sec scale | grep -E 'variants|BLOCK_SIZE')"
check 'sec scale | grep -qx "block = BLOCK_SIZE" && sec scale | grep -qx "args = out, in, double 1, int N"' \
    "scale's block and args: $(sec scale | grep -E 'block|args')"
check 'sec add2d | grep -qx "buffer.c = float\[N\*N\] output" && sec add2d | grep -qx "block = 16, 16"' \
    "a 2-D kernel: $(sec add2d | grep -E 'buffer.c|block')"
if [ $plugin -eq 1 ]; then
    $G plan "$c" --db "$T/p.db" >"$T/plan" 2>&1; rc=$?
    check '[ $rc -eq 0 ] && grep -q "^compiled 4 kernels" "$T/plan"' "plan of init's saxpy config: exit $rc: $(head -c 800 "$T/plan")"
else
    skip=$((skip + 1))
fi

# standard output, no overwrite, --force
$G init "$T/saxpy.cu" -o - >"$T/stdout" 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -q "^\[saxpy\]" "$T/stdout" && ! grep -q "^wrote" "$T/stdout"' "init -o -: exit $rc"
echo keep >"$T/keep.conf"
$G init "$T/saxpy.cu" -o "$T/keep.conf" >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 2 ] && [ "$(cat "$T/keep.conf")" = keep ] && grep -q "exists; not overwritten" "$T/out"' \
    "an existing config was overwritten or not refused: exit $rc: $(cat "$T/out")"
$G init "$T/saxpy.cu" -o "$T/keep.conf" --force >/dev/null 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -q "^\[saxpy\]" "$T/keep.conf"' "--force: exit $rc"
# a macro the file wants from the command line
cat >"$T/tile.cu" <<'CU'
#ifndef TILE
#error "compile with -DTILE=..."
#endif
__global__ void tile_copy(float *out, const float *in, int n)
{
    __shared__ float t[TILE];
    int i = blockIdx.x * TILE + threadIdx.x;
    if (i < n) { t[threadIdx.x] = in[i]; __syncthreads(); out[i] = t[threadIdx.x]; }
}
CU
$G init "$T/tile.cu" >/dev/null 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -q "^TILE = 16" "$T/tile.conf" && grep -qx "defines = TILE" "$T/tile.conf"' \
    "a required macro is not a defined named parameter: $(grep -E 'TILE|defines' "$T/tile.conf")"
! grep -q "^compiler" "$T/tile.conf"; check '[ $? -eq 0 ]' "a file of kernels only got a compiler line"
if [ $plugin -eq 1 ]; then
    $G plan "$T/tile.conf" --db "$T/p.db" >"$T/plan" 2>&1; rc=$?
    check '[ $rc -eq 0 ]' "plan of init's tile config: exit $rc: $(head -c 600 "$T/plan")"
fi
# no kernel, no file, usage
echo 'int main() { return 0; }' >"$T/none.cu"
$G init "$T/none.cu" >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 2 ] && grep -q "has no __global__ function" "$T/out" && [ ! -e "$T/none.conf" ]' "no kernel: exit $rc: $(cat "$T/out")"
$G init "$T/missing.cu" >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 2 ] && grep -q "missing.cu" "$T/out"' "a missing file: exit $rc: $(cat "$T/out")"
$G init >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 2 ] && grep -q "no kernel file given" "$T/out"' "init without a file: exit $rc"

# the collection: init's config of every kernel file plans unedited
if [ $plugin -eq 1 ]; then
    n=0; ok=0; bad=""
    for cu in tests/collection/*.cu; do
        [ -e "$cu" ] || continue
        n=$((n + 1))
        b=$(basename "$cu" .cu)
        if $G init "$cu" -o "$T/col_$b.conf" >/dev/null 2>&1 &&
           $G plan "$T/col_$b.conf" --db "$T/col.db" >"$T/col.out" 2>&1; then ok=$((ok + 1))
        else bad="$bad $b: $(head -c 300 "$T/col.out" 2>/dev/null);"; fi
    done
    echo "init: $ok of $n kernel files of tests/collection/ planned from init's config unedited"
    check '[ $ok -eq $n ]' "init's config did not plan for:$bad"
fi
if [ $skip -gt 0 ]; then echo "init: $pass passed, $fail failed, $skip skipped"; else echo "init: $pass passed, $fail failed"; fi
[ "$fail" -eq 0 ]
