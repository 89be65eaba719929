#!/bin/sh
# tests/integration/kernels_real.sh - users' kernels as they are written, through
# `gpulab plan` (which compiles them) without a GPU: a kernel including
# <cooperative_groups.h>, <cooperative_groups/reduce.h>, <cub/block/block_reduce.cuh>,
# a <cuda/std/...> header, a user header from a subfolder and one from an
# `options = --use_fast_math -I inc` folder plans; a bad option is the `options`
# line's file:line error with the compiler's message (exit 2), for NVRTC and
# nvcc; a file with <stdio.h> and main() plans with `compiler = nvcc` (its
# template kernel found by name) while NVRTC's error on it carries the hint;
# editing an included header recompiles that section's kernels and nothing else;
# the points of one program compile as one (fewer programs than kernels), and
# GPULAB_JOBS=2 fills the cache with the same files, byte for byte, as
# GPULAB_JOBS=1; a compile over a second shows progress on stderr.
# Must not need a GPU. Needs the GPU plugin (NVRTC) and the toolkit's nvcc; where
# the plugin is missing it says so and skips.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
ok()   { pass=$((pass + 1)); }
bad()  { fail=$((fail + 1)); echo "FAIL kernels_real: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }
if [ ! -e build/libgpulab_gpu.so ]; then
    echo "kernels_real: skipped: needs build/libgpulab_gpu.so (built without a CUDA compiler)"
    echo "kernels_real: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
now() { date +%s.%N; }

mkdir -p "$T/k/sub" "$T/inc"
cat >"$T/k/cg.cu" <<'CU'
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_reduce.cuh>
#include <cuda/std/type_traits>
#include "sub/load.cuh"
#include <util.cuh>
namespace cg = cooperative_groups;

template <int BS>
__global__ void sum_cub(float *out, const float *in, int n)
{
    using BR = cub::BlockReduce<float, BS>;
    __shared__ typename BR::TempStorage tmp;
    float s = BR(tmp).Sum(load(in, blockIdx.x * BS + threadIdx.x, n));
    if (threadIdx.x == 0)
        atomicAdd(out, SCALE(s));
}

template <int BS>
__global__ void sum_cg(float *out, const float *in, int n)
{
    static_assert(cuda::std::is_same<float, decltype(SCALE(1.0f))>::value, "float");
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    float v = cg::reduce(warp, load(in, blockIdx.x * BS + threadIdx.x, n), cg::plus<float>());
    if (warp.thread_rank() == 0)
        atomicAdd(out, SCALE(v));
}
CU
echo '__device__ inline float load(const float *p, int i, int n) { return i < n ? p[i] : 0.0f; }' >"$T/k/sub/load.cuh"
echo '#define SCALE(x) (1.0f * (x))' >"$T/inc/util.cuh"
cat >"$T/k/plain.cu" <<'CU'
#include "sub/twice.cuh"
__global__ void twice(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = TWICE(in[i]);
}
CU
echo '#define TWICE(x) (2.0f * (x))' >"$T/k/sub/twice.cuh"
cat >"$T/cg.conf" <<'CONF'
study = real
[cg]
source = k/cg.cu
options = --use_fast_math -I inc
variants = cub = sum_cub<BS>, cg = sum_cg<BS>
N = 4096
BS = 128, 256
buffer.in = float[N] random
buffer.out = float[1] zero output
args = out, in, int N
grid = cdiv(N, BS)
block = BS
verify = cub
tolerance = 1e-4

[plain]
source = k/plain.cu
variants = twice
N = 4096
BS = 128, 256
buffer.in = float[N] random
buffer.out = float[N] output
args = out, in, int N
grid = cdiv(N, BS)
block = BS
CONF

# --- CCCL and user headers: plans ---------------------------------------------------
$G plan "$T/cg.conf" --summary >"$T/out" 2>"$T/err"; rc=$?
check '[ $rc -eq 0 ]' "cooperative groups / CUB / cuda::std kernel: exit $rc: $(head -c 1500 "$T/err")"
# cub and cg at two BS: one program of 4 name expressions; twice (BS is no
# template argument or define of it): 1 kernel
check 'grep -q "^compiled 5 kernels, 0 from the cache (sm_90; 2 programs compiled)" "$T/out"' "first plan: $(grep compiled "$T/out")"
check '[ $(ls "$GPULAB_CACHE" | grep -c "\.cubin$") -eq 2 ] && [ $(ls "$GPULAB_CACHE" | grep -c "\.name$") -eq 5 ]' "cache: $(ls "$GPULAB_CACHE" | sed 's/.*\.//' | sort | uniq -c | tr '\n' ' ')"
$G plan "$T/cg.conf" --summary >"$T/out" 2>"$T/err"
check 'grep -q "^compiled 5 kernels, 5 from the cache (sm_90)$" "$T/out"' "second plan: $(grep compiled "$T/out")"
check '! grep -q "compiling kernels" "$T/err"' "progress shown for a plan from the cache"

# --- editing an included header recompiles that section's kernels, nothing else -----
echo '#define TWICE(x) ((x) + (x))' >"$T/k/sub/twice.cuh"
$G plan "$T/cg.conf" --summary >"$T/out" 2>&1
check 'grep -q "^compiled 5 kernels, 4 from the cache (sm_90; 1 program compiled)" "$T/out"' "after editing sub/twice.cuh: $(grep compiled "$T/out")"
echo '#define SCALE(x) (0.5f * (x) * 2.0f)' >"$T/inc/util.cuh"
$G plan "$T/cg.conf" --summary >"$T/out" 2>&1
check 'grep -q "^compiled 5 kernels, 1 from the cache (sm_90; 1 program compiled)" "$T/out"' "after editing inc/util.cuh (-I inc): $(grep compiled "$T/out")"
echo '// a comment' >>"$T/k/sub/load.cuh"
$G plan "$T/cg.conf" --summary >"$T/out" 2>&1
check 'grep -q "^compiled 5 kernels, 1 from the cache (sm_90; 1 program compiled)" "$T/out"' "after editing k/sub/load.cuh: $(grep compiled "$T/out")"
echo '#define UNUSED 1' >"$T/k/sub/unused.cuh"
$G plan "$T/cg.conf" --summary >"$T/out" 2>&1
check 'grep -q "^compiled 5 kernels, 5 from the cache (sm_90)$" "$T/out"' "a header nobody includes recompiled: $(grep compiled "$T/out")"

# --- a bad option: the options line, the compiler's message, exit 2 -----------------
sed 's/^options = .*/options = --no-such-option -I inc/' "$T/cg.conf" >"$T/badopt.conf"
$G plan "$T/badopt.conf" --summary >"$T/out" 2>"$T/err"; rc=$?
check '[ $rc -eq 2 ]' "bad option: exit $rc"
check 'grep -q "badopt.conf:4: options: the compiler refused an option" "$T/err" && grep -q "unrecognized option --no-such-option" "$T/err"' "bad option: $(head -c 600 "$T/err")"
sed 's/^options = .*/options = -I nothere/' "$T/cg.conf" >"$T/badinc.conf"
$G plan "$T/badinc.conf" >/dev/null 2>"$T/err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "badinc.conf:4: options: include folder .nothere." "$T/err"' "missing include folder: exit $rc $(cat "$T/err")"

# --- a file written for nvcc: <stdio.h>, main(), a template kernel ------------------
cat >"$T/k/host.cu" <<'CU'
#include <stdio.h>
#include <stdlib.h>
#include "sub/twice.cuh"

template <int S>
__global__ void scale(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = S * TWICE(in[i]);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024;
    printf("would scale %d elements\n", n);
    return 0;
}
CU
cat >"$T/host.conf" <<'CONF'
study = host
[host]
source = k/host.cu
compiler = nvcc
variants = s = scale<S>
N = 1024
S = 2, 3
buffer.in = float[N] random
buffer.out = float[N] output
args = out, in, int N
grid = cdiv(N, 128)
block = 128
CONF
$G plan "$T/host.conf" --summary >"$T/out" 2>"$T/err"; rc=$?
check '[ $rc -eq 0 ] && grep -q "^compiled 2 kernels, 0 from the cache (sm_90; 1 program compiled)" "$T/out"' "compiler = nvcc: exit $rc: $(grep compiled "$T/out") $(head -c 800 "$T/err")"
check 'grep -qs "^_Z5scaleILi3EEvPfPKfi$" "$GPULAB_CACHE"/*.name' "compiler = nvcc: scale<3>'s kernel not recorded"
$G plan "$T/host.conf" --summary >"$T/out" 2>&1
check 'grep -q "^compiled 2 kernels, 2 from the cache (sm_90)$" "$T/out"' "compiler = nvcc, second plan: $(grep compiled "$T/out")"
# compiler = auto, the default: the file has host code, so nvcc, said once in the plan
sed '/^compiler = nvcc$/d' "$T/host.conf" >"$T/host_auto.conf"
$G plan "$T/host_auto.conf" >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && [ "$(grep -c "host.cu: compiled with nvcc (compiler = auto: main() at line [0-9]*)" "$T/out")" = 1 ]' \
    "compiler = auto on host.cu: exit $rc: $(head -c 600 "$T/out")"
sed 's/^compiler = nvcc$/compiler = nvrtc/' "$T/host.conf" >"$T/host_nvrtc.conf"
$G plan "$T/host_nvrtc.conf" >/dev/null 2>"$T/err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "host_nvrtc.conf:3: source: .*host.cu does not compile" "$T/err"' "NVRTC on host.cu: exit $rc: $(head -c 400 "$T/err")"
check 'grep -q "host.cu(1): catastrophic error: .*open source file \"stdio.h\"" "$T/err" && grep -q "hint: NVRTC has no C/C++ library headers" "$T/err" && grep -q "#ifndef __CUDACC_RTC__" "$T/err" && grep -q "compiler = nvcc" "$T/err"' "NVRTC's error has no hint: $(cat "$T/err")"
sed 's/^compiler = nvcc$/compiler = nvcc\noptions = --no-such-option/' "$T/host.conf" >"$T/host_bad.conf"
$G plan "$T/host_bad.conf" >/dev/null 2>"$T/err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "host_bad.conf:5: options: the compiler refused" "$T/err" && grep -q "nvcc fatal.*no-such-option" "$T/err"' "nvcc bad option: exit $rc: $(cat "$T/err")"
sed 's/^variants = .*/variants = s = scale<S>, t = scale<S+1>/' "$T/host.conf" >"$T/host_bad2.conf"
$G plan "$T/host_bad2.conf" >/dev/null 2>"$T/err"; rc=$?
check '[ $rc -eq 2 ]' "a bad variant expression: exit $rc"

# --- one program per source and -D list; parallel = serial, byte for byte ------------
for j in 1 2; do
    GPULAB_CACHE="$T/cache$j" GPULAB_JOBS=$j $G plan configs/transpose.conf "$T/cg.conf" "$T/host.conf" --summary >"$T/par$j" 2>&1; rc=$?
    check '[ $rc -eq 0 ]' "GPULAB_JOBS=$j: exit $rc: $(tail -3 "$T/par$j")"
done
# transpose: 8 kernels in 2 programs (one per TILE); cg 4 + twice 1 + scale 2 in 3
check 'grep -q "^compiled 15 kernels, 0 from the cache (sm_90; 5 programs compiled)" "$T/par1"' "serial: $(grep compiled "$T/par1")"
check 'grep -q "^compiled 15 kernels, 0 from the cache (sm_90; 5 programs compiled)" "$T/par2"' "parallel: $(grep compiled "$T/par2")"
check '[ "$(ls "$T/cache1")" = "$(ls "$T/cache2")" ] && [ $(ls "$T/cache1" | grep -c "\.cubin$") -eq 5 ] && [ $(ls "$T/cache1" | grep -c "\.name$") -eq 15 ]' "serial and parallel caches differ in their files: $(ls "$T/cache1" | wc -l) and $(ls "$T/cache2" | wc -l)"
# every record the same (lowered name, program cubin); every cubin too, except
# those with internal symbols (CCCL's anonymous namespaces), whose names NVRTC
# makes from its process id: those are the same files by name (their key)
same=1
for f in $(ls "$T/cache1"); do
    case "$f" in
    *.cubin) grep -q "_INTERNAL_" "$T/cache1/$f" && continue ;;
    esac
    cmp -s "$T/cache1/$f" "$T/cache2/$f" || same=0
