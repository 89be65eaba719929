#!/bin/sh
# tests/integration/gpus.sh - `run --gpus` and lost counters without a GPU: the
# fake GPU plugin (tests/plugins/fake_gpu.c, loaded with GPULAB_PLUGIN)
# stands in for N GPUs whose runs sleep. Checked: with 2 and 3 GPUs every
# planned run is stored exactly once, on one of the fake GPUs, all of them used,
# the largest first and the work balanced (no GPU over the mean + the largest
# run), each run's counters from its own GPU; without --gpus everything runs on
# GPU 0 in plan order; a run's stored cost orders it before its analytic size;
# with --shard I/N each shard's slice spreads over the GPUs;
# CPU baselines run alone, before the GPU runs; a worker
# killed with kill -9 in the middle of a batch has that batch's runs redone on
# a fresh worker while the other GPU's worker goes on untouched; a batch whose
# third run loses the CUDA context leaves the first two with counters (they are
# profiled again), with and without --gpus, and ok rows an older gpulab stored
# without counters for that reason are run again; each GPU has its own device
# lock (another sweep on a GPU this one holds waits, or refuses with
# --no-wait, while one on another GPU runs); CUDA_VISIBLE_DEVICES of the driver
# is honoured (GPU n is its n-th entry); GPUs of two models each record their
# own device and resume by model; a hang on one GPU is ended by the watchdog
# there while the other GPU's worker goes on; SIGTERM ends every busy worker at
# once and stores nothing half-done; the progress line and the heartbeat name
# the runs of every busy worker; bad --gpus values are usage errors. Must not
# need a GPU; runs in about 17 s.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL gpus: $2"; fi; }
sq() { sqlite3 "$1" "$2" 2>&1; }
FAKE=build/tests/plugins/fake_gpu.so
[ -f "$FAKE" ] || { echo "gpus: $FAKE is missing (make all)"; echo "gpus: 0 passed, 1 failed"; exit 1; }
export GPULAB_PLUGIN="$FAKE" GPULAB_LOCK_DIR="$T/locks"
unset CUDA_VISIBLE_DEVICES GPULAB_FAKE_MODELS GPULAB_FAKE_COUNTERS GPULAB_UNIT_MIN GPULAB_BATCH
# the fake GPU a run's device row is (its UUID ends with the GPU's number)
GPU_OF="cast(substr(d.ident, -12) as integer)"

# (a) 12 runs whose costs differ 100x, on 2 and 3 GPUs
cat >"$T/a.conf" <<'CONF'
study = spread
warmup = 0
samples_min = 1
samples_max = 1
[g]
family = fake
variants = sleep
N = 5000, 10000, 20000, 30000, 50000, 80000, 100000, 150000, 200000, 300000, 400000, 500000
CONF
planned=$(GPULAB_FAKE_GPUS=3 $G plan "$T/a.conf" --summary --db "$T/none.db" 2>/dev/null | sed -n 's/^total: \([0-9]*\) to run.*/\1/p')
check '[ "$planned" = 12 ]' "plan: '$planned' runs (want 12)"
for n in 2 3; do
    db="$T/a$n.db"
    GPULAB_FAKE_GPUS=$n GPULAB_FAKE_LOG="$T/a$n.log" $G run "$T/a.conf" --db "$db" --gpus all >"$T/a$n.out" 2>&1
    rc=$?
    check '[ $rc -eq 0 ]' "$n GPUs: exit $rc: $(tail -3 "$T/a$n.out")"
    check '[ "$(sq "$db" "select count(*), count(distinct n) from run where status = '"'ok'"' and passes = 1")" = "$planned|$planned" ]' \
        "$n GPUs: each planned run once, ok with counters: $(sq "$db" "select count(*), count(distinct n) from run")"
    check '[ "$(sq "$db" "select count(distinct r.device_id), min($GPU_OF), max($GPU_OF) from run r join device d on d.id = r.device_id where d.kind = '"'gpu'"'")" = "$n|0|$((n - 1))" ]' \
        "$n GPUs: runs on $(sq "$db" "select group_concat(distinct d.ident) from run r join device d on d.id = r.device_id")"
    # each run's counters were read on its own GPU (the fake encodes the GPU in them)
    check '[ "$(sq "$db" "select count(*) from metric m join run r on r.id = m.run_id join device d on d.id = r.device_id where cast(m.value / 1e9 as integer) <> $GPU_OF or m.value - 1e9 * $GPU_OF <> r.n")" = 0 ]' \
        "$n GPUs: counters of another GPU or run"
    # largest first: the largest run is among the first run each worker started
    firsts=$(grep '^run ' "$T/a$n.log" | head -n $n | sed 's/.* n=\([0-9]*\) .*/\1/' | tr '\n' ' ')
    check 'echo " $firsts" | grep -q " 500000 "' "$n GPUs: the first runs were $firsts (want 500000 among them)"
    # balance: no GPU's sleep over the mean by more than the largest run
    check '[ "$(sq "$db" "select max(s) <= (select sum(n) from run) / '$n' + 500000 from (select sum(n) s from run group by device_id)")" = 1 ]' \
        "$n GPUs: work per GPU $(sq "$db" "select group_concat(s) from (select sum(n) s from run group by device_id)") us"
    check '[ "$(grep -c "^init " "$T/a$n.log")" = $n ]' "$n GPUs: $(grep -c "^init " "$T/a$n.log") workers started (want one per GPU)"
    # a second run: everything done
    GPULAB_FAKE_GPUS=$n $G run "$T/a.conf" --db "$db" --gpus all >"$T/a$n.again" 2>&1
    check 'grep -q "^gpulab: 0 ran (0 ok, 0 wrong, 0 failed), 12 already done" "$T/a$n.again"' "$n GPUs, again: $(tail -1 "$T/a$n.again")"
