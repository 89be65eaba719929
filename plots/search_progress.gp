# plots/search_progress.gp - searches: the best median time found so far against the
# evaluations (left) and against the seconds of the search (right), a line per
# search (study/section, strategy, search_seed). Data: plots/search_progress.sql
# (panel = evaluations | seconds, series, x, y = best median_ms so far). Must not
# compute numbers.
load 'plots/style.gp'
eval count_rows
if (NROWS == 0) { eval term(1, 1); eval no_data_page('no searches (strategy =) in this database'); exit }
eval scan_col('panel')
eval scan_col('series')
eval term(2, 1.1)
set output outfile
@LOGY10
@SHARED_LOGY
set ylabel 'best median time so far (ms)'
set key noenhanced
set style data steps
@KEY_BELOW
# two panels, each with its own x (PANEL_LINES would share the data's x range)
NS = words(LIST_series)
KR = ceil(NS / ceil(NS / 3.0))
set multiplot layout 1, 2 margins 0.07, 0.98, 0.17 + 0.045 * KR, 0.83 spacing 0.06, 0 \
    title 'Searches: the best configuration found so far'
do for [P in 'evaluations seconds'] {
    set title (P eq 'evaluations') ? 'against evaluations' : 'against seconds of the search'
    set xlabel (P eq 'evaluations') ? 'evaluations (runs stored, in order)' : 'seconds (each run from the one before it, summed)'
    if (P eq 'seconds') { unset ylabel; set key off }
    plot for [s = 1:NS] datafile using (sel2('panel', P, 'series', word(LIST_series, s), column('x'))):\
         (sel2('panel', P, 'series', word(LIST_series, s), column('y'))) lt lt_of(s) title word(LIST_series, s)
}
unset multiplot
unset output
