#!/bin/sh
# tests/gpu/pool.sh - what a worker keeps between runs (run by tests/gpu/run.sh):
# tests/gpu/data/pool.conf (vecadd and matmul in device, zero-copy and managed
# memory, each size several times) swept twice from empty with --profile-self:
# with GPULAB_POOL=1 (buffers of a finished run reused by the next of the same
# size: device and zero-copy memory) and as gpulab runs it by default (allocated
# and freed per run). Checked: both verify every run; the same runs and
# statuses; each run's median time within 10 % of the other sweep's, or both
# under 0.05 ms (the run-to-run spread of such small kernels), for 90 % of the
# runs and within 2x for every one; every run's h2d and d2h copy times present
# in both; the self-profile's parts table lists every part and adds up to its
# mean overhead. Prints both tables (the buffers part with and without the pool)
# for the closing note. Then the copies a worker times only in its first three
# runs with the same buffers (below). Ends with "pool-gpu: N passed, N failed".
# Must not rebuild.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL pool-gpu: $2"; fi; }
q() { $G query --db "$1" --csv "$2" | tail -n 1; }

GPULAB_POOL=1 $G run tests/gpu/data/pool.conf --db "$T/pool.db" --profile-self >"$T/pool" 2>&1; rc1=$?
GPULAB_LEND_TRACE=1 $G run tests/gpu/data/pool.conf --db "$T/nopool.db" --profile-self >"$T/nopool" 2>&1; rc2=$?
chk '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]' "exit $rc1 / $rc2: $(tail -3 "$T/pool") / $(tail -3 "$T/nopool")"
for db in pool nopool; do
    echo "pool-gpu: $db:"
    sed -n '/^  host overhead per ok GPU run/,$p' "$T/$db"
    n=$(q "$T/$db.db" "select count(*) from run where device_id in (select id from device where kind = 'gpu')")
    ok=$(q "$T/$db.db" "select count(*) from run where status = 'ok' and device_id in (select id from device where kind = 'gpu')")
    chk '[ "$n" -ge 30 ] && [ "$ok" = "$n" ]' "$db: $ok of $n GPU runs ok"
    nc=$(q "$T/$db.db" "select count(*) from run where status = 'ok' and mem in ('device', 'managed') and (h2d_ms is null or d2h_ms is null)")
    chk '[ "$nc" = 0 ]' "$db: $nc device/managed runs without copy times"
    for part in "buffers (allocate, pool)" "inputs from the seed" "verification launch (host part)" \
                "output check" "counters: its ranges (CUPTI)" "counters: its sessions' share" "store"; do
        chk 'grep -q "^    $part  " "$T/$db"' "$db: the parts table lacks '$part'"
    done
    sum=$(awk '/^  where it goes/ { on = 1; getline; next } on && /^    / && $1 != "part" { s += $(NF-3) }
               END { print s + 0 }' "$T/$db")
    mean=$(sed -n 's/.*the means add up to the mean overhead, \([0-9.-]*\) ms.*/\1/p' "$T/$db")
    chk 'awk "BEGIN { d = $sum - ${mean:-0}; exit !(d < 0.3 && d > -0.3) }"' "$db: parts add to $sum, mean $mean"
done
# the same runs, statuses and medians within the spread
$G query --db "$T/pool.db" --write --csv "attach '$T/nopool.db' as o;
    select r.section || ' ' || r.variant || ' N=' || r.n || ' BS=' || r.bs || ' ' || r.mem || ' seed=' || r.seed,
           r.status, o_r.status, r.median_ms, o_r.median_ms
    from run r join o.run o_r on o_r.section = r.section and o_r.variant = r.variant and o_r.n = r.n
         and o_r.bs = r.bs and o_r.mem = r.mem and o_r.seed = r.seed
    where r.device_id in (select id from device where kind = 'gpu') order by 1" > "$T/pairs" 2>&1
np=$(($(wc -l < "$T/pairs") - 1))
chk '[ "$np" -ge 20 ]' "only $np runs paired: $(head -3 "$T/pairs")"
chk '! awk -F, '\''NR > 1 && $2 != $3'\'' "$T/pairs" | grep -q .' "statuses differ: $(awk -F, 'NR > 1 && $2 != $3' "$T/pairs" | head -3)"
far=$(awk -F, 'NR > 1 { a = $4 + 0; b = $5 + 0; m = a > b ? a : b; l = a < b ? a : b
        if (l > 0 && m / l > 2) print $1 ": " a " vs " b }' "$T/pairs")
chk '[ -z "$far" ]' "medians more than 2x apart: $(echo "$far" | head -3)"
out=$(awk -F, 'NR > 1 { a = $4 + 0; b = $5 + 0; m = a > b ? a : b; l = a < b ? a : b; n++
        if (!(m < 0.05 || (l > 0 && m / l <= 1.10))) k++ } END { print k + 0, n + 0 }' "$T/pairs")
chk 'echo "$out" | awk "{ exit !(\$1 <= 0.1 * \$2) }"' "medians more than 10 % apart: $out (runs apart, runs)"
# Copies that move no content (device memory, data made and checked on the GPU):
# timed in a worker's first three runs with the same buffers, then their median
# is stored without copying. pool.conf's 16 device-memory runs have three input
# sets (2 x 1 MB, 2 x 4 MB in vecadd 2^20 and matmul 1024 alike, 2 x 64 MB), so
# at least 7 runs carry an earlier run's h2d_ms and d2h_ms exactly; a third
# sweep with nothing kept (GPULAB_POOL=0 GPULAB_COPIES=each) times every copy,
# and its median copy time of each size agrees with the kept one within 15 %.
GPULAB_POOL=0 GPULAB_COPIES=each $G run tests/gpu/data/pool.conf --db "$T/each.db" >"$T/each" 2>&1; rc3=$?
chk '[ $rc3 -eq 0 ]' "GPULAB_COPIES=each sweep exit $rc3: $(tail -3 "$T/each")"
# (vecadd has no mem parameter: its runs are device memory with mem NULL; a kept time
# is the median of three earlier runs, its h2d and d2h not always of the same run)
rep() { q "$1" "select count(*) from run r where coalesce(r.mem, 'device') = 'device' and r.status = 'ok'
    and exists (select 1 from run e where e.id < r.id and coalesce(e.mem, 'device') = 'device'
                and e.h2d_ms = r.h2d_ms)
    and exists (select 1 from run e where e.id < r.id and coalesce(e.mem, 'device') = 'device'
                and e.d2h_ms = r.d2h_ms)"; }
nrep=$(rep "$T/nopool.db")
chk '[ "$nrep" -ge 7 ]' "default sweep: $nrep device runs carry an earlier run's copy times (want >= 7)"
echo "pool-gpu: device runs with an earlier run's copy times: default $nrep, GPULAB_COPIES=each $(rep "$T/each.db")"
$G query --db "$T/nopool.db" --write --csv "attach '$T/each.db' as e;
    with a as (select 'k' src, section, n, h2d_ms h, d2h_ms d from main.run
                   where coalesce(mem, 'device') = 'device' and status = 'ok'
               union all select 'x', section, n, h2d_ms, d2h_ms from e.run
                   where coalesce(mem, 'device') = 'device' and status = 'ok'),
         hh as (select src, section, n, h, row_number() over (partition by src, section, n order by h) rn,
                       count(*) over (partition by src, section, n) c from a),
         dd as (select src, section, n, d, row_number() over (partition by src, section, n order by d) rn,
                       count(*) over (partition by src, section, n) c from a),
         mh as (select src, section, n, h from hh where rn = c / 2 + 1),
         md as (select src, section, n, d from dd where rn = c / 2 + 1)
    select k.section || ' N=' || k.n, k.h, x.h, kd.d, xd.d
    from mh k join mh x on x.src = 'x' and x.section = k.section and x.n = k.n
    join md kd on kd.src = 'k' and kd.section = k.section and kd.n = k.n
    join md xd on xd.src = 'x' and xd.section = k.section and xd.n = k.n
    where k.src = 'k' order by 1" >"$T/copies" 2>&1
cat "$T/copies"
ncp=$(($(wc -l <"$T/copies") - 1))
chk '[ "$ncp" -eq 4 ]' "copy medians of 4 sizes expected: $(head -3 "$T/copies")"
far=$(awk -F, 'NR > 1 { for (c = 2; c <= 4; c += 2) { a = $c + 0; b = $(c + 1) + 0
        if (!(a > 0 && b > 0 && a / b < 1.15 && b / a < 1.15)) print $1 " (" (c == 2 ? "h2d" : "d2h") "): " a " vs " b } }' "$T/copies")
chk '[ -z "$far" ]' "kept copy times against timed ones more than 15 % apart: $far"
# Zero-copy buffers of parked runs lent to later runs (harness_lend.cu): the
# default sweep borrowed some (its matmul zero-copy runs share a size and, two by
# two, a seed), GPULAB_POOL=0 (each.db) none; the zero-copy runs' counters that
# follow from the work (L1 bytes exactly, host-link sectors read within 5 %) are
# the same either way: a borrowed input holds the same values, and a borrowed
# output is poisoned and checked as a fresh one.
lent=$(sed -n 's/^gpulab lend: \([0-9]*\) zero-copy buffers borrowed.*/\1/p' "$T/nopool" | tail -n 1)
chk '[ -n "$lent" ] && [ "$lent" -gt 0 ]' "default sweep: '$lent' zero-copy buffers borrowed from parked runs (want > 0)"
$G query --db "$T/nopool.db" --write --csv "attach '$T/each.db' as e;
    select r.section || ' ' || r.variant || ' N=' || r.n || ' seed=' || r.seed, r.status, x.status,
           r.l1_bytes, x.l1_bytes, r.hostlink_read_sectors, x.hostlink_read_sectors
    from results r join e.results x on x.section = r.section and x.variant = r.variant
         and x.n = r.n and x.bs = r.bs and x.mem = r.mem and x.seed = r.seed
    where r.mem = 'zerocopy' order by 1" >"$T/lent" 2>&1
cat "$T/lent"
nz=$(($(wc -l <"$T/lent") - 1))
bad=$(awk -F, 'NR > 1 && !($2 == "ok" && $3 == "ok" && $4 == $5 && $6 > 0 && $7 > 0 &&
        $6 / $7 < 1.05 && $7 / $6 < 1.05) { print $1 }' "$T/lent")
chk '[ "$nz" -eq 8 ] && [ -z "$bad" ]' "zero-copy runs lent vs not ($nz paired, want 8): differ: $bad"
echo "pool-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
