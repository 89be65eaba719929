#!/bin/sh
# tests/gpu/run.sh - the GPU suite (make test-gpu), run on a machine with a GPU
# against an already built tree: every GPU test program, users' kernels and
# plugins (kernels.sh, plugins.sh), several GPUs (gpus.sh), the exact bank conflicts
# (smem.sh), one collection per worker and metric set (reuse.sh), buffers kept between runs (pool.sh), shards and merge (shard.sh), the collection of kernels as users write
# them (collection.sh: tests/collection/*.conf; objects.sh, wgmma.sh), `compare`'s A/A and planted slowdowns
# (compare.sh), then the smoke configs
# through the driver, failing on any wrong or failed result, on missing counters,
# SM clocks or per-level bytes, on zero-copy runs not placed on the host link, and on
# missing or unordered memory ceilings. Ends with "N passed, N failed". Must not
# rebuild anything.
G=./build/gpulab
if [ ! -x "$G" ] || [ ! -f build/libgpulab_gpu.so ]; then
    echo "test-gpu: build/ is missing: run make first (on a machine with the compilers)"
    echo "0 passed, 1 failed"
    exit 1
fi
passed=0; failed=0
log=$(mktemp)
# add_up WHAT NAME RC: add the last "NAME: N passed, N failed" line of $log (the
# output of WHAT, which exited with RC; NAME a pattern) to the totals. No such
# line, or an exit other than 0 with no failure counted, counts as one failure.
add_up() {
    line=$(grep -E "^$2: [0-9]+ passed, [0-9]+ failed\$" "$log" | tail -n 1)
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\1/')
    f=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\2/')
    [ -z "$line" ] && { p=0; f=1; echo "$1: no result line (exit $3)"; }
    [ "$3" -ne 0 ] && [ "$f" -eq 0 ] && f=1
    passed=$((passed + p)); failed=$((failed + f))
}
for t in build/tests/gpu/test_*; do
    [ -x "$t" ] || continue
    "$t" >"$log" 2>&1; rc=$?
    cat "$log"
    add_up "$t" '[A-Za-z0-9_.-]+' $rc
done
# kernels: users' kernels: the examples, the cache, resume by source hash, a faulting kernel
# plugins: users' plugins: the example plugins' GPU and CPU variants through the host's harness
# gpus: several GPUs (run --gpus) and the counters a later run's crash took
# smem: exact shared-memory conflicts: the transposes, matmul/shared, the metric lists
# library: library calls counted (one kernel: auto ranges), the user session charged to its runs
# shard: shards of the smoke sweep and their merge: the runs of the whole sweep, counters included
# symbols: __constant__ and __device__ symbols, inputs restored before every run and pass, the new inits
# launches: launch sequences: the collection's histogram and multi-pass reduction, counters per launch
# collection: every config of tests/collection/ ok, verified and profiled
# objects: arrays, textures, surfaces, tensor maps, int8 and unordered outputs (step 16)
# wgmma: the sm_90a wgmma + TMA GEMM beside cuBLAS (skips until `arch = 90a` exists)
# compare: gpulab compare's targets: an A/A of S2's GPU section, planted 3 % and 1 % slowdowns
# integrity: a kernel that computes once and returns early is wrong; energy of vecadd runs
# cref_reads: a C reference reading a parameter verify_reads does not list fails its runs
for s in kernels plugins gpus smem library reuse pool shard symbols launches collection objects wgmma compare integrity modern cref_reads; do
    sh tests/gpu/$s.sh >"$log" 2>&1; rc=$?
    cat "$log"
    add_up tests/gpu/$s.sh "$s-gpu" $rc
