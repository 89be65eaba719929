#!/bin/bash
# bench/smem_probe/run2.sh - the probe's second run on the GPU machine: the flow
# gpulab would use (flow), the cost of the instrumented run per metric set
# (cost 2/4/5), and SASS with a range profiler set up but no session (rponly).
# P = the probe's folder, O = results (probe2.log, pc2.tsv.gz).
P=${1:-.probe-sass}
O=${2:-${OUT:-/tmp/smem_probe_out}}
mkdir -p "$O"
exec > >(tee "$O/probe2.log") 2>&1
echo "== flow"; date
PC_TSV="$O/pc2.tsv" timeout 100 "$P/smem_probe" flow; echo "flow rc=$?"
for s in 2 4 5; do echo "== cost $s"; timeout 60 "$P/smem_probe" cost $s; echo "cost rc=$?"; done
echo "== rponly"; timeout 30 "$P/smem_probe" rponly; echo "rponly rc=$?"
gzip -f "$O/pc2.tsv"; ls -la "$O"; date