done
check '[ $same -eq 1 ]' "serial and parallel caches differ in a file's bytes"
# progress on stderr (not a terminal: a line a second) once compiling takes a
# second: three programs of cg.cu (a -D each), one at a time
sed -n '1,/^tolerance/p' "$T/cg.conf" |
    sed 's/^variants = .*/variants = cub = sum_cub<BS>\nUNROLL = 1, 2, 3\ndefines = UNROLL/' >"$T/slow.conf"
t0=$(now)
GPULAB_CACHE="$T/cache3" GPULAB_JOBS=1 $G plan "$T/slow.conf" --summary >"$T/out" 2>"$T/err"; rc=$?
t1=$(now)
check '[ $rc -eq 0 ] && grep -q "^compiled 6 kernels, 0 from the cache (sm_90; 3 programs compiled)" "$T/out"' "slow.conf: exit $rc: $(grep compiled "$T/out") $(head -c 300 "$T/err")"
if [ "$(awk "BEGIN { print ($t1 - $t0 >= 2) }")" = 1 ]; then
    check 'grep -q "^compiling kernels: [0-9]*/6 ([0-9]* programs\{0,1\} left, [0-9.]* s)$" "$T/err"' "no progress line in a $(awk "BEGIN { print $t1 - $t0 }") s compile: $(head -c 300 "$T/err")"
else
    echo "note kernels_real: three programs compiled in under 2 s: the progress line is not required"
fi
GPULAB_JOBS=0 $G plan "$T/cg.conf" >/dev/null 2>"$T/err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "GPULAB_JOBS = .0.: want" "$T/err"' "GPULAB_JOBS=0: exit $rc $(cat "$T/err")"

echo "kernels_real: $pass passed, $fail failed"
[ $fail -eq 0 ]
