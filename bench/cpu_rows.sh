#!/bin/sh
# bench/cpu_rows.sh - what the CPU rows of matmul reach on this machine, in one run:
# the seeds' loops and the blocked SGEMM at every instruction-set level the CPU has
# (GPULAB_CPU_ISA), OpenBLAS, and optionally an older build's rows (OLD=path to its
# gpulab, e.g. a build from before the dispatch); prints GFLOP/s per row and size
# and the ratios to the reference rows measured in the same run (its omp_ikj, and
# the same variant): the older build's when OLD is given, else this build's at
# level x86-64. GFLOP/s are 2N^3 over the fastest sample (min_ms), the best of
# REPEAT (default 3) rounds, each round running every configuration once, so that
# a machine shared with other work slows all of them alike; the median sample's
# GFLOP/s of the best round is printed beside it.
# SIZES (default "512 1024 2048") for the fast rows, SLOW_SIZES (default "256 512")
# for the i-j-k loops, THREADS (default 0 = every core). Each configuration runs in
# a database of its own under a temporary folder (the level is not part of a run's
# key). Must not change any other database.
set -u
G=${G:-./build/gpulab}
OLD=${OLD:-}
SIZES=${SIZES:-"512 1024 2048"}
SLOW_SIZES=${SLOW_SIZES:-"256 512"}
THREADS=${THREADS:-0}
REPEAT=${REPEAT:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
list() { echo "$1" | tr ' ' ','; }

conf() {   # conf FILE VARIANTS SLOWVARIANTS
    { printf 'study = cpu_rows\ntime_cap = 2s\n'
      printf '[fast]\nfamily = matmul\nvariants = %s\nN = %s\nthreads = %s\n' "$2" "$(list "$SIZES")" "$THREADS"
      [ -n "$3" ] && printf '[slow]\nfamily = matmul\nvariants = %s\nN = %s\nthreads = %s\n' "$3" "$(list "$SLOW_SIZES")" "$THREADS"
    } >"$1"
}
# run LABEL GPULAB CONF [ENV...]: the verified runs as
# "label variant n best-gflops median-gflops code_path"
run() {
    label=$1; bin=$2; c=$3; shift 3
    db="$T/$label.$round.db"
    env "$@" "$bin" run "$c" --db "$db" >"$T/$label.log" 2>&1 ||
        { echo "cpu_rows: $label: $bin exited $?:"; tail -3 "$T/$label.log"; }
    "$G" query --db "$db" --csv "select variant, n, flops / min_ms / 1e6, gflops,
        replace(replace(coalesce(code_path, 'not recorded'), ',', ''), ' ', '~')
        from results where status = 'ok' order by variant, n" 2>/dev/null | tail -n +2 |
        awk -F, -v l="$label" '{ printf "%s %s %s %s %s %s\n", l, $1, $2, $3, $4, $5 }' >>"$T/all"
}

: >"$T/all"
conf "$T/levels.conf" "omp_ikj, omp_blocked" "omp_ijk"
conf "$T/lib.conf" "openblas" ""
[ -n "$OLD" ] && conf "$T/old.conf" "omp_ikj" "omp_ijk"
for round in $(seq 1 "$REPEAT"); do
    for isa in x86-64 x86-64-v3 x86-64-v4; do
        run "$isa" "$G" "$T/levels.conf" GPULAB_CPU_ISA=$isa
    done
    run openblas "$G" "$T/lib.conf"
    [ -n "$OLD" ] && run old "$OLD" "$T/old.conf"
done
ref_label=x86-64
[ -n "$OLD" ] && ref_label=old

echo "cpu_rows: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs," \
     "threads=$THREADS, best of $REPEAT rounds, load average now $(cut -d' ' -f1-3 /proc/loadavg)"
echo "cpu_rows: reference = the rows of '$ref_label' at the same N (x ref ikj: its omp_ikj; x ref same: the same variant)"
awk -v ref="$ref_label" '
    { k = $1 " " $2 " " $3
      if (!(k in best)) { order[++nk] = k; lab[k] = $1; var[k] = $2; n[k] = $3 }
      if ($4 > best[k]) { best[k] = $4; med[k] = $5 }
      path[$1] = $6 }
    END {
        for (i = 1; i <= nk; i++) { k = order[i]; if (lab[k] == ref) refgf[var[k] " " n[k]] = best[k] }
        printf "%-10s %-12s %6s %10s %10s %10s %10s\n", "build", "variant", "N", "GFLOP/s",
               "(median)", "x ref ikj", "x ref same"
        for (i = 1; i <= nk; i++) {
            k = order[i]; ikj = "omp_ikj " n[k]; same = var[k] " " n[k]
            printf "%-10s %-12s %6d %10.2f %10.2f %10s %10s\n", lab[k], var[k], n[k], best[k], med[k],
                   (ikj in refgf) ? sprintf("%.2f", best[k] / refgf[ikj]) : "-",
                   (same in refgf) ? sprintf("%.2f", best[k] / refgf[same]) : "-"
        }
        print "cpu_rows: what ran:"
        for (l in path) { p = path[l]; gsub(/~/, " ", p); print "  " l ": " p }
    }' "$T/all"
