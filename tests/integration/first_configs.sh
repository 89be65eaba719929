#!/bin/sh
# tests/integration/first_configs.sh - step 15: the collection's configs as a
# user first writes them (tests/collection/*.first.conf: shared keys before the
# first section, sizes as expressions, template variants without NAME =, no
# compiler line) plan; an output nothing can check is refused at plan time
# unless the section says verify = none; a bad --arch is a command-line error.
# Must not need a GPU; needs the GPU plugin (NVRTC) and nvcc.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL first_configs: $*"; }
if [ ! -e build/libgpulab_gpu.so ]; then
    echo "first_configs: skipped: needs build/libgpulab_gpu.so"
    echo "first_configs: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
n=0
for c in tests/collection/*.first.conf; do
    n=$((n + 1))
    if grep -q '^compiler' "$c"; then bad "$c sets compiler (auto is the default)"; else ok; fi
    if $G plan "$c" --db "$T/c.db" >"$T/out" 2>&1 && grep -qE ': [1-9][0-9]* jobs?$' "$T/out"; then ok
    else bad "$c does not plan: $(head -c 600 "$T/out")"; fi
done
[ $n -ge 10 ] && ok || bad "only $n first-write configs"
# an output with an init and no reference: refused, unless verify = none
cat > "$T/k.cu" <<'K'
__global__ void acc(float *y, const float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&y[i % 16], x[i]);
}
K
cat > "$T/u.conf" <<'C'
source = k.cu
N = 1<<12
buffer.x = float[N] random
buffer.y = float[16] zero output
args = y, x, int N
grid = cdiv(N, 256)
block = 256
[acc]
variants = acc
C
$G plan "$T/u.conf" --db "$T/c.db" >"$T/out" 2>&1
rc=$?
[ $rc -eq 2 ] && ok || bad "unverifiable output: plan exited $rc"
grep -q "u.conf:4: buffer.y is an output with an init" "$T/out" && grep -q "verify = none" "$T/out" && ok \
    || bad "unverifiable output: $(cat "$T/out")"
echo "verify = none" >> "$T/u.conf"
$G plan "$T/u.conf" --db "$T/c.db" >"$T/out" 2>&1 && ok || bad "verify = none: $(cat "$T/out")"
# a bad --arch: a command-line error, before any config is read
$G plan "$T/u.conf" --arch 91 >"$T/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "did you mean 90" "$T/out" && ok || bad "--arch 91: rc $rc: $(head -3 "$T/out")"
# a where before the first section may name named parameters; its mistakes are its own
where_conf() {   # where_conf WHERE...: a small tiled SGEMM with those where lines up top
    echo "source = $(pwd)/tests/collection/sgemm_tuned.cu"
    printf 'N = 256\nBM = 16, 32\nBN = 16, 32\nBK = 8\nTM = 1, 2\nTN = 1\nPAD = 0\n'
    echo "defines = BM, BN, BK, TM, TN, PAD"
    for w in "$@"; do echo "where = $w"; done
    cat <<'CONF'
[a]
variants = sgemm_tiled
buffer.C = float[N*N] output
buffer.A = float[N*N] random
buffer.B = float[N*N] random
args = C, A, B, int N
grid = cdiv(N, BN), cdiv(N, BM)
block = (BM / TM) * (BN / TN)
smem = 4 * BK * (BM + PAD + BN + PAD)
verify = none
CONF
}
where_conf "TM <= BM" "(BM / TM) * BN >= 256" >"$T/w.conf"
$G plan "$T/w.conf" >"$T/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "7 configurations" "$T/out" && ok || bad "where with named parameters before the first section: rc $rc: $(grep -E "configurations|:[0-9]+:" "$T/out" | head -3)"
where_conf "TM <= BM" "(BM / TM) >= 8 &&" >"$T/w.conf"
$G plan "$T/w.conf" >"$T/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "w.conf:11: where '(BM / TM) >= 8 &&': expected a value" "$T/out" && ok || bad "a where's syntax error before the first section: rc $rc: $(head -3 "$T/out")"
where_conf "TM <= Bm" >"$T/w.conf"
$G plan "$T/w.conf" >"$T/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "w.conf:10: where 'TM <= Bm': unknown parameter 'Bm' (did you mean 'BM'?)" "$T/out" && ok || bad "a where's misspelt name before the first section: rc $rc: $(head -3 "$T/out")"
echo "first_configs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
