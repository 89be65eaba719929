#!/bin/sh
# tests/integration/selfprof.sh - `run --profile-self` and the rules it reports
# on, with CPU baselines: one "self:" line per stored run whose phases add up to
# no more than its wall time, and the totals table; a CPU run longer than its
# time cap executes once (one sample, no warm-up, the kernels' time that one
# run's, a sampled check instead of a second run's worth of float64 reference;
# how its wall compares with that run is bench/timing.sh's to
# measure); runs under the cap are warmed up and sampled as before;
# the check each run got is stored (check_method, check_points). Must not need
# a GPU.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL selfprof: $2"; fi; }
q() { sqlite3 "$T/s.db" "$1"; }
# (the long runs: the seed's i-j-k loop, whose fixed-order sums no instruction-set level
# vectorises, so that they outlast the cap on any CPU: 1.0 and 1.5 GFLOP on 2 threads,
# 4x the cap at 5 GFLOP/s)
cat >"$T/long.conf" <<'CONF'
study = selfprof
family = matmul
threads = 2
[long]
variants = omp_ijk
N = 800, 900
time_cap = 50ms
[short]
variants = omp_ikj
N = 64
CONF
$G run "$T/long.conf" --db "$T/s.db" --profile-self >"$T/out" 2>"$T/err"; rc=$?
check '[ $rc -eq 0 ]' "run exit $rc: $(tail -3 "$T/err")"
check '[ "$(grep -c "^self: " "$T/err")" -eq 3 ]' "self lines: $(grep -c "^self: " "$T/err") (want 3)"
check 'grep -q "^self-profile: .* in 3 runs (0 GPU, 3 CPU)" "$T/err"' "no totals line: $(grep self-profile "$T/err")"
# the time before the first run in its parts, which add up to at most it
prep=$(sed -n "s/^self-profile: [0-9.]* s in all: \([0-9.]*\) s before the first run (configs \([0-9.]*\), workers \([0-9.]*\), plan \([0-9.]*\), compile \([0-9.]*\), counters' set-up \([0-9.]*\), other \([0-9.]*\)).*/\1 \2 \3 \4 \5 \6 \7/p" "$T/err")
check '[ -n "$prep" ] && echo "$prep" | awk "{ exit !(\$2 + \$3 + \$4 + \$5 + \$6 + \$7 <= \$1 + 0.1) }"' \
    "the time before the first run in parts: '$prep' ($(grep self-profile "$T/err"))"
for ph in "setup (buffers, inputs, copies)" "verification (runs, checks)" "warm-up" "timed samples" \
          "store" "kernels, flushes, copies"; do
    check 'grep -q "^  $ph" "$T/err"' "the table lacks '$ph'"
done
# every self line: the parts in the worker add up to at most its wall
bad=$(grep "^self: " "$T/err" | awk '{
  for (i = 1; i <= NF; i++) { if ($i == "wall") w = $(i+1); if ($i == "setup") s = $(i+1);
    if ($i == "verify") v = $(i+1); if ($i == "warm-up") u = $(i+1); if ($i == "samples") m = $(i+1) }
  if (s + v + u + m > w + 0.5 || s < 0 || v < 0 || u < 0 || m < 0) print }' | wc -l)
check '[ "$bad" -eq 0 ]' "$bad self lines whose phases exceed their wall"
# the long runs: one execution
check '[ "$(q "select count(*) from run where section = '\''long'\'' and status = '\''ok'\'' and samples = 1")" -eq 2 ]' \
      "long runs with one sample: $(q "select n, samples from run where section = 'long'")"
# ... no warm-up, and the kernels' time is the one sample's (one execution)
one=$(grep "^self: .*omp_ijk" "$T/err" | awk '{
  for (i = 1; i <= NF; i++) { if ($i == "warm-up") u = $(i+1); if ($i == "samples") m = $(i+1);
    if ($i == "kernels") { k = $(i+1); sub(/,$/, "", k) } }
  if (u == "0.0" && k == m) n++ } END { print n + 0 }')
check '[ "$one" -eq 2 ]' "long runs executed more than once: $(grep "^self: .*omp_ijk" "$T/err")"
check 'grep -q "CPU runs longer than their time cap: wall / one run: median [0-9.]*, max [0-9.]* over 2 runs" "$T/err"' \
    "no wall / one run line for the 2 long runs: $(grep "time cap" "$T/err")"
