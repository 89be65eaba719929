# plots/matmul_speedup.gp - S1: speed-ups against N over two CPU references, side by
# side: over the seed's OpenMP i-k-j baseline (the GPU kernels per memory kind at their
# best block size, and the blocked and OpenBLAS CPU rows), and over the best CPU row at
# that N (the GPU kernels). Data: plots/matmul_speedup.sql (panel, series, x = N,
# y = T_ref / T). Must not compute numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('S1: no matmul runs with a CPU reference at the same N'); exit }
eval scan_col('panel')
eval scan_col('series')
NP = words(LIST_panel)
eval term(NP > 1 ? 1.6 : 1, 1.2)
set output outfile
@DATA_XTICS
@RATIO_Y
set xlabel 'matrix side N'
set ylabel 'speed-up T_{ref} / T'
MTITLE = 'S1: speed-up over a CPU reference at the same N'
@KEY_BELOW
set multiplot layout 1, NP margins 0.09, 0.98, 0.28, 0.86 spacing 0.05, 0 title MTITLE
do for [p = 1:NP] {
    P = word(LIST_panel, p)
    set title P noenhanced
    if (p > 1) { unset ylabel; set key off }
    plot for [s = 1:words(LIST_series)] datafile using (column('x')):(sel2('panel', P, 'series', word(LIST_series, s), column('y'))) \
         lt lt_of(s) title word(LIST_series, s), \
         1 with lines ls 102 notitle
}
unset multiplot
unset output
