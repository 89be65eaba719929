#!/bin/sh
# report/build.sh - assembles report/out/report.md from the results database: a
# title, the device section, one section per study (S1..S5), the smoke sweep, the
# roofline and the notes. Every table is one SQL file in report/tables/ run through
# `gpulab query` (Markdown into report.md and report/out/tables/NAME.md, LaTeX into
# report/out/tables/NAME.tex, with Markdown bold turned into \textbf); figures are
# referenced as report/out/figures/NAME.svg with the PNG alongside.
# Must not compute numbers (the SQL does) or draw figures (report/report.mk runs
# gnuplot before this script and leaves each figure's data in report/out/data/).
# A study, table or figure without data gets one line saying so instead of failing.
# Environment: DB (default db/results.db; report.mk passes its copy of the database),
# DB_NAME (the name to show for it, default $DB), GPULAB (default ./build/gpulab),
# OUT (default report/out). Run from the repository root.
set -eu

DB=${DB:-db/results.db}
DB_NAME=${DB_NAME:-$DB}
GPULAB=${GPULAB:-./build/gpulab}
OUT=${OUT:-report/out}
TABLES=report/tables

die() {
    echo "report/build.sh: $*" >&2
    exit 1
}

[ -x "$GPULAB" ] || die "no $GPULAB: build it first (make build/gpulab)"
[ -f "$DB" ] || die "no database $DB: run make experiments, or pass DB=path"
mkdir -p "$OUT/tables" "$OUT/figures" "$OUT/data" "$OUT/sql"
rm -f "$OUT"/tables/*.md "$OUT"/tables/*.tex "$OUT"/sql/*

MD="$OUT/report.md.tmp"
: > "$MD"
NTAB=0
NFIG=0

q() {
    "$GPULAB" query --db "$DB" "$@"
}

say() {
    printf '%s\n\n' "$*" >> "$MD"
}

# table SQLFILE NAME CAPTION EMPTY-LINE: NAME.md and NAME.tex under $OUT/tables, and
# the table with its caption in report.md, or EMPTY-LINE when the query has no rows.
table() {
    sql=$1 name=$2 caption=$3 empty=$4
    q -f "$sql" --md > "$OUT/tables/$name.md" || die "query $sql failed"
    q -f "$sql" --latex | sed 's/\*\*\([^*]*\)\*\*/\\textbf{\1}/g' > "$OUT/tables/$name.tex" ||
        die "query $sql failed"
    lines=$(grep -c '^|' "$OUT/tables/$name.md" || true)
    if [ "$lines" -le 2 ]; then
        say "$empty"
        return 0
    fi
    NTAB=$((NTAB + 1))
    say "**Table $NTAB.** $caption"
    cat "$OUT/tables/$name.md" >> "$MD"
    printf '\n' >> "$MD"
}

# param_table SQLFILE NAME CAPTION EMPTY-LINE KEY=VALUE...: the same, with every
# @KEY@ in the SQL replaced by VALUE (numbers and plain words only).
param_table() {
    sql=$1 name=$2 caption=$3 empty=$4
    shift 4
    cp "$sql" "$OUT/sql/$name.sql"
    for kv in "$@"; do
        key=${kv%%=*} val=${kv#*=}
        case $val in
            *[!A-Za-z0-9_.]* | '') die "bad parameter $kv for $sql" ;;
        esac
        sed "s/@$key@/$val/g" "$OUT/sql/$name.sql" > "$OUT/sql/$name.sql.tmp"
        mv "$OUT/sql/$name.sql.tmp" "$OUT/sql/$name.sql"
    done
    table "$OUT/sql/$name.sql" "$name" "$caption" "$empty"
}

# figure NAME CAPTION: the SVG (and a link to the PNG) when its data has rows.
figure() {
    name=$1 caption=$2
    csv="$OUT/data/$name.csv"
    if [ ! -f "$csv" ] || [ ! -f "$OUT/figures/$name.svg" ]; then
        say "*Figure $name was not built (run \`make report\`).*"
        return 0
    fi
    if [ "$(wc -l < "$csv")" -le 1 ]; then
        say "*No data for the figure \"$caption\".*"
        return 0
    fi
    NFIG=$((NFIG + 1))
    say "![Figure $NFIG. $caption](figures/$name.svg)"
    say "**Figure $NFIG.** $caption (PNG: [figures/$name.png](figures/$name.png))"
}

