#!/bin/sh
# report/gen/generate.sh - the generated sections of the report: for every study
# that has no report/studies/NN_<study>.md, a section text in the directive language
# of report/build.sh, the SQL of its runs table and, per figure, a gnuplot script
# and its SQL, all under $OUT/gen/ (studies/, tables/, plots/). Nothing here is
# committed per study and nothing names one: what a section shows follows from the
# database (the study's newest verified runs, their parameters, built-in and named,
# and which of FLOP and byte counts and counters they have) by report/gen/generate.awk.
# A study may still add tables and figures of its own as files named for it
# (report/tables/<study>_*.sql, plots/<study>_*.gp + .sql): its generated section
# shows them after the generated ones, captioned by the first comment line of the
# file ("-- report/tables/NAME.sql - CAPTION"). report/gen/figures.mk draws the
# generated figures (report/build.sh calls both).
# Files are rewritten only when their text changes, so that make redraws only the
# figures whose SQL or script changed, or all of them when the database did
# ($OUT/gen/stamp: the fingerprint of report/tables/_fingerprint.sql).
# Input: $OUT/gen/list, one generated study a line: STUDY NUMBER CONFIG (the
# section's number S<NUMBER>; CONFIG its config file or -). Environment as build.sh:
# DB, GPULAB, OUT. Must not draw figures or write outside $OUT/gen. POSIX sh + awk.
set -eu

DB=${DB:-db/results.db}
GPULAB=${GPULAB:-./build/gpulab}
OUT=${OUT:-report/out}
GEN=$OUT/gen
HERE=$(dirname "$0")

die() {
    echo "report/gen/generate.sh: $*" >&2
    exit 1
}
q() {
    "$GPULAB" query --db "$DB" "$@"
}

[ -f "$GEN/list" ] || die "no $GEN/list"
NEW=$GEN/new
rm -rf "$NEW"
mkdir -p "$NEW/studies" "$NEW/tables" "$NEW/plots" "$GEN/studies" "$GEN/tables" "$GEN/plots"

# the fingerprint of the database: the figures' data depend on it
q -f report/tables/_fingerprint.sql --csv > "$NEW/stamp" || die "query _fingerprint.sql failed"
if ! cmp -s "$NEW/stamp" "$GEN/stamp"; then
    mv "$NEW/stamp" "$GEN/stamp"
fi

# every known study (for the prefix rule below), and the generated ones as a SQL list
KNOWN=$(cat "$GEN/known" 2>/dev/null || true)
IN=
while read -r s n c; do
    [ -n "$s" ] || continue
    IN="$IN${IN:+, }'$s'"
done < "$GEN/list"

# the parameter columns of `results`: those between `reason` and `samples`
# (the view lists them from the parameter table, whatever it holds)
PCOLS=$(q "SELECT * FROM results LIMIT 0" --csv | head -n 1 |
        tr ',' '\n' | awk '$0 == "samples" { p = 0 } p { printf "%s ", $0 } $0 == "reason" { p = 1 }')
[ -n "$PCOLS" ] || die "no parameter columns between reason and samples in the results view"

# the newest verified runs of every generated study, in one query
SEL=
for c in $PCOLS; do SEL="$SEL, $c"; done
if [ -n "$IN" ]; then
    q "SELECT study, run_id, device_kind, device_id, family, variant$SEL,
              coalesce(uparams, '') AS uparams, flops, min_bytes, median_ms,
              achieved_occupancy_pct, l1_hit_pct, l2_hit_pct, smem_conflicts_ld,
              smem_conflicts_st, smem_excess_ld, smem_excess_st, dram_read_bytes,
              dram_write_bytes, dram_gbs
       FROM results
       WHERE is_latest = 1 AND status = 'ok' AND median_ms > 0 AND study IN ($IN)
       ORDER BY study, run_id" --csv > "$NEW/runs.csv" || die "query of the studies' runs failed"
else
    : > "$NEW/runs.csv"
fi

# study, number, config, description and the study's own files, for the awk program
: > "$NEW/studies.txt"
while read -r s n c; do
    [ -n "$s" ] || continue
    desc=
    if [ "$c" != - ] && [ -f "$c" ]; then
        desc=$(awk '{ sub(/[ \t]#.*/, ""); sub(/^#.*/, "") } /^[ \t]*\[/ { exit }
                    /^[ \t]*description[ \t]*=/ { sub(/^[^=]*=[ \t]*/, ""); sub(/[ \t\r]+$/, ""); print; exit }' "$c")
    fi
    # the study's own files: named <study>_*, but not those of a longer study name
    own=
    for f in report/tables/"$s"_*.sql plots/"$s"_*.gp; do
        [ -f "$f" ] || continue
        b=$(basename "$f"); b=${b%.*}
        case $b in *_gen_*) continue ;; esac
        skip=0
        for o in $KNOWN; do
            case $o in "$s"_?*) case $b in "$o" | "$o"_*) skip=1 ;; esac ;; esac
        done
        [ "$skip" -eq 0 ] || continue
        # the caption: the first sentence of the file's opening comment
        cap=$(awk '/^(--|#)/ { sub(/^(--|#) */, ""); t = t (t == "" ? "" : " ") $0; next } { exit }
                   END { sub(/^[^ ]* - */, "", t); i = index(t, ". "); if (i) t = substr(t, 1, i - 1)
                         gsub(/ \| /, " ", t); sub(/[.;:, ]*$/, "", t); print t }' "$f")
        case $f in
            *.sql) kind=table ;;
            *) kind=figure; [ -f "plots/$b.sql" ] || continue ;;
        esac
        own="$own$kind:$b:${cap:-$b}	"
    done
    printf '%s\t%s\t%s\t%s\t%s\n' "$s" "$n" "$c" "$desc" "$own" >> "$NEW/studies.txt"
done < "$GEN/list"

awk -v gen="$NEW" -v pcols="$PCOLS" -f "$HERE/generate.awk" "$NEW/studies.txt" "$NEW/runs.csv" ||
    die "generate.awk failed"

# move what changed into place; drop what is no longer generated
for d in studies tables plots; do
    for g in "$GEN/$d"/*; do
        [ -f "$g" ] || continue
        [ -f "$NEW/$d/$(basename "$g")" ] || rm -f "$g"
    done
    for f in "$NEW/$d"/*; do
        [ -f "$f" ] || continue
        g="$GEN/$d/$(basename "$f")"
        cmp -s "$f" "$g" || mv "$f" "$g"
    done
done
rm -rf "$NEW"
