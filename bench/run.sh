#!/bin/sh
# bench/run.sh - make bench: the benchmarks that measure gpulab against a reference
# in the same run (never timed assertions in tests). Everywhere: the report's speed on
# a 10 000-run database against its 5 s target (bench/report_speed.sh), how fast
# users' kernels compile (bench/compile_speed: needs the GPU plugin, not a GPU) and the
# CPU rows of matmul at every instruction-set level and OpenBLAS (bench/cpu_rows.sh), and the
# speed targets tests do not assert (bench/timing.sh: a hung run killed, SIGTERM obeyed, a
# long CPU run executed once). On a GPU
# machine with ncu: counter agreement and profiling overhead versus Nsight Compute.
# Prints ratios; exits 1 when ncu_agree's agreement targets are missed. Must not change
# the results database (each benchmark uses its own under /tmp).
dir=$(dirname "$0")
sh "$dir/report_speed.sh" || exit 1
sh "$dir/compile_speed" || exit 1
sh "$dir/cpu_rows.sh" || exit 1
sh "$dir/timing.sh" || exit 1
if ! ./build/gpulab device --db /tmp/gpulab_bench_device.db >/dev/null 2>&1 ||
   ! command -v ncu >/dev/null 2>&1; then
    echo "bench: the ncu benchmarks need a GPU and ncu (Nsight Compute) on PATH; not measured"
    exit 1
fi
# ncu_agree exits 1 when the agreement targets are missed: measure the overhead
# all the same, and fail afterwards
sh "$dir/ncu_agree"; agree=$?
sh "$dir/profile_overhead" || exit 1
exit $agree