# Newest runs per study (study,runs,ok,gpu_ok), for the "no data" lines.
STUDIES=$(q -f "$TABLES/_studies.sql" --csv) || die "query _studies.sql failed"
study_ok() {
    printf '%s\n' "$STUDIES" | awk -F, -v s="$1" 'NR > 1 && $1 == s { n = $3 } END { print n + 0 }'
}
study_runs() {
    printf '%s\n' "$STUDIES" | awk -F, -v s="$1" 'NR > 1 && $1 == s { n = $2 } END { print n + 0 }'
}

# no_study NAME CONFIG: the line for a study without verified runs; 0 when it has some.
no_study() {
    if [ "$(study_ok "$1")" -gt 0 ]; then
        return 1
    fi
    runs=$(study_runs "$1")
    if [ "$runs" -gt 0 ]; then
        say "No verified runs for this study in \`$DB_NAME\` ($runs runs, none ok: see the notes)."
    else
        say "No data for this study in \`$DB_NAME\` (run \`make experiments CONFIG=$2\`)."
    fi
    return 0
}

# ---- title ----------------------------------------------------------------------
VERSION=$("$GPULAB" --version 2>/dev/null || echo "gpulab (version unknown)")
{
    printf '# gpulab report\n\n'
    printf 'Generated %s from `%s` by %s. ' "$(date -u '+%Y-%m-%d %H:%M UTC')" "$DB_NAME" "$VERSION"
    printf 'Only the newest run of each configuration is reported, and performance numbers come '
    printf 'only from verified (`ok`) runs; times are medians of the timed samples with their '
    printf 'spread (sample standard deviation as %% of the mean). The best value of each group is '
    printf 'in **bold**. Runs that are wrong, failed or skipped are listed in the notes.\n\n'
} >> "$MD"

# ---- devices --------------------------------------------------------------------
say "## Devices"
q -f "$TABLES/_gpus.sql" --csv > "$OUT/sql/_gpus.csv" || die "query _gpus.sql failed"
GPUS=$(awk -F, 'NR > 1 { print $1 }' "$OUT/sql/_gpus.csv")
if [ -z "$GPUS" ]; then
    say "No GPU runs in this database: the GPU variants were not run (no GPU on the machine, or not built)."
fi
for id in $GPUS; do
    name=$(q "SELECT name FROM device WHERE id = $id" --tsv | sed -n 2p)
    say "### GPU: ${name:-unnamed} (device $id)"
    param_table "$TABLES/device_gpu.sql" "device_gpu_$id" \
        "The GPU as recorded by \`gpulab\` with the runs (what the seeds copied from deviceQuery)." \
        "No description stored for device $id." "DEV=$id"
done
say "### CPU of the baselines"
table "$TABLES/devices_cpu.sql" devices_cpu "The CPU that ran the OpenMP and sequential baselines." \
    "No CPU runs in this database."
say "### Sessions"
table "$TABLES/sessions.sql" sessions \
    "The \`gpulab run\` sessions whose runs are reported: config, tool version, git revision, host, date." \
    "No sessions with runs in this database."

