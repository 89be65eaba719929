#!/bin/sh
# tests/gpu/reuse.sh - one CUPTI collection per worker and metric set, on a GPU (run
# by tests/gpu/run.sh): tests/gpu/data/reuse.conf (two metric sets alternating
# section by section, single-kernel and grid = 1d runs) swept twice from empty:
# (1) as gpulab runs it, in batches of 3 (GPULAB_BATCH=3), the worker keeping its
# range profiler object across batches; (2) one run a batch with a fresh object for
# every one (GPULAB_BATCH=1 GPULAB_CUPTI_FRESH=1: a fresh collection per run).
# Checked: both sweeps verify every run with counters; every counter of every run
# agrees between the two within the run-to-run spread (time and DRAM bytes within
# 5 %, hit rates and occupancy within 2 points); the worker of (1) started exactly
# one object per metric set for a new configuration (the engine's trace line
# "gpulab cupti collections: ... new configuration 2"), and (2) one per run. Ends
# with "reuse-gpu: N passed, N failed". Must not rebuild.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL reuse-gpu: $2"; fi; }
q() { $G query --db "$1" --csv "$2" | tail -n 1; }

GPULAB_CUPTI_TRACE=1 GPULAB_BATCH=3 $G run tests/gpu/data/reuse.conf --db "$T/keep.db" >"$T/keep" 2>&1; rc1=$?
GPULAB_CUPTI_TRACE=1 GPULAB_BATCH=1 GPULAB_CUPTI_FRESH=1 $G run tests/gpu/data/reuse.conf --db "$T/fresh.db" >"$T/fresh" 2>&1; rc2=$?
grep "gpulab cupti collections" "$T/keep" "$T/fresh"
chk '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]' "exit $rc1 / $rc2: $(tail -3 "$T/keep") / $(tail -3 "$T/fresh")"
n=$(q "$T/keep.db" "select count(*) from run")
for db in keep fresh; do
    ok=$(q "$T/$db.db" "select count(*) from run where status = 'ok' and passes > 0")
    chk '[ "$ok" = "$n" ] && [ "$n" -ge 12 ]' "$db: $ok of $n runs ok with counters"
done
# every counter of every run: the kept collection against a fresh one per run
$G query --db "$T/keep.db" --write --csv "attach '$T/fresh.db' as f;
    select r.section || ' ' || r.variant || ' N=' || r.n || ' BS=' || r.bs || ' ' || m.name, m.value, fm.value
    from run r join metric m on m.run_id = r.id
    join f.run fr on fr.section = r.section and fr.variant = r.variant and fr.n = r.n and fr.bs = r.bs
    join f.metric fm on fm.run_id = fr.id and fm.name = m.name
    order by 1" > "$T/pairs" 2>&1
np=$(grep -c , "$T/pairs")
chk '[ "$np" -ge 100 ]' "only $np counter pairs compared: $(head -3 "$T/pairs")"
bad=$(awk -F, 'NR > 1 { a = $2 + 0; b = $3 + 0; d = a - b; if (d < 0) d = -d; m = (a > b ? a : b)
        if ($1 ~ /pct|rate/) { if (d > 2) print $1 ": " a " vs " b }
        else if ($1 ~ /gpu__time_duration|dram__bytes_read/ && m > 0 && d / m > 0.05) print $1 ": " a " vs " b }' "$T/pairs")
chk '[ -z "$bad" ]' "counters of the kept collection differ from fresh ones: $(echo "$bad" | head -5)"
# one object per metric set for a new configuration, in the kept sweep's one worker
nc=$(sed -n 's/.*gpulab cupti collections: .*(new configuration \([0-9]*\),.*/\1/p' "$T/keep" | tr '\n' ' ')
chk '[ "$nc" = "2 " ]' "kept collection: objects for a new configuration per worker '$nc' (want 2: one per set)"
built=$(sed -n 's/.*configurations built \([0-9]*\), .*/\1/p' "$T/keep" | tr '\n' ' ')
chk '[ "$built" = "2 " ]' "kept collection: configurations built '$built' (want 2)"
echo "reuse-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
