#!/bin/sh
# tests/gpu/library.sh - library calls and range modes on a GPU (run by
# tests/gpu/run.sh), on tests/gpu/data/library.conf (cuBLAS SGEMM beside the
# naive kernel at three sizes), run twice with the engine's trace on:
# - by default a library call's kernels are counted at its verification run:
#   the calls counted as one kernel are profiled in the auto-range session with
#   the kernels of ours (2 passes, as theirs), the others in a user range (3:
#   the isolated time pass); at least one call is counted so;
# - under GPULAB_LIB_RANGES=user nothing is counted and every call is in a
#   user range, as before;
# - the counted calls' DRAM and L1 bytes are those of the same call in a user
#   range (within 5 %), and their duration no longer: the auto range brackets
#   the kernel alone, as ncu does, where a user range adds its boundaries (at
#   1024^3 on the H100 the user range had 4 % more L2 bytes and a L2 hit rate
#   10 points higher);
# - a session's own time goes to its own runs: the user session's fresh range
#   profiler object (a range mode change) is charged to the call in it, not to
#   the kernels of the auto session.
# Ends with "library-gpu: N passed, N failed". Must not rebuild anything.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL library-gpu: $2"; fi; }
C=tests/gpu/data/library.conf
q() { $G query --db "$1" --tsv "$2" | tail -n 1; }
GPULAB_CUPTI_TRACE=1 $G run $C --db "$T/a.db" --profile-self >"$T/a" 2>&1; rca=$?
GPULAB_CUPTI_TRACE=1 GPULAB_LIB_RANGES=user $G run $C --db "$T/b.db" --profile-self >"$T/b" 2>&1; rcb=$?
grep -E "cupti (count|session)" "$T/a" "$T/b"
chk '[ $rca -eq 0 ] && [ $rcb -eq 0 ]' "exit $rca and $rcb: $(tail -3 "$T/a") $(tail -3 "$T/b")"
for x in a b; do
    n=$(q "$T/$x.db" "select count(*) from results where status = 'ok' and passes > 0")
    chk '[ "$n" -eq 6 ]' "run $x: $n of 6 runs ok and profiled: $(q "$T/$x.db" "select group_concat(variant || ' ' || status || ' ' || ifnull(metrics_reason, ''), '; ') from results")"
done
one=$(grep -c "cupti count: a library call of 1 kernel(s)$" "$T/a")
counted=$(grep -c "cupti count: a library call of" "$T/a")
chk '[ "$one" -ge 1 ] && [ "$counted" -eq 3 ]' "run a: $counted library calls counted (want 3), $one of one kernel (want >= 1)"
auto=$(sed -n 's/.*cupti session: auto ranges, \([0-9]*\) run(s).*/\1/p' "$T/a" | awk '{ s += $1 } END { print s + 0 }')
user=$(sed -n 's/.*cupti session: user ranges, \([0-9]*\) run(s).*/\1/p' "$T/a" | awk '{ s += $1 } END { print s + 0 }')
chk '[ "$auto" -eq $((3 + one)) ] && [ "$user" -eq $((3 - one)) ]' "run a: $auto runs in auto ranges (want $((3 + one))), $user in user ranges (want $((3 - one)))"
p2=$(q "$T/a.db" "select count(*) from results where variant = 'cublas' and passes = 2")
chk '[ "$p2" -eq "$one" ]' "run a: $p2 cuBLAS runs in 2 passes (auto ranges), want $one"
chk '! grep -q "cupti count" "$T/b"' "run b (GPULAB_LIB_RANGES=user) counted library calls"
ub=$(sed -n 's/.*cupti session: user ranges, \([0-9]*\) run(s).*/\1/p' "$T/b" | awk '{ s += $1 } END { print s + 0 }')
chk '[ "$ub" -eq 3 ]' "run b: $ub runs in user ranges (want 3)"
# the counted calls against themselves in a user range
$G query --db "$T/a.db" --tsv "select r.N, m.name, m.value from results r join metric m on m.run_id = r.run_id
    where r.variant = 'cublas' and r.passes = 2 order by 1, 2" >"$T/ma"
$G query --db "$T/b.db" --tsv "select r.N, m.name, m.value from results r join metric m on m.run_id = r.run_id
    where r.variant = 'cublas' order by 1, 2" >"$T/mb"
# one row per counter of a counted call: N, name, auto value, user value
awk -F '\t' -v OFS='\t' 'NR == FNR { b[$1 FS $2] = $3; next }
    ($1 FS $2) in b { print $1, $2, $3, b[$1 FS $2] }' "$T/mb" "$T/ma" >"$T/pairs"
awk -F '\t' '{ printf "  N=%-5s %-55s auto %14.4g  user %14.4g\n", $1, $2, $3, $4 }' "$T/pairs"
bad=$(awk -F '\t' '$2 ~ /^(dram__bytes_read|l1tex__t_bytes)\.sum$/ {
        d = $3 - $4; if (d < 0) d = -d; m = $4; if (m < 0) m = -m
        if (d > 0.05 * m + 65536) printf "%s %s auto %g user %g; ", $1, $2, $3, $4; n++ }
    END { if (n == 0) print "nothing compared" }' "$T/pairs")
chk '[ -z "$bad" ]' "counted calls' DRAM and L1 bytes against a user range (5 % + 64 KB): $bad"
# the auto range times the kernel alone: no longer than the user range, which
# adds its boundaries (H100, 1024^3: 61 us against 133 us, the timed samples 63 us)
long=$(awk -F '\t' '$2 == "gpu__time_duration.sum" {
        if ($3 > $4) printf "%s auto %g ns, user %g ns; ", $1, $3, $4; n++ }
    END { if (n == 0) print "nothing compared" }' "$T/pairs")
chk '[ -z "$long" ]' "counted calls' gpu__time_duration longer in auto than in user ranges: $long"
# the fresh object of the user session charged to its runs: profiling work per
# run (the largest of a variant's runs, its "counters" and "sessions" steps)
ctr() { grep "^self: matmul/$1 " "$T/a" | awk '{ s = 0; for (i = 1; i < NF; i++)
            if ($i == "counters" || $i == "sessions") { v = $(i + 1); sub(/,$/, "", v); s += v }
        print s }' | sort -n | tail -n 1; }
if [ "$one" -lt 3 ]; then
    worst_auto=$(ctr naive_rect)
    lone=$(ctr cublas)
    chk 'awk -v a="$worst_auto" -v u="$lone" "BEGIN { exit !(a + 0 < 50 && u + 0 > 100) }"' "counters: the naive runs' at most $worst_auto ms (want < 50), the user-range call's $lone ms (want > 100: the fresh object)"
fi
echo "library-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
