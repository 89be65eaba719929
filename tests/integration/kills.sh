#!/bin/sh
# tests/integration/kills.sh - 20 `kill -9`s of `gpulab run` (the driver alone)
# at random points of a CPU sweep, start-up included, each followed by nothing
# but the next start; then a final rerun. The database must end with exactly
# the planned ok rows, no point twice, `PRAGMA integrity_check` = ok, and no
# worker of a killed driver left alive (waited for up to 20 s, a hang guard, not
# a timing: orphans.sh shows that a worker dies with its parent long before its
# run would end). Runs in about 10 s. Must not need a GPU.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL kills: $2"; fi; }
alive() { st=$(ps -o stat= -p "$1" 2>/dev/null); [ -n "$st" ] && [ "${st#Z}" = "$st" ]; }
# fault_sleep (tests/plugins/faults_plugin.c): a CPU variant whose runs last a known
# time (2-3 calls of N us), so that the sweep (about 8 s) outlasts the 20 kills
# (0 to start-up + 0.25 s each) whatever the machine's load, and the kills land in
# start-up, between runs and in runs alike
cat >"$T/k.conf" <<'CONF'
study = kills
[cpu]
family = faults
variants = fault_sleep
N = 50000:100000:1000
warmup = 0
samples_min = 2
samples_max = 2
CONF
PL="--plugin build/tests/plugins/faults_plugin.so"
[ -f build/tests/plugins/faults_plugin.so ] || { echo "kills: faults_plugin.so is missing (make all)"; echo "kills: 0 passed, 1 failed"; exit 1; }
db="$T/k.db"
planned=$($G plan "$T/k.conf" --db "$T/none.db" $PL --summary | sed -n 's/^total: \([0-9]*\) to run.*/\1/p')
check '[ "${planned:-0}" -gt 20 ]' "plan: $planned runs planned"
: >"$T/orphans"
# How long this machine takes from the start to the first stored run (a loaded
# machine starts slower): measured on a throw-away database, so that the kills'
# window, 0 to that plus 0.25 s, always reaches past start-up into the runs.
$G run "$T/k.conf" --db "$T/boot.db" $PL >"$T/boot.out" 2>&1 &
bpid=$!
t0=$(date +%s%N)
while ! grep -q '^\[1/' "$T/boot.out" 2>/dev/null && kill -0 "$bpid" 2>/dev/null; do sleep 0.01; done
boot=$(( ($(date +%s%N) - t0) / 1000000 ))
kill -9 "$bpid" 2>/dev/null
wait "$bpid" 2>/dev/null
window=$((boot + 250))
for i in $(seq 1 20); do
    # 0 to start-up + 0.25 s after the start: during start-up, between runs or in one
    ms=$(( $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % window ))
    $G run "$T/k.conf" --db "$db" $PL >/dev/null 2>&1 &
    pid=$!
    sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
    workers=$(pgrep -P "$pid" | tr '\n' ' ')
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    # checked while the next sweep goes on
    ( for w in $workers; do
          n=0; while alive "$w" && [ $n -lt 200 ]; do sleep 0.1; n=$((n + 1)); done
          alive "$w" && echo "kill $i: worker $w alive 20 s after kill -9 of $pid"
      done >>"$T/orphans" ) &
done
wait
check '[ ! -s "$T/orphans" ]' "$(cat "$T/orphans")"
for w in $(sed -n 's/.*worker \([0-9]*\) alive.*/\1/p' "$T/orphans"); do kill -9 "$w" 2>/dev/null; done
before=$(sqlite3 "$db" "select count(*) from run where status = 'ok'" 2>/dev/null)
check '[ "${before:-0}" -gt 0 ] && [ "$before" -lt "$planned" ]' "the kills left $before of $planned runs done (want some, not all)"
$G run "$T/k.conf" --db "$db" $PL >"$T/final" 2>&1; rc=$?
check 'grep -q "^gpulab: $((planned - before)) ran ($((planned - before)) ok, 0 wrong, 0 failed), $before already done" "$T/final"' "final rerun: $(tail -1 "$T/final") (want $((planned - before)) to run, $before done)"
check '[ $rc -eq 0 ]' "final rerun: exit $rc: $(tail -2 "$T/final")"
ok=$(sqlite3 "$db" "select count(*) from run where status = 'ok'")
distinct=$(sqlite3 "$db" "select count(*) from (select distinct variant, n from run where status = 'ok')")
other=$(sqlite3 "$db" "select count(*) from run where status <> 'ok'")
check '[ "$ok" = "$planned" ]' "$ok ok rows after 20 kills and a rerun, want the $planned planned"
check '[ "$distinct" = "$ok" ]' "$ok ok rows but $distinct distinct points: duplicates"
check '[ "$other" = 0 ]' "$other rows not ok"
check '[ "$(sqlite3 "$db" "pragma integrity_check")" = ok ]' "integrity_check: $(sqlite3 "$db" "pragma integrity_check")"
echo "kills: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
