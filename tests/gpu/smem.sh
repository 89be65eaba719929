#!/bin/sh
# tests/gpu/smem.sh - exact shared-memory bank conflicts on a GPU (run by
# tests/gpu/run.sh): tests/gpu/data/smem.conf through the driver, then what the
# access patterns imply, against smem_excess_ld / _st (the wavefronts beyond the
# ideal, CUPTI's instrumented SASS counts):
# - transpose, N = 8192 (N*N/32 = 2 097 152 warp-level shared loads and as many
#   stores): padded TILE = 32 has 0 excess both ways while the hardware counter
#   l1tex__data_bank_conflicts_..._op_ld is above 0; tiled TILE = 32 has 31 excess
#   wavefronts per column-read instruction (32-way), stores none; tiled TILE = 16
#   7 per load (8-way); padded TILE = 16 exactly 1 per load and per store (2-way);
#   naive uses no shared memory: NULL with that reason;
# - matmul/shared N = 3072 BS = 8: 0 excess stores (and loads) where the hardware
#   store counter says millions; matmul/global: NULL, no shared memory; grid = 1d
#   (many launches in one run): measured, 0;
# - `metrics = default, -smem_excess`: NULL with "not requested", the hardware
#   counters there; `metrics = smem_excess`: only the exact conflicts, one pass;
# - smem_kinds.conf (matmul/shared in device, zero-copy and managed memory): one
#   instrumented replay per point, the other kinds' runs carry its values with the
#   note; under GPULAB_SMEM=each all six are instrumented and give the same values.
# Prints the table and the engine's trace (GPULAB_CUPTI_TRACE: the instrumented
# replays' time), and ends with "smem-gpu: N passed, N failed". Must not rebuild.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
db=${GPULAB_SMEM_DB:-$T/s.db}
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL smem-gpu: $2"; fi; }
q() { $G query --db "$db" --csv "$1" | tail -n 1; }
# "ld st" of the newest run matching $1, integers; "null" where not measured
# (printf of a NULL is "0": hence the case)
ex() { q "select case when smem_excess_ld is null then 'null' else printf('%.0f', smem_excess_ld) end
                 || ' ' ||
                 case when smem_excess_st is null then 'null' else printf('%.0f', smem_excess_st) end
          from results_smem where is_latest = 1 and status = 'ok' and $1"; }
why() { q "select coalesce(smem_excess_reason, '') from results_smem where is_latest = 1 and $1"; }

t0=$(date +%s)
GPULAB_CUPTI_TRACE=1 $G run tests/gpu/data/smem.conf --db "$db" --force >"$T/run" 2>&1; rc=$?
t1=$(date +%s)
grep -E "^\[|gpulab cupti (trace|smem)" "$T/run"
chk '[ $rc -eq 0 ]' "smem.conf: exit $rc: $(tail -3 "$T/run")"
ok=$(q "select count(*) from results where study = 'smem' and is_latest = 1 and status = 'ok'")
chk '[ "$ok" -eq 11 ]' "$ok of 11 runs ok"

I=2097152
got=$(ex "family = 'transpose' and variant = 'padded' and TILE = 32")
chk '[ "$got" = "0 0" ]' "padded TILE=32: excess ld st '$got' (want '0 0')"
hw=$(q "select printf('%.0f', smem_conflicts_ld) from results_smem where family = 'transpose'
        and variant = 'padded' and TILE = 32 and is_latest = 1")
chk '[ -n "$hw" ] && [ "$hw" -gt 0 ]' "padded TILE=32: the hardware load counter is '$hw' (want > 0: arbitration it counts as conflicts)"
got=$(ex "family = 'transpose' and variant = 'tiled' and TILE = 32")
chk '[ "$got" = "$((31 * I)) 0" ]' "tiled TILE=32: '$got' (want 31 x $I column-read loads, 0 stores)"
got=$(ex "family = 'transpose' and variant = 'tiled' and TILE = 16")
chk '[ "$got" = "$((7 * I)) 0" ]' "tiled TILE=16: '$got' (want 7 x $I, 0)"
got=$(ex "family = 'transpose' and variant = 'padded' and TILE = 16")
chk '[ "$got" = "$I $I" ]' "padded TILE=16: '$got' (want $I $I: 2-way both ways)"
got=$(ex "family = 'transpose' and variant = 'naive' and TILE = 32")
r=$(why "family = 'transpose' and variant = 'naive' and TILE = 32")
chk '[ "$got" = "null null" ] && [ "$r" = "not measured: the kernel uses no shared memory" ]' "naive: '$got', '$r'"

got=$(ex "family = 'matmul' and variant = 'shared' and n = 3072 and bs = 8")
chk '[ "$got" = "0 0" ]' "matmul/shared N=3072 BS=8: '$got' (want '0 0')"
hw=$(q "select printf('%.0f', smem_conflicts_st) from results_smem where family = 'matmul'
        and variant = 'shared' and n = 3072 and is_latest = 1")
chk '[ -n "$hw" ] && [ "$hw" -gt 1000000 ]' "matmul/shared N=3072 BS=8: hardware store counter '$hw' (want millions)"
r=$(why "family = 'matmul' and variant = 'global'")
chk '[ "$r" = "not measured: the kernel uses no shared memory" ]' "matmul/global: '$r'"
got=$(ex "variant = 'shared' and grid = '1d'")
l=$(q "select launches from results_smem where grid = '1d' and is_latest = 1")
chk '[ "$got" = "0 0" ] && [ "$l" -gt 1 ]' "grid=1d ($l launches): '$got' (want '0 0')"

got=$(ex "variant = 'shared' and n = 512 and bs = 16")
r=$(why "variant = 'shared' and n = 512 and bs = 16")
hw=$(q "select smem_conflicts_ld is not null from results_smem where n = 512 and bs = 16 and is_latest = 1")
chk '[ "$got" = "null null" ] && [ "$r" = "not requested: the metrics list leaves out smem_excess" ] && [ "$hw" = 1 ]' \
    "-smem_excess: '$got', '$r', hardware counter there: $hw"
got=$(ex "variant = 'shared' and n = 512 and bs = 32")
other=$(q "select passes || ' ' || (gpu_time_ns is null) || ' ' ||
               (select count(*) from metric m where m.run_id = r.run_id)
           from results_smem r where n = 512 and bs = 32 and is_latest = 1")
chk '[ "$got" = "0 0" ] && [ "$other" = "1 1 2" ]' "smem_excess alone: '$got', passes / no duration / metrics '$other' (want '1 1 2')"
rows=$(q "select count(*) from metric where name in ('gpulab__smem_excess_wavefronts_ld.sum',
                                                   'gpulab__smem_excess_wavefronts_st.sum')")
chk '[ "$rows" -eq 14 ]' "$rows exact-conflict metric rows (want 14: 7 runs measured, 2 each)"

echo "smem.conf: $((t1 - t0)) s in all"

# memory kinds share the exact conflicts of their point (src/core/smem_share.h)
kq() { $G query --db "$1" --csv "$2" | tail -n 1; }
kv() { $G query --db "$1" --csv "select family || ':' || bs || ':' || coalesce(mem, 'device') || '=' ||
        printf('%.0f', smem_excess_ld) || '/' || printf('%.0f', smem_excess_st) as v
        from results where study = 'smem_kinds' and is_latest = 1 and status = 'ok' and smem_excess_ld is not null
        and smem_excess_st is not null order by family, bs, mem" | tail -n +2 | tr '\n' ' '; }
GPULAB_CUPTI_TRACE=1 $G run tests/gpu/data/smem_kinds.conf --db "$T/k1.db" >"$T/k1" 2>&1; rk1=$?
GPULAB_SMEM=each GPULAB_CUPTI_TRACE=1 $G run tests/gpu/data/smem_kinds.conf --db "$T/k2.db" >"$T/k2" 2>&1; rk2=$?
chk '[ $rk1 -eq 0 ] && [ $rk2 -eq 0 ]' "smem_kinds.conf: exit $rk1 and $rk2 (GPULAB_SMEM=each): $(tail -2 "$T/k1") $(tail -2 "$T/k2")"
i1=$(grep -c "gpulab cupti smem:" "$T/k1"); i2=$(grep -c "gpulab cupti smem:" "$T/k2")
chk '[ "$i1" -eq 2 ] && [ "$i2" -eq 6 ]' "instrumented replays: $i1 shared (want 2), $i2 each (want 6)"
sh1=$(kq "$T/k1.db" "select count(*) from run where smem_excess_reason like 'shared: measured on the same point''s mem=device run%'")
sh2=$(kq "$T/k2.db" "select count(*) from run where smem_excess_reason like 'shared:%'")
chk '[ "$sh1" -eq 4 ] && [ "$sh2" -eq 0 ]' "runs carrying a device run's values: $sh1 (want 4), under each $sh2 (want 0)"
v1=$(kv "$T/k1.db"); v2=$(kv "$T/k2.db")
chk '[ "$(echo $v1 | wc -w)" -eq 6 ] && [ "$v1" = "$v2" ]' "exact conflicts shared '$v1', each run measured '$v2' (want 6, the same)"
echo "smem-gpu: memory kinds, shared: $v1"
$G query --db "$db" --md "select family, variant, n, bs, grid, TILE, round(median_ms, 4) as median_ms,
    cast(smem_excess_ld as integer) as excess_ld, cast(smem_excess_st as integer) as excess_st,
    cast(smem_conflicts_ld as integer) as hw_ld, cast(smem_conflicts_st as integer) as hw_st,
    passes, smem_excess_reason
    from results_smem where is_latest = 1 order by run_id"
echo "smem-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
