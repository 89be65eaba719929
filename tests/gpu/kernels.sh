#!/bin/sh
# tests/gpu/kernels.sh - users' kernels on a GPU (run by tests/gpu/run.sh): both
# examples (configs/transpose.conf, configs/reduction.conf) run verified with
# counters; a second run compiles and runs nothing; an edited kernel runs its own
# study again and nothing else; a kernel that writes out of bounds is stored
# failed with the CUDA error while the sweep completes the rest; a kernel section
# verified against a C reference (tests/gpu/data/cref.conf) is ok, and a wrong
# kernel there is wrong; every shared-memory run has its exact bank conflicts (the
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
