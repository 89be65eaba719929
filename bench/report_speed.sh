#!/bin/sh
# bench/report_speed.sh - how long `make report` takes on a database of RUNS runs
# (default 10 000), from scratch, against the target of 5 s (issue 15), on a machine
# without a GPU. The database: `gpulab plan` of every real config (all their
# configurations, GPU ones included), turned into runs of the store's own tables by
# bench/report_db.awk (an H100; sessions that repeat every configuration, so that most
# runs are older ones; a few wrong, failed and skipped runs; counters for most GPU
# runs), so that every study's tables and figures have rows. Then, each from an empty
# output folder: `make report` as a user types it (the timed result); the same with
# one job (make -j1, REPORT_JOBS=1: the serial reference); and a profiled run whose
# gpulab and gnuplot are wrappers that log each call's wall time, for the breakdown
# (SQL of the tables, of the figures' data and the rest; gnuplot; and, timed alone
# afterwards, the shell and awk that generate the sections and assemble report.md).
# Last, `make report` on the small H100 fixture (tests/data/h100_smoke.db) as the
# fixed-cost reference. Prints seconds (wall, and CPU when /usr/bin/time is there)
# and ratios; a shared machine's other work shows in the wall times only.
# Must not touch the results database or report/out (everything under a temporary
# folder). Environment: RUNS, GPUS (1, or 2 for an H200 as well), KEEP=1 keeps the
# folder and prints its name; SEEDS=1 BASE=B makes every repetition a copy of about B
# configurations with a seed of its own (all runs newest: the studies copied over seeds).
set -eu
G=./build/gpulab
RUNS=${RUNS:-10000}
GPUS=${GPUS:-1}
TARGET=5
MAKE=${MAKE:-make}
[ -x "$G" ] || { echo "bench/report_speed.sh: no $G: run make first" >&2; exit 2; }
T=$(mktemp -d /tmp/gpulab_report_speed.XXXXXX)
if [ "${KEEP:-0}" = 1 ]; then echo "report_speed: keeping $T"; else trap 'rm -rf "$T"' EXIT; fi

