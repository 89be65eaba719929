#!/bin/sh
# tests/gpu/plugins.sh - users' plugins on a GPU (run by tests/gpu/run.sh): the
# example GPU plugin's saxpy_twice (two launches per run, through
# gl_host.gpu_execute) over sizes, block sizes and every mem kind, next to the
# example CPU plugin's saxpy_cpu: every run ok, verified against the float64
# reference, with both launches counted, the first kernel's registers and
# occupancy, and counters from the profiled replay (runs parked in batches, so
# the plugin's ctx is replayed from the harness's copy); a second run runs
# nothing; a library call that launches another kernel after the call gpulab
# counted keeps its counters (tests/plugins/pick_gpu.cu). Prints the rows and
# ends with "plugins-gpu: N passed, N failed".
# Must not rebuild anything.
G=./build/gpulab
P=build/tests/plugins
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
db=$T/p.db
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL plugins-gpu: $2"; fi; }
q() { $G query --db "$db" --csv "$1" | tail -n 1; }
PL="--plugin $P/example_plugin.so --plugin $P/example_gpu.so"
cat >"$T/saxpy.conf" <<'CONF'
study = saxpy
[gpu]
family = saxpy
variants = saxpy_twice
N = 1000, 1<<22
BS = 128, 256
mem = device, managed, zerocopy
samples_min = 5
time_cap = 0.5s
[cpu]
family = saxpy
variants = saxpy_cpu
N = 1000, 1<<22
samples_min = 5
time_cap = 0.5s
CONF
$G run "$T/saxpy.conf" --db "$db" $PL >"$T/run1" 2>&1; rc=$?
cat "$T/run1"
chk '[ $rc -eq 0 ]' "saxpy: exit $rc"
n=$(q "select count(*) from results where variant='saxpy_twice' and status='ok'")
chk '[ "$n" -eq 12 ]' "saxpy_twice: $n of 12 runs ok"
v=$(q "select count(*) from results where variant='saxpy_twice' and max_rel_err >= 0 and max_rel_err < 1e-6")
chk '[ "$v" -eq 12 ]' "saxpy_twice: $v of 12 runs verified against the reference"
l=$(q "select count(*) from results where variant='saxpy_twice' and launches = 2 and block_x in (128, 256) and regs_per_thread > 0 and theo_occupancy_pct > 0")
chk '[ "$l" -eq 12 ]' "saxpy_twice: $l of 12 runs with 2 launches, the block and the kernel's registers and occupancy"
c=$(q "select count(*) from results where variant='saxpy_twice' and passes > 0 and gpu_time_ns > 0")
chk '[ "$c" -eq 12 ]' "saxpy_twice: $c of 12 runs with counters"
d=$(q "select count(*) from results where variant='saxpy_twice' and mem='device' and n = 4194304 and dram_read_bytes >= 2*4*4194304*0.9")
chk '[ "$d" -eq 2 ]' "saxpy_twice at N = 2^22 on device memory: $d of 2 runs read x, y and z from DRAM (>= 30 MB)"
cpu=$(q "select count(*) from results where variant='saxpy_cpu' and status='ok' and max_rel_err >= 0")
chk '[ "$cpu" -eq 2 ]' "saxpy_cpu: $cpu of 2 runs ok and verified"
$G run "$T/saxpy.conf" --db "$db" $PL >"$T/run2" 2>&1
chk 'grep -q "gpulab: 0 ran" "$T/run2"' "second run ran something: $(tail -1 "$T/run2")"
# a library call that launches another number of kernels after the call
# gpulab counted (tests/plugins/pick_gpu.cu): its auto-range session is run
# again with the call in a user range; every run keeps its counters
cat >"$T/pick.conf" <<'CONF'
study = pick
[gpu]
family = pick
variants = pick_kernel, pick_later
N = 1<<20, 1<<22
BS = 256
samples_min = 5
time_cap = 0.5s
CONF
GPULAB_CUPTI_TRACE=1 $G run "$T/pick.conf" --db "$T/pick.db" --plugin $P/pick_gpu.so >"$T/pick" 2>&1; rc=$?
grep -E "gpulab cupti (count|session|charge|: an auto)|FAIL" "$T/pick"
chk '[ $rc -eq 0 ]' "pick: exit $rc"
pq() { $G query --db "$T/pick.db" --csv "$1" | tail -n 1; }
n=$(pq "select count(*) from results where status='ok' and max_rel_err >= 0 and passes > 0 and gpu_time_ns > 0")
chk '[ "$n" -eq 4 ]' "pick: $n of 4 runs ok, verified and with counters"
chk 'grep -q "found another kernel count; again, its 2 counted library call(s) in user ranges" "$T/pick"' \
    "pick: no second session for the library call that changed its kernels"
r=$(pq "select count(*) from results a join results b on a.n = b.n where a.variant = 'pick_kernel' and b.variant = 'pick_later' and a.n = 4194304 and a.dram_read_bytes >= 8*4194304*0.9 and abs(b.dram_read_bytes - a.dram_read_bytes) <= 0.05 * a.dram_read_bytes")
chk '[ "$r" -eq 1 ]' "pick at N = 2^22: the library call's DRAM reads in its user range not within 5 % of the kernel's (>= 30 MB)"
$G query --db "$T/pick.db" --md "select variant, n, launches, round(median_ms, 4) as median_ms, passes, round(gpu_time_ns/1e3, 1) as gpu_us, round(dram_read_bytes/1e6, 2) as dram_rd_mb, status from results order by variant, n"
$G query --db "$db" --md "select variant, n, bs, mem, launches, round(median_ms, 4) as median_ms, round(gbs, 1) as gbs, regs_per_thread as regs, round(theo_occupancy_pct) as occ, passes, round(dram_read_bytes/1e6, 2) as dram_rd_mb, status from results order by variant, n, bs, mem"
echo "plugins-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
