#!/bin/sh
# tests/integration/cpu_fair.sh - the fair CPU side, end to end without a GPU:
# `make` put OpenBLAS and the libraries it needs into build/openblas/, each
# resolving the others there first (ldd, RUNPATH $ORIGIN); a build folder
# copied elsewhere runs the openblas rows from its own copy; every CPU run
# stores what ran (run.code_path: the level the dispatch picked, GPULAB_CPU_ISA's
# when it forces one, the lowest for the stencil, which is not dispatched, or
# OpenBLAS's build); without OpenBLAS (GPULAB_OPENBLAS at
# a missing file) `plan` says skip with the reason, `run` stores those rows as
# skipped with it and runs the others; `list` labels the seeds' baselines.
# Must not depend on a GPU.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL cpu_fair: $2"; fi; }
q() { "$1" query --db "$2" --csv "$3" | tail -n +2; }

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

# --- runs store what ran -------------------------------------------------------------
$G run "$T/fair.conf" --db "$T/a.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "run: exit $rc: $(tail -3 "$T/out")"
chk '[ "$(q $G "$T/a.db" "select count(*) from results where status = '"'ok'"'")" = 7 ]' \
    "not 7 verified runs: $(q $G "$T/a.db" "select variant, status, reason from results")"
chk '[ "$(q $G "$T/a.db" "select count(*) from results where variant like '"'openblas%'"' and code_path like '"'OpenBLAS %'"' and code_path like '"'%build/openblas/libopenblas.so.0)'"'")" = 2 ]' \
    "OpenBLAS rows do not record the build's copy: $(q $G "$T/a.db" "select variant, code_path from results")"
chk '[ "$(q $G "$T/a.db" "select count(distinct code_path) from results where family != '"'stencil'"' and variant not like '"'openblas%'"' and code_path in ('"'x86-64 (SSE2)'"', '"'x86-64-v3 (AVX2, FMA)'"', '"'x86-64-v4 (AVX-512)'"')")" = 1 ]' \
    "dispatched rows do not record one level: $(q $G "$T/a.db" "select variant, code_path from results")"
chk '[ "$(q $G "$T/a.db" "select code_path from results where family = '"'stencil'"'")" = "x86-64 (SSE2)" ]' \
    "the stencil (not dispatched) does not record the lowest level"
chk '[ "$(q $G "$T/a.db" "select count(*) from results where code_path is null")" = 0 ]' \
    "a CPU run without code_path"
# the level forced to the lowest: every dispatched row says so, OpenBLAS's do not change
GPULAB_CPU_ISA=x86-64 $G run "$T/fair.conf" --db "$T/b.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 0 ] && [ "$(q $G "$T/b.db" "select count(*) from results where status = '"'ok'"' and code_path = '"'x86-64 (SSE2)'"'")" = 5 ]' \
    "GPULAB_CPU_ISA=x86-64: $(q $G "$T/b.db" "select variant, status, code_path from results")"
chk '[ "$(q $G "$T/b.db" "select count(*) from results where code_path like '"'OpenBLAS %'"'")" = 2 ]' \
    "GPULAB_CPU_ISA changed the OpenBLAS rows"
GPULAB_CPU_ISA=avx9000 $G run "$T/fair.conf" --db "$T/c.db" >"$T/out" 2>&1
chk '[ "$(q $G "$T/c.db" "select count(*) from results where status = '"'skipped'"' and reason like '"'GPULAB_CPU_ISA=avx9000: unknown level%'"'")" = 4 ] && [ "$(q $G "$T/c.db" "select count(*) from results where status = '"'ok'"'")" = 3 ]' \
    "an unknown level does not skip the dispatched rows (only) with the reason: $(q $G "$T/c.db" "select variant, status, reason from results")"

# --- a build folder carried elsewhere brings its OpenBLAS ---------------------------
mkdir -p "$T/carried"
cp build/gpulab build/libgpulab_cpu.so "$T/carried/" && cp -r build/openblas "$T/carried/"
"$T/carried/gpulab" run "$T/fair.conf" --db "$T/d.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 0 ] && [ "$(q $G "$T/d.db" "select count(*) from results where status = '"'ok'"' and code_path like '"'%$T/carried/openblas/libopenblas.so.0)'"'")" = 2 ]' \
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

# --- OPENBLAS_CORETYPE: set by gpulab from the CPU's level unless the user set it --------
printf 'study = core\n[cpu]\nfamily = matmul\nvariants = openblas\nN = 64\n' >"$T/core.conf"
env -u OPENBLAS_CORETYPE $G run "$T/core.conf" --db "$T/core1.db" >"$T/out" 2>&1
lvl=$($G query --db "$T/d.db" --csv "select code_path from results where variant = 'omp_blocked' limit 1" | tail -n 1 | cut -d' ' -f1)
cp1=$(q $G "$T/core1.db" "select code_path from results where variant = 'openblas'")
case "$lvl" in
    x86-64-v4) want="SkylakeX" ;;
    x86-64-v3) want="Haswell" ;;
    *) want="" ;;
esac
if [ -n "$want" ]; then
    chk 'echo "$cp1" | grep -q " $want MAX_THREADS=.*; OPENBLAS_CORETYPE=$want, by gpulab from $lvl)"' \
        "without OPENBLAS_CORETYPE on a $lvl CPU gpulab sets $want: $cp1"
else
    chk '! echo "$cp1" | grep -q "by gpulab"' "on a baseline x86-64 CPU gpulab sets no core type: $cp1"
fi
OPENBLAS_CORETYPE=Haswell $G run "$T/core.conf" --db "$T/core2.db" >"$T/out" 2>&1
cp2=$(q $G "$T/core2.db" "select code_path from results where variant = 'openblas'")
chk 'echo "$cp2" | grep -q " Haswell MAX_THREADS=" && ! echo "$cp2" | grep -q "by gpulab"' \
    "the user's OPENBLAS_CORETYPE=Haswell is kept and not claimed: $cp2"

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