done
grep -q "(GPU 1)$" "$T/a2.out"; check '[ $? -eq 0 ]' "result lines do not name their GPU: $(head -3 "$T/a2.out")"
# the cost of a run stored before outweighs its analytic size: the smallest run,
# stored as taking 10 s, goes first when everything runs again
$G query --write --db "$T/a2.db" "update run set median_ms = 10000 where n = 5000" >/dev/null 2>&1
GPULAB_FAKE_GPUS=2 GPULAB_FAKE_LOG="$T/a2f.log" $G run "$T/a.conf" --db "$T/a2.db" --gpus all --force >"$T/a2f.out" 2>&1
firsts=$(grep '^run ' "$T/a2f.log" | head -n 2 | sed 's/.* n=\([0-9]*\) .*/\1/' | tr '\n' ' ')
check 'echo " $firsts" | grep -q " 5000 "' "stored cost: the first runs were $firsts (want 5000, stored as 10 s, among them)"

# --gpus with --shard: each shard's slice spread over the GPUs; the two make the plan
for i in 0 1; do
    GPULAB_FAKE_GPUS=2 $G run "$T/a.conf" --db "$T/sh$i.db" --gpus all --shard $i/2 >"$T/sh$i.out" 2>&1
    check '[ $? -eq 0 ] && [ "$(sq "$T/sh$i.db" "select count(distinct device_id) from run")" = 2 ]' \
        "--gpus all --shard $i/2: $(tail -1 "$T/sh$i.out"), GPUs $(sq "$T/sh$i.db" "select group_concat(distinct device_id) from run")"
done
check '[ "$(sqlite3 "$T/sh0.db" "attach '"'$T/sh1.db'"' as b; select count(*), count(distinct n) from (select n from run union all select n from b.run)")" = "12|12" ]' \
    "--gpus all with two shards: not the plan once: $(sq "$T/sh0.db" "select group_concat(n) from run") / $(sq "$T/sh1.db" "select group_concat(n) from run")"

# (b) without --gpus: GPU 0 only, in plan order, as always
GPULAB_FAKE_GPUS=3 GPULAB_FAKE_LOG="$T/b.log" $G run "$T/a.conf" --db "$T/b.db" >"$T/b.out" 2>&1
check '[ $? -eq 0 ] && [ "$(sq "$T/b.db" "select count(*), min($GPU_OF), max($GPU_OF) from run r join device d on d.id = r.device_id")" = "12|0|0" ]' \
    "without --gpus: $(sq "$T/b.db" "select count(*), group_concat(distinct d.ident) from run r join device d on d.id = r.device_id")"
