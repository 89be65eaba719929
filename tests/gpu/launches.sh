#!/bin/sh
# tests/gpu/launches.sh - launch sequences on a GPU (run by tests/gpu/run.sh):
# the collection's two-kernel histogram (tests/collection/histogram.conf, with
# smsp__inst_executed.sum added to the default counters) runs ok and verified
# against its C reference, 2 launches a run, a launch row for each with its
# grid, per-launch counter rows for both launches, and the whole run's additive
# counters equal to the sum of its launches' (instructions within 0.1 %, DRAM
# bytes read within 5 % + 64 KiB: the two are measured in two replays of one
# pass, and the whole's range also holds the gap between the launches); the
# multi-pass reduction (tests/collection/reduce_passes.conf) runs ok and
# verified with the expected number of passes recorded (cdiv(log2 N, log2 BS)
# launches, each pass's grid N / BS^(p+1)) and counters for every launch.
# Prints the per-launch table and ends with "launches-gpu: N passed, N failed".
# Must not rebuild anything.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
db=${GPULAB_LAUNCHES_DB:-$T/l.db}
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL launches-gpu: $2"; fi; }
q() { $G query --db "$db" --csv "$1" | tail -n 1; }

# --- the histogram: partials + merge -------------------------------------------------
mkdir -p "$T/h"
cp tests/collection/histogram.cu tests/collection/histogram_ref.c "$T/h/"
sed -e 's/^\[histogram\]$/[histogram]\nmetrics = default, smsp__inst_executed.sum/' \
    tests/collection/histogram.conf >"$T/h/histogram.conf"
$G run "$T/h/histogram.conf" --db "$db" >"$T/run1" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "histogram: exit $rc: $(tail -5 "$T/run1")"
h="study = 'histogram' and is_latest = 1"
n=$(q "select count(*) from results where $h")
okv=$(q "select count(*) from results where $h and status = 'ok' and run_id in (select id from run where check_method = 'full') and passes > 0")
chk '[ "$n" -eq 4 ] && [ "$okv" -eq 4 ]' "histogram: $okv of $n runs ok, verified in full and profiled (want 4): $(q "select group_concat(variant || ' ' || status || ' ' || coalesce(reason, '') || coalesce(metrics_reason, ''), '; ') from results where $h")"
two=$(q "select count(*) from results where $h and launches = 2")
chk '[ "$two" -eq 4 ]' "histogram: $two runs record 2 launches (want 4)"
rows=$(q "select count(*) from launch l join results r on r.run_id = l.run_id where r.$h and ((l.idx = 0 and l.name = 'partials' and l.grid_x = 264 and l.block_x = 256) or (l.idx = 1 and l.name = 'merge' and l.kernel = 'histogram_merge' and l.grid_x = 1))")
chk '[ "$rows" -eq 8 ]' "histogram: $rows launch rows as the config says (want 8): $($G query --db "$db" --csv "select * from launch" | head -5)"
for m in dram__bytes_read.sum smsp__inst_executed.sum gpu__time_duration.sum; do
    per=$(q "select count(*) from launch_metrics where study = 'histogram' and name = '$m'")
    chk '[ "$per" -eq 8 ]' "histogram: $per per-launch rows of $m (want 8: 2 launches x 4 runs)"
done
# the whole against the sum of its launches, run by run
cmp="select count(*) from (select r.run_id, w.value as whole, sum(l.value) as parts
       from results r join metric w on w.run_id = r.run_id and w.name = '%s'
       join launch_metric l on l.run_id = r.run_id and l.name = w.name
       where r.$h group by r.run_id having count(*) = 2 and abs(whole - parts) <= %s)"
