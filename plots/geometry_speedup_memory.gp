# plots/geometry_speedup_memory.gp - S3: speed-up of shared over global memory against N,
# a line per grid geometry and block shape. Data: plots/geometry_speedup_memory.sql
# (panel, series, x = N, y = T_global / T_shared). Must not compute numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('S3: no global and shared runs at the same N'); exit }
eval scan_col('series')
NS = words(LIST_series)
eval term(1, 1)
set output outfile
@RATIO_Y
set xlabel 'matrix side N'
set ylabel 'speed-up T_{global} / T_{shared}'
set key outside right top vertical
set pointsize 0.8
set title 'S3: shared over global memory'
plot for [s = 1:NS] datafile using (column('x')):(sel1('series', word(LIST_series, s), column('y'))) \
     lt lt_of(s) title word(LIST_series, s), \
     1 with lines ls 102 title 'equal'
unset output
