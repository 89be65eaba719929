# plots/roofline.gp - a roofline per GPU (one panel each): ceilings min(FP32 peak,
# measured copy bandwidth x intensity) from the device table, and every verified GPU
# run as a point coloured by family; filled points use measured DRAM bytes, open
# points the analytic minimum bytes. Data: plots/roofline.sql (panel, series, x =
# FLOP/byte, y = GFLOP/s, family, measured, peak_gflops, bw_gbs). Must not compute
# numbers beyond the ceiling lines.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('Roofline: no verified GPU runs in this database'); exit }
eval scan_col('panel')
eval scan_col('family')
eval scan_col('series')
NP = words(LIST_panel)
NS = words(LIST_series)
# colour by family (its place in the family list), filled points for measured bytes
widx(list, w, i) = i > words(list) ? 0 : (word(list, i) eq w ? i : widx(list, w, i + 1))
series_lt(s) = lt_of(widx(LIST_family, word(s, 1), 1)) + (strstrt(s, 'measured') > 0 ? 0 : NLT)
# the ceilings of each panel's device (read before the axes turn logarithmic)
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
eval term(NP > 1 ? 0.7 * NP : 1, 1.2)
set output outfile
set logscale x 10
set logscale y 10
set format x '%g'
set format y '%g'
set mxtics 10
set mytics 10
set xlabel 'arithmetic intensity (FLOP / DRAM byte)'
set ylabel 'performance (GFLOP/s)'
@KEY_BELOW
set samples 400
set pointsize 1.4
stats datafile using (column('x')) nooutput
XMIN = STATS_min / 3; XMAX = STATS_max * 3
stats datafile using (column('y')) nooutput
YMIN = STATS_min / 3; YMAX = STATS_max * 3
ceiling(x, peak, bw) = (bw * x < peak) ? bw * x : peak
set multiplot layout 1, NP margins (NP > 1 ? 0.09 : 0.12), 0.97, 0.26, 0.88 spacing 0.06, 0
do for [p = 1:NP] {
    P = word(LIST_panel, p)
    PEAK = PEAKS[p]; BW = BWS[p]
    XHI = (PEAK == PEAK && BW == BW) ? (XMAX > 3 * PEAK / BW ? XMAX : 3 * PEAK / BW) : XMAX
    YHI = (PEAK == PEAK) ? (YMAX > 1.5 * PEAK ? YMAX : 1.5 * PEAK) : YMAX
    set xrange [XMIN : XHI]
    set yrange [YMIN : YHI]
    set title 'Roofline: ' . P . "\n" . ((PEAK == PEAK && BW == BW) ? \
        sprintf('FP32 peak %.0f GFLOP/s, measured copy bandwidth %.0f GB/s', PEAK, BW) : \
        'ceilings not recorded for this device')
    if (p > 1) { unset ylabel; set key off }
    plot (PEAK == PEAK && BW == BW ? ceiling(x, PEAK, BW) : NaN) with lines ls 101 \
             title 'roof: peak and copy bandwidth', \
         for [s = 1:NS] datafile using (column('x')):(sel2('panel', P, 'series', word(LIST_series, s), column('y'))) \
             with points lt series_lt(word(LIST_series, s)) title word(LIST_series, s)
}
unset multiplot
unset output
