#!/bin/sh
# tests/integration/plugins.sh - users' plugins (--plugin, src/core/plugin.h),
# without a GPU: `list` shows their variants and where they come from; `plan`
# and `run` of the example's CPU variant store verified ok rows with the
# plugin file's hash, resume, and run again when the file changes; the host
# harness's verdicts (unwritten, off, failed, integer outputs reset before each
# run); and every refused plugin (not loadable, no gpulab_plugin, another
# plugin API, a variant declared twice, a GPU plugin's variant without --plugin)
# exits 2 with a message naming the file. Must not depend on a GPU.
G=./build/gpulab
P=build/tests/plugins
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0; skip=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL plugins: $2"; fi; }
q() { $G query --db "$1" --csv "$2" | tail -n +2; }

# example_gpu.so is built by nvcc: without a CUDA compiler (no build/libgpulab_gpu.so
# either) its checks are skipped
GPUP="--plugin $P/example_gpu.so"; need_gpu=example_gpu
[ -f build/libgpulab_gpu.so ] || { GPUP=""; need_gpu=""; }
for f in example_plugin $need_gpu checks_plugin bad_api no_symbol dup_plugin; do
    [ -f "$P/$f.so" ] || { echo "plugins: $P/$f.so is missing (make all)"; echo "plugins: 0 passed, 1 failed"; exit 1; }
done

# --- list ------------------------------------------------------------------------
$G list saxpy --plugin $P/example_plugin.so $GPUP >"$T/list" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "list with two plugins: exit $rc: $(head -3 "$T/list")"
chk 'grep -qE "^  cpu saxpy_cpu +\[N threads seed\]" "$T/list"' "list lacks saxpy_cpu: $(cat "$T/list" | head -5)"
if [ -n "$GPUP" ]; then
    chk 'grep -qE "^  gpu saxpy_twice +\[N BS seed mem cache\]" "$T/list"' "list lacks saxpy_twice"
else
    skip=$((skip + 1))
fi
chk 'grep -q "(plugin $P/example_plugin.so)" "$T/list"' "list does not say where saxpy_cpu comes from"
$G list >"$T/list0" 2>&1
chk '! grep -q saxpy "$T/list0"' "saxpy listed without --plugin"
$G list saxpy >/dev/null 2>&1; rc=$?
chk '[ $rc -eq 2 ]' "list of the plugin's family without --plugin: exit $rc (want 2)"

# --- plan and run the CPU variant ----------------------------------------------------
cat >"$T/saxpy.conf" <<'CONF'
study = saxpy
[cpu]
family = saxpy
variants = saxpy_cpu
N = 1000, 4096, 100000
samples_min = 5
time_cap = 0.2s
CONF
PL="--plugin $P/example_plugin.so"
$G plan "$T/saxpy.conf" --db "$T/r.db" $PL --summary >"$T/plan" 2>&1; rc=$?
chk '[ $rc -eq 0 ] && grep -q "^total: 3 to run, 0 done" "$T/plan"' "plan: exit $rc: $(tail -2 "$T/plan")"
$G plan "$T/saxpy.conf" --db "$T/r.db" >"$T/plan0" 2>&1; rc=$?
chk '[ $rc -eq 2 ] && grep -q "unknown family" "$T/plan0"' "plan without --plugin: exit $rc: $(head -2 "$T/plan0")"
$G run "$T/saxpy.conf" --db "$T/r.db" $PL >"$T/run1" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "run: exit $rc: $(tail -3 "$T/run1")"
ok=$(q "$T/r.db" "select count(*) from results where family='saxpy' and variant='saxpy_cpu' and status='ok' and samples >= 5 and max_rel_err >= 0 and max_rel_err < 1e-6 and gbs > 0")
chk '[ "$ok" = 3 ]' "$ok of 3 saxpy_cpu rows ok, verified, timed, with gbs"
hash=$(sha256sum $P/example_plugin.so | cut -d' ' -f1)
h=$(q "$T/r.db" "select count(*) from results where family='saxpy' and code_hash='$hash'")
chk '[ "$h" = 3 ]' "$h of 3 rows carry the plugin file's hash as code_hash"
$G run "$T/saxpy.conf" --db "$T/r.db" $PL >"$T/run2" 2>&1
chk 'grep -q "gpulab: 0 ran" "$T/run2"' "second run ran something: $(tail -1 "$T/run2")"
# a rebuilt plugin (another file) runs its points again; the old rows stay
cp $P/example_plugin.so "$T/rebuilt.so"
printf 'rebuilt' >>"$T/rebuilt.so"
$G run "$T/saxpy.conf" --db "$T/r.db" --plugin "$T/rebuilt.so" >"$T/run3" 2>&1; rc=$?
chk '[ $rc -eq 0 ] && grep -q "gpulab: 3 ran (3 ok" "$T/run3"' "rebuilt plugin: exit $rc: $(tail -1 "$T/run3")"
hash2=$(sha256sum "$T/rebuilt.so" | cut -d' ' -f1)
latest=$(q "$T/r.db" "select count(*) from results where family='saxpy' and is_latest=1 and code_hash='$hash2'")
rows=$(q "$T/r.db" "select count(*) from results where family='saxpy'")
chk '[ "$latest" = 3 ] && [ "$rows" = 6 ]' "after the rebuild: $latest latest rows of the new build (want 3), $rows rows (want 6)"

