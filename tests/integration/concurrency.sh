#!/bin/sh
# tests/integration/concurrency.sh - several gpulab processes on one machine and
# one database (issue 16): (a) two concurrent `run`s of one config store every
# planned point exactly once, with the device lock and (a2) with claims alone
# (separate lock folders, as two hosts sharing a database would be); (b) two
# different CPU configs at once never time runs at the same moment (the second
# waits for the CPU, saying so once); (c) `run --no-wait` refuses with exit 4
# while another sweep holds the CPU, and runs once its holder is killed;
# (d) 30 concurrent creations of new databases all succeed; (e) the claim of a
# killed sweep is taken over, and (f) a point claimed by a live sweep is left to
# it. Must not need a GPU, and must use its own lock folder.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_LOCK_DIR="$T/locks"
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL concurrency: $2"; fi; }
sq() { sqlite3 "$1" "$2" 2>&1; }
# the run key of the results view, as the store matches it
KEY="study, device_id, family, variant, n, m, p, bs, k, r, g, threads, seed, mem, grid, cache, uparams, code_hash"
# kill -9 a sweep, as a crash would, then its worker (so that nothing runs on)
killsweep() {
    w=$(pgrep -P "$1")
    kill -9 "$1" 2>/dev/null
    wait "$1" 2>/dev/null
    [ -n "$w" ] && kill -9 $w 2>/dev/null
}

cat >"$T/a.conf" <<'CONF'
study = conc
warmup = 1
samples_min = 5
samples_max = 5
noise = 0
time_cap = 1s
[mm]
family = matmul
variants = seq_ijk
N = 64, 96, 128, 160, 192, 224, 256, 288
CONF
cat >"$T/b.conf" <<'CONF'
study = conc_b
warmup = 1
samples_min = 5
samples_max = 5
noise = 0
time_cap = 1s
[st]
family = stencil
variants = seq
N = 256, 384, 512, 640
R = 2, 3
CONF
cat >"$T/long.conf" <<'CONF'
study = conc_long
[cpu]
family = matmul
variants = seq_ijk
N = 640
samples_min = 50
noise = 0
time_cap = 60s
CONF
cat >"$T/tiny.conf" <<'CONF'
study = tiny
warmup = 0
samples_min = 1
samples_max = 1
[v]
family = vecadd
variants = seq
N = 16
CONF
planned=$($G plan "$T/a.conf" --summary --db "$T/none.db" | sed -n 's/^total: \([0-9]*\) to run.*/\1/p')
check '[ "$planned" = 8 ]' "plan of a.conf: '$planned' points to run (want 8)"

# (a) the same config twice at once, one lock folder: each point once
for try in 1 2 3; do
    db="$T/a$try.db"
    $G run "$T/a.conf" --db "$db" >"$T/a$try.1" 2>&1 &
    p1=$!
    $G run "$T/a.conf" --db "$db" >"$T/a$try.2" 2>&1 &
    p2=$!
    wait $p1; r1=$?; wait $p2; r2=$?
    check '[ $r1 -eq 0 ] && [ $r2 -eq 0 ]' "(a) try $try: exit codes $r1 and $r2"
    ok=$(sq "$db" "select count(*) from results where status = 'ok'")
    dup=$(sq "$db" "select count(*) from (select 1 from results where status = 'ok' group by $KEY having count(*) > 1)")
    check '[ "$ok" = "$planned" ] && [ "$dup" = 0 ]' "(a) try $try: $ok ok rows for $planned points, $dup keys stored more than once"
    ran1=$(sed -n 's/^gpulab: \([0-9]*\) ran .*/\1/p' "$T/a$try.1")
    ran2=$(sed -n 's/^gpulab: \([0-9]*\) ran .*/\1/p' "$T/a$try.2")
    check '[ $((ran1 + ran2)) -eq "$planned" ]' "(a) try $try: the two ran $ran1 + $ran2 points (want $planned together)"