done
# gpulab metrics lists the GPU's counters; a pattern filters them
$G metrics >"$log" 2>/dev/null; rc=$?
chk() { if eval "$1"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL test-gpu: $2"; fi; }
chk '[ $rc -eq 0 ] && [ "$(wc -l <"$log")" -gt 10000 ]' "gpulab metrics: exit $rc, $(wc -l <"$log") names"
chk 'grep -qx "dram__bytes_read.sum" "$log"' "gpulab metrics lacks dram__bytes_read.sum"
got=$($G metrics 'lts__t_sector_hit_rate.pct' 2>/dev/null)
chk '[ "$got" = "lts__t_sector_hit_rate.pct" ]' "gpulab metrics PATTERN printed '$got'"
n=$($G metrics 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_[ls][dt].sum' 2>/dev/null | wc -l)
chk '[ "$n" -eq 2 ]' "gpulab metrics GLOB matched $n names (want 2)"
$G metrics no_such_counter_zz >/dev/null 2>&1; rc=$?
chk '[ $rc -eq 1 ]' "gpulab metrics with no match exits $rc (want 1)"
# The smoke sweep through the whole driver: every GPU run must be ok and profiled.
db=${GPULAB_TEST_DB:-$(mktemp -u /tmp/gpulab_smoke_XXXX.db)}
$G run configs/smoke.conf --db "$db" --force >"$log" 2>&1; rc=$?
cat "$log"
chk '[ $rc -eq 0 ]' "smoke sweep exit $rc"
q() { $G query --db "$db" --csv "$1" | tail -n 1; }
gpu_ok=$(q "select count(*) from results where device_kind='gpu' and status='ok' and is_latest=1")
gpu_bad=$(q "select count(*) from results where device_kind='gpu' and status in ('wrong','failed') and is_latest=1")
unprof=$(q "select count(*) from results where device_kind='gpu' and status='ok' and is_latest=1 and passes is null")
chk '[ "$gpu_ok" -gt 0 ]' "no ok GPU rows"
chk '[ "$gpu_bad" -eq 0 ]' "$gpu_bad GPU rows wrong or failed"
chk '[ "$unprof" -eq 0 ]' "$unprof ok GPU rows without counters"
fams=$(q "select count(distinct family) from results where device_kind='gpu' and status='ok'")
chk '[ "$fams" -eq 3 ]' "GPU families with ok rows: $fams (want 3)"
# The same configs give the same rows as the code that made the H100 fixture:
# every (family, variant, parameters, status) of the fixture's smoke sweep, and the
# same results columns.
key="select family||'/'||variant||' '||coalesce(n,'')||' '||coalesce(m,'')||' '||coalesce(p,'')||' '||coalesce(bs,'')||' '||coalesce(k,'')||' '||coalesce(r,'')||' '||coalesce(g,'')||' '||coalesce(seed,'')||' '||coalesce(mem,'')||' '||coalesce(grid,'')||' '||coalesce(cache,'')||' '||status from results where is_latest=1 order by 1"
cp tests/data/h100_smoke.db "$log.fix.db"   # a copy: the fixture stays as committed whatever runs
$G query --db "$log.fix.db" --csv "$key" >"$log.want" 2>/dev/null
$G query --db "$db" --csv "$key" >"$log.got" 2>/dev/null
chk 'cmp -s "$log.want" "$log.got"' "smoke rows differ from tests/data/h100_smoke.db: $(diff "$log.want" "$log.got" | head -5)"
cols="select * from results limit 0"
chk '[ "$($G query --db "$log.fix.db" --csv "$cols")" = "$($G query --db "$db" --csv "$cols")" ]' "results columns differ from the fixture's"
rm -f "$log.want" "$log.got" "$log.fix.db"*
# The clock and the roofline's bytes: every ok GPU run has its L1, L2 and DRAM bytes and
# host-link sectors; the runs of one launch (passes = 2: auto ranges) their SM clock, within
# what the device allows, and those of several none (a user range's rate is not a clock);
# zero-copy runs' off-chip traffic is on the host link, device and managed runs' on DRAM.
one="device_kind='gpu' and status='ok' and is_latest=1"
nok=$(q "select count(*) from results where $one")
nbytes=$(q "select count(*) from results where $one and l1_bytes > 0 and l2_bytes > 0 and dram_read_bytes > 0 and hostlink_read_sectors is not null and hostlink_write_sectors is not null")
chk '[ "$nbytes" -eq "$nok" ]' "$nbytes of $nok ok GPU runs have their L1, L2, DRAM and host-link bytes"
maxmhz=$(q "select max(clock_khz) / 1000.0 from device where kind = 'gpu'")
nclk=$(q "select count(*) from results where $one and passes = 2 and sm_clock_mhz between 0.2 * $maxmhz and 1.02 * $maxmhz")
n1=$(q "select count(*) from results where $one and passes = 2")
chk '[ "$n1" -gt 0 ] && [ "$nclk" -eq "$n1" ]' "$nclk of $n1 one-launch runs have an SM clock within 20-102 % of $maxmhz MHz: $(q "select group_concat(variant || ':' || coalesce(round(sm_clock_mhz), 'NULL')) from results where $one and passes = 2")"
nmulti=$(q "select count(*) from results where $one and passes > 2 and sm_clock_mhz is not null")
chk '[ "$nmulti" -eq 0 ]' "$nmulti runs of several launches have an SM clock"
zc=$(q "select count(*) from results where $one and mem = 'zerocopy'")
zch=$(q "select count(*) from results where $one and mem = 'zerocopy' and offchip_level = 'hostlink' and hostlink_flop_per_byte > 0")
chk '[ "$zc" -gt 0 ] && [ "$zch" -eq "$zc" ]' "$zch of $zc zero-copy runs are placed on the host link"
nd=$(q "select count(*) from results where $one and coalesce(mem, 'device') <> 'zerocopy' and offchip_level <> 'dram'")
chk '[ "$nd" -eq 0 ]' "$nd device or managed runs placed off DRAM"
# the device's ceilings, measured under its lock by this sweep, ordered as the hierarchy
cel=$(q "select count(*) from device where kind = 'gpu' and ceilings_at is not null and l1_bw_gbs > l2_bw_gbs and smem_bw_gbs > l2_bw_gbs and l2_bw_gbs > copy_bw_gbs and copy_bw_gbs > hostlink_bw_gbs and hostlink_bw_gbs > 0 and h2d_bw_gbs > 0 and ceilings_clock_mhz > 0")
chk '[ "$cel" -eq 1 ]' "the GPU's ceilings are not stored or not ordered: $(q "select l1_bw_gbs || ' ' || smem_bw_gbs || ' ' || l2_bw_gbs || ' ' || copy_bw_gbs || ' ' || hostlink_bw_gbs || ' ' || coalesce(ceilings_reason, '') from device where kind = 'gpu'")"
# the session: no lock asked, NVML's readings (or why not)
ses=$(q "select count(*) from session where clocks_asked = 'none' and clocks_locked = 0 and (sm_max_clock_mhz > 0 or nvml_reason is not null)")
chk '[ "$ses" -ge 1 ]' "the session does not record the clocks: $(q "select clocks_asked || ' ' || clocks_locked || ' ' || coalesce(sm_max_clock_mhz, nvml_reason) from session")"
$G query --db "$db" --md "select family, variant, n, m, p, bs, k, r, grid, mem, round(median_ms,4) as median_ms, round(gflops,1) as gflops, round(gbs,1) as gbs, passes, status from results where device_kind='gpu' and is_latest=1 order by run_id"
$G query --db "$db" --md "select family, variant, mem, grid, passes, round(sm_clock_mhz) as sm_mhz, round(l1_flop_per_byte, 3) as fpb_l1, round(l2_flop_per_byte, 3) as fpb_l2, round(measured_flop_per_byte, 3) as fpb_dram, round(hostlink_flop_per_byte, 3) as fpb_host, offchip_level from results where device_kind='gpu' and is_latest=1 order by run_id"
$G query --db "$db" --md "select name, round(copy_bw_gbs) as dram, round(l1_bw_gbs) as l1, round(smem_bw_gbs) as smem, round(l2_bw_gbs) as l2, round(hostlink_bw_gbs, 1) as hostlink, round(h2d_bw_gbs, 1) as h2d, round(ceilings_clock_mhz) as mhz from device where kind = 'gpu'"
rm -f "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
