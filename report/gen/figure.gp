# report/gen/figure.gp - the figure of a generated section (report/gen/generate.awk):
# one measure against one parameter, a line per series, in the look of plots/style.gp.
# Loaded by a generated plots/<study>_gen_by_<P>.gp (under report/out/gen/) that sets
#   ftitle, xlabel, ylabel   the title and the axis labels
#   xcat                     1 when the parameter is text: x is its rank, labelled
#   nodata                   the line of the page drawn when the query has no rows
# besides fmt, datafile and outfile from `gnuplot -e` (report/gen/figures.mk).
# Data: panel, series, x, y, label, sorted by series then x. Axes: x logarithmic
# (base 2) when the values are positive and span a factor of 8 or more, y
# logarithmic when it spans more than a factor of 30. Must not compute numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page(nodata); exit }
eval scan_col('series')
NS = words(LIST_series)
eval term(1.15, 1)
set output outfile
set title ftitle noenhanced
set xlabel xlabel noenhanced
set ylabel ylabel noenhanced
set key outside right top vertical
stats datafile using (column('x')) nooutput
XMIN = STATS_min; XMAX = STATS_max
stats datafile using (column('y')) nooutput
YMIN = STATS_min; YMAX = STATS_max
if (YMIN > 0 && YMAX > 30 * YMIN) { eval LOGY10 } else { set yrange [0:*] }
if (xcat) {
    set offsets 0.3, 0.3, graph 0.05, graph 0.05
    plot for [s = 1:NS] datafile using (column('x')):(sel1('series', word(LIST_series, s), column('y'))):xtic(strcol('label')) \
         lt lt_of(s) title word(LIST_series, s)
} else {
    if (XMIN > 0 && XMAX >= 8 * XMIN) { eval LOGX2N; set xrange [XMIN / 1.15 : XMAX * 1.15] }
    eval DATA_XTICS
    plot for [s = 1:NS] datafile using (column('x')):(sel1('series', word(LIST_series, s), column('y'))) \
         lt lt_of(s) title word(LIST_series, s)
}
unset output
