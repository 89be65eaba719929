#!/bin/sh
# tests/integration/shard.sh - `run --shard I/N`, `plan --shard` and `gpulab
# merge` without Slurm (tests/integration/slurm.sh runs them under a real one):
# the shards' plans are disjoint and cover the plan, also when I/N comes from a
# job array's variables, and a point added moves no other to another shard; three shards merged hold exactly the runs of one
# unsharded run (keys and statuses: ok, wrong, failed, skipped), and merging
# them again changes nothing; a shard killed with kill -9 mid-sweep merges what
# it stored, and once run again to its end, merging it again adds exactly the
# rest; a run OUT holds with another result is a conflict (exit 5, OUT as it
# was; --allow-conflicts keeps both); a damaged, foreign, missing or newer input
# is refused and OUT is left as it was (or not made); inputs of different
# configs are refused (exit 6); a shard missing from OUT is said; an older
# database (the H100 fixture, schema 2) merges with its samples and metrics;
# a table with a run_id column is merged with its runs, one without is refused.
# A session copied while it ran gets its end from a later copy. Runs in about 15 s. Must not need a GPU or touch anything outside its folder.
G=$(pwd)/build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_LOCK_DIR="$T/locks" GPULAB_CACHE="$T/cache"
unset SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_MAX SLURM_ARRAY_TASK_STEP
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL shard: $2"; fi; }
PL="--plugin $(pwd)/build/tests/plugins/faults_plugin.so"
[ -f build/tests/plugins/faults_plugin.so ] || { echo "shard: faults_plugin.so is missing (make all)"; echo "shard: 0 passed, 1 failed"; exit 1; }

# every run's key (the columns of the store's run_key index, the device by its
# ident) and status, sorted
keys() {
    cols=$(sqlite3 "$1" "select sql from sqlite_master where name = 'run_key'" |
        sed -e 's/^[^(]*(//' -e 's/)$//' -e 's/device_id/(select ident from device d where d.id = device_id)/')
    sqlite3 -separator ' ' "$1" "select $cols from run" | sort
}
dump() { sqlite3 "$1" .dump; }

cat >"$T/c.conf" <<'CONF'
study = sharded
warmup = 0
samples_min = 2
samples_max = 2
time_cap = 0.05s
timeout = 20s
[faults]
family = faults
variants = fault_ok, fault_wrong, fault_segv
N = 1000, 2000, 3000, 4000, 1<<25
[vec]
family = vecadd
variants = seq, omp
N = 1000, 2000, 4000, 8000
CONF

# ---- plans: disjoint slices that cover the plan ----
$G plan "$T/c.conf" $PL --db "$T/none.db" | grep -E '^      [a-z-]+ ' | sort >"$T/plan.all"
: >"$T/plan.shards"
other=0
for i in 0 1 2; do
    $G plan "$T/c.conf" $PL --db "$T/none.db" --shard "$i/3" >"$T/plan.$i"
    grep -E '^      [a-z-]+ ' "$T/plan.$i" >>"$T/plan.shards"
    o=$(sed -n 's/^total: .*, \([0-9]*\) in other shards (this is shard '"$i"'\/3)$/\1/p' "$T/plan.$i")
    mine=$(grep -cE '^      [a-z-]+ ' "$T/plan.$i")
    chk '[ -n "$o" ] && [ $((o + mine)) -eq $(wc -l <"$T/plan.all") ]' \
        "plan --shard $i/3: $mine jobs listed + ${o:-?} in other shards, of $(wc -l <"$T/plan.all")"
    chk '! grep -q "other-shard" "$T/plan.$i"' "plan --shard lists other shards' jobs"
done
sort "$T/plan.shards" >"$T/plan.union"
chk '[ "$(wc -l <"$T/plan.all")" -eq 23 ] && cmp -s "$T/plan.all" "$T/plan.union"' \
    "the shards' plans are not the plan: $(diff "$T/plan.all" "$T/plan.union" | head -n 5)"
# I/N from a job array's variables, ids from 1
env SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=3 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=3 \
    $G plan "$T/c.conf" $PL --db "$T/none.db" >"$T/plan.env" 2>&1
chk 'grep -q "^gpulab: shard 2/3 (SLURM_ARRAY_TASK_ID=3 of 1..3 step 1)" "$T/plan.env" &&
     [ "$(grep -E "^      [a-z-]+ " "$T/plan.env")" = "$(grep -E "^      [a-z-]+ " "$T/plan.2")" ]' \
    "task 3 of --array=1-3 is not shard 2/3: $(head -n 2 "$T/plan.env")"
env SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=3 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=7 \
    $G plan "$T/c.conf" $PL --db "$T/none.db" >"$T/plan.sparse" 2>&1
rc=$?
chk '[ $rc -eq 2 ] && grep -q "pass --shard I/N" "$T/plan.sparse"' "ids 1,3,7: exit $rc: $(head -n 2 "$T/plan.sparse")"
env SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=3 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=7 \
    $G plan "$T/c.conf" $PL --db "$T/none.db" --shard 0/1 --summary >"$T/plan.whole" 2>&1
chk 'grep -q "^total: 20 to run, 0 done, 3 rejected" "$T/plan.whole"' "--shard 0/1 inside an array is not the whole plan: $(tail -n 1 "$T/plan.whole")"
# a point added to the config moves no other point to another shard
sed 's/^N = 1000, 2000, 4000, 8000$/N = 1000, 2000, 4000, 8000, 16000/' "$T/c.conf" >"$T/c2.conf"
for i in 0 1 2; do
    $G plan "$T/c2.conf" $PL --db "$T/none.db" --shard "$i/3" | grep -E '^      [a-z-]+ ' >"$T/plan2.$i"
    grep -E '^      [a-z-]+ ' "$T/plan.$i" | while IFS= read -r line; do grep -qxF "$line" "$T/plan2.$i" || echo x; done >>"$T/moved"
done
chk '[ ! -s "$T/moved" ] && [ "$(cat "$T"/plan2.* | wc -l)" -eq 25 ]' \
    "adding a point moved $(wc -l <"$T/moved") other points to another shard"
for bad in 3/3 1/0 x/2 3 -1/2; do
    $G run "$T/c.conf" $PL --db "$T/bad.db" --shard "$bad" >"$T/badshard" 2>&1
    rc=$?
    chk '[ $rc -eq 2 ] && grep -q "^gpulab: --shard" "$T/badshard" && [ ! -e "$T/bad.db" ]' \
        "--shard $bad: exit $rc, $(head -n 1 "$T/badshard")"
done

# ---- three shards merged = one unsharded run ----
$G run "$T/c.conf" $PL --db "$T/ref.db" >"$T/ref.log" 2>&1
for i in 0 1 2; do
    $G run "$T/c.conf" $PL --db "$T/s$i.db" --shard "$i/3" >"$T/s$i.log" 2>&1
    chk 'grep -q "in other shards (this is shard $i/3)" "$T/s$i.log"' "shard $i: $(tail -n 1 "$T/s$i.log")"
done
chk '[ "$(sqlite3 "$T/s1.db" "select shard_index || \"/\" || shard_count from session")" = 1/3 ] &&
     [ -z "$(sqlite3 "$T/ref.db" "select shard_count from session")" ]' "the sessions do not record their shard"
$G merge "$T/m.db" "$T/s0.db" "$T/s1.db" >"$T/merge1" 2>&1
rc=$?
chk '[ $rc -eq 0 ]' "merging 2 shards: exit $rc: $(cat "$T/merge1")"
chk 'grep -q "holds 2 of its 3 shards; missing: 2" "$T/merge1"' "a missing shard is not said: $(cat "$T/merge1")"
$G merge "$T/m.db" "$T/s2.db" "$T/s1.db" >"$T/merge2" 2>&1
rc=$?
chk '[ $rc -eq 0 ] && grep -q "holds all 3 shards" "$T/merge2"' "merging the third: exit $rc: $(cat "$T/merge2")"
chk 'grep -q "s1.db: 0 runs added, $(sqlite3 "$T/s1.db" "select count(*) from run") already in" "$T/merge2"' \
    "a shard merged twice added runs: $(grep s1.db "$T/merge2")"
keys "$T/ref.db" >"$T/ref.keys"
keys "$T/m.db" >"$T/m.keys"
chk '[ "$(wc -l <"$T/ref.keys")" -eq 23 ] && cmp -s "$T/ref.keys" "$T/m.keys"' \
    "merged shards differ from the unsharded run: $(diff "$T/ref.keys" "$T/m.keys" | head -n 6)"
for s in ok wrong failed skipped; do
    chk 'grep -q " $s\$" "$T/m.keys"' "no $s run in the merged database"
