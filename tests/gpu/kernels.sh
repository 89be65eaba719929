#!/bin/sh
# tests/gpu/kernels.sh - users' kernels on a GPU (run by tests/gpu/run.sh): both
# examples (configs/transpose.conf, configs/reduction.conf) run verified with
# counters; a second run compiles and runs nothing; an edited kernel runs its own
# study again and nothing else; a kernel that writes out of bounds is stored
# failed with the CUDA error while the sweep completes the rest; a kernel section
# verified against a C reference (tests/gpu/data/cref.conf) is ok, and a wrong
# kernel there is wrong; half and bfloat16 kernels (half.conf) are ok against a
# float-computing reference kernel and against a C reference in double, a
# wrong one wrong; a C reference's expected outputs computed once per key
# (crefcache.conf) give the verdicts of computing them for every run
# (GPULAB_CREF_CACHE=0), the reference called once per key rather than per
# run and handed only what verify_reads names; kernels as users write them
# (tests/gpu/data/cccl.conf: CUB's BlockReduce and cooperative groups' reduce
# with a header from `-I inc` and --use_fast_math; a file with main() and
# <stdio.h> built by nvcc) run verified and counted, with their compiler and
# options stored; every shared-memory run has its exact bank conflicts (the
# padded TILE = 32 tile none, the unpadded one 31 per column read). Prints the
# transpose table (time, GB/s against copy, exact and hardware bank conflicts) and ends with
# "kernels-gpu: N passed, N failed". Must not rebuild anything.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
db=${GPULAB_KERNELS_DB:-$T/k.db}
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL kernels-gpu: $2"; fi; }
q() { $G query --db "$db" --csv "$1" | tail -n 1; }

$G run configs/transpose.conf configs/reduction.conf --db "$db" >"$T/run1" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "examples: exit $rc: $(tail -3 "$T/run1")"
planned=$($G plan configs/transpose.conf configs/reduction.conf --db "$db" --summary 2>/dev/null | sed -n 's/^total: 0 to run, \([0-9]*\) done.*/\1/p')
ok=$(q "select count(*) from results where study in ('transpose','reduction') and status='ok' and passes > 0 and is_latest=1")
chk '[ -n "$planned" ] && [ "$planned" -gt 0 ] && [ "$ok" -eq "$planned" ]' "examples: $ok ok with counters of ${planned:-?} planned"
bad=$(q "select count(*) from results where study in ('transpose','reduction') and status<>'ok'")
chk '[ "$bad" -eq 0 ]' "examples: $bad runs not ok"
# compared with a reference: every variant but the references (naive, sequential*) and copy
cmp=$(q "select count(*) from results where study in ('transpose','reduction') and is_latest=1 and max_rel_err is not null")
chk '[ "$cmp" -eq 88 ]' "examples: $cmp runs compared with a reference (want 88)"
grep -E '^compiled' "$T/run1"

# a second run: every kernel from the cache, no run
$G run configs/transpose.conf configs/reduction.conf --db "$db" >"$T/run2" 2>&1
chk 'grep -qE "^compiled ([0-9]+) kernels?, \1 from the cache" "$T/run2"' "rerun compiled something: $(grep compiled "$T/run2")"
chk 'grep -q "gpulab: 0 ran" "$T/run2"' "rerun ran something: $(grep 'ran (' "$T/run2")"

# an edited kernel: its study runs again, the other does not
mkdir -p "$T/edit/kernels"
cp configs/transpose.conf "$T/edit/"
cp configs/kernels/transpose.cu "$T/edit/kernels/"
echo '// edited' >>"$T/edit/kernels/transpose.cu"
$G run "$T/edit/transpose.conf" configs/reduction.conf --db "$db" >"$T/run3" 2>&1
n_tr=$(grep -c '^\[.*\] transpose/' "$T/run3")
n_re=$(grep -c '^\[.*\] reduction/' "$T/run3")
chk '[ "$n_tr" -gt 0 ] && [ "$n_re" -eq 0 ]' "edited transpose.cu: $n_tr transpose and $n_re reduction runs (want >0 and 0)"

# a kernel that faults: failed with the CUDA error, the next one still runs
$G run tests/gpu/data/fault.conf --db "$db" >"$T/run4" 2>&1
cat "$T/run4"
st=$(q "select status||' '||reason from results where study='fault' and variant='stray'")
chk 'echo "$st" | grep -q "^failed .*cudaError"' "stray: $st"
chk '[ "$(q "select status from results where study='"'"'fault'"'"' and variant='"'"'scale'"'"'")" = ok ]' "scale after the fault is not ok"

