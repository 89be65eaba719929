#!/bin/bash
# bench/smem_probe/run.sh - the probe's run on the GPU machine (one call of the
# device tool): P = folder holding smem_probe and lib_transpose.cubin (built by
# build.sh here), O = where the results go. Writes probe.log (everything),
# list.tsv (the chip's SASS metrics), pc.tsv.gz (per-instruction values),
# sass.txt (the shared-memory instructions of each kernel, cuobjdump/nvdisasm),
# ncu.txt (ncu's instrumented counters of the same kernels), env.txt.
P=${1:-.probe-sass}
O=${2:-${OUT:-/tmp/smem_probe_out}}
mkdir -p "$O"
exec > >(tee "$O/probe.log") 2>&1
export PATH=$PATH:/usr/local/cuda/bin
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
{ nvidia-smi; nvidia-smi -q -d CLOCK; "$NCU" --version; nvcc --version; } > "$O/env.txt" 2>&1
echo "== list"; date
timeout 20 "$P/smem_probe" list > "$O/list.tsv" 2>&1; echo "list rc=$?"
grep -c SASSMETRIC "$O/list.tsv"
grep -i -E "shared|ideal|memory_|wavefront|thread_inst" "$O/list.tsv" | cut -f2 | tr '\n' ' '; echo
echo "== sass"; date
PC_TSV="$O/pc.tsv" timeout 100 "$P/smem_probe" sass; echo "sass rc=$?"
echo "== coexist"; date
timeout 60 "$P/smem_probe" coexist; echo "coexist rc=$?"
echo "== sass listing"; date
{ echo "### smem_probe"; cuobjdump -sass "$P/smem_probe" | grep -E "Function :|LDS|STS|LDSM|ATOMS|STSM|LDGSTS";
  echo "### lib_transpose.cubin"; nvdisasm -c "$P/lib_transpose.cubin" | grep -E "\.text\.|LDS|STS|LDSM"; } > "$O/sass.txt" 2>&1
wc -l "$O/sass.txt"
echo "== ncu"; date
IDEAL=$(timeout 20 "$NCU" --query-metrics --chip gh100 2>/dev/null | awk '{print $1}' | grep -i ideal | grep -i -E "shared|wavefront" | sed 's/$/.sum/' | paste -sd, -)
echo "ncu ideal metrics: $IDEAL"
M=smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
[ -n "$IDEAL" ] && M="$M,$IDEAL"
timeout 60 "$NCU" --metrics "$M" --cache-control none --clock-control none --csv --print-units base \
    "$P/smem_probe" plain > "$O/ncu.txt" 2>&1; echo "ncu rc=$?"
wc -l "$O/ncu.txt"
gzip -f "$O/pc.tsv"
ls -la "$O"; date
