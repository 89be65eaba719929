-- plots/geometry_speedup_block.sql - S3 (study geometry): speed-up of the M x 2M block
-- (two outputs per thread, K = 2) over the M x M block (K = 1), T_MxM / T_Mx2M,
-- against N, a line per memory kind and grid geometry; M = the study's main BS.
-- Long form: panel ('all'), series, x = N, y = speed-up. Newest verified runs only;
-- several runs of one point (seeds) count as their median.
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
       a.variant || ' / ' || CASE a.grid WHEN '2d' THEN '2-D grid' WHEN '1d' THEN '1-D grid'
                                         ELSE 'single block' END AS series,
       a.n AS x, a.median_ms / b.median_ms AS y
FROM t a JOIN t b ON b.device_id = a.device_id AND b.variant = a.variant AND b.grid = a.grid
                 AND b.n = a.n AND b.k = 2
WHERE a.k = 1
ORDER BY CASE a.variant WHEN 'global' THEN 1 ELSE 2 END,
         CASE a.grid WHEN '2d' THEN 1 WHEN '1d' THEN 2 ELSE 3 END, a.n;
