#!/bin/sh
# report/build.sh - assembles report/out/report.md from the results database: a
# title, the device section, one section per study, the smoke sweep, the roofline
# and the notes. The studies are data, not code here: every report/studies/NN_<study>.md
# is one section, in the order of NN, whose `@table`, `@figure` and `@foreach`
# lines this script expands (the language and the naming convention are in
# docs/report.md); a study's runs are those whose config says `study = <study>`
# (by default the config's base name), and its "no data" line names that config.
# Every table is one SQL file in report/tables/ run through `gpulab query`
# (Markdown into report.md and report/out/tables/NAME.md, LaTeX into
# report/out/tables/NAME.tex, with Markdown bold turned into \textbf); figures are
# referenced as report/out/figures/NAME.svg with the PNG alongside.
# A study without a section file (its runs in the database, or its config in
# configs/) gets a generated section, after the hand-made ones: report/gen/generate.sh
# writes its text, table SQL and figure scripts under report/out/gen/ (nothing is
# committed per study) and report/gen/figures.mk draws its figures, in parallel
# (the jobserver of the calling make, passed as MAKE/MAKEFLAGS, or -j of its own).
# Must not compute numbers (the SQL does), draw figures itself (report/report.mk runs
# gnuplot for plots/ before this script and leaves each figure's data in
# report/out/data/; figures.mk does for the generated ones) or know any one study:
# adding a study must not need an edit here.
# A study, table or figure without data gets one line saying so instead of failing;
# a section that names a file that does not exist, or one not named for its study,
# stops the build.
# Tables are queried in parallel: the script goes through the sections twice, first
# only listing the tables they show (with the few queries that decide what a section
# holds: its studies, GPUs and @foreach rows), then, once every listed query has run
# (JOBS at a time, `gpulab query` once for Markdown and once for LaTeX), writing
# report.md from their files; the generated figures are drawn meanwhile.
# Environment: DB (default db/results.db; report.mk passes its copy of the database),
# DB_NAME (the name to show for it, default $DB), GPULAB (default ./build/gpulab),
# OUT (default report/out), MAKE (default make) and GNUPLOT (default gnuplot) for
# the generated figures, JOBS (default: the CPUs) queries at a time. Run from the
# repository root.
set -eu

DB=${DB:-db/results.db}
DB_NAME=${DB_NAME:-$DB}
GPULAB=${GPULAB:-./build/gpulab}
OUT=${OUT:-report/out}
TABLES=report/tables
STUDIES_DIR=report/studies
CONFIGS=configs
GEN=$OUT/gen
SECTIONS=
# set while a generated section is read: its tables and figures may be under $GEN
GENERATED=0
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
# the argument: queries (the first pass, the tables' queries and the generated
# figures), write (the second pass, report.md, once they and report.mk's figures
# are done) or both, one after the other (the default)
STEP=${1:-all}
# list: the first pass lists the tables' queries; write: the second writes report.md
PASS=list

die() {
    echo "report/build.sh: $*" >&2
    exit 1
}

case $STEP in
    queries | write | all) ;;
    *) die "unknown step '$STEP' (queries, write or all)" ;;
esac

