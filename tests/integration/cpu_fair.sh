#!/bin/sh
# tests/integration/cpu_fair.sh - the fair CPU side, end to end without a GPU:
# `make` put OpenBLAS and the libraries it needs into build/openblas/, each
# resolving the others there first (ldd, RUNPATH $ORIGIN); a build folder
# copied elsewhere runs the openblas rows from its own copy; every CPU run
# stores what ran (run.code_path: the level the dispatch picked, GPULAB_CPU_ISA's
# when it forces one, the lowest for the stencil, which is not dispatched, or
# OpenBLAS's build with the core type of that level); every level is forced in
# turn, with and without GPULAB_CPU_ISA_MAX making the CPU one without AVX-512,
# so that any x86-64 CPU covers both OpenBLAS core types (where it can run them)
# and the refusal of a level above the CPU's; without OpenBLAS (GPULAB_OPENBLAS at
# a missing file) `plan` says skip with the reason, `run` stores those rows as
# skipped with it and runs the others; `list` labels the seeds' baselines.
# Must not depend on a GPU.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL cpu_fair: $2"; fi; }
q() { "$1" query --db "$2" --csv "$3" | tail -n +2; }
qt() { "$1" query --db "$2" --tsv "$3" | tail -n +2; }   # unquoted: one value a line

cat >"$T/fair.conf" <<'EOF'
study = matmul
[square]
family = matmul
variants = omp_ikj, omp_blocked, openblas
N = 70
threads = 2
[rect]
family = matmul
variants = omp_blocked_rect, openblas_rect
M = 33
N = 20
P = 300
threads = 2
[stencil]
family = stencil
variants = omp
N = 40
R = 2
threads = 2
[vecadd]
family = vecadd
variants = omp
N = 1000
threads = 2
EOF

# --- build/openblas: the copy and what it needs ------------------------------------
L=build/openblas/libopenblas.so.0
chk '[ -f "$L" ]' "make left no $L (is libopenblas0-openmp installed? make deps)"
ldd "$L" >"$T/ldd" 2>&1
chk '! grep -q "not found" "$T/ldd"' "the copy misses libraries: $(grep 'not found' "$T/ldd")"
for lib in libgfortran.so.5 libquadmath.so.0; do
    chk 'grep -qE "^[[:space:]]*$lib => .*build/openblas/$lib" "$T/ldd"' \
        "$lib does not resolve from build/openblas: $(grep "$lib" "$T/ldd")"
