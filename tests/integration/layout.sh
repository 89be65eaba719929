#!/bin/sh
# tests/integration/layout.sh - the code keeps one declaration per thing and its
# folders follow what is linked where: every variant `gpulab list` shows is
# declared in exactly one source file (no other file names it), no metric name of
# the metric table is spelled out in db/*.sql, and every folder of code includes
# only headers of the folders its README's "may call:" line names, which never
# form a circle. Must not build or edit anything.
G=./build/gpulab
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL layout: $*"; }
CODE="src experiments cupti"

# each family/variant: one file declares it ("family", "name" in one row), and the
# quoted name appears in no file that declares no variant of that name
$G list | awk '/^[a-z]/{fam=$1} $1=="cpu"||$1=="gpu"{print fam, $2}' >/tmp/layout.$$
[ -s /tmp/layout.$$ ] || bad "gpulab list printed no variants"
while read -r fam v; do
    decl=$(grep -rlE "\"$fam\", *\"$v\"" $CODE | wc -l)
    [ "$decl" -eq 1 ] && ok || bad "$fam/$v is declared in $decl files: $(grep -rlE "\"$fam\", *\"$v\"" $CODE | tr '\n' ' ')"
    # (an occupancy limiter is also called "shared": GL_LIMITER_SMEM is no variant name)
    for f in $(grep -rF "\"$v\"" $CODE | grep -v GL_LIMITER_ | cut -d: -f1 | sort -u); do
        if grep -qE "\"[a-z_]+\", *\"$v\"" "$f"; then ok; else bad "$f names variant '$v' but declares none of that name"; fi
    done
done </tmp/layout.$$
rm -f /tmp/layout.$$

# no metric name of the table in the SQL
names=$(grep -oE '"[a-z0-9_]+__[a-z0-9_.]+"' src/core/metric_sets.c | tr -d '"' | sort -u)
[ -n "$names" ] || bad "no metric names found in src/core/metric_sets.c"
for m in $names; do
    if grep -qF "$m" db/*.sql db/migrations/*.sql 2>/dev/null; then bad "db/ spells out metric $m"; else ok; fi
done

# includes point down only: every folder of code has a README whose line
# "may call: FOLDER ..." (the folder itself included) says whose headers it may
# include; the build takes its include path from that line (Makefile may_call), so
# this checks the declaration itself: each header included is found in an allowed
# folder, and the allowed folders never form a circle (a folder that may call
# another is never called back by it).
inc_ok() {  # folder, allowed header folders (itself included)...
    dir=$1; shift
    for f in "$dir"/*.c "$dir"/*.h "$dir"/*.cu "$dir"/*.cuh "$dir"/*.cpp; do
        [ -e "$f" ] || continue
        for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
            case "$h" in *..*|*/*) bad "$f includes $h by a path: headers are found by the folder's may-call line"; continue;; esac
            found=0
            for d in "$@"; do [ -e "$d/$h" ] && found=1; done
            [ $found -eq 1 ] && ok || bad "$f includes $h, which none of its README's may-call folders ($*) has"
        done
    done
}
T_PAIRS=$(mktemp)
may() { sed -n 's/^may call: //p' "$1/README" 2>/dev/null; }
FOLDERS=$(find src experiments cupti -type f \( -name '*.c' -o -name '*.cu' -o -name '*.h' -o -name '*.cuh' -o -name '*.cpp' \) |
          xargs -n1 dirname | sort -u)
[ -n "$FOLDERS" ] || bad "no folders of code found"
for d in $FOLDERS; do
    allowed=$(may "$d")
    if [ -z "$allowed" ]; then bad "$d/README has no 'may call:' line"; continue; fi
    case " $allowed " in *" $d "*) ok;; *) bad "$d/README: may call does not name $d itself";; esac
    for a in $allowed; do
        [ -d "$a" ] && ok || bad "$d/README: may call names $a, which is no folder"
        # no circle: what d may call may not call d (unless it is d)
        [ "$a" = "$d" ] && continue
        case " $(may "$a") " in *" $d "*) bad "circle: $d may call $a and $a may call $d";; *) ok;; esac
    done
    inc_ok "$d" $allowed
done
# and no longer circle either (a may call b, b c, c a): the may-call pairs sort
for d in $FOLDERS; do for a in $(may "$d"); do echo "$d $a"; done; done >"$T_PAIRS"
if tsort "$T_PAIRS" >/dev/null 2>"$T_PAIRS.err"; then ok; else bad "the may-call lines form a circle: $(head -3 "$T_PAIRS.err")"; fi
rm -f "$T_PAIRS" "$T_PAIRS.err"

echo "layout: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
