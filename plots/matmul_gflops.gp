# plots/matmul_gflops.gp - S1: P = 2N^3/T (GFLOP/s) against N, one panel per GPU memory
# kind, a line per GPU variant and block size plus the CPU rows. Data:
# plots/matmul_gflops.sql (panel, series, x = N, y = GFLOP/s). Must not compute numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('S1: no verified matmul runs in this database'); exit }
eval scan_col('panel')
eval scan_col('series')
NP = words(LIST_panel)
NS = words(LIST_series)
W = NP > 1 ? 0.55 * NP : 1
eval term(W, 1.3)
set output outfile
@DATA_XTICS
@LOGY10
@SHARED_LOGY
set xlabel 'matrix side N'
set ylabel 'P = 2N^3/T (GFLOP/s)'
@KEY_BELOW
set multiplot layout 1, NP margins 0.09, 0.98, 0.3, 0.86 spacing 0.035, 0 \
    title 'S1: square matmul (float), median time of the verified runs'
do for [p = 1:NP] {
    P = word(LIST_panel, p)
    set title (P eq 'none' ? 'CPU only (no GPU runs)' : 'GPU memory: ' . P)
    if (p > 1) { unset ylabel; set format y ''; set key off }
    plot for [s = 1:NS] datafile using (column('x')):(sel2('panel', P, 'series', word(LIST_series, s), column('y'))) \
         lt lt_of(s) title word(LIST_series, s)
}
unset multiplot
unset output
