#!/bin/sh
# tests/integration/symbols.sh - step 14's symbols and inits at plan time, no GPU:
# a symbol name that is not in the module (with the nearest one), a symbol whose
# size is not the variable's (both sizes), an output symbol that is __constant__,
# each a config file:line error from `plan` (exit 2) after it compiled the
# kernels; a __device__ variable in a namespace found by its qualified name
# under NVRTC; a file() whose size matches some points and not others (those
# skipped with both sizes); and the collection's convsep.conf planning. Needs the
# GPU plugin (NVRTC, nvcc); skipped without it.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL symbols: $2"; fi; }
if [ ! -e build/libgpulab_gpu.so ]; then
    echo "symbols: skipped: needs build/libgpulab_gpu.so"
    echo "symbols: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
cat >"$T/k.cu" <<'K'
__constant__ float c_taps[9];
namespace stats { __device__ unsigned int d_hits; }
__global__ void stencil(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float s = 0.0f;
    for (int k = 0; k < 9; k++)
        s += c_taps[k] * in[(i + k) % n];
    out[i] = s;
    atomicAdd(&stats::d_hits, 1u);
}
K
conf() {   # conf NAME SYMBOL-LINES: a config with these symbol lines at line 9
    printf 'study = s\n[s]\nsource = k.cu\nvariants = stencil\nN = 1024, 2048\nbuffer.out = float[N] output\nbuffer.in = float[N] random(-1, 1)\nargs = out, in, int N\n%bgrid = cdiv(N, 256)\nblock = 256\n' "$2" >"$T/$1.conf"
}
conf good 'symbol.c_taps = float[9] normal(0, 1)\nsymbol.stats::d_hits = uint[1] zero output\nverify = none\n'
$G plan "$T/good.conf" --db "$T/d.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 0 ] && grep -qE "^compiled 1 kernel" "$T/out"' "good symbols: exit $rc: $(head -c 400 "$T/out")"
conf typo 'symbol.c_Taps = float[9]\n'
$G plan "$T/typo.conf" --db "$T/d.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 2 ] && grep -q "typo.conf:9: symbol '"'"'c_Taps'"'"' is not in k.cu (did you mean '"'"'c_taps'"'"'?)" "$T/out"' "typo: exit $rc: $(head -c 400 "$T/out")"
conf size 'symbol.c_taps = float[N/128]\n'
$G plan "$T/size.conf" --db "$T/d.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 2 ] && grep -q "size.conf:9: symbol '"'"'c_taps'"'"': float\[N/128\] is 32 bytes (8 elements), but __constant__ c_taps in k.cu is 36 bytes (9 float elements)" "$T/out"' "size: exit $rc: $(head -c 400 "$T/out")"
conf out 'symbol.c_taps = float[9] output\n'
$G plan "$T/out.conf" --db "$T/d.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 2 ] && grep -q "out.conf:9: symbol '"'"'c_taps'"'"' is an output, but it is __constant__" "$T/out"' "output constant: exit $rc: $(head -c 400 "$T/out")"
conf none 'symbol.d_hits = uint[1] output\n'
$G plan "$T/none.conf" --db "$T/d.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 2 ] && grep -q "none.conf:9: symbol '"'"'d_hits'"'"' is not in k.cu" "$T/out"' "unqualified name: exit $rc: $(head -c 400 "$T/out")"
# a file of 4096 bytes: 1024 floats; the N = 2048 point is skipped with both sizes
head -c 4096 /dev/zero >"$T/w.bin"
conf file 'buffer.w = float[N] file(w.bin)\n'
sed -i 's/^args = out, in, int N$/args = out, in, w, int N/' "$T/file.conf"
cat >"$T/k.cu" <<'K'
__global__ void stencil(float *out, const float *in, const float *w, int n) { }
K
$G plan "$T/file.conf" --db "$T/d.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 0 ] && grep -q "N = 2048 elements (8192 bytes), but file .*w.bin holds 4096 bytes" "$T/out"' "file size per point: exit $rc: $(head -c 600 "$T/out")"
chk 'grep -q "1 rejected by check" "$T/out"' "file size per point: not one rejected: $(grep configurations "$T/out")"
$G plan tests/collection/convsep.conf --db "$T/d.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "convsep.conf: exit $rc: $(head -c 400 "$T/out")"
echo "symbols: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
