#!/bin/sh
# tests/gpu/objects.sh - step 16's arrays, textures, surfaces, tensor maps and
# 8-bit buffers on a GPU (run by tests/gpu/run.sh), on tests/collection/ files
# (collection.sh runs each config with counters too; this checks what each
# promises):
#   tex_bilinear.conf  both upscales ok against the C reference, with counters;
#   surface_scale.conf ok; the same kernel scaling by 3 where the reference wants
#                      2 is wrong at output 'dst' (the surface's array is read
#                      back and compared, not skipped);
#   tma_scale.conf     the TMA kernel ok against the plain one (its tensor map
#                      built from the buffer at each run), with counters;
#   igemm_wmma.conf    the int8 WMMA GEMM exact (max_rel_err 0) against the loop;
#   compact.conf       both compactions ok as multisets (output unordered), the
#                      count exact.
# Ends with "objects-gpu: N passed, N failed". Must not rebuild anything.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL objects-gpu: $2"; fi; }
C=tests/collection
db=$T/o.db
q() { $G query --db "$db" --tsv "$1" | tail -n 1; }
why() { q "select group_concat(variant || ' ' || status || ' ' || ifnull(reason, '') || ' ' || ifnull(metrics_reason, ''), '; ') from results where study = '$1' and is_latest = 1"; }
for c in tex_bilinear surface_scale tma_scale igemm_wmma compact; do
    $G run $C/$c.conf --db "$db" >"$T/run" 2>&1; rc=$?
    chk '[ $rc -eq 0 ]' "$c: exit $rc: $(tail -3 "$T/run")"
    all=$(q "select count(*) from results where study = '$c' and is_latest = 1")
    good=$(q "select count(*) from results where study = '$c' and is_latest = 1 and status = 'ok' and (max_rel_err is not null or (select check_method from run where run.id = results.run_id) = 'written') and passes > 0")
    chk '[ "$all" -gt 0 ] && [ "$good" -eq "$all" ]' "$c: $good of $all runs ok, verified and profiled: $(why $c)"
    $G query --db "$db" --md "select variant, uparams, status, round(median_ms, 4) as median_ms, max_rel_err,
        round(gbs, 1) as gbs, round(gflops, 1) as gflops from results where study = '$c' and is_latest = 1
        order by variant, uparams"
done
e=$(q "select max(max_rel_err) from results where study = 'igemm_wmma' and variant = 'wmma' and is_latest = 1")
chk '[ "$e" = "0" ] || [ "$e" = "0.0" ]' "igemm_wmma: max_rel_err $e (want 0: int outputs exact)"
n=$(q "select count(*) from results where study = 'compact' and status = 'ok' and is_latest = 1")
chk '[ "$n" -eq 4 ]' "compact: $n runs ok as multisets (want 4): $(why compact)"
# a wrong scale: the array read back through the surface is compared and found wrong
mkdir -p "$T/s3"
cp $C/surface_scale.cu $C/surface_scale_ref.c "$T/s3/"
sed 's/^args = src_tex, dst_surf, int W, int H, float 2$/args = src_tex, dst_surf, int W, int H, float 3\nmetrics = none/' \
    $C/surface_scale.conf >"$T/s3/surface_scale.conf"
chk 'grep -q "float 3$" "$T/s3/surface_scale.conf" && grep -q "^metrics = none$" "$T/s3/surface_scale.conf"' "surface_scale: the args line was not edited"
$G run "$T/s3/surface_scale.conf" --db "$T/s3.db" >"$T/run" 2>&1
n=$($G query --db "$T/s3.db" --tsv "select count(*) from results where status = 'wrong' and reason like '%output ''dst''%'" | tail -n 1)
chk '[ "$n" -eq 2 ]' "surface_scale x3: $n runs wrong at output 'dst' (want 2): $($G query --db "$T/s3.db" --tsv "select group_concat(status || ' ' || ifnull(reason, ''), '; ') from results" | tail -n 1)"
echo "objects-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
