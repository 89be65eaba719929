#!/bin/sh
# tests/integration/faults.sh - planted faults (tests/plugins/faults_plugin.c,
# loaded with --plugin): a CPU variant that segfaults, one that hangs and one
# that returns a wrong result, swept before a good one.
# The sweep completes: the crash is stored as failed ("crashed: ... signal 11"),
# the hang as failed with a reason that says timed out after the config's timeout
# (the watchdog killed it: how soon after the timeout is bench/timing.sh's to
# measure, not a test's), the wrong one as wrong, and every good run ok; exit 1
# (some runs failed or were wrong). Must not need a GPU.
G=./build/gpulab
PL="--plugin build/tests/plugins/faults_plugin.so"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL faults: $2"; fi; }
q() { sqlite3 "$T/f.db" "$1"; }
[ -f build/tests/plugins/faults_plugin.so ] || { echo "faults: faults_plugin.so is missing (make all)"; echo "faults: 0 passed, 1 failed"; exit 1; }
cat >"$T/f.conf" <<'CONF'
study = faults
family = faults
N = 1000, 2000
samples_min = 3
samples_max = 5
time_cap = 0.2s
timeout = 1s
[bad]
variants = fault_segv, fault_hang, fault_wrong
[good]
variants = fault_ok
CONF
$G run "$T/f.conf" --db "$T/f.db" $PL >"$T/out" 2>"$T/err"; rc=$?
check '[ $rc -eq 1 ]' "exit $rc, want 1: $(tail -3 "$T/out") $(cat "$T/err")"
check 'grep -q "^gpulab: 8 ran (2 ok, 2 wrong, 4 failed)" "$T/out"' "summary: $(tail -1 "$T/out")"
n() { q "select count(*) from results where variant = '$1' and status = '$2' $3"; }
check '[ "$(n fault_ok ok)" = 2 ]' "fault_ok: $(n fault_ok ok) of 2 ok"
check '[ "$(n fault_segv failed "and reason like '"'crashed:%signal 11%'"'")" = 2 ]' "fault_segv: $(q "select status, reason from results where variant = 'fault_segv'")"
check '[ "$(n fault_hang failed "and reason like '"'timed out%1 s%'"'")" = 2 ]' "fault_hang: $(q "select status, reason from results where variant = 'fault_hang'")"
check '[ "$(n fault_wrong wrong "and reason like '"'%differ from the reference%'"'")" = 2 ]' "fault_wrong: $(q "select status, reason from results where variant = 'fault_wrong'")"
check '[ "$(q "select count(*) from run")" = 8 ] && [ "$(q "pragma integrity_check")" = ok ]' "rows $(q "select count(*) from run"), integrity $(q "pragma integrity_check")"
# only this test's processes (their command line names its config in $T): other
# gpulab test runs on the same machine may load the same plugin
check '[ -z "$(pgrep -f "$T/f.conf" | grep -v "^$$\$")" ]' "a gpulab process of the sweep is still alive"
# a rerun repeats what was not ok, and only that
$G run "$T/f.conf" --db "$T/f.db" $PL >"$T/out2" 2>&1; rc=$?
check '[ $rc -eq 1 ] && grep -q "^gpulab: 6 ran (0 ok, 2 wrong, 4 failed), 2 already done" "$T/out2"' "rerun: exit $rc: $(tail -1 "$T/out2")"
echo "faults: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
