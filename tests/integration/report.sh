#!/bin/sh
# tests/integration/report.sh - `make report` end to end: builds the report from a
# database into a temporary folder and checks that every figure exists as a
# non-empty SVG and PNG, that report.md has every section heading, that every table
# (Markdown and LaTeX) has the number of rows an independent count of the database
# says it should, that a second `make report` redraws nothing, that a change in the
# database redraws the figures, that DB= naming another database redoes the report,
# and that the database reported on is never written.
# Databases: the committed H100 fixture tests/data/h100_smoke.db when present (a
# copy: `gpulab query` writes to the file it opens), otherwise the smoke sweep run
# here (CPU rows only on a machine without a GPU: the no-GPU path); then tiny
# CPU-only sweeps of every study, so that the S1..S5 tables meet real rows.
# Must not write into the repository (everything goes under a temporary folder) and
# must not need sqlite3 (only ./build/gpulab query).
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
$G query --db "$T/a.db" "UPDATE run SET reason = coalesce(reason, '') || ' (test)'
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
# the CPU rows show up where they belong, with the numbers the database holds
check '[ "$(rows_md "$T/out_b/tables/matmul_times.md")" -eq 4 ]' "S1 table does not have the 4 CPU rows"
check '[ "$(ls "$T"/out_b/tables/stencil_n*_r*.md | wc -l)" -eq 4 ]' "not 4 S2 tables for N x R = 2 x 2"
med=$(q "$T/b.db" "SELECT printf('%.4g', median_ms) FROM results WHERE study = 'stencil'
                   AND variant = 'seq' AND n = 60 AND r = 4 AND is_latest = 1")
check 'grep -q "| CPU seq .*| \*\*$med ±\|| CPU seq .*| $med ±" "$T/out_b/tables/stencil_n60_r4.md"' \
    "S2 N=60 R=4 table does not show the sequential median $med"

echo "report: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
