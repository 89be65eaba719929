-- plots/search_progress.sql - searches (a section with `strategy =` other than
-- exhaustive, docs/configs.md#searches): the best median time found so far against
-- the evaluations (the search's stored runs, skipped ones aside, in the order they
-- were stored) and against the seconds of the search (each run's time from the
-- previous stored run of its section in its session, or from its own start: the
-- same seconds the search's budget counts, src/store/store_search.c). A search is
-- the runs of one study and section whose sessions' config (stored with each
-- session) gives that section the same strategy and search_seed: its own lines,
-- else the lines before the first section. Long form: panel (evaluations |
-- seconds), series ('study/section strategy seed N'), x, y = best median_ms so far.
WITH s AS (
    SELECT DISTINCT r.session_id, r.section,
           char(10) || replace(se.config_text, char(13), '') || char(10) AS t
    FROM run r JOIN session se ON se.id = r.session_id
),
b AS (
    SELECT session_id, section, t, instr(t, char(10) || '[' || section || ']') AS at FROM s
),
parts AS (   -- the lines before the first section, and the section's own lines
    SELECT session_id, section, substr(t, 1, instr(t, char(10) || '[')) AS top,
           substr(t, at + 1,
                  CASE WHEN instr(substr(t, at + 2), char(10) || '[') > 0
                       THEN instr(substr(t, at + 2), char(10) || '[') ELSE length(t) END) AS own
    FROM b WHERE at > 0
),
keyline AS (   -- the first line of each part that sets each key: its value, comment cut
    SELECT session_id, section, part, key,
           CASE WHEN pos > 0 THEN trim(substr(line, instr(line, '=') + 1)) END AS val
    FROM (SELECT session_id, section, part, key, pos,
                 CASE WHEN instr(l0, '#') > 0 THEN substr(l0, 1, instr(l0, '#') - 1) ELSE l0 END AS line
          FROM (SELECT session_id, section, part, key, pos,
                       substr(x, pos + 1, instr(substr(x, pos + 1), char(10)) - 1) AS l0
                FROM (SELECT p.session_id, p.section, w.part, k.key,
                             CASE w.part WHEN 'own' THEN p.own ELSE p.top END AS x,
                             instr(CASE w.part WHEN 'own' THEN p.own ELSE p.top END,
                                   char(10) || k.key) AS pos
                      FROM parts p,
                           (SELECT 'own' AS part UNION ALL SELECT 'top') w,
                           (SELECT 'strategy' AS key UNION ALL SELECT 'search_seed') k)))
    WHERE pos > 0 AND trim(substr(line, 1, instr(line, '=') - 1)) = key
),
searched AS (
    SELECT p.session_id, p.section,
           coalesce((SELECT val FROM keyline k WHERE k.session_id = p.session_id
                         AND k.section = p.section AND k.key = 'strategy' AND k.part = 'own'),
                    (SELECT val FROM keyline k WHERE k.session_id = p.session_id
                         AND k.section = p.section AND k.key = 'strategy' AND k.part = 'top'),
                    'exhaustive') AS strategy,
           coalesce((SELECT val FROM keyline k WHERE k.session_id = p.session_id
                         AND k.section = p.section AND k.key = 'search_seed' AND k.part = 'own'),
                    (SELECT val FROM keyline k WHERE k.session_id = p.session_id
                         AND k.section = p.section AND k.key = 'search_seed' AND k.part = 'top'),
                    '1') AS seed
    FROM parts p
),
ev AS (
    SELECT r.id, r.study, r.section, sr.strategy, sr.seed,
           CASE WHEN r.status = 'ok' THEN r.median_ms END AS ms,
           86400.0 * (julianday(r.created_at) - julianday(coalesce(
               lag(r.created_at) OVER (PARTITION BY r.session_id, r.study, r.section ORDER BY r.id),
               r.started_at, r.created_at))) AS secs
    FROM run r JOIN searched sr ON sr.session_id = r.session_id AND sr.section = r.section
    WHERE sr.strategy <> 'exhaustive' AND r.status <> 'skipped'
),
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