done
# a sweep that waited for the CPU says how many points the other one ran
# meanwhile; it may have started after the other stored its first points,
# so those count as already done: ran + already done + other = planned
said=0
for f in "$T"/a[123].[12]; do
    line=$(grep '^gpulab: [0-9]* ran ' "$f")
    other=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9]*\) run by another process.*/\1/p')
    [ -n "$other" ] && [ "$other" -gt 0 ] || continue
    ran=$(printf '%s\n' "$line" | sed -n 's/^gpulab: \([0-9]*\) ran .*/\1/p')
    done_=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9]*\) already done.*/\1/p')
    [ $((ran + done_ + other)) -eq "$planned" ] && said=1
done
check '[ $said = 1 ]' "(a) no summary says the other sweep ran the points (ran + done + other = $planned): $(grep -h ' ran ' "$T"/a1.[12])"

# (a2) claims alone: two lock folders (no lock shared), one database
for try in 1 2 3; do
    db="$T/c$try.db"
    GPULAB_LOCK_DIR="$T/l1" $G run "$T/a.conf" --db "$db" >"$T/c$try.1" 2>&1 &
    p1=$!
    GPULAB_LOCK_DIR="$T/l2" $G run "$T/a.conf" --db "$db" >"$T/c$try.2" 2>&1 &
    p2=$!
    wait $p1; r1=$?; wait $p2; r2=$?
    check '[ $r1 -eq 0 ] && [ $r2 -eq 0 ]' "(a2) try $try: exit codes $r1 and $r2"
    ok=$(sq "$db" "select count(*) from results where status = 'ok'")
    dup=$(sq "$db" "select count(*) from (select 1 from results where status = 'ok' group by $KEY having count(*) > 1)")
    check '[ "$ok" = "$planned" ] && [ "$dup" = 0 ]' "(a2) try $try: $ok ok rows for $planned points, $dup keys stored more than once"
    ran1=$(sed -n 's/^gpulab: \([0-9]*\) ran .*/\1/p' "$T/c$try.1")
    ran2=$(sed -n 's/^gpulab: \([0-9]*\) ran .*/\1/p' "$T/c$try.2")
    check '[ $((ran1 + ran2)) -eq "$planned" ]' "(a2) try $try: the two ran $ran1 + $ran2 points (want $planned together)"
    claims=$(sq "$db" "select count(*) from claim")
    check '[ "$claims" = 0 ]' "(a2) try $try: $claims claims left behind"
done

