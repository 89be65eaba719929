#!/bin/sh
# tests/integration/compare.sh - `gpulab compare A B` on two fixture databases
# built here from CPU runs whose samples are then set to known values: a point
# 10 % slower, one the same, one 15 % faster, one with too few samples, one
# point only in A and one only in B, two SM clocks apart (profiled-replay clock
# metrics) and DRAM counters that double. Checks the verdicts, the exit codes
# (0, 1 slower, 2 bad input with the side and the cause named and nothing
# written), --md and --csv, --save and --load giving the same table, the
# clock-normalised verdicts, sides selected within one database (sessions,
# variants, parameters, where), an older schema read as it is, and that no
# database it reads changes. The statistics (ratio, interval, verdict, noise
# floor, geometric mean and its interval) are computed again from the raw
# samples by tests/integration/compare_stats.awk and must agree to 1e-9.
# Runs in a few seconds. Must not need a GPU or touch anything outside its folder.
G=$(pwd)/build/gpulab
AWKCHK=$(pwd)/tests/integration/compare_stats.awk
T=$(mktemp -d)
trap '[ -n "$KEEP" ] || rm -rf "$T"' EXIT
export GPULAB_LOCK_DIR="$T/locks" GPULAB_CACHE="$T/cache"
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL compare: $2"; fi; }

cat >"$T/c.conf" <<'CONF'
study = cmpfix
warmup = 1
samples_min = 21
samples_max = 21
noise = 0
time_cap = 5s

[vec]
family = vecadd
variants = seq, omp
N = 1024, 4096, 16384
threads = 1
CONF
"$G" run "$T/c.conf" --db "$T/base.db" >"$T/run.log" 2>&1
chk '[ "$(sqlite3 "$T/base.db" "select count(*) from run where status = '"'ok'"'")" -eq 6 ]' \
    "the fixture sweep did not store 6 ok runs: $(tail -n 3 "$T/run.log")"
# known samples: run i at i/10 ms, a +-1 % pattern over its 21 samples
sqlite3 "$T/base.db" "UPDATE sample SET ms = run_id * 0.1 * (1 + 0.01 * (((idx * 7) % 11) - 5) / 5.0)"
# the samples are the fixture's, not the host's: a busy test machine's marks go
# (compare leaves contaminated runs out; tests/integration/integrity.sh checks that)
sqlite3 "$T/base.db" "UPDATE run SET contaminated = NULL"
cp "$T/base.db" "$T/a.db"
cp "$T/base.db" "$T/b.db"
# run ids: 1..3 seq N = 1024, 4096, 16384; 4..6 omp N = 1024, 4096, 16384
sqlite3 "$T/b.db" "PRAGMA foreign_keys = ON;
    UPDATE sample SET ms = ms * 1.10 WHERE run_id = 1;
    UPDATE sample SET ms = ms * 0.85 WHERE run_id = 3;
    DELETE FROM sample WHERE run_id = 4 AND idx >= 3;
    DELETE FROM run WHERE id = 6;
    INSERT INTO metric VALUES (2, 'sm__cycles_elapsed.avg.per_second', 1755e6, 'Hz');
    INSERT INTO metric VALUES (1, 'dram__bytes_read.sum', 2000, 'byte'),
                              (1, 'dram__bytes_write.sum', 2000, 'byte');"
sqlite3 "$T/a.db" "PRAGMA foreign_keys = ON;
    DELETE FROM run WHERE id = 5;
    INSERT INTO metric VALUES (2, 'sm__cycles_elapsed.avg.per_second', 1980e6, 'Hz');
    INSERT INTO metric VALUES (1, 'dram__bytes_read.sum', 1000, 'byte'),
                              (1, 'dram__bytes_write.sum', 1000, 'byte');"
sum_a=$(cksum <"$T/a.db"); sum_b=$(cksum <"$T/b.db")

# ---- the two databases, a given threshold of 3 % ----------------------------------
"$G" compare --db "$T/a.db" --db "$T/b.db" --threshold 3% --resamples 400 --csv \
    >"$T/t3.csv" 2>"$T/t3.err"
