#!/bin/sh
# tests/integration/collections.sh - one counter collection per worker and metric
# set, with the fake GPU plugin (tests/plugins/fake_gpu.c logs a "collection" line
# where the real plugin starts a range profiler object: at the first profile of a
# metric set other than the last one profiled). A config whose four sections
# alternate between two metric sets, cut into batches of 2 runs (GPULAB_BATCH=2,
# 16 GPU runs: 8 batches): on one GPU the worker starts exactly 2 collections (one
# per set; the hand-out groups the runs by set), and on 2 GPUs each worker starts
# at most 2 and every worker as many as the sets it profiled. Every run's counters
# are its own set's and equal (names and values) those of two separate sweeps, one
# per set. The worker sets its profiler up while the driver compiles (a C
# reference's compiler waits for the fake's set-up). Must not need a GPU.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL collections: $2"; fi; }
sq() { sqlite3 "$1" "$2" 2>&1; }
FAKE=build/tests/plugins/fake_gpu.so
[ -f "$FAKE" ] || { echo "collections: $FAKE is missing (make all)"; echo "collections: 0 passed, 1 failed"; exit 1; }
export GPULAB_PLUGIN="$FAKE" GPULAB_LOCK_DIR="$T/locks"
unset CUDA_VISIBLE_DEVICES GPULAB_FAKE_MODELS GPULAB_FAKE_COUNTERS GPULAB_UNIT_MIN GPULAB_FAKE_GPUS
export GPULAB_BATCH=2

head() {
    cat <<'CONF'
study = sets
warmup = 0
samples_min = 1
samples_max = 1
CONF
}
sec() {   # NAME METRICS N-list
    printf '[%s]\nfamily = fake\nvariants = sleep\nmetrics = %s\nN = %s\n' "$1" "$2" "$3"
}
A="default"
B="gpu__time_duration.sum, dram__bytes_read.sum"
{ head; sec a "$A" "1001, 1002, 1003, 1004"; sec b "$B" "2001, 2002, 2003, 2004"
        sec c "$A" "3001, 3002, 3003, 3004"; sec d "$B" "4001, 4002, 4003, 4004"; } > "$T/mix.conf"
{ head; sec a "$A" "1001, 1002, 1003, 1004"; sec c "$A" "3001, 3002, 3003, 3004"; } > "$T/only_a.conf"
{ head; sec b "$B" "2001, 2002, 2003, 2004"; sec d "$B" "4001, 4002, 4003, 4004"; } > "$T/only_b.conf"

# (a) one GPU: 8 batches, 2 collections
GPULAB_FAKE_LOG="$T/one.log" $G run "$T/mix.conf" --db "$T/one.db" >"$T/one.out" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "one GPU: exit $rc: $(tail -3 "$T/one.out")"
check '[ "$(sq "$T/one.db" "select count(*) from run where status = '"'ok'"' and passes = 1")" = 16 ]' \
    "one GPU: $(sq "$T/one.db" "select count(*) from run where status = 'ok' and passes = 1") ok runs with counters (want 16)"
nb=$(grep -c '^batch ' "$T/one.log")
check '[ "$nb" -ge 8 ]' "one GPU: $nb profiling batches (want at least 8)"
nc=$(grep -c '^collection ' "$T/one.log")
check '[ "$nc" = 2 ]' "one GPU: $nc collections started (want 2, one per metric set): $(grep '^collection ' "$T/one.log" | cut -d' ' -f4 | tr '\n' ' ')"

# (b) separate sweeps, one per set: the same counters run by run
GPULAB_FAKE_LOG="$T/sa.log" $G run "$T/only_a.conf" --db "$T/sep.db" >"$T/sa.out" 2>&1
GPULAB_FAKE_LOG="$T/sb.log" $G run "$T/only_b.conf" --db "$T/sep.db" >"$T/sb.out" 2>&1
Q="select r.section || ' ' || r.n || ' ' || m.name || ' ' || m.value from run r join metric m on m.run_id = r.id order by 1"
sq "$T/one.db" "$Q" > "$T/one.metrics"
sq "$T/sep.db" "$Q" > "$T/sep.metrics"
check '[ -s "$T/sep.metrics" ] && cmp -s "$T/one.metrics" "$T/sep.metrics"' \
    "interleaved sets: counters differ from separate sweeps: $(diff "$T/one.metrics" "$T/sep.metrics" | head -4)"
# each run has exactly its own set's names
nb_b=$(sq "$T/one.db" "select count(*) from metric m join run r on r.id = m.run_id where r.section in ('b', 'd') and m.name not in ('gpu__time_duration.sum', 'dram__bytes_read.sum')")
check '[ "$nb_b" = 0 ]' "runs of set B hold $nb_b counters of another set"
na=$(sq "$T/one.db" "select count(distinct m.name) from metric m join run r on r.id = m.run_id where r.section in ('a', 'c')")
check '[ "$na" -gt 2 ]' "runs of the default set hold $na distinct counters"

