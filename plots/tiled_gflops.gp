# plots/tiled_gflops.gp - S5: GFLOP/s of the non-square naive and tiled kernels per
# block size, cuBLAS and the CPU, for each size M×N×P (categories on x). Data:
# plots/tiled_gflops.sql (panel, series, x = size index, y = GFLOP/s, label).
# Must not compute numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('S5: no verified non-square matmul runs in this database'); exit }
eval scan_col('series')
NS = words(LIST_series)
eval term(1.1, 1)
set output outfile
@LOGY10
set xlabel 'size M×N×P (C[M][N] = A[M][P] · B[P][N])'
set ylabel 'GFLOP/s = 2MNP / T'
set xtics rotate by -30 left nomirror
set key outside right top vertical
set offsets 0.3, 0.3, graph 0.05, graph 0.05
set title 'S5: non-square matmul, naive against tiled'
plot for [s = 1:NS] datafile using (column('x')):(sel1('series', word(LIST_series, s), column('y'))):xtic(strcol('label')) \
     lt lt_of(s) title word(LIST_series, s)
unset output