# --- the harness's verdicts ----------------------------------------------------------
cat >"$T/checks.conf" <<'CONF'
study = plugtest
[checks]
family = plugtest
variants = all
N = 1000
samples_min = 3
time_cap = 0.1s
CONF
$G run "$T/checks.conf" --db "$T/c.db" --plugin $P/checks_plugin.so >"$T/c" 2>&1; rc=$?
chk '[ $rc -eq 1 ]' "checks: exit $rc (want 1: runs wrong or failed)"
st() { q "$T/c.db" "select status||': '||coalesce(reason,'') from results where variant='$1'"; }
chk 'st unwritten | grep -q "^wrong: output .out.: 1 of 1000 elements not written (first at 999)"' "unwritten: $(st unwritten)"
chk 'st off | grep -q "^wrong: output .out.: 1000 of 1000 elements differ from the reference"' "off: $(st off)"
chk 'st fails | grep -q "^failed: run: no luck today"' "fails: $(st fails)"
chk '[ "$(st counts)" = "ok: " ]' "counts (int64 output reset to a ramp before each run): $(st counts)"
chk '[ "$(st right)" = "ok: " ]' "right (a float and a double output): $(st right)"

# --- refused plugins: exit 2, the file and the reason ---------------------------------
refuse() {  # plugin args, expected message (grep -E), what
    $G list $1 >"$T/o" 2>&1; rc=$?
    want=$2
    chk '[ $rc -eq 2 ] && grep -qE -- "$want" "$T/o"' "$3: exit $rc: $(head -2 "$T/o")"
}
api=$(sed -n 's/^#define GL_PLUGIN_API \([0-9]*\).*/\1/p' src/core/plugin.h)
refuse "--plugin $P/bad_api.so" "^gpulab: $P/bad_api.so: built for plugin API 1, this gpulab is $api: rebuild against src/core/plugin.h$" "another plugin API"
refuse "--plugin $P/no_symbol.so" "^gpulab: $P/no_symbol.so: no gpulab_plugin\(\) in it" "no gpulab_plugin symbol"
refuse "--plugin $P/dup_plugin.so" "^gpulab: $P/dup_plugin.so: variant vecadd/seq is declared twice: here and in .*libgpulab_cpu.so$" "duplicate of a built-in variant"
refuse "--plugin $P/example_plugin.so --plugin $T/rebuilt.so" "^gpulab: $T/rebuilt.so: variant saxpy/saxpy_cpu is declared twice: here and in $P/example_plugin.so$" "duplicate across two plugins"
refuse "--plugin $T/none.so" "^gpulab: plugin not loadable: $T/none.so: cannot open shared object file" "missing file"
refuse "--plugin $T/saxpy.conf" "^gpulab: plugin not loadable: $T/saxpy.conf: " "not a shared object"
refuse "--plugin" "missing value after --plugin" "--plugin without a path"
$G run "$T/saxpy.conf" --db "$T/r.db" --plugin $P/bad_api.so >"$T/o" 2>&1; rc=$?
chk '[ $rc -eq 2 ] && grep -q "built for plugin API 1" "$T/o"' "run with a refused plugin: exit $rc"
$G plan "$T/saxpy.conf" --db "$T/r.db" $PL --plugin $P/no_symbol.so >"$T/o" 2>&1; rc=$?
chk '[ $rc -eq 2 ] && grep -q "no gpulab_plugin" "$T/o"' "plan with a refused plugin: exit $rc"

if [ "$skip" -gt 0 ]; then
    echo "plugins: $skip check(s) skipped: example_gpu.so needs a CUDA compiler"
    echo "plugins: $pass passed, $fail failed, $skip skipped"
else
    echo "plugins: $pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
