#!/bin/sh
# tests/gpu/reuse.sh - one CUPTI collection per worker and metric set, on a GPU (run
# by tests/gpu/run.sh): tests/gpu/data/reuse.conf (two metric sets alternating
# section by section, single-kernel and grid = 1d runs) swept twice from empty:
# (1) as gpulab runs it, in batches of 3 (GPULAB_BATCH=3), the worker keeping its
# range profiler object across batches; (2) one run a batch with a fresh object for
# every one (GPULAB_BATCH=1 GPULAB_CUPTI_FRESH=1: a fresh collection per run).
# Checked: both sweeps verify every run with counters; every counter of every run
# agrees between the two within the run-to-run spread (time and DRAM bytes within
# 5 %, hit rates and occupancy within 2 points; a DRAM read or L2 hit rate further
# apart passes only where the kept one is within 5 % or 2 points of the range of
# what separate processes give for the point: Nsight Compute's in three, gpulab's
# alone with a fresh object in three); the worker of (1) started exactly
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
# A DRAM read more than 5 % apart, or an L2 hit rate more than 2 points apart, is
# settled by Nsight Compute: at N = 2048 a matmul's three matrices fill the H100's
# 50 MB L2, and a fresh object per run has read ~6 % more DRAM bytes than ncu and
# the kept one (step 17); on small runs its L2 hit rate came out 2-3 points lower.
# The kept collection must then agree with ncu for the same point as closely as
# the test asks of it against the fresh object: within 5 % (DRAM) or 2 points
# (L2) of the range of ncu's medians in three processes. On an H100, ncu itself
# read 33.8 to 34.9 MB there in different processes, the kept object 33.7, the
# fresh one 35.7; the inputs take 33.55 MB.
# Only single-launch sections (ncu profiles one launch a record).
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
settled=
unsettled=$(echo "$bad" | grep -v -e 'dram__bytes_read' -e 'lts__t_sector_hit_rate' | grep .)
for line in $(echo "$bad" | grep -e 'dram__bytes_read' -e 'lts__t_sector_hit_rate' | tr ' ' '|'); do
    set -- $(echo "$line" | tr '|' ' ')
    sec=$1 var=$2 n=${3#N=} bs=${4#BS=} metric=${5%:} kept=$6
    if [ "$sec" != a ] && [ "$sec" != b ] && [ "$sec" != d ] || [ ! -x "$NCU" ]; then
        unsettled="$unsettled $(echo "$line" | tr '|' ' ')"; continue
    fi
    c="$T/ncu_$sec$var$n$bs.conf"
    printf 'study = reuse_ncu\nwarmup = 0\nsamples_min = 3\nsamples_max = 3\n[%s]\nfamily = matmul\nvariants = %s\nN = %s\nBS = %s\nmetrics = none\n' \
        "$sec" "$var" "$n" "$bs" >"$c"
    # ncu in three processes: where the buffers land moves this point's L2 hit
    # rate between processes (H100: ncu's median 95.6 % in one test-gpu, 97.3 % in
    # another; gpulab's kept 97.9 % and 92.5 %), so the kept value must lie within
    # the tolerance of the range of ncu's process medians, not of one of them
    meds=
    for k in 1 2 3; do
        "$NCU" --clock-control none --metrics "$metric" --csv --print-units base \
            --launch-skip 1 --launch-count 3 -k 'regex:^matmul_' \
            $G run "$c" --db "$T/ncu.db" --force >"$T/ncu.csv" 2>"$T/ncu.err"
        meds="$meds $(grep '^"[0-9]' "$T/ncu.csv" | awk -F'","' '{ v = $NF; gsub(/[",]/, "", v); print v }' |
              sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')"
    done
    # and gpulab alone on the point, a fresh object in each of three processes: at
    # this point the process-to-process spread of both tools is wider than the
    # 2 points asked (L2 hit rate at matmul/shared N = 2048 over five test-gpu
    # calls: kept 92.5 to 98.8 %, ncu's process medians 89.3 to 97.3 %), so the
    # kept value is held to the range of what separate processes of either tool
    # give, widened by the tolerance. A counter leaked from another run moves it
    # by far more than that spread; the spread itself no test of three processes
    # can resolve.
    own=
    cg="$T/own_$sec$var$n$bs.conf"
    sed "s/^metrics = none\$/metrics = $metric/" "$c" >"$cg"
    for k in 1 2 3; do
        rm -f "$T/own.db"
        GPULAB_CUPTI_FRESH=1 $G run "$cg" --db "$T/own.db" >"$T/own.log" 2>&1 || continue
        v=$(q "$T/own.db" "select m.value from metric m where m.name = '$metric'")
        case $v in ''|*[!0-9.e+-]*) ;; *) own="$own $v" ;; esac   # a number, not a header
    done
    ok=$(echo $meds $own | awk -v k="$kept" -v m="$metric" '{ if (NF == 0) { print 0; exit }
        lo = $1; hi = $1; for (i = 2; i <= NF; i++) { if ($i < lo) lo = $i; if ($i > hi) hi = $i }
        tol = m ~ /pct/ ? 2 : 0.05 * lo
        print (k >= lo - tol && k <= hi + tol) }')
    settled="$settled
  $sec $var N=$n BS=$bs $metric: kept $kept, ncu medians of three processes:${meds:- none}; gpulab alone, three processes:${own:- none}"
    [ "$ok" = 1 ] || unsettled="$unsettled $sec $var N=$n BS=$bs $metric: kept $kept vs ncu${meds:- none} and gpulab alone${own:- none}"
done
[ -n "$settled" ] && echo "reuse-gpu: counters further apart than the spread, against ncu:$settled"
chk '[ -z "$unsettled" ]' "counters of the kept collection differ from fresh ones (and from ncu where asked): $(echo "$unsettled" | head -5)"
# one object per metric set for a new configuration, in the kept sweep's one worker
nc=$(sed -n 's/.*gpulab cupti collections: .*(new configuration \([0-9]*\),.*/\1/p' "$T/keep" | tr '\n' ' ')
chk '[ "$nc" = "2 " ]' "kept collection: objects for a new configuration per worker '$nc' (want 2: one per set)"
built=$(sed -n 's/.*configurations built \([0-9]*\), .*/\1/p' "$T/keep" | tr '\n' ' ')
chk '[ "$built" = "2 " ]' "kept collection: configurations built '$built' (want 2)"
echo "reuse-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
