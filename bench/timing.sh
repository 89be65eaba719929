#!/bin/sh
# bench/timing.sh - the speed targets that tests used to assert as wall times (tests
# now assert only what happened: the hang timed out, the driver was interrupted,
# one execution), measured here against a reference taken in the same run, so that a
# loaded machine slows both alike. No GPU. Prints one line per target:
#   timing: <what> <measured> s, reference <ref> s: ratio <r> (target <t>) met|MISSED
# and exits 0 (a benchmark reports; it does not fail the build). REPEAT (default 3):
# each measurement is the best of REPEAT.
#   hang      faults_plugin's fault_hang (2 runs, timeout = 1 s) swept with fault_ok:
#             the sweep's wall minus the same sweep without the hang, per hang, over
#             the timeout (target <= 1.5: the watchdog kills a hung run within half a
#             timeout of its timeout, the new worker included)
#   signal    SIGTERM to `gpulab run` in a long CPU run until it exits, over the wall of
#             a `gpulab run` with nothing to do (start and stop; target <= 10, and
#             the absolute target: within 1 s)
#   long run  a CPU run longer than its time cap: its wall over that one execution, as
#             `run --profile-self` reports it (target <= 1.3: no warm-up, no second run)
# Must not change any database but its own (a temporary folder).
set -u
G=${G:-./build/gpulab}
PLUGIN=build/tests/plugins/faults_plugin.so
REPEAT=${REPEAT:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
now() { date +%s.%N; }
best() { sort -g | head -n 1; }
verdict() {   # verdict WHAT MEASURED REF RATIO TARGET
    printf 'timing: %s %.3f s, reference %.3f s: ratio %.2f (target <= %s) %s\n' "$1" "$2" "$3" "$4" "$5" \
        "$(awk -v r="$4" -v t="$5" 'BEGIN { print (r <= t) ? "met" : "MISSED" }')"
}
[ -x "$G" ] && [ -f "$PLUGIN" ] || { echo "timing: needs $G and $PLUGIN (make all)"; exit 0; }
echo "timing: $(nproc) CPUs, load average now $(cut -d' ' -f1-3 /proc/loadavg), best of $REPEAT"

# --- hang ----------------------------------------------------------------------------
conf() {   # conf FILE VARIANTS
    printf 'study = timing\nfamily = faults\nN = 1000, 2000\nsamples_min = 3\nsamples_max = 5\ntime_cap = 0.2s\ntimeout = 1s\n[s]\nvariants = %s\n' "$2" >"$1"
}
conf "$T/hang.conf" "fault_hang, fault_ok"
conf "$T/ref.conf" "fault_ok"
: >"$T/h"; : >"$T/r"
for i in $(seq 1 "$REPEAT"); do
    rm -f "$T/h.db" "$T/r.db"
    t0=$(now); $G run "$T/ref.conf" --db "$T/r.db" --plugin "$PLUGIN" >/dev/null 2>&1; t1=$(now)
    $G run "$T/hang.conf" --db "$T/h.db" --plugin "$PLUGIN" >/dev/null 2>&1; t2=$(now)
    echo "$t1 $t0" | awk '{ print $1 - $2 }' >>"$T/r"
    echo "$t2 $t1" | awk '{ print $1 - $2 }' >>"$T/h"
done
h=$(best <"$T/h"); r=$(best <"$T/r")
per=$(awk -v h="$h" -v r="$r" 'BEGIN { print (h - r) / 2 }')
verdict "hang: per hung run, past the reference sweep" "$per" "1" "$(awk -v p="$per" 'BEGIN { print p / 1 }')" 1.5
echo "timing:   (the hang sweep $h s, the same without the hang $r s, timeout 1 s)"

# --- signal --------------------------------------------------------------------------
printf 'study = timing_sig\n[cpu]\nfamily = matmul\nvariants = seq_ijk\nN = 640\nsamples_min = 50\nnoise = 0\ntime_cap = 60s\n' >"$T/long.conf"
printf 'study = timing_idle\n[cpu]\nfamily = vecadd\nvariants = seq\nN = 100\n' >"$T/idle.conf"
$G run "$T/idle.conf" --db "$T/idle.db" >/dev/null 2>&1   # done: the next runs have nothing to do
: >"$T/s"; : >"$T/i"
for i in $(seq 1 "$REPEAT"); do
    t0=$(now); $G run "$T/idle.conf" --db "$T/idle.db" >/dev/null 2>&1; t1=$(now)
    echo "$t1 $t0" | awk '{ print $1 - $2 }' >>"$T/i"
    rm -f "$T/s.db"
    $G run "$T/long.conf" --db "$T/s.db" >"$T/s.out" 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do grep -q '^\[1/1\]' "$T/s.out" 2>/dev/null && [ -n "$(pgrep -P $pid)" ] && break; sleep 0.05; done
    sleep 0.5
    t0=$(now); kill -TERM "$pid"; wait "$pid"; t1=$(now)
    echo "$t1 $t0" | awk '{ print $1 - $2 }' >>"$T/s"
done
s=$(best <"$T/s"); i=$(best <"$T/i")
verdict "signal: SIGTERM to exit" "$s" "$i" "$(awk -v s="$s" -v i="$i" 'BEGIN { print (i > 0) ? s / i : 0 }')" 10
echo "timing:   (absolute target: within 1 s: $(awk -v s="$s" 'BEGIN { print (s <= 1) ? "met" : "MISSED" }'))"

# --- long run ------------------------------------------------------------------------
printf 'study = timing_long\nfamily = matmul\nthreads = 2\n[long]\nvariants = omp_ijk\nN = 800, 900\ntime_cap = 50ms\n' >"$T/lr.conf"
: >"$T/l"
for i in $(seq 1 "$REPEAT"); do
    rm -f "$T/l.db"
    $G run "$T/lr.conf" --db "$T/l.db" --profile-self >/dev/null 2>"$T/l.err"
    sed -nE 's/.*CPU runs longer than their time cap: wall \/ one run: median [0-9.]+, max ([0-9.]+) over.*/\1/p' "$T/l.err" >>"$T/l"
done
l=$(best <"$T/l")
if [ -n "$l" ]; then
    printf 'timing: long run: wall over its one execution (as run --profile-self measures both): ratio %.2f (target <= 1.3) %s\n' \
        "$l" "$(awk -v r="$l" 'BEGIN { print (r <= 1.3) ? "met" : "MISSED" }')"
else
    echo "timing: long run: no ratio reported: $(tail -2 "$T/l.err")"
fi
exit 0
