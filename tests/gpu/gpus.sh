#!/bin/sh
# tests/gpu/gpus.sh - several GPUs and lost counters on the real GPU plugin (run by
# tests/gpu/run.sh): a batch whose third run (tests/gpu/data/lost.conf, a
# trapping kernel) loses the CUDA context leaves the first two ok with
# counters, profiled again; `run --gpus all` of the smoke config stores the same
# points as a run without it, ok, with counters, on every GPU of the machine when
# it has several (each run's unit one of them, each of those with its memory
# ceilings on its device row); `--gpus 0` runs on the GPU a run
# without --gpus uses. Ends with "gpus-gpu: N passed, N failed". Must not rebuild
# anything.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL gpus-gpu: $2"; fi; }
q() { $G query --db "$1" --csv "$2" | tail -n 1; }

# the planted batch, without and with --gpus
for opt in "" "--gpus all"; do
    db="$T/lost$(echo "$opt" | tr -d ' -').db"
    $G run tests/gpu/data/lost.conf --db "$db" $opt >"$T/lost.out" 2>&1; rc=$?
    cat "$T/lost.out"
    chk '[ $rc -eq 1 ]' "lost ($opt): exit $rc (want 1: trapper fails)"
    chk '[ "$(q "$db" "select count(*) from results where variant = '"'scale'"' and status = '"'ok'"' and passes > 0 and dram_read_bytes > 0")" = 2 ]' \
        "lost ($opt): scale runs with counters: $($G query --db "$db" --csv "select variant, n, status, passes, metrics_reason from results")"
    chk '[ "$(q "$db" "select status from results where variant = '"'trapper'"'")" = failed ]' "lost ($opt): trapper not failed: $(q "$db" "select status || ' ' || ifnull(reason, '') from results where variant = '"'trapper'"'")"
    # the two lost their counters to the trapper's batch and were profiled again, or
    # were profiled in a batch of their own before it (the hand-out's order)
    chk 'grep -q "^gpulab: 2 runs profiled again" "$T/lost.out" || [ "$(grep -c "ok/scale .* counters: yes" "$T/lost.out")" = 2 ]' "lost ($opt): the two scale runs neither profiled again nor profiled with counters"
done

# the smoke config on every GPU against one GPU
$G run configs/smoke.conf --db "$T/one.db" >"$T/one.out" 2>&1; rc1=$?
$G run configs/smoke.conf --db "$T/all.db" --gpus all >"$T/all.out" 2>&1; rc2=$?
tail -1 "$T/all.out"
chk '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]' "smoke: exit $rc1 without --gpus, $rc2 with --gpus all: $(tail -2 "$T/all.out")"
pts="select study || family || variant || ifnull(n,'') || ifnull(m,'') || ifnull(p,'') || ifnull(bs,'') || ifnull(k,'') || ifnull(r,'') || ifnull(mem,'') || status from results where is_latest = 1 order by 1"
$G query --db "$T/one.db" --csv "$pts" >"$T/one.pts"
$G query --db "$T/all.db" --csv "$pts" >"$T/all.pts"
chk 'cmp -s "$T/one.pts" "$T/all.pts"' "smoke: --gpus all stored other points or statuses: $(diff "$T/one.pts" "$T/all.pts" | head -5)"
chk '[ "$(q "$T/all.db" "select count(*) from results where device_kind = '"'gpu'"' and status = '"'ok'"' and passes is null")" = 0 ]' "smoke: --gpus all left GPU runs without counters"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
used=$(q "$T/all.db" "select count(distinct unit_id) from results where device_kind = 'gpu'")
echo "gpus-gpu: $ngpu GPUs (nvidia-smi -L), --gpus all used $used"
chk '[ "$ngpu" -lt 1 ] || [ "$used" = "$ngpu" ] || [ -n "$CUDA_VISIBLE_DEVICES" ]' "smoke: --gpus all used $used of $ngpu GPUs"
chk '[ "$(q "$T/all.db" "select count(*) from device where kind = '"'gpu'"' and ceilings_at is null and id in (select unit_id from results where device_kind = '"'gpu'"')")" = 0 ]' \
    "smoke: --gpus all left a GPU without its memory ceilings: $($G query --db "$T/all.db" --csv "select ident, l1_bw_gbs, ceilings_reason from device where kind = 'gpu'")"
$G run configs/smoke.conf --db "$T/zero.db" --gpus 0 >"$T/zero.out" 2>&1; rc=$?
chk '[ $rc -eq 0 ] && [ "$(q "$T/zero.db" "select group_concat(distinct d.ident) from results r join device d on d.id = r.unit_id where r.device_kind = '"'gpu'"'")" = "$(q "$T/one.db" "select group_concat(distinct d.ident) from results r join device d on d.id = r.unit_id where r.device_kind = '"'gpu'"'")" ]' \
    "smoke: --gpus 0 ran on another GPU than a run without --gpus"
echo "gpus-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
