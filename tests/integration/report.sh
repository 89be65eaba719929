#!/bin/sh
# tests/integration/report.sh - `make report` end to end: builds the report from a
# database into a temporary folder and checks that every figure exists as a
# non-empty SVG and PNG, that report.md has every section heading, that every table
# (Markdown and LaTeX) has the number of rows an independent count of the database
# says it should, that a second `make report` redraws nothing, that a change in the
# database redraws the figures, that DB= naming another database redoes the report,
# and that the database reported on is never written. Then that studies are data:
# every figure and table file is shown by some section, and a throw-away study added
# to a temporary copy of the tree as new files only (its config, section text, table
# SQL, figure script and SQL) gets its section, in its place, with its table and
# figure, from `make report` without an edit to any shared file; a section that
# names another study's table stops the build. Then generated sections: a study
# without a section file (a database with CPU rows of a real sweep plus GPU runs of a
# user's kernel with named parameters written through the store's tables) gets one,
# with its table (named parameter columns, bold best per group, counters), a figure
# per swept parameter and its points on the roofline; no warning for the configs
# (transpose, reduction) whose sections are generated. Then the hierarchical roofline
# and the clocks: GPU runs with per-level counters put on the roofline at each level
# (zero-copy ones at the host link instead of DRAM), the ceilings table with a GPU
# whose ceilings were not measured, a study's clock line and the sessions' clocks.
# Databases: the committed H100 fixture tests/data/h100_smoke.db when present (a
# copy, as the report's own), otherwise the smoke sweep run
# here (CPU rows only on a machine without a GPU: the no-GPU path); then tiny
# CPU-only sweeps of every study, so that the S1..S5 tables meet real rows.
# Must not write into the repository (everything goes under a temporary folder) and
# must not need sqlite3 (only ./build/gpulab query).
# The study file convention itself is in docs/report.md.
G=./build/gpulab
MAKE=${MAKE:-make}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()   { pass=$((pass + 1)); }
bad()  { fail=$((fail + 1)); echo "FAIL report: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }

# q DB SQL: the single value of a query
q() { $G query --db "$1" --tsv "$2" | tail -n +2; }

# rows_md FILE: data rows of a Markdown table printed by gpulab (header + rule
# first); 0 when the file does not exist (a section without data renders nothing)
rows_md() {
    if [ -f "$1" ]; then
        n=$(grep -c '^|' "$1"); echo $((n > 2 ? n - 2 : 0))
    else
        echo 0
    fi
}
# rows_tex FILE: data rows of a LaTeX tabular (lines ending in \\, minus the header)
rows_tex() {
    if [ -f "$1" ]; then
        n=$(grep -c '\\\\$' "$1"); echo $((n > 1 ? n - 1 : 0))
    else
        echo 0
    fi
}

# expect DB OUT TABLE COUNT-SQL: TABLE.md and TABLE.tex hold as many rows as COUNT-SQL says
expect() {
    want=$(q "$1" "$4")
    got=$(rows_md "$2/tables/$3.md")
    check '[ "$got" = "$want" ]' "$3.md has $got rows, the database says $want"
    if [ -f "$2/tables/$3.md" ]; then
        got=$(rows_tex "$2/tables/$3.tex")
        check '[ "$got" = "$want" ]' "$3.tex has $got rows, the database says $want"
    fi
}

# Independent counts: what each table of report/tables/ must hold, written from the
# definitions (one row per newest verified run, per group, ...), not copied from them.
L="is_latest = 1"
OK="is_latest = 1 AND status = 'ok'"
PROFILED_N="coalesce((SELECT 2048 FROM results WHERE study = 'matmul' AND device_kind = 'gpu'
                      AND n = 2048 AND $OK LIMIT 1),
                     (SELECT max(n) FROM results WHERE study = 'matmul' AND device_kind = 'gpu'
                      AND passes IS NOT NULL AND $OK), 2048)"
MAIN_BS="(SELECT bs FROM results WHERE study = 'geometry' AND device_kind = 'gpu' AND $OK
          GROUP BY bs ORDER BY count(*) DESC, bs DESC LIMIT 1)"