[ -x "$GPULAB" ] || die "no $GPULAB: build it first (make build/gpulab)"
[ -f "$DB" ] || die "no database $DB: run make experiments, or pass DB=path"
mkdir -p "$OUT/tables" "$OUT/figures" "$OUT/data" "$OUT/sql"
if [ "$STEP" != write ]; then
    rm -f "$OUT"/tables/*.md "$OUT"/tables/*.tex "$OUT"/sql/*
fi

MD="$OUT/report.md.tmp"
JOBLIST="$OUT/sql/jobs"

q() {
    "$GPULAB" query --db "$DB" "$@"
}

say() {
    printf '%s\n\n' "$*" >> "$MD"
}

# table SQLFILE NAME CAPTION EMPTY-LINE: NAME.md and NAME.tex under $OUT/tables, and
# the table with its caption in report.md, or EMPTY-LINE when the query has no rows.
# (The first pass only lists the query; run_tables makes both files.)
table() {
    sql=$1 name=$2 caption=$3 empty=$4
    if [ "$PASS" = list ]; then
        printf '%s\t%s\n' "$sql" "$name" >> "$JOBLIST"
        return 0
    fi
    [ -f "$OUT/tables/$name.md" ] && [ -f "$OUT/tables/$name.tex" ] ||
        die "table $name was not made by the first pass"
    lines=$(grep -c '^|' "$OUT/tables/$name.md" || true)
    if [ "$lines" -le 2 ]; then
        say "$empty"
        return 0
    fi
    NTAB=$((NTAB + 1))
    say "**Table $NTAB.** $caption"
    cat "$OUT/tables/$name.md" >> "$MD"
    printf '\n' >> "$MD"
}

# run_tables: every listed table's query, JOBS at a time: NAME.md (--md) and NAME.tex
# (--latex, Markdown bold as \textbf) under $OUT/tables; stops the build when one fails.
run_tables() {
    # (a table shown twice is queried once; two queries writing one name stop the build)
    awk -F '\t' '$2 in sql { if (sql[$2] != $1) { print $2; exit 1 } next }
                 { sql[$2] = $1; print }' "$JOBLIST" > "$JOBLIST.uniq" ||
        die "two different queries write table $(tail -n 1 "$JOBLIST.uniq")"
    n=$(wc -l < "$JOBLIST.uniq")
    [ "$n" -gt 0 ] || return 0
    # one job per table and format: line number, format
    awk '{ print NR " md"; print NR " latex" }' "$JOBLIST.uniq" |
        xargs -n 2 -P "$JOBS" sh -c '
            # $1 list, $2 gpulab, $3 database, $4 folder, $5 line, $6 format
            line=$(sed -n "$5p" "$1"); sql=${line%%"	"*}; name=${line#*"	"}
            if [ "$6" = md ]; then
                "$2" query --db "$3" -f "$sql" --md > "$4/$name.md.tmp" &&
                    mv "$4/$name.md.tmp" "$4/$name.md"
            else
                "$2" query --db "$3" -f "$sql" --latex > "$4/$name.tex.tmp" &&
                    sed "s/\*\*\([^*]*\)\*\*/\\\\textbf{\1}/g" "$4/$name.tex.tmp" > "$4/$name.tex" &&
                    rm -f "$4/$name.tex.tmp"
            fi || { echo "report/build.sh: query $sql failed" >&2; exit 255; }
        ' sh "$JOBLIST.uniq" "$GPULAB" "$DB" "$OUT/tables" ||
        die "a table's query failed"
}

# param_table SQLFILE NAME CAPTION EMPTY-LINE KEY=VALUE...: the same, with every
# @KEY@ in the SQL replaced by VALUE (numbers and plain words only).
param_table() {
    sql=$1 name=$2 caption=$3 empty=$4
    shift 4
    cp "$sql" "$OUT/sql/$name.sql"
    for kv in "$@"; do
        key=${kv%%=*} val=${kv#*=}
        case $key in
            *[!A-Za-z0-9_]* | '') die "bad parameter $kv for $sql" ;;
        esac
        case $val in
            *[!A-Za-z0-9_.]* | '') die "bad parameter $kv for $sql" ;;
        esac
        sed "s/@$key@/$val/g" "$OUT/sql/$name.sql" > "$OUT/sql/$name.sql.tmp"
        mv "$OUT/sql/$name.sql.tmp" "$OUT/sql/$name.sql"
    done
    table "$OUT/sql/$name.sql" "$name" "$caption" "$empty"
}

# figure NAME CAPTION: the SVG (and a link to the PNG) when its data has rows.
figure() {
    name=$1 caption=$2
    csv="$OUT/data/$name.csv"
    if [ ! -f "$csv" ] || [ ! -f "$OUT/figures/$name.svg" ]; then
        say "*Figure $name was not built (run \`make report\`).*"
        return 0
    fi
    if [ "$(wc -l < "$csv")" -le 1 ]; then
        say "*No data for the figure \"$caption\".*"
        return 0
    fi
    NFIG=$((NFIG + 1))
    say "![Figure $NFIG. $caption](figures/$name.svg)"
    say "**Figure $NFIG.** $caption (PNG: [figures/$name.png](figures/$name.png))"
}

# Newest runs per study (study,runs,ok,gpu_ok), for the "no data" lines.
# (the write step reads what the queries step's query left)
if [ "$STEP" != write ] || [ ! -f "$OUT/sql/_studies.csv" ]; then
    q -f "$TABLES/_studies.sql" --csv > "$OUT/sql/_studies.csv" || die "query _studies.sql failed"
