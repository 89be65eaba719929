-- report/tables/search_summary.sql - one row per search (a section with `strategy =`
-- other than exhaustive: the view search_evals, db/views.sql, as
-- plots/search_progress.sql): its evaluations and seconds, the best median time it found and the
-- configuration (parameters) that has it, and the evaluations and seconds it took to
-- come within 5 % of that best.
WITH ev AS (SELECT run_id AS id, study, section, strategy, seed, ms, secs FROM search_evals),
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
