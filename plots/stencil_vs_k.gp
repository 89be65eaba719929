# plots/stencil_vs_k.gp - S2: GPU stencil GFLOP/s against K (outputs per thread) at the
# largest N, one panel per radius R, a line per variant and block side. Data:
# plots/stencil_vs_k.sql (panel, series, x = K, y = GFLOP/s). Must not compute numbers.
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
set xlabel 'outputs per thread K'
set ylabel 'GFLOP/s, FLOP = (N-2R)^2 (2R+1)^2'
@KEY_BELOW
MTITLE = 'S2: radius-R box sum against K, block BS x BS'
@PANEL_LINES
unset output
