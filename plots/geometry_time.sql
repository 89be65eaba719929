-- plots/geometry_time.sql - S3 (study geometry): kernel time against N for the twelve
-- variants of the paper: one panel per memory kind (global, shared), a line per
-- grid geometry (2-D, 1-D, single block) and block shape (M x M: K = 1, M x 2M:
-- K = 2), M = the study's main block side (the most frequent BS). Long form:
-- panel, series, x = N, y = median time (ms). Newest verified runs only.
WITH m AS (
    SELECT bs FROM results
    WHERE study = 'geometry' AND device_kind = 'gpu' AND is_latest = 1 AND status = 'ok'
    GROUP BY bs ORDER BY count(*) DESC, bs DESC LIMIT 1
)
SELECT r.variant || ' memory (M = ' || r.bs || ')' AS panel,
       CASE r.grid WHEN '2d' THEN '2-D grid' WHEN '1d' THEN '1-D grid' ELSE 'single block' END
           || ' / ' || CASE r.k WHEN 1 THEN 'M×M' WHEN 2 THEN 'M×2M' ELSE 'K=' || r.k END AS series,
       r.n AS x, r.median_ms AS y
FROM results r JOIN m ON m.bs = r.bs
WHERE r.study = 'geometry' AND r.family = 'matmul' AND r.device_kind = 'gpu'
  AND r.is_latest = 1 AND r.status = 'ok'
ORDER BY CASE r.variant WHEN 'global' THEN 1 ELSE 2 END,
         CASE r.grid WHEN '2d' THEN 1 WHEN '1d' THEN 2 ELSE 3 END, r.k, r.n;
