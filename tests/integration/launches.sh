#!/bin/sh
# tests/integration/launches.sh - launch sequences (launch.NAME lines of a kernel
# section) without a GPU: a three-launch pipeline with dim3 shapes, a template
# launch and a loop plans and compiles each launch line's kernel once; the
# collection's histogram and multi-pass reduction plan; a point whose launch
# cannot run is rejected by check with the launch named; and every mistake
# exits 2 with file:line: a kernel the file lacks (did you mean), a repeat count
# that is no expression, negative or over the limit (as written, or at a point
# of the sweep), a buffer passed to no launch, `variant` without variants,
# variants no launch runs, a section's own args beside launch lines, a buffer
# typo in a launch's arguments, malformed chevrons, a loop variable that is a
# named parameter, and a loop variable read outside its launch.
# Must not need a GPU; the compile checks need the GPU plugin (NVRTC) and say
# they are skipped where it is missing.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0; skipped=0
ok()   { pass=$((pass + 1)); }
bad()  { fail=$((fail + 1)); echo "FAIL launches: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }

mkdir -p "$T/k"
cat >"$T/k/pipe.cu" <<'CU'
__global__ void scale(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];
}

__global__ void shift(float *out, int n, int by)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] += (float)by;
}

template <int B>
__global__ void halve(float *x, int n, int stride)
{
    int i = blockIdx.x * B + threadIdx.x;
    if (i < n && i % stride == 0)
        x[i] *= 0.5f;
}
CU
# base.conf: line 8 is the first launch line, 10 the looped one
cat >"$T/base.conf" <<'CONF'
study = ltest
[pipe]
source = k/pipe.cu
N = 1024, 4096
BS = 128
buffer.in = float[N] random
buffer.out = float[N] output
launch.scale = scale<<<cdiv(N, BS), BS>>>(out, in, int N)
launch.shift = shift<<<dim3(cdiv(N, BS)), dim3(BS, 1)>>>(out, int N, int 3)
launch.halve = halve<BS><<<cdiv(N, BS), BS, 0>>>(out, int N, int N >> s) for s < log2(N) - 8
bytes = 8*N
CONF

have_plugin=1
[ -e build/libgpulab_gpu.so ] || have_plugin=0

# --- a pipeline plans, its three kernels compiled once ------------------------------
if [ $have_plugin -eq 1 ]; then
    $G plan "$T/base.conf" --db "$T/r.db" --arch 90 >"$T/out" 2>"$T/err"; rc=$?
    check '[ $rc -eq 0 ]' "plan exit $rc: $(cat "$T/err")"
    check 'grep -q "compiled 1 kernel, 0 from the cache (sm_90; 1 program compiled)" "$T/out"' \
        "pipeline: not compiled as one kernel key of one program: $(cat "$T/out")"
    check 'grep -q "ltest): 2 jobs" "$T/out"' "pipeline: not 2 jobs: $(cat "$T/out")"
    check 'grep -q "pipe/pipe N=4096 BS=128" "$T/out"' "pipeline: variant named like the section: $(cat "$T/out")"
    # the three kernels are in the cache: halve<128> by its name record
    n=$(ls "$T/cache" | grep -c '\.name$')
    check '[ "$n" -eq 3 ]' "pipeline: $n kernel records in the cache (want 3: scale, shift, halve<128>)"
    $G plan "$T/base.conf" --db "$T/r.db" --arch 90 >"$T/out" 2>"$T/err"
    check 'grep -q "compiled 1 kernel, 1 from the cache" "$T/out"' "second plan compiled again: $(cat "$T/out")"
    # the collection's sequences plan
    for c in histogram reduce_passes; do
        $G plan tests/collection/$c.conf --db "$T/c.db" --arch 90 >"$T/out" 2>"$T/err"; rc=$?
        check '[ $rc -eq 0 ] && grep -qE ": 8 jobs|: 4 jobs" "$T/out"' "$c: plan exit $rc: $(cat "$T/err" "$T/out" | head -c 600)"
    done
else
    skipped=$((skipped + 1))
    echo "launches: compile checks skipped: needs build/libgpulab_gpu.so"
fi

# --- a launch that cannot run at a point: rejected by check, the launch named ------
sed -e 's/^launch.shift = .*/launch.shift = shift<<<dim3(cdiv(N, BS)), dim3(BS, N \/ 256)>>>(out, int N, int 3)/' \
    "$T/base.conf" >"$T/rej.conf"
$G plan "$T/rej.conf" --db "$T/r.db" --arch 90 >"$T/out" 2>"$T/err"; rc=$?
check '[ $rc -eq 0 ]' "rejected point: plan exit $rc: $(cat "$T/err")"
check 'grep -q "rejected 1x: launch.shift: block of 2048 threads exceeds the device limit of 1024" "$T/out" && grep -q "1 to run\|1 need a GPU" "$T/out"' \
    "rejected point: want N=4096 rejected (128 x 16 threads) and N=1024 kept: $(cat "$T/out")"
sed -e 's/^launch.halve = .*/launch.halve = halve<BS><<<cdiv(N, BS) - s, BS>>>(out, int N, int 1) for s < cdiv(N, BS) + 1/' \
    "$T/base.conf" >"$T/rej2.conf"
