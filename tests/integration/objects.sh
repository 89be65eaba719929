#!/bin/sh
# tests/integration/objects.sh - step 16's tensor maps, textures, surfaces,
# arrays and 8-bit types at plan time, no GPU: a tensor map with a box larger
# than its dims, a packed row that is no multiple of 16 bytes, a swizzle span the
# box exceeds, a texture over a double buffer, filter(linear) on int elements, a
# surface over a buffer, an array passed in args, an unknown setting (with the
# nearest one): each a config file:line error from `plan` (exit 2); a tensor map
# whose sizes depend on parameters planned per point (the points that break a
# rule skipped with the reason and the config line); a tensor map passed where
# the kernel takes a pointer: the args line's error from the compiled
# signature; a kernel without parameters planned without `args`; and the
# collection's configs with these objects (tex_bilinear, surface_scale,
# tma_scale, igemm_wmma, compact) planning. Needs the GPU plugin (NVRTC, nvcc);
# skipped without it.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL objects: $2"; fi; }
if [ ! -e build/libgpulab_gpu.so ]; then
    echo "objects: skipped: needs build/libgpulab_gpu.so"
    echo "objects: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
cat >"$T/k.cu" <<'K'
#include <cuda.h>
__global__ void tiles(float *out, const __grid_constant__ CUtensorMap m, int n) { }
__global__ void ptr(float *out, const float *m, int n) { }
__global__ void tex(float *out, cudaTextureObject_t t, int n) { }
__device__ float d_flag[4];
__global__ void noparams() { d_flag[threadIdx.x % 4] = 1.0f; }
K
# conf NAME KERNEL DECL ARGS: a section with DECL (two lines: 8 and 9, the
# source and the object) and ARGS (line 10)
conf() {
    cat >"$T/$1.conf" <<C
study = o
[o]
source = k.cu
compiler = nvcc
variants = $2
N = 1024
buffer.out = float[N*N] output
$3
$4
grid = 1
block = 32
C
}
bad() {   # NAME KERNEL LINE7 LINE8 WANT
    conf "$1" "$2" "$3" "$4"
    $G plan "$T/$1.conf" --db "$T/p.db" >"$T/out" 2>&1; rc=$?
    name=$1 want=$5 at=$6
    chk '[ $rc -eq 2 ] && grep -F "$name.conf:$at: " "$T/out" | grep -qF "$want"' "$name: exit $rc, want $name.conf:$at: ... $want: $(head -c 500 "$T/out")"
}
bad box tiles "buffer.in = float[N*N] random
tensormap.m = in dims(N, N) box(2048, 32)" "args = out, m, int N" "box[0] = 2048: a box side is 1 to 256 elements" 9
bad exceeds tiles "buffer.in = float[64] random
tensormap.m = in dims(8, 8) box(16, 8)" "args = out, m, int N" "box[0] = 16 exceeds dims[0] = 8" 9
bad stride tiles "buffer.in = float[N*N] random
tensormap.m = in dims(1021, 16) box(16, 16)" "args = out, m, int N" "strides[1] = 4084 bytes is not a multiple of 16 bytes" 9
bad swizzle tiles "buffer.in = half[N*N] random
tensormap.m = in dims(N, N) box(128, 64) swizzle(128B)" "args = out, m, int N" "is 256 bytes, more than the 128-byte span of swizzle(128B)" 9
bad swz tiles "buffer.in = half[N*N] random
tensormap.m = in dims(N, N) box(64, 64) swizle(128B)" "args = out, m, int N" "unknown setting 'swizle' (did you mean 'swizzle'?)" 9
bad dtex tex "buffer.in = double[N] random
texture.t = in" "args = out, t, int N" "textures read float, half, int, uint, int8 and uint8 elements; buffer 'in' holds double" 9
bad itex tex "array.img = int[N, N] random
texture.t = img filter(linear)" "args = out, t, int N" "filter(linear) interpolates floating-point reads: int elements cannot be filtered" 9
bad wrap tex "array.img = float[N, N] random
texture.t = img address(wrap)" "args = out, t, int N" "address(wrap) needs coords(normalized)" 9
bad surf tex "buffer.in = float[N] random
surface.s = in" "args = out, s, int N" "a surface is over an array" 9
bad arrarg tex "array.img = float[N, N] random
texture.t = img" "args = out, img, int N" "args: 'img' is an array" 10
bad alone tex "array.img = float[N, N] random
texture.t = img" "args = out, int 0, int N" "texture 't' is not passed to the kernel" 9
# sizes from parameters: checked per point, the broken ones skipped with the reason
cat >"$T/pts.conf" <<'C'
study = o
[o]
source = k.cu
compiler = nvcc
variants = tiles
N = 1024
B = 64, 512
buffer.out = float[N*N] output
buffer.in = float[N*N] random
tensormap.m = in dims(N, N) box(B, 16)
args = out, m, int N
grid = 1
block = 32
C
$G plan "$T/pts.conf" --db "$T/p.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 0 ] && grep -q "^compiled 1 kernel" "$T/out"' "per point: exit $rc: $(head -c 500 "$T/out")"
chk 'grep -qF "tensormap.m (line 10): box[0] = 512: a box side is 1 to 256 elements" "$T/out"' "per point: no skip reason for B=512: $(head -c 800 "$T/out")"
chk 'grep -qE "1 rejected by check" "$T/out"' "per point: want one point rejected: $(head -c 800 "$T/out")"
# a tensor map where the kernel takes a pointer: the compiled signature says so
conf sig ptr "buffer.in = float[N*N] random
tensormap.m = in dims(N, N) box(32, 32)" "args = out, m, int N"
$G plan "$T/sig.conf" --db "$T/p.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 2 ] && grep -qF "sig.conf:10: args: 2nd argument '"'"'m'"'"' (a tensor map: CUtensorMap)" "$T/out"' "signature: exit $rc: $(head -c 600 "$T/out")"
# no parameters: no args
cat >"$T/none.conf" <<'C'
study = o
[o]
source = k.cu
compiler = nvcc
variants = noparams
symbol.d_flag = float[4] output
grid = 1
block = 32
C
$G plan "$T/none.conf" --db "$T/p.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 0 ] && grep -q "^compiled 1 kernel" "$T/out"' "no args: exit $rc: $(head -c 500 "$T/out")"
for c in tex_bilinear surface_scale tma_scale igemm_wmma compact; do
    $G plan tests/collection/$c.conf --db "$T/c.db" >"$T/out" 2>&1; rc=$?
    chk '[ $rc -eq 0 ] && grep -qE "^compiled [1-9][0-9]* kernel" "$T/out"' "$c.conf: exit $rc: $(head -c 500 "$T/out")"
done
echo "objects: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