fi
STUDIES=$(cat "$OUT/sql/_studies.csv")
study_ok() {
    printf '%s\n' "$STUDIES" | awk -F, -v s="$1" 'NR > 1 && $1 == s { n = $3 } END { print n + 0 }'
}
study_runs() {
    printf '%s\n' "$STUDIES" | awk -F, -v s="$1" 'NR > 1 && $1 == s { n = $2 } END { print n + 0 }'
}

# config_study CONF: the study a config's runs are stored under: its `study =` (a
# top-level key, before the first [section]), else the config's base name.
config_study() {
    cs=$(awk '{ sub(/#.*/, "") } /^[ \t]*\[/ { exit }
             /^[ \t]*study[ \t]*=/ { sub(/^[^=]*=[ \t]*/, ""); sub(/[ \t\r]+$/, ""); print; exit }' "$1")
    printf '%s\n' "${cs:-$(basename "$1" .conf)}"
}
# study config, one pair a line, for every config
CONF_STUDIES=$(for c in "$CONFIGS"/*.conf; do
                   [ -f "$c" ] && printf '%s %s\n' "$(config_study "$c")" "$c"
               done; true)
config_of() {
    printf '%s\n' "$CONF_STUDIES" | awk -v s="$1" '$1 == s { print $2; exit }'
}

# no_study NAME: the line for a study without verified runs; 0 when it has some.
no_study() {
    if [ "$(study_ok "$1")" -gt 0 ]; then
        return 1
    fi
    runs=$(study_runs "$1")
    conf=$(config_of "$1")
    if [ "$runs" -gt 0 ]; then
        say "No verified runs for this study in \`$DB_NAME\` ($runs runs, none ok: see the notes)."
    elif [ -n "$conf" ]; then
        say "No data for this study in \`$DB_NAME\` (run \`make experiments CONFIG=$conf\`)."
    else
        say "No data for this study in \`$DB_NAME\` (no config in $CONFIGS/ says \`study = $1\`)."
    fi
    return 0
}

# clock_line STUDY: the line under a study's heading that says which SM clock its GPU
# durations were measured at and what its sessions did with the clocks
# (report/tables/_clock.sql); nothing for a study without verified GPU runs. The
# first pass queries it, the second writes it.
clock_line() {
    cl_csv="$OUT/sql/_clock_$1.csv"
    if [ "$PASS" = list ] || [ ! -f "$cl_csv" ]; then
        sed "s/@STUDY@/$1/g" "$TABLES/_clock.sql" > "$OUT/sql/_clock_$1.sql"
        q -f "$OUT/sql/_clock_$1.sql" --csv > "$cl_csv" || die "query _clock.sql for $1 failed"
    fi
    [ "$PASS" = list ] && return 0
    cl_line=$(tail -n +2 "$cl_csv" | sed 's/^"//; s/"$//; s/""/"/g')
    [ -z "$cl_line" ] || say "$cl_line"
}

# ---- a study's section: report/studies/NN_<study>.md ---------------------------------
# owned FILE STUDY NAME: NAME (a table, query or figure the section uses) is a plain
# name that starts with the study's, so that a study's files are the ones named for it.
owned() {
    case $3 in
        *[!A-Za-z0-9_.-]* | '') die "$1: '$3' is not a plain file name" ;;
        "$2"_?*) ;;
        *) die "$1: '$3' is not named $2_*: a study's tables, queries and figures carry its name" ;;
    esac
}

# foreach FILE STUDY QUERY BLOCK: BLOCK's lines once per row of report/tables/QUERY.sql,
# with every @COLUMN@ replaced by that row's value (numbers and plain words only).
foreach() {
    fe_csv="$OUT/sql/$3.csv"
    if [ "$PASS" = list ] || [ ! -f "$fe_csv" ]; then
        q -f "$TABLES/$3.sql" --csv > "$fe_csv" || die "$1: query $TABLES/$3.sql failed"
    fi
    fe_cols=$(head -n 1 "$fe_csv")
    tail -n +2 "$fe_csv" > "$fe_csv.rows"
    while IFS= read -r fe_row || [ -n "$fe_row" ]; do
        fe_sed=
        fe_rest=$fe_row
        for fe_col in $(printf '%s\n' "$fe_cols" | tr ',' ' '); do
            fe_val=${fe_rest%%,*}
            case $fe_rest in *,*) fe_rest=${fe_rest#*,} ;; *) fe_rest= ;; esac
            case $fe_col$fe_val in
                *[!A-Za-z0-9_.]*) die "$1: @foreach $3: '$fe_col' = '$fe_val' is not a plain word" ;;
            esac
            fe_sed="$fe_sed s/@$fe_col@/$fe_val/g;"
        done
        sed "$fe_sed" "$4"
    done < "$fe_csv.rows"
}

# parse FILE STUDY LINE: read one @table or @figure line into d_kind, d_sql (the
# query), d_name (the output: table or figure), d_params, d_caption and d_empty;
# stop the build when it is malformed, names a file that does not exist, or names one
# that is not the study's.
#   @table NAME [KEY=VALUE...] [as OUTNAME] | CAPTION | NO-ROWS LINE
#   @figure NAME | CAPTION
parse() {
    d_file=$1 d_study=$2 d_line=$3
    d_head=${d_line%%' | '*}
    case $d_line in *' | '*) d_rest=${d_line#*' | '} ;; *) d_rest= ;; esac
    set -f
    # shellcheck disable=SC2086
    set -- $d_head
    set +f
    d_kind=$1
    shift
    case $d_kind in
    @table)
        case $d_rest in
            *' | '*) ;;
            *) die "$d_file: '$d_line': a table needs '| CAPTION | NO-ROWS LINE'" ;;
        esac
        d_caption=${d_rest%%' | '*} d_empty=${d_rest#*' | '}
        [ $# -ge 1 ] || die "$d_file: '$d_line': which table?"
        d_sql=$1 d_name=$1 d_params=
        shift
        while [ $# -gt 0 ]; do
            case $1 in
                as) [ $# -ge 2 ] || die "$d_file: '$d_line': 'as' needs a name"
                    d_name=$2
                    shift 2 ;;
                ?*=*) d_params="$d_params $1"
                    shift ;;
                *) die "$d_file: '$d_line': '$1' is neither KEY=VALUE nor 'as NAME'" ;;
            esac
        done
        owned "$d_file" "$d_study" "$d_sql"
        owned "$d_file" "$d_study" "$d_name"
        d_path=$TABLES/$d_sql.sql
        if [ "$GENERATED" -eq 1 ] && [ -f "$GEN/tables/$d_sql.sql" ]; then
            d_path=$GEN/tables/$d_sql.sql
        fi
        [ -f "$d_path" ] || die "$d_file: no table $TABLES/$d_sql.sql"
        ;;
    @figure)
        if [ $# -ne 1 ] || [ -z "$d_rest" ]; then
            die "$d_file: '$d_line': a figure is '@figure NAME | CAPTION'"
        fi
        d_sql=$1 d_name=$1 d_caption=$d_rest
        owned "$d_file" "$d_study" "$d_name"
        if [ "$GENERATED" -eq 1 ] && [ -f "$GEN/plots/$d_name.gp" ]; then
            :
        elif [ ! -f "plots/$d_name.gp" ] || [ ! -f "plots/$d_name.sql" ]; then
            die "$d_file: figure $d_name needs plots/$d_name.gp and plots/$d_name.sql"
        fi
        ;;
    *)
        die "$d_file: unknown directive '$d_kind' (there are @table, @figure, @foreach and @end)" ;;
    esac
}

# directive FILE STUDY LINE: the table or figure one @table or @figure line names.
directive() {
    parse "$@"
    if [ "$d_kind" = @figure ]; then
        figure "$d_name" "$d_caption"
    elif [ -n "$d_params" ]; then
        # shellcheck disable=SC2086
        param_table "$d_path" "$d_name" "$d_caption" "$d_empty" $d_params
    else
        table "$d_path" "$d_name" "$d_caption" "$d_empty"
    fi
}

# section FILE STUDY: the heading (the first line after the comments), then the
# "no data" line, or the text with every @foreach block repeated and every
# @table and @figure line replaced by what it names. A paragraph of text is copied
# as it stands and ends with one blank line. Every directive is checked first, with
# or without data, so that a broken section fails on any database.
section() {
    s_file=$1 s_study=$2 s_tmp="$OUT/sql/study_$2"
    # HTML comments (<!-- ... -->, on lines of their own) are for the reader of the file
    awk 'c == 0 && /^[ \t]*<!--/ { c = 1 }
         c == 1 { if (/-->/) c = 0; next }
         { print }' "$s_file" > "$s_tmp.text"
    s_heading=$(grep -m 1 '[^[:space:]]' "$s_tmp.text" || true)
    case $s_heading in
        '## '?*) ;;
        *) die "$s_file: the first line after the comments must be the section's '## ' heading" ;;
    esac
    awk 'h { print; next } /[^[:space:]]/ { h = 1 }' "$s_tmp.text" > "$s_tmp.body"
    # the check: @foreach ... @end pairs, and every directive with each @COLUMN@ as 0
    sed 's/@[A-Za-z0-9_][A-Za-z0-9_]*@/0/g' "$s_tmp.body" > "$s_tmp.check"
    s_query=
    while IFS= read -r s_line || [ -n "$s_line" ]; do
        case $s_line in
        '@foreach' | '@foreach '*)
            [ -z "$s_query" ] || die "$s_file: '$s_line': @foreach inside @foreach"
            set -f
            # shellcheck disable=SC2086
            set -- ${s_line#@foreach}
            set +f
            [ $# -eq 1 ] || die "$s_file: '$s_line': it is '@foreach QUERY'"
            owned "$s_file" "$s_study" "$1"
            [ -f "$TABLES/$1.sql" ] || die "$s_file: no query $TABLES/$1.sql"
            s_query=$1 ;;
        '@end')
            [ -n "$s_query" ] || die "$s_file: @end without @foreach"
            s_query= ;;
        @*)
            parse "$s_file" "$s_study" "$s_line" ;;
        esac
    done < "$s_tmp.check"
    [ -z "$s_query" ] || die "$s_file: @foreach $s_query without @end"

    say "$s_heading"
    no_study "$s_study" && return 0
    clock_line "$s_study"
    # the @foreach blocks, unrolled
    : > "$s_tmp.flat"
    while IFS= read -r s_line || [ -n "$s_line" ]; do
        case $s_line in
        '@foreach' | '@foreach '*)
            s_query=$(echo "${s_line#@foreach}" | tr -d ' \t')
            : > "$s_tmp.block" ;;
        '@end')
            foreach "$s_file" "$s_study" "$s_query" "$s_tmp.block" >> "$s_tmp.flat"
            s_query= ;;
        *)
            if [ -n "$s_query" ]; then
                printf '%s\n' "$s_line" >> "$s_tmp.block"
            else
                printf '%s\n' "$s_line" >> "$s_tmp.flat"
            fi ;;
        esac
    done < "$s_tmp.body"
    # text and directives
    s_par=0
    while IFS= read -r s_line || [ -n "$s_line" ]; do
        case $s_line in
        @*)
            [ "$s_par" -eq 0 ] || printf '\n' >> "$MD"
            s_par=0
            directive "$s_file" "$s_study" "$s_line" ;;
        *[![:space:]]*)
            printf '%s\n' "$s_line" >> "$MD"
            s_par=1 ;;
        *)
            [ "$s_par" -eq 0 ] || printf '\n' >> "$MD"
            s_par=0 ;;
        esac
    done < "$s_tmp.flat"
    [ "$s_par" -eq 0 ] || printf '\n' >> "$MD"
}

# comparison: the section of a saved comparison, $COMPARE (`gpulab compare A B --save
# FILE`): its summary and table as `gpulab compare --load --md` prints them (made in
# the first pass; exit 1 only says a point is slower), and its figure.
comparison() {
    cmp_md="$OUT/tables/compare.md"
    if [ "$PASS" = list ]; then
        rc=0
        "$GPULAB" compare --load "$COMPARE" --md > "$cmp_md.tmp" 2> "$OUT/sql/compare.err" || rc=$?
        [ "$rc" -le 1 ] || die "gpulab compare --load $COMPARE failed: $(cat "$OUT/sql/compare.err")"
        mv "$cmp_md.tmp" "$cmp_md"
        return 0
    fi
    [ -f "$cmp_md" ] || die "the comparison's table was not made by the first pass"
    say "## Comparison"
    say "The saved comparison \`$COMPARE\` (\`gpulab compare\`, its method in docs/cli.md): for each point, the ratio of the median times of B and A with its 95 % bootstrap interval and a verdict against the threshold; the counter changes say why."
    cat "$cmp_md" >> "$MD"
    printf '\n' >> "$MD"
    figure compare_ratio "B against A: the ratio median(B) / median(A) of every point with its 95 % interval, sorted, coloured by verdict; the dashed lines bound the band of \"same\" (the threshold), the solid line is 1."
}

# ---- the report, in two passes (see the top): front, the studies, back -----------
# front: the title and the devices
front() {
    # ---- title ----------------------------------------------------------------------
    VERSION=$("$GPULAB" --version 2>/dev/null || echo "gpulab (version unknown)")
    {
        printf '# gpulab report\n\n'
        printf 'Generated %s from `%s` by %s. ' "$(date -u '+%Y-%m-%d %H:%M UTC')" "$DB_NAME" "$VERSION"
        printf 'Only the newest run of each configuration is reported, and performance numbers come '
        printf 'only from verified (`ok`) runs; times are medians of the timed samples with their '
        printf 'spread (sample standard deviation as %% of the mean). The best value of each group is '
        printf 'in **bold** when its interval (median ± sd) lies wholly below the runner-up'"'"'s and the host '
        printf 'was quiet while it ran. Runs that are wrong, failed or skipped, and runs measured on a busy '
        printf 'host, are listed in the notes.\n\n'
    } >> "$MD"

    # ---- devices --------------------------------------------------------------------
    say "## Devices"
    if [ "$PASS" = list ] || [ ! -f "$OUT/sql/_gpus.csv" ]; then
        q -f "$TABLES/_gpus.sql" --csv > "$OUT/sql/_gpus.csv" || die "query _gpus.sql failed"
    fi
    GPUS=$(awk -F, 'NR > 1 { print $1 }' "$OUT/sql/_gpus.csv")
    if [ -z "$GPUS" ]; then
        say "No GPU runs in this database: the GPU variants were not run (no GPU on the machine, or not built)."
    fi
    for id in $GPUS; do
        if [ "$PASS" = list ] || [ ! -f "$OUT/sql/_gpu_$id.tsv" ]; then
            q "SELECT name FROM device WHERE id = $id" --tsv > "$OUT/sql/_gpu_$id.tsv"
        fi
        name=$(sed -n 2p "$OUT/sql/_gpu_$id.tsv")
        say "### GPU: ${name:-unnamed} (device $id)"
        param_table "$TABLES/device_gpu.sql" "device_gpu_$id" \
            "The GPU as recorded by \`gpulab\` with the runs (what the seeds copied from deviceQuery)." \
            "No description stored for device $id." "DEV=$id"
    done
    say "### CPU of the baselines"
    table "$TABLES/devices_cpu.sql" devices_cpu "The CPU that ran the OpenMP and sequential baselines." \
        "No CPU runs in this database."
    say "### Sessions"
    table "$TABLES/sessions.sql" sessions \
        "The \`gpulab run\` sessions whose runs are reported: config, tool version, git revision, host, date, the host's load and the GPU's clocks as each began, and how many of its runs were measured on a busy host." \
        "No sessions with runs in this database."

}

# ---- the studies, in the order of their section files ----------------------------
HAND=$(printf '%s\n' "$STUDIES_DIR"/*.md | LC_ALL=C sort)
for f in $HAND; do
    [ -f "$f" ] || continue
    base=$(basename "$f" .md)
    case $base in
        [0-9]*_[A-Za-z0-9]*) ;;
        *) die "$f: a study's section is named $STUDIES_DIR/NN_<study>.md" ;;
    esac
    study=${base#*_}
    case $study in *[!A-Za-z0-9_.-]*) die "$f: '$study' is not a plain study name" ;; esac
    case " $SECTIONS " in *" $study "*) die "$f: a second section for study $study" ;; esac
    SECTIONS="$SECTIONS $study"
done

# ---- generated sections: every other study with runs or a config (not smoke) ------
# numbered on from the highest "## S<n> " of the hand-made sections
LAST=$(cat /dev/null $HAND | sed -n 's/^## S\([0-9][0-9]*\) .*/\1/p' | sort -n | tail -n 1)
NEXT=$((${LAST:-0} + 1))
KNOWN=$( { printf '%s\n' "$STUDIES" | awk -F, 'NR > 1 && $1 != "" { print $1 }'
           printf '%s\n' "$CONF_STUDIES" | awk 'NF { print $1 }'; } | LC_ALL=C sort -u)
GENERATED_STUDIES=
mkdir -p "$GEN"
: > "$GEN/list.tmp"
for s in $KNOWN; do
    case " smoke $SECTIONS " in *" $s "*) continue ;; esac
    case $s in *[!A-Za-z0-9_.-]* | [!A-Za-z0-9]*) continue ;; esac
    c=$(config_of "$s")
    printf '%s %s %s\n' "$s" "$NEXT" "${c:--}" >> "$GEN/list.tmp"
    GENERATED_STUDIES="$GENERATED_STUDIES $s"
    NEXT=$((NEXT + 1))