$G plan "$T/rej2.conf" --db "$T/r.db" --arch 90 >"$T/out" 2>"$T/err"
check 'grep -q "launch.halve (s = 8): grid x = cdiv(N, BS) - s = 0 blocks" "$T/out"' \
    "a pass with no block: not rejected naming the launch and pass: $(cat "$T/out")"

# --- mistakes: exit 2, file:line ------------------------------------------------------
# err NAME SED-SCRIPT LINE PATTERN: base.conf edited by SED-SCRIPT must exit 2 with
# "NAME.conf:LINE: ..." matching PATTERN.
err() {
    sed -e "$2" "$T/base.conf" >"$T/$1.conf"
    $G plan "$T/$1.conf" --db "$T/r.db" --arch 90 >"$T/out" 2>"$T/err"; rc=$?
    if [ $rc -eq 2 ] && grep -q "$1.conf:$3: .*$4" "$T/err"; then ok
    else bad "$1: exit $rc (want 2), want '$1.conf:$3: ...$4': $(cat "$T/err" | head -c 400)"; fi
}
err kernel 's/scale<<</scal<<</' 8 "launch.scale: no kernel 'scal' in .*k/pipe.cu (did you mean 'scale'?)"
err template 's/halve<BS><<</halv<BS><<</' 10 "launch.halve: no kernel 'halv' in .*k/pipe.cu (did you mean 'halve'?)"
err countsyntax 's/for s < log2(N) - 8/for s < log2(N) -/' 10 "launch.halve: repeat count 'log2(N) -': expected a value"
err countname 's/for s < log2(N) - 8/for s < log2(NN)/' 10 "launch.halve: repeat count 'log2(NN)': unknown parameter 'NN'"
err negative 's/for s < log2(N) - 8/for s < 2 - 5/' 10 "repeat count 2 - 5 = -3 (must be 0 to 1024)"
err huge 's/for s < log2(N) - 8/for s < 1 << 20/' 10 "repeat count 1 << 20 = 1048576 (must be 0 to 1024)"
err huge_at_point 's/for s < log2(N) - 8/for s < N \/ 2/' 10 "launch.halve: repeat count N / 2 = 2048 at N=4096 BS=128 .*(must be 0 to 1024)"
err neg_at_point 's/for s < log2(N) - 8/for s < log2(N) - 11/' 10 "launch.halve: repeat count log2(N) - 11 = -1 at N=1024"
err loopform 's/for s < log2(N) - 8/for s <= 3/' 10 "write 'for s < COUNT'"
err unpassed 's/(out, in, int N)/(out, out, int N)/' 6 "buffer 'in' is passed to no launch"
err novariants 's/scale<<</variant<<</' 8 "launch.scale: 'variant' is the kernel of the variant being run, and section \[pipe\] lists no 'variants'"
err unusedvariants 's/^BS = 128/BS = 128\nvariants = a = scale/' 6 "variants: no launch line runs the variant's kernel"
err ownargs 's/^bytes = 8\*N/bytes = 8*N\nargs = out, in, int N/' 12 "'args' is for a section of one launch; with launch.NAME lines (launch.scale on line 8)"
err ownshape 's/^bytes = 8\*N/grid = 4/' 11 "'grid' is for a section of one launch"
err buftypo 's/(out, in, int N)/(out, inn, int N)/' 8 "launch.scale: 'inn' is not a buffer (did you mean 'in'?)"
err typetypo 's/int 3)/imt 3)/' 9 "launch.shift: unknown type 'imt' (did you mean 'int'?)"
err chevrons 's/<<<cdiv(N, BS), BS>>>(out, in/<<<cdiv(N, BS)>>>(out, in/' 8 "want <<<GRID, BLOCK>>> or <<<GRID, BLOCK, SMEM>>>"
err nochevrons 's/scale<<<cdiv(N, BS), BS>>>(out, in, int N)/scale(out, in, int N)/' 8 "want KERNEL<<<GRID, BLOCK\[, SMEM\]>>>(ARGS)"
err noargs 's/BS>>>(out, in, int N)/BS>>> out, in/' 8 "want the kernel's arguments in '(...)' after '>>>'"
err trailing 's/for s < log2(N) - 8/times 3/' 10 "unexpected 'times 3' after the arguments"
err loopparam 's/for s < log2(N) - 8/for BS < 2/' 10 "loop variable 'BS' is a built-in parameter's name"
err loopbuf 's/int N >> s) for s < log2(N) - 8/int 1) for out < 2/' 10 "loop variable 'out' is a buffer's name"
err loopscope 's/(out, int N, int 3)/(out, int N, int s)/' 9 "unknown parameter 's'"
err dims 's/dim3(BS, 1)/dim3(BS, 1, 1, 1)/' 9 "block has more than 3 dimensions"
err label 's/^launch.shift/launch.2shift/' 9 "unknown key 'launch.2shift'"

if [ "$skipped" -gt 0 ]; then echo "launches: $pass passed, $fail failed, $skipped skipped"; else echo "launches: $pass passed, $fail failed"; fi
[ "$fail" -eq 0 ]
