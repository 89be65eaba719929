#!/bin/sh
# tests/gpu/symbols.sh - step 14's symbols, restores and inits on a GPU (run by
# tests/gpu/run.sh), on the kernel files of tests/collection/:
#   convsep.conf    the filter set in the module's __constant__ c_Kernel: both
#                   passes ok against the C reference (a filter left at 0 gives
#                   outputs of 0 and is wrong there), compared in full;
#   treereduce.conf the in-place reduction ok with 5 samples and with 40: every
#                   sample sums the input as made (its last sample is checked too,
#                   which a second run on folded data fails); medians printed;
#   buckets.conf    atomic counters bumped by every launch: ok, and its profiled
#                   passes give counters (each pass starts from zero counts); two
#                   runs in one batch, restored at each pass's start, give the L1
#                   bytes of restores between the runs;
#   embedding.conf  randint ids below VOCAB, a normal table, two __device__
#                   counters read back as outputs: ok against the C reference.
# Ends with "symbols-gpu: N passed, N failed". Must not rebuild anything.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
db=$T/s.db
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL symbols-gpu: $2"; fi; }
q() { $G query --db "$db" --tsv "$1" | tail -n 1; }
C=tests/collection

# the filter in __constant__ memory
$G run $C/convsep.conf --db "$db" >"$T/conv" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "convsep: exit $rc: $(tail -3 "$T/conv")"
n=$(q "select count(*) from results r join run on run.id = r.run_id where r.study='convsep' and r.status='ok' and run.check_method='full' and r.is_latest=1")
chk '[ "$n" -eq 4 ]' "convsep: $n runs ok against the C reference (want 4): $(q "select group_concat(variant||' '||status||' '||coalesce(reason,''), '; ') from results where study='convsep'")"

# the in-place reduction, few and many samples
for s in 5 40; do
    mkdir -p "$T/tr$s"
    cp $C/treereduce.cu $C/treereduce_ref.c "$T/tr$s/"
    sed "s/^bytes = 4\*N\$/bytes = 4*N\nsamples_min = $s\nsamples_max = $s/" $C/treereduce.conf >"$T/tr$s/treereduce.conf"
    $G run "$T/tr$s/treereduce.conf" --db "$T/tr$s.db" >"$T/tr$s/out" 2>&1; rc=$?
    chk '[ $rc -eq 0 ]' "treereduce ($s samples): exit $rc: $(tail -3 "$T/tr$s/out")"
    n=$($G query --db "$T/tr$s.db" --csv "select count(*) from results where study='treereduce' and status='ok' and samples=$s and is_latest=1" | tail -n 1)
    chk '[ "$n" -eq 4 ]' "treereduce ($s samples): $n runs ok with $s samples (want 4): $($G query --db "$T/tr$s.db" --csv "select group_concat(n||' '||bs||' '||status||' '||coalesce(reason,''), '; ') from results where study='treereduce'" | tail -n 1)"
    $G query --db "$T/tr$s.db" "select n, bs, samples, median_ms from results where study='treereduce' order by n, bs" --md
done

# counters that every launch bumps: the profiled passes start from zero too
$G run $C/buckets.conf --db "$db" >"$T/buck" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "buckets: exit $rc: $(tail -3 "$T/buck")"
n=$(q "select count(*) from results where study='buckets' and status='ok' and passes > 0 and is_latest=1")
chk '[ "$n" -eq 1 ]' "buckets: not ok with counters: $(q "select status||' '||coalesce(reason,'')||' / '||coalesce(metrics_reason,'') from results where study='buckets'")"

# two such runs in one batch: each put back at its passes' start (its own buffers only),
# counters equal to those of every restore between the runs (GPULAB_CUPTI_RESTORE_BETWEEN)
mkdir -p "$T/b2"
cp $C/buckets.cu $C/buckets_ref.c "$T/b2/"
sed 's/^N = 1<<20$/N = 1<<19, 1<<20/' $C/buckets.conf >"$T/b2/buckets.conf"
for m in early between; do
    e=0; [ $m = between ] && e=1
    GPULAB_CUPTI_RESTORE_BETWEEN=$e $G run "$T/b2/buckets.conf" --db "$T/b2_$m.db" >"$T/b2/$m" 2>&1; rc=$?
    chk '[ $rc -eq 0 ]' "buckets, two runs ($m): exit $rc: $(tail -3 "$T/b2/$m")"
    $G query --db "$T/b2_$m.db" --csv "select n, status, passes, l1_bytes, l2_bytes, dram_write_drain_bytes from results where study='buckets' and is_latest=1 order by n" >"$T/b2/$m.csv" 2>&1
done
n=$(grep -c ',ok,[1-9][0-9]*,[1-9]' "$T/b2/early.csv")
chk '[ "$n" -eq 2 ]' "buckets, two runs: $n ok with counters (want 2): $(cat "$T/b2/early.csv")"
# L1 bytes within 0.1 % (the atomics' bytes move by some 100 bytes from run to run)
far=$(paste -d, "$T/b2/early.csv" "$T/b2/between.csv" | awk -F, 'NR > 1 { d = $4 - $10; if (d < 0) d = -d
        if ($1 != $7 || $4 <= 0 || d > 0.001 * $4) print $1 } END { if (NR != 3) print NR " lines" }')
chk '[ -z "$far" ]' "buckets, two runs: L1 bytes restored early and between differ ($far): $(paste -d' ' "$T/b2/early.csv" "$T/b2/between.csv")"
cat "$T/b2/early.csv" "$T/b2/between.csv"

# randint ids, normal weights, __device__ counters as outputs
$G run $C/embedding.conf --db "$db" >"$T/emb" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "embedding: exit $rc: $(tail -3 "$T/emb")"
n=$(q "select count(*) from results r join run on run.id = r.run_id where r.study='embedding' and r.status='ok' and run.check_method='full' and r.is_latest=1")
chk '[ "$n" -eq 4 ]' "embedding: $n runs ok against the C reference (want 4): $(q "select group_concat(variant||' '||status||' '||coalesce(reason,''), '; ') from results where study='embedding'")"

echo "symbols-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
