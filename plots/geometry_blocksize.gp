# plots/geometry_blocksize.gp - S3: the block-size sweep of the single-block geometry
# (blocks M x 2M), time against N, one panel per memory kind. Data:
# plots/geometry_blocksize.sql (panel, series, x = N, y = median ms). Must not compute
# numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('S3: no block-size sweep in this database'); exit }
eval scan_col('panel')
eval scan_col('series')
eval term(words(LIST_panel) > 1 ? 0.6 * words(LIST_panel) : 1, 1.25)
set output outfile
@DATA_XTICS
@LOGY10
@SHARED_LOGY
set xlabel 'matrix side N'
set ylabel 'kernel time per run (ms, median)'
@KEY_BELOW
MTITLE = 'S3: single-block geometry, block size M×2M'
@PANEL_LINES
unset output
