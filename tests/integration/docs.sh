#!/bin/sh
# tests/integration/docs.sh - the README stays true to the sources of truth: every
# variant of the registry, every parameter, every column of the `results` view
# and every config key the parser knows appear in README.md. Must not edit anything.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
chk() { if grep -qF -- "$1" README.md; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL docs: README.md does not mention $2"; fi; }
$G list | awk '$1=="cpu"||$1=="gpu"{print $2}' | sort -u >"$T/variants"
[ -s "$T/variants" ] || { echo "FAIL docs: gpulab list printed no variants"; fail=$((fail + 1)); }
while read -r v; do chk "\`$v\`" "variant $v"; done <"$T/variants"
$G list | sed -n '/^parameters:/,$p' | awk 'NR>1{print $1}' >"$T/params"
while read -r p; do chk "\`$p\`" "parameter $p"; done <"$T/params"
$G query --write --db "$T/x.db" --csv "select * from results limit 0" | head -1 | tr ',' '\n' >"$T/cols"
[ -s "$T/cols" ] || { echo "FAIL docs: no results columns"; fail=$((fail + 1)); }
while read -r c; do chk "\`$c\`" "results column $c"; done <"$T/cols"
for k in family variants where zip metrics warmup samples_min samples_max noise time_cap timeout study description; do
    chk "\`$k\`" "config key $k"
done
echo "docs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
