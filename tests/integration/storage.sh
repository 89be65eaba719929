#!/bin/sh
# tests/integration/storage.sh - storage errors are their own outcome: a table
# dropped under a running sweep, a write lock held past the busy timeout, and a
# file-size limit each end `gpulab run` with exit 3 and a message naming the
# database file and SQLite's words; the finished run that could not be stored
# is retried once, then named as lost (variant and parameters); nothing is
# called "interrupted"; the file stays sound. Uses the test plugin
# tests/plugins/faults_plugin.c (fault_sleep: runs of a known length).
# Must not need a GPU.
G=./build/gpulab
PL="--plugin build/tests/plugins/faults_plugin.so"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL storage: $2"; fi; }
[ -f build/tests/plugins/faults_plugin.so ] || { echo "storage: faults_plugin.so is missing (make all)"; echo "storage: 0 passed, 1 failed"; exit 1; }
cat >"$T/s.conf" <<'CONF'
study = storage
[cpu]
family = faults
variants = fault_sleep
N = 300000, 300001, 300002
warmup = 0
samples_min = 1
samples_max = 1
CONF
# wait_for FILE PATTERN: up to 10 s for a line matching PATTERN in FILE
wait_for() { for _ in $(seq 1 200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done; return 1; }

# --- a dropped table: the next result cannot be stored -------------------------------
db="$T/drop.db"
$G run "$T/s.conf" --db "$db" $PL >"$T/drop.out" 2>"$T/drop.err" &
pid=$!
wait_for "$T/drop.out" '^\[1/3\]'
sqlite3 "$db" "DROP TABLE sample"
wait "$pid"; rc=$?
check '[ $rc -eq 3 ]' "dropped table: exit $rc, want 3: $(cat "$T/drop.err")"
check 'grep -q "^gpulab: storage error: $db: .*no such table: sample" "$T/drop.err"' "dropped table: no storage error naming the file and SQLite's message: $(cat "$T/drop.err")"
check '[ "$(grep -c "^gpulab: storage error: $db: " "$T/drop.err")" -eq 2 ]' "dropped table: the result was not tried twice: $(cat "$T/drop.err")"
check 'grep -q "^gpulab: lost (finished ok, not stored): faults/fault_sleep N=300001 seed=42$" "$T/drop.err"' "dropped table: the lost run is not named: $(cat "$T/drop.err")"
check 'grep -q "^gpulab: stopped by a storage error on $db: 1 finished run lost" "$T/drop.out" && ! grep -q interrupted "$T/drop.out"' "dropped table: summary: $(tail -1 "$T/drop.out")"
check '! grep -q "N=300002" "$T/drop.out"' "dropped table: the sweep went on after the storage error"
check '[ "$(sqlite3 "$db" "pragma integrity_check")" = ok ] && [ "$(sqlite3 "$db" "select count(*) from run")" = 1 ]' "dropped table: integrity or rows: $(sqlite3 "$db" "pragma integrity_check; select count(*) from run")"

# --- a write lock held past the busy timeout (5 s), on the first try and the retry ---
db="$T/lock.db"
$G run "$T/s.conf" --db "$db" $PL >"$T/lock.out" 2>"$T/lock.err" &
pid=$!
wait_for "$T/lock.out" '^\[1/3\]'
( echo "BEGIN EXCLUSIVE;"; echo "CREATE TABLE held(x);"; sleep 13; echo "ROLLBACK;" ) | sqlite3 "$db" &
holder=$!
wait "$pid"; rc=$?
check '[ $rc -eq 3 ]' "lock held: exit $rc, want 3: $(cat "$T/lock.err")"
check 'grep -q "^gpulab: storage error: $db: .*database is locked" "$T/lock.err"' "lock held: message: $(cat "$T/lock.err")"
check 'grep -q "^gpulab: lost (finished ok, not stored): faults/fault_sleep N=300001 seed=42$" "$T/lock.err"' "lock held: the lost run is not named: $(cat "$T/lock.err")"
wait "$holder"
# the lock gone, a rerun runs what is missing, once
$G run "$T/s.conf" --db "$db" $PL >"$T/lock2.out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && [ "$(sqlite3 "$db" "select count(*) from run where status = '"'ok'"'")" = 3 ]' "rerun after the lock: exit $rc, rows $(sqlite3 "$db" "select count(*) from run")"

# --- a file-size limit: exit 3 with the file's name, not death by SIGXFSZ -----------
db="$T/fsz.db"
sed 's/^N = .*/N = 1000/' "$T/s.conf" >"$T/one.conf"
$G run "$T/one.conf" --db "$db" $PL >/dev/null 2>&1
before=$(sqlite3 "$db" "select count(*) from run")
(ulimit -f 4; exec $G run "$T/s.conf" --db "$db" $PL) >"$T/fsz.out" 2>"$T/fsz.err"; rc=$?
check '[ $rc -eq 3 ]' "ulimit -f: exit $rc, want 3 (153 = killed by SIGXFSZ): $(cat "$T/fsz.err")"
check 'grep -q "$db" "$T/fsz.err" && ! grep -q interrupted "$T/fsz.out"' "ulimit -f: message without the file name, or called an interruption: $(cat "$T/fsz.err")"
check '[ "$(sqlite3 "$db" "pragma integrity_check")" = ok ] && [ "$(sqlite3 "$db" "select count(*) from run")" = "$before" ]' "ulimit -f: the file changed or is damaged"
echo "storage: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
