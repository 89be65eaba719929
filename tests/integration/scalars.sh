#!/bin/sh
# tests/integration/scalars.sh - scalars as C writes them, type parameters and the
# args check, without a GPU. A kernel section with floating scalars (1/sqrt(N),
# 1 - 0.9, hexadecimal, half, bfloat16) plans; every mistake is a file:line error
# with exit 2 and the nearest valid name: a floating value in an int argument, a
# constant out of range for its type (half 1e6) or rounding to 0, an unknown type
# or function, a type parameter in an expression, in `where` or in `defines`, a
# misspelt type in `T = ...`, a mix of types and numbers; and, at plan time (the
# compiler's lowered names, NVRTC and nvcc), args that do not match the kernel's
# parameters (swapped, too few, too many, a double where a float is, a buffer of
# another element type, a template instance at T = double). A type parameter
# sweeps (T = float, double) with its type in the plan. The existing configs plan
# as before (tests/integration/kernels.sh and collection.sh cover them). Must not
# need a GPU. The plan-time checks need the GPU plugin (NVRTC, nvcc): without it
# they are skipped with a note.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0; skipped=0
ok()   { pass=$((pass + 1)); }
bad()  { fail=$((fail + 1)); echo "FAIL scalars: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }

cat >"$T/k.cu" <<'CU'
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void saxpy(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
template <typename T>
__global__ void axpby(int n, T a, const T *__restrict__ x, T b, T *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + b * y[i];
}
__global__ void h16(__half *y, const __nv_bfloat16 *x, __half s, __nv_bfloat16 t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = __float2half(__half2float(s) * __bfloat162float(x[i]) + __bfloat162float(t));
}
CU
# line numbers below count from this file's first line
cat >"$T/s.conf" <<'EOF'
study = scalars
[s]
source = k.cu
variants = saxpy
N = 1024, 4096
buffer.x = float[N] random
buffer.y = float[N] random output
args = y, x, float 1/sqrt(N), int N
grid = cdiv(N, 256)
block = 256
verify = none
EOF
cat >"$T/t.conf" <<'EOF'
study = typed
[t]
source = k.cu
variants = ax = axpby<T>
T = float, double
N = 1024
buffer.x = T[N] random
buffer.y = T[N] random output
args = int N, T 1 - 0.9, x, T 0x1.8p-3, y
grid = cdiv(N, 256)
block = 256
verify = none
EOF
cat >"$T/h.conf" <<'EOF'
study = h16
[h]
source = k.cu
variants = h16
N = 1024
buffer.x = bfloat16[N] random
buffer.y = half[N] output
args = y, x, half 0.25, bfloat16 -2.5, int N
grid = cdiv(N, 256)
block = 256
EOF

# $1 config, $2 sed script, $3 the expected message (a fixed string), $4 what
fails() {
    sed "$2" "$T/$1" >"$T/e.conf"
    $G plan "$T/e.conf" --db "$T/e.db" >"$T/out" 2>&1; rc=$?
    msg=$(grep -v '^gpulab: \*\*\*' "$T/out" | head -3)
    if [ $rc -eq 2 ] && grep -qF -- "$3" "$T/out"; then ok
    else bad "$4: exit $rc (want 2), got: $msg"; fi
}

# --- read time: no compiler needed -----------------------------------------------
fails s.conf 's/int N$/int 0.5/' "e.conf:8: args: 'int 0.5': int is an integer type" "a floating value in an int"
fails s.conf 's/float 1\/sqrt(N)/half 1e6/' "e.conf:8: args: half 1e6 = 1e+06 is out of range for half (largest 65504)" "half 1e6"
fails s.conf 's/float 1\/sqrt(N)/float 1e-50/' "e.conf:8: args: float 1e-50 = 1e-50 rounds to 0 in float" "float 1e-50"
fails s.conf 's/float 1\/sqrt(N)/bfloat16 1e39/' "e.conf:8: args: bfloat16 1e39 = 1e+39 is out of range for bfloat16" "bfloat16 1e39"
fails s.conf 's/float 1\/sqrt(N)/flaot 2/' "e.conf:8: args: 'flaot 2': unknown type 'flaot'" "a misspelt type"
fails s.conf 's/float 1\/sqrt(N)/flot 2/' "(did you mean 'float'?)" "the nearest type"
fails s.conf 's/float 1\/sqrt(N)/float sqrtt(N)/' "e.conf:8: args: 'float sqrtt(N)': unknown function 'sqrtt' (did you mean 'sqrt'?)" "a misspelt function"
fails s.conf 's/float 1\/sqrt(N)/float 1\/sqrt(NN)/' "e.conf:8: args: 'float 1/sqrt(NN)': unknown name 'NN'" "an unknown parameter"
fails s.conf 's/float 1\/sqrt(N)/float N % 3/' "'%' is for integers" "% in a floating argument"
fails s.conf 's/float 1\/sqrt(N)/float 0.5.5/' "malformed number" "0.5.5"
fails t.conf 's/^T = float, double/T = float, 3/' "e.conf:5: T = float, 3: a parameter is either a type parameter" "a type and a number"
fails t.conf 's/^T = float, double/T = float, dobule/' "e.conf:5: T: unknown type 'dobule' (did you mean 'double'?)" "a misspelt type in T"
fails t.conf 's/^block = 256/block = T/' "e.conf:11: block: 'T' is a type parameter (float, double)" "T in block"
fails t.conf 's/^N = 1024/N = 1024\nwhere = T > 0/' "e.conf:7: where: 'T' is a type parameter" "T in where"
fails t.conf 's/^N = 1024/N = 1024\ndefines = T/' "e.conf:7: defines: 'T' is a type parameter" "T in defines"
fails t.conf 's/T 1 - 0.9/T 2*T/' "e.conf:9: args: 'T 2*T': 'T' is a type parameter" "T in a scalar's expression"
fails t.conf 's/T 0x1.8p-3/T 1e300/' "e.conf:9: args: at T = float: float 1e300 = 1e+300 is out of range for float" "1e300 at T = float"
fails t.conf 's/^N = 1024/N = 1024\nU = 8/; s/buffer.x = T/buffer.x = U/' "e.conf:8: buffer.x: 'U' is an integer parameter, not a type" "an integer parameter as a type"

if [ ! -e build/libgpulab_gpu.so ]; then
    echo "scalars: the plan-time checks skipped: needs build/libgpulab_gpu.so (built without a CUDA compiler)"
    skipped=1
else
    # --- plans: the values, and a type parameter's points ----------------------------
    $G plan "$T/s.conf" --db "$T/r.db" >"$T/out" 2>&1; rc=$?
    check '[ $rc -eq 0 ] && grep -q "^compiled 1 kernel" "$T/out"' "s.conf: exit $rc: $(head -3 "$T/out")"
    $G plan "$T/t.conf" --db "$T/r.db" >"$T/out" 2>&1; rc=$?
    check '[ $rc -eq 0 ] && grep -q "^compiled 2 kernels" "$T/out"' "t.conf: exit $rc: $(head -3 "$T/out")"
    check 'grep -q " t/ax N=1024 .*T=float" "$T/out" && grep -q " t/ax N=1024 .*T=double" "$T/out"' "t.conf: no T=float and T=double points: $(grep t/ax "$T/out")"
    $G plan "$T/h.conf" --db "$T/r.db" >"$T/out" 2>&1; rc=$?
    check '[ $rc -eq 0 ]' "h.conf (half 0.25, bfloat16 -2.5): exit $rc: $(head -3 "$T/out")"

    # --- plan time: args against the kernel's parameters -----------------------------
    fails s.conf 's/float 1\/sqrt(N), int N/int N, float 2/' "e.conf:8: args: 3rd argument 'int N' but saxpy's 3rd parameter is float a" "swapped scalars"
    fails s.conf 's/, int N$//' "e.conf:8: args: 3 arguments but saxpy has 4 parameters (float *y, const float *x, float a, int n): the 4th, int n, has none" "too few"
    fails s.conf 's/int N$/int N, int 1/' "e.conf:8: args: 5 arguments but saxpy has 4 parameters" "too many"
    fails s.conf 's/float 1\/sqrt(N)/double 1\/sqrt(N)/' "e.conf:8: args: 3rd argument 'double 1/sqrt(N)' but saxpy's 3rd parameter is float a" "a double for a float"
    fails s.conf 's/buffer.x = float/buffer.x = double/' "e.conf:8: args: 2nd argument 'x' (a double buffer) but saxpy's 2nd parameter is const float *x" "a double buffer for float *"
    fails s.conf 's/^buffer.x.*//; s/args = y, x,/args = y, int N,/' "e.conf:8: args: 2nd argument 'int N' but saxpy's 2nd parameter is const float *x" "a scalar for a pointer"
    fails t.conf 's/T 1 - 0.9/float 1 - 0.9/' "e.conf:9: args: 2nd argument 'float 1 - 0.9' but axpby<double>'s 2nd parameter is double a (variant ax = axpby<T> at N=1024 seed=42 cache=cold T=double)" "float at T = double"
    fails h.conf 's/half 0.25, bfloat16 -2.5/bfloat16 0.25, half -2.5/' "e.conf:8: args: 3rd argument 'bfloat16 0.25' but h16's 3rd parameter is __half s" "bfloat16 for __half"
    # nvcc finds the same mismatch in its cubin's names
    fails s.conf 's/^variants = saxpy/variants = saxpy\ncompiler = nvcc/; s/float 1\/sqrt(N), int N/int N, float 2/' "e.conf:9: args: 3rd argument 'int N' but saxpy's 3rd parameter is float a" "swapped scalars (nvcc)"
fi
if [ "$skipped" -gt 0 ]; then
    echo "scalars: $pass passed, $fail failed, $skipped skipped"
else
    echo "scalars: $pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
