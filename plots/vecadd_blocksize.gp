# plots/vecadd_blocksize.gp - S4: effective bandwidth of the one-element-per-thread
# vector add against threads per block, a line per N; the lecture's recommended
# 128..256 threads shaded. Data: plots/vecadd_blocksize.sql (panel, series, x = threads
# per block, y = GB/s). Must not compute numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('S4: no verified GPU vecadd runs in this database'); exit }
eval scan_col('series')
NS = words(LIST_series)
eval term(1, 1)
set output outfile
@LOGX2N
@LOGY10
@SHARED_LOGY
set xlabel 'threads per block'
set ylabel 'effective bandwidth 12N bytes / T (GB/s)'
set key outside right top vertical
set object 1 rectangle from 128, graph 0 to 256, graph 1 behind fc rgb '#f0f0f0' fs solid noborder
set label 1 'recommended 128-256' at 181, graph 0.97 center font font_rel(0.8, 1)
set title 'S4: vector add, one element per thread, by block size'
plot for [s = 1:NS] datafile using (column('x')):(sel1('series', word(LIST_series, s), column('y'))) \
     lt lt_of(s) title word(LIST_series, s)
unset output
