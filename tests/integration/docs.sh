#!/bin/sh
# tests/integration/docs.sh - the user documentation stays true to the sources of
# truth, each fact on the page where it belongs: every variant of the registry and
# every parameter in docs/configs.md, every config key the parser knows
# (src/config/config_read.c: the section keys and the keys allowed only before the first
# section) in docs/configs.md, every kernel-section key in docs/kernels.md, every
# column of the `results` view in docs/database.md; and every relative link of
# README.md and docs/*.md points at a file that exists (and, with #anchor, at a
# heading of it). Must not edit anything.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL docs: $1"; }
# chk FILE TEXT WHAT: FILE mentions TEXT
chk() { if grep -qF -- "$2" "$1"; then ok; else bad "$1 does not mention $3"; fi; }

for f in README.md docs/configs.md docs/kernels.md docs/database.md; do
    [ -s "$f" ] || bad "$f is missing"
done

# variants and parameters: docs/configs.md
$G list | awk '$1=="cpu"||$1=="gpu"{print $2}' | sort -u >"$T/variants"
[ -s "$T/variants" ] || bad "gpulab list printed no variants"
while read -r v; do chk docs/configs.md "\`$v\`" "variant $v"; done <"$T/variants"
$G list | sed -n '/^parameters:/,$p' | awk 'NR>1{print $1}' >"$T/params"
[ -s "$T/params" ] || bad "gpulab list printed no parameters"
while read -r p; do chk docs/configs.md "\`$p\`" "parameter $p"; done <"$T/params"

# columns of the results view: docs/database.md
$G query --write --db "$T/x.db" --csv "select * from results limit 0" | head -1 | tr ',' '\n' >"$T/cols"
[ -s "$T/cols" ] || bad "no results columns"
while read -r c; do chk docs/database.md "\`$c\`" "results column $c"; done <"$T/cols"

# config keys, as the parser declares them (the quoted names of a list in src/config/config_read.c)
keys_of() {
    awk -v l="$1[] = {" 'index($0, l) { on = 1 } on { print } on && /};/ { exit }' src/config/config_read.c |
        grep -o '"[^"]*"' | tr -d '"'
}
for list in cfg_section_keys top_only_keys; do
    keys_of "$list" >"$T/keys"
    [ -s "$T/keys" ] || bad "no list $list in src/config/config_read.c (renamed? update this test)"
    while read -r k; do chk docs/configs.md "\`$k\`" "config key $k ($list)"; done <"$T/keys"
done
keys_of cfg_kernel_keys >"$T/kkeys"
[ -s "$T/kkeys" ] || bad "no list cfg_kernel_keys in src/config/config_read.c (renamed? update this test)"
# `buffer.NAME` and `grid` are kernel-section keys outside that list (a prefix; a parameter's name)
printf 'buffer.NAME\ngrid\n' >>"$T/kkeys"
while read -r k; do chk docs/kernels.md "\`$k\`" "kernel-section key $k"; done <"$T/kkeys"

# links: every relative link target exists; an anchor names a heading of the target
# (GitHub's rule: lower case, punctuation dropped, spaces to hyphens; code blocks skipped)
slugs() {
    LC_ALL=C awk '/^```/ { code = !code; next }
        !code && /^#+ / { s = $0; sub(/^#+ /, "", s); s = tolower(s)
                          gsub(/[^a-z0-9 _-]/, "", s); gsub(/ /, "-", s); print s }' "$1"
}
for f in README.md docs/*.md; do
    LC_ALL=C awk -v f="$f" '/^```/ { code = !code; next }
        !code { s = $0
                while (match(s, /\]\([^) ]+\)/)) {
                    print f " " substr(s, RSTART + 2, RLENGTH - 3); s = substr(s, RSTART + RLENGTH)
                } }' "$f"
done >"$T/links"
[ -s "$T/links" ] || bad "README.md and docs/*.md have no links"
while read -r f link; do
    case "$link" in http://* | https://* | mailto:*) continue ;; esac
    path=${link%%#*}
    anchor=
    case "$link" in *'#'*) anchor=${link#*#} ;; esac
    if [ -z "$path" ]; then target=$f; else target=$(dirname "$f")/$path; fi
    if [ ! -e "$target" ]; then bad "$f links to $link: no file $target"; continue; fi
    if [ -n "$anchor" ]; then
        if slugs "$target" | grep -qxF -- "$anchor"; then ok; else bad "$f links to $link: no heading #$anchor in $target"; fi
    else
        ok
    fi
done <"$T/links"

echo "docs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