# ---- S1 -------------------------------------------------------------------------
say "## S1 — Matrix multiplication: CPU OpenMP vs GPU global vs GPU shared memory (seed 000)"
if ! no_study matmul configs/matmul.conf; then
    say "C = A·B, square N×N floats. P = 2N³/T. GPU blocks BS×BS (K = 1), one output per thread."
    table "$TABLES/s1_times.sql" s1_times \
        "CPU vs GPU global vs GPU shared (device memory): time, P = 2N³/T, speed-up over CPU OpenMP i-k-j." \
        "No CPU or device-memory GPU runs."
    figure s1_gflops "P = 2N³/T against N per GPU memory kind, with the CPU baselines."
    figure s1_speedup "Speed-up of the GPU kernels over CPU OpenMP i-k-j (best block size per N)."
    table "$TABLES/s1_memory.sql" s1_memory \
        "Zero-copy vs device vs managed memory: kernel time and host↔device copies (h2d / d2h)." \
        "No GPU runs to compare memory kinds."
    table "$TABLES/s1_profile.sql" s1_profile \
        "Profiler table per variant at the profiled N: duration, GFLOP/s, FLOP per DRAM byte, throughput, hit rates, DRAM bytes." \
        "No GPU runs at the profiled N."
    table "$TABLES/s1_profile_memory.sql" s1_profile_memory \
        "Profiler table, memory access: global load/store bytes, shared wavefronts, bank conflicts, instructions." \
        "No GPU runs at the profiled N."
    table "$TABLES/s1_occupancy.sql" s1_occupancy \
        "Launch shape, registers, shared memory, theoretical and achieved occupancy, limiting resource." \
        "No GPU runs at the profiled N."
fi

