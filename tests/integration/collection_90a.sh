#!/bin/sh
# tests/integration/collection_90a.sh - the sm_90a GEMM of tests/collection_90a/
# (wgmma + two TMA descriptors, beside the cuBLAS row) plans with `arch = 90a`:
# exit 0, its two kernels compiled (wgmma exists only on sm_90a), the cuBLAS row
# planned beside them. Must not need a GPU; needs the GPU plugin and nvcc.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL collection_90a: $2"; fi; }
if [ ! -e build/libgpulab_gpu.so ]; then
    echo "collection_90a: skipped: needs build/libgpulab_gpu.so"
    echo "collection_90a: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
c=tests/collection_90a/wgmma_gemm.conf
$G plan "$c" --db "$T/c.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "$c: plan exited $rc: $(head -c 800 "$T/out")"
chk 'grep -qE "^compiled 2 kernels" "$T/out"' "$c: kernels not compiled (sm_90a): $(head -c 800 "$T/out")"
chk 'grep -qE "cublas +2 configurations" "$T/out"' "$c: no cuBLAS row: $(head -c 800 "$T/out")"
echo "collection_90a: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
