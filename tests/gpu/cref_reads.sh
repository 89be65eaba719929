#!/bin/sh
# tests/gpu/cref_reads.sh - a C reference that reads a named parameter its
# section's verify_reads does not list fails its runs with the name (its
# expected values would be one point's for every point), and passes once
# verify_reads lists it; one that asks gl_param_value for a built-in parameter
# is told to read the field. Run by tests/gpu/run.sh; ends with
# "cref_reads-gpu: N passed, N failed". Must not rebuild anything.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL cref_reads-gpu: $2"; fi; }
q() { $G query --db "$1" --tsv "$2" | tail -n 1; }

cat >"$T/scale.cu" <<'CU'
// out = in * SCALE, SCALE set by the build (nvcc -DSCALE=3)
#ifndef SCALE
#define SCALE 2
#endif
extern "C" __global__ void scale(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * SCALE;
}
CU
cat >"$T/scale_ref.c" <<'C'
#include "plugin.h"
int scale_ref(const struct gl_params *p, const void *const *in, double *const *want,
              char *err, size_t errlen)
{
    const float *x = in[0];
    long s = gl_param_value(p, "SCALE");
    (void)err;
    (void)errlen;
    for (long i = 0; i < p->n; i++)
        want[0][i] = (double)x[i] * (double)s;
    return 0;
}
C
sed 's/gl_param_value(p, "SCALE")/gl_param_value(p, "N") * 0 + 2/' "$T/scale_ref.c" >"$T/builtin_ref.c"
conf() {   # conf NAME REF VERIFY_READS
    cat >"$T/$1.conf" <<CONF
study = $1
[scale]
source = scale.cu
variants = scale
N = 4096
SCALE = 2, 3
defines = SCALE
buffer.in = float[N] random
buffer.out = float[N] output
args = out, in, int N
grid = cdiv(N, 256)
block = 256
verify = c:$2:scale_ref
verify_reads = $3
metrics = none
CONF
}
conf unlisted scale_ref.c N
conf listed scale_ref.c "N, SCALE"
conf builtin builtin_ref.c N
for c in unlisted listed builtin; do
    $G run "$T/$c.conf" --db "$T/$c.db" >"$T/$c.log" 2>&1
done
n=$(q "$T/unlisted.db" "select count(*) from results where status = 'failed' and reason like '%the C reference read SCALE, which verify_reads does not list%'")
chk '[ "$n" = 2 ]' "unlisted: $n of 2 runs failed naming SCALE: $(q "$T/unlisted.db" "select group_concat(status || ' ' || coalesce(reason, ''), '; ') from results")"
n=$(q "$T/listed.db" "select count(*) from results where status = 'ok'")
chk '[ "$n" = 2 ]' "listed: $n of 2 runs ok: $(q "$T/listed.db" "select group_concat(status || ' ' || coalesce(reason, ''), '; ') from results")"
n=$(q "$T/builtin.db" "select count(*) from results where status = 'failed' and reason like '%gl_param_value for N, a built-in parameter: it reads p->n%'")
chk '[ "$n" = 2 ]' "builtin: $n of 2 runs failed saying to read p->n: $(q "$T/builtin.db" "select group_concat(status || ' ' || coalesce(reason, ''), '; ') from results")"
echo "cref_reads-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
