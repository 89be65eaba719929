#!/bin/sh
# tests/integration/layout.sh - the code keeps one declaration per thing and its
# folders follow what is linked where: every variant `gpulab list` shows is
# declared in exactly one source file (no other file names it), no metric name of
# the metric table is spelled out in db/*.sql, and no folder includes a header of a
# folder above it (src/core/ sees only itself; src/ the core; cupti/ the core;
# experiments/ the core and cupti/). Must not build or edit anything.
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

# includes point down only: a header is found in the including folder or below
inc_ok() {  # folder, allowed header folders...
    dir=$1; shift
    for f in "$dir"/*.c "$dir"/*.h "$dir"/*.cu "$dir"/*.cuh "$dir"/*.cpp; do
        [ -e "$f" ] || continue
        for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
            case "$h" in *..*) bad "$f includes $h by a relative path out of its folder"; continue;; esac
            found=0
            for d in "$dir" "$@"; do [ -e "$d/$h" ] && found=1; done
            [ $found -eq 1 ] && ok || bad "$f includes $h from outside its own folder and those below it"
        done
    done
}
inc_ok src/core
inc_ok src src/core
inc_ok cupti src/core
inc_ok experiments src/core
inc_ok experiments/cpu experiments src/core
inc_ok experiments/gpu experiments cupti src/core

echo "layout: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
