# plots/style.gp - the look every figure shares: terminal (SVG or PNG), fonts, line
# types that stay apart in greyscale (colour + dash + point), grid, key, log-axis
# macros, and helpers that read the figure's CSV (row count, series and panel lists,
# the "no data" page). Loaded first by every plots/<figure>.gp, which runs from the
# repository root with these variables set by `gnuplot -e` (report/report.mk does):
#   fmt      'svg' or 'png'
#   datafile the figure's CSV (gpulab query -f plots/<figure>.sql --csv)
#   outfile  where the figure goes
# Must not plot anything itself or know about any one figure's columns beyond the
# long-form convention of plots/*.sql: columns panel, series, x, y (and extras),
# sorted by panel, series, x; text values never contain a comma (gnuplot does not
# read CSV quoting), so labels use parentheses and slashes instead.

if (!exists("fmt")) fmt = 'svg'
if (!exists("datafile")) print "plots/style.gp: set datafile='...csv' with gnuplot -e"; exit status 2
if (!exists("outfile")) print "plots/style.gp: set outfile='...' with gnuplot -e"; exit status 2

# ---- terminal ---------------------------------------------------------------------
# One "unit" is a single-panel figure: 960 x 600 SVG pixels with 15 px text, which
# printed 16 cm wide gives text of about 7 pt. Wider figures (several panels) get
# proportionally larger text, so they stay legible when shrunk to the same printed
# width. PNG is the same page at twice the pixels (pngcairo sizes text in points
# of 1/96 inch: 1.5 pt there is 2 px).
# A figure calls `eval term(W, H)` with its width and height in units.
FONT_PX = 15
font_px(w) = int(FONT_PX * (w > 1 ? w ** 0.6 : 1))
term(w, h) = (fmt eq 'png') ? \
    sprintf("set terminal pngcairo enhanced color size %d,%d font 'DejaVu Sans,%d' linewidth 2.5 rounded", \
            int(1920 * w), int(1200 * h), int(1.5 * font_px(w))) : \
    sprintf("set terminal svg enhanced size %d,%d dynamic font 'DejaVu Sans,%d' linewidth 1.25 rounded background '#ffffff'", \
            int(960 * w), int(600 * h), font_px(w))
# point size: the two terminals scale points differently
PS = (fmt eq 'png') ? 2.2 : 0.45

# a font spec for text smaller or larger than the rest: `font font_rel(0.8, W)`
font_rel(f, w) = sprintf(',%d', int((fmt eq 'png' ? 1.5 : 1) * f * font_px(w)))

# ---- line types: colour-blind-safe colours (Okabe-Ito, yellow replaced by grey, plus
# two dark ones), ordered so neighbours differ in lightness, each with its own dash
# and point so that a greyscale print still tells them apart. Types 1..10 have
# filled points, 11..20 the same colour and dash with open points, so a figure can
# pair e.g. "measured" and "analytic" by adding NLT.
NLT = 10
array LC[NLT] = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#000000', '#E69F00', '#56B4E9', \
                 '#7F7F7F', '#882255', '#44AA99']
array PT_FILLED[NLT] = [7, 5, 9, 13, 11, 15, 7, 5, 9, 13]
array PT_OPEN[NLT]   = [6, 4, 8, 12, 10, 14, 6, 4, 8, 12]
array DT[NLT] = ['1', '2', '3', '4', '5', '(12,4,2,4,2,4)', '(20,6)', '(4,4)', '(2,6)', '(16,4,4,4)']
do for [i = 1:NLT] {
    eval sprintf("set linetype %d lc rgb '%s' dt %s pt %d lw 1.5 ps %g", i, LC[i], DT[i], PT_FILLED[i], PS)
    eval sprintf("set linetype %d lc rgb '%s' dt %s pt %d lw 1.5 ps %g", i + NLT, LC[i], DT[i], PT_OPEN[i], PS)
}
# series beyond NLT cycle through the same looks
lt_of(i) = ((i - 1) % NLT) + 1
# the ceilings of a roofline and reference lines: thick grey, or thin dashed
set style line 101 lc rgb '#404040' lw 3 dt 1
set style line 102 lc rgb '#404040' lw 1.5 dt 2
set style line 103 lc rgb '#dcdcdc' lw 1 dt 1
set style line 104 lc rgb '#efefef' lw 1 dt 1

