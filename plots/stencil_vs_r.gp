# plots/stencil_vs_r.gp - S2: stencil GFLOP/s against the radius R at the largest N: GPU
# variant and K (best BS each), CPU rows. Data: plots/stencil_vs_r.sql (panel, series,
# x = R, y = GFLOP/s). Must not compute numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('S2: no verified stencil runs in this database'); exit }
eval scan_col('panel')
eval scan_col('series')
eval term(1, 1)
set output outfile
@LOGX2N
@LOGY10
set xlabel 'radius R'
set ylabel 'GFLOP/s, FLOP = (N-2R)^2 (2R+1)^2'
set key outside right top vertical
NS = words(LIST_series)
set title 'S2: radius-R box sum against R, ' . word(LIST_panel, 1)
plot for [s = 1:NS] datafile using (column('x')):(sel1('series', word(LIST_series, s), column('y'))) \
     lt lt_of(s) title word(LIST_series, s)
unset output
