# plots/stencil_vs_bs.gp - S2: GPU stencil GFLOP/s against the block side BS at the
# largest N, one panel per radius R, a line per variant and K. Data:
# plots/stencil_vs_bs.sql (panel, series, x = BS, y = GFLOP/s). Must not compute numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('S2: no verified GPU stencil runs in this database'); exit }
eval scan_col('panel')
eval scan_col('series')
eval term(words(LIST_panel) > 1 ? 0.55 * words(LIST_panel) : 1, 1.25)
set output outfile
@LOGX2N
@LOGY10
@SHARED_LOGY
set xlabel 'block side BS (BS x BS threads)'
set ylabel 'GFLOP/s, FLOP = (N-2R)^2 (2R+1)^2'
@KEY_BELOW
MTITLE = 'S2: radius-R box sum against the block side'
@PANEL_LINES
unset output
