#!/bin/sh
# tests/integration/cli.sh - the driver end to end, without a GPU: smoke sweep,
# resume (a second run adds no rows; a kill -9 mid-sweep loses and duplicates
# nothing), plan output, config errors (exit 2 with file:line), query formats, and
# that query, plan and run --dry-run write nothing (and --db '' is refused).
# Must not depend on a GPU: GPU variants are expected to be reported as skipped.
G=./build/gpulab
if [ ! -f build/libgpulab_gpu.so ]; then   # smoke.conf and the checks name GPU variants
    echo "cli: skipped: needs build/libgpulab_gpu.so (built without a CUDA compiler)"
    echo "cli: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()   { pass=$((pass + 1)); }
bad()  { fail=$((fail + 1)); echo "FAIL cli: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }
q() { $G query --db "$T/r.db" --csv "$1" | tail -n +2; }

# --- smoke sweep: every CPU variant ok, GPU ones said to be skipped ---------------
$G run configs/smoke.conf --db "$T/r.db" >"$T/out1" 2>"$T/err1"; rc=$?
check '[ $rc -eq 0 ] || [ $rc -eq 1 ]' "smoke run exit code $rc"
cpu_variants=$($G list | awk '$1=="cpu"{print $2}' | sort -u | wc -l)
ok_cpu=$(q "select count(distinct family||'/'||variant) from results where device_kind='cpu' and status='ok'")
check '[ "$ok_cpu" -ge 1 ]' "no ok CPU rows"
bad_cpu=$(q "select count(*) from results where device_kind='cpu' and status<>'ok'")
check '[ "$bad_cpu" -eq 0 ]' "$bad_cpu CPU rows not ok"
smoke_cpu=$($G plan configs/smoke.conf --db "$T/fresh.db" | awk '$1=="cpu"' | wc -l)
check '[ "$ok_cpu" -eq "$smoke_cpu" ]' "ok CPU variants $ok_cpu != CPU variants in smoke.conf $smoke_cpu"
if ! command -v nvidia-smi >/dev/null 2>&1; then
    check 'grep -q "no usable GPU" "$T/err1"' "no loud 'no usable GPU' banner"
    check 'grep -q "GPU runs skipped" "$T/out1"' "summary does not say GPU runs were skipped"
fi
rows1=$(q "select count(*) from run")
samples1=$(q "select count(*) from sample")
check '[ "$samples1" -gt 0 ]' "no samples stored"

# --- resume: the same sweep again adds no rows -----------------------------------
$G run configs/smoke.conf --db "$T/r.db" >"$T/out2" 2>&1
rows2=$(q "select count(*) from run")
check '[ "$rows1" -eq "$rows2" ]' "second run added rows ($rows1 -> $rows2)"
check 'grep -q "already done" "$T/out2"' "second run does not say what was already done"
# --force runs again and keeps the old rows; is_latest marks the new ones
$G run configs/smoke.conf --db "$T/r.db" --force --only seq >/dev/null 2>&1
rows3=$(q "select count(*) from run")
check '[ "$rows3" -gt "$rows2" ]' "--force did not run again"
dup_latest=$(q "select count(*) from (select family,variant,n,m,p,r,threads,count(*) c from results where is_latest=1 group by 1,2,3,4,5,6,7 having c>1)")
check '[ "$dup_latest" -eq 0 ]' "is_latest not unique per key"

# --- kill -9 in the middle of a sweep, then resume ------------------------------
cat >"$T/slow.conf" <<'CONF'
study = killtest
[cpu]
family = matmul
variants = seq_ijk
N = 96:480:32
samples_min = 20
noise = 0.0001
time_cap = 0.3s
CONF
$G run "$T/slow.conf" --db "$T/k.db" >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
partial=$($G query --db "$T/k.db" --csv "select count(*) from run" | tail -n 1)
$G run "$T/slow.conf" --db "$T/k.db" >/dev/null 2>&1
total=$($G query --db "$T/k.db" --csv "select count(*) from run" | tail -n 1)
okk=$($G query --db "$T/k.db" --csv "select count(distinct n) from run where status='ok'" | tail -n 1)
check '[ "$partial" -lt 13 ]' "kill -9 came too late to test anything ($partial rows)"
check '[ "$total" -eq 13 ] && [ "$okk" -eq 13 ]' "after kill -9 + resume: $total rows, $okk ok (want 13, 13)"

# --- plan of the stencil study: 81 GPU configurations per variant ---------------
$G plan configs/stencil.conf --db "$T/p.db" >"$T/plan" 2>&1; rc=$?
check '[ $rc -eq 0 ]' "plan stencil exit $rc"
check 'grep -E "gpu +global +81 configurations" "$T/plan" >/dev/null' "plan: no 81 global configurations"
check 'grep -E "gpu +shared +81 configurations" "$T/plan" >/dev/null' "plan: no 81 shared configurations"
check 'grep -E "cpu +seq +9 configurations" "$T/plan" >/dev/null' "plan: no 9 CPU seq rows"

# --- plan rejects what the GPU would reject, with the reason, without a GPU -------
# BS=12: no template of shared was built for it; BS=64: 4096 threads in a block.
printf 'study = rej\n[a]\nfamily = matmul\nvariants = shared\nN = 768\nBS = 12, 64\n' >"$T/rej.conf"
$G plan "$T/rej.conf" --db "$T/rej.db" >"$T/rej.out" 2>&1; rc=$?
check '[ $rc -eq 0 ]' "plan rej.conf exit $rc"
check '[ "$(grep -c "^ *skip " "$T/rej.out")" -eq 2 ]' "plan: both BS values not shown as skip: $(cat "$T/rej.out")"
check 'grep -q "skip .*BS=12 .*built for BS in 1, 2, 4, 8, 16, 32" "$T/rej.out"' "plan: no reason for BS=12"
check 'grep -q "skip .*BS=64 .*4096 threads" "$T/rej.out"' "plan: no reason for BS=64"
check 'grep -q "0 to run, 0 done, 2 rejected by check" "$T/rej.out"' "plan: counts are not 2 rejected"

# --- config errors: exit 2, file:line, the offending text ------------------------
printf 'study = e\n[a]\nfamily = matmul\nvariants = global\nBs = 16\nN = 64\n' >"$T/e1.conf"
printf 'study = e\n[a]\nfamily = matmul\nvariants = global\nN = 10:1:2\n' >"$T/e2.conf"
printf 'study = e\n[a\nfamily = matmul\n' >"$T/e3.conf"
for e in e1:5:Bs e2:5:10:1:2 e3:2:; do
    f=${e%%:*}; rest=${e#*:}; line=${rest%%:*}; text=${rest#*:}
    $G run "$T/$f.conf" --db "$T/e.db" >"$T/$f.out" 2>&1; rc=$?
    check '[ $rc -eq 2 ]' "$f: exit $rc, want 2"
    check 'grep -q "$T/$f.conf:$line:" "$T/$f.out"' "$f: no '$f.conf:$line:' in: $(cat "$T/$f.out")"
    [ -n "$text" ] && check 'grep -qF "$text" "$T/$f.out"' "$f: message does not name '$text'"
done
check 'grep -q "did you mean .BS." "$T/e1.out"' "unknown key without suggestion"
check '[ ! -s "$T/e.db" ] || [ "$($G query --db "$T/e.db" --csv "select count(*) from run" | tail -n 1)" -eq 0 ]' "config error stored runs"

# --- usage errors exit 2 --------------------------------------------------------
$G frobnicate >/dev/null 2>&1; check '[ $? -eq 2 ]' "unknown command not exit 2"
$G run >/dev/null 2>&1; check '[ $? -eq 2 ]' "run without config not exit 2"
$G query --db "$T/r.db" "select nosuchcolumn from results" >/dev/null 2>&1; check '[ $? -eq 2 ]' "bad SQL not exit 2"
$G metrics --bogus >/dev/null 2>&1; check '[ $? -eq 2 ]' "metrics --bogus not exit 2"
$G --version | grep -q "^gpulab "; check '[ $? -eq 0 ]' "--version"
for c in run plan query list device metrics; do
    $G $c --help | grep -q usage; check '[ $? -eq 0 ]' "$c --help"
done

# --- each command's own help; run --help names options plan has -------------------
$G run --help >"$T/h.run"
check '! grep -q "plan --list" "$T/h.run" && grep -q "plan --summary" "$T/h.run"' "run --help names a plan option that does not exist"
$G list --help >"$T/h.list"; $G device --help >"$T/h.device"; $G metrics --help >"$T/h.metrics"
check 'grep -q "^usage: gpulab list .*--plugin" "$T/h.list" && ! grep -q "gpulab device" "$T/h.list"' "list --help: $(head -1 "$T/h.list")"
check 'grep -q "^usage: gpulab device \[--db PATH\]" "$T/h.device" && grep -q "^  --db PATH" "$T/h.device" && ! grep -q "gpulab list" "$T/h.device"' "device --help: $(head -1 "$T/h.device")"
check 'grep -q "^usage: gpulab metrics \[PATTERN" "$T/h.metrics" && grep -q "glob" "$T/h.metrics" && ! grep -q "gpulab list" "$T/h.metrics"' "metrics --help: $(head -1 "$T/h.metrics")"

# --- --only with a name no config has: exit 2, a suggestion, nothing run ----------
for c in run plan; do
    $G $c configs/smoke.conf --only seqq --db "$T/only.db" >"$T/only.out" 2>&1; rc=$?
    check '[ $rc -eq 2 ] && grep -q "^gpulab: --only seqq: no variant of the configs has that name (did you mean .seq.?)" "$T/only.out"' "$c --only seqq: exit $rc: $(head -2 "$T/only.out")"
    check '[ ! -e "$T/only.db" ]' "$c --only seqq created the database"
done

# --- a run the harness skips (threads over its limit) is skipped, once -------------
printf 'study = hs\n[a]\nfamily = vecadd\nvariants = omp\nN = 100\nthreads = 5000\n' >"$T/hs.conf"
$G run "$T/hs.conf" --db "$T/hs.db" >"$T/hs1" 2>&1; rc1=$?
$G run "$T/hs.conf" --db "$T/hs.db" >"$T/hs2" 2>&1; rc2=$?
n_hs=$($G query --db "$T/hs.db" --csv "select count(*) from run where status='skipped'" | tail -n 1)
# (not failed, exit 1: its only point skipped, nothing could run: exit 7)
check '[ $rc1 -eq 7 ] && [ $rc2 -eq 7 ] && grep -q "0 failed, 1 skipped" "$T/hs2"' "harness skip counted as failed: exit $rc1/$rc2: $(grep -v '^\[' "$T/hs2")"
check '[ "$n_hs" = 1 ]' "harness skip stored $n_hs times over two runs, want 1"

# --- a file-size limit: an error message, not death by SIGXFSZ ----------------------
(ulimit -f 40; exec $G run configs/smoke.conf --db "$T/fsz.db") >/dev/null 2>"$T/fsz.err"; rc=$?
check '[ $rc -eq 3 ]' "run under ulimit -f 40: exit $rc, want 3 (a storage error; 153 = killed by SIGXFSZ)"
check 'grep -q "^gpulab: " "$T/fsz.err"' "run under ulimit -f 40 said nothing"

# --- a damaged database is refused by run, untouched ---------------------------------
cp "$T/r.db" "$T/bad.db"
$G query --write --db "$T/bad.db" "pragma wal_checkpoint(truncate); pragma journal_mode = delete" >/dev/null 2>&1
psz=$($G query --db "$T/bad.db" --csv "pragma page_size" | tail -n 1)
npg=$($G query --db "$T/bad.db" --csv "pragma page_count" | tail -n 1)
check '[ "$npg" -ge 6 ]' "damage test: only $npg pages"
# page 3's cell pointers (after its 8-byte header) all 0xffff: out of range
head -c 64 /dev/zero | tr '\0' '\377' | dd of="$T/bad.db" bs=1 seek=$((psz * 2 + 8)) conv=notrunc 2>/dev/null
sum_b=$(cksum < "$T/bad.db")
$G run configs/smoke.conf --db "$T/bad.db" >"$T/bad.out" 2>&1; rc=$?
check '[ $rc -eq 3 ] && grep -q "^gpulab: database $T/bad.db is damaged (quick_check: " "$T/bad.out"' "run on a damaged file: exit $rc: $(head -2 "$T/bad.out")"
check '[ "$(cksum < "$T/bad.db")" = "$sum_b" ] && [ ! -e "$T/bad.db-wal" ]' "run changed the damaged file"

# --- query formats on real rows ---------------------------------------------------
sql="select family, variant, n from results where status='ok' order by run_id limit 2"
check '$G query --db "$T/r.db" --csv "$sql" | head -1 | grep -qx "family,variant,n"' "csv header"
check '$G query --db "$T/r.db" --md "$sql" | sed -n 2p | grep -q "^| *-"' "md separator"
check '$G query --db "$T/r.db" --json "$sql" | grep -q "\"family\": *\"matmul\""' "json"
check '$G query --db "$T/r.db" --latex "$sql" | grep -q "tabular"' "latex"
check '$G query --db "$T/r.db" --tsv "$sql" | head -1 | grep -q "family	variant	n"' "tsv"
echo "select count(*) as c from run;" >"$T/q.sql"
check '$G query --db "$T/r.db" -f "$T/q.sql" --csv | head -1 | grep -qx c' "query -f"

# --- read-only paths write nothing ------------------------------------------------
# query on a read-only file works; a write is refused (exit 2) without --write and
# leaves the file as it was; --write writes.
cp "$T/r.db" "$T/ro.db"
$G query --write --db "$T/ro.db" "pragma wal_checkpoint(truncate); pragma journal_mode = delete" >/dev/null 2>&1
chmod a-w "$T/ro.db"
n_ro=$($G query --db "$T/ro.db" --csv "select count(*) from run" 2>"$T/ro.err" | tail -n 1)
check '[ "$n_ro" = "$rows3" ]' "query on a read-only file: '$n_ro' rows, want $rows3: $(cat "$T/ro.err")"
chmod u+w "$T/ro.db"
sum_w=$(cksum < "$T/ro.db")
$G query --db "$T/ro.db" "delete from run" >/dev/null 2>"$T/del.err"; rc=$?
check '[ $rc -eq 2 ]' "query DELETE without --write: exit $rc, want 2"
check 'grep -q -- "--write" "$T/del.err"' "refused DELETE does not name --write: $(cat "$T/del.err")"
check '[ "$(cksum < "$T/ro.db")" = "$sum_w" ]' "refused DELETE changed the file"
for w in "attach '$T/att.db' as a" "pragma user_version = 1" "create temp table t (x)"; do
    $G query --db "$T/ro.db" "$w" >/dev/null 2>&1; rc=$?
    check '[ $rc -eq 2 ]' "query '$w' without --write: exit $rc, want 2"
done
check '[ ! -e "$T/att.db" ]' "refused ATTACH created its file"
check '[ "$(cksum < "$T/ro.db")" = "$sum_w" ]' "refused writes changed the file"
$G query --write --db "$T/ro.db" "delete from sample" >/dev/null 2>&1; rc=$?
check '[ $rc -eq 0 ] && [ "$($G query --db "$T/ro.db" --csv "select count(*) from sample" | tail -n 1)" -eq 0 ]' "query --write DELETE did not delete (exit $rc)"
# --db '' is a usage error for every command that takes it
for c in "query select1" "device" "plan configs/smoke.conf" "run configs/smoke.conf"; do
    $G $c --db '' >/dev/null 2>"$T/empty.err"; rc=$?
    check '[ $rc -eq 2 ] && grep -q "empty database path" "$T/empty.err"' "$c --db '': exit $rc, $(head -1 "$T/empty.err")"
done
# query on a missing file: exit 2, nothing created
$G query --db "$T/missing.db" "select 1" >/dev/null 2>"$T/miss.err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "no database $T/missing.db" "$T/miss.err"' "query on a missing file: exit $rc, $(cat "$T/miss.err")"
check '[ ! -e "$T/missing.db" ]' "query on a missing file created it"
# plan and run --dry-run on a missing database create nothing; on a database, write nothing
$G plan configs/smoke.conf --db "$T/noplan.db" >/dev/null 2>&1; rc=$?
check '[ $rc -eq 0 ] && [ ! -e "$T/noplan.db" ]' "plan on a missing db: exit $rc, or it created the file"
$G run configs/smoke.conf --dry-run --db "$T/noplan.db" >/dev/null 2>&1; rc=$?
check '[ $rc -eq 0 ] && [ ! -e "$T/noplan.db" ]' "run --dry-run on a missing db: exit $rc, or it created the file"
cp "$T/r.db" "$T/pl.db"
$G query --write --db "$T/pl.db" "pragma wal_checkpoint(truncate); pragma journal_mode = delete" >/dev/null 2>&1
# another CPU of the same model: plan finds the runs through the model, adds no row
$G query --write --db "$T/pl.db" "update device set ident = 'other-' || ident" >/dev/null 2>&1
sum_p=$(cksum < "$T/pl.db")
done_p=$($G plan configs/smoke.conf --db "$T/pl.db" | grep -c "^ *done ")
check '[ "$done_p" -ge 1 ]' "plan on a database shows nothing done"
check '[ "$(cksum < "$T/pl.db")" = "$sum_p" ]' "plan wrote to the database"
# a config error creates no database
for f in e1 e3; do
    $G run "$T/$f.conf" --db "$T/cfg_$f.db" >/dev/null 2>&1; rc=$?
    $G plan "$T/$f.conf" --db "$T/cfg_$f.db" >/dev/null 2>&1; rc2=$?
    check '[ $rc -eq 2 ] && [ $rc2 -eq 2 ] && [ ! -e "$T/cfg_$f.db" ]' "config error $f: exit $rc/$rc2, or a database was created"
done
# the committed fixture of an older schema queried: byte-identical afterwards
if [ -f tests/data/h100_smoke_v2.db ]; then
    cp tests/data/h100_smoke_v2.db "$T/fix.db"
    sum_f=$(cksum < "$T/fix.db")
    n_f=$($G query --db "$T/fix.db" --csv "select count(*) from results" | tail -n 1)
    check '[ "$n_f" -gt 0 ]' "query on the fixture: '$n_f' rows"
    check '[ "$(cksum < "$T/fix.db")" = "$sum_f" ]' "query changed the fixture's bytes"
fi

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
