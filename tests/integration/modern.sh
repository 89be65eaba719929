#!/bin/sh
# tests/integration/modern.sh - kernels for today's GPUs without a GPU (docs/kernels.md,
# "Launches for today's GPUs"): the collection's cooperative reduction, cluster
# kernel, persistent kernel and sm_90a kernel plan with their targets; a grid-wide
# sync without `launch = cooperative`, a cluster of more than 8 blocks, an arch
# the toolkit lacks and the other mistakes are file:line errors (exit 2); plan
# compiles a point it skips for its shared memory, so a kernel that does not
# compile there fails plan; plan says what it assumes of sm_count. Ends with
# "modern: N passed, N failed". Needs the GPU plugin (nvcc, NVRTC), no GPU.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL modern: $2"; fi; }
if [ ! -e build/libgpulab_gpu.so ]; then
    echo "modern: skipped: needs build/libgpulab_gpu.so"
    echo "modern: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
C=tests/collection
# --- the collection's files plan, each with its target
$G plan $C/coop_reduce.conf --db "$T/a.db" >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -q "^compiled 1 kernel.*(sm_90" "$T/out"' "coop_reduce plan: exit $rc: $(head -c 600 "$T/out")"
check 'grep -q "no GPU: sm_count = 132" "$T/out"' "plan says what it assumes of sm_count: $(head -c 600 "$T/out")"
$G plan $C/arch90a.conf --db "$T/a.db" >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -q "^compiled 1 kernel, 0 from the cache (sm_90a" "$T/out"' "arch90a plan: exit $rc: $(head -c 600 "$T/out")"
$G plan $C/cluster_pairs.conf --db "$T/a.db" >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -q "cluster_pairs.conf (study cluster_pairs): 7 jobs" "$T/out"' "cluster plan: exit $rc: $(head -c 600 "$T/out")"
$G plan $C/persistent.conf --db "$T/a.db" >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -q "6 jobs" "$T/out"' "persistent plan: exit $rc: $(head -c 600 "$T/out")"
# --arch 90a on the command line: every section without its own arch
$G plan $C/persistent.conf --db "$T/a.db" --arch 90a >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -q "(sm_90a" "$T/out"' "--arch 90a: exit $rc: $(grep compiled "$T/out")"
$G plan $C/persistent.conf --db "$T/a.db" --arch 9x >"$T/out" 2>&1; rc=$?
check '[ $rc -ne 0 ] && grep -q "arch-specific target such as 90a" "$T/out"' "--arch 9x: exit $rc: $(head -c 300 "$T/out")"

# --- mistakes: file:line, exit 2
cp $C/coop_reduce.cu $C/coop_reduce_ref.c $C/cluster_pairs.cu $C/cluster_pairs_ref.c \
   $C/arch90a.cu $C/arch90a_ref.c "$T/"
bad() {   # bad NAME EXPECTED-TEXT: plan $T/NAME.conf exits 2 with the text on a file:line
    $G plan "$T/$1.conf" --db "$T/b.db" >"$T/out" 2>&1; rc=$?
    name=$1 want=$2
    check '[ $rc -eq 2 ] && grep -q "^$T/$name.conf:[0-9]*: " "$T/out" && grep -qF -- "$want" "$T/out"' \
        "$name: exit $rc: $(head -c 700 "$T/out")"
}
sed '/^launch = cooperative/d' $C/coop_reduce.conf > "$T/nocoop.conf"
bad nocoop "kernel reduce_coop calls a grid-wide sync (grid.sync() at $T/coop_reduce.cu:48), which needs a cooperative launch"
sed 's/^launch = cooperative/launch = coperative/' $C/coop_reduce.conf > "$T/typo.conf"
bad typo "launch = 'coperative': not a kind of launch (did you mean 'cooperative'?)"
sed 's/^launch = cooperative/mode = cooperative/' $C/coop_reduce.conf > "$T/unk.conf"
bad unk "unknown key 'mode' (not a key of a kernel section"
sed 's/^CS = 2, 4, 8/CS = 2/; s/^cluster = CS/cluster = 16/; s/^verify_reads = CS, TILE, NB/verify_reads = TILE, NB/' $C/cluster_pairs.conf > "$T/big.conf"
bad big "cluster = 16 x 1 x 1 is 16 blocks: more than the portable 8; a larger (non-portable) cluster needs the kernel's attribute cudaFuncAttributeNonPortableClusterSizeAllowed"
sed 's/^\[pair_sum\]/[pair_sum]\ncluster = 2/' $C/cluster_pairs.conf > "$T/twice.conf"
bad twice "cluster: kernel pair_sum has __cluster_dims__(2, 1, 1)"
sed 's/^arch = 90a/arch = 95a/' $C/arch90a.conf > "$T/arch95.conf"
bad arch95 "arch: this toolkit's compiler cannot make sm_95a"
sed 's/^arch = 90a/arch = 90/' $C/arch90a.conf > "$T/arch90.conf"
bad arch90 "arch = 90: a kernel section names only an arch-specific target"
sed 's/^arch = 90a/arch = hopper/' $C/arch90a.conf > "$T/archw.conf"
bad archw "arch: 'hopper' is not a target"
sed 's/^buffer.partial = .*/buffer.partial = float[sm_count] zero(0)/' $C/coop_reduce.conf > "$T/zero.conf"
bad zero "'zero' takes no arguments"
sed 's/^grid = .*/grid = sm_count * occupancy(BS)/' $C/coop_reduce.conf > "$T/occ.conf"
bad occ "occupancy takes two arguments"

# --- plan compiles a point it cannot run here for its shared memory: over 48 KiB
# (within sm_90's 227 KiB) it is no longer skipped; over 227 KiB it is skipped and
# still compiled, so a kernel that does not compile there fails plan
cat > "$T/big.cu" <<'EOF'
__global__ void big(float *x)
{
    extern __shared__ float s[];
#if SMEM_KB > 200
    this does not compile;
#endif
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}
EOF
cat > "$T/smem.conf" <<'EOF'
[big]
source = big.cu
variants = big
SMEM_KB = 100
defines = SMEM_KB
buffer.x = float[256] random output
args = x
grid = 1
block = 256
smem = SMEM_KB*1024
verify = none
EOF
$G plan "$T/smem.conf" --db "$T/b.db" >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -q "^compiled 1 kernel" "$T/out" && ! grep -q "rejected 1x" "$T/out"' "100 KiB of shared memory plans on sm_90: exit $rc: $(head -c 600 "$T/out")"
sed 's/^SMEM_KB = 100/SMEM_KB = 240/' "$T/smem.conf" > "$T/smem2.conf"
$G plan "$T/smem2.conf" --db "$T/b.db" >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 2 ] && grep -q "source: .*big.cu does not compile" "$T/out"' "240 KiB point compiled by plan: exit $rc: $(head -c 600 "$T/out")"
sed 's/^SMEM_KB = 100/SMEM_KB = 150/' "$T/smem.conf" > "$T/smem3.conf"
$G plan "$T/smem3.conf" --db "$T/b.db" --arch 86 >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -q "dynamic shared memory of 153600 bytes exceeds the sm_86 limit of 101376" "$T/out" && grep -q "^compiled 1 kernel" "$T/out"' "150 KiB on sm_86: skipped with the target's limit, compiled: exit $rc: $(head -c 600 "$T/out")"
echo "modern: $pass passed, $fail failed"
[ $fail -eq 0 ]
