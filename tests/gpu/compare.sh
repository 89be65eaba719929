#!/bin/sh
# tests/gpu/compare.sh - `gpulab compare` on a GPU (run by tests/gpu/run.sh): the
# targets of its statistics on real timings.
# A/A: the GPU section of S2 (configs/stencil.conf [gpu], 162 points, timing only)
# run twice into one database and compared session against session with the
# default threshold (the noise floor): at most 5 % of the points may be other
# than `same`, and none slower (exit 0).
# Planted slowdowns (tests/gpu/data/compare_work.conf: one kernel and the same
# with 1 % and 3 % more work, 24 points each, one study): base against extra3
# must find at least 95 % of the points `slower` (exit 1); base against extra1
# is reported (the fraction found and the noise floor), not checked, and base
# against itself (the same runs) is never `slower` or `faster`, and at most 5 %
# `unsure` (as the A/A).
# Prints each comparison's summary and ends with "compare-gpu: N passed, N
# failed". Must not rebuild anything. Takes a few minutes on an H100.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
db=${GPULAB_COMPARE_DB:-$T/c.db}
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL compare-gpu: $2"; fi; }
# count CSV VERDICT: the rows of that verdict
count() { awk -F, -v v="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "verdict") c = i; next } $c == v { n++ } END { print n + 0 }' "$1"; }
rows() { echo $(($(wc -l <"$1") - 1)); }

# ---- A/A: S2's GPU section twice ------------------------------------------------------
{
    echo "study = compare_aa"
    echo "description = S2's GPU section, for an A/A comparison"
    sed -n '/^\[gpu\]/,/^$/p' configs/stencil.conf
    echo "metrics = none"
} >"$T/aa.conf"
$G run "$T/aa.conf" --db "$db" >"$T/aa1.log" 2>&1; rc1=$?
$G run "$T/aa.conf" --db "$db" --force >"$T/aa2.log" 2>&1; rc2=$?
chk '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]' "the A/A sweeps: exit $rc1 and $rc2: $(tail -n 2 "$T/aa2.log")"
s1=$($G query --db "$db" --csv "select min(session_id) from results where study = 'compare_aa'" | tail -n 1)
s2=$($G query --db "$db" --csv "select max(session_id) from results where study = 'compare_aa'" | tail -n 1)
$G compare "study=compare_aa,session=$s1" "study=compare_aa,session=$s2" --db "$db" --csv \
    >"$T/aa.csv" 2>"$T/aa.err"; rc=$?
echo "--- A/A (S2's GPU section, session $s1 against $s2):"
cat "$T/aa.err"
n=$(rows "$T/aa.csv"); same=$(count "$T/aa.csv" same)
chk '[ "$n" -eq 162 ]' "A/A: $n points compared (want 162)"
chk '[ $rc -eq 0 ] && [ "$(count "$T/aa.csv" slower)" -eq 0 ]' "A/A: exit $rc, $(count "$T/aa.csv" slower) points slower"
chk '[ $((100 * (n - same))) -le $((5 * n)) ]' "A/A: $((n - same)) of $n points are not same (at most 5 % may be)"

# ---- planted slowdowns ------------------------------------------------------------------
$G run tests/gpu/data/compare_work.conf --db "$db" >"$T/w.log" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "the planted-work sweep: exit $rc: $(tail -n 3 "$T/w.log")"
for v in extra3 extra1 base; do
    $G compare variant=base "variant=$v" --db "$db" --csv >"$T/$v.csv" 2>"$T/$v.err"
    eval "rc_$v=$?"
    echo "--- base against $v:"
    cat "$T/$v.err"
done
n=$(rows "$T/extra3.csv"); slow=$(count "$T/extra3.csv" slower)
chk '[ "$n" -eq 24 ] && [ $((100 * slow)) -ge $((95 * n)) ] && [ "$rc_extra3" -eq 1 ]' \
    "3 % more work: $slow of $n points slower (want at least 95 %), exit $rc_extra3 (want 1)"
# the points that missed it, as compare printed them (what a failure is read from)
[ "$slow" -eq "$n" ] || awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "verdict") c = i; print; next }
    $c != "slower"' "$T/extra3.csv"
n1=$(rows "$T/extra1.csv"); slow1=$(count "$T/extra1.csv" slower)
echo "compare-gpu: 1 % more work: $slow1 of $n1 points found slower; $(grep '^threshold' "$T/extra1.err")"
chk '[ "$n1" -eq 24 ]' "1 % more work: $n1 points compared (want 24)"
# the same runs on both sides: never slower or faster; `unsure` is allowed as in the
# A/A (at most 5 %): each side is resampled apart, so a point whose own spread reaches
# past the threshold (the noise floor is the 95th percentile of the points' reach)
# gets an interval that straddles it
nb=$(rows "$T/base.csv"); sb=$(count "$T/base.csv" same)
chk '[ "$nb" -eq 24 ] && [ "$rc_base" -eq 0 ] && [ "$(count "$T/base.csv" slower)" -eq 0 ] &&
     [ "$(count "$T/base.csv" faster)" -eq 0 ] && [ $((100 * (nb - sb))) -le $((5 * nb)) ]' \
    "base against itself: $sb of $nb same, $(count "$T/base.csv" slower) slower, $(count "$T/base.csv" faster) faster (exit $rc_base)"

echo "compare-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
