# plots/vecadd_bandwidth.gp - S4: effective bandwidth of vector add against N, GPU
# kernels (best launch per N) and the CPU, with the GPU's theoretical and measured
# copy bandwidth as horizontal levels. Data: plots/vecadd_bandwidth.sql (panel, series,
# x = N, y = GB/s, theo_gbs, copy_gbs). Must not compute numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('S4: no verified vecadd runs in this database'); exit }
eval scan_col('series')
NS = words(LIST_series)
THEO = NaN; COPY = NaN
set table $scan_junk
plot datafile using (THEO = column('theo_gbs') > 0 ? column('theo_gbs') : THEO, \
                     COPY = column('copy_gbs') > 0 ? column('copy_gbs') : COPY, 0):(0) with table
unset table
eval term(1, 1)
set output outfile
@LOGX2
@LOGY10
set xlabel 'vector length N (floats)'
set ylabel 'effective bandwidth 12N bytes / T (GB/s)'
set key outside right top vertical
set title 'S4: vector add c = a + b'
plot for [s = 1:NS] datafile using (column('x')):(sel1('series', word(LIST_series, s), column('y'))) \
     lt lt_of(s) title word(LIST_series, s), \
     (THEO == THEO ? THEO : NaN) with lines ls 101 title sprintf('GPU theoretical %.0f GB/s', THEO), \
     (COPY == COPY ? COPY : NaN) with lines ls 102 title sprintf('GPU measured copy %.0f GB/s', COPY)
unset output