done
for f in build/openblas/*.so*; do
    chk 'readelf -d "$f" | grep -q "RUNPATH.*\[\$ORIGIN\]"' "$f has no RUNPATH \$ORIGIN"
done

# --- runs store what ran, at every level ------------------------------------------
# Nothing here depends on which CPU runs it: the level gpulab picked is read from
# the dispatched rows, and every expectation follows from it. Each level is forced
# in turn (GPULAB_CPU_ISA); one above this CPU's is refused, rows and OpenBLAS alike
# (none of its code runs). GPULAB_CPU_ISA_MAX=x86-64-v3 then makes any CPU one
# without AVX-512, so that every machine also covers the refusal of x86-64-v4.
rank() { case "$1" in x86-64) echo 0 ;; x86-64-v3) echo 1 ;; x86-64-v4) echo 2 ;; *) echo 9 ;; esac; }
label() { case "$1" in x86-64) echo "x86-64 (SSE2)" ;; x86-64-v3) echo "x86-64-v3 (AVX2, FMA)" ;;
          x86-64-v4) echo "x86-64-v4 (AVX-512)" ;; esac; }
# the OPENBLAS_CORETYPE gpulab sets for a level (experiments/cpu/cpu_openblas.h)
coretype() { case "$1" in x86-64-v4) echo SkylakeX ;; x86-64-v3) echo Haswell ;; *) echo "" ;; esac; }
# the level of DB's dispatched rows (their code_path's first word), when they agree
level_of() {
    [ "$(q $G "$1" "select count(distinct code_path) from results where family != 'stencil' and variant not like 'openblas%' and status = 'ok'")" = 1 ] &&
        qt $G "$1" "select code_path from results where variant = 'omp_blocked'" | cut -d' ' -f1
}
# ob_consistent DB LEVEL DIR: DB's two OpenBLAS rows ran the copy in DIR/openblas/,
# with the core type gpulab sets for LEVEL (and the library says it ran that core),
# or, for the lowest level, none set by gpulab
ob_consistent() {
    want=$(coretype "$2")
    n=0
    for cp in "$(qt $G "$1" "select code_path from results where variant = 'openblas'")" \
              "$(qt $G "$1" "select code_path from results where variant = 'openblas_rect'")"; do
        case "$cp" in "OpenBLAS "*) ;; *) continue ;; esac
        case "$cp" in *"($3/openblas/libopenblas.so.0)"|*"($3/openblas/libopenblas.so.0; "*) ;; *) continue ;; esac
        if [ -n "$want" ]; then
            case "$cp" in *" $want MAX_THREADS="*"; OPENBLAS_CORETYPE=$want, by gpulab from $2)"*) n=$((n + 1)) ;; esac
        else
            case "$cp" in *"by gpulab"*) ;; *) n=$((n + 1)) ;; esac
        fi
    done
    [ $n = 2 ]
}
ok_rows() { q $G "$1" "select count(*) from results where status = 'ok'"; }

env -u OPENBLAS_CORETYPE -u GPULAB_CPU_ISA -u GPULAB_CPU_ISA_MAX $G run "$T/fair.conf" --db "$T/a.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "run: exit $rc: $(tail -3 "$T/out")"
chk '[ "$(ok_rows "$T/a.db")" = 7 ]' "not 7 verified runs: $(q $G "$T/a.db" "select variant, status, reason from results")"
best=$(level_of "$T/a.db")
chk '[ "$(rank "$best")" -le 2 ]' "dispatched rows do not record one level: $(q $G "$T/a.db" "select variant, code_path from results")"
chk 'ob_consistent "$T/a.db" "$best" "$PWD/build"' \
    "OpenBLAS rows do not record the build's copy with the core type of $best: $(q $G "$T/a.db" "select variant, code_path from results where variant like 'openblas%'")"
chk '[ "$(q $G "$T/a.db" "select code_path from results where family = '"'stencil'"'")" = "x86-64 (SSE2)" ]' \
    "the stencil (not dispatched) does not record the lowest level"
chk '[ "$(q $G "$T/a.db" "select count(*) from results where code_path is null")" = 0 ]' \
    "a CPU run without code_path"

# forced: LEVEL [CAP]: the sweep with GPULAB_CPU_ISA=LEVEL (under GPULAB_CPU_ISA_MAX=CAP)
forced() {
    lv=$1; cap=${2:-}; db="$T/f-$lv-${cap:-none}.db"; host=$best
    [ -n "$cap" ] && [ "$(rank "$cap")" -lt "$(rank "$best")" ] && host=$cap
    if [ -n "$cap" ]; then
        env -u OPENBLAS_CORETYPE GPULAB_CPU_ISA_MAX="$cap" GPULAB_CPU_ISA="$lv" $G run "$T/fair.conf" --db "$db" >"$T/out" 2>&1; rc=$?
    else
        env -u OPENBLAS_CORETYPE -u GPULAB_CPU_ISA_MAX GPULAB_CPU_ISA="$lv" $G run "$T/fair.conf" --db "$db" >"$T/out" 2>&1; rc=$?
    fi
    what="GPULAB_CPU_ISA=$lv${cap:+ GPULAB_CPU_ISA_MAX=$cap} (this CPU: $best)"
    if [ "$(rank "$lv")" -le "$(rank "$host")" ]; then
        chk '[ $rc -eq 0 ] && [ "$(ok_rows "$db")" = 7 ] && [ "$(level_of "$db")" = "$lv" ] && [ "$(q $G "$db" "select count(*) from results where family != '"'stencil'"' and code_path = '"'$(label "$lv")'"'")" = 4 ]' \
            "$what: exit $rc: $(q $G "$db" "select variant, status, code_path from results")"
        chk 'ob_consistent "$db" "$lv" "$PWD/build"' \
            "$what: OpenBLAS's core type is not $lv's: $(q $G "$db" "select variant, code_path from results where variant like 'openblas%'")"
    else
        # refused: the dispatched rows and OpenBLAS's (whose core type would need
        # the level) skipped with the reason, only the stencil ran
        chk '[ $rc -eq 0 ] && [ "$(q $G "$db" "select count(*) from results where status = '"'skipped'"' and reason like '"'GPULAB_CPU_ISA=$lv: this CPU cannot run%'"'")" = 6 ] && [ "$(q $G "$db" "select group_concat(family) from results where status = '"'ok'"'")" = stencil ]' \
            "$what: a level above the CPU's is not refused: exit $rc: $(q $G "$db" "select variant, status, reason from results")"
    fi
}
for lv in x86-64 x86-64-v3 x86-64-v4; do
    forced $lv
    forced $lv x86-64-v3
done
# the cap alone: the best level under it, OpenBLAS's core type with it
env -u OPENBLAS_CORETYPE -u GPULAB_CPU_ISA GPULAB_CPU_ISA_MAX=x86-64-v3 $G run "$T/fair.conf" --db "$T/cap.db" >"$T/out" 2>&1
capped=$(level_of "$T/cap.db")
chk '[ "$(ok_rows "$T/cap.db")" = 7 ] && [ "$(rank "$capped")" -le 1 ] && ob_consistent "$T/cap.db" "$capped" "$PWD/build"' \
    "GPULAB_CPU_ISA_MAX=x86-64-v3: $(q $G "$T/cap.db" "select variant, status, code_path from results")"
env -u OPENBLAS_CORETYPE -u GPULAB_CPU_ISA_MAX GPULAB_CPU_ISA=avx9000 $G run "$T/fair.conf" --db "$T/c.db" >"$T/out" 2>&1
chk '[ "$(q $G "$T/c.db" "select count(*) from results where status = '"'skipped'"' and reason like '"'GPULAB_CPU_ISA=avx9000: unknown level%'"'")" = 6 ] && [ "$(q $G "$T/c.db" "select count(*) from results where status = '"'ok'"'")" = 1 ]' \
    "an unknown level does not skip the dispatched and OpenBLAS rows (only) with the reason: $(q $G "$T/c.db" "select variant, status, reason from results")"
env -u OPENBLAS_CORETYPE -u GPULAB_CPU_ISA GPULAB_CPU_ISA_MAX=v5 $G run "$T/fair.conf" --db "$T/c2.db" >"$T/out" 2>&1
chk '[ "$(q $G "$T/c2.db" "select count(*) from results where status = '"'skipped'"' and reason like '"'GPULAB_CPU_ISA_MAX=v5: unknown level%'"'")" = 6 ]' \
    "an unknown cap is not refused by name: $(q $G "$T/c2.db" "select variant, status, reason from results")"

# --- a build folder carried elsewhere brings its OpenBLAS ---------------------------
mkdir -p "$T/carried"
cp build/gpulab build/libgpulab_cpu.so "$T/carried/" && cp -r build/openblas "$T/carried/"
env -u OPENBLAS_CORETYPE -u GPULAB_CPU_ISA -u GPULAB_CPU_ISA_MAX "$T/carried/gpulab" run "$T/fair.conf" --db "$T/d.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 0 ] && ob_consistent "$T/d.db" "$best" "$T/carried"' \
    "the carried build does not run its own OpenBLAS: $(q $G "$T/d.db" "select variant, status, code_path from results"; tail -2 "$T/out")"

# --- no OpenBLAS: plan says skip and why, run stores those rows as skipped -------------
GPULAB_OPENBLAS=/nonexistent $G plan "$T/fair.conf" >"$T/plan" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "plan without OpenBLAS: exit $rc"
chk '[ "$(grep -c "^ *skip *matmul/openblas.*OpenBLAS not found: install libopenblas0 or rebuild with it present (/nonexistent" "$T/plan")" = 2 ]' \
    "plan does not skip both OpenBLAS rows with the reason: $(grep openblas "$T/plan")"
chk 'grep -q "^ *run *matmul/omp_blocked N=70" "$T/plan"' "plan without OpenBLAS drops the other rows"
GPULAB_OPENBLAS=/nonexistent $G run "$T/fair.conf" --db "$T/e.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "run without OpenBLAS: exit $rc: $(tail -2 "$T/out")"
chk '[ "$(q $G "$T/e.db" "select count(*) from results where variant like '"'openblas%'"' and status = '"'skipped'"' and samples = 0 and reason like '"'OpenBLAS not found: install libopenblas0 or rebuild with it present%'"'")" = 2 ] && [ "$(q $G "$T/e.db" "select count(*) from results where status = '"'ok'"'")" = 5 ]' \
    "run without OpenBLAS: $(q $G "$T/e.db" "select variant, status, reason from results")"
chk 'grep -q "2 rejected by check" "$T/out"' "run without OpenBLAS does not count the rejected rows: $(tail -1 "$T/out")"

# --- the user's OPENBLAS_CORETYPE is kept and not claimed -------------------------------
# (Prescott: SSE3, which every x86-64 CPU of this century has)
printf 'study = core\n[cpu]\nfamily = matmul\nvariants = openblas\nN = 64\n' >"$T/core.conf"
OPENBLAS_CORETYPE=Prescott $G run "$T/core.conf" --db "$T/core2.db" >"$T/out" 2>&1
cp2=$(q $G "$T/core2.db" "select code_path from results where variant = 'openblas'")
chk 'echo "$cp2" | grep -q " Prescott MAX_THREADS=" && ! echo "$cp2" | grep -q "by gpulab"' \
    "the user's OPENBLAS_CORETYPE=Prescott is kept and not claimed: $cp2"
# ... whatever level is forced: the level does not concern it
OPENBLAS_CORETYPE=Prescott GPULAB_CPU_ISA=avx9000 $G run "$T/core.conf" --db "$T/core3.db" >"$T/out" 2>&1
chk '[ "$(q $G "$T/core3.db" "select status from results")" = ok ]' \
    "the user's OPENBLAS_CORETYPE with an unknown level: $(q $G "$T/core3.db" "select status, reason from results")"

# --- the seeds' baselines are labelled -------------------------------------------------
$G list >"$T/list" 2>&1
for v in seq_ijk omp_ikj omp_ijk omp_rect; do
    chk 'grep -A1 -E "^  cpu $v " "$T/list" | grep -q "seed baseline:"' "list does not label $v as a seed baseline"
done
for v in omp_blocked openblas; do
    chk '! grep -A1 -E "^  cpu $v " "$T/list" | grep -q "seed baseline"' "list labels $v as a seed baseline"
done
chk '[ "$(grep -c "seed baseline:" "$T/list")" = 8 ]' "not 8 seed baselines in list"

echo "cpu_fair: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
