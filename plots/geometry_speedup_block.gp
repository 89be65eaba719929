# plots/geometry_speedup_block.gp - S3: speed-up of the M x 2M block (two outputs per
# thread) over the M x M block against N, a line per memory kind and geometry.
# Data: plots/geometry_speedup_block.sql (panel, series, x = N, y = T_MxM / T_Mx2M).
# Must not compute numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('S3: no M×M and M×2M runs at the same N'); exit }
eval scan_col('series')
NS = words(LIST_series)
eval term(1, 1)
set output outfile
@RATIO_Y
set xlabel 'matrix side N'
set ylabel 'speed-up T_{M×M} / T_{M×2M}'
set key outside right top vertical
set pointsize 0.8
set title 'S3: two outputs per thread (M×2M) over one (M×M)'
plot for [s = 1:NS] datafile using (column('x')):(sel1('series', word(LIST_series, s), column('y'))) \
     lt lt_of(s) title word(LIST_series, s), \
     1 with lines ls 102 title 'equal'
unset output
