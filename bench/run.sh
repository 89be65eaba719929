#!/bin/sh
# bench/run.sh - make bench: the benchmarks that measure gpulab against a reference
# in the same run (never timed assertions in tests). On a GPU machine with ncu:
# counter agreement and profiling overhead versus Nsight Compute. Prints ratios.
# Must not change the results database (each benchmark uses its own under /tmp).
dir=$(dirname "$0")
if ! ./build/gpulab device --db /tmp/gpulab_bench_device.db >/dev/null 2>&1 ||
   ! command -v ncu >/dev/null 2>&1; then
    echo "bench: needs a GPU and ncu (Nsight Compute) on PATH; nothing measured"
    exit 1
fi
sh "$dir/ncu_agree" && sh "$dir/profile_overhead"
