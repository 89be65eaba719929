-- plots/geometry_speedup_memory.sql - S3 (study geometry): speed-up of the shared-memory
-- kernel over the global-memory one (T_global / T_shared) against N, a line per
-- grid geometry and block shape, block side M = the study's main BS. Long form:
-- panel ('all'), series, x = N, y = speed-up. Newest verified runs only.
WITH m AS (
    SELECT bs FROM results
    WHERE study = 'geometry' AND device_kind = 'gpu' AND is_latest = 1 AND status = 'ok'
    GROUP BY bs ORDER BY count(*) DESC, bs DESC LIMIT 1
),
-- the runs of one point (device, variant, grid, k, n: seeds or repeats) as one,
-- their median time, so that a ratio pairs points, not every run with every run
r AS (
    SELECT r.device_id, r.variant, r.grid, r.k, r.n, r.median_ms,
           row_number() OVER (PARTITION BY r.device_id, r.variant, r.grid, r.k, r.n
                              ORDER BY r.median_ms) AS i,
           count(*) OVER (PARTITION BY r.device_id, r.variant, r.grid, r.k, r.n) AS c
    FROM results r JOIN m ON m.bs = r.bs
    WHERE r.study = 'geometry' AND r.family = 'matmul' AND r.device_kind = 'gpu'
      AND r.is_latest = 1 AND r.status = 'ok'
),
t AS (
    SELECT device_id, variant, grid, k, n, avg(median_ms) AS median_ms
    FROM r WHERE i IN ((c + 1) / 2, (c + 2) / 2)
    GROUP BY device_id, variant, grid, k, n
)
SELECT 'all' AS panel,
       CASE g.grid WHEN '2d' THEN '2-D grid' WHEN '1d' THEN '1-D grid' ELSE 'single block' END
           || ' / ' || CASE g.k WHEN 1 THEN 'M×M' WHEN 2 THEN 'M×2M' ELSE 'K=' || g.k END AS series,
       g.n AS x, g.median_ms / s.median_ms AS y
FROM t g JOIN t s ON s.device_id = g.device_id AND s.grid = g.grid AND s.k = g.k AND s.n = g.n
WHERE g.variant = 'global' AND s.variant = 'shared'
ORDER BY CASE g.grid WHEN '2d' THEN 1 WHEN '1d' THEN 2 ELSE 3 END, g.k, g.n;