now() { date +%s%N; }
secs() { awk -v ns="$1" 'BEGIN { printf "%.2f", ns / 1e9 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# ---- the database --------------------------------------------------------------
t0=$(now)
$G plan configs/*.conf --db "$T/plan.db" > "$T/plan.txt" 2> "$T/plan.err" ||
    { cat "$T/plan.err" >&2; echo "bench/report_speed.sh: gpulab plan failed" >&2; exit 1; }
BUILTIN=$($G list | awk '/^parameters:/ { p = 1; next } p && NF { print $1 }' | tr '\n' ' ')
DB=$T/runs.db
$G query --write --db "$DB" "SELECT 1" > /dev/null
awk -v RUNS="$RUNS" -v GPUS="$GPUS" -v SEEDS="${SEEDS:-0}" -v BASE="${BASE:-0}" -v BUILTIN="$BUILTIN" -f bench/report_db.awk "$T/plan.txt" > "$T/runs.sql"
$G query --write --db "$DB" -f "$T/runs.sql" > /dev/null
# a write open makes the results_<study> views of the named parameters just stored
$G query --write --db "$DB" "SELECT 1" > /dev/null
t1=$(now)
n=$($G query --db "$DB" --tsv "SELECT count(*) FROM run" | tail -n 1)
nl=$($G query --db "$DB" --tsv "SELECT count(*) FROM results WHERE is_latest = 1" | tail -n 1)
echo "report_speed: $(nproc 2>/dev/null || echo ?) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)"
echo "report_speed: database of $n runs ($nl newest, $GPUS GPU(s)) made in $(secs $((t1 - t0))) s"
[ "$n" -eq "$RUNS" ] || { echo "bench/report_speed.sh: wanted $RUNS runs, made $n" >&2; exit 1; }

# ---- make report, as typed -------------------------------------------------------
# (CPU seconds, user + system, of make and everything it ran: /usr/bin/time, if there)
TIMER=
[ -x /usr/bin/time ] && TIMER="/usr/bin/time -f %U+%S -o"
run_report() {   # OUT [make args]: prints the wall time in ns; the log in OUT.log, CPU in OUT.cpu
    out=$1; shift
    rm -rf "$out"
    s=$(now)
    if [ -n "$TIMER" ]; then
        $TIMER "$out.cpu" $MAKE -s "$@" report DB="$DB" REPORT_OUT="$out" > "$out.log" 2>&1
    else
        $MAKE -s "$@" report DB="$DB" REPORT_OUT="$out" > "$out.log" 2>&1
    fi || { tail -n 20 "$out.log" >&2; echo "bench/report_speed.sh: make report failed" >&2; exit 1; }
    e=$(now)
    echo $((e - s))
}
cpu() {   # OUT: the CPU seconds of that make report, or ?
    if [ -f "$1.cpu" ]; then awk -F+ '{ printf "%.2f", $1 + $2 }' "$1.cpu"; else echo '?'; fi
}
w=$(run_report "$T/out")
# every study's section has its tables and figures: no "No data" line
if grep -q 'No data for\|No verified runs for this study\|was not built' "$T/out/report.md"; then
    grep 'No data for\|No verified runs for this study\|was not built' "$T/out/report.md" >&2
    # a copy of every k-th configuration (SEEDS=1 BASE=) may leave a figure without rows
    if [ "${SEEDS:-0}" = 1 ] && [ "${BASE:-0}" -gt 0 ]; then
        echo "report_speed: (SEEDS=1 BASE=$BASE: the parts above have no data at this subset)"
    else
        echo "bench/report_speed.sh: a section of the report has no data" >&2
        exit 1
    fi
fi
tabs=$(grep -c '^\*\*Table ' "$T/out/report.md")
figs=$(grep -c '^\*\*Figure ' "$T/out/report.md")
ws=$(run_report "$T/out_serial" -j1 REPORT_JOBS=1)
cmp -s "$T/out/tables/notes_summary.md" "$T/out_serial/tables/notes_summary.md" ||
    { echo "bench/report_speed.sh: the serial report differs" >&2; exit 1; }

# ---- the profiled run: every gpulab and gnuplot call timed --------------------------
cat > "$T/time.sh" <<EOF
#!/bin/sh
# logs "KIND NS" for one call of the program it wraps, then exits with its status
s=\$(date +%s%N)
"\$WRAP_PROG" "\$@"
rc=\$?
e=\$(date +%s%N)
case "\$WRAP_KIND \$*" in
    sql*--md* | sql*--latex*) k=table ;;
    sql*plots/*--csv*) k=figdata ;;
    sql*) k=other ;;
    *) k=\$WRAP_KIND ;;
esac
echo "\$k \$((e - s))" >> "$T/calls.log"
exit \$rc
EOF
printf '#!/bin/sh\nWRAP_PROG=%s WRAP_KIND=sql exec sh %s "$@"\n' "$(pwd)/$G" "$T/time.sh" > "$T/gpulab"
printf '#!/bin/sh\nWRAP_PROG=%s WRAP_KIND=gnuplot exec sh %s "$@"\n' "$(command -v gnuplot)" "$T/time.sh" > "$T/gnuplot"
chmod +x "$T/gpulab" "$T/gnuplot"
: > "$T/calls.log"
wp=$(run_report "$T/out_prof" -j1 REPORT_JOBS=1 REPORT_GPULAB="$T/gpulab" GNUPLOT="$T/gnuplot")
sum() { awk -v k="$1" '$1 == k { s += $2; n++ } END { printf "%d %.2f", n, s / 1e9 }' "$T/calls.log"; }
set -- $(sum table); ntab=$1 stab=$2
set -- $(sum figdata); nfd=$1 sfd=$2
set -- $(sum other); noth=$1 soth=$2
set -- $(sum gnuplot); ngp=$1 sgp=$2
# the sections' shell work, timed alone on the finished output: the generated sections'
# text (report/gen/generate.sh, its three queries included) and report.md's assembly
# (build.sh's write step: shell, awk and sed over the sections, the tables already made)
s=$(now)
DB="$T/out_prof/db/results.db" GPULAB=$G OUT="$T/out_prof" sh report/gen/generate.sh > /dev/null
e=$(now); sgen=$((e - s))
s=$(now)
DB="$T/out_prof/db/results.db" DB_NAME="$DB" GPULAB=$G OUT="$T/out_prof" sh report/build.sh write > /dev/null
e=$(now); swrite=$((e - s))

# ---- the reference: the small H100 fixture ------------------------------------------
wr=
if [ -f tests/data/h100_smoke.db ]; then
    DB0=$DB
    DB=tests/data/h100_smoke.db
    wr=$(run_report "$T/out_small")
    DB=$DB0
fi

echo "report_speed: make report on $n runs: $(secs "$w") s ($tabs tables, $figs figures," \
     "$(cpu "$T/out") CPU s); target $TARGET s: ratio $(ratio "$(secs "$w")" $TARGET)"
echo "report_speed: serial (make -j1, REPORT_JOBS=1): $(secs "$ws") s ($(cpu "$T/out_serial") CPU s);" \
     "parallel / serial = $(ratio "$w" "$ws")"
[ -z "$wr" ] || echo "report_speed: the 30-run H100 fixture: $(secs "$wr") s;" \
     "10 000-run / fixture = $(ratio "$w" "$wr")"
echo "report_speed: breakdown, each call timed in a serial run ($(secs "$wp") s; the generated"
echo "  figures draw beside the table queries, so the parts add up to more):"
echo "  SQL tables (Markdown + LaTeX)  $stab s  ($ntab gpulab query calls)"
echo "  SQL figure data (CSV)          $sfd s  ($nfd calls)"
echo "  SQL other (fingerprint, lists) $soth s  ($noth calls)"
echo "  gnuplot figures (SVG + PNG)    $sgp s  ($ngp runs)"
echo "  section generation             $(secs "$sgen") s  (report/gen/generate.sh alone)"
echo "  report.md assembly             $(secs "$swrite") s  (build.sh write step alone)"