rc=$?
chk '[ $rc -eq 1 ]' "a 10 % slower point: exit $rc, not 1 ($(cat "$T/t3.err"))"
col() {   # col FILE NAME: the column's number in FILE's CSV header
    head -n 1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1
}
field() {   # field FILE KEY-PATTERN NAME
    awk -F, -v c="$(col "$1" "$3")" -v kc="$(col "$1" key)" -v k="$2" \
        'NR > 1 && $kc ~ k { print $c }' "$1"
}
chk '[ "$(field "$T/t3.csv" "variant=seq .*n=1024 " verdict)" = slower ]' "seq N=1024 (x1.10) is not slower"
chk '[ "$(field "$T/t3.csv" "variant=seq .*n=4096 " verdict)" = same ]' "seq N=4096 (x1) is not same"
chk '[ "$(field "$T/t3.csv" "variant=seq .*n=16384 " verdict)" = faster ]' "seq N=16384 (x0.85) is not faster"
chk '[ "$(field "$T/t3.csv" "variant=omp .*n=1024 " verdict)" = unsure ] &&
     [ "$(field "$T/t3.csv" "variant=omp .*n=1024 " note)" = "fewer than 4 samples" ]' \
    "omp N=1024 with 3 samples in B is not unsure for its few samples"
chk '[ "$(($(wc -l <"$T/t3.csv") - 1))" -eq 4 ]' "not 4 matched points: $(cat "$T/t3.csv")"
chk 'grep -q "^points: 4 compared, 1 only in A, 1 only in B" "$T/t3.err"' "the summary does not count the unmatched points"
chk 'grep -q "only in A:.*variant=omp.*n=16384" "$T/t3.err" && grep -q "only in B:.*variant=omp.*n=4096" "$T/t3.err"' \
    "the points only in A or only in B are not named"
chk 'grep -q "^verdicts: 1 slower, 1 faster, 1 same, 1 unsure" "$T/t3.err"' "verdict counts: $(grep verdicts "$T/t3.err")"
chk '[ "$(field "$T/t3.csv" "variant=seq .*n=1024 " ratio)" = 1.1000000000000001 ] ||
     [ "$(field "$T/t3.csv" "variant=seq .*n=1024 " ratio)" = 1.1 ]' "seq N=1024's ratio is not 1.1"
chk '[ "$(field "$T/t3.csv" "variant=seq .*n=1024 " dram_bytes_b)" = 4000 ] &&
     [ "$(field "$T/t3.csv" "variant=seq .*n=1024 " why)" = "DRAM bytes +100.0 %" ]' \
    "the DRAM counter change of seq N=1024 is not shown"