# (c) two GPUs: each worker starts one collection per set it profiled, each set on one GPU
GPULAB_FAKE_GPUS=2 GPULAB_FAKE_LOG="$T/two.log" $G run "$T/mix.conf" --db "$T/two.db" --gpus all >"$T/two.out" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "two GPUs: exit $rc: $(tail -3 "$T/two.out")"
bad=$(awk '$1 == "collection" { split($3, p, "="); c[p[2]]++; s[p[2] " " $4 $5] = 1 }
           END { for (k in s) { split(k, a, " "); n[a[1]]++ }
                 for (w in c) if (c[w] != n[w] || c[w] > 2) print w ":" c[w] "/" n[w] }' "$T/two.log")
check '[ -z "$bad" ]' "two GPUs: workers that started a set twice (pid:starts/sets): $bad"
nw=$(awk '$1 == "collection" { split($3, p, "="); w[p[2]] = 1 } END { print length(w) }' "$T/two.log")
check '[ "$nw" = 2 ]' "two GPUs: $nw workers profiled (want 2)"
# the two sets go to different GPUs, and neither GPU starts the other's set for
# a tail worth less than a start (GPULAB_SPEC_COST, 0.3 s; these runs take ms)
ntot=$(grep -c '^collection ' "$T/two.log")
check '[ "$ntot" = 2 ]' "two GPUs: $ntot collection starts in all (want 2: one set per GPU)"
sq "$T/two.db" "$Q" | sed 's/ [0-9.e+]*$//' > "$T/two.names"
sed 's/ [0-9.e+]*$//' "$T/sep.metrics" > "$T/sep.names"
check 'cmp -s "$T/two.names" "$T/sep.names"' "two GPUs: counter names differ from separate sweeps"

# (d) the worker sets its profiler up while the driver compiles: the fake's
# profiler_setup appends a mark, and the compiler of a C reference waits for it
# (20 s at most) before it compiles. Asked only after the compile, as before,
# the setup would come too late for it.
# (the collection's axpby kernel section and its C reference, beside a fake section)
cp tests/collection/axpby.cu tests/collection/axpby_ref.c "$T/"
{ head; sec a "$A" "1001"; sed -n '/^\[axpby\]/,$p' tests/collection/axpby.conf; } > "$T/compile.conf"
# the compiler waits for WANT_MARKS workers' marks
cat >"$T/ccwait" <<SH
#!/bin/sh
marks() { if [ -e "$T/setup.mark" ]; then wc -l <"$T/setup.mark"; else echo 0; fi; }
i=0
while [ \$(marks) -lt \$WANT_MARKS ] && [ \$i -lt 200 ]; do sleep 0.1; i=\$((i + 1)); done
echo "\$(marks) of \$WANT_MARKS" >>"$T/cc.said"
exec cc "\$@"
SH
chmod +x "$T/ccwait"
WANT_MARKS=1 CC="$T/ccwait" GPULAB_CACHE="$T/cache" GPULAB_FAKE_SETUP_MARK="$T/setup.mark" \
    $G plan "$T/compile.conf" --db "$T/compile.db" --summary >"$T/compile.out" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "setup while compiling: plan exit $rc: $(tail -3 "$T/compile.out")"
check '[ "$(cat "$T/cc.said" 2>/dev/null)" = "1 of 1" ]' \
    "setup while compiling: the C reference's compile saw $(cat "$T/cc.said" 2>/dev/null) workers set up"
check 'grep -q "compiled 1 C reference, 0 from the cache" "$T/compile.out"' \
    "setup while compiling: $(grep -i "compiled\|C reference" "$T/compile.out" | head -3)"
# ... and with two GPUs both workers do, the second one too (it answers for no model)
rm -rf "$T/cache" "$T/setup.mark" "$T/cc.said"
WANT_MARKS=2 CC="$T/ccwait" GPULAB_CACHE="$T/cache" GPULAB_FAKE_SETUP_MARK="$T/setup.mark" \
    GPULAB_FAKE_GPUS=2 $G run "$T/compile.conf" --db "$T/compile2.db" --gpus all \
    >"$T/compile2.out" 2>&1
rc=$?
check '[ "$(cat "$T/cc.said" 2>/dev/null)" = "2 of 2" ]' \
    "two GPUs, setup while compiling: the C reference's compile saw $(cat "$T/cc.said" 2>/dev/null) workers set up (exit $rc: $(tail -2 "$T/compile2.out"))"
check '[ "$(sort -u "$T/setup.mark" | wc -l)" = 2 ]' \
    "two GPUs: set up by $(sort -u "$T/setup.mark" | wc -l) workers (want 2): $(cat "$T/setup.mark" | tr '\n' ' ')"
nok=$(sq "$T/compile2.db" "select count(*) from run where section = 'a' and status = 'ok' and passes = 1")
check '[ "$nok" = 1 ]' "two GPUs, setup while compiling: $nok ok runs with counters in [a] (want 1): $(tail -3 "$T/compile2.out")"

echo "collections: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