inst=$(q "$(printf "$cmp" smsp__inst_executed.sum '0.001 * whole')")
chk '[ "$inst" -eq 4 ]' "histogram: $inst of 4 runs have instructions equal to the sum of their launches' (0.1 %): $($G query --db "$db" --csv "select run_id, idx, value from launch_metric where name = 'smsp__inst_executed.sum'" | head -9 | tr '\n' ' ')"
dram=$(q "$(printf "$cmp" dram__bytes_read.sum '0.05 * whole + 65536')")
chk '[ "$dram" -eq 4 ]' "histogram: $dram of 4 runs have DRAM bytes read equal to the sum of their launches' (5 % + 64 KiB): $($G query --db "$db" --csv "select m.run_id, m.value, (select sum(value) from launch_metric l where l.run_id = m.run_id and l.name = m.name) from metric m where m.name = 'dram__bytes_read.sum'" | tr '\n' ' ')"
# the partials read the input: most of the whole's DRAM reads are the first launch's
first=$(q "select count(*) from launch_metrics where study = 'histogram' and name = 'dram__bytes_read.sum' and launch = 0 and value > 0.5 * run_value")
chk '[ "$first" -eq 4 ]' "histogram: the first launch reads most of the DRAM bytes in $first of 4 runs"
nore=$(q "select count(*) from results r join run x on x.id = r.run_id where r.$h and x.launch_reason is not null")
chk '[ "$nore" -eq 0 ]' "histogram: $nore runs say why they have no per-launch counters"

# --- the multi-pass reduction: one launch line repeated per pass ------------------------
$G run tests/collection/reduce_passes.conf --db "$db" >"$T/run2" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "reduce_passes: exit $rc: $(tail -5 "$T/run2")"
r="study = 'reduce_passes' and is_latest = 1"
n=$(q "select count(*) from results where $r")
okv=$(q "select count(*) from results where $r and status = 'ok' and run_id in (select id from run where check_method = 'full') and passes > 0")
chk '[ "$n" -eq 8 ] && [ "$okv" -eq 8 ]' "reduce_passes: $okv of $n runs ok, verified and profiled (want 8): $(q "select group_concat(variant || ' ' || n || ' ' || bs || ' ' || status || ' ' || coalesce(reason, ''), '; ') from results where $r")"
# passes: cdiv(log2 N, log2 BS): 2^20: 3 (BS 128 and 256); 2^24: 4 (BS 128), 3 (BS 256)
want="select count(*) from results where $r and launches = case when n = 16777216 and bs = 128 then 4 else 3 end"
nl=$(q "$want")
chk '[ "$nl" -eq 8 ]' "reduce_passes: $nl of 8 runs record the expected launches: $(q "select group_concat(variant || ' N=' || n || ' BS=' || bs || ': ' || launches, '; ') from results where $r")"
rows=$(q "select count(*) from results x where x.$r and x.launches = (select count(*) from launch l where l.run_id = x.run_id)")
chk '[ "$rows" -eq 8 ]' "reduce_passes: $rows of 8 runs have a launch row per launch"
grids=$(q "select group_concat(grid_x, ' ') from (select l.grid_x from launch l join results x on x.run_id = l.run_id where x.$r and x.variant = 'shuffle' and x.n = 16777216 and x.bs = 256 order by l.idx)")
chk '[ "$grids" = "65536 256 1" ]' "reduce_passes: the passes' grids at N=2^24, BS=256 are '$grids' (want '65536 256 1')"
iters=$(q "select group_concat(iter, ' ') from (select l.iter from launch l join results x on x.run_id = l.run_id where x.$r and x.variant = 'shared' and x.n = 16777216 and x.bs = 128 order by l.idx)")
chk '[ "$iters" = "0 1 2 3" ]' "reduce_passes: the loop values at N=2^24, BS=128 are '$iters' (want '0 1 2 3')"
per=$(q "select count(*) from results x where x.$r and x.launches = (select count(distinct idx) from launch_metric m where m.run_id = x.run_id and m.name = 'dram__bytes_read.sum')")
chk '[ "$per" -eq 8 ]' "reduce_passes: $per of 8 runs have counters for every launch"

$G query --db "$db" --md "select m.study, m.variant, r.bs, m.launch, m.launch_name, m.kernel, m.iter, m.grid_x, round(m.value / 1e6, 3) as dram_read_mb, round(m.run_value / 1e6, 3) as whole_mb from launch_metrics m join results r on r.run_id = m.run_id where m.name = 'dram__bytes_read.sum' and r.n = 16777216 order by m.study, m.variant, m.run_id, m.launch"
echo "launches-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
