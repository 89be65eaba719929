# plots/matmul_speedup.gp - S1: speed-up of each GPU variant and memory kind (best block
# size per N) over the CPU OpenMP i-k-j baseline, against N. Data: plots/matmul_speedup.sql
# (panel, series, x = N, y = T_cpu / T_gpu). Must not compute numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('S1: no GPU and CPU matmul runs at the same N'); exit }
eval scan_col('series')
NS = words(LIST_series)
eval term(1, 1)
set output outfile
@DATA_XTICS
@RATIO_Y
set xlabel 'matrix side N'
set ylabel 'speed-up over CPU OpenMP i-k-j (T_{CPU} / T_{GPU})'
set key outside right top vertical
set title 'S1: GPU speed-up over the CPU, best block size per N'
plot for [s = 1:NS] datafile using (column('x')):(sel1('series', word(LIST_series, s), column('y'))) \
     lt lt_of(s) title word(LIST_series, s), \
     1 with lines ls 102 title 'CPU = GPU'
unset output