# ---- S2 -------------------------------------------------------------------------
say "## S2 — Radius-R box sum (stencil), K outputs per thread (seed 002)"
if ! no_study stencil configs/stencil.conf; then
    say "OUT[N−2R][N−2R], each the sum of the (2R+1)² inputs around it; FLOP = (N−2R)²·(2R+1)². Blocks BS×BS, K consecutive outputs per thread along the row."
    figure s2_vs_n "GFLOP/s against N per radius R (GPU at the best BS and K per point)."
    figure s2_vs_k "GFLOP/s against K at the largest N, per radius R and block side."
    figure s2_vs_r "GFLOP/s against R at the largest N (GPU at the best BS per point)."
    figure s2_vs_bs "GFLOP/s against the block side BS at the largest N, per radius R and K."
    q -f "$TABLES/_s2_pairs.sql" --csv > "$OUT/sql/_s2_pairs.csv" || die "query _s2_pairs.sql failed"
    PAIRS=$(awk -F, 'NR > 1 { print $1 "," $2 }' "$OUT/sql/_s2_pairs.csv")
    for pair in $PAIRS; do
        n=${pair%,*} r=${pair#*,}
        param_table "$TABLES/s2_nr.sql" "s2_n${n}_r${r}" \
            "N = $n, R = $r: time, GFLOP/s, speed-up over the sequential row and FLOP/B by (BS, K)." \
            "No verified runs for N = $n, R = $r." "N=$n" "R=$r"
    done
fi

# ---- S3 -------------------------------------------------------------------------
say "## S3 — Thread-block shape and grid geometry, global vs shared memory (seed 003)"
if ! no_study geometry configs/geometry.conf; then
    say "Square matmul. Block M×M (one output per thread) or M×2M (two outputs per thread); grid 2-D (one launch), 1-D (one launch per block-row) or single block (one launch per tile)."
    figure s3_time "Kernel time against N for each geometry and block shape, global and shared memory."
    figure s3_speedup_memory "Speed-up of shared over global memory against N."
    figure s3_speedup_grid "Speed-up of the 2-D grid over the 1-D and single-block geometries against N."
    figure s3_speedup_block "Speed-up of the M×2M block over the M×M block against N."
    figure s3_blocksize "Block-size sweep of the single-block geometry (blocks M×2M) against N."
    param_table "$TABLES/s3_time.sql" s3_time_global \
        "Global memory: kernel time (ms) against N per geometry and block shape." \
        "No verified global-memory runs." "VARIANT=global"
    param_table "$TABLES/s3_time.sql" s3_time_shared \
        "Shared memory: kernel time (ms) against N per geometry and block shape." \
        "No verified shared-memory runs." "VARIANT=shared"
    table "$TABLES/s3_blocksizes.sql" s3_blocksizes \
        "Single-block geometry, block size sweep M×2M: kernel time (ms)." \
        "No block-size sweep in this database."
    table "$TABLES/s3_cpu.sql" s3_cpu "The CPU table: OpenMP i-k-j against the fastest GPU variant." \
        "No CPU runs for this study."
fi

# ---- S4 -------------------------------------------------------------------------
say "## S4 — Vector add: effective against theoretical bandwidth, launch guidance (seed 001)"
if ! no_study vecadd configs/vecadd.conf; then
    say "c = a + b, floats; effective bandwidth BE = 12N bytes / T; theoretical B = memory clock × bus width / 8 × 2."
    figure s4_bandwidth "Effective bandwidth against N with the GPU's theoretical and measured copy bandwidth."
    figure s4_blocksize "Effective bandwidth against threads per block (one element per thread)."
    table "$TABLES/s4_bandwidth.sql" s4_bandwidth \
        "Effective vs theoretical bandwidth per N (best launch of each variant)." "No verified runs."
    table "$TABLES/s4_blocksize.sql" s4_blocksize \
        "One element per thread by block size at the smallest and largest N, with the launch-guidance flags." \
        "No verified GPU runs of the one-element-per-thread kernel."
    table "$TABLES/s4_gridstride.sql" s4_gridstride \
        "Grid-stride kernel at its largest N by block size and grid size G." \
        "No verified grid-stride runs."
fi

# ---- S5 -------------------------------------------------------------------------
say "## S5 — Non-square tiled matrix multiplication (seed 004)"
if ! no_study tiled configs/tiled.conf; then
    say "C[M][N] = A[M][P]·B[P][N]; sizes mostly not multiples of the tile, so the kernels bounds-check. GFLOP/s = 2MNP / T."
    figure s5_gflops "GFLOP/s per size: naive and tiled kernels by block size, cuBLAS, CPU."
    table "$TABLES/s5_rect.sql" s5_rect \
        "Non-square naive vs tiled, cuBLAS and CPU references." "No verified runs."
fi

# ---- smoke ----------------------------------------------------------------------
say "## Smoke sweep"
if [ "$(study_runs smoke)" -gt 0 ]; then
    say "Every variant of every family at tiny sizes (configs/smoke.conf): a check that everything runs and verifies, not a measurement."
    table "$TABLES/smoke.sql" smoke "Smoke sweep: every newest run with its status." "No smoke runs."
else
    say "No smoke sweep in this database."
fi

# ---- roofline -------------------------------------------------------------------
say "## Roofline"
table "$TABLES/roofline_ceilings.sql" roofline_ceilings \
    "Roofline ceilings per GPU: FP32 peak, measured copy bandwidth, ridge point." \
    "No verified GPU runs: no roofline."
if [ -n "$GPUS" ]; then
    figure roofline "Roofline per GPU: every verified GPU run; filled points use measured DRAM bytes, open points the analytic minimum bytes."
fi

# ---- notes ----------------------------------------------------------------------
say "## Notes"
table "$TABLES/notes_summary.sql" notes_summary "Runs in the database by outcome." "The database holds no runs."
say "### Runs without a performance number"
table "$TABLES/notes_status.sql" notes_status \
    "Wrong, failed and skipped runs, and why." "Every reported run was verified: none wrong, failed or skipped."
# the GPU notes have nothing to say without GPU runs
if [ -n "$GPUS" ]; then
    none_guide="Every verified GPU run follows the launch guidance."
    none_occ="No verified GPU run has a theoretical occupancy below 50 %."
    none_metrics="Every verified GPU run has hardware counters."
else
    none_guide="No GPU runs in this database." none_occ="No GPU runs in this database."
    none_metrics="No GPU runs in this database."
fi
say "### Launch guidance"
table "$TABLES/notes_guide.sql" notes_guide \
    "Verified GPU runs that break the lecture's launch guidance (blocks ≥ 2 × SMs; threads per block a multiple of 32, ≥ 64 when blocks > SMs, 128–256 recommended)." \
    "$none_guide"
say "### Low occupancy"
table "$TABLES/notes_occupancy.sql" notes_occupancy \
    "Kernels with theoretical occupancy below 50 % and the resource that limits them." \
    "$none_occ"
say "### Hardware counters"
table "$TABLES/notes_metrics.sql" notes_metrics \
    "Verified GPU runs without hardware counters, and why (their metric cells are empty, never 0)." \
    "$none_metrics"

mv "$MD" "$OUT/report.md"
echo "report/build.sh: $OUT/report.md ($NTAB tables, $NFIG figures)"
