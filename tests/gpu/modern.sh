#!/bin/sh
# tests/gpu/modern.sh - kernels for today's GPUs on the GPU (run by tests/gpu/run.sh;
# the collection's coop_reduce, cluster_pairs, persistent and arch90a runs, verified
# and profiled, are collection.sh's): what each stores - the cooperative launch, the
# clusters, the target sm_90a, the device values its expressions read - and the
# points that must be `skip` with their reasons: a cooperative grid larger than
# what is resident at once (with the numbers), a grid that is not a multiple of the
# cluster, an sm_100a point on this GPU. Needs compute capability 9.0 (an
# H100); says it skipped otherwise. Ends with "modern-gpu: N passed, N failed".
# Must not rebuild anything.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL modern-gpu: $2"; fi; }
$G device >"$T/dev" 2>/dev/null
cc=$(sed -n 's/^ *compute capability: *\([0-9]*\)\.\([0-9]*\).*/\1\2/p' "$T/dev" | head -n 1)
sms=$(sed -n 's/^ *multiprocessors: *\([0-9]*\).*/\1/p' "$T/dev" | head -n 1)
if [ "$cc" != "90" ]; then
    echo "modern-gpu: skipped: needs compute capability 9.0 (got '${cc:-none}')"
    echo "modern-gpu: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
C=tests/collection
cp $C/coop_reduce.cu $C/coop_reduce_ref.c $C/cluster_pairs.cu $C/cluster_pairs_ref.c \
   $C/arch90a.cu $C/arch90a_ref.c $C/persistent.cu $C/persistent_ref.c "$T/"
q() { $G query --db "$T/m.db" --tsv "$1" | tail -n 1; }

# 1. the cooperative reduction at one wave (ok) and at 2x and 4x the resident blocks (skip)
sed 's/^grid = .*/grid = W * sm_count * occupancy(BS, 0)/; s/^buffer.partial = .*/buffer.partial = float[W * sm_count * occupancy(BS, 0)] zero/; s/^N = .*/N = 1<<22\nW = 1, 2, 4/' \
    $C/coop_reduce.conf > "$T/coop.conf"
$G run "$T/coop.conf" --db "$T/m.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "coop run: exit $rc: $(tail -5 "$T/out")"
ok=$(q "select count(*) from results where study = 'coop_reduce' and status = 'ok' and max_rel_err is not null and passes > 0 and launch_kind = 'cooperative'")
chk '[ "$ok" = "1" ]' "coop: one wave ok, verified, profiled, launch_kind cooperative: $ok ($(q "select group_concat(status || ' ' || ifnull(reason, ''), '; ') from results where study = 'coop_reduce'"))"
sk=$(q "select count(*) from results where study = 'coop_reduce' and status = 'skipped' and reason like 'launch = cooperative: a grid of % blocks cannot be resident at once: % blocks of 256 threads % fit per SM x $sms SMs = %'")
chk '[ "$sk" = "2" ]' "coop: 2x and 4x the resident grid skipped with the numbers: $sk ($(q "select group_concat(ifnull(reason, ''), '; ') from results where study = 'coop_reduce'"))"
dv=$(q "select device_values from results where study = 'coop_reduce' and status = 'ok'")
chk 'echo "$dv" | grep -q "sm_count=$sms" && echo "$dv" | grep -q "occupancy(256,0)=[1-9]"' "coop: device values stored: '$dv'"

# 2. clusters: ok at 2, 4, 8 (verified); a grid not a multiple of the cluster and a
#    (a cluster that cannot be resident is skipped too, but no portable cluster of
#    at most 8 blocks is too big for an H100's GPCs: not shown here)
cp $C/cluster_pairs.conf "$T/cluster_pairs.conf"
cat >> "$T/cluster_pairs.conf" <<'EOF'

[cluster_skip]
source = cluster_pairs.cu
compiler = nvcc
variants = cluster_sum
NB = 1026
CS = 4
TILE = 256
defines = TILE
cluster = CS
buffer.in = float[NB*TILE] random
buffer.out = float[NB*TILE] output
args = in, out
grid = NB
block = 128
verify = c:cluster_pairs_ref.c:cluster_pairs_ref
verify_reads = CS, TILE, NB

EOF
$G run "$T/cluster_pairs.conf" --db "$T/m.db" >"$T/out" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "cluster run: exit $rc: $(tail -5 "$T/out")"
ok=$(q "select count(*) from results where study = 'cluster_pairs' and section in ('cluster_sum', 'pair_sum') and status = 'ok' and max_rel_err is not null and passes > 0")
chk '[ "$ok" = "7" ]' "clusters: 7 runs ok, verified, profiled: $ok ($(q "select group_concat(section || ' ' || status || ' ' || ifnull(reason, ''), '; ') from results where study = 'cluster_pairs'"))"
lk=$(q "select group_concat(distinct launch_kind) from (select launch_kind from results where study = 'cluster_pairs' and section = 'cluster_sum' order by launch_kind)")
chk '[ "$lk" = "cluster 2x1x1,cluster 4x1x1,cluster 8x1x1" ]' "clusters stored as launch_kind: '$lk'"
sk=$(q "select reason from results where study = 'cluster_pairs' and section = 'cluster_skip'")
chk 'echo "$sk" | grep -q "grid x = 1026 blocks is not a multiple of the cluster"' "cluster_skip: '$sk'"

# 3. sm_90a: ok, stored with its target
$G run $C/arch90a.conf --db "$T/m.db" >"$T/out" 2>&1; rc=$?
t=$(q "select status || ' ' || target from results where study = 'arch90a'")
chk '[ $rc -eq 0 ] && [ "$t" = "ok sm_90a" ]' "arch90a: exit $rc, '$t'"
# --arch 90a on the command line: the persistent kernel compiled and stored as sm_90a
$G run $C/persistent.conf --db "$T/m.db" --arch 90a >"$T/out" 2>&1; rc=$?
t=$(q "select group_concat(distinct status || ' ' || target) from results where study = 'persistent'")
chk '[ $rc -eq 0 ] && [ "$t" = "ok sm_90a" ]' "persistent --arch 90a: exit $rc, '$t' $(tail -3 "$T/out")"
# an sm_100a point on this GPU: skip with the reason
sed 's/^arch = 90a/arch = 100a/' $C/arch90a.conf > "$T/a100.conf"
$G run "$T/a100.conf" --db "$T/m.db" >"$T/out" 2>&1; rc=$?
t=$(q "select reason from results where study = 'arch90a' and target = 'sm_100a'")
chk 'echo "$t" | grep -q "target sm_100a runs on compute capability 10.0 only, and this GPU is 9.0"' "sm_100a on 9.0: exit $rc, '$t'"

# 4. the persistent kernel: grid = sm_count * occupancy stored, G = sm_count as a parameter
g=$(q "select group_concat(distinct g) from (select g from results where study = 'persistent' and section = 'persistent_g' order by g)")
chk '[ "$g" = "$sms,$((2 * sms))" ]' "persistent_g: G stored as '$g' (want $sms,$((2 * sms)))"
gx=$(q "select count(*) from results where study = 'persistent' and section = 'persistent' and grid_x = $sms * blocks_per_sm and device_values like 'sm_count=$sms, occupancy(%'")
chk '[ "$gx" = "4" ]' "persistent: grid_x = $sms x blocks_per_sm with its device values, 4 runs: $gx ($(q "select group_concat(grid_x || ' ' || blocks_per_sm || ' ' || ifnull(device_values, ''), '; ') from results where section = 'persistent'"))"
echo "modern-gpu: $pass passed, $fail failed"
[ $fail -eq 0 ]
