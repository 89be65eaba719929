# plots/roofline.gp - the hierarchical roofline per GPU model (one panel each): the
# FP32 peak and one roof per memory level, min(peak, bandwidth x intensity) with the
# level's measured bandwidth (L1, L2, DRAM copy, host link), and every verified GPU
# run as one point per level it has counters for, at that level's intensity, in the
# level's colour: its L1, L2 and DRAM points (or host-link point, for zero-copy
# runs) share its GFLOP/s. Grey points: runs without counters, at their analytic
# intensity. The point's shape is its family (or the column rl_shape names).
# Data: plots/roofline.sql (panel, series, x = FLOP/byte, y = GFLOP/s, family, level,
# peak_gflops, l1_roof, l2_roof, dram_roof, hostlink_roof). Also drawn for a generated
# study's section by report/gen/roofline.gp, which sets before loading this file:
#   rl_shape   the column whose values give the shapes (default 'family')
#   rl_title   the title's start (default 'Roofline')
# Must not compute numbers beyond the roof lines.
load 'plots/style.gp'
if (!exists("rl_shape")) rl_shape = 'family'
if (!exists("rl_title")) rl_title = 'Roofline'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page(rl_title . ': no verified GPU runs'); exit }
eval scan_col('panel')
eval scan_col('series')
eval scan_col(rl_shape)
SHAPES = value('LIST_' . rl_shape)
NP = words(LIST_panel)
NSH = words(SHAPES)
# the levels, in the order of the data's `level` column: colour, name in the key
NL = 5
array RL_LC[NL] = ['#009E73', '#0072B2', '#D55E00', '#CC79A7', '#8C8C8C']
array RL_NAME[NL] = ['L1', 'L2', 'DRAM', 'host link', 'analytic']
array RL_KEY[NL] = ['L1', 'L2', 'DRAM', 'host link (zero-copy)', 'no counters (minimum bytes)']
# the shapes: filled, then open, then strokes
array RL_PT[15] = [7, 5, 9, 13, 11, 15, 6, 4, 8, 12, 10, 14, 1, 2, 3]
widx(list, w, i) = i > words(list) ? 0 : (word(list, i) eq w ? i : widx(list, w, i + 1))
shape_pt(s) = RL_PT[((widx(SHAPES, s, 1) - 1) % 15) + 1]
has_level(l) = strstrt(LIST_series, '"' . RL_NAME[l] . '"') > 0
# each panel's ceilings (read before the axes turn logarithmic); NaN where not measured
array PEAKS[NP]
array BW[NP * 4]
do for [p = 1:NP] {
    P = word(LIST_panel, p)
    PEAK = NaN; B1 = NaN; B2 = NaN; B3 = NaN; B4 = NaN
    set table $scan_junk
    plot datafile using (strcol('panel') eq P ? (PEAK = column('peak_gflops'), \
        B1 = column('l1_roof'), B2 = column('l2_roof'), B3 = column('dram_roof'), \
        B4 = column('hostlink_roof')) : 0, 0):(0) with table
    unset table
    PEAKS[p] = PEAK; BW[4 * p - 3] = B1; BW[4 * p - 2] = B2; BW[4 * p - 1] = B3; BW[4 * p] = B4
}
# a level is in the key when some run has a point there or some panel its roof
array ROOF_ANY[NL]
do for [l = 1:NL] {
    ROOF_ANY[l] = 0
    if (l <= 4) { do for [p = 1:NP] { if (BW[4 * (p - 1) + l] == BW[4 * (p - 1) + l]) { ROOF_ANY[l] = 1 } } }
}
in_key(l) = has_level(l) || ROOF_ANY[l]
# the x range holds every point and every ridge point (peak / bandwidth)
stats datafile using (column('x')) nooutput
XMIN = STATS_min / 3; XMAX = STATS_max * 3
stats datafile using (column('y')) nooutput
YMIN = STATS_min / 3; YMAX = STATS_max * 3
do for [p = 1:NP] {
    do for [l = 1:4] {
        B = BW[4 * (p - 1) + l]
        if (B == B && PEAKS[p] == PEAKS[p] && B > 0) {
            R = PEAKS[p] / B
            XMIN = R / 3 < XMIN ? R / 3 : XMIN
            XMAX = R * 3 > XMAX ? R * 3 : XMAX
        }
    }
    YMAX = (PEAKS[p] == PEAKS[p] && 1.5 * PEAKS[p] > YMAX) ? 1.5 * PEAKS[p] : YMAX
}
ceiling(x, peak, bw) = (bw * x < peak) ? bw * x : peak
roof(x, p, l) = (PEAKS[p] == PEAKS[p] && BW[4 * (p - 1) + l] == BW[4 * (p - 1) + l]) ? \
    ceiling(x, PEAKS[p], BW[4 * (p - 1) + l]) : NaN