# ---- axes, grid, key ----------------------------------------------------------------
set encoding utf8
set datafile separator comma
set datafile columnheaders
set grid xtics ytics mxtics mytics back ls 103, ls 104
set border 3 lw 1
set tics nomirror out scale 0.8
set key top left Left reverse noenhanced samplen 3 spacing 1.1 box lc rgb '#bbbbbb' opaque
set style data linespoints
set autoscale fix
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05

# geometric sweeps: `@LOGX2` for powers of two written 2^{20}, `@LOGX2N` for powers
# of two written as numbers (block sizes: 8, 16, 32), `@LOGY10` for decades written
# as plain numbers (1, 10, 100)
LOGX2  = "set logscale x 2; set format x '2^{%L}'; set mxtics default"
LOGX2N = "set logscale x 2; set format x '%g'; set mxtics default"
LOGY10 = "set logscale y 10; set format y '%g'; set mytics 10"

# one y range for every panel of a figure (log axes: a margin of a factor 1.5); when
# the extremes are less than a factor 30 apart, ticks at 2 and 5 times each decade too
SHARED_LOGY = "stats datafile using (column('y')) nooutput; set yrange [STATS_min / 1.5 : STATS_max * 1.5]; " . \
    "if (STATS_max < 30 * STATS_min) { do for [k = floor(log10(STATS_min / 1.5)) : ceil(log10(STATS_max * 1.5))] " . \
    "{ set ytics add (2 * 10.0 ** k, 5 * 10.0 ** k) } }"
# the same over each point's spread (data with ylo and yhi: PANEL_LINES_SPREAD below);
# with no spread the same range as SHARED_LOGY
SHARED_LOGY_SPREAD = "stats datafile using (column('ylo')) nooutput; YLO_ = STATS_min; " . \
    "stats datafile using (column('yhi')) nooutput; YHI_ = STATS_max; set yrange [YLO_ / 1.5 : YHI_ * 1.5]; " . \
    "if (YHI_ < 30 * YLO_) { do for [k = floor(log10(YLO_ / 1.5)) : ceil(log10(YHI_ * 1.5))] " . \
    "{ set ytics add (2 * 10.0 ** k, 5 * 10.0 ** k) } }"
# x tics at the data's own x values when there are few of them (N = 1024, 2048, 3072)
# (an explicit list replaces the automatic tics; `add` appends to it)
DATA_XTICS = "eval scan_col('x'); if (words(LIST_x) <= 8) { " . \
    "set xtics (word(LIST_x, 1) real(word(LIST_x, 1))); " . \
    "do for [i = 2:words(LIST_x)] { set xtics add (word(LIST_x, i) real(word(LIST_x, i))) }; set mxtics 1 }"
# ratios (speed-ups): the range always holds 1; linear from 0 when the largest is
# less than 8 times the smallest, else logarithmic
RATIO_Y = "stats datafile using (column('y')) nooutput; " . \
    "RLO = STATS_min < 1 ? STATS_min : 1; RHI = STATS_max > 1 ? STATS_max : 1; " . \
    "if (RHI < 8 * RLO) { unset logscale y; set format y '%g'; set mytics default; set yrange [0 : RHI * 1.1] } " . \
    "else { set logscale y 10; set format y '%g'; set mytics 10; set yrange [RLO / 1.5 : RHI * 1.5] }"
# a key below all the panels of a multiplot, and room for it
KEY_BELOW = "set key at screen 0.5, 0.015 center bottom vertical maxrows 3 Left reverse noenhanced box opaque width 1"

