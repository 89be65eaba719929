#!/bin/sh
# tests/integration/orphans.sh - a killed sweep leaves nothing running: after
# `kill -9` of `gpulab run` in the middle of a long CPU run, its worker process is
# gone (it dies with its parent) long before its run would end, so a sweep resumed
# right away is never timed against it, and `gpulab run ... | cat` returns then
# too. The waits below are hang guards far past what dying takes and far short of
# the run (minutes), not timings. Must not need a GPU.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL orphans: $2"; fi; }
# alive: the process exists and is not a zombie (a dead one waits for init to reap it)
alive() { st=$(ps -o stat= -p "$1" 2>/dev/null); [ -n "$st" ] && [ "${st#Z}" = "$st" ]; }
# gone PID SECS: PID is gone (or a zombie) within SECS
gone() {
    i=0
    while alive "$1" && [ $i -lt $(($2 * 10)) ]; do sleep 0.1; i=$((i + 1)); done
    ! alive "$1"
}
cat >"$T/long.conf" <<'CONF'
study = orphans
[cpu]
family = matmul
variants = seq_ijk
N = 640
samples_min = 50
noise = 0
time_cap = 60s
CONF
for i in 1 2 3; do
    $G run "$T/long.conf" --db "$T/o.db" >/dev/null 2>&1 &
    pid=$!
    worker=""
    for _ in $(seq 1 100); do   # up to 10 s for the worker to start its run
        worker=$(pgrep -P "$pid" | head -n 1)
        [ -n "$worker" ] && break
        sleep 0.1
    done
    check '[ -n "$worker" ]' "try $i: no worker process under gpulab run"
    sleep 0.3
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    if [ -n "$worker" ]; then
        check 'gone "$worker" 20' "try $i: worker $worker still alive 20 s after kill -9 of its parent"
        kill -9 "$worker" 2>/dev/null
    fi
done
# the output pipe is not held: a pipeline ends right after the kill
( $G run "$T/long.conf" --db "$T/p.db" 2>&1 | cat >/dev/null ) 2>/dev/null &
sub=$!
sleep 1
pkill -9 -f "run $T/long.conf --db $T/p.db" 2>/dev/null
check 'gone "$sub" 20' "gpulab run | cat still open 20 s after kill -9 of gpulab (an orphan holds the pipe)"
kill -9 "$sub" 2>/dev/null
wait "$sub" 2>/dev/null
echo "orphans: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