# verify = c:scale_ref.c:scale_ref: built by gpulab, every variant compared with it
$G run tests/gpu/data/cref.conf --db "$db" >"$T/run5" 2>&1; rc=$?
# exit 1: scale_off is wrong on purpose
chk '[ $rc -eq 1 ] && grep -q "compiled 1 C reference" "$T/run5"' "cref: exit $rc (want 1): $(tail -5 "$T/run5")"
st=$(q "select status||' '||(max_rel_err is not null) from results where study='cref' and variant='scale' and is_latest=1")
chk '[ "$st" = "ok 1" ]' "cref scale against the C reference: '$st' (want 'ok 1'): $(q "select reason from results where study='cref' and variant='scale'")"
st=$(q "select status||' '||reason from results where study='cref' and variant='scale_off' and is_latest=1")
chk 'echo "$st" | grep -q "^wrong .*1 of 65536 elements differ from .c:scale_ref."' "cref scale_off: $st"

# exact bank conflicts of users' kernels: every ok run whose kernel uses shared memory
# has them (tests/gpu/smem.sh checks the values); the padded TILE=32 tile has none at
# any N, the unpadded one 31 per column-read instruction (N*N/32 of them)
miss=$(q "select count(*) from results where study in ('transpose','reduction') and status='ok'
          and is_latest=1 and static_smem + coalesce(dynamic_smem, 0) > 0 and smem_excess_ld is null")
chk '[ "$miss" -eq 0 ]' "$miss shared-memory runs without exact conflicts: $(q "select smem_excess_reason from results
    where study in ('transpose','reduction') and static_smem > 0 and smem_excess_ld is null limit 1")"
bad=$(q "select count(*) from results_transpose where is_latest=1 and variant='padded' and TILE=32
         and (smem_excess_ld is not 0 or smem_excess_st is not 0)")
chk '[ "$bad" -eq 0 ]' "$bad padded TILE=32 runs with exact conflicts (want none)"
bad=$(q "select count(*) from results_transpose where is_latest=1 and variant='tiled' and TILE=32
         and smem_excess_ld is not 31.0 * n * n / 32")
chk '[ "$bad" -eq 0 ]' "$bad tiled TILE=32 runs whose load conflicts are not 31 x N*N/32"

# 16-bit buffers: ok against a reference kernel computing in float and against a
# C reference in double, within the types' default tolerances; off is wrong
$G run tests/gpu/data/half.conf --db "$db" >"$T/run6" 2>&1; rc=$?
chk '[ $rc -eq 1 ]' "half: exit $rc (want 1: off is wrong): $(tail -5 "$T/run6")"
for fam in half bf16 half_c; do
    st=$(q "select group_concat(status, ' ') from (select status from results where study='half16' and family='$fam' and variant='native' and is_latest=1 order by n)")
    chk '[ "$st" = "ok ok" ]' "$fam/native: '$st' (want 'ok ok'): $(q "select reason from results where study='half16' and family='$fam' and variant='native' and status<>'ok'")"
    cmp=$(q "select count(*) from results where study='half16' and family='$fam' and variant='native' and is_latest=1 and max_rel_err is not null")
    chk '[ "$cmp" -eq 2 ]' "$fam/native compared with its reference in $cmp runs (want 2)"
    st=$(q "select group_concat(status, ' ') from (select status from results where study='half16' and family='$fam' and variant='off' and is_latest=1 order by n)")
    chk '[ "$st" = "wrong wrong" ]' "$fam/off: '$st' (want 'wrong wrong')"
done
st=$(q "select reason from results where study='half16' and family='half_c' and variant='off' and n=1000 and is_latest=1")
chk 'echo "$st" | grep -q "1 of 1000 elements differ from .c:axpy_ref. (tolerance 2.0e-03); first at 333"' "half_c/off: $st"
$G query --db "$db" --md "select family, variant, n, status, max_rel_err from results where study='half16' and is_latest=1 order by family, variant, n"

# a C reference's expected outputs once per key: the same verdicts as computed per run
: >"$T/cref_cached.log"
CREF_LOG="$T/cref_cached.log" $G run tests/gpu/data/crefcache.conf --db "$T/cc1.db" >"$T/run7" 2>&1; rc1=$?
: >"$T/cref_each.log"
GPULAB_CREF_CACHE=0 CREF_LOG="$T/cref_each.log" $G run tests/gpu/data/crefcache.conf --db "$T/cc2.db" >"$T/run8" 2>&1; rc2=$?
chk '[ $rc1 -eq 1 ] && [ $rc2 -eq 1 ]' "crefcache: exits $rc1 and $rc2 (want 1: wrong_big is wrong): $(tail -3 "$T/run7")"
rows="select variant, n, bs, uparams, status, reason, max_rel_err from results where study='crefcache' and is_latest=1 order by variant, n, bs, uparams"
$G query --db "$T/cc1.db" --csv "$rows" >"$T/cc1.csv" 2>&1
$G query --db "$T/cc2.db" --csv "$rows" >"$T/cc2.csv" 2>&1
chk '[ "$(wc -l <"$T/cc1.csv")" -eq 25 ] && cmp -s "$T/cc1.csv" "$T/cc2.csv"' "crefcache: cached and uncached rows differ: $(diff "$T/cc1.csv" "$T/cc2.csv" | head -6)"
st=$($G query --db "$T/cc1.db" --csv "select group_concat(status || '@' || n, ' ') from (select status, n from results where study='crefcache' and variant='wrong_big' and is_latest=1 order by n, bs, uparams)" | tail -n 1)
chk '[ "$st" = "ok@4096 ok@4096 ok@4096 ok@4096 wrong@65536 wrong@65536 wrong@65536 wrong@65536" ]' "crefcache wrong_big: $st"
ok=$($G query --db "$T/cc1.db" --csv "select count(*) from results where study='crefcache' and variant<>'wrong_big' and status='ok' and max_rel_err is not null" | tail -n 1)
chk '[ "$ok" -eq 16 ]' "crefcache: $ok right runs ok and compared (want 16)"
chk '[ "$(wc -l <"$T/cref_cached.log")" -eq 2 ] && [ "$(wc -l <"$T/cref_each.log")" -eq 24 ]' "crefcache: the reference ran $(wc -l <"$T/cref_cached.log") times with the cache (want 2, one per N) and $(wc -l <"$T/cref_each.log") without (want 24)"
chk '[ "$(sort -u "$T/cref_each.log" | tr "\n" ";")" = "n=4096 factor=3 bs=-1 rep=-1 seed=-1;n=65536 factor=3 bs=-1 rep=-1 seed=-1;" ]' "crefcache: the reference was handed $(sort -u "$T/cref_each.log" | tr '\n' ';') (want N and FACTOR only)"

# kernels as users write them: CUB, cooperative groups, nvcc
$G run tests/gpu/data/cccl.conf --db "$db" >"$T/run9" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "cccl: exit $rc: $(tail -5 "$T/run9")"
grep -E '^compiled' "$T/run9"
n=$(q "select count(*) from results where study='cccl' and is_latest=1 and status='ok' and passes > 0")
chk '[ "$n" -eq 11 ]' "cccl: $n ok runs with counters (want 11): $(q "select group_concat(variant||' '||status||' '||ifnull(reason,''), '; ') from results where study='cccl' and status<>'ok'")"
n=$(q "select count(*) from results where study='cccl' and is_latest=1 and variant in ('cub','cg','s') and max_rel_err is not null")
chk '[ "$n" -eq 7 ]' "cccl: $n runs of cub, cg and s compared with their reference (want 7)"
st=$(q "select group_concat(x, ';') from (select distinct section||':'||compiler||':'||compile_options as x from results where study='cccl' order by x)")
chk '[ "$st" = "cccl:nvrtc:--use_fast_math -I inc;host:nvcc:" ]' "cccl: compiler and options stored as '$st'"
$G query --db "$db" --md "select section, variant, bs, round(median_ms, 4) as median_ms, max_rel_err,
    achieved_occupancy_pct, smem_conflicts_ld from results where study = 'cccl' and is_latest = 1
    order by section, variant, bs"

echo "transpose at the largest N, against copy:"
$G query --db "$db" --md "select r.variant, r.TILE, r.n, round(r.median_ms, 4) as median_ms,
    round(r.gbs, 1) as gbs, round(r.gbs / c.gbs, 2) as of_copy, r.smem_excess_ld, r.smem_excess_st,
    r.smem_conflicts_ld, r.smem_conflicts_st
    from results_transpose r join results_transpose c on c.variant = 'copy' and c.n = r.n and c.TILE = r.TILE
        and c.is_latest = 1
    where r.is_latest = 1 and r.n = (select max(n) from results where study = 'transpose')
    order by r.TILE, r.gbs desc"
echo "kernels-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
