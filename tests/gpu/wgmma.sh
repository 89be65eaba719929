#!/bin/sh
# tests/gpu/wgmma.sh - SEPARATE ON PURPOSE (see tests/integration/collection_90a.sh):
# the sm_90a GEMM of tests/collection_90a/wgmma_gemm.conf (TMA descriptors +
# wgmma) on the GPU, beside the built-in cuBLAS row at the same sizes (run by
# tests/gpu/run.sh): every wgmma and naive run ok, verified and profiled; the
# cuBLAS rows ok; the TFLOP/s of each printed side by side. Until this gpulab
# knows `arch = 90a` (another branch adds it) it says so and skips.
# Ends with "wgmma-gpu: N passed, N failed". Must not rebuild anything.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL wgmma-gpu: $2"; fi; }
c=tests/collection_90a/wgmma_gemm.conf
db=$T/w.db
$G plan "$c" --db "$db" >"$T/out" 2>&1
if grep -qE "wgmma_gemm.conf:[0-9]+: (bad number '90a' for arch|unknown key 'arch')" "$T/out"; then
    echo "wgmma-gpu: skipped: this gpulab has no 'arch = 90a' yet"
    echo "wgmma-gpu: 0 passed, 0 failed"
    exit 0
fi
q() { $G query --db "$db" --tsv "$1" | tail -n 1; }
$G run "$c" --db "$db" >"$T/run" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "exit $rc: $(tail -5 "$T/run")"
n=$(q "select count(*) from results where family = 'wgmma' and status = 'ok' and (max_rel_err is not null or (select check_method from run where run.id = results.run_id) = 'written') and passes > 0 and is_latest = 1")
chk '[ "$n" -eq 4 ]' "$n wgmma/naive runs ok, verified and profiled (want 4): $(q "select group_concat(variant || ' ' || status || ' ' || ifnull(reason, ''), '; ') from results where family = 'wgmma'")"
n=$(q "select count(*) from results where variant = 'cublas' and status = 'ok' and is_latest = 1")
chk '[ "$n" -eq 2 ]' "$n cuBLAS runs ok (want 2)"
$G query --db "$db" --md "select variant, coalesce(n, m) as size, uparams, round(median_ms, 4) as median_ms,
    round(gflops / 1000.0, 2) as tflops, max_rel_err from results where is_latest = 1
    order by size, variant"
echo "wgmma-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
