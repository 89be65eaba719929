# plots/stencil_vs_n.gp - S2: stencil GFLOP/s against N, one panel per radius R; GPU
# variants at their best (BS, K), CPU sequential and OpenMP. Data: plots/stencil_vs_n.sql
# (panel, series, x = N, y = GFLOP/s). Must not compute numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('S2: no verified stencil runs in this database'); exit }
eval scan_col('panel')
eval scan_col('series')
eval term(words(LIST_panel) > 1 ? 0.55 * words(LIST_panel) : 1, 1.25)
set output outfile
@DATA_XTICS
@LOGY10
@SHARED_LOGY
set xlabel 'input side N'
set ylabel 'GFLOP/s, FLOP = (N-2R)^2 (2R+1)^2'
@KEY_BELOW
MTITLE = 'S2: radius-R box sum against N'
@PANEL_LINES
unset output
