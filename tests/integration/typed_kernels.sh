#!/bin/sh
# tests/integration/typed_kernels.sh - users' 16-bit kernels and C references
# without a GPU: a kernel section whose kernels take __nv_bfloat16 and half
# buffers (cuda_bf16.h, cuda_fp16.h) and a half scalar plans, NVRTC compiling
# it; a C reference that reads half buffers through ktype.h and a named
# parameter plans with no `where` (without verify_reads, and with it);
# verify_reads mistakes exit 2 with file:line (the points-outer job order of
# such a section is test_expand's). Must not need a GPU. The compile checks need the GPU
# plugin's kernel_compile (NVRTC); where it is missing they are skipped with a
# note, nothing else is.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
ok()   { pass=$((pass + 1)); }
bad()  { fail=$((fail + 1)); echo "FAIL typed_kernels: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }

mkdir -p "$T/k"
cat >"$T/k/axpy16.cu" <<'CU'
#include <cuda_bf16.h>
#include <cuda_fp16.h>
/* out = s * a + b, computed in float and rounded once */
__global__ void axpy_f(__nv_bfloat16 *out, const half *a, const __nv_bfloat16 *b, int n, half s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __float2bfloat16(__half2float(s) * __half2float(a[i]) + __bfloat162float(b[i]));
}
/* the same in 16-bit arithmetic */
__global__ void axpy_16(__nv_bfloat16 *out, const __half *a, const __nv_bfloat16 *b, int n, __half s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __hadd(__float2bfloat16(__half2float(__hmul(s, a[i]))), b[i]);
}
CU
cat >"$T/k/axpy16_ref.c" <<'C'
#include <stdint.h>
#include "ktype.h"   /* gl_from_half, gl_from_bf16 */
#include "plugin.h"
int axpy_ref(const struct gl_params *p, const void *const *in, double *const *expected,
             char *err, size_t errlen)
{
    const uint16_t *a = in[1], *b = in[2];
    long scale = gl_param_value(p, "SCALE");
    (void)err; (void)errlen;
    for (long i = 0; i < p->n; i++)
        expected[0][i] = (double)scale * gl_from_half(a[i]) + gl_from_bf16(b[i]);
    return 0;
}
C
cat >"$T/axpy.conf" <<'CONF'
study = axpy16
[axpy]
source = k/axpy16.cu
variants = f = axpy_f, h = axpy_16
N = 1000, 4096
BS = 128, 256
buffer.out = bfloat16[N] output
buffer.a = half[N] random
buffer.b = bfloat16[N] const(0.5)
args = out, a, b, int N, half 3
grid = cdiv(N, BS)
block = BS
verify = f
CONF

# --- 16-bit buffers and a half scalar: planned and compiled ------------------------
$G plan "$T/axpy.conf" --db "$T/r.db" >"$T/plan" 2>"$T/err"; rc=$?
check '[ $rc -eq 0 ]' "16-bit section: plan exit $rc: $(head -c 600 "$T/err")"
check '[ $(grep -c "axpy/[fh] N=" "$T/plan") -eq 8 ]' "16-bit section: not 8 runs planned: $(cat "$T/plan")"
if grep -q "user kernels not compiled" "$T/plan" "$T/err"; then
    echo "note typed_kernels: the GPU plugin has no kernel_compile here: compile checks skipped"
else
    check 'grep -q "compiled 2 kernels, 0 from the cache" "$T/plan"' "16-bit section: $(grep compiled "$T/plan")"
fi
sed 's/^args = .*/args = out, a, b, int N, half 70000/' "$T/axpy.conf" >"$T/big.conf"
$G plan "$T/big.conf" --db "$T/r.db" >"$T/plan" 2>&1
check 'grep -q "big.conf:10: args: half 70000 = 70000 is out of range for half (largest 65504)" "$T/plan"' "a half scalar beyond 65504 is the config's error: $(head -5 "$T/plan")"

# --- a C reference reading a named parameter: no `where` needed -------------------
sed 's/^verify = f$/verify = c:k\/axpy16_ref.c:axpy_ref/; s/^args = .*/args = out, a, b, int N, half SCALE/' \
    "$T/axpy.conf" >"$T/cref.conf"
echo 'SCALE = 3' >>"$T/cref.conf"
$G plan "$T/cref.conf" --db "$T/r.db" >"$T/plan" 2>"$T/err"; rc=$?
check '[ $rc -eq 0 ]' "C reference with SCALE: plan exit $rc: $(head -c 600 "$T/err")"
check 'grep -q "compiled 1 C reference" "$T/plan"' "the C reference reading ktype.h was not built: $(grep compiled "$T/plan")"
# SCALE is read only by the reference (the kernel takes 3): declared, or counted by default
sed 's/^args = .*/args = out, a, b, int N, half 3/' "$T/cref.conf" >"$T/only.conf"
$G plan "$T/only.conf" --db "$T/r.db" >"$T/plan" 2>"$T/err"; rc=$?
check '[ $rc -eq 0 ]' "SCALE read only by the reference, no verify_reads: exit $rc: $(cat "$T/err")"
echo 'verify_reads = SCALE, N' >>"$T/only.conf"
$G plan "$T/only.conf" --db "$T/r.db" >"$T/plan" 2>"$T/err"; rc=$?
check '[ $rc -eq 0 ]' "verify_reads = SCALE, N: exit $rc: $(cat "$T/err")"

# --- verify_reads mistakes: exit 2 with file:line ----------------------------------
sed 's/^verify_reads = .*/verify_reads = SCALEE, N/' "$T/only.conf" >"$T/bad1.conf"
$G plan "$T/bad1.conf" --db "$T/r.db" >/dev/null 2>"$T/err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "bad1.conf:15: verify_reads: .SCALEE. is not an integer parameter of section \[axpy\] (did you mean .SCALE.?)" "$T/err"' "verify_reads typo: exit $rc: $(cat "$T/err")"
sed 's/^verify_reads = .*/verify_reads = N/' "$T/only.conf" >"$T/bad2.conf"
$G plan "$T/bad2.conf" --db "$T/r.db" >/dev/null 2>"$T/err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "bad2.conf:14: named parameter .SCALE. is read by nothing" "$T/err"' "SCALE undeclared: exit $rc: $(cat "$T/err")"
{ cat "$T/axpy.conf"; echo 'verify_reads = N'; } >"$T/bad3.conf"
$G plan "$T/bad3.conf" --db "$T/r.db" >/dev/null 2>"$T/err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "bad3.conf:14: verify_reads: only a C reference" "$T/err"' "verify_reads with a variant reference: exit $rc: $(cat "$T/err")"

echo "typed_kernels: $pass passed, $fail failed"
[ $fail -eq 0 ]