# (b) two different CPU configs at once: no two runs timed at the same moment
db="$T/b.db"
$G run "$T/a.conf" --db "$db" >"$T/b.1" 2>&1 &
p1=$!
$G run "$T/b.conf" --db "$db" >"$T/b.2" 2>&1 &
p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
check '[ $r1 -eq 0 ] && [ $r2 -eq 0 ]' "(b) exit codes $r1 and $r2"
n=$(sq "$db" "select count(*) from run where status = 'ok' and started_at is not null and started_at <= created_at")
check '[ "$n" = 16 ]' "(b) $n ok runs with a start time (want 16)"
overlap=$(sq "$db" "select count(*) from run a join run b on a.session_id < b.session_id
                    where a.started_at < b.created_at and b.started_at < a.created_at")
check '[ "$overlap" = 0 ]' "(b) $overlap pairs of runs of the two sweeps were timed at the same time"
waits=$(cat "$T/b.1" "$T/b.2" | grep -c "waiting for the CPU")
check '[ "$waits" = 1 ]' "(b) $waits 'waiting for the CPU' lines (want 1: the second sweep says it once)"
check '[ "$(sq "$db" "select count(*) from session where load1 >= 0 and lock_wait_s >= 0 and gpu_procs is null and gpu_procs_reason is not null")" = 2 ]' \
    "(b) sessions record load1, lock_wait_s and why gpu_procs is NULL"

# (c) --no-wait refuses while another sweep holds the CPU; runs once it is killed
$G run "$T/long.conf" --db "$T/long.db" >/dev/null 2>&1 &
holder=$!
for _ in $(seq 1 100); do
    grep -qs "pid $holder " "$T"/locks/cpu-*.lock && break
    sleep 0.1
done
$G run "$T/tiny.conf" --db "$T/nw.db" --no-wait >"$T/nw.out" 2>&1
rc=$?
check '[ $rc -eq 4 ]' "(c) run --no-wait while the CPU is held exited $rc (want 4)"
check 'grep -q "busy" "$T/nw.out" && grep -q "pid $holder " "$T/nw.out"' "(c) the refusal names the busy device and its holder: $(head -c 300 "$T/nw.out")"
ok=$(sq "$T/nw.db" "select count(*) from run")
check '[ "$ok" = 0 ]' "(c) the refused sweep stored $ok runs"
killsweep "$holder"
# every user of the machine can lock there: the folder is 1777, the files 666
check '[ "$(stat -c %a "$T/locks")" = 1777 ] && [ "$(stat -c %a "$T"/locks/cpu-*.lock)" = 666 ]' \
    "(c) lock folder mode $(stat -c %a "$T/locks"), lock file mode $(stat -c %a "$T"/locks/cpu-*.lock) (want 1777, 666)"
$G run "$T/tiny.conf" --db "$T/nw.db" --no-wait >"$T/nw2.out" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "(c) run --no-wait after the holder was killed exited $rc (want 0: the kernel dropped its lock)"

# (d) 30 concurrent creations of new databases (15 files, two processes each)
bad=0
for i in $(seq 1 15); do
    $G run "$T/tiny.conf" --db "$T/new$i.db" >/dev/null 2>"$T/new$i.1" &
    p1=$!
    $G run "$T/tiny.conf" --db "$T/new$i.db" >/dev/null 2>"$T/new$i.2" &
    p2=$!
    wait $p1 || bad=$((bad + 1))
    wait $p2 || bad=$((bad + 1))
    [ "$(sq "$T/new$i.db" "select count(*) from run")" = 1 ] || bad=$((bad + 1))
done
check '[ $bad -eq 0 ]' "(d) $bad of 30 concurrent creations failed: $(cat "$T"/new*.[12] | sort | uniq -c | head -3)"

# (e) a killed sweep's claim is taken over
$G run "$T/long.conf" --db "$T/e.db" >/dev/null 2>&1 &
victim=$!
for _ in $(seq 1 100); do
    [ "$(sq "$T/e.db" "select count(*) from claim where pid = $victim")" = 1 ] && break
    sleep 0.1
done
check '[ "$(sq "$T/e.db" "select count(*) from claim where pid = $victim")" = 1 ]' "(e) no claim of the running sweep $victim"
killsweep "$victim"
check '[ "$(sq "$T/e.db" "select count(*) from claim where pid = $victim")" = 1 ]' "(e) the killed sweep's claim is not in the database"
# the same point, stopped early: the planned samples are part of the timing
# policy, not of the key, so a short policy resumes the same point
sed 's/samples_min = 50/samples_min = 1/; s/time_cap = 60s/time_cap = 0.1s\nsamples_max = 1\nwarmup = 0/' \
    "$T/long.conf" >"$T/short.conf"
$G run "$T/short.conf" --db "$T/e.db" >"$T/e.out" 2>&1
rc=$?
check '[ $rc -eq 0 ] && grep -q "1 ran (1 ok" "$T/e.out"' "(e) the rerun exited $rc and did not run the dead sweep's point: $(tail -n 1 "$T/e.out")"
check '[ "$(sq "$T/e.db" "select count(*) from claim")" = 0 ]' "(e) claims left after the rerun"

# (f) a point claimed by a live sweep (another lock folder) is left to it
GPULAB_LOCK_DIR="$T/l1" $G run "$T/long.conf" --db "$T/f.db" >/dev/null 2>&1 &
live=$!
for _ in $(seq 1 100); do
    [ "$(sq "$T/f.db" "select count(*) from claim where pid = $live")" = 1 ] && break
    sleep 0.1
done
GPULAB_LOCK_DIR="$T/l2" $G run "$T/short.conf" --db "$T/f.db" >"$T/f.out" 2>&1
rc=$?
check '[ $rc -eq 0 ] && grep -q "0 ran (0 ok" "$T/f.out" && grep -q "1 run by another process" "$T/f.out"' \
    "(f) a second sweep ran a point claimed by a live one (rc $rc): $(tail -n 1 "$T/f.out")"
GPULAB_LOCK_DIR="$T/l2" $G plan "$T/short.conf" --db "$T/f.db" >"$T/f.plan" 2>&1
check 'grep -q "busy" "$T/f.plan" && grep -q "1 being run by another process" "$T/f.plan"' "(f) plan does not show the claimed point as busy"
killsweep "$live"

echo "concurrency: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