order=$(grep '^run ' "$T/b.log" | sed 's/.* n=\([0-9]*\) .*/\1/' | tr '\n' ' ')
check '[ "$order" = "5000 10000 20000 30000 50000 80000 100000 150000 200000 300000 400000 500000 " ]' "without --gpus: order $order"
check '! grep -q "(GPU " "$T/b.out"' "without --gpus, a line names a GPU: $(grep "(GPU " "$T/b.out" | head -1)"

# (c) CPU baselines run alone, before the GPU runs
cat >"$T/c.conf" <<'CONF'
study = cpufirst
warmup = 0
samples_min = 1
samples_max = 1
[g]
family = fake
variants = sleep
N = 20000, 30000, 40000
[c]
family = vecadd
variants = seq
N = 100000, 200000
CONF
GPULAB_FAKE_GPUS=2 $G run "$T/c.conf" --db "$T/c.db" --gpus all >"$T/c.out" 2>&1
check '[ $? -eq 0 ] && [ "$(sq "$T/c.db" "select (select max(created_at) from run where variant = '"'seq'"') <= (select min(started_at) from run where variant = '"'sleep'"'), count(*) from run")" = "1|5" ]' \
    "CPU runs not alone before the GPU runs: $(sq "$T/c.db" "select variant, started_at, created_at from run")"

# (d) kill -9 of GPU 1's worker in the middle of its first batch (3 runs of 0.3 s)
cat >"$T/k.conf" <<'CONF'
study = kill
warmup = 0
samples_min = 1
samples_max = 1
[g]
family = fake
variants = sleep
N = 300000, 300001, 300002, 300003, 300004, 300005, 300006, 300007
CONF
GPULAB_FAKE_GPUS=2 GPULAB_UNIT_MIN=4 GPULAB_FAKE_LOG="$T/k.log" $G run "$T/k.conf" --db "$T/k.db" --gpus all >"$T/k.out" 2>&1 &
pid=$!
w1=""
for _ in $(seq 1 100); do   # until GPU 1's worker started the second run of its batch
    [ "$(grep -c '^run gpu=1 ' "$T/k.log" 2>/dev/null)" = 2 ] && w1=$(sed -n 's/^init gpu=1 pid=\([0-9]*\).*/\1/p' "$T/k.log") && break
    sleep 0.05
done
check '[ -n "$w1" ]' "kill: GPU 1's batch did not start: $(cat "$T/k.log")"
[ -n "$w1" ] && kill -9 "$w1"
wait $pid; rc=$?
check '[ $rc -eq 0 ]' "kill: exit $rc: $(tail -3 "$T/k.out")"
check '[ "$(sq "$T/k.db" "select count(*), count(distinct n) from run where status = '"'ok'"' and passes = 1")" = "8|8" ]' \
    "kill: runs $(sq "$T/k.db" "select group_concat(n || ':' || status) from run")"
check '[ "$(grep -c "^init gpu=0 " "$T/k.log") $(grep -c "^init gpu=1 " "$T/k.log")" = "1 2" ]' "kill: workers started per GPU: $(grep "^init" "$T/k.log")"
w0=$(sed -n 's/^init gpu=0 pid=\([0-9]*\).*/\1/p' "$T/k.log")
killed=$(grep "^run gpu=1 pid=$w1 " "$T/k.log" | sed 's/.* n=\([0-9]*\) .*/\1/' | tr '\n' ' ')
redone=0
for n in $killed; do
    [ "$(grep -c " n=$n " "$T/k.log")" = 2 ] && [ "$(sq "$T/k.db" "select $GPU_OF from run r join device d on d.id = r.device_id where n = $n")" = 1 ] && redone=$((redone + 1))
done
check '[ "$redone" = 2 ]' "kill: the killed batch's runs ($killed) not redone on GPU 1 once each: $(cat "$T/k.log")"
check '[ "$(grep "^run gpu=0 " "$T/k.log" | grep -vc " pid=$w0 ")" = 0 ] && [ "$(grep "^run gpu=0 " "$T/k.log" | sed "s/.* n=\([0-9]*\) .*/\1/" | sort | uniq -d | wc -l)" = 0 ]' \
    "kill: GPU 0's worker was disturbed: $(grep "^run gpu=0" "$T/k.log")"
check '[ "$(sq "$T/k.db" "select count(*) from run r join device d on d.id = r.device_id where $GPU_OF = 0")" = "$(grep -c "^run gpu=0 " "$T/k.log")" ]' \
    "kill: GPU 0's runs stored as it ran them"

# (e) the planted batch: the third run loses the CUDA context
cat >"$T/p.conf" <<'CONF'
study = planted
warmup = 0
samples_min = 1
samples_max = 1
[a]
family = fake
variants = sleep
N = 20000, 30000
[b]
family = fake
variants = crash
N = 1000
CONF
for how in plain gpus; do
    db="$T/p_$how.db"
    opt=""; [ $how = gpus ] && opt="--gpus all"
    GPULAB_FAKE_GPUS=2 GPULAB_UNIT_MIN=100 GPULAB_FAKE_LOG="$T/p_$how.log" $G run "$T/p.conf" --db "$db" $opt >"$T/p_$how.out" 2>&1
    rc=$?
    check '[ $rc -eq 1 ]' "planted ($how): exit $rc (want 1: a failed run): $(tail -2 "$T/p_$how.out")"
    check 'grep -q "^batch .*what=lost n=2 " "$T/p_$how.log"' "planted ($how): no batch of three lost its context: $(cat "$T/p_$how.log")"
    check '[ "$(sq "$db" "select group_concat(variant || n || status || coalesce(passes, 0) || coalesce(metrics_reason, '"'-'"'), '"' '"') from (select * from run order by n)")" = "crash1000failed0not profiled: run was not ok sleep20000ok1- sleep30000ok1-" ]' \
        "planted ($how): rows $(sq "$db" "select variant, n, status, passes, metrics_reason from run")"
    check 'grep -q "^gpulab: 2 runs profiled again" "$T/p_$how.out"' "planted ($how): summary $(tail -2 "$T/p_$how.out")"
done
# rows an older gpulab stored ok without counters for that reason are run again
db="$T/p_plain.db"
$G query --write --db "$db" "delete from metric where run_id in (select id from run where variant = 'sleep'); update run set passes = NULL, metrics_reason = 'not profiled: the CUDA context was lost in a later run of its batch' where n = 20000; update run set passes = NULL, metrics_reason = 'profiled replay failed: cudaErrorIllegalAddress (in another run of the batch)' where n = 30000" >/dev/null 2>&1
GPULAB_FAKE_GPUS=1 $G run "$T/p.conf" --db "$db" --only sleep >"$T/p_old.out" 2>&1
check 'grep -q "^gpulab: 2 ran (2 ok, 0 wrong, 0 failed), 0 already done" "$T/p_old.out"' "old lost rows: $(tail -1 "$T/p_old.out")"
check '[ "$(sq "$db" "select count(*) from results where variant = '"'sleep'"' and is_latest = 1 and passes = 1")" = 2 ]' "old lost rows: not replaced by rows with counters"

# (f) one device lock per GPU
cat >"$T/l.conf" <<'CONF'
study = locks
warmup = 0
samples_min = 1
samples_max = 1
[g]
family = fake
variants = sleep
N = 1500000
CONF
GPULAB_FAKE_GPUS=2 GPULAB_FAKE_LOG="$T/l.log" $G run "$T/l.conf" --db "$T/l0.db" --gpus 0 >"$T/l0.out" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q '^run ' "$T/l.log" 2>/dev/null && break; sleep 0.05; done
GPULAB_FAKE_GPUS=2 $G run "$T/l.conf" --db "$T/l1.db" --gpus 1 --no-wait >"$T/l1.out" 2>&1 &
other=$!
GPULAB_FAKE_GPUS=2 $G run "$T/l.conf" --db "$T/lall.db" --gpus all --no-wait >"$T/lall.out" 2>&1
rc=$?
check '[ $rc -eq 4 ] && grep -q "GPU gpulab fake GPU (GPU-fa4e0000-0000-4000-8000-000000000000) is busy" "$T/lall.out"' \
    "--gpus all --no-wait while GPU 0 is held: exit $rc: $(cat "$T/lall.out")"
check '[ "$(sq "$T/lall.db" "select count(*) from run")" = 0 ]' "a refused sweep stored runs"
GPULAB_FAKE_GPUS=2 $G run "$T/l.conf" --db "$T/lw.db" --gpus 0 >"$T/lw.out" 2>&1
rc=$?
wait $other; orc=$?
check '[ $orc -eq 0 ]' "a sweep on GPU 1 waited for or was refused GPU 0's lock: exit $orc: $(cat "$T/l1.out")"
check '[ $rc -eq 0 ] && grep -q "waiting for GPU gpulab fake GPU (GPU-fa4e0000-0000-4000-8000-000000000000)" "$T/lw.out"' \
    "a second sweep on GPU 0 did not wait: exit $rc: $(head -3 "$T/lw.out")"
check '[ "$(sq "$T/lw.db" "select started_at >= (select created_at from run) from run" | tr -d '\n')" != "" ]' "the waiting sweep stored nothing"
check '[ "$(sq "$T/lw.db" "select started_at from run")" \> "$(sq "$T/l0.db" "select created_at from run")" ]' \
    "the waiting sweep timed while the first held GPU 0: $(sq "$T/lw.db" "select started_at from run") vs $(sq "$T/l0.db" "select created_at from run")"
wait $pid

# (g) the driver's CUDA_VISIBLE_DEVICES: GPU n is its n-th entry
CUDA_VISIBLE_DEVICES=2,0 GPULAB_FAKE_GPUS=3 $G run "$T/a.conf" --db "$T/g.db" --gpus all >"$T/g.out" 2>&1
check '[ $? -eq 0 ] && [ "$(sq "$T/g.db" "select group_concat(g) from (select distinct $GPU_OF g from run r join device d on d.id = r.device_id order by g)")" = "0,2" ]' \
    "CUDA_VISIBLE_DEVICES=2,0 --gpus all: GPUs $(sq "$T/g.db" "select group_concat(distinct d.ident) from run r join device d on d.id = r.device_id")"
CUDA_VISIBLE_DEVICES=2,0 GPULAB_FAKE_GPUS=3 $G run "$T/a.conf" --db "$T/g1.db" --gpus 1 >"$T/g1.out" 2>&1
check '[ $? -eq 0 ] && [ "$(sq "$T/g1.db" "select group_concat(distinct $GPU_OF) from run r join device d on d.id = r.device_id")" = 0 ]' \
    "CUDA_VISIBLE_DEVICES=2,0 --gpus 1: GPUs $(sq "$T/g1.db" "select group_concat(distinct d.ident) from run r join device d on d.id = r.device_id")"

# (h) bad --gpus values: usage errors, nothing stored
for bad in "x" "0,0" "1," "-1" ""; do
    GPULAB_FAKE_GPUS=2 $G run "$T/a.conf" --db "$T/h.db" --gpus "$bad" >"$T/h.out" 2>&1
    rc=$?
    check '[ $rc -eq 2 ] && grep -q "^gpulab: .*--gpus" "$T/h.out" && [ ! -e "$T/h.db" ]' "--gpus '$bad': exit $rc: $(head -2 "$T/h.out")"
done
GPULAB_FAKE_GPUS=2 $G run "$T/a.conf" --db "$T/h.db" --gpus 0,5 >"$T/h.out" 2>&1
rc=$?
check '[ $rc -eq 2 ] && grep -q "^gpulab: --gpus 0,5: there is no GPU 5 here (2 GPUs: 0 to 1)$" "$T/h.out" && [ ! -e "$T/h.db" ]' "--gpus 0,5 of 2: exit $rc: $(cat "$T/h.out")"
GPULAB_FAKE_GPUS=0 $G run "$T/a.conf" --db "$T/h0.db" --gpus all >"$T/h0.out" 2>&1
rc=$?
# (a study of GPU runs only, none possible: nothing could run, exit 7)
check '[ $rc -eq 7 ] && grep -q "no usable GPU: no CUDA device" "$T/h0.out" && grep -q "12 GPU runs skipped" "$T/h0.out"' "--gpus all without a GPU: exit $rc: $(cat "$T/h0.out")"

# (i) two models: each run records its own GPU; a run is done for the model that ran it
export GPULAB_FAKE_MODELS="Fake A,Fake B"
GPULAB_FAKE_GPUS=2 $G run "$T/a.conf" --db "$T/m.db" --gpus all >"$T/m.out" 2>&1
check '[ $? -eq 0 ] && [ "$(sq "$T/m.db" "select count(*) from run r join device d on d.id = r.device_id where d.name = '"'Fake '"' || char(65 + $GPU_OF)")" = 12 ]' \
    "two models: runs $(sq "$T/m.db" "select group_concat(d.name || '/' || d.ident) from run r join device d on d.id = r.device_id")"
onb=$(sq "$T/m.db" "select count(*) from run r join device d on d.id = r.device_id where d.name = 'Fake B'")
GPULAB_FAKE_GPUS=2 $G run "$T/a.conf" --db "$T/m.db" --gpus all >"$T/m2.out" 2>&1
check 'grep -q "^gpulab: 0 ran (0 ok, 0 wrong, 0 failed), 12 already done" "$T/m2.out"' "two models, again: $(tail -1 "$T/m2.out")"
GPULAB_FAKE_GPUS=2 $G run "$T/a.conf" --db "$T/m.db" --gpus 0 >"$T/m3.out" 2>&1
check '[ "$onb" -gt 0 ] && grep -q "^gpulab: $onb ran ($onb ok, 0 wrong, 0 failed), $((12 - onb)) already done" "$T/m3.out"' \
    "two models, on model A alone: $(tail -1 "$T/m3.out") (want the $onb runs of model B to run)"
unset GPULAB_FAKE_MODELS

# (k) a hang on one GPU: the watchdog ends it there, the other GPU's runs go on
cat >"$T/w.conf" <<'CONF'
study = hang
warmup = 0
samples_min = 1
samples_max = 1
timeout = 1s
[h]
family = fake
variants = hang
N = 900000
[g]
family = fake
variants = sleep
N = 100000, 200000, 300000
CONF
GPULAB_FAKE_GPUS=2 GPULAB_FAKE_LOG="$T/w.log" $G run "$T/w.conf" --db "$T/w.db" --gpus all >"$T/w.out" 2>&1
rc=$?
check '[ $rc -eq 1 ] && [ "$(sq "$T/w.db" "select group_concat(variant || status, '"' '"') from (select * from run order by n)")" = "sleepok sleepok sleepok hangfailed" ]' \
    "a hang: exit $rc: $(sq "$T/w.db" "select variant, n, status, reason from run")"
check 'grep -q "hang N=900000 .*FAILED: timed out: no result after 1 s" "$T/w.out"' "a hang: $(grep hang "$T/w.out")"
hung=$(sq "$T/w.db" "select $GPU_OF from run r join device d on d.id = r.device_id where variant = 'hang'")
check '[ "$(grep -c "^init gpu=$((1 - hung)) " "$T/w.log")" = 1 ]' "a hang: the other GPU's worker was restarted: $(grep init "$T/w.log")"

# (l) SIGTERM to the driver with two workers busy: both ended, nothing half-done stored
GPULAB_FAKE_GPUS=2 GPULAB_FAKE_LOG="$T/s.log" $G run "$T/k.conf" --db "$T/s.db" --gpus all >"$T/s.out" 2>&1 &
pid=$!
for _ in $(seq 1 100); do [ "$(grep -c '^run ' "$T/s.log" 2>/dev/null)" = 2 ] && break; sleep 0.05; done
sleep 0.2
workers=$(sed -n 's/^init gpu=[0-9]* pid=\([0-9]*\).*/\1/p' "$T/s.log" | tr '\n' ' ')
kill -TERM $pid
wait $pid; rc=$?
check '[ $rc -eq 143 ] && grep -q "^gpulab: interrupted (SIGTERM).*the runs in flight were dropped" "$T/s.out"' \
    "SIGTERM with two busy workers: exit $rc: $(tail -2 "$T/s.out")"
alive=""
for w in $workers; do kill -0 "$w" 2>/dev/null && alive="$alive $w"; done
check '[ -z "$alive" ] && [ -n "$workers" ]' "SIGTERM: workers ($workers) left alive:$alive"
check '[ "$(sq "$T/s.db" "select count(*) from run")" = 0 ]' "SIGTERM: runs in flight were stored: $(sq "$T/s.db" "select n, status from run")"

# (j) progress with several workers: the terminal line and the heartbeat
cat >"$T/j.conf" <<'CONF'
study = progress
warmup = 0
samples_min = 1
samples_max = 1
[g]
family = fake
variants = sleep
N = 600000, 600001
CONF
GPULAB_FAKE_GPUS=2 GPULAB_HEARTBEAT=0.2 $G run "$T/j.conf" --db "$T/j.db" --gpus all >"$T/j.out" 2>&1
check 'grep -q "^still running .*N=600000 .*(GPU [01])" "$T/j.out" && grep -q "^still running .*N=600001 .*(GPU [01])" "$T/j.out"' \
    "heartbeat of both workers: $(grep still "$T/j.out" | head -4)"
GPULAB_FAKE_GPUS=2 script -qfc "$G run $T/j.conf --db $T/jt.db --gpus all" /dev/null >"$T/jt.out" 2>&1
check 'grep -q "(+1 more running)  ETA" "$T/jt.out"' "the terminal line does not show both workers: $(tr '\r' '\n' <"$T/jt.out" | head -5)"

echo "gpus: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
