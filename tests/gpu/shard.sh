#!/bin/sh
# tests/gpu/shard.sh - shards and merge on a GPU (part of make test-gpu): the
# smoke config run whole and as 2 shards (run --shard 0/2, 1/2, each into its
# own database), the shards merged: the merged database must hold the same
# runs (keys and statuses) as the whole run, every GPU run's counters (metric
# rows) and samples as the shards hold them, one device row for the GPU (its
# UUID), and merging again must add nothing. Prints "shard-gpu: N passed, N
# failed". Must not rebuild anything nor write outside its temporary folder.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
unset SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_MAX SLURM_ARRAY_TASK_STEP
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL shard-gpu: $2"; fi; }
keys() {
    cols=$($G query --db "$1" --csv "select sql from sqlite_master where name = 'run_key'" | tail -n 1 |
        sed -e 's/^"//' -e 's/"$//' -e 's/""/"/g' -e 's/^[^(]*(//' -e 's/)$//' \
            -e 's/device_id/(select ident from device d where d.id = device_id)/')
    $G query --db "$1" --tsv "select $cols from run" | tail -n +2 | sort
}
q() { $G query --db "$1" --csv "$2" | tail -n 1; }
$G run configs/smoke.conf --db "$T/whole.db" >"$T/whole.log" 2>&1
rc=$?
chk '[ $rc -eq 0 ]' "the whole smoke sweep: exit $rc: $(tail -n 2 "$T/whole.log")"
for i in 0 1; do
    $G run configs/smoke.conf --db "$T/s$i.db" --shard "$i/2" >"$T/s$i.log" 2>&1
    rc=$?
    chk '[ $rc -eq 0 ] && grep -q "in other shards (this is shard $i/2)" "$T/s$i.log"' \
        "shard $i/2: exit $rc: $(tail -n 2 "$T/s$i.log")"
    chk '[ "$(q "$T/s$i.db" "select count(*) from results where device_kind = '"'gpu'"'")" -gt 0 ]' \
        "shard $i/2 ran no GPU run"
done
$G merge "$T/m.db" "$T/s0.db" "$T/s1.db" >"$T/merge.log" 2>&1
rc=$?
chk '[ $rc -eq 0 ] && grep -q "holds all 2 shards" "$T/merge.log"' "merge: exit $rc: $(cat "$T/merge.log")"
keys "$T/whole.db" >"$T/whole.keys"
keys "$T/m.db" >"$T/m.keys"
chk '[ -s "$T/whole.keys" ] && cmp -s "$T/whole.keys" "$T/m.keys"' \
    "merged shards differ from the whole sweep: $(diff "$T/whole.keys" "$T/m.keys" | head -n 6)"
for t in metric sample; do
    a=$(( $(q "$T/s0.db" "select count(*) from $t") + $(q "$T/s1.db" "select count(*) from $t") ))
    b=$(q "$T/m.db" "select count(*) from $t")
    chk '[ "$a" -gt 0 ] && [ "$a" = "$b" ]' "$t rows: the shards hold $a, the merged database $b"
done
chk '[ "$(q "$T/m.db" "select count(*) from device where kind = '"'gpu'"'")" = 1 ]' "the GPU is not one device row"
chk '[ "$(q "$T/m.db" "select count(*) from results where device_kind = '"'gpu'"' and status = '"'ok'"' and passes is null")" = 0 ]' \
    "merged ok GPU runs without counters"
$G merge "$T/m.db" "$T/s0.db" "$T/s1.db" >"$T/merge2.log" 2>&1
rc=$?
chk '[ $rc -eq 0 ] && grep -q " 0 runs added" "$T/merge2.log"' "merging again: exit $rc: $(tail -n 1 "$T/merge2.log")"
echo "shard-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
