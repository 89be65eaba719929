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
# for the closing note. Ends with "pool-gpu: N passed, N failed". Must not rebuild.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL pool-gpu: $2"; fi; }
q() { $G query --db "$1" --csv "$2" | tail -n 1; }

GPULAB_POOL=1 $G run tests/gpu/data/pool.conf --db "$T/pool.db" --profile-self >"$T/pool" 2>&1; rc1=$?
$G run tests/gpu/data/pool.conf --db "$T/nopool.db" --profile-self >"$T/nopool" 2>&1; rc2=$?
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
                "output check" "counters: profiler's own work" "store"; do
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
echo "pool-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
