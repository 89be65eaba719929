#!/bin/sh
# tests/integration/collection.sh - every config of tests/collection/ (kernel files
# in the style of public code, each with the config a user would write) plans
# without a GPU: exit 0, its kernels compiled, at least one point to run, no
# error line. An empty collection is a failure. Must not need a GPU; needs the GPU plugin (NVRTC) and nvcc, and
# says it skipped where the plugin is missing.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL collection: $*"; }
if [ ! -e build/libgpulab_gpu.so ]; then
    echo "collection: skipped: needs build/libgpulab_gpu.so (built without a CUDA compiler)"
    echo "collection: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
n=0
for c in tests/collection/*.conf; do
    [ -e "$c" ] || continue
    n=$((n + 1))
    $G plan "$c" --db "$T/c.db" >"$T/out" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then ok; else bad "$c: plan exited $rc: $(head -c 600 "$T/out")"; continue; fi
    # kernels compiled (NVRTC or nvcc), and points planned (no GPU here: "no-gpu")
    if grep -qE '^compiled [1-9][0-9]* kernel' "$T/out"; then ok
    else bad "$c: plan compiled no kernel: $(head -c 600 "$T/out")"; fi
    if grep -qE ': [1-9][0-9]* jobs?$' "$T/out"; then ok
    else bad "$c: plan shows no point: $(head -c 600 "$T/out")"; fi
done
[ $n -gt 0 ] || bad "tests/collection/ has no config"
echo "collection: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
