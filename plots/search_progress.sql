-- plots/search_progress.sql - searches (a section with `strategy =` other than
-- exhaustive, docs/configs.md#searches): the best median time found so far against
-- the evaluations (the search's stored runs, skipped ones aside, in the order they
-- were stored) and against the seconds of the search (each run's time from the
-- previous stored run of its section in its session, or from its own start: the
-- same seconds the search's budget counts, src/store/store_search.c). A search is
-- the runs of one study and section whose sessions' config (stored with each
-- session) gives that section the same strategy and search_seed (the view
-- search_evals, db/views.sql). Long form: panel (evaluations |
-- seconds), series ('study/section strategy seed N'), x, y = best median_ms so far.
WITH ev AS (SELECT run_id AS id, study, section, strategy, seed, ms, secs FROM search_evals),
prog AS (
    SELECT study || '/' || section || ' ' || strategy || ' seed ' || seed AS series,
           row_number() OVER w AS n,
           sum(max(secs, 0)) OVER w AS t,
           min(ms) OVER w AS best
    FROM ev
    WINDOW w AS (PARTITION BY study, section, strategy, seed ORDER BY id
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
)
SELECT panel, series, x, y FROM (
    SELECT 'evaluations' AS panel, series, n AS x, best AS y FROM prog WHERE best IS NOT NULL
    UNION ALL
    SELECT 'seconds', series, t, best FROM prog WHERE best IS NOT NULL
)
ORDER BY panel, series, x;