chk '[ "$(field "$T/t3.csv" "variant=seq .*n=4096 " clock_b_mhz)" = 1755 ] &&
     [ "$(field "$T/t3.csv" "variant=seq .*n=4096 " ratio_clk)" = "$(awk "BEGIN { printf \"%.6f\", 1755 / 1980 }" | sed 's/0*$//')" ] ||
     awk -v r="$(field "$T/t3.csv" "variant=seq .*n=4096 " ratio_clk)" "BEGIN { exit !(r > 0.88636 && r < 0.88637) }"' \
    "the ratio of cycles of seq N=4096 (1755 vs 1980 MHz) is not 0.8864"
chk 'grep -q "1 point(s) ran at SM clocks more than 1 % apart" "$T/t3.err"' "no note on the clocks that differ"
chk '[ -n "$(col "$T/t3.csv" energy_j_a)" ] && [ -z "$(field "$T/t3.csv" "n=1024 " energy_j_a | tr -d "\n")" ]' \
    "no energy_j column, or one that is not empty where nothing recorded it"
# --clock-normalise: the same point, 11 % fewer cycles, is faster
"$G" compare --db "$T/a.db" --db "$T/b.db" --threshold 3% --resamples 400 --csv --clock-normalise \
    >"$T/clk.csv" 2>/dev/null
chk '[ "$(field "$T/clk.csv" "variant=seq .*n=4096 " verdict)" = faster ]' "--clock-normalise: seq N=4096 is not faster per clock"

# ---- the statistics again, in awk, from the raw samples ------------------------------
samples() {   # samples DB RUN: its samples in the order taken, space-separated
    "$G" query --db "$1" --csv "select ms from sample where run_id = $2 order by idx" | tail -n +2 | tr '\n' ' '
}
# the default threshold: the noise floor
"$G" compare --db "$T/a.db" --db "$T/b.db" --resamples 400 --seed 7 --csv >"$T/nf.csv" 2>"$T/nf.err"
for f in t3 nf; do
    csv=$T/$f.csv
    kc=$(col "$csv" key); rac=$(col "$csv" run_a); rbc=$(col "$csv" run_b)
    awk -F, -v kc="$kc" -v a="$rac" -v b="$rbc" 'NR > 1 { print $kc "\t" $a "\t" $b }' "$csv" >"$T/$f.pts"
    : >"$T/$f.in"
    while IFS="$(printf '\t')" read -r key ra rb; do
        printf '%s\t%s\t%s\n' "$key" "$(samples "$T/a.db" "$ra")" "$(samples "$T/b.db" "$rb")" >>"$T/$f.in"
    done <"$T/$f.pts"
done
awk -v R=400 -v SEED=1 -v T=0.03 -f "$AWKCHK" "$T/t3.in" >"$T/t3.awk"
awk -v R=400 -v SEED=7 -v T=-1 -f "$AWKCHK" "$T/nf.in" >"$T/nf.awk"
# agree FILE.csv FILE.awk: every point's ratio, lo, hi to 1e-9 and the same verdict
agree() {
    awk -v F="$2" '
        BEGIN { FS = ","; while ((getline l < F) > 0) { split(l, f, "\t"); if (f[1] == "noise_floor" || f[1] == "geomean") continue
                    n++; R[f[1]] = f[2]; L[f[1]] = f[3]; H[f[1]] = f[4]; V[f[1]] = f[5] } }
        function rel(x, y) { d = x - y; if (d < 0) d = -d; return d / y }
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { k = $c["key"]; seen++
          if (!(k in R)) { print "no awk result for " k; bad++; next }
          if (rel($c["ratio"], R[k]) > 1e-9 || rel($c["lo"], L[k]) > 1e-9 || rel($c["hi"], H[k]) > 1e-9) {
              print k ": gpulab " $c["ratio"] " [" $c["lo"] ", " $c["hi"] "], awk " R[k] " [" L[k] ", " H[k] "]"; bad++ }
          if ($c["verdict"] != V[k]) { print k ": verdict " $c["verdict"] ", awk " V[k]; bad++ } }
        END { if (seen != n) { print seen " points in the CSV, " n " in awk"; bad++ } exit bad > 0 }' "$1"
}
agree "$T/t3.csv" "$T/t3.awk" >"$T/agree3" 2>&1
rc3=$?
agree "$T/nf.csv" "$T/nf.awk" >"$T/agreenf" 2>&1
rcnf=$?
chk '[ $rc3 -eq 0 ]' "ratios, intervals or verdicts differ from awk's: $(cat "$T/agree3")"
chk '[ $rcnf -eq 0 ]' "with the noise floor: they differ from awk's: $(cat "$T/agreenf")"
nf_awk=$(awk -F'\t' '$1 == "noise_floor" { print $2 }' "$T/nf.awk")
nf_c=$(field "$T/nf.csv" "n=1024 " threshold | head -n 1)
chk 'awk -v x="$nf_c" -v y="$nf_awk" "BEGIN { d = x - y; if (d < 0) d = -d; exit !(y > 0 && d / y < 1e-9) }"' \
    "the noise floor is $nf_c, awk computes $nf_awk"
chk 'grep -q "^threshold: .*noise floor: 95th percentile of 7 runs" "$T/nf.err"' \
    "the default threshold does not say it is the noise floor of 7 runs: $(grep threshold "$T/nf.err")"
# the geometric mean and its interval, printed to 4 places
geo=$(awk -F'\t' '$1 == "geomean" { printf "%.4f (95 %% CI %.4f - %.4f", $2, $3, $4 }' "$T/t3.awk")
chk 'grep -qF "geometric mean of B/A: $geo;" "$T/t3.err"' \
    "the geometric mean is not awk's $geo: $(grep geometric "$T/t3.err")"

# ---- Markdown, the table, save and load ---------------------------------------------
"$G" compare --db "$T/a.db" --db "$T/b.db" --threshold 3% --resamples 400 --md >"$T/t3.md" 2>"$T/md.err"
rc=$?
chk '[ $rc -eq 1 ] && grep -q "^| point *| A ms *| B ms *| B/A *| 95 % CI *| B/A per clock *| verdict *| counters B vs A *|" "$T/t3.md"' \
    "the Markdown table has not the expected header (exit $rc): $(head -n 12 "$T/t3.md")"
chk 'grep -q "^| variant=seq n=1024 .*| \*\*slower\*\* *| DRAM bytes +100.0 % *|" "$T/t3.md"' "the Markdown row of the slower point is wrong"
chk 'grep -q "^- verdicts: 1 slower, 1 faster, 1 same, 1 unsure" "$T/t3.md"' "the Markdown summary has no verdict counts"
chk '[ "$(grep -c "^| " "$T/t3.md")" -eq 6 ]' "the Markdown table has not 4 rows"
# the slowest point first
chk '[ "$(grep "^| variant" "$T/t3.md" | head -n 1 | cut -d"|" -f2 | tr -d " ")" = "variant=seqn=1024" ]' \
    "the rows are not in the order of B/A, largest first"
"$G" compare --db "$T/a.db" --db "$T/b.db" --threshold 3% --resamples 400 --csv --save "$T/cmp.db" >"$T/s.csv" 2>/dev/null
rc=$?
chk '[ $rc -eq 1 ] && [ -s "$T/cmp.db" ] && cmp -s "$T/s.csv" "$T/t3.csv"' "--save changed the output or its exit ($rc)"
"$G" compare --load "$T/cmp.db" --csv >"$T/l.csv" 2>"$T/l.err"
rc=$?
chk '[ $rc -eq 1 ] && cmp -s "$T/l.csv" "$T/t3.csv"' "--load did not give back the same CSV and exit 1 ($rc)"
chk 'grep -q "^verdicts: 1 slower, 1 faster, 1 same, 1 unsure" "$T/l.err" && grep -q "only in B:.*n=4096" "$T/l.err"' \
    "--load lost the summary or the unmatched points"
"$G" compare --load "$T/cmp.db" --md >"$T/l.md" 2>/dev/null
chk '[ "$(grep "^|" "$T/l.md")" = "$(grep "^|" "$T/t3.md")" ]' \
    "--load --md does not print the same table"
chk '[ "$(sqlite3 "$T/cmp.db" "select value from meta where key = '"'application'"'")" = gpulab-compare ] &&
     [ "$(sqlite3 "$T/cmp.db" "select count(*) from point")" -eq 4 ] &&
     [ "$(sqlite3 "$T/cmp.db" "select count(*) from unmatched")" -eq 2 ]' "the saved comparison's tables are not as documented"
"$G" compare --db "$T/a.db" --db "$T/b.db" --resamples 400 >"$T/t.txt" 2>&1
chk 'grep -q "^point  *A ms  *B ms  *B/A  *95 % CI" "$T/t.txt" && grep -q "^geometric mean of B/A: " "$T/t.txt"' \
    "the default (text) output has no table or no summary"

# ---- the report's section and figure from the saved comparison ------------------------
make -s report DB="$T/a.db" COMPARE="$T/cmp.db" REPORT_OUT="$T/rep" >"$T/rep.log" 2>&1
rc=$?
chk '[ $rc -eq 0 ] && grep -q "^## Comparison" "$T/rep/report.md" &&
     grep -q "^| variant=seq n=1024 .*\*\*slower\*\*" "$T/rep/report.md" &&
     grep -q "^- verdicts: 1 slower, 1 faster, 1 same, 1 unsure" "$T/rep/report.md"' \
    "make report COMPARE=FILE has no Comparison section with its table (exit $rc): $(tail -n 5 "$T/rep.log")"
chk '[ -s "$T/rep/figures/compare_ratio.svg" ] && [ -s "$T/rep/figures/compare_ratio.png" ] &&
     grep -q "figures/compare_ratio.svg" "$T/rep/report.md" && [ "$(wc -l <"$T/rep/data/compare_ratio.csv")" -eq 5 ]' \
    "the comparison's figure or its 4 rows of data are missing"
make -s report DB="$T/a.db" REPORT_OUT="$T/rep" >"$T/rep2.log" 2>&1
chk '[ $? -eq 0 ] && ! grep -q "^## Comparison" "$T/rep/report.md" && [ "$(wc -l <"$T/rep/data/compare_ratio.csv")" -eq 1 ]' \
    "without COMPARE the report still has a Comparison section or the figure data"

# ---- exit 0: nothing slower ----------------------------------------------------------
"$G" compare --db "$T/a.db" --db "$T/b.db" "n=4096" "n=4096" --threshold 3% --resamples 400 >"$T/z.txt" 2>&1
rc=$?
chk '[ $rc -eq 0 ] && grep -q "^verdicts: 0 slower, 0 faster, 1 same, 0 unsure" "$T/z.txt"' "one same point: exit $rc, not 0"
# swapping the sides swaps faster and slower
"$G" compare --db "$T/b.db" --db "$T/a.db" --threshold 3% --resamples 400 --csv >"$T/sw.csv" 2>/dev/null
chk '[ "$(field "$T/sw.csv" "variant=seq .*n=1024 " verdict)" = faster ] && [ "$(field "$T/sw.csv" "variant=seq .*n=16384 " verdict)" = slower ]' \
    "swapped sides: seq N=1024 is not faster or N=16384 not slower"

# ---- sides within one database --------------------------------------------------------
"$G" run "$T/c.conf" --db "$T/two.db" --force >/dev/null 2>&1
"$G" run "$T/c.conf" --db "$T/two.db" --force >/dev/null 2>&1
sqlite3 "$T/two.db" "UPDATE run SET contaminated = NULL"   # a busy host marks them (as base.db above)
"$G" compare session=1 session=latest --db "$T/two.db" --resamples 200 --csv >"$T/ss.csv" 2>"$T/ss.err"
rc=$?
chk '[ $rc -le 1 ] && [ "$(($(wc -l <"$T/ss.csv") - 1))" -eq 6 ]' "session=1 against session=latest: exit $rc, not 6 points ($(cat "$T/ss.err"))"
"$G" compare "variant=seq" "variant=omp,threads=1" --db "$T/two.db" --resamples 200 --csv >"$T/vv.csv" 2>"$T/vv.err"
rc=$?
chk '[ $rc -le 1 ] && [ "$(($(wc -l <"$T/vv.csv") - 1))" -eq 3 ]' "seq against omp: exit $rc, not the 3 sizes ($(cat "$T/vv.err"))"
chk 'grep -q "older runs of points it selects more than once were left out" "$T/vv.err"' \
    "the older runs of a point selected twice are not said"
"$G" compare "where=variant = 'seq' and n >= 4096" "where=variant = 'seq' and n >= 4096" --db "$T/two.db" \
    --resamples 200 --csv >"$T/w.csv" 2>/dev/null
chk '[ $? -eq 0 ] && [ "$(($(wc -l <"$T/w.csv") - 1))" -eq 2 ] && [ "$(field "$T/w.csv" "n=4096 " ratio)" = 1 ]' \
    "where= on both sides: not 2 points of ratio 1"

# ---- bad input: exit 2, the side and the cause named, nothing written ------------------
bad() {   # bad WHAT PATTERN ARGS...: exit 2, PATTERN on stderr, no --save file
    what=$1 pat=$2
    shift 2
    rm -f "$T/no.db"
    "$G" compare "$@" --save "$T/no.db" >"$T/bad.out" 2>"$T/bad.err"
    rc=$?
    chk '[ $rc -eq 2 ] && grep -q -- "$pat" "$T/bad.err" && [ ! -e "$T/no.db" ] && [ ! -s "$T/bad.out" ]' \
        "$what: exit $rc, or no '$pat' in: $(cat "$T/bad.err")"
}
bad "a selection of nothing" "side A (session=99) selects no ok runs" session=99 all --db "$T/a.db"
bad "a side with an unknown term" "side B (varaint=seq): unknown term 'varaint' (did you mean 'variant'?)" \
    all varaint=seq --db "$T/a.db"
bad "no point in common" "variant differs: A has seq; B has omp" "where=variant='seq'" "where=variant='omp'" --db "$T/a.db"
chk 'grep -q "no point in common" "$T/bad.err"' "no point in common is not said"
bad "a malformed where" "side A (where=n >>> 3):" "where=n >>> 3" all --db "$T/a.db"
bad "a where of two statements" "side B" all "where=1; DELETE FROM run" --db "$T/a.db"
bad "a threshold that is no number" "--threshold wants" all all --db "$T/a.db" --threshold abc
bad "a threshold of 150 %" "--threshold wants" all all --db "$T/a.db" --threshold 150%
bad "a negative threshold" "--threshold wants" all all --db "$T/a.db" --threshold -0.01
bad "a missing database" "side B: no database" all all --db "$T/a.db" --db "$T/missing.db"
cp "$T/b.db" "$T/newer.db"
sqlite3 "$T/newer.db" "PRAGMA user_version = 99"
bad "a database of a newer schema" "side B: .*newer than this gpulab knows" all all --db "$T/a.db" --db "$T/newer.db"
bad "three --db" "--db at most twice" all all --db "$T/a.db" --db "$T/a.db" --db "$T/a.db"
"$G" compare all all --db "$T/a.db" --db "$T/b.db" --save "$T/a.db" >/dev/null 2>"$T/self.err"
rc=$?
chk '[ $rc -eq 2 ] && grep -q "a comparison never writes to them" "$T/self.err"' "--save onto a database it reads: exit $rc"
cp "$T/base.db" "$T/other.db"
sum_o=$(cksum <"$T/other.db")
"$G" compare all all --db "$T/a.db" --db "$T/b.db" --save "$T/other.db" >/dev/null 2>"$T/other.err"
rc=$?
chk '[ $rc -eq 2 ] && [ "$(cksum <"$T/other.db")" = "$sum_o" ]' "--save onto a results database: exit $rc, or it changed"
chk '[ "$(cksum <"$T/a.db")" = "$sum_a" ] && [ "$(cksum <"$T/b.db")" = "$sum_b" ]' "a compared database changed"

# ---- an older schema (the H100 fixture of version 2), read as it is -------------------
cp tests/data/h100_smoke_v2.db "$T/v2.db"
sum_v2=$(cksum <"$T/v2.db")
"$G" compare all all --db "$T/v2.db" --db tests/data/h100_smoke.db --resamples 200 --ignore study --csv \
    >"$T/v2.csv" 2>"$T/v2.err"
rc=$?
chk '[ $rc -le 1 ] && [ "$(wc -l <"$T/v2.csv")" -gt 5 ] && [ "$(cksum <"$T/v2.db")" = "$sum_v2" ]' \
    "the version-2 H100 fixture against today's: exit $rc ($(head -n 3 "$T/v2.err")), or the file changed"
# the H100 fixture against itself: every point the same, its counters unchanged
"$G" compare all all --db tests/data/h100_smoke.db --resamples 200 --csv >"$T/aa.csv" 2>"$T/aa.err"
rc=$?
chk '[ $rc -eq 0 ] && ! awk -F, -v c="$(col "$T/aa.csv" ratio)" "NR > 1 && \$c != 1 { exit 1 }" "$T/aa.csv" | grep -q . &&
     ! grep -q "slower\|faster" "$T/aa.csv" && grep -q "counters unchanged" "$T/aa.csv"' \
    "the H100 fixture against itself is not all ratio 1 with counters unchanged (exit $rc)"

echo "compare: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
