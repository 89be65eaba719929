#!/bin/sh
# tests/run.sh - run every unit test program (build/tests/test_*) and every
# integration script (tests/integration/*.sh), then print the total as the last
# line: "N passed, N failed". Each program prints its own "name: N passed, N failed",
# or "name: N passed, N failed, N skipped" when some of it cannot run here (a tree
# built without a CUDA compiler): the skips are totalled on the line before the
# last, never counted as passed or failed.
# Must not stop at the first failing program: the total has to count them all.
passed=0; failed=0; skipped=0
# inside a Slurm job array gpulab would run one shard of every sweep (docs/cluster.md)
unset SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_MAX SLURM_ARRAY_TASK_STEP
log=$(mktemp)
# the kernel cache and the machine's ceilings cache of the tests that do not name
# their own: a folder of this run's, never the user's ~/.cache/gpulab
own_cache=""
if [ -z "${GPULAB_CACHE:-}" ]; then
    own_cache=$(mktemp -d)
    export GPULAB_CACHE="$own_cache"
fi
for t in build/tests/test_* tests/integration/*.sh; do
    [ -e "$t" ] || continue
    case "$t" in *.sh) cmd="sh $t";; *) cmd="$t";; esac
    $cmd >"$log" 2>&1
    rc=$?
    cat "$log"
    line=$(grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "$t: exited $rc without a result line"
        failed=$((failed + 1))
        continue
    fi
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1/')
    f=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\2/')
    s=$(echo "$line" | sed -nE 's/.*, ([0-9]+) skipped$/\1/p')
    skipped=$((skipped + ${s:-0}))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "$t: exited $rc"
        f=1
    fi
    passed=$((passed + p)); failed=$((failed + f))
done
rm -f "$log"
[ -n "$own_cache" ] && rm -rf "$own_cache"
[ "$skipped" -gt 0 ] && echo "$skipped skipped (they need what this machine lacks: see the lines above)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
