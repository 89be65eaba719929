#!/bin/sh
# tests/integration/cli_help.sh - the command line's own words, without a GPU:
# every command's --help describes, on a line of its own, every flag its synopsis
# names, every flag it accepts, and no flag it refuses (each flag any command's
# synopsis names is tried on every command: accepted means described);
# "did you mean" for a mistyped command and family; `plan` says what a run would do,
# not what it does; exit codes: `run` where nothing could run exits 7, where all
# was done before 0, and every exit code is in docs/cli.md and `gpulab --help`.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL cli_help: $2"; fi; }
# the commands, as gpulab --help lists them (two spaces, the name, a space)
CMDS=$($G --help | sed -nE 's/^  ([a-z]+) .*/\1/p' | grep -vx gpulab)
check '[ "$(echo $CMDS | wc -w)" -ge 8 ]' "gpulab --help lists too few commands: $CMDS"

# --- --help describes every flag -------------------------------------------------------
# the flags a usage names (in its synopsis or anywhere), and those it describes: a line
# "  --flag" or "  -f, --flag" (the flag first on its line)
# (the synopsis: the "usage:" line and the lines of [options] under it)
named() { sed -n '/^usage:/p; /^  *\[/p' "$1" | grep -oE -- '(^|[^A-Za-z0-9-])--?[a-z][a-z-]*' |
          sed -E 's/^[^-]*//' | sort -u; }
described() { { sed -nE 's/^  (-[a-z], )?(--?[a-z][a-z-]*).*/\2/p' "$1"
                sed -nE 's/^  (-[a-z]), .*/\1/p' "$1"; } | sort -u; }
all=""
for c in $CMDS; do
    $G $c --help >"$T/$c.help" 2>&1; rc=$?
    check '[ $rc -eq 0 ] && grep -q "^usage: gpulab $c" "$T/$c.help"' "$c --help: exit $rc: $(head -2 "$T/$c.help")"
    named "$T/$c.help" >"$T/$c.named"
    described "$T/$c.help" >"$T/$c.desc"
    missing=$(comm -23 "$T/$c.named" "$T/$c.desc" | tr '\n' ' ')
    check '[ -z "$missing" ]' "$c --help names flags it does not describe: $missing"
    check 'grep -q "^--help$" "$T/$c.desc" && grep -q "^-h$" "$T/$c.desc"' "$c --help does not describe --help / -h"
    all="$all $(cat "$T/$c.named")"
done
# (the double-dash ones: a word with one dash is a file name to the commands that
# take files)
all=$(echo $all | tr ' ' '\n' | sort -u | grep -- '^--' | grep -v -- '^--help$')
check '[ "$(echo "$all" | wc -l)" -ge 20 ]' "too few flags found to test: $(echo $all)"
# every flag of any command, tried on every command: refused ("unknown option",
# "unexpected argument"), or described by that command's --help
for c in $CMDS; do
    for f in $all; do
        $G $c "$f" x y >"$T/out" 2>&1
        if grep -q "unknown option\|unexpected argument" "$T/out"; then
            continue
        fi
        check 'grep -qx -- "$f" "$T/$c.desc"' "$c accepts $f but its --help does not describe it: $(head -2 "$T/out")"
    done
done
check '! $G plan configs/smoke.conf --dry-run >/dev/null 2>&1' "plan accepts run's --dry-run"
grep -q -- "--db PATH" "$T/plan.help" && grep -q -- "--force" "$T/plan.help"
check '[ $? -eq 0 ]' "plan --help does not describe --db and --force"

