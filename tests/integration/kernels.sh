#!/bin/sh
# tests/integration/kernels.sh - users' kernels end to end, without a GPU: a
# kernel section (a small .cu written here) is planned with its named
# parameters in every label and compiled once per distinct point (then from the
# cache); a syntax error in the kernel exits 2 naming the kernel file and line
# and the config's `source` line; a C reference (verify = c:FILE.c:FUNC) is
# built at plan time once (then from the cache), a syntax error in it or a
# missing function exits 2 with the config's `verify` line; config mistakes
# exit 2 with file:line.
# Must not need a GPU. The compile checks need the GPU plugin's kernel_compile
# (NVRTC); where it is missing they are skipped with a note, nothing else is.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
ok()   { pass=$((pass + 1)); }
bad()  { fail=$((fail + 1)); echo "FAIL kernels: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }

mkdir -p "$T/k"
cat >"$T/k/scale.cu" <<'CU'
#include "scale.h"
template <int T>
__global__ void scale_tiled(float *out, const float *in, int n)
{
    int i = blockIdx.x * T + threadIdx.x;
    if (i < n)
        out[i] = FACTOR * in[i];
}

__global__ void scale(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = FACTOR * in[i];
}
CU
echo '#define FACTOR 2.0f' >"$T/k/scale.h"
cat >"$T/k.conf" <<'CONF'
study = ktest
[scale]
source = k/scale.cu
variants = scale, tiled = scale_tiled<TILE>
N = 1024, 4096
TILE = 64, 128, 2048
WPT = 1
defines = WPT
buffer.in = float[N] random
buffer.out = float[N] output
args = out, in, int N
grid = cdiv(N, TILE*WPT)
block = TILE
verify = scale
bytes = 8*N
CONF

# --- plan: points with their named parameters, the rejected block size -------------
$G plan "$T/k.conf" --db "$T/r.db" >"$T/plan" 2>"$T/err"; rc=$?
check '[ $rc -eq 0 ]' "plan exit code $rc: $(cat "$T/err")"
check 'grep -q "scale/tiled N=1024 .*TILE=64 WPT=1" "$T/plan"' "plan does not list tiled with TILE=64 WPT=1"
check 'grep -q "scale/scale N=4096 .*TILE=128 WPT=1" "$T/plan"' "plan does not list scale with TILE=128"
check '[ $(grep -c "scale/tiled N=" "$T/plan") -eq 6 ]' "tiled is not planned at 6 points"
check 'grep -q "block x = 2048 threads exceeds" "$T/plan"' "TILE=2048 is not rejected by check"
compiled=1
if grep -q "user kernels not compiled" "$T/plan" "$T/err"; then
    compiled=0
    echo "note kernels: the GPU plugin has no kernel_compile here ($(grep -h 'not compiled' "$T/plan" "$T/err")): compile checks skipped"
else
    # scale once (TILE is no template argument nor define), tiled per TILE that
    # launches (2048 is rejected): 3 compilations
    check 'grep -q "compiled 3 kernels, 0 from the cache" "$T/plan"' "first plan: $(grep compiled "$T/plan")"
    $G plan "$T/k.conf" --db "$T/r.db" --summary >"$T/plan2" 2>&1
    check 'grep -q "compiled 3 kernels, 3 from the cache" "$T/plan2"' "second plan: $(grep compiled "$T/plan2")"
fi
$G plan "$T/k.conf" --db "$T/r.db" --only tiled >"$T/only" 2>&1
check '[ $(grep -c "scale/scale " "$T/only") -eq 0 ] && [ $(grep -c "scale/tiled " "$T/only") -eq 6 ]' "--only tiled"
$G plan "$T/k.conf" --db "$T/r.db" --arch 80 --summary >/dev/null 2>&1; rc=$?
check '[ $rc -eq 0 ]' "--arch 80 exit code $rc"
$G plan "$T/k.conf" --db "$T/r.db" --arch x >/dev/null 2>"$T/err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "compute capability" "$T/err"' "--arch x: exit $rc"

# --- verify = c:FILE:FUNC: the C reference is built at plan time, once ---------------
cat >"$T/k/scale_ref.c" <<'C'
#include "plugin.h"
int scale_ref(const struct gl_params *p, const void *const *in, double *const *expected,
              char *err, size_t errlen)
{
    const float *x = in[0];
    (void)err; (void)errlen;
    for (long i = 0; i < p->n; i++)
        expected[0][i] = 2.0 * x[i] * (gl_param_value(p, "TILE") > 0);
    return 0;
}
C
sed 's/^verify = scale$/verify = c:k\/scale_ref.c:scale_ref/' "$T/k.conf" >"$T/cref.conf"
$G plan "$T/cref.conf" --db "$T/r.db" --summary >"$T/cref1" 2>"$T/err"; rc=$?
check '[ $rc -eq 0 ]' "C reference: plan exit $rc: $(cat "$T/err")"
check 'grep -q "compiled 1 C reference, 0 from the cache" "$T/cref1"' "C reference, first plan: $(grep compiled "$T/cref1")"
check '[ $(ls "$GPULAB_CACHE" | grep -c "^cref2-.*\.so$") -eq 1 ]' "C reference not in the cache: $(ls "$GPULAB_CACHE")"
$G plan "$T/cref.conf" --db "$T/r.db" --summary >"$T/cref2" 2>&1
check 'grep -q "compiled 1 C reference, 1 from the cache" "$T/cref2"' "C reference, second plan: $(grep compiled "$T/cref2")"
sed -i 's/return 0;$/return 0/' "$T/k/scale_ref.c"
$G plan "$T/cref.conf" --db "$T/r.db" >/dev/null 2>"$T/err"; rc=$?
check '[ $rc -eq 2 ]' "C reference syntax error: exit code $rc"
check 'grep -q "cref.conf:14: verify: C reference .*scale_ref.c: does not compile" "$T/err" && grep -q "scale_ref.c:9:.*error" "$T/err"' "C reference syntax error: $(head -c 600 "$T/err")"
sed -i 's/return 0$/return 0;/; s/^int scale_ref(/int scale_rf(/' "$T/k/scale_ref.c"
$G plan "$T/cref.conf" --db "$T/r.db" >/dev/null 2>"$T/err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "cref.conf:14: verify: .*no function .scale_ref." "$T/err"' "C reference without its function: exit $rc $(cat "$T/err")"
sed 's/^verify = scale$/verify = c:k\/nothere.c:scale_ref/' "$T/k.conf" >"$T/bad4.conf"
$G plan "$T/bad4.conf" --db "$T/r.db" >/dev/null 2>"$T/err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "bad4.conf:14: verify: cannot read the C reference .*nothere.c" "$T/err"' "missing C reference: exit $rc $(cat "$T/err")"

# --- a syntax error in the kernel: exit 2, the kernel's file and line ---------------
if [ $compiled -eq 1 ]; then
    sed '14s/;$//' "$T/k/scale.cu" >"$T/k/s2.cu"   # scale's statement loses its ';' 
    mv "$T/k/s2.cu" "$T/k/scale.cu"
    $G plan "$T/k.conf" --db "$T/r.db" >"$T/out" 2>"$T/err"; rc=$?
    check '[ $rc -eq 2 ]' "kernel syntax error: exit code $rc"
    check 'grep -q "scale.cu(15): error" "$T/err"' "compiler log does not name scale.cu(15): $(head -c 600 "$T/err")"
    check 'grep -q "k.conf:3: source" "$T/err"' "no config file:line of source: $(head -c 300 "$T/err")"
else
    echo "note kernels: kernel syntax error check skipped (no kernel_compile)"
fi

# --- config mistakes: exit 2 with file:line ------------------------------------------
sed 's/^defines = WPT$/defnes = WPT/' "$T/k.conf" >"$T/bad1.conf"
$G plan "$T/bad1.conf" --db "$T/r.db" >/dev/null 2>"$T/err"; rc=$?
check '[ $rc -eq 2 ]' "unknown key: exit code $rc"
check 'grep -q "bad1.conf:8: unknown key .defnes. (did you mean .defines.?)" "$T/err"' "unknown key: $(cat "$T/err")"
sed 's/^args = out, in, int N$/args = outt, in, int N/' "$T/k.conf" >"$T/bad2.conf"
$G plan "$T/bad2.conf" --db "$T/r.db" >/dev/null 2>"$T/err"; rc=$?
check '[ $rc -eq 2 ]' "arg naming no buffer: exit code $rc"
check 'grep -q "bad2.conf:11: args: .outt. is not a buffer (buffers: in, out)" "$T/err"' "arg naming no buffer: $(cat "$T/err")"
sed 's/^source = k\/scale.cu$/source = k\/nothere.cu/' "$T/k.conf" >"$T/bad3.conf"
$G plan "$T/bad3.conf" --db "$T/r.db" >/dev/null 2>"$T/err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "bad3.conf:3: source: .*nothere.cu" "$T/err"' "missing source: exit $rc $(cat "$T/err")"

echo "kernels: $pass passed, $fail failed"
[ $fail -eq 0 ]