check_tables() {
    db=$1 out=$2
    # devices
    for id in $(q "$db" "SELECT DISTINCT device_id FROM results WHERE device_kind = 'gpu' AND $L"); do
        got=$(rows_md "$out/tables/device_gpu_$id.md")
        check '[ "$got" -eq 24 ]' "device_gpu_$id.md has $got rows, not the 24 properties"
    done
    want=$(q "$db" "SELECT count(DISTINCT device_id) FROM results WHERE device_kind = 'gpu' AND $L")
    got=$(ls "$out"/tables/device_gpu_*.md 2>/dev/null | wc -l)
    check '[ "$got" -eq "$want" ]' "$got GPU description tables for $want GPUs with runs"
    expect "$db" "$out" devices_cpu \
        "SELECT count(DISTINCT device_id) FROM results WHERE device_kind = 'cpu' AND $L"
    expect "$db" "$out" sessions "SELECT count(DISTINCT session_id) FROM results WHERE $L"
    # S1
    expect "$db" "$out" matmul_times "SELECT count(*) FROM results WHERE study = 'matmul' AND $OK
        AND (device_kind = 'cpu' OR (mem = 'device' AND variant IN ('global', 'shared') AND k = 1))"
    expect "$db" "$out" matmul_memory "SELECT count(*) FROM (SELECT DISTINCT device_id, n, variant, bs
        FROM results WHERE study = 'matmul' AND device_kind = 'gpu' AND $OK
        AND variant IN ('global', 'shared') AND k = 1)"
    for t in matmul_profile matmul_profile_memory matmul_occupancy; do
        expect "$db" "$out" $t "SELECT count(*) FROM results WHERE study = 'matmul'
            AND device_kind = 'gpu' AND variant IN ('global', 'shared') AND $OK AND n = $PROFILED_N"
    done
    # S2: one table per (N, R), one row per verified run
    pairs=$(q "$db" "SELECT DISTINCT n || '_' || r FROM results WHERE study = 'stencil' AND $OK")
    got=$(ls "$out"/tables/stencil_n*_r*.md 2>/dev/null | wc -l)
    want=$(echo "$pairs" | grep -c . || true)
    check '[ "$got" -eq "$want" ]' "$got S2 tables for $want (N, R) pairs"
    for pr in $pairs; do
        n=${pr%_*} r=${pr#*_}
        expect "$db" "$out" "stencil_n${n}_r${r}" \
            "SELECT count(*) FROM results WHERE study = 'stencil' AND n = $n AND r = $r AND $OK"
    done
    # S3
    for v in global shared; do
        expect "$db" "$out" geometry_time_$v "SELECT count(DISTINCT device_id || '/' || n) FROM results
            WHERE study = 'geometry' AND device_kind = 'gpu' AND variant = '$v' AND k IN (1, 2)
            AND bs = $MAIN_BS AND $OK"
    done
    expect "$db" "$out" geometry_blocksizes "SELECT count(DISTINCT device_id || '/' || variant || '/' || n)
        FROM results WHERE study = 'geometry' AND device_kind = 'gpu' AND grid = 'block' AND k = 2
        AND $OK AND n IN (SELECT n FROM results WHERE study = 'geometry' AND device_kind = 'gpu'
                          AND grid = 'block' AND k = 2 AND $OK AND bs <> $MAIN_BS)"
    expect "$db" "$out" geometry_cpu \
        "SELECT count(*) FROM results WHERE study = 'geometry' AND device_kind = 'cpu' AND $OK"
    # S4
    expect "$db" "$out" vecadd_bandwidth "SELECT count(DISTINCT device_id || '/' || variant || '/' || n)
        FROM results WHERE study = 'vecadd' AND $OK"
    expect "$db" "$out" vecadd_blocksize "SELECT count(*) FROM results r WHERE study = 'vecadd'
        AND variant = 'global' AND device_kind = 'gpu' AND $OK AND (n = (SELECT min(n) FROM results
        WHERE study = 'vecadd' AND variant = 'global' AND device_kind = 'gpu' AND $OK)
        OR n = (SELECT max(n) FROM results WHERE study = 'vecadd' AND variant = 'global'
        AND device_kind = 'gpu' AND $OK))"
    expect "$db" "$out" vecadd_gridstride "SELECT count(*) FROM results WHERE study = 'vecadd'
        AND variant = 'gridstride' AND device_kind = 'gpu' AND $OK AND n = (SELECT max(n)
        FROM results WHERE study = 'vecadd' AND variant = 'gridstride' AND device_kind = 'gpu' AND $OK)"
    # S5, smoke, roofline
    expect "$db" "$out" tiled_rect "SELECT count(*) FROM results WHERE study = 'tiled' AND $OK"
    expect "$db" "$out" smoke "SELECT count(*) FROM results WHERE study = 'smoke' AND $L"
    expect "$db" "$out" roofline_ceilings \
        "SELECT count(DISTINCT device_id) FROM results WHERE device_kind = 'gpu' AND $OK"
    # notes
    expect "$db" "$out" notes_summary "SELECT count(DISTINCT status) + 1 FROM results WHERE $L"
    expect "$db" "$out" notes_status "SELECT count(*) FROM (SELECT DISTINCT study, family,
        device_kind, variant, status, reason FROM results WHERE $L AND status <> 'ok')"
    expect "$db" "$out" notes_guide "SELECT (SELECT count(DISTINCT coalesce(study, '') || '/' || family || '/' || variant)
        FROM results WHERE device_kind = 'gpu' AND $OK AND guide_flags & 1)
        + (SELECT count(DISTINCT coalesce(study, '') || '/' || family || '/' || variant) FROM results
           WHERE device_kind = 'gpu' AND $OK AND guide_flags & 2)
        + (SELECT count(DISTINCT coalesce(study, '') || '/' || family || '/' || variant) FROM results
           WHERE device_kind = 'gpu' AND $OK AND guide_flags & 4)
        + (SELECT count(DISTINCT coalesce(study, '') || '/' || family || '/' || variant) FROM results
           WHERE device_kind = 'gpu' AND $OK AND guide_flags & 8)"
    expect "$db" "$out" notes_occupancy "SELECT count(*) FROM (SELECT DISTINCT study, family,
        variant, block_x, block_y, block_z, regs_per_thread, static_smem, dynamic_smem,
        blocks_per_sm, theo_occupancy_pct, limiter, limit_regs, limit_smem, limit_warps,
        limit_blocks FROM results WHERE device_kind = 'gpu' AND $OK AND theo_occupancy_pct < 50)"
    expect "$db" "$out" notes_metrics "SELECT count(*) FROM (SELECT DISTINCT study, metrics_reason
        FROM results WHERE device_kind = 'gpu' AND $OK AND passes IS NULL)"
    expect "$db" "$out" notes_smem "SELECT count(*) FROM (SELECT DISTINCT study, smem_excess_reason
        FROM results WHERE device_kind = 'gpu' AND $OK AND passes IS NOT NULL
        AND smem_excess_ld IS NULL AND smem_excess_st IS NULL)"
}

