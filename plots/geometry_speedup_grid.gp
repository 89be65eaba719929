# plots/geometry_speedup_grid.gp - S3: speed-up of the 2-D grid over the 1-D and the
# single-block geometries against N, one panel per memory kind. Data:
# plots/geometry_speedup_grid.sql (panel, series, x = N, y = T_other / T_2d). Must not
# compute numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('S3: no 2-D grid runs to compare with'); exit }
eval scan_col('panel')
eval scan_col('series')
eval term(words(LIST_panel) > 1 ? 0.7 * words(LIST_panel) : 1, 1.25)
set output outfile
@RATIO_Y
set xlabel 'matrix side N'
set ylabel 'speed-up T_{1-D or single block} / T_{2-D}'
set pointsize 0.8
@KEY_BELOW
MTITLE = 'S3: one 2-D launch against many launches'
@PANEL_LINES
unset output
