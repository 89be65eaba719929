-- report/tables/search_summary.sql - one row per search (a section with `strategy =`
-- other than exhaustive; found as plots/search_progress.sql finds them, whose CTEs
-- this repeats): its evaluations and seconds, the best median time it found and the
-- configuration (parameters) that has it, and the evaluations and seconds it took to
-- come within 5 % of that best.
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
    SELECT ev.*, row_number() OVER w AS n, sum(max(secs, 0)) OVER w AS t
    FROM ev
    WINDOW w AS (PARTITION BY study, section, strategy, seed ORDER BY id
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
best AS (
    SELECT study, section, strategy, seed, max(n) AS evals, max(t) AS secs, min(ms) AS best_ms
    FROM prog GROUP BY study, section, strategy, seed
)
SELECT b.study || '/' || b.section AS search, b.strategy, b.seed AS search_seed,
       b.evals AS evaluations, printf('%.1f', b.secs) AS seconds,
       printf('%.4g', b.best_ms) AS best_ms,
       (SELECT trim(coalesce('N=' || r.n || ' ', '') || coalesce('M=' || r.m || ' ', '') ||
                    coalesce('P=' || r.p || ' ', '') || coalesce('BS=' || r.bs || ' ', '') ||
                    coalesce('K=' || r.k || ' ', '') || coalesce('R=' || r.r || ' ', '') ||
                    coalesce('G=' || r.g || ' ', '') || coalesce(r.uparams, '') || ' ' ||
                    CASE WHEN (SELECT count(DISTINCT variant) FROM run o WHERE o.study = b.study
                                   AND o.section = b.section) > 1 THEN r.variant ELSE '' END)
        FROM prog p JOIN run r ON r.id = p.id
        WHERE p.study = b.study AND p.section = b.section AND p.strategy = b.strategy
          AND p.seed = b.seed AND p.ms = b.best_ms ORDER BY p.id LIMIT 1) AS configuration,
       (SELECT min(n) FROM prog p WHERE p.study = b.study AND p.section = b.section
            AND p.strategy = b.strategy AND p.seed = b.seed AND p.ms <= 1.05 * b.best_ms)
           AS evals_to_5pct,
       (SELECT printf('%.1f', min(t)) FROM prog p WHERE p.study = b.study AND p.section = b.section
            AND p.strategy = b.strategy AND p.seed = b.seed AND p.ms <= 1.05 * b.best_ms)
           AS seconds_to_5pct
FROM best b
WHERE b.best_ms IS NOT NULL
ORDER BY b.study, b.section, b.strategy, CAST(b.seed AS INTEGER);
