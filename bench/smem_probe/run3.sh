#!/bin/bash
# bench/smem_probe/run3.sh - gpulab's own exact-conflict path on the GPU machine, from
# a copy of the built tree (W: build/, configs/, tests/gpu/, tests/data/, src/core/*.h):
# tests/gpu/smem.sh, the
# instrumented replay's cost on the transpose and reduction studies and on an S1-like
# matmul sweep (each run twice from empty databases: the default metrics, then
# `default, -smem_excess`), tests/gpu/kernels.sh and the engine's batch test
# (build/tests/gpu/test_plugin). O = results (log.txt, smem.db).
W=${1:-.probe-sass/wt}
O=${2:-${OUT:-/tmp/smem_run3}}
mkdir -p "$O"
cd "$W" || exit 1
exec > >(tee "$O/log.txt") 2>&1
set -o pipefail
export GPULAB_LOCK_DIR=$(mktemp -d) GPULAB_CACHE=$(mktemp -d)
now() { date +%s.%N; }
el() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
echo "== smem.sh"; t=$(now)
GPULAB_SMEM_DB="$O/smem.db" timeout 80 sh tests/gpu/smem.sh; echo "smem.sh rc=$? $(el "$t") s"

echo "== cost"
C=$(mktemp -d); cp -R configs "$C/on"; cp -R configs "$C/off"
sed -i 's/^metrics = default$/metrics = default, -smem_excess/' "$C/off/transpose.conf" "$C/off/reduction.conf"
cat > "$C/on/mm.conf" <<'CONF'
study = mm
time_cap = 0.5s
[gpu]
family = matmul
variants = shared
N = 2048, 3072
BS = 8, 16, 32
K = 1
mem = device
grid = 2d
CONF
sed 's/^study = mm$/study = mm\nmetrics = default, -smem_excess/' "$C/on/mm.conf" > "$C/off/mm.conf"
t=$(now)
./build/gpulab run "$C/on/transpose.conf" "$C/on/reduction.conf" --db "$C/warm.db" >/dev/null 2>&1
echo "warm-up (compiles the kernels into the cache): $(el "$t") s"
for cfg in "transpose.conf reduction.conf" "mm.conf"; do
    for side in on off; do
        set -- $cfg; files=""; for f in "$@"; do files="$files $C/$side/$f"; done
        t=$(now)
        GPULAB_CUPTI_TRACE=1 timeout 45 ./build/gpulab run $files --db "$C/$side-$1.db" >"$C/out" 2>&1; rc=$?
        echo "COST $side $cfg: rc=$rc wall $(el "$t") s; $(grep 'gpulab cupti trace' "$C/out" | tail -1)"
        tail -1 "$C/out"
        ./build/gpulab query --db "$C/$side-$1.db" --csv "select count(*) as runs, sum(smem_excess_ld is not null) as exact,
            round(sum(median_ms), 1) as sum_median_ms from results where device_kind = 'gpu'" | tail -1
    done
done
./build/gpulab query --db "$C/on-mm.conf.db" --md "select variant, n, bs, mem, round(median_ms, 3) as median_ms,
    cast(smem_excess_ld as integer) as ex_ld, cast(smem_excess_st as integer) as ex_st,
    cast(smem_conflicts_ld as integer) as hw_ld, cast(smem_conflicts_st as integer) as hw_st, smem_excess_reason
    from results where study = 'mm' order by variant, n, bs, mem"
./build/gpulab query --db "$C/on-transpose.conf.db" --md "select study, variant, n, bs, uparams,
    cast(smem_excess_ld as integer) as ex_ld, cast(smem_excess_st as integer) as ex_st,
    cast(smem_conflicts_ld as integer) as hw_ld, cast(smem_conflicts_st as integer) as hw_st
    from results where device_kind = 'gpu' and (n = 8192 or n = 1 << 26) order by study, variant, uparams"
# the same runs' durations with and without (the instrumented replay must not move them)
export LC_ALL=C
for f in transpose.conf mm.conf; do
    for side in on off; do
        ./build/gpulab query --db "$C/$side-$f.db" --csv "select family || '/' || variant || ' ' || n || ' ' ||
            coalesce(bs, '') || ' ' || coalesce(g, '') || ' ' || coalesce(mem, '') || ' ' ||
            coalesce(uparams, ''), gpu_time_ns
            from results where device_kind = 'gpu' and gpu_time_ns is not null" | tail -n +2 | sort > "$C/$side.csv"
    done
    join -t, "$C/on.csv" "$C/off.csv" | awk -F, -v f="$f" '$3 > 0 { d = ($2 - $3) / $3; if (d < 0) d = -d; s += d; n++; if (d > m) m = d }
        END { if (n) printf "gpu_time_ns with vs without the instrumented replay (%s): %d runs, mean |d| %.2f %%, max %.2f %%\n", f, n, 100 * s / n, 100 * m }'
done

echo "== kernels.sh"; t=$(now)
timeout 75 sh tests/gpu/kernels.sh | tail -25; echo "kernels.sh rc=$? $(el "$t") s"
echo "== test_plugin"; t=$(now)
timeout 25 ./build/tests/gpu/test_plugin | tail -8; echo "test_plugin rc=$? $(el "$t") s"
