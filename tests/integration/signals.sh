#!/bin/sh
# tests/integration/signals.sh - SIGTERM or SIGINT sent to `gpulab run` alone (not
# its process group) in the middle of a long CPU run: the driver forwards it to
# the worker and stops before the run ends (a watchdog far past what stopping
# takes, and well short of the run, would kill it: bench/timing.sh measures how
# soon it stops), exits 143 / 130
# with "interrupted" in its summary, leaves no worker behind, and stores nothing
# half-done (the rows are exactly the runs it printed as finished; integrity ok).
# Ctrl-C to the whole process group ends the same way, without a "crashed" row.
# Also: the heartbeat ("still running ...") when stdout is not a terminal, and a
# progress total that leaves out the runs that will not execute. Must not need a GPU.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL signals: $2"; fi; }
alive() { st=$(ps -o stat= -p "$1" 2>/dev/null); [ -n "$st" ] && [ "${st#Z}" = "$st" ]; }
# stopped_by PID SECS: PID ended by itself within SECS (a hang guard, not a
# timing: SECS is far past what stopping takes on any machine); else kill -9 it
stopped_by() {
    i=0
    while kill -0 "$1" 2>/dev/null && [ $i -lt $(($2 * 10)) ]; do sleep 0.1; i=$((i + 1)); done
    kill -0 "$1" 2>/dev/null || return 0
    kill -9 "$1" 2>/dev/null
    return 1
}
cat >"$T/long.conf" <<'CONF'
study = signals
[cpu]
family = matmul
variants = seq_ijk
N = 32, 640
samples_min = 50
noise = 0
time_cap = 60s
timeout = 120s
CONF
for sig in TERM INT; do
    want=143; [ $sig = INT ] && want=130
    db="$T/$sig.db"
    $G run "$T/long.conf" --db "$db" >"$T/$sig.out" 2>&1 &
    pid=$!
    worker=""
    for _ in $(seq 1 200); do   # up to 10 s for the long run (N=640) to start
        grep -q '^\[1/2\]' "$T/$sig.out" 2>/dev/null && worker=$(pgrep -P "$pid" | head -n 1)
        [ -n "$worker" ] && break
        sleep 0.05
    done
    check '[ -n "$worker" ]' "$sig: the long run did not start: $(cat "$T/$sig.out")"
    sleep 0.5
    kill -$sig "$pid"
    # the long run lasts minutes (50 samples of a 640^3 i-j-k product, no cap
    # reached before 60 s): the driver must stop long before it ends
    stopped_by "$pid" 30; stopped=$?
    wait "$pid"; rc=$?
    check '[ $stopped -eq 0 ]' "$sig: the driver did not stop within 30 s of the signal (it waited for the run?)"
    check '[ $rc -eq $want ]' "$sig: exit $rc, want $want: $(tail -2 "$T/$sig.out")"
    check 'grep -q "^gpulab: interrupted (SIG$sig)" "$T/$sig.out"' "$sig: summary does not say interrupted: $(tail -1 "$T/$sig.out")"
    sleep 0.2
    if [ -n "$worker" ]; then
        check '! alive "$worker"' "$sig: worker $worker alive after the driver stopped"
        kill -9 "$worker" 2>/dev/null
    fi
    ic=$(sqlite3 "$db" "pragma integrity_check")
    check '[ "$ic" = ok ]' "$sig: integrity_check: $ic"
    rows=$(sqlite3 "$db" "select count(*) from run")
    check '[ "$rows" = 1 ]' "$sig: $rows rows stored, want 1 (the N=32 run, nothing of the interrupted one)"
    check '[ "$(grep -c "^\[[0-9]*/[0-9]*\] .* ok " "$T/$sig.out")" = 1 ]' "$sig: printed finished runs != 1"
done

# --- Ctrl-C to the whole process group (driver and worker both get SIGINT) ---------
if command -v setsid >/dev/null 2>&1; then
    setsid $G run "$T/long.conf" --db "$T/grp.db" >"$T/grp.out" 2>&1 &
    for _ in $(seq 1 200); do grep -q '^\[1/2\]' "$T/grp.out" 2>/dev/null && break; sleep 0.05; done
    sleep 0.5
    gpid=$(pgrep -f "run $T/long.conf --db $T/grp.db" | head -n 1)
    pg=$(ps -o pgid= -p "$gpid" | tr -d ' ')
    kill -INT "-$pg"
    wait $!; rc=$?
    check '[ $rc -eq 130 ] && grep -q "^gpulab: interrupted (SIGINT)" "$T/grp.out"' "Ctrl-C to the group: exit $rc: $(tail -1 "$T/grp.out")"
    check '[ "$(sqlite3 "$T/grp.db" "select count(*) from run")" = 1 ]' "Ctrl-C to the group: a row of the interrupted run was stored ($(sqlite3 "$T/grp.db" "select status, reason from run"))"
fi

# --- the heartbeat: a long run is not silent when stdout is not a terminal ----------
GPULAB_HEARTBEAT=0.5 $G run "$T/long.conf" --db "$T/hb.db" >"$T/hb.out" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
    grep -q "^still running \[2/2\] matmul/seq_ijk N=640" "$T/hb.out" 2>/dev/null && break
    sleep 0.05
done
kill -TERM "$pid"; wait "$pid"
check 'grep -qE "^still running \[2/2\] matmul/seq_ijk N=640 seed=42 \([0-9]+ s\)$" "$T/hb.out"' "no heartbeat line during a long run: $(cat "$T/hb.out")"

# --- the progress counts only the runs that will execute ------------------------------
cat >"$T/mixed.conf" <<'CONF'
study = progress
[cpu]
family = vecadd
variants = seq
N = 1000, 2000
samples_min = 3
time_cap = 0.1s
[gpu]
family = vecadd
variants = global
N = 1000, 2000, 4000
BS = 256
CONF
skip=0
if [ ! -f build/libgpulab_gpu.so ]; then   # no GPU variants at all without a CUDA compiler
    skip=2
elif ! command -v nvidia-smi >/dev/null 2>&1; then
    $G run "$T/mixed.conf" --db "$T/m.db" >"$T/m1.out" 2>/dev/null
    check 'grep -q "^\[2/2\] vecadd/seq N=2000" "$T/m1.out" && ! grep -q "/5\]" "$T/m1.out"' "progress total counts GPU runs that are skipped: $(grep '^\[' "$T/m1.out")"
    sqlite3 "$T/m.db" "update run set status = 'failed', reason = 'test' where id = (select max(id) from run)"
    $G run "$T/mixed.conf" --db "$T/m.db" >"$T/m2.out" 2>/dev/null
    check 'grep -q "^\[1/1\] vecadd/seq N=" "$T/m2.out"' "progress total counts runs already done: $(grep '^\[' "$T/m2.out")"
fi
if [ "$skip" -gt 0 ]; then
    echo "signals: $skip check(s) skipped: the GPU variants need build/libgpulab_gpu.so (a CUDA compiler)"
    echo "signals: $pass passed, $fail failed, $skip skipped"
else
    echo "signals: $pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