# check_report DB OUT: figures, headings, the no-data lines, then check_tables
check_report() {
    db=$1 out=$2
    check '[ -s "$out/report.md" ]' "no report.md in $out"
    nfig=0
    for gp in plots/*.gp; do
        f=$(basename "$gp" .gp)
        [ "$f" = style ] && continue
        nfig=$((nfig + 1))
        check '[ -s "$out/figures/$f.svg" ] && grep -q "<svg" "$out/figures/$f.svg"' "figure $f.svg missing, empty or not SVG"
        check '[ -s "$out/figures/$f.png" ] && [ "$(head -c 4 "$out/figures/$f.png" | tail -c 3)" = PNG ]' \
            "figure $f.png missing, empty or not PNG"
    done
    check '[ "$nfig" -ge 15 ]' "only $nfig figure scripts in plots/"
    for h in '# gpulab report' '## Devices' '### CPU of the baselines' '### Sessions' \
             '## S1 — ' '## S2 — ' '## S3 — ' '## S4 — ' '## S5 — ' '## Smoke sweep' \
             '## Roofline' '## Notes'; do
        check 'grep -q "^$h" "$out/report.md"' "report.md has no heading '$h'"
    done
    # every figure the report shows exists, as SVG and PNG
    for img in $(sed -n 's/^!\[.*\](\(figures\/[^)]*\.svg\))$/\1/p' "$out/report.md"); do
        check '[ -s "$out/$img" ] && [ -s "$out/${img%.svg}.png" ]' "report.md shows missing $img"
    done
    # a study without verified runs says so in one line instead of tables
    for s in matmul:S1 stencil:S2 geometry:S3 vecadd:S4 tiled:S5; do
        n=$(q "$db" "SELECT count(*) FROM results WHERE study = '${s%%:*}' AND $OK")
        sec=$(sed -n "/^## ${s#*:} — /,/^## /p" "$out/report.md")
        if [ "$n" -eq 0 ]; then
            check 'echo "$sec" | grep -q "^No data for this study\|^No verified runs for this study"' \
                "${s#*:} has no verified runs but no 'no data' line"
        else
            check '! echo "$sec" | grep -q "^No data for this study"' "${s#*:} has runs but says no data"
        fi
    done
    gpus=$(q "$db" "SELECT count(*) FROM results WHERE device_kind = 'gpu' AND $OK")
    if [ "$gpus" -eq 0 ]; then
        check 'grep -q "^No GPU runs in this database" "$out/report.md"' "no GPU runs but no line saying so"
        check 'grep -q "^No verified GPU runs: no roofline" "$out/report.md"' "no GPU runs but no roofline line"
    else
        check 'grep -q "(figures/roofline.svg)" "$out/report.md"' "GPU runs but no roofline figure"
    fi
    # bold marks became \textbf in LaTeX, and no Markdown bold is left there
    check '! grep -q "\*\*" "$out"/tables/*.tex' "Markdown bold left in a LaTeX table"
    check_tables "$db" "$out"
}

# ---- 1. the H100 fixture, or the smoke sweep run here ------------------------------
if [ -f tests/data/h100_smoke.db ]; then
    cp tests/data/h100_smoke.db "$T/a.db"
    echo "report: using the fixture tests/data/h100_smoke.db"
else
    echo "report: no tests/data/h100_smoke.db, running configs/smoke.conf here"
    $G run configs/smoke.conf --db "$T/a.db" >"$T/run_a.log" 2>&1
    rc=$?
    check '[ $rc -eq 0 ] || [ $rc -eq 1 ]' "smoke run exit code $rc (see below)"
    [ $rc -le 1 ] || cat "$T/run_a.log"
fi
sum_a=$(cksum < "$T/a.db")
$MAKE -s report DB="$T/a.db" REPORT_OUT="$T/out_a" >"$T/make_a.log" 2>&1
rc=$?
check '[ "$(cksum < "$T/a.db")" = "$sum_a" ]' "make report wrote to the database it reports on"
check '[ $rc -eq 0 ]' "make report on the smoke database exited $rc"
[ $rc -eq 0 ] || tail -n 30 "$T/make_a.log"
check_report "$T/a.db" "$T/out_a"

# nothing to redraw the second time; a changed database redraws the figures
ls -l --time-style=full-iso "$T/out_a/figures" > "$T/before"
sleep 1
$MAKE report DB="$T/a.db" REPORT_OUT="$T/out_a" >"$T/make_a2.log" 2>&1
ls -l --time-style=full-iso "$T/out_a/figures" > "$T/after"
check 'cmp -s "$T/before" "$T/after"' "a second make report redrew figures"
check '! grep -q gnuplot "$T/make_a2.log"' "a second make report ran gnuplot"
$G query --write --db "$T/a.db" "UPDATE run SET reason = coalesce(reason, '') || ' (test)'
                         WHERE id = (SELECT max(id) FROM run)" >/dev/null
$MAKE -s report DB="$T/a.db" REPORT_OUT="$T/out_a" >"$T/make_a3.log" 2>&1
ls -l --time-style=full-iso "$T/out_a/figures" > "$T/after2"
check '! cmp -s "$T/after" "$T/after2"' "a changed database did not redraw the figures"

# ---- 2. every study, CPU rows only, at tiny sizes ----------------------------------
mk_conf() {   # mk_conf STUDY BODY
    { printf 'study = %s\nwarmup = 1\nsamples_min = 3\nsamples_max = 10\ntime_cap = 0.1s\n' "$1"
      printf '%s\n' "$2"; } > "$T/$1.conf"
}
mk_conf matmul '[cpu]
family = matmul
variants = omp_ikj, omp_ijk
N = 64, 96'
mk_conf stencil '[cpu]
family = stencil
variants = seq, omp
N = 40, 60
R = 2, 4'
# (not N = 64: a run whose device, variant and parameters are already stored is not
# run again, whatever the study, so it would count for S1 only)
mk_conf geometry '[cpu]
family = matmul
variants = omp_ikj
N = 80'
mk_conf vecadd '[cpu]
family = vecadd
variants = omp
N = 1000, 4096'
mk_conf tiled '[rect]
family = matmul
variants = omp_rect
M = 30
N = 20
P = 25'
$G run "$T/matmul.conf" "$T/stencil.conf" "$T/geometry.conf" "$T/vecadd.conf" "$T/tiled.conf" \
    --db "$T/b.db" >"$T/run_b.log" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "tiny CPU sweeps exited $rc"
[ $rc -eq 0 ] || tail -n 20 "$T/run_b.log"
nok=$(q "$T/b.db" "SELECT count(*) FROM results WHERE device_kind = 'cpu' AND status = 'ok'")
check '[ "$nok" -eq 16 ]' "tiny CPU sweeps stored $nok verified runs, not 16"
$MAKE -s report DB="$T/b.db" REPORT_OUT="$T/out_b" >"$T/make_b.log" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "make report on the tiny sweeps exited $rc"
[ $rc -eq 0 ] || tail -n 30 "$T/make_b.log"
check_report "$T/b.db" "$T/out_b"
# DB= naming another database redoes everything from that one
$MAKE -s report DB="$T/b.db" REPORT_OUT="$T/out_a" >"$T/make_ab.log" 2>&1
rc=$?
check '[ $rc -eq 0 ] && grep -q "from \`$T/b.db\`" "$T/out_a/report.md"' "switching DB= did not rebuild the report"
check_report "$T/b.db" "$T/out_a"
# the parallel render (make report runs -j REPORT_JOBS, build.sh queries its tables side
# by side) writes the same files as a serial one, and as build.sh run alone (step all)
$MAKE -s -j1 report REPORT_JOBS=1 DB="$T/b.db" REPORT_OUT="$T/out_s" >"$T/make_s.log" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "the serial make report exited $rc"
same_out() {   # A B: the same tables, figures and data, and report.md but its date line
    for f in "$1"/tables/* "$1"/figures/* "$1"/data/*; do
        cmp -s "$f" "$2/${f#"$1"/}" || { echo "differs: ${f#"$1"/}"; return 1; }
    done
    [ "$(ls "$1"/tables "$1"/figures "$1"/data | wc -l)" = "$(ls "$2"/tables "$2"/figures "$2"/data | wc -l)" ] &&
        [ "$(grep -v '^Generated ' "$1/report.md")" = "$(grep -v '^Generated ' "$2/report.md")" ]
}
check 'same_out "$T/out_b" "$T/out_s"' "the parallel and the serial make report wrote different files"
rm -f "$T/out_s/report.md" "$T"/out_s/tables/*
DB="$T/out_s/db/results.db" DB_NAME="$T/b.db" GPULAB=$G OUT="$T/out_s" sh report/build.sh >"$T/build_s.log" 2>&1
rc=$?
check '[ $rc -eq 0 ] && same_out "$T/out_b" "$T/out_s"' "report/build.sh alone (exit $rc) wrote other files than make report"
# the CPU rows show up where they belong, with the numbers the database holds
check '[ "$(rows_md "$T/out_b/tables/matmul_times.md")" -eq 4 ]' "S1 table does not have the 4 CPU rows"
check '[ "$(ls "$T"/out_b/tables/stencil_n*_r*.md | wc -l)" -eq 4 ]' "not 4 S2 tables for N x R = 2 x 2"
med=$(q "$T/b.db" "SELECT printf('%.4g', median_ms) FROM results WHERE study = 'stencil'
                   AND variant = 'seq' AND n = 60 AND r = 4 AND is_latest = 1")
check 'grep -q "| CPU seq .*| \*\*$med ±\|| CPU seq .*| $med ±" "$T/out_b/tables/stencil_n60_r4.md"' \
    "S2 N=60 R=4 table does not show the sequential median $med"

# ---- 3. studies are data ------------------------------------------------------------
# every figure script and every table SQL is used: by a study's section or by build.sh
for gp in plots/*.gp; do
    f=$(basename "$gp" .gp)
    [ "$f" = style ] && continue
    check 'grep -q "^@figure $f |" report/studies/*.md || grep -q "figure $f " report/build.sh' \
        "plots/$f.gp is shown by no section"
done
for sql in report/tables/*.sql; do
    t=$(basename "$sql" .sql)
    check 'grep -q "^@\(table\|foreach\) $t\( \|$\)" report/studies/*.md ||
           grep -q "$t\.sql" report/build.sh report/report.mk' "report/tables/$t.sql is used by no section"
done

# a throw-away study in a copy of what `make report` reads; only new files, named for it
W="$T/tree"
mkdir -p "$W/report" "$W/tests" "$W/build"
cp -R Makefile plots configs "$W/"
for x in report/*; do [ "$x" = report/out ] || cp -R "$x" "$W/report/"; done
cp tests/deps.sh "$W/tests/"
cp "$G" "$W/build/gpulab"
# no `study =`: the study is the config's base name
cat > "$W/configs/probe.conf" <<'EOF'
# configs/probe.conf - a throw-away study of tests/integration/report.sh
warmup = 1
samples_min = 3
samples_max = 10
time_cap = 0.1s

[cpu]
family = vecadd
variants = omp
N = 1000, 2000, 3000
EOF
cat > "$W/report/studies/60_probe.md" <<'EOF'
<!-- report/studies/60_probe.md - the throw-away study's section -->
## S9 — Probe study

Text of the probe section,
on two lines.

@table probe_rows | Probe rows, one per verified run. | No probe rows.
@figure probe_time | Probe time against N.
EOF
cat > "$W/report/tables/probe_rows.sql" <<'EOF'
-- report/tables/probe_rows.sql - the throw-away study's table
SELECT variant AS "variant", n AS "N", printf('%.4g', median_ms) AS "time (ms)"
FROM results WHERE study = 'probe' AND is_latest = 1 AND status = 'ok' ORDER BY n;
EOF
cat > "$W/plots/probe_time.sql" <<'EOF'
-- plots/probe_time.sql - the throw-away study's figure data
SELECT 'all' AS panel, 'CPU ' || variant AS series, n AS x, median_ms AS y
FROM results WHERE study = 'probe' AND is_latest = 1 AND status = 'ok' ORDER BY series, x;
EOF
cat > "$W/plots/probe_time.gp" <<'EOF'
# plots/probe_time.gp - the throw-away study's figure
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('probe: no runs'); exit }
eval term(1, 1)
set output outfile
set xlabel 'N'
set ylabel 'time (ms)'
plot datafile using (column('x')):(column('y')) lt lt_of(1) title 'CPU omp'
unset output
EOF
$G run "$W/configs/probe.conf" --db "$T/c.db" >"$T/run_c.log" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "the probe study's sweep exited $rc"
# -o build/gpulab: the copy has the binary but not its sources
(cd "$W" && $MAKE -s -o build/gpulab report DB="$T/c.db" REPORT_OUT="$T/out_c") >"$T/make_c.log" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "make report with the probe study exited $rc"
[ $rc -eq 0 ] || tail -n 30 "$T/make_c.log"
R="$T/out_c/report.md"
check_report "$T/c.db" "$T/out_c"
line_of() { grep -n "^$1" "$R" | head -n 1 | cut -d: -f1; }
s5=$(line_of '## S5 — ') s9=$(line_of '## S9 — Probe study') smoke=$(line_of '## Smoke sweep')
check '[ -n "$s9" ] && [ "$s5" -lt "$s9" ] && [ "$s9" -lt "$smoke" ]' \
    "the probe's section (60_probe.md) is not between S5 and the smoke sweep"
check 'grep -q "^Text of the probe section,$" "$R" && grep -q "^on two lines.$" "$R"' \
    "the probe's text is not in the report"
check 'grep -q "^\*\*Table [0-9]*\.\*\* Probe rows, one per verified run\.$" "$R"' \
    "the probe's table caption is not in the report"
check '[ "$(rows_md "$T/out_c/tables/probe_rows.md")" -eq 3 ]' "the probe's table does not have its 3 rows"
check '[ "$(rows_tex "$T/out_c/tables/probe_rows.tex")" -eq 3 ]' "the probe's LaTeX table does not have its 3 rows"
check 'grep -q "^!\[Figure [0-9]*\. Probe time against N\.\](figures/probe_time.svg)$" "$R"' \
    "the probe's figure is not in the report"
check '[ -s "$T/out_c/figures/probe_time.png" ] && grep -q "<path" "$T/out_c/figures/probe_time.svg"' \
    "the probe's figure was not drawn"
check '! grep -q "warning" "$T/make_c.log"' "make report warned about the probe study"
# removing its files removes its section
mv "$W/report/studies/60_probe.md" "$T/60_probe.md"
(cd "$W" && $MAKE -s -o build/gpulab report DB="$T/c.db" REPORT_OUT="$T/out_c") >"$T/make_c2.log" 2>&1
rc=$?
check '[ $rc -eq 0 ] && ! grep -q "^## S9 — Probe" "$R" && grep -q "^## S[0-9]* — Study \`probe\`" "$R" &&
       grep -q "^Study \`probe\` has 3 newest runs .*: its section is generated" "$R"' \
    "removing the probe's section did not replace it by a generated one"
mv "$T/60_probe.md" "$W/report/studies/60_probe.md"
# without its runs, its no-data line names its config
(cd "$W" && $MAKE -s -o build/gpulab report DB="$T/a.db" REPORT_OUT="$T/out_d") >"$T/make_d.log" 2>&1
rc=$?
check '[ $rc -eq 0 ] && grep -q "^No data for this study .*CONFIG=configs/probe.conf" "$T/out_d/report.md"' \
    "without probe runs, the probe section does not name configs/probe.conf"
# in the tree as it is (no probe section), the notes name the probe's runs
$MAKE -s report DB="$T/c.db" REPORT_OUT="$T/out_f" >"$T/make_f.log" 2>&1
rc=$?
check '[ $rc -eq 0 ] && grep -q "^Study \`probe\` has 3 newest runs in the database and no section of its own" "$T/out_f/report.md"' \
    "runs of a study without a section are not named in the notes"
check 'grep -q "^## S[0-9]* — Study \`probe\`$" "$T/out_f/report.md" && [ "$(rows_md "$T/out_f/tables/probe_gen_runs.md")" -eq 3 ]' \
    "a study with runs but neither a section nor a config did not get a generated section of its 3 runs"
check '! grep -q "warning" "$T/make_f.log"' "make report warned about a study that gets a generated section"
# a section that names another study's table stops the build, whatever the data
printf '## S10 — Bad\n\n@table matmul_times | a | b\n' > "$W/report/studies/61_bad.md"
# (a fresh REPORT_OUT: a report.md written in the same clock tick would pass for new)
(cd "$W" && $MAKE -s -o build/gpulab report DB="$T/a.db" REPORT_OUT="$T/out_e") >"$T/make_e.log" 2>&1
rc=$?
check '[ $rc -ne 0 ] && grep -q "61_bad.md: .matmul_times. is not named bad_" "$T/make_e.log"' \
    "a section naming another study's table did not stop the build"

# ---- 4. generated sections: a study with named parameters, without a GPU ---------------
# Built-in parameters from a real CPU sweep (study ukern); then, in a copy of that
# database, GPU runs of a user's kernel with the named parameters TILE (swept) and
# BLOCK_ROWS written through the store's tables (device, run, run_param, metric:
# db/schema.sql, db/migrations/002.sql) as a kernel section would leave them: no
# FLOP count, so GB/s and the bandwidth roof; and a second study (umm) with FLOP
# counts, for the GFLOP/s roofline.
cat > "$T/ukern.conf" <<'EOF'
study = ukern
warmup = 1
samples_min = 3
samples_max = 10
time_cap = 0.1s

[cpu]
family = vecadd
variants = seq, omp
N = 1000, 2000
EOF
$G run "$T/ukern.conf" --db "$T/g0.db" >"$T/run_g.log" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "the ukern CPU sweep exited $rc"
cp "$T/g0.db" "$T/g.db"
cat > "$T/fake.sql" <<'EOF'
INSERT INTO device (id, kind, name, ident, cc_major, cc_minor, sm_count, cores_per_sm, clock_khz,
                    theo_bw_gbs, copy_bw_gbs, fp32_peak_gflops)
VALUES (100, 'gpu', 'Fake GPU', 'GPU-fake-0001', 9, 0, 132, 128, 1755000, 3350, 2600, 59000);
INSERT INTO run (session_id, device_id, study, section, family, variant, n, seed, uparams, code_hash,
                 status, samples, median_ms, mean_ms, stddev_ms, rel_se, flops, min_bytes,
                 launches, block_x, block_y, block_z, grid_x, grid_y, grid_z, passes)
WITH v(variant, ord, bw16, bw32) AS (VALUES ('tiled', 1, 1800.0, 1400.0), ('padded', 2, 2200.0, 2350.0),
                                          ('copy', 3, 2450.0, 2500.0)),
     s(n) AS (VALUES (1024), (2048), (4096)),
     t(tile) AS (VALUES (16), (32))
SELECT 1, 100, 'ukern', variant, 'ukern', variant, n, 42, 'BLOCK_ROWS=8 TILE=' || tile, 'hash', 'ok', 10,
       8.0 * n * n / ((CASE tile WHEN 16 THEN bw16 ELSE bw32 END) * (0.6 + n / 10240.0)) / 1e6,
       8.0 * n * n / ((CASE tile WHEN 16 THEN bw16 ELSE bw32 END) * (0.6 + n / 10240.0)) / 1e6,
       CASE WHEN n = 1024 AND tile = 32
            THEN 0.5 * 8.0 * n * n / ((CASE tile WHEN 16 THEN bw16 ELSE bw32 END) * (0.6 + n / 10240.0)) / 1e6
            ELSE 1e-7 * n * n / bw16 END, 0.001, NULL, 8.0 * n * n, 1, tile, 8, 1, n / tile, n / tile, 1, 2
FROM v, s, t ORDER BY n, tile, ord;
UPDATE run SET contaminated = 'host busy: 3.0 other runnable tasks on average (at most 4) beside its 1 busy CPU of 2 (9 samples)'
WHERE family = 'ukern' AND variant = 'copy' AND n = 2048 AND uparams LIKE '%TILE=16';
INSERT INTO run_param (run_id, name, value)
SELECT id, 'TILE', CAST(substr(uparams, instr(uparams, 'TILE=') + 5) AS INTEGER) FROM run WHERE family = 'ukern';
INSERT INTO run_param (run_id, name, value) SELECT id, 'BLOCK_ROWS', 8 FROM run WHERE family = 'ukern';
INSERT INTO metric (run_id, name, value, unit)
SELECT r.id, m.name, CASE m.name
    WHEN 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum' THEN
        CASE WHEN r.variant = 'tiled' THEN r.n * r.n / 32.0 * (CASE WHEN p.value = 32 THEN 31 ELSE 7 END)
             WHEN r.variant = 'padded' THEN r.n * r.n / 1000 ELSE 0 END
    WHEN 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum' THEN 0
    WHEN 'gpulab__smem_excess_wavefronts_ld.sum' THEN
        CASE WHEN r.variant = 'tiled' THEN r.n * r.n / 32.0 * (CASE WHEN p.value = 32 THEN 31 ELSE 7 END)
             WHEN r.variant = 'padded' AND p.value = 16 THEN r.n * r.n / 32.0 ELSE 0 END
    WHEN 'gpulab__smem_excess_wavefronts_st.sum' THEN
        CASE WHEN r.variant = 'padded' AND p.value = 16 THEN r.n * r.n / 32.0 ELSE 0 END
    WHEN 'sm__warps_active.avg.pct_of_peak_sustained_active' THEN 80 + p.value / 4.0
    WHEN 'l1tex__t_sector_hit_rate.pct' THEN 0
    WHEN 'lts__t_sector_hit_rate.pct' THEN 50 - p.value / 2.0
    WHEN 'dram__bytes_read.sum' THEN 4.0 * r.n * r.n
    WHEN 'dram__bytes_write.sum' THEN 3.9 * r.n * r.n
    WHEN 'gpulab__dram__bytes_write_drain.sum' THEN 0.1 * r.n * r.n
    WHEN 'gpu__time_duration.sum' THEN r.median_ms * 1e6 END, ''
FROM run r JOIN run_param p ON p.run_id = r.id AND p.name = 'TILE',
     (SELECT 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum' AS name
      UNION ALL SELECT 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum'
      UNION ALL SELECT 'sm__warps_active.avg.pct_of_peak_sustained_active'
      UNION ALL SELECT 'l1tex__t_sector_hit_rate.pct' UNION ALL SELECT 'lts__t_sector_hit_rate.pct'
      UNION ALL SELECT 'dram__bytes_read.sum' UNION ALL SELECT 'dram__bytes_write.sum'
      UNION ALL SELECT 'gpulab__dram__bytes_write_drain.sum' UNION ALL SELECT 'gpu__time_duration.sum'
      UNION ALL SELECT 'gpulab__smem_excess_wavefronts_ld.sum'
      UNION ALL SELECT 'gpulab__smem_excess_wavefronts_st.sum') m
WHERE r.family = 'ukern' AND (r.variant <> 'copy' OR m.name NOT LIKE 'gpulab__smem%');
UPDATE run SET smem_excess_reason = 'not measured: the kernel uses no shared memory'
WHERE family = 'ukern' AND variant = 'copy';
-- S1 at the profiled N: matmul/shared BS = 8, whose hardware store counter says
-- 17 million conflicts where there are none
INSERT INTO run (session_id, device_id, study, section, family, variant, n, bs, k, seed, mem, grid,
                 cache, status, samples, median_ms, mean_ms, stddev_ms, rel_se, flops, min_bytes,
                 launches, block_x, block_y, block_z, grid_x, grid_y, grid_z, passes)
VALUES (1, 100, 'matmul', 'gpu', 'matmul', 'shared', 2048, 8, 1, 42, 'device', '2d', 'cold', 'ok',
        10, 3.378, 3.378, 0.001, 0.0001, 2.0 * 2048 * 2048 * 2048, 12.0 * 2048 * 2048, 1, 8, 8, 1,
        256, 256, 1, 2);
INSERT INTO metric (run_id, name, value, unit)
SELECT id, m.name, m.v, '' FROM run,
     (SELECT 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum' AS name, 147000 AS v
      UNION ALL SELECT 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum', 5710000
      UNION ALL SELECT 'gpulab__smem_excess_wavefronts_ld.sum', 0
      UNION ALL SELECT 'gpulab__smem_excess_wavefronts_st.sum', 0
      UNION ALL SELECT 'gpu__time_duration.sum', 3378000) m
WHERE study = 'matmul' AND variant = 'shared' AND device_id = 100;
INSERT INTO run (session_id, device_id, study, section, family, variant, n, bs, seed, status, samples,
                 median_ms, mean_ms, stddev_ms, rel_se, flops, min_bytes, launches)
WITH v(variant, f) AS (VALUES ('global', 0.05), ('shared', 0.2)),
     s(n) AS (VALUES (512), (1024), (2048)),
     b(bs) AS (VALUES (16), (32))
SELECT 1, 100, 'umm', 'gpu', 'matmul', variant, n, bs, 42, 'ok', 10,
       2.0 * n * n * n / (59000e6 * f * (bs / 32.0)), 2.0 * n * n * n / (59000e6 * f * (bs / 32.0)),
       0.0, 0.0, 2.0 * n * n * n, 12.0 * n * n, 1
FROM v, s, b;
EOF
$G query --write --db "$T/g.db" -f "$T/fake.sql" >"$T/fake.log" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "writing the fake GPU runs failed: $(cat "$T/fake.log")"
$MAKE -s report DB="$T/g.db" REPORT_OUT="$T/out_g" >"$T/make_g.log" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "make report with generated sections exited $rc"
[ $rc -eq 0 ] || tail -n 30 "$T/make_g.log"
check '! grep -q "warning" "$T/make_g.log"' "make report warned with generated sections: $(grep warning "$T/make_g.log")"
check_report "$T/g.db" "$T/out_g"
R="$T/out_g/report.md"
# every study without a section file gets one, after the hand-made ones, numbered on;
# those of the configs without runs say which config to run
for s in reduction transpose ukern umm; do
    check 'grep -q "^## S[0-9]* — Study \`$s\`" "$R"' "no generated section for study $s"
done
for s in reduction transpose; do
    check 'sed -n "/^## S[0-9]* — Study \`$s\`/,/^## /p" "$R" | grep -q "^No data for this study .*CONFIG=configs/$s.conf"' \
        "the generated section of $s does not name configs/$s.conf"
done
s5=$(grep -n '^## S5 — ' "$R" | cut -d: -f1) su=$(grep -n '^## S[0-9]* — Study `ukern`' "$R" | cut -d: -f1)
smoke=$(grep -n '^## Smoke sweep' "$R" | cut -d: -f1)
check '[ -n "$su" ] && [ "$s5" -lt "$su" ] && [ "$su" -lt "$smoke" ]' "the generated ukern section is not between S5 and the smoke sweep"
# its table: a row per newest verified run, the named parameter TILE and the built-in N
# as columns, GB/s, the counters, and the fastest of each group in bold
TB="$T/out_g/tables/ukern_gen_runs.md"
expect "$T/g.db" "$T/out_g" ukern_gen_runs "SELECT count(*) FROM results WHERE study = 'ukern' AND $OK"
hdr=$(head -n 1 "$TB")
for c in N TILE variant 'time (ms, median ± sd)' 'GB/s' 'occupancy (%)' 'L1 hit (%)' 'L2 hit (%)' \
         'smem conflicts ld' 'smem conflicts st' 'DRAM read (MB)' 'DRAM write (MB)'; do
    check 'echo "$hdr" | tr "|" "\n" | sed "s/^ *//; s/ *$//" | grep -qxF "$c"' "the generated ukern table has no column '$c'"
done
groups=$(q "$T/g.db" "SELECT count(*) FROM (SELECT 1 FROM results WHERE study = 'ukern' AND $OK
                      GROUP BY device_id, n, threads, seed, uparams HAVING count(*) > 1)")
got=$(grep -c '| \*\*[0-9.e-]* ± [0-9.]* %\*\* *|' "$TB")
# bold: the fastest of each group, but not where its interval (median ± sd) meets the
# runner-up's (N = 1024, TILE = 32: sd half the median) nor where it was measured on
# a busy host (N = 2048, TILE = 16: marked ‡)
check '[ "$got" -eq 4 ] && [ "$groups" -eq 6 ]' "$got bold times in the generated table (want 4), $groups groups of 2 or more"
# the bold one is the group's fastest: copy, in every GPU group of this fixture (the
# variant is named with its device kind and family: the study has CPU and GPU rows of two)
check '[ "$(grep "\*\*" "$TB" | grep -c "| GPU ukern/copy ")" -eq 4 ]' "the bold rows are not copy's"
check '! grep "| 1024 |.*| 32 *| GPU ukern/copy " "$TB" | grep -q "\*\*"' "a best whose interval overlaps the runner-up's is in bold"
check 'grep "| 2048 |.*| 16 *| GPU ukern/copy " "$TB" | grep -q "% ‡ *|"' "the run measured on a busy host is not marked ‡"
check '! grep "| 2048 |.*| 16 *| GPU ukern/copy " "$TB" | grep -q "\*\*"' "the run measured on a busy host is in bold"
check 'grep -A12 "^### Runs measured on a busy host" "$R" | grep -q "| ukern *| GPU ukern/copy *| host busy *| *1 *| host busy: 3.0 other"' \
    "the notes do not list the run measured on a busy host"
# the 32-way conflicts of the unpadded tile, none for the padded one
conf=$(q "$T/g.db" "SELECT printf('%.0f', smem_conflicts_ld) FROM results_ukern WHERE variant = 'tiled'
                    AND TILE = 32 AND n = 4096 AND $OK")
check 'grep "| 4096 |.*| 32 *| GPU ukern/tiled " "$TB" | grep -q "| $conf *|"' "the tiled TILE=32 row does not show its $conf conflicts (exact = hardware: one number)"
# the padded tile: 0 exact, the hardware counter's arbitration beside it; the 2-way
# TILE=16 one exactly; copy uses no shared memory: the hardware counter alone
hw=$(q "$T/g.db" "SELECT printf('%.0f', smem_conflicts_ld) FROM results_ukern WHERE variant = 'padded'
                  AND TILE = 32 AND n = 4096 AND $OK")
check 'grep "| 4096 |.*| 32 *| GPU ukern/padded " "$TB" | grep -q "| 0 (hw $hw) *| 0 *|"' "the padded TILE=32 row does not show 0 conflicts with the hardware's $hw beside"
check 'grep "| 4096 |.*| 16 *| GPU ukern/padded " "$TB" | grep -q "| 524288 (hw [0-9]*) *| 524288 (hw 0) *|"' "the padded TILE=16 row does not show its 2-way conflicts"
check 'grep "| 4096 |.*| 32 *| GPU ukern/copy " "$TB" | grep -q "| hw 0 *| hw 0 *|"' "the copy row does not show the hardware counters alone"
check 'grep -q "Bank conflicts are exact: .*(hw N) is the hardware counter where it differs" "$R"' "the generated caption does not explain the bank-conflict cells"
# S1's memory table: matmul/shared BS=8 shows 0 stores, the hardware's 17 M beside
S1M="$T/out_g/tables/matmul_profile_memory.md"
check 'grep "| 2048 | shared *| device *| *8 |" "$S1M" | grep -q "| \*\*0 (hw 147000)\*\* *| 0 (hw 5710000) *|"' "S1's memory table does not show the exact conflicts with the hardware counter beside"
check 'grep -q "Bank conflicts are exact" "$R"' "S1's caption does not explain the bank-conflict cells"
# the runs without exact conflicts, and why
check 'grep -A6 "^### Exact bank conflicts" "$R" | grep -q "| ukern *| not measured: the kernel uses no shared memory *| *6 |"' "the notes do not say why copy has no exact conflicts"
check 'grep -q "textbf" "$T/out_g/tables/ukern_gen_runs.tex"' "no bold in the generated LaTeX table"
# a figure per parameter that takes more than one value (N and TILE), drawn
for f in ukern_gen_by_N ukern_gen_by_TILE umm_gen_by_N umm_gen_by_BS; do
    check 'grep -q "^!\[Figure [0-9]*\. .*\](figures/$f.svg)$" "$R"' "the report does not show $f"
    check 'grep -q "<path" "$T/out_g/figures/$f.svg" && [ -s "$T/out_g/figures/$f.png" ]' "$f was not drawn"
done
check '[ "$(ls "$T"/out_g/figures/ukern_gen_by_*.svg | wc -l)" -eq 2 ]' "not 2 figures for ukern's 2 swept parameters"
check 'grep -q "Study \`ukern\`: GB/s against TILE, one line per variant; on each line N at its largest value" "$R"' \
    "the TILE figure's caption does not say how N was chosen"
want=$(q "$T/g.db" "SELECT count(DISTINCT variant || '/' || TILE) + 2 FROM results_ukern WHERE $OK")
got=$(tail -n +2 "$T/out_g/data/ukern_gen_by_N.csv" | cut -d, -f2 | sort -u | wc -l)
check '[ "$got" -eq "$want" ]' "ukern's N figure has $got lines, not $want (GPU variant x TILE, and the 2 CPU variants)"
# the roofline: the bandwidth roof for ukern (no FLOP count), the FLOP one for umm
for f in ukern_gen_roofline umm_gen_roofline; do
    check 'grep -q "(figures/$f.svg)" "$R" && grep -q "<path" "$T/out_g/figures/$f.svg"' "$f missing or not drawn"
done
want=$(q "$T/g.db" "SELECT 2 * count(*) FROM results WHERE study = 'ukern' AND device_kind = 'gpu' AND $OK")
check '[ "$(($(wc -l < "$T/out_g/data/ukern_gen_roofline.csv") - 1))" -eq "$want" ]' "ukern's roofline does not have its $want points"
want=$(q "$T/g.db" "SELECT count(*) FROM results WHERE study = 'umm' AND $OK")
check '[ "$(($(wc -l < "$T/out_g/data/umm_gen_roofline.csv") - 1))" -eq "$want" ]' "umm's roofline does not have its $want points"
# a figure a study adds by a file named for it shows in its generated section
cp -R "$W" "$T/tree2"
rm -f "$T/tree2/report/studies/60_probe.md" "$T/tree2/report/studies/61_bad.md"
sed 's/probe/ukern/g' "$W/plots/probe_time.sql" > "$T/tree2/plots/ukern_extra.sql"
sed 's/probe/ukern/g' "$W/plots/probe_time.gp" > "$T/tree2/plots/ukern_extra.gp"
(cd "$T/tree2" && $MAKE -s -o build/gpulab report DB="$T/g.db" REPORT_OUT="$T/out_h") >"$T/make_h.log" 2>&1
rc=$?
check '[ $rc -eq 0 ] && sed -n "/^## S[0-9]* — Study \`ukern\`/,/^## /p" "$T/out_h/report.md" | grep -q "(figures/ukern_extra.svg)"' \
    "a figure file named for a study without a section is not in its generated section"
# nothing to redraw the second time
ls -l --time-style=full-iso "$T/out_g/figures" > "$T/gbefore"
sleep 1
$MAKE report DB="$T/g.db" REPORT_OUT="$T/out_g" >"$T/make_g2.log" 2>&1
ls -l --time-style=full-iso "$T/out_g/figures" > "$T/gafter"
check 'cmp -s "$T/gbefore" "$T/gafter" && ! grep -q gnuplot "$T/make_g2.log"' "a second make report redrew generated figures"

# ---- 5. the hierarchical roofline and the clocks -------------------------------------------
# A copy of the generated-sections database with a study (rl) of GPU matmul runs as a
# sweep with the default counters leaves them: the SM clock and the L1, L2, DRAM and
# host-link bytes; device-memory runs (their off-chip traffic is DRAM) and zero-copy
# runs (it crosses the host link); a session that locked the clocks; the GPU's memory
# ceilings; and a second GPU model whose ceilings were not measured (NULL with the
# reason), with one run without counters.
cp "$T/g.db" "$T/h.db"
cat > "$T/rl.sql" <<'SQL'
INSERT INTO device (id, kind, name, ident, cc_major, cc_minor, sm_count, cores_per_sm, clock_khz,
                    theo_bw_gbs, copy_bw_gbs, fp32_peak_gflops, l1_bw_gbs, smem_bw_gbs, l2_bw_gbs,
                    hostlink_bw_gbs, h2d_bw_gbs, ceilings_clock_mhz, ceilings_at)
VALUES (200, 'gpu', 'RL GPU', 'GPU-rl-0001', 9, 0, 132, 128, 1980000, 3352, 2960, 66908, 32260,
        32588, 7328, 49.3, 53.8, 1963, '2026-11-24T19:54:05Z');
INSERT INTO device (id, kind, name, ident, cc_major, cc_minor, sm_count, cores_per_sm, clock_khz,
                    fp32_peak_gflops, ceilings_reason)
VALUES (201, 'gpu', 'Unmeasured GPU', 'GPU-rl-0002', 8, 0, 108, 64, 1410000, 19500,
        'not measured: no host link here');
INSERT INTO session (id, study, clocks_asked, clocks_locked, clocks_reason, sm_clock_mhz,
                     sm_app_clock_mhz, sm_app_default_mhz, sm_max_clock_mhz, clock_events)
VALUES (50, 'rl', 'base', 1, 'locked to the base clock (NVML, TDP) for the sweep; reset at its end',
        1410, 1980, 1980, 1980, 'applications clocks setting');
INSERT INTO run (session_id, device_id, study, section, family, variant, n, bs, k, mem, grid, cache,
                 seed, status, samples, median_ms, mean_ms, stddev_ms, rel_se, flops, min_bytes,
                 launches, passes)
WITH v(variant, f) AS (VALUES ('global', 0.08), ('shared', 0.13)),
     m(mem, slow) AS (VALUES ('device', 1.0), ('zerocopy', 30.0)),
     b(bs) AS (VALUES (16), (32))
SELECT 50, 200, 'rl', 'gpu', 'matmul', variant, 1024, bs, 1, mem, '2d', 'cold', 42, 'ok', 10,
       2.0 * 1024 * 1024 * 1024 / (66908e6 * f * (bs / 32.0)) * slow,
       2.0 * 1024 * 1024 * 1024 / (66908e6 * f * (bs / 32.0)) * slow, 0.0, 0.0,
       2.0 * 1024 * 1024 * 1024, 12.0 * 1024 * 1024, 1, 2
FROM v, m, b;
INSERT INTO run (session_id, device_id, study, section, family, variant, n, bs, k, mem, grid, cache,
                 seed, status, samples, median_ms, mean_ms, flops, min_bytes, launches, metrics_reason)
VALUES (50, 201, 'rl', 'gpu', 'matmul', 'global', 512, 16, 1, 'device', '2d', 'cold', 42, 'ok', 10,
        0.5, 0.5, 2.0 * 512 * 512 * 512, 12.0 * 512 * 512, 1, 'counters unavailable: test');
INSERT INTO metric (run_id, name, value, unit)
SELECT r.id, x.name, CASE x.name
    WHEN 'sm__cycles_elapsed.avg.per_second' THEN (1950 + r.bs) * 1e6
    WHEN 'l1tex__t_bytes.sum' THEN r.flops / (CASE r.variant WHEN 'global' THEN 0.5 ELSE 4.0 END)
    WHEN 'lts__t_bytes.sum' THEN r.flops / (CASE r.variant WHEN 'global' THEN 8.0 ELSE r.bs / 2.0 END)
    WHEN 'dram__bytes_read.sum' THEN CASE r.mem WHEN 'device' THEN 8.0 * r.n * r.n ELSE 1e5 END
    WHEN 'dram__bytes_write.sum' THEN CASE r.mem WHEN 'device' THEN 3.0 * r.n * r.n ELSE 2e4 END
    WHEN 'gpulab__dram__bytes_write_drain.sum' THEN CASE r.mem WHEN 'device' THEN 1.0 * r.n * r.n ELSE 0 END
    WHEN 'lts__d_sectors_fill_sysmem.sum' THEN CASE r.mem WHEN 'device' THEN 10 ELSE 8.0 * r.n * r.n / 32 * 3 END
    WHEN 'lts__t_sectors_aperture_sysmem_op_write.sum' THEN CASE r.mem WHEN 'device' THEN 0 ELSE 4.0 * r.n * r.n / 32 END
    WHEN 'gpu__time_duration.sum' THEN r.median_ms * 1e6 END, ''
FROM run r,
     (SELECT 'sm__cycles_elapsed.avg.per_second' AS name UNION ALL SELECT 'l1tex__t_bytes.sum'
      UNION ALL SELECT 'lts__t_bytes.sum' UNION ALL SELECT 'dram__bytes_read.sum'
      UNION ALL SELECT 'dram__bytes_write.sum' UNION ALL SELECT 'gpulab__dram__bytes_write_drain.sum'
      UNION ALL SELECT 'lts__d_sectors_fill_sysmem.sum'
      UNION ALL SELECT 'lts__t_sectors_aperture_sysmem_op_write.sum'
      UNION ALL SELECT 'gpu__time_duration.sum') x
WHERE r.study = 'rl' AND r.device_id = 200;
SQL
$G query --write --db "$T/h.db" -f "$T/rl.sql" >"$T/rl.log" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "writing the roofline runs failed: $(cat "$T/rl.log")"
$MAKE -s report DB="$T/h.db" REPORT_OUT="$T/out_rl" >"$T/make_rl.log" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "make report with the roofline runs exited $rc"
[ $rc -eq 0 ] || tail -n 30 "$T/make_rl.log"
check_report "$T/h.db" "$T/out_rl"
R="$T/out_rl/report.md"
RL="$T/out_rl/data/roofline.csv"
# rl_level LEVEL: the roofline's points of the RL GPU at that level
rl_level() { awk -F, -v l="$1" '$1 ~ /^RL GPU/ && $2 == l' "$RL" | wc -l; }
nrun=$(q "$T/h.db" "SELECT count(*) FROM results WHERE study = 'rl' AND unit_id = 200 AND $OK")
ndev=$(q "$T/h.db" "SELECT count(*) FROM results WHERE study = 'rl' AND unit_id = 200 AND mem = 'device' AND $OK")
check '[ "$nrun" -eq 8 ] && [ "$ndev" -eq 4 ]' "the fixture has $nrun roofline runs, $ndev of device memory"
# every run at L1 and L2; device-memory runs at DRAM, zero-copy runs at the host link instead
check '[ "$(rl_level L1)" -eq "$nrun" ] && [ "$(rl_level L2)" -eq "$nrun" ]' \
    "the roofline has $(rl_level L1) L1 and $(rl_level L2) L2 points for $nrun runs"
check '[ "$(rl_level DRAM)" -eq "$ndev" ] && [ "$(rl_level "host link")" -eq $((nrun - ndev)) ]' \
    "the roofline has $(rl_level DRAM) DRAM and $(rl_level "host link") host-link points ($ndev device runs)"
check '[ "$(rl_level analytic)" -eq 0 ]' "runs with counters placed at their analytic intensity"
# the numbers: a zero-copy run's host-link intensity is FLOP / (32 x sectors read and written)
want=$(q "$T/h.db" "SELECT printf('%.6g', 2.0 * 1024 * 1024 * 1024 / (32 * (8.0 * 1024 * 1024 / 32 * 3 + 4.0 * 1024 * 1024 / 32)))")
got=$(awk -F, '$1 ~ /^RL GPU/ && $2 == "host link" { printf "%.6g\n", $3 }' "$RL" | sort -u)
check '[ "$got" = "$want" ]' "host-link intensities '$got', want $want"
got=$(awk -F, '$1 ~ /^RL GPU/ { printf "%.6g,%.6g,%.6g\n", $7, $8, $11 }' "$RL" | sort -u)
check '[ "$got" = "66908,32260,49.3" ]' "the RL GPU's peak, L1 and host-link roofs on its rows: '$got'"
# the GPU without ceilings: its run without counters at its analytic intensity, no roofs
got=$(awk -F, '$1 ~ /^Unmeasured GPU/ { print $2 "|" $8 "|" $11 }' "$RL")
check '[ "$got" = "analytic||" ]' "the unmeasured GPU's point: '$got', want analytic with no roofs"
# the ceilings table: the measured levels with their ridge points, "not measured" and why
CT="$T/out_rl/tables/roofline_ceilings.md"
check 'grep "| RL GPU " "$CT" | grep -q "| 32260 (ridge 2.07) *| 32588 *| 7328 (ridge 9.13) *| 2960 (ridge 22.6); theoretical 3352 *| 49.3 (ridge 1357); pinned copy 53.8 *| 1963 "' \
    "the RL GPU's ceilings row: $(grep "| RL GPU " "$CT")"
check 'grep "| Unmeasured GPU " "$CT" | grep -q "| not measured *| not measured *| not measured .*| not measured: no host link here *|"' \
    "the unmeasured GPU's ceilings row: $(grep "| Unmeasured GPU " "$CT")"
check 'grep "| RL GPU " "$CT" | grep -q "| *8 *| *4 *| *0 *|$"' "the RL GPU's run counts: $(grep "| RL GPU " "$CT")"
# the generated section of rl: its clock line, the clock column, the hierarchical roofline
SEC=$(sed -n '/^## S[0-9]* — Study `rl`/,/^## /p' "$R")
med=$(q "$T/h.db" "SELECT printf('%.0f', (1950 + 16 + 1950 + 32) / 2.0)")
clk="*Clock: GPU durations in this section were measured at $med MHz SM clock (median of the 8 profiled runs that have one, of 9; 1966–1982 MHz); gpulab locked the SM clock to base for them (\`--clocks base\`).*"
check 'echo "$SEC" | grep -qxF "$clk"' "rl's clock line: $(echo "$SEC" | grep Clock)"
check 'head -n 1 "$T/out_rl/tables/rl_gen_runs.md" | grep -q "| SM clock (MHz) |"' "rl's runs table has no SM clock column"
check 'grep -q "| 1982 *|" "$T/out_rl/tables/rl_gen_runs.md"' "rl's runs table does not show a run's clock"
check 'echo "$SEC" | grep -q "(figures/rl_gen_roofline.svg)" && grep -q "<path" "$T/out_rl/figures/rl_gen_roofline.svg"' \
    "rl's hierarchical roofline is not shown or not drawn"
got=$(awk -F, 'NR > 1 && $2 == "host link"' "$T/out_rl/data/rl_gen_roofline.csv" | wc -l)
check '[ "$got" -eq 4 ]' "rl's roofline data has $got host-link points, not 4"
# a study without verified GPU runs has no clock line
check '! sed -n "/^## S2 — /,/^## /p" "$R" | grep -q "^\*Clock:"' "S2 (CPU rows only) has a clock line"
# the sessions table: what the clocks were
check 'grep -q "| base: locked to base *| 1410 / 1980 *|" "$T/out_rl/tables/sessions.md"' \
    "the sessions table does not show the locked clocks: $(grep "| base" "$T/out_rl/tables/sessions.md")"

echo "report: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