# ---- reading the figure's CSV -------------------------------------------------------
# `eval count_rows` sets NROWS (data rows); `eval scan_col('series')` sets LIST_series
# to the distinct values of that column in order of first appearance, as a quoted
# list for word() and words(): '"global BS=8" "shared BS=8"'.
add_word(list, s) = strstrt(list, '"' . s . '"') ? list : list . '"' . s . '" '
scan_col(col) = sprintf("LIST_%s = ''; set table $scan_junk; plot datafile using (LIST_%s = add_word(LIST_%s, strcol('%s')), 0):(0) with table; unset table", col, col, col, col)
# (the row count comes from wc: gnuplot itself warns about a file with no data rows)
count_rows = "NROWS = int(system(sprintf(\"wc -l < '%s'\", datafile))) - 1"

# The page a figure draws when its query returned no rows: same size, one line
# saying so, so that every figure file exists whatever the database holds.
no_data_page(what) = sprintf("set output outfile; unset key; unset border; unset tics; unset grid; set label 1 '%s' at graph 0.5, 0.5 center font '" . font_rel(1.3, 1) . "'; plot [0:1] [0:1] NaN notitle; unset output", what)

# select helpers for `using`: the value when the row belongs to (panel, series), else NaN
sel2(pc, pv, sc, sv, y) = (strcol(pc) eq pv && strcol(sc) eq sv) ? y : NaN
sel1(sc, sv, y) = (strcol(sc) eq sv) ? y : NaN

# ---- the common figure: one panel per `panel` value side by side, one line per
# `series` (same look for the same series in every panel), shared y range, y tic
# labels on the first panel only, the key below all panels. A figure sets its
# labels and log axes, then `eval scan_col('panel'); eval scan_col('series')` and
# `@PANEL_LINES`. Set TITLE_OF_PANEL(P) to change panel titles.
TITLE_OF_PANEL(P) = P
# (the key below has at most 3 rows: KR rows once gnuplot balances the columns)
PANEL_LINES = "NP = words(LIST_panel); NS = words(LIST_series); KR = ceil(NS / ceil(NS / 3.0)); " . \
    "set multiplot layout 1, NP margins (NP > 1 ? 0.09 : 0.12), 0.98, 0.17 + 0.045 * KR, 0.84 spacing 0.035, 0 title MTITLE; " . \
    "do for [p = 1:NP] { P = word(LIST_panel, p); set title TITLE_OF_PANEL(P); " . \
    "if (p > 1) { unset ylabel; set format y ''; set key off }; " . \
    "plot for [s = 1:NS] datafile using (column('x')):(sel2('panel', P, 'series', word(LIST_series, s), column('y'))) lt lt_of(s) title word(LIST_series, s) }; " . \
    "unset multiplot"
# ---- the same with each point's spread: data whose y is the median of a point's
# runs (seeds, repeats) and ylo, yhi the lowest and highest of them draws the line
# through the medians and, where a point has more than one run, a bar from ylo to
# yhi in the line's colour. `eval has_spread` first, before any axis is set (SPREAD = 1
# when any point has a spread); without one the figure is the plain one, point for point.
SPREAD_BARS = "for [s = 1:NS] datafile using (column('x')):(sel2('panel', P, 'series', word(LIST_series, s), column('y'))):(column('ylo')):(column('yhi')) with yerrorbars lt lt_of(s) pointsize 0 notitle"
has_spread = "stats datafile using (column('yhi') - column('ylo')) nooutput; SPREAD = (STATS_max > 0); SPREAD_PART = SPREAD ? ', ' . SPREAD_BARS : ''"
PANEL_LINES_SPREAD = "NP = words(LIST_panel); NS = words(LIST_series); KR = ceil(NS / ceil(NS / 3.0)); " . \
    "set multiplot layout 1, NP margins (NP > 1 ? 0.09 : 0.12), 0.98, 0.17 + 0.045 * KR, 0.84 spacing 0.035, 0 title MTITLE; " . \
    "do for [p = 1:NP] { P = word(LIST_panel, p); set title TITLE_OF_PANEL(P); " . \
    "if (p > 1) { unset ylabel; set format y ''; set key off }; " . \
    "plot for [s = 1:NS] datafile using (column('x')):(sel2('panel', P, 'series', word(LIST_series, s), column('y'))) lt lt_of(s) title word(LIST_series, s) @SPREAD_PART }; " . \
    "unset multiplot"