bw_text(b) = b == b ? (b >= 100 ? sprintf('%.0f', b) : sprintf('%.3g', b)) : 'not measured'
panel_title(p) = (PEAKS[p] == PEAKS[p] ? sprintf("FP32 peak %.0f GFLOP/s", PEAKS[p]) : 'FP32 peak not recorded') . \
    (NP > 1 ? "\n" : '; ') . sprintf("roofs (GB/s): L1 %s, L2 %s, DRAM %s, host link %s", \
    bw_text(BW[4 * p - 3]), bw_text(BW[4 * p - 2]), bw_text(BW[4 * p - 1]), bw_text(BW[4 * p]))

# one panel, or two columns of them; the key below them all
NC = NP > 1 ? 2 : 1
NR = int(ceil(NP / 2.0))
HU = NP > 1 ? 1.05 * NR + 0.6 : 1.3
# margins and gaps in units of height: the key (and the x label) below, the titles above
BM = (NP > 1 ? 0.5 : 0.33) / HU
TM = 1 - (NP > 1 ? 0.24 : 0.17) / HU
SY = 0.36 / HU
eval term(NP > 1 ? 2.2 : 1.25, HU)
set output outfile
set logscale x 10
set logscale y 10
set format x '%g'
set format y '%g'
set mxtics 10
set mytics 10
XLAB = 'arithmetic intensity (FLOP per byte moved at each level: colour = level, shape = ' . rl_shape . ')'
set ylabel 'performance (GFLOP/s)'
set xrange [XMIN : XMAX]
set yrange [YMIN : YMAX]
set samples 400
set pointsize 1.2
set key at screen 0.5, 0.012 center bottom vertical maxrows 5 Left reverse noenhanced box opaque width 1
set multiplot layout NR, NC margins (NP > 1 ? 0.075 : 0.09), 0.97, BM, TM spacing 0.08, SY
do for [p = 1:NP] {
    P = word(LIST_panel, p)
    set title rl_title . ': ' . P . "\n" . panel_title(p) noenhanced
    # the x label under the lowest panel of each column only
    if (p + NC > NP) { set xlabel (NP > 1 ? 'FLOP per byte at each level' : XLAB) } else { unset xlabel }
    if (p > 1) { set key off }
    if (p % NC != 1 && NC > 1) { unset ylabel } else { set ylabel 'performance (GFLOP/s)' }
    plot (PEAKS[p] == PEAKS[p] ? PEAKS[p] : NaN) with lines ls 101 title 'FP32 peak', \
         for [l = 1:4] roof(x, p, l) with lines lw 2.5 lc rgb RL_LC[l] dt 1 notitle, \
         for [l = 1:NL] datafile using (column('x')):(strcol('panel') eq P && int(column('level')) == l ? \
             column('y') : NaN):(shape_pt(strcol(rl_shape))) with points pt variable lc rgb RL_LC[l] notitle, \
         for [l = 1:NL] NaN with linespoints lw 2.5 dt 1 pt 7 lc rgb RL_LC[l] \
             title (in_key(l) ? RL_KEY[l] : ''), \
         for [s = 1:NSH] NaN with points pt shape_pt(word(SHAPES, s)) lc rgb '#333333' title word(SHAPES, s)
}
unset multiplot
unset output
