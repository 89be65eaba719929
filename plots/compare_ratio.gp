# plots/compare_ratio.gp - a saved comparison (`gpulab compare ... --save FILE`,
# `make report COMPARE=FILE`): every point's ratio median(B) / median(A) with its
# 95 % interval, sorted from the fastest B to the slowest, coloured by verdict,
# with the band of `same` (1/(1+t) to 1+t, t the comparison's threshold) and 1.
# Data: `gpulab compare --load FILE --csv` (report/report.mk; columns label, ratio,
# lo, hi, verdict, threshold; rows largest ratio first), no rows without COMPARE.
# Must not compute numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('no saved comparison (make report COMPARE=FILE)'); exit }
TH = NaN
set table $scan_junk
plot datafile using (TH = column('threshold') >= 0 ? column('threshold') : TH, 0):(0) with table
unset table
eval term(1, 1)
set output outfile
set title sprintf('B against A: %d points, sorted', NROWS)
set xlabel (NROWS <= 30 ? '' : 'points, fastest B first')
set ylabel 'median(B) / median(A), 95 % interval'
set key top left
set xrange [0.3 : NROWS + 0.7]
set style data points
unset logscale y
set format y '%g'
set autoscale y
if (NROWS <= 30) { XF = font_rel(0.7, 1); set xtics rotate by 35 right font XF noenhanced; set bmargin 16; set lmargin 38; set rmargin 4 } else { set xtics; set mxtics default }
# x: rank from the fastest B (the CSV has the slowest first)
X(c) = NROWS - column(0)
# the points' labels under the axis, when there are few enough to read
XT = NROWS <= 30 ? ", datafile using (X(0)):(1):xtic(strcol('label')) with points ps 0 notitle" : ""
# a row's ratio when its verdict is v, else NaN
V(v, y) = strcol('verdict') eq v ? y : NaN
plot (TH == TH ? 1 + TH : NaN) with lines ls 102 title sprintf('same within %.3g %%', TH * 100), \
     (TH == TH ? 1 / (1 + TH) : NaN) with lines ls 102 notitle, \
     1 with lines ls 101 notitle, \
     datafile using (X(0)):(V('slower', column('ratio'))):(column('lo')):(column('hi')) with yerrorbars lt 2 pt 7 title 'slower', \
     datafile using (X(0)):(V('faster', column('ratio'))):(column('lo')):(column('hi')) with yerrorbars lt 3 pt 9 title 'faster', \
     datafile using (X(0)):(V('same', column('ratio'))):(column('lo')):(column('hi')) with yerrorbars lt 1 pt 5 title 'same', \
     datafile using (X(0)):(V('unsure', column('ratio'))):(column('lo')):(column('hi')) with yerrorbars lt 8 pt 13 title 'unsure' @XT
unset output