# ... checked sampled (800^3 and 900^3 operations are past 2^27), the short one in full
check '[ "$(q "select count(*) from run where section = '\''long'\'' and check_method = '\''sampled'\'' and check_points = 1024")" -eq 2 ]' \
      "long runs' check: $(q "select check_method, check_points from run where section = 'long'")"
check '[ "$(q "select check_method || '\'' '\'' || check_points from run where section = '\''short'\''")" = "full 4096" ]' \
      "short run's check: $(q "select check_method, check_points from run where section = 'short'")"
# the short run (well under the 0.3 s CPU default cap): warmed up and sampled, more than once
check '[ "$(q "select samples > 1 and max_seconds = 0.3 from run where section = '\''short'\''")" = 1 ]' \
      "short run: $(q "select samples, max_seconds from run where section = 'short'")"
check '[ "$(q "select max_seconds from run where section = '\''long'\'' limit 1")" = 0.05 ]' \
      "an explicit time_cap is kept: $(q "select max_seconds from run where section = 'long' limit 1")"
# without the flag: no self lines
$G run "$T/long.conf" --db "$T/s2.db" >"$T/out2" 2>"$T/err2"
check '! grep -q "^self" "$T/err2" "$T/out2"' "self lines without --profile-self"
# GPU runs (the fake GPU plugin: no GPU needed): the overhead of every ok GPU run
# split into named parts whose means add up to the mean overhead; the fake's host
# work (GPULAB_FAKE_HOST_US, its "inputs" step) is where the table says it is
FAKE=build/tests/plugins/fake_gpu.so
cat >"$T/fake.conf" <<'CONF'
study = selfprof_gpu
warmup = 0
samples_min = 1
samples_max = 1
[fake]
family = fake
variants = sleep
N = 1000, 2000, 3000, 4000
CONF
GPULAB_PLUGIN="$FAKE" GPULAB_LOCK_DIR="$T/locks" GPULAB_FAKE_HOST_US=20000 \
    $G run "$T/fake.conf" --db "$T/g.db" --profile-self >"$T/gout" 2>"$T/gerr"; rc=$?
check '[ $rc -eq 0 ]' "fake GPU run exit $rc: $(tail -3 "$T/gerr")"
check 'grep -q "host overhead per ok GPU run (wall - kernels, flushes, timed copies): median [0-9.]* ms over 4 runs" "$T/gerr"' \
    "no overhead line for 4 GPU runs: $(grep overhead "$T/gerr")"
for part in "launch setup (kernel, arguments)" "launch shape, occupancy" "reference (expected outputs)" "buffers (allocate, pool)" \
            "inputs from the seed" "upload (host part)" "readback (host part)" "output check" \
            "warm-up + samples (host part)" "counters: its ranges (CUPTI)" "counters: its sessions' share" \
            "counters: exact-conflict replay" "free, release" "harness, not named above" \
            "run watch (host load, GPU clocks)" "worker around the run" "to and from the worker" "store"; do
    check 'grep -q "^    $part  " "$T/gerr"' "the parts table lacks '$part'"
done
# the fake's 20 ms of host work a run: at least that in its step (mean and median)
inp=$(grep "^    inputs from the seed " "$T/gerr" | awk '{ print $(NF-3), $(NF-2) }')
check 'echo "$inp" | awk "{ exit !(\$1 >= 20.0 && \$2 >= 20.0) }"' "inputs step: '$inp' (want >= 20 ms)"
# the parts' means add up to the mean overhead (to the rounding of 18 rows)
sum=$(awk '/^  where it goes/ { on = 1; getline; mean = $0; next } on && /^    / && $1 != "part" { s += $(NF-3) }
  END { print s }' "$T/gerr")
mean=$(sed -n 's/.*the means add up to the mean overhead, \([0-9.-]*\) ms.*/\1/p' "$T/gerr")
check 'awk "BEGIN { d = $sum - $mean; exit !(d < 0.2 && d > -0.2) }"' "parts add to $sum, mean overhead $mean"
echo "selfprof: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
