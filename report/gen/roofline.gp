# report/gen/roofline.gp - a generated section's roofline (report/gen/generate.awk).
# Loaded by a generated plots/<study>_gen_roofline.gp that sets
#   mode    'flop': the hierarchical roofline that plots/roofline.gp draws for every
#                   run (GFLOP/s against FLOP per byte at each memory level, under the
#                   FP32 peak and each level's measured roof), one shape per variant
#                   (column `variant`); data as plots/roofline.sql's
#           'bw':   the runs have no FLOP count (intensity 0), so their roof is the
#                   measured copy bandwidth: GB/s against the bytes moved (MB), a point
#                   per verified GPU run coloured by variant (column vi), filled for
#                   measured DRAM bytes and open for the analytic minimum; data: panel,
#                   series, x, y, vi, measured, peak_gflops, bw_gbs
#   study   the study's name, for the titles
# besides fmt, datafile and outfile. Must not compute numbers beyond the ceiling lines.
# (old-style if: a file loaded inside { } may not use old-style ifs, and style.gp does)
if (mode eq 'flop') rl_shape = 'variant'; rl_title = study . ' on the roofline'; load 'plots/roofline.gp'; exit
# mode 'bw'
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page(study . ': no verified GPU runs to place on the roofline'); exit }
eval scan_col('panel')
eval scan_col('series')
NP = words(LIST_panel)
NS = words(LIST_series)
# each series' line type: its variant's colour, open points for analytic bytes
array LTS[NS]
do for [s = 1:NS] {
    S = word(LIST_series, s)
    LT = 1
    set table $scan_junk
    plot datafile using (strcol('series') eq S ? (LT = lt_of(int(column('vi'))) + (column('measured') > 0 ? 0 : NLT)) : 0, 0):(0) with table
    unset table
    LTS[s] = LT
}
array PEAKS[NP]
array BWS[NP]
do for [p = 1:NP] {
    P = word(LIST_panel, p)
    PEAK = NaN; BW = NaN
    set table $scan_junk
    plot datafile using (strcol('panel') eq P ? (PEAK = column('peak_gflops'), BW = column('bw_gbs')) : 0, 0):(0) with table
    unset table
    PEAKS[p] = PEAK; BWS[p] = BW
}
# one panel: the key on the right; several: below them all
eval term(NP > 1 ? 0.7 * NP : 1.5, 1.2)
set output outfile
set logscale x 10
set logscale y 10
set format x '%g'
set format y '%g'
set mxtics 10
set mytics 10
set xlabel 'bytes moved (MB, the analytic minimum)'
set ylabel 'bandwidth (GB/s)'
if (NP == 1) {
    set key at screen 0.67, 0.88 left top vertical Left reverse noenhanced box opaque
    RM = 0.65; BM = 0.12
} else {
    eval KEY_BELOW
    RM = 0.97; BM = 0.26
}
set samples 400
set pointsize 1.4
stats datafile using (column('x')) nooutput
XMIN = STATS_min / 3; XMAX = STATS_max * 3
stats datafile using (column('y')) nooutput
YMIN = STATS_min / 3; YMAX = STATS_max * 3
set multiplot layout 1, NP margins (NP > 1 ? 0.09 : 0.09), RM, BM, 0.88 spacing 0.06, 0
do for [p = 1:NP] {
    P = word(LIST_panel, p)
    PEAK = PEAKS[p]; BW = BWS[p]
    XLO = XMIN; XHI = XMAX
    YHI = (BW == BW) ? (YMAX > 1.5 * BW ? YMAX : 1.5 * BW) : YMAX
    set title study . ' on the bandwidth roof: ' . P . "\n" . ((BW == BW) ? \
        sprintf('measured copy bandwidth %.0f GB/s', BW) : 'copy bandwidth not recorded for this device') noenhanced
    set xrange [XLO : XHI]
    set yrange [YMIN : YHI]
    if (p > 1) { unset ylabel; set key off }
    plot (BW == BW ? BW : NaN) with lines ls 101 title 'roof: measured copy bandwidth', \
         for [s = 1:NS] datafile using (column('x')):(sel2('panel', P, 'series', word(LIST_series, s), column('y'))) \
             with points lt LTS[s] title word(LIST_series, s)
}
unset multiplot
unset output