done
mv "$GEN/list.tmp" "$GEN/list"
printf '%s\n' $KNOWN > "$GEN/known"
if [ "$STEP" != write ]; then
    DB="$DB" GPULAB="$GPULAB" OUT="$OUT" sh report/gen/generate.sh || die "report/gen/generate.sh failed"
    # their figures, in parallel (the calling make's jobserver, or -j of our own) and in
    # the background, while the tables' queries run
    case " ${MAKEFLAGS:-} " in
        *jobserver* | *' -j'*) jobs= ;;
        *) jobs=-j$JOBS ;;
    esac
    # shellcheck disable=SC2086
    ${MAKE:-make} --no-print-directory -f report/gen/figures.mk $jobs GEN_OUT="$OUT" GEN_DB="$DB" \
        GEN_GPULAB="$GPULAB" GEN_GNUPLOT="${GNUPLOT:-gnuplot}" &
    FIGURES=$!
fi

# back: the studies' sections, then smoke, roofline and notes
back() {
    for f in $HAND; do
        [ -f "$f" ] || continue
        base=$(basename "$f" .md)
        section "$f" "${base#*_}"
    done
    GENERATED=1
    for s in $GENERATED_STUDIES; do
        for f in "$GEN"/studies/*_"$s".md; do
            [ -f "$f" ] && section "$f" "$s"
        done
    done
    GENERATED=0

    # ---- a saved comparison (make report COMPARE=FILE) --------------------------------
    if [ -n "${COMPARE:-}" ]; then
        comparison
    fi

    # ---- smoke ----------------------------------------------------------------------
    say "## Smoke sweep"
    if [ "$(study_runs smoke)" -gt 0 ]; then
        say "Every variant of every family at tiny sizes (configs/smoke.conf): a check that everything runs and verifies, not a measurement."
        table "$TABLES/smoke.sql" smoke "Smoke sweep: every newest run with its status." "No smoke runs."
    else
        say "No smoke sweep in this database."
    fi

    # ---- roofline -------------------------------------------------------------------
    say "## Roofline"
    table "$TABLES/roofline_ceilings.sql" roofline_ceilings \
        "Roofline ceilings per GPU: the FP32 peak and the measured bandwidth of each memory level (L1, shared memory, L2, DRAM copy, host link), each with its ridge point (peak / bandwidth), and the SM clock they were measured at." \
        "No verified GPU runs: no roofline."
    if [ -n "$GPUS" ]; then
        figure roofline "Hierarchical roofline per GPU: every verified GPU run at its GFLOP/s and its arithmetic intensity at each memory level it has counters for, one colour per level (FLOP per L1 byte, per L2 byte, per DRAM byte; zero-copy runs, whose off-chip traffic crosses the host link, per host-link byte under the host-link roof instead of DRAM), one shape per family; grey: runs without counters, at FLOP per minimum byte. A run's points share its GFLOP/s: the level whose point lies closest under its roof is the one that bounds it."
    fi

    # ---- searches -------------------------------------------------------------------
    say "## Searches"
    table "$TABLES/search_summary.sql" search_summary \
        "Searches (sections with \`strategy =\`, docs/configs.md): evaluations (runs stored, skipped ones aside) and seconds of each, the best median time it found and its configuration, and the evaluations and seconds it took to come within 5 % of that best." \
        "No searches in this database (every section ran its whole product)."
    nsearch=$(grep -c '^|' "$OUT/tables/search_summary.md" 2>/dev/null || true)
    if [ "${nsearch:-0}" -gt 2 ]; then
        figure search_progress "Best median time found so far by each search, against its evaluations (left) and against its seconds (right): each run's time from the previous stored run of its section, summed; a step down is a better configuration found."
    fi

    # ---- notes ----------------------------------------------------------------------
    say "## Notes"
    table "$TABLES/notes_summary.sql" notes_summary "Runs in the database by outcome." "The database holds no runs."
    # runs of a study that has no section of its own (smoke has its own)
    for s in $(printf '%s\n' "$STUDIES" | awk -F, 'NR > 1 && $1 != "" && $1 != "smoke" { print $1 }'); do
        case " $SECTIONS " in
            *" $s "*) ;;
            *) case " $GENERATED_STUDIES " in
                   *" $s "*) say "Study \`$s\` has $(study_runs "$s") newest runs in the database and no section of its own (no $STUDIES_DIR/NN_$s.md): its section is generated." ;;
                   *) say "Study \`$s\` has $(study_runs "$s") newest runs in the database but no section in this report (no $STUDIES_DIR/NN_$s.md)." ;;
               esac ;;
        esac
    done
    say "### Runs without a performance number"
    table "$TABLES/notes_status.sql" notes_status \
        "Wrong, failed and skipped runs, and why." "Every reported run was verified: none wrong, failed or skipped."
    say "### Runs measured on a busy host"
    table "$TABLES/notes_contaminated.sql" notes_contaminated \
        "Verified runs whose timing may be disturbed (run.contaminated): the host busy while they ran, another gpulab on their GPU, or the GPU's clock slowed. Marked ‡ in the generated tables and never set in bold; measure them again on a quiet host." \
        "No verified run was measured on a busy host, beside another gpulab or with a slowed GPU clock."
    # the GPU notes have nothing to say without GPU runs
    if [ -n "$GPUS" ]; then
        none_guide="Every verified GPU run follows the launch guidance."
        none_occ="No verified GPU run has a theoretical occupancy below 50 %."
        none_metrics="Every verified GPU run has hardware counters."
        none_smem="Every verified GPU run with hardware counters has its exact bank conflicts."
    else
        none_guide="No GPU runs in this database." none_occ="No GPU runs in this database."
        none_metrics="No GPU runs in this database." none_smem="No GPU runs in this database."
    fi
    say "### Launch guidance"
    table "$TABLES/notes_guide.sql" notes_guide \
        "Verified GPU runs that break the lecture's launch guidance (blocks ≥ 2 × SMs; threads per block a multiple of 32, ≥ 64 when blocks > SMs, 128–256 recommended)." \
        "$none_guide"
    say "### Low occupancy"
    table "$TABLES/notes_occupancy.sql" notes_occupancy \
        "Kernels with theoretical occupancy below 50 % and the resource that limits them." \
        "$none_occ"
    say "### Hardware counters"
    table "$TABLES/notes_metrics.sql" notes_metrics \
        "Verified GPU runs without hardware counters, and why (their metric cells are empty, never 0)." \
        "$none_metrics"
    say "### Exact bank conflicts"
    table "$TABLES/notes_smem.sql" notes_smem \
        "Verified GPU runs with hardware counters but without exact shared-memory bank conflicts (the wavefronts beyond the ideal, from an instrumented replay), and why." \
        "$none_smem"

}

if [ "$STEP" != write ]; then
    PASS=list MD="$OUT/list.md.tmp" NTAB=0 NFIG=0
    : > "$MD"
    : > "$JOBLIST"
    front
    back
    rm -f "$MD"
    run_tables
    wait "$FIGURES" || die "drawing the generated figures (report/gen/figures.mk) failed"
    if [ "$STEP" = queries ]; then
        echo "report/build.sh: $(wc -l < "$JOBLIST.uniq") tables queried"
        exit 0
    fi
fi
PASS=write MD="$OUT/report.md.tmp" NTAB=0 NFIG=0
: > "$MD"
front
back

# configs whose study has no section, not even a generated one (a name that is not
# plain): said here, since their runs would go unreported
printf '%s\n' "$CONF_STUDIES" | while read -r s c; do
    [ -n "$s" ] || continue
    case " smoke $SECTIONS $GENERATED_STUDIES " in
        *" $s "*) ;;
        *) echo "report/build.sh: warning: $c (study $s) has no section $STUDIES_DIR/NN_$s.md" >&2 ;;
    esac
done

mv "$MD" "$OUT/report.md"
echo "report/build.sh: $OUT/report.md ($NTAB tables, $NFIG figures)"
