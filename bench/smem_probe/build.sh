#!/bin/sh
# bench/smem_probe/build.sh - build the probe (from the repository root, after
# `make`: it links gpulab's CUPTI engine objects from build/obj) into OUTDIR
# (default build/smem_probe): smem_probe and lib_transpose.cubin.
set -e
OUTDIR=${1:-build/smem_probe}
CUDA=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$OUTDIR"
"$CUDA/bin/nvcc" -cubin -arch=sm_90 -lineinfo -O3 -o "$OUTDIR/lib_transpose.cubin" \
    bench/smem_probe/lib_transpose.cu
"$CUDA/bin/nvcc" -O3 -lineinfo -std=c++17 -arch=sm_90 -Isrc/core -Icupti -Ibench/smem_probe \
    -o "$OUTDIR/smem_probe" bench/smem_probe/smem_probe.cu build/obj/cupti/*.o \
    build/obj/src/core/*.o -L"$CUDA/lib64" -L"$CUDA/lib64/stubs" -lcupti -lcuda \
    -Xcompiler -fopenmp -Xlinker -rpath,"$CUDA/lib64"
echo "built $OUTDIR/smem_probe and $OUTDIR/lib_transpose.cubin"