done
for t in sample metric run_param session device; do
    a=$(for i in 0 1 2; do sqlite3 "$T/s$i.db" "select count(*) from $t"; done | awk '{s += $1} END {print s}')
    b=$(sqlite3 "$T/m.db" "select count(*) from $t")
    [ "$t" = device ] && a=1
    chk '[ "$a" = "$b" ]' "table $t: $b rows merged, the shards hold $a"
done
chk '[ "$(sqlite3 "$T/m.db" "pragma integrity_check")" = ok ]' "the merged database is damaged"
dump "$T/m.db" >"$T/m.dump"
$G merge "$T/m.db" "$T/s0.db" "$T/s1.db" "$T/s2.db" >"$T/merge3" 2>&1
rc=$?
dump "$T/m.db" >"$T/m.dump2"
chk '[ $rc -eq 0 ] && cmp -s "$T/m.dump" "$T/m.dump2"' "merging every shard again changed the database (exit $rc)"
chk 'grep -q "0 runs added, 23 already there" "$T/merge3"' "merging again: $(tail -n 1 "$T/merge3")"

# ---- a copy taken while its session ran: merged again later, the session gets its end ----
cp "$T/s0.db" "$T/early.db"
sqlite3 "$T/early.db" "update session set ended_at = null"
$G merge "$T/e.db" "$T/early.db" >/dev/null 2>&1
$G merge "$T/e.db" "$T/s0.db" >"$T/early" 2>&1
rc=$?
chk '[ $rc -eq 0 ] && grep -q "s0.db: 0 runs added, .*; 1 session got its end" "$T/early" &&
     [ "$(sqlite3 "$T/e.db" "select count(*) from session where ended_at is not null")" = 1 ]' \
    "a session's end merged later: exit $rc: $(grep s0.db "$T/early")"

# ---- conflicts: the unsharded run's results against the shards' ----
$G merge "$T/m.db" "$T/ref.db" >"$T/conflict" 2>&1
rc=$?
dump "$T/m.db" >"$T/m.dump3"
chk '[ $rc -eq 5 ] && cmp -s "$T/m.dump" "$T/m.dump3"' "a merge with conflicts: exit $rc, or the database changed"
n=$(grep -c "^gpulab: merge: conflict: study sharded" "$T/conflict")
# the pairs of one key with another status, median or error, counted here apart
on=$(sqlite3 "$T/m.db" "select sql from sqlite_master where name = 'run_key'" |
    sed -e 's/^[^(]*(//' -e 's/)$//' | tr ',' '\n' | sed 's/ //g' | grep -vE '^(device_id|status)$' |
    awk '{ printf "%s a.%s is b.%s", (NR > 1 ? " and" : ""), $0, $0 }')
