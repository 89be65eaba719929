#!/bin/sh
# tests/integration/batches.sh - GPU runs without counters are handed to the worker
# in batches too (one trip and one commit a batch), with the fake GPU plugin
# (tests/plugins/fake_gpu.c logs a "unit" line where the worker opens a batch).
# (a) 12 runs of `metrics = none`: one unit by default, each handed out alone with
# GPULAB_BATCH=1, the same runs and statuses either way; (b) a batch holding a run that loses the
# (fake) CUDA context: that run fails alone, every other run is stored ok once, and
# none is "profiled again" (that is for runs whose counters another run took).
# Must not need a GPU.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL batches: $2"; fi; }
sq() { sqlite3 "$1" "$2" 2>&1; }
FAKE=build/tests/plugins/fake_gpu.so
[ -f "$FAKE" ] || { echo "batches: $FAKE is missing (make all)"; echo "batches: 0 passed, 1 failed"; exit 1; }
export GPULAB_PLUGIN="$FAKE" GPULAB_LOCK_DIR="$T/locks"
unset CUDA_VISIBLE_DEVICES GPULAB_FAKE_MODELS GPULAB_FAKE_COUNTERS GPULAB_UNIT_MIN GPULAB_FAKE_GPUS GPULAB_BATCH

cat > "$T/none.conf" <<'CONF'
study = batches
warmup = 0
samples_min = 1
samples_max = 1
metrics = none

[gpu]
family = fake
variants = sleep
N = 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112
CONF

# (a) one unit for the 12 runs; with GPULAB_BATCH=1 each run handed out alone
GPULAB_FAKE_LOG="$T/a.log" $G run "$T/none.conf" --db "$T/a.db" >"$T/a.out" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "batched: exit $rc: $(tail -3 "$T/a.out")"
check '[ "$(sq "$T/a.db" "select count(*) from run where status = '"'ok'"'")" = 12 ]' \
    "batched: $(sq "$T/a.db" "select count(*) from run where status = 'ok'") ok runs (want 12)"
nu=$(grep -c '^unit ' "$T/a.log")
check '[ "$nu" = 1 ]' "batched: $nu units for 12 runs without counters (want 1)"
GPULAB_BATCH=1 GPULAB_FAKE_LOG="$T/b.log" $G run "$T/none.conf" --db "$T/b.db" >"$T/b.out" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "one at a time: exit $rc: $(tail -3 "$T/b.out")"
nu=$(grep -c '^unit ' "$T/b.log"); nr=$(grep -c '^run ' "$T/b.log")
check '[ "$nu" = 0 ] && [ "$nr" = 12 ]' "GPULAB_BATCH=1: $nu units, $nr runs (want 12 runs handed out one at a time)"
Q="select n || ' ' || status || ' ' || coalesce(metrics_reason, '') from run order by n"
check '[ "$(sq "$T/a.db" "$Q")" = "$(sq "$T/b.db" "$Q")" ]' \
    "batched and one at a time differ: $(sq "$T/a.db" "$Q" | head -2) / $(sq "$T/b.db" "$Q" | head -2)"
check '[ "$(sq "$T/a.db" "select count(*) from run where metrics_reason like '"'not requested%'"'")" = 12 ]' \
    "batched: the runs do not say 'not requested (metrics = none)': $(sq "$T/a.db" "select distinct metrics_reason from run")"

# (b) a run that loses the context inside a batch without counters
cat > "$T/crash.conf" <<'CONF'
study = batches
warmup = 0
samples_min = 1
samples_max = 1
metrics = none

[gpu]
family = fake
variants = sleep
N = 201, 202, 203

[bad]
family = fake
variants = crash
N = 250

[more]
family = fake
variants = sleep
N = 301, 302, 303
CONF
GPULAB_FAKE_LOG="$T/c.log" $G run "$T/crash.conf" --db "$T/c.db" >"$T/c.out" 2>&1
ok=$(sq "$T/c.db" "select count(*) from run where status = 'ok' and variant = 'sleep'")
dup=$(sq "$T/c.db" "select count(*) from (select n from run group by n having count(*) > 1)")
check '[ "$ok" = 6 ] && [ "$dup" = 0 ]' "crash in a batch: $ok sleep runs ok (want 6), $dup stored twice"
check '[ "$(sq "$T/c.db" "select status from run where variant = '"'crash'"'")" = failed ]' \
    "crash in a batch: the crash run is '$(sq "$T/c.db" "select status from run where variant = 'crash'")' (want failed)"
check '! grep -q "again" "$T/c.out"' "crash in a batch: runs without counters were run again: $(grep again "$T/c.out")"

echo "batches: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
