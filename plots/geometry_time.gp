# plots/geometry_time.gp - S3: matmul time against N for each grid geometry and block
# shape, one panel per memory kind. Data: plots/geometry_time.sql (panel, series, x = N,
# y = median ms). Must not compute numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('S3: no verified GPU geometry runs in this database'); exit }
eval scan_col('panel')
eval scan_col('series')
eval has_spread
eval term(words(LIST_panel) > 1 ? 0.7 * words(LIST_panel) : 1, 1.25)
set output outfile
@LOGY10
@SHARED_LOGY_SPREAD
set xlabel 'matrix side N'
set ylabel 'kernel time per run (ms, median)'
set pointsize 0.8
@KEY_BELOW
MTITLE = 'S3: grid geometry and block shape'
@PANEL_LINES_SPREAD
unset output