want=$(sqlite3 "$T/m.db" "attach '$T/ref.db' as r; select count(*) from main.run a join r.run b on $on
    and not (a.status is b.status and a.median_ms is b.median_ms and a.max_rel_err is b.max_rel_err)")
chk '[ "$n" -gt 0 ] && [ "$n" = "$want" ]' "$n conflicts said, want $want"
chk 'grep -q "ref.db: not merged: $n conflicts" "$T/conflict"' "$(tail -n 2 "$T/conflict")"
chk 'grep -A2 -m1 "^gpulab: merge: conflict: study sharded" "$T/conflict" | grep -q "m.db run [0-9]*: [a-z]*" &&
     grep -A2 -m1 "^gpulab: merge: conflict: study sharded" "$T/conflict" | grep -q "ref.db run [0-9]*: [a-z]*"' \
    "a conflict does not show both runs: $(head -n 3 "$T/conflict")"
$G merge "$T/m.db" "$T/ref.db" --allow-conflicts >"$T/conflict2" 2>&1
rc=$?
chk '[ $rc -eq 0 ] && [ "$(sqlite3 "$T/m.db" "select count(*) from run")" -eq 46 ]' \
    "--allow-conflicts: exit $rc, $(sqlite3 "$T/m.db" "select count(*) from run") runs (want both of each: 46)"
chk '[ "$(grep -c "^gpulab: merge: conflict" "$T/conflict2")" -eq "$n" ]' "--allow-conflicts does not list the conflicts"

# ---- a shard killed mid-sweep, merged, run again, merged again ----
cat >"$T/k.conf" <<'CONF'
study = killed
[sleep]
family = faults
variants = fault_sleep
N = 20000:70000:2500
warmup = 0
samples_min = 2
samples_max = 2
CONF
$G run "$T/k.conf" $PL --db "$T/kref.db" >/dev/null 2>&1
$G run "$T/k.conf" $PL --db "$T/k0.db" --shard 0/2 >/dev/null 2>&1 &
pid=$!
got=0
for x in $(seq 1 200); do
    got=$(sqlite3 "$T/k0.db" "select count(*) from run" 2>/dev/null)
    [ "${got:-0}" -ge 2 ] && break
    sleep 0.02
done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
sleep 0.3   # its worker dies with it
part=$(sqlite3 "$T/k0.db" "select count(*) from run")
want0=$($G plan "$T/k.conf" $PL --db "$T/none.db" --shard 0/2 --summary | sed -n 's/^total: \([0-9]*\) to run.*/\1/p')
chk '[ "$part" -ge 2 ] && [ "$part" -lt "$want0" ]' "the kill left $part of $want0 runs (want some, not all)"
$G merge "$T/km.db" "$T/k0.db" >"$T/kmerge1" 2>&1
rc=$?
chk '[ $rc -eq 0 ] && grep -q "k0.db: $part runs added" "$T/kmerge1"' "merging the killed shard: exit $rc: $(cat "$T/kmerge1")"
chk 'grep -q "claimed and not stored" "$T/kmerge1"' "the killed shard's claim is not said"
$G run "$T/k.conf" $PL --db "$T/k0.db" --shard 0/2 >"$T/k0.log" 2>&1
chk 'grep -q "^gpulab: $((want0 - part)) ran" "$T/k0.log"' "the shard run again: $(tail -n 1 "$T/k0.log")"
$G merge "$T/km.db" "$T/k0.db" >"$T/kmerge2" 2>&1
rc=$?
chk '[ $rc -eq 0 ] && grep -q "k0.db: $((want0 - part)) runs added, $part already in" "$T/kmerge2"' \
    "merging the completed shard again: exit $rc: $(grep k0.db "$T/kmerge2")"
$G run "$T/k.conf" $PL --db "$T/k1.db" --shard 1/2 >/dev/null 2>&1
$G merge "$T/km.db" "$T/k1.db" >/dev/null 2>&1
keys "$T/kref.db" >"$T/kref.keys"
keys "$T/km.db" >"$T/km.keys"
chk '[ -s "$T/kref.keys" ] && cmp -s "$T/kref.keys" "$T/km.keys"' \
    "killed, run again and merged: differs from the unsharded run: $(diff "$T/kref.keys" "$T/km.keys" | head -n 4)"

# ---- inputs that are refused; OUT stays as it was ----
dump "$T/m.db" >"$T/m.dump"
root=$(sqlite3 "$T/s0.db" "select rootpage from sqlite_master where name = 'run'")
psize=$(sqlite3 "$T/s0.db" "pragma page_size")
cp "$T/s0.db" "$T/bad.db"
head -c "$psize" /dev/urandom | dd of="$T/bad.db" bs="$psize" seek=$((root - 1)) conv=notrunc 2>/dev/null
$G merge "$T/m.db" "$T/s1.db" "$T/bad.db" >"$T/badmerge" 2>&1
rc=$?
chk '[ $rc -eq 3 ] && grep -q "bad.db is damaged" "$T/badmerge"' "a damaged input: exit $rc: $(cat "$T/badmerge")"
dump "$T/m.db" >"$T/m.dump2"
chk 'cmp -s "$T/m.dump" "$T/m.dump2"' "a refused merge changed the output"
$G merge "$T/new.db" "$T/bad.db" >/dev/null 2>&1
rc=$?
chk '[ $rc -eq 3 ] && [ ! -e "$T/new.db" ]' "a damaged input into a new output: exit $rc, output made"
head -c 3000 "$T/s0.db" >"$T/cut.db"
$G merge "$T/new.db" "$T/cut.db" >"$T/cutmerge" 2>&1
rc=$?
chk '[ $rc -eq 3 ] && [ ! -e "$T/new.db" ]' "a cut file: exit $rc: $(cat "$T/cutmerge")"
sqlite3 "$T/foreign.db" "create table t (x); insert into t values (1)"
$G merge "$T/m.db" "$T/foreign.db" >"$T/fmerge" 2>&1
rc=$?
chk '[ $rc -eq 3 ] && grep -q "not a gpulab database" "$T/fmerge"' "a foreign database: exit $rc: $(cat "$T/fmerge")"
cp "$T/s0.db" "$T/newer.db"
sqlite3 "$T/newer.db" "pragma user_version = 999"
$G merge "$T/m.db" "$T/newer.db" >"$T/nmerge" 2>&1
rc=$?
chk '[ $rc -eq 3 ] && grep -q "newer than this gpulab knows" "$T/nmerge"' "a newer database: exit $rc: $(cat "$T/nmerge")"
$G merge "$T/m.db" "$T/nothere.db" >/dev/null 2>&1
rc=$?
chk '[ $rc -eq 2 ]' "a missing input: exit $rc"
$G merge "$T/m.db" "$T/m.db" >/dev/null 2>&1
rc=$?
chk '[ $rc -eq 2 ]' "the output as an input: exit $rc"
$G merge "$T/m.db" >/dev/null 2>&1
rc=$?
chk '[ $rc -eq 2 ]' "no input: exit $rc"
dump "$T/m.db" >"$T/m.dump2"
chk 'cmp -s "$T/m.dump" "$T/m.dump2"' "refused merges changed the output"

# ---- inputs of different configs ----
$G run "$T/c2.conf" $PL --db "$T/t1.db" --shard 1/3 >/dev/null 2>&1
$G merge "$T/mixed.db" "$T/s0.db" "$T/t1.db" >"$T/mixed" 2>&1
rc=$?
chk '[ $rc -eq 6 ] && [ ! -e "$T/mixed.db" ] && grep -q "study sharded: the inputs ran different configs" "$T/mixed"' \
    "inputs of two configs: exit $rc: $(head -n 3 "$T/mixed")"
$G merge "$T/mixed.db" "$T/s0.db" "$T/t1.db" --allow-mixed-configs >"$T/mixed2" 2>&1
rc=$?
chk '[ $rc -eq 0 ] && [ "$(sqlite3 "$T/mixed.db" "select count(*) from run")" -eq \
     $(( $(sqlite3 "$T/s0.db" "select count(*) from run") + $(sqlite3 "$T/t1.db" "select count(*) from run") )) ]' \
    "--allow-mixed-configs: exit $rc: $(tail -n 2 "$T/mixed2")"

# ---- an older database: the H100 fixture (schema version 2), left as it was ----
cp tests/data/h100_smoke_v2.db "$T/h100.db"
sum=$(cksum <"$T/h100.db")
$G merge "$T/h.db" "$T/h100.db" >"$T/hmerge" 2>&1
rc=$?
chk '[ $rc -eq 0 ] && [ "$(cksum <"$T/h100.db")" = "$sum" ]' "merging the v2 fixture: exit $rc, or it changed: $(cat "$T/hmerge")"
for t in run sample metric session device; do
    a=$(sqlite3 "$T/h100.db" "select count(*) from $t")
    b=$(sqlite3 "$T/h.db" "select count(*) from $t")
    chk '[ "$a" -gt 0 ] && [ "$a" = "$b" ]' "the v2 fixture's $t: $a rows, $b merged"
done
chk '[ "$(sqlite3 "$T/h.db" "select count(*) from metric m join run r on r.id = m.run_id")" = "$(sqlite3 "$T/h100.db" "select count(*) from metric")" ]' \
    "merged metrics do not point at merged runs"

# ---- tables: one with a run_id is merged with its runs, one without is refused ----
sqlite3 "$T/s2.db" "create table note (run_id INTEGER NOT NULL REFERENCES run (id), text TEXT);
                    insert into note select id, 'run ' || id from run"
$G merge "$T/x.db" "$T/s0.db" >/dev/null 2>&1   # x.db: shard 0 and a note table
sqlite3 "$T/x.db" "create table note (run_id INTEGER NOT NULL REFERENCES run (id), text TEXT)"
$G merge "$T/x.db" "$T/s2.db" >"$T/note" 2>&1
rc=$?
chk '[ $rc -eq 0 ] && [ "$(sqlite3 "$T/x.db" "select count(*) from note n join run r on r.id = n.run_id join session s on s.id = r.session_id where s.shard_index = 2")" = "$(sqlite3 "$T/s2.db" "select count(*) from run")" ]' \
    "a table with a run_id: exit $rc: $(cat "$T/note")"
sqlite3 "$T/x.db" "create table loose (v)"
dump "$T/x.db" >"$T/x.dump"
$G merge "$T/x.db" "$T/s1.db" >"$T/loose" 2>&1
rc=$?
dump "$T/x.db" >"$T/x.dump2"
chk '[ $rc -eq 3 ] && grep -q "table loose: merge does not know" "$T/loose" && cmp -s "$T/x.dump" "$T/x.dump2"' \
    "a table without run_id: exit $rc: $(cat "$T/loose")"

echo "shard: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
