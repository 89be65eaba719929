-- plots/geometry_speedup_grid.sql - S3 (study geometry): speed-up of the 2-D grid (one
-- launch) over the 1-D grid (one launch per block-row) and over the single-block
-- geometry (one launch per tile), T_other / T_2d, against N. One panel per memory
-- kind, a line per block shape and comparison; block side M = the study's main BS.
-- Long form: panel, series, x = N, y = speed-up. Newest verified runs only.
WITH m AS (
    SELECT bs FROM results
    WHERE study = 'geometry' AND device_kind = 'gpu' AND is_latest = 1 AND status = 'ok'
    GROUP BY bs ORDER BY count(*) DESC, bs DESC LIMIT 1
),
t AS (
    SELECT r.device_id, r.variant, r.grid, r.k, r.n, r.median_ms
    FROM results r JOIN m ON m.bs = r.bs
    WHERE r.study = 'geometry' AND r.family = 'matmul' AND r.device_kind = 'gpu'
      AND r.is_latest = 1 AND r.status = 'ok'
)
SELECT o.variant || ' memory' AS panel,
       CASE o.k WHEN 1 THEN 'M×M' WHEN 2 THEN 'M×2M' ELSE 'K=' || o.k END || ': 2-D over '
           || CASE o.grid WHEN '1d' THEN '1-D grid' ELSE 'single block' END AS series,
       o.n AS x, o.median_ms / d.median_ms AS y
FROM t o JOIN t d ON d.device_id = o.device_id AND d.variant = o.variant AND d.k = o.k
                 AND d.n = o.n AND d.grid = '2d'
WHERE o.grid IN ('1d', 'block')
ORDER BY CASE o.variant WHEN 'global' THEN 1 ELSE 2 END, o.k,
         CASE o.grid WHEN '1d' THEN 1 ELSE 2 END, o.n;
