#!/bin/sh
# tests/integration/selfprof.sh - `run --profile-self` and the rules it reports
# on, with CPU baselines: one "self:" line per stored run whose phases add up to
# no more than its wall time, and the totals table; a CPU run longer than its
# time cap executes once (one sample, and its wall at most 1.3 x that run: no
# warm-up, no second run, a sampled check instead of a second run's worth of
# float64 reference); runs under the cap are warmed up and sampled as before;
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
for ph in "setup (buffers, inputs, copies)" "verification (runs, checks)" "warm-up" "timed samples" \
          "store" "kernels and flushes"; do
    check 'grep -q "^  $ph" "$T/err"' "the table lacks '$ph'"
done
# every self line: the parts in the worker add up to at most its wall
bad=$(grep "^self: " "$T/err" | awk '{
  for (i = 1; i <= NF; i++) { if ($i == "wall") w = $(i+1); if ($i == "setup") s = $(i+1);
    if ($i == "verify") v = $(i+1); if ($i == "warm-up") u = $(i+1); if ($i == "samples") m = $(i+1) }
  if (s + v + u + m > w + 0.5 || s < 0 || v < 0 || u < 0 || m < 0) print }' | wc -l)
check '[ "$bad" -eq 0 ]' "$bad self lines whose phases exceed their wall"
# the long runs: one execution, wall <= 1.3 x that run
check '[ "$(q "select count(*) from run where section = '\''long'\'' and status = '\''ok'\'' and samples = 1")" -eq 2 ]' \
      "long runs with one sample: $(q "select n, samples from run where section = 'long'")"
ratio=$(grep "CPU runs longer than their time cap" "$T/err" | sed -E 's/.*max ([0-9.]+) over ([0-9]+) runs/\1 \2/')
check 'echo "$ratio" | awk "{ exit !(\$1 <= 1.3 && \$2 == 2) }"' "long runs' wall / one run: '$ratio' (want max <= 1.3 over 2 runs)"
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
echo "selfprof: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