# --- did you mean ----------------------------------------------------------------------
$G lst >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 2 ] && grep -q "^gpulab: unknown command lst (did you mean '"'list'"'?)" "$T/out"' "lst: exit $rc: $(head -1 "$T/out")"
$G pln configs/smoke.conf >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 2 ] && grep -q "did you mean '"'plan'"'" "$T/out"' "pln: exit $rc: $(head -1 "$T/out")"
$G frobnicate >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 2 ] && grep -q "^gpulab: unknown command frobnicate$" "$T/out"' "frobnicate (nothing near): exit $rc: $(head -1 "$T/out")"
$G list stencl >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 2 ] && grep -q "^gpulab: unknown family '"'stencl'"' (did you mean '"'stencil'"'?)" "$T/out"' "list stencl: exit $rc: $(cat "$T/out")"
$G list zzzzzz >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 2 ] && grep -q "^gpulab: unknown family '"'zzzzzz'"'$" "$T/out"' "list zzzzzz: exit $rc: $(cat "$T/out")"

# --- plan's words, run's exit codes -----------------------------------------------------
# a GPU-only study (on this machine, no GPU: GPULAB_FAKE_NO_GPU is not needed, there is
# none; where a GPU is, the plugin's runs are not what this checks: skipped then)
printf 'study = gpuonly\n[g]\nfamily = vecadd\nvariants = global\nN = 1000\nBS = 256\n' >"$T/gpu.conf"
printf 'study = cpuonly\n[c]\nfamily = vecadd\nvariants = seq\nN = 1000\n' >"$T/cpu.conf"
printf 'study = both\n[c]\nfamily = vecadd\nvariants = seq\nN = 1000\n[g]\nfamily = vecadd\nvariants = global\nN = 1000\nBS = 256\n' >"$T/both.conf"
$G plan "$T/gpu.conf" >"$T/plan" 2>&1; rc=$?
if grep -q "no usable GPU" "$T/plan"; then
    check '[ $rc -eq 0 ] && grep -q "a run here would skip the GPU variants" "$T/plan" && ! grep -q "CPU variants run\." "$T/plan"' \
        "plan says what a run would do: exit $rc: $(grep '\*\*\*' "$T/plan")"
    $G run "$T/gpu.conf" --db "$T/g.db" >"$T/out" 2>&1; rc=$?
    check '[ $rc -eq 7 ] && grep -q "^gpulab: nothing could run here: 1 point needs what this machine lacks or was skipped (exit 7)" "$T/out"' \
        "run of GPU points without a GPU: exit $rc (want 7): $(tail -2 "$T/out")"
    $G run "$T/both.conf" --db "$T/b.db" >"$T/out" 2>&1; rc=$?
    check '[ $rc -eq 0 ]' "run where the CPU points ran and the GPU points could not: exit $rc (want 0): $(tail -2 "$T/out")"
    $G run "$T/both.conf" --db "$T/b.db" >"$T/out" 2>&1; rc=$?
    check '[ $rc -eq 0 ] && grep -q "1 already done" "$T/out"' "run again (the CPU point done, the GPU point still not): exit $rc (want 0): $(tail -2 "$T/out")"
else
    echo "note cli_help: a GPU is here: the no-GPU exit code is not checked"
fi
$G run "$T/cpu.conf" --db "$T/c.db" >/dev/null 2>&1
$G run "$T/cpu.conf" --db "$T/c.db" >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -q "0 ran .*1 already done" "$T/out"' "run where everything was done: exit $rc (want 0): $(tail -1 "$T/out")"
# every point rejected by check (no GPU needed: OpenBLAS not found): nothing could run
printf 'study = rej\n[c]\nfamily = matmul\nvariants = openblas\nN = 64\n' >"$T/rej.conf"
GPULAB_OPENBLAS=/nonexistent $G run "$T/rej.conf" --db "$T/r.db" >"$T/out" 2>&1; rc=$?
check '[ $rc -eq 7 ]' "run whose every point is rejected: exit $rc (want 7): $(tail -2 "$T/out")"

# every exit code the driver has is documented: in `gpulab --help` and docs/cli.md
$G --help >"$T/help"
for code in 0 1 2 3 4 5 6 7 130 143; do
    check 'grep -qE "(^| |,)$code " "$T/help"' "gpulab --help does not document exit code $code"
    check 'grep -qE "^\| *\`?$code\`? *\|" docs/cli.md' "docs/cli.md's exit code table lacks $code"
done

echo "cli_help: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
